//! The keyword source on PostgreSQL: full-text search through the GIN index, `ts_rank` over a
//! bounded candidate set, scaled to the BM25 range fusion expects (see the module docs of
//! [`crate::pg`]).

use super::sql_filter::{SqlFilter, FILTER};
use super::{pg_err, PgConfig};
use crate::retrieval::{KeywordCandidates, Plan};
use crate::Result;

/// The keyword source: PostgreSQL full-text, ranked over a bounded candidate set (see the
/// module docs of [`crate::pg`]).
pub(super) async fn keyword_candidates(
    client: &deadpool_postgres::Client,
    plan: &Plan<'_>,
    filter: &SqlFilter<'_>,
    config: &PgConfig,
) -> Result<KeywordCandidates> {
    let err = pg_err("keyword search");
    let stmt = client
        .prepare_cached(
            &KEYWORD_SQL
                .replace("{ANY_WORD}", ANY_WORD)
                .replace("{FILTER}", FILTER),
        )
        .await
        .map_err(&err)?;
    let limits = [
        plan.pool as i64,
        config.keyword_term_limit as i64,
        config.count_limit as i64,
    ];
    // The query's words as the items' were written (`rows::Searchable`): accents folded,
    // CJK text cut into characters and pairs.
    let words = crate::words::folded_words(&plan.request.query);
    let rows = client
        .query(
            &stmt,
            &filter.params(&[&words, &limits[0], &limits[1], &limits[2]]),
        )
        .await
        .map_err(&err)?;
    let scale = config.keyword_scale;
    Ok(KeywordCandidates {
        total: rows
            .first()
            .map_or(0, |r| r.get::<_, i64>(2).max(0) as usize),
        hits: rows
            .iter()
            .map(|r| {
                let rank: f32 = r.get(1);
                (r.get::<_, i64>(0) as u64, (f64::from(rank) * scale) as f32)
            })
            .collect(),
        terms: navigator_core::text::terms(&plan.request.query).len(),
    })
}

/// Keyword candidates without ranking every match, scored as BM25 weighs words: each query
/// lexeme's `ts_rank` (weights D, C body, B tags, A title; length normalisation 1) times
/// its inverse document frequency `ln(1 + (N − df + 0.5) / (df + 0.5))`, summed.
///
/// The ranking runs only over a bounded set found through the GIN index — every item of each
/// query lexeme that matches at most `$11` items (the rare, telling words: what IDF ranks
/// first; lexemes the table statistics already know to be commoner are not even fetched), up
/// to `$11` items matching all lexemes, and up to `$10` (the pool) matching any. Lexemes are
/// OR-ed, as the embedded engine's clauses are. The total counts matches up to `$12` and is a
/// lower bound beyond.
///
/// Document frequencies cost no extra scan: a rare lexeme's is the number of its items just
/// fetched (the owner's, exact); a common one's comes from the table statistics
/// (`pg_stats.most_common_elems` frequency × `reltuples`, all owners'); a lexeme in between
/// (more than `$11` items, too rare for the statistics) gets the larger of `$11 + 1` and the
/// least frequency the statistics list. `N` is the table's `reltuples` (counted, up to
/// 100 000, before the first `ANALYZE`). Every reading of `items` is scoped to the owner by
/// `{FILTER}`.
const KEYWORD_SQL: &str = "
WITH stats AS (
    SELECT e.elem, e.freq
    FROM pg_stats s,
         unnest(s.most_common_elems::text::text[], s.most_common_elem_freqs) AS e(elem, freq)
    WHERE s.schemaname = current_schema() AND s.tablename = 'items' AND s.attname = 'tsv'
      AND e.elem IS NOT NULL),
size AS (
    SELECT CASE WHEN reltuples > 0 THEN reltuples::float8
                ELSE (SELECT count(*) FROM (SELECT 1 FROM items WHERE items.owner = $8
                                            LIMIT 100000) AS a)::float8 END AS n
    FROM pg_class WHERE oid = 'items'::regclass),
lexemes AS (
    SELECT t.lexeme,
           (SELECT st.freq FROM stats st WHERE st.elem = t.lexeme) * (SELECT n FROM size) AS common
    FROM unnest(to_tsvector('english', $9)) AS t(lexeme)),
per_lexeme AS (
    SELECT l.lexeme, m.key, m.tsv, count(*) OVER (PARTITION BY l.lexeme) AS n
    FROM lexemes l CROSS JOIN LATERAL (
        SELECT key, tsv FROM items
        WHERE tsv @@ quote_literal(l.lexeme)::tsquery AND {FILTER}
        LIMIT $11::bigint + 1) m
    WHERE coalesce(l.common, 0) <= $11::bigint),
df AS (
    SELECT l.lexeme,
           coalesce(l.common, (SELECT max(p.n) FROM per_lexeme p WHERE p.lexeme = l.lexeme))::float8
               AS fetched
    FROM lexemes l),
idf AS (
    SELECT d.lexeme, ln(1 + (c.n - f.df + 0.5) / (f.df + 0.5)) AS idf
    FROM df d
    CROSS JOIN LATERAL (SELECT CASE WHEN d.fetched IS NULL OR d.fetched > $11::bigint
                               THEN greatest($11::float8 + 1, d.fetched,
                                             (SELECT min(freq) FROM stats) * (SELECT n FROM size))
                               ELSE d.fetched END AS df) f
    CROSS JOIN LATERAL (SELECT greatest((SELECT n FROM size), f.df) AS n) c),
candidates AS (
    SELECT key, tsv FROM per_lexeme WHERE n <= $11::bigint
    UNION ALL (SELECT key, tsv FROM items
               WHERE tsv @@ plainto_tsquery('english', $9) AND {FILTER} LIMIT $11::bigint)
    UNION ALL (SELECT key, tsv FROM items WHERE tsv @@ {ANY_WORD} AND {FILTER} LIMIT $10)),
ranked AS (
    SELECT c.key,
           sum(i.idf * ts_rank('{0.1, 0.5, 0.75, 1.0}', c.tsv, quote_literal(i.lexeme)::tsquery, 1))
               ::real AS rank
    FROM (SELECT DISTINCT ON (key) key, tsv FROM candidates ORDER BY key) c
    JOIN idf i ON c.tsv @@ quote_literal(i.lexeme)::tsquery
    GROUP BY c.key)
SELECT key, rank,
       (SELECT count(*) FROM (SELECT 1 FROM items WHERE tsv @@ {ANY_WORD} AND {FILTER}
                              LIMIT $12::bigint) AS c) AS total
FROM ranked ORDER BY rank DESC, key LIMIT $10::bigint";

/// The query's lexemes OR-ed (`$9` is the query's folded words).
const ANY_WORD: &str = "replace(plainto_tsquery('english', $9)::text, ' & ', ' | ')::tsquery";
