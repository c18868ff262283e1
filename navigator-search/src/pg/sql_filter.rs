//! A request's filter on PostgreSQL: the SQL condition over the items columns and its
//! parameters, shared by the keyword, vector and listing queries. It names the owner of the
//! store first: no search reads another owner's rows.

/// The filter of a request as SQL over parameters `$1`..`$8` (categories, status, parent,
/// updated from, updated to, any of these tags, all of these tags, owner); the same conditions
/// as the embedded engine's `Filter` (the parent composed, tags as `TagFilter::normalize`
/// gives them: both sides of each comparison, the columns `parent_key` and `tag_keys` being
/// written so, see `rows::Searchable`), within one owner's items. The table must be named
/// `items` (no alias).
pub(super) const FILTER: &str = "items.owner = $8
    AND category = ANY($1::text[])
    AND ($2::text IS NULL OR status = $2)
    AND ($3::text IS NULL OR parent_key = $3)
    AND ($4::timestamptz IS NULL OR updated_at >= $4)
    AND ($5::timestamptz IS NULL OR updated_at <= $5)
    AND ($6::text[] IS NULL OR tag_keys && $6)
    AND ($7::text[] IS NULL OR tag_keys @> $7)";

/// A plan's [`Filter`](crate::filter::Filter) and the store's owner as the parameters
/// `$1`..`$8` of [`FILTER`].
pub(super) struct SqlFilter<'a> {
    /// Every category and nothing else: the chunk walk needs no join with the items.
    pub(super) unrestricted: bool,
    categories: Vec<&'static str>,
    status: Option<&'a str>,
    parent: Option<std::borrow::Cow<'a, str>>,
    start: Option<chrono::DateTime<chrono::Utc>>,
    end: Option<chrono::DateTime<chrono::Utc>>,
    any_tags: Option<Vec<String>>,
    all_tags: Option<Vec<String>>,
    owner: &'a str,
}

impl<'a> SqlFilter<'a> {
    pub(super) fn new(filter: &'a crate::filter::Filter, owner: &'a str) -> Self {
        let (start, end) = filter
            .updated
            .as_ref()
            .map_or((None, None), |r| (r.start, r.end));
        let tags = |list: fn(&navigator_core::TagFilter) -> &Vec<String>| {
            filter
                .tags
                .as_ref()
                .map(list)
                .filter(|l| !l.is_empty())
                .map(|l| {
                    l.iter()
                        .map(|t| navigator_core::TagFilter::normalize(t))
                        .collect()
                })
        };
        Self {
            unrestricted: filter.is_unrestricted(),
            categories: filter.categories.iter().map(|c| c.as_str()).collect(),
            status: filter.status.as_deref(),
            parent: filter.parent_id.as_deref().map(crate::filter::composed),
            start,
            end,
            any_tags: tags(|t| &t.any),
            all_tags: tags(|t| &t.all),
            owner,
        }
    }

    /// The owner, for the statements that need no other condition.
    pub(super) fn owner(&self) -> &'a str {
        self.owner
    }

    /// `$1`..`$8`, then `rest` from `$9` on.
    pub(super) fn params<'p>(&'p self, rest: &[&'p Param<'p>]) -> Vec<&'p Param<'p>> {
        let mut params: Vec<&'p Param<'p>> = vec![
            &self.categories,
            &self.status,
            &self.parent,
            &self.start,
            &self.end,
            &self.any_tags,
            &self.all_tags,
            &self.owner,
        ];
        params.extend_from_slice(rest);
        params
    }
}

pub(super) type Param<'p> = dyn tokio_postgres::types::ToSql + Sync + 'p;
