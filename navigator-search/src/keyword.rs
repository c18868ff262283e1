//! [`KeywordIndex`]: the BM25 side of the engine, a [tantivy](https://docs.rs/tantivy) index
//! derived from the store.
//!
//! Title, body and tags are analysed with tantivy's English stemmer (`en_stem`, its stems
//! remembered per thread: `stems.rs`). Ranking is
//! BM25 over one combined `text` field that holds the title and the tags twice and the body
//! once: a field-weighted BM25 (BM25F-style) in which a title term counts as two occurrences
//! against one length normalisation and one IDF. Summing separate per-field BM25 scores
//! instead over-rewards a query term that happens to be in a short title (measured on SciFact
//! train: 0.622 nDCG@10 for title×2 + body as separate fields, 0.707 for the combined field).
//! Nothing else is analysed: snippets weigh the query terms by their statistics in `text`
//! (separate `title`, `body` and `tags` fields, indexed until 2026-11, doubled the analysis
//! and postings work of every write for that alone; an index of that schema is rebuilt from
//! the store when it opens). Category, item type, status, parent and the two dates are
//! indexed and fast fields, and each tag, normalised, an exact term: filters run inside the
//! index.
//!
//! User text never reaches a query parser: it is tokenised with the index's own analyser and
//! turned into term queries, so query syntax in a search (`title:x AND (`, `*`, `"`) is plain
//! text that can neither fail nor inject.

use crate::filter::Filter;
use crate::merges::BulkSwitch;
use crate::opened::Opened;
use crate::retrieval::{KeywordCandidates, KeywordSource};
use crate::snippet::{truncate, Snippets};
use crate::{Error, Result};
use navigator_core::{Category, Item, TagFilter};
use std::ops::Bound;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use tantivy::collector::{Collector, Count, SegmentCollector, TopDocs};
use tantivy::query::{BooleanQuery, ConstScoreQuery, Occur, Query, RangeQuery, TermQuery};
use tantivy::schema::{
    DateOptions, Field, IndexRecordOption, NumericOptions, Schema, TextFieldIndexing, TextOptions,
    FAST, STRING,
};
use tantivy::snippet::SnippetGenerator;
use tantivy::tokenizer::TextAnalyzer;
use tantivy::{
    DateTime, Directory, Index, IndexReader, IndexWriter, ReloadPolicy, TantivyDocument, Term,
};

/// How many times the title and the tags are repeated in the combined ranking field (the
/// body counts once).
const TITLE_REPEAT: usize = 2;
const TAGS_REPEAT: usize = 2;
/// Indexing memory shared by the writer threads (tantivy needs at least 15 MB per thread).
const WRITER_MEMORY: usize = 64 * 1024 * 1024;

#[derive(Debug, Clone, Copy)]
struct Fields {
    key: Field,
    /// Which passage of its item a document is (`passages.rs`): 0 for the first, the one
    /// every item has.
    passage: Field,
    /// Title ×2, tags ×2 and body: what BM25 ranks on.
    text: Field,
    category: Field,
    item_type: Field,
    status: Field,
    parent: Field,
    /// Each tag normalised ([`TagFilter::normalize`]), as an exact term for tag filters.
    tag: Field,
    created: Field,
    updated: Field,
}

fn schema() -> (Schema, Fields) {
    let mut b = Schema::builder();
    let text = TextOptions::default().set_indexing_options(
        TextFieldIndexing::default()
            .set_tokenizer(crate::stems::ANALYZER)
            .set_index_option(IndexRecordOption::WithFreqs),
    );
    let date = DateOptions::default().set_indexed().set_fast();
    let fields = Fields {
        key: b.add_u64_field("key", NumericOptions::default().set_indexed().set_fast()),
        passage: b.add_u64_field("passage", NumericOptions::default().set_indexed()),
        text: b.add_text_field("text", text),
        category: b.add_text_field("category", STRING | FAST),
        item_type: b.add_text_field("item_type", STRING | FAST),
        status: b.add_text_field("status", STRING | FAST),
        parent: b.add_text_field("parent", STRING | FAST),
        tag: b.add_text_field("tag", STRING),
        created: b.add_date_field("created", date.clone()),
        updated: b.add_date_field("updated", date),
    };
    (b.build(), fields)
}

/// What [`KeywordIndex::commit_beside`] does with the staged documents once the store
/// write beside their commit has returned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Staged {
    /// Commit them as the store's write `seq`.
    Commit(u64),
    /// Drop them: the store write failed, or gave other keys than they were staged under.
    Drop,
}

/// The tantivy keyword index.
pub(crate) struct KeywordIndex {
    index: Index,
    reader: IndexReader,
    /// `None` only while [`Self::compact`] swaps it (and after a failed swap: writes then
    /// fail with a clear error instead of blocking).
    writer: Mutex<Option<IndexWriter>>,
    writer_threads: usize,
    /// Holds merges back while bulk writes commit (`merges.rs`).
    bulk: BulkSwitch,
    fields: Fields,
    path: PathBuf,
}

/// The engine's reader of `index`. Each write reloads it itself (a search right after a
/// write sees it); the policy also picks up the segments tantivy's background merges produce.
fn reader(index: &Index) -> tantivy::Result<IndexReader> {
    index
        .reader_builder()
        .reload_policy(ReloadPolicy::OnCommitWithDelay)
        .try_into()
}

/// The index in `dir` and its reader when it opens with `schema`, every file of its live
/// segments passes its checksum and every segment opens; why not.
fn verified(dir: &Path, schema: &Schema) -> std::result::Result<(Index, IndexReader), String> {
    let index = Index::open_in_dir(dir).map_err(|e| e.to_string())?;
    crate::stems::register(&index);
    if index.schema() != *schema {
        return Err("another schema".into());
    }
    let directory = index.directory();
    let segments = index
        .searchable_segment_metas()
        .map_err(|e| e.to_string())?;
    for segment in &segments {
        // A segment without deletes has no delete file; it has every other component.
        let no_deletes = (!segment.has_deletes())
            .then(|| segment.relative_path(tantivy::index::SegmentComponent::Delete));
        let mut files: Vec<PathBuf> = segment
            .list_files()
            .into_iter()
            .filter(|f| Some(f) != no_deletes.as_ref())
            .collect();
        files.sort();
        for file in files {
            if !directory.exists(&file).map_err(|e| e.to_string())? {
                return Err(format!("{} is missing", file.display()));
            }
            match directory.validate_checksum(&file) {
                Ok(true) => {}
                Ok(false) => return Err(format!("{} fails its checksum", file.display())),
                Err(e) => return Err(format!("{}: {e}", file.display())),
            }
        }
    }
    let reader = reader(&index).map_err(|e| e.to_string())?;
    let opened = reader.searcher().segment_readers().len();
    if opened != segments.len() {
        return Err(format!("{opened} of {} segments open", segments.len()));
    }
    Ok((index, reader))
}

impl KeywordIndex {
    /// Opens the index in `dir`, or creates an empty one when it has none ([`Opened::New`])
    /// or when it cannot be used ([`Opened::Damaged`]: unreadable, of another schema, or a
    /// segment file missing or failing its checksum). It is derived data: the engine
    /// rebuilds it from the store.
    ///
    /// Every file of the live segments is read once to verify its checksum, so a damaged
    /// segment is found here rather than by a later search.
    pub(crate) fn open(dir: &Path) -> Result<(Self, Opened)> {
        let (schema, fields) = schema();
        let (index, opened) = if !dir.join("meta.json").exists() {
            (None, Opened::New)
        } else {
            match verified(dir, &schema) {
                Ok(opened) => (Some(opened), Opened::Loaded),
                Err(why) => (None, Opened::damaged(why)),
            }
        };
        let (index, reader) = match index {
            Some(opened) => opened,
            None => {
                if dir.exists() {
                    std::fs::remove_dir_all(dir).map_err(|e| index_err(dir, e))?;
                }
                std::fs::create_dir_all(dir).map_err(|e| index_err(dir, e))?;
                let index = Index::create_in_dir(dir, schema).map_err(|e| index_err(dir, e))?;
                crate::stems::register(&index);
                let reader = reader(&index).map_err(|e| index_err(dir, e))?;
                (index, reader)
            }
        };
        // One indexing thread: the engine stages a write's documents before the store write,
        // so tantivy analyses them on one core while the store writes on the other (two
        // threads also made two segments per commit to merge; on 2 cores, 100k items in
        // batches of 5 000: 13.5k–17.1k items/s with one, 12.1k–15.4k with two).
        let threads = 1;
        let writer: IndexWriter = index
            .writer_with_num_threads(threads, WRITER_MEMORY)
            .map_err(|e| index_err(dir, e))?;
        let bulk = BulkSwitch::default();
        writer.set_merge_policy(bulk.policy());
        Ok((
            Self {
                index,
                reader,
                writer: Mutex::new(Some(writer)),
                writer_threads: threads,
                bulk,
                fields,
                path: dir.to_path_buf(),
            },
            opened,
        ))
    }

    fn err(&self, e: impl Into<navigator_core::BoxError>) -> Error {
        index_err(&self.path, e)
    }

    /// The store sequence number of the last committed write (0 when never committed).
    pub(crate) fn applied_seq(&self) -> Result<u64> {
        let metas = self.index.load_metas().map_err(|e| self.err(e))?;
        Ok(metas.payload.and_then(|p| p.parse().ok()).unwrap_or(0))
    }

    /// How many live documents the index holds.
    pub(crate) fn num_docs(&self) -> u64 {
        let first = TermQuery::new(
            Term::from_field_u64(self.fields.passage, 0),
            IndexRecordOption::Basic,
        );
        // A count cannot fail on an open reader; 0 (a rebuild) is the safe answer if it did.
        self.reader
            .searcher()
            .search(&first, &Count)
            .map_or(0, |n| n as u64)
    }

    /// The item's documents: one per passage of its body (`passages.rs`), each with its
    /// title, tags and filter fields.
    fn documents(&self, key: u64, item: &Item) -> Vec<TantivyDocument> {
        crate::passages::passages(&item.body)
            .into_iter()
            .enumerate()
            .map(|(k, passage)| self.document(key, k as u64, item, passage))
            .collect()
    }

    fn document(&self, key: u64, passage: u64, item: &Item, body: &str) -> TantivyDocument {
        let f = self.fields;
        let mut doc = TantivyDocument::default();
        doc.add_u64(f.key, key);
        doc.add_u64(f.passage, passage);
        let tags = item.tags.join(" ");
        for _ in 0..TITLE_REPEAT {
            doc.add_text(f.text, &item.title);
        }
        for _ in 0..TAGS_REPEAT {
            doc.add_text(f.text, &tags);
        }
        doc.add_text(f.text, body);
        doc.add_text(f.category, item.category.as_str());
        doc.add_text(f.item_type, item.item_type.as_str());
        if let Some(s) = &item.status {
            doc.add_text(f.status, s);
        }
        if let Some(p) = &item.parent_id {
            doc.add_text(f.parent, crate::filter::composed(p));
        }
        for t in &item.tags {
            doc.add_text(f.tag, TagFilter::normalize(t));
        }
        doc.add_date(
            f.created,
            DateTime::from_timestamp_secs(item.created_at.timestamp()),
        );
        doc.add_date(
            f.updated,
            DateTime::from_timestamp_secs(item.updated_at.timestamp()),
        );
        doc
    }

    /// Applies a batch of writes and commits it, recording `seq` as applied. `None` deletes.
    pub(crate) fn apply(&self, changes: &[(u64, Option<&Item>)], seq: u64) -> Result<()> {
        self.stage(changes, u64::MAX)?;
        self.commit(seq)
    }

    /// Hands `changes` to the writer without committing them: tantivy's indexing threads
    /// analyse them in the background (the engine writes the store meanwhile), and
    /// [`commit`](Self::commit) or [`rollback`](Self::rollback) ends them. Keys from `new_from`
    /// on were never indexed: they replace nothing, so no delete is queued for them (each
    /// delete is a term lookup in every segment at commit).
    pub(crate) fn stage(&self, changes: &[(u64, Option<&Item>)], new_from: u64) -> Result<()> {
        let guard = self.writer.lock().map_err(|e| self.err(e.to_string()))?;
        let writer = guard.as_ref().ok_or_else(|| self.no_writer())?;
        self.bulk.writing(changes.len());
        for (key, item) in changes {
            if *key < new_from {
                writer.delete_term(Term::from_field_u64(self.fields.key, *key));
            }
            if let Some(item) = item {
                for doc in self.documents(*key, item) {
                    writer.add_document(doc).map_err(|e| self.err(e))?;
                }
            }
        }
        Ok(())
    }

    /// Commits what was staged as the store's write `seq`; searches see it on return.
    pub(crate) fn commit(&self, seq: u64) -> Result<()> {
        let mut guard = self.writer.lock().map_err(|e| self.err(e.to_string()))?;
        let writer = guard.as_mut().ok_or_else(|| self.no_writer())?;
        let mut commit = writer.prepare_commit().map_err(|e| self.err(e))?;
        commit.set_payload(&seq.to_string());
        commit.commit().map_err(|e| self.err(e))?;
        self.reader.reload().map_err(|e| self.err(e))
    }

    /// Runs `write` (the store's commit of what was staged) on a thread of its own while
    /// tantivy prepares the staged documents' commit here (ends their segment, writes and
    /// syncs its files), then commits them as the store's write `seq` when `decide` says so,
    /// or drops them. Nothing staged becomes visible, or is recorded as applied, before
    /// `write` has returned.
    ///
    /// `Err` when the writer is not there: `write` did not run. Otherwise `write`'s result,
    /// and what became of the staged documents (an error there leaves the store written and
    /// the index behind it; the next open replays the difference).
    pub(crate) fn commit_beside<T: Send>(
        &self,
        write: impl FnOnce() -> T + Send,
        decide: impl FnOnce(&T) -> Staged,
    ) -> Result<(T, Result<()>)> {
        let mut guard = self.writer.lock().map_err(|e| self.err(e.to_string()))?;
        let writer = guard.as_mut().ok_or_else(|| self.no_writer())?;
        let (prepared, written) = std::thread::scope(|scope| {
            let store = scope.spawn(write);
            let prepared = writer.prepare_commit();
            (prepared, store.join())
        });
        let written = match written {
            Ok(written) => written,
            Err(panic) => {
                // The documents go, and the writer's lock is released whole, before the
                // panic goes on: the next write stages and commits only its own.
                let dropped = match prepared {
                    Ok(commit) => commit.abort().map(drop),
                    Err(_) => writer.rollback().map(drop),
                };
                if let Err(e) = dropped {
                    tracing::warn!("dropping staged keyword documents failed: {e}");
                }
                drop(guard);
                std::panic::resume_unwind(panic)
            }
        };
        let staged = match (prepared, decide(&written)) {
            (Ok(mut commit), Staged::Commit(seq)) => {
                commit.set_payload(&seq.to_string());
                match commit.commit() {
                    Ok(_) => self.reader.reload().map_err(|e| self.err(e)),
                    Err(e) => Err(self.err(e)),
                }
            }
            (Ok(commit), Staged::Drop) => commit.abort().map(drop).map_err(|e| self.err(e)),
            (Err(e), _) => {
                if let Err(rollback) = writer.rollback() {
                    tracing::warn!("dropping staged keyword documents failed: {rollback}");
                }
                Err(self.err(e))
            }
        };
        Ok((written, staged))
    }

    /// Drops what was staged since the last commit (the store write it was for failed).
    pub(crate) fn rollback(&self) -> Result<()> {
        let mut guard = self.writer.lock().map_err(|e| self.err(e.to_string()))?;
        let writer = guard.as_mut().ok_or_else(|| self.no_writer())?;
        writer.rollback().map_err(|e| self.err(e))?;
        Ok(())
    }

    /// Drops every document (before a full rebuild); committed with the next [`apply`].
    pub(crate) fn clear(&self) -> Result<()> {
        let guard = self.writer.lock().map_err(|e| self.err(e.to_string()))?;
        let writer = guard.as_ref().ok_or_else(|| self.no_writer())?;
        writer.delete_all_documents().map_err(|e| self.err(e))?;
        Ok(())
    }

    fn no_writer(&self) -> Error {
        self.err("the index writer could not be reopened after compacting; reopen the engine")
    }

    /// Merges every segment into one and waits for it; searches see the result when it
    /// returns. Each commit adds segments and tantivy's background merges only combine
    /// segments of similar size, so after a bulk load a query visits many segments (12 after
    /// 100k items in batches of 5 000), each with its own term lookups and top-k list.
    pub(crate) fn compact(&self) -> Result<()> {
        let mut guard = self.writer.lock().map_err(|e| self.err(e.to_string()))?;
        let writer = guard.take().ok_or_else(|| self.no_writer())?;
        // Finish the background merges first: merging a segment one of them is merging
        // would fail.
        writer.wait_merging_threads().map_err(|e| self.err(e))?;
        let mut writer: IndexWriter = self
            .index
            .writer_with_num_threads(self.writer_threads, WRITER_MEMORY)
            .map_err(|e| self.err(e))?;
        writer.set_merge_policy(self.bulk.policy());
        let segments = self
            .index
            .searchable_segment_ids()
            .map_err(|e| self.err(e))?;
        let merged = if segments.len() > 1 {
            writer.merge(&segments).wait().map(drop)
        } else {
            Ok(())
        };
        *guard = Some(writer);
        merged.map_err(|e| self.err(e))?;
        self.reader.reload().map_err(|e| self.err(e))
    }

    /// How many segments searches visit.
    pub(crate) fn segments(&self) -> usize {
        self.reader.searcher().segment_readers().len()
    }

    /// The distinct analysed terms of `text` (lower-cased, stemmed), in first-seen order.
    pub(crate) fn analyze(&self, text: &str) -> Result<Vec<String>> {
        Ok(analyze_with(&mut self.analyzer()?, text))
    }

    /// The index's text analyser, to analyse many texts without looking it up each time.
    pub(crate) fn analyzer(&self) -> Result<TextAnalyzer> {
        self.index
            .tokenizer_for_field(self.fields.text)
            .map_err(|e| self.err(e))
    }

    /// One term query per analysed term against `field`, any of which may match.
    fn terms_query(&self, terms: &[String], field: Field) -> BooleanQuery {
        let clauses: Vec<(Occur, Box<dyn Query>)> = terms
            .iter()
            .map(|t| {
                let q: Box<dyn Query> = Box::new(TermQuery::new(
                    Term::from_field_text(field, t),
                    IndexRecordOption::WithFreqs,
                ));
                (Occur::Should, q)
            })
            .collect();
        BooleanQuery::new(clauses)
    }

    /// The clauses that narrow a search to `filter`. None of them scores: a filter decides
    /// which items match, never how well (a scoring term query on the category field would
    /// add its own BM25 weight, larger for rarer categories).
    fn filter_clauses(&self, filter: &Filter) -> Vec<(Occur, Box<dyn Query>)> {
        let f = self.fields;
        let exact = |field: Field, value: &str| -> Box<dyn Query> {
            Box::new(TermQuery::new(
                Term::from_field_text(field, value),
                IndexRecordOption::Basic,
            ))
        };
        let must = |q: Box<dyn Query>| -> (Occur, Box<dyn Query>) {
            (Occur::Must, Box::new(ConstScoreQuery::new(q, 0.0)))
        };
        let mut clauses: Vec<(Occur, Box<dyn Query>)> = Vec::new();
        if filter.categories.len() < Category::ALL.len() {
            let any: Vec<(Occur, Box<dyn Query>)> = filter
                .categories
                .iter()
                .map(|c| (Occur::Should, exact(f.category, c.as_str())))
                .collect();
            clauses.push(must(Box::new(BooleanQuery::new(any))));
        }
        if let Some(s) = &filter.status {
            clauses.push(must(exact(f.status, s)));
        }
        if let Some(p) = &filter.parent_id {
            // Indexed composed, as the filter asks.
            clauses.push(must(exact(f.parent, &crate::filter::composed(p))));
        }
        if let Some(t) = &filter.tags {
            // The plan's filter holds its tags normalised, as the index does.
            let tag = |t: &String| exact(f.tag, t);
            if !t.any.is_empty() {
                let any = t.any.iter().map(|t| (Occur::Should, tag(t))).collect();
                clauses.push(must(Box::new(BooleanQuery::new(any))));
            }
            clauses.extend(t.all.iter().map(|t| must(tag(t))));
        }
        if let Some(r) = &filter.updated {
            let bound = |t: Option<chrono::DateTime<chrono::Utc>>, end: bool| match t {
                None => Bound::Unbounded,
                Some(t) => {
                    // The index keeps whole seconds; widen the window to whole seconds so an
                    // item is never dropped by sub-second rounding (the catalog filter, which
                    // keeps full precision, has the final word).
                    let secs = if end && t.timestamp_subsec_nanos() > 0 {
                        t.timestamp() + 1
                    } else {
                        t.timestamp()
                    };
                    Bound::Included(Term::from_field_date(
                        f.updated,
                        DateTime::from_timestamp_secs(secs),
                    ))
                }
            };
            clauses.push(must(Box::new(RangeQuery::new(
                bound(r.start, false),
                bound(r.end, true),
            ))));
        }
        clauses
    }

    /// The best `limit` items for `query` among those passing `filter`.
    pub(crate) fn search(
        &self,
        query: &str,
        filter: &Filter,
        limit: usize,
    ) -> Result<KeywordCandidates> {
        let terms = self.analyze(query)?;
        if terms.is_empty() {
            return Ok(KeywordCandidates::default());
        }
        let searcher = self.reader.searcher();
        let text_query = self.terms_query(&terms, self.fields.text);
        let mut clauses = self.filter_clauses(filter);
        let query: Box<dyn Query> = if clauses.is_empty() {
            Box::new(text_query)
        } else {
            clauses.push((Occur::Must, Box::new(text_query)));
            Box::new(BooleanQuery::new(clauses))
        };
        // An item's passages are documents of their own: the item scores as its best
        // passage, and counts once. More documents are fetched while too few items came back.
        let limit = limit.max(1);
        // An index of short items only (no second passage anywhere) has one document per
        // item: counted and fetched as such, without reading keys.
        let passages = searcher
            .doc_freq(&Term::from_field_u64(self.fields.passage, 1))
            .map_err(|e| self.err(e))?
            > 0;
        let mut fetch = if passages {
            limit + limit / 2 + 8
        } else {
            limit
        };
        let (hits, total) = loop {
            let (top, keys) = searcher
                .search(
                    &query,
                    &(TopDocs::with_limit(fetch), DistinctKeys { passages }),
                )
                .map_err(|e| self.err(e))?;
            let fetched = top.len();
            let mut columns = std::collections::HashMap::new();
            let mut seen = std::collections::HashSet::new();
            let mut hits = Vec::with_capacity(limit);
            for (score, addr) in top {
                let column = match columns.entry(addr.segment_ord) {
                    std::collections::hash_map::Entry::Occupied(e) => e.into_mut(),
                    std::collections::hash_map::Entry::Vacant(e) => e.insert(
                        searcher
                            .segment_reader(addr.segment_ord)
                            .fast_fields()
                            .u64("key")
                            .map_err(|e| self.err(e))?,
                    ),
                };
                if let Some(key) = column.first(addr.doc_id) {
                    if hits.len() < limit && seen.insert(key) {
                        hits.push((key, score));
                    }
                }
            }
            if hits.len() >= limit.min(keys) || fetched < fetch {
                break (hits, keys);
            }
            fetch *= 4;
        };
        Ok(KeywordCandidates {
            hits,
            total,
            terms: terms.len(),
        })
    }

    /// The snippet maker for one page: the index's analyser, and, when `highlight`, tantivy's
    /// snippet generator for the bodies around `query_terms` (built once per page: it looks up
    /// every term's statistics).
    pub(crate) fn snippets(
        &self,
        query_terms: &[String],
        highlight: bool,
        max_chars: usize,
    ) -> Result<IndexSnippets> {
        let body = if highlight {
            let searcher = self.reader.searcher();
            // The terms as `text` weighs them (title and tags count there too, the body
            // alone is what the snippet is cut from).
            let query = self.terms_query(query_terms, self.fields.text);
            let mut generator = SnippetGenerator::create(&searcher, &query, self.fields.text)
                .map_err(|e| self.err(e))?;
            generator.set_max_num_chars(max_chars);
            Some(generator)
        } else {
            None
        };
        Ok(IndexSnippets {
            analyzer: self.analyzer()?,
            body,
            max_chars,
        })
    }
}

impl KeywordSource for KeywordIndex {
    fn keyword_candidates(
        &self,
        query: &str,
        filter: &Filter,
        pool: usize,
    ) -> Result<KeywordCandidates> {
        self.search(query, filter, pool)
    }
}

/// Counts the distinct items (keys) among the matching documents: an item's passages
/// match as documents of their own.
///
/// An item's passages are added one after another and deleted together, and an item has
/// live documents in one segment only, so within a segment they are neighbouring document
/// ids, and matches arrive in id order: a match whose key differs from the one before is the
/// next item. No set of keys is kept (a sort of every matching key cost a common word's
/// search a millisecond at 100k items). Without `passages` (no item has a second one) every
/// match is an item of its own and no key is read.
struct DistinctKeys {
    passages: bool,
}

impl Collector for DistinctKeys {
    type Fruit = usize;
    type Child = SegmentKeys;

    fn for_segment(
        &self,
        _segment: tantivy::SegmentOrdinal,
        reader: &tantivy::SegmentReader,
    ) -> tantivy::Result<SegmentKeys> {
        Ok(SegmentKeys {
            column: self
                .passages
                .then(|| reader.fast_fields().u64("key"))
                .transpose()?,
            last: None,
            count: 0,
        })
    }

    fn requires_scoring(&self) -> bool {
        false
    }

    fn merge_fruits(&self, segments: Vec<usize>) -> tantivy::Result<usize> {
        Ok(segments.into_iter().sum())
    }
}

struct SegmentKeys {
    /// The keys, when items may have several passages.
    column: Option<tantivy::columnar::Column<u64>>,
    last: Option<u64>,
    count: usize,
}

impl SegmentCollector for SegmentKeys {
    type Fruit = usize;

    fn collect(&mut self, doc: tantivy::DocId, _score: tantivy::Score) {
        let Some(column) = &self.column else {
            self.count += 1;
            return;
        };
        let key = column.first(doc);
        if key.is_none() || key != self.last {
            self.count += 1;
            self.last = key;
        }
    }

    fn harvest(self) -> usize {
        self.count
    }
}

/// The embedded engine's snippet analysis: the index's own analyser, and tantivy's snippet
/// generator for keyword hits' bodies (see [`KeywordIndex::snippets`]).
pub(crate) struct IndexSnippets {
    analyzer: TextAnalyzer,
    body: Option<SnippetGenerator>,
    max_chars: usize,
}

impl Snippets for IndexSnippets {
    fn terms(&mut self, text: &str) -> Vec<String> {
        analyze_with(&mut self.analyzer, text)
    }

    /// The generator was built from the same query terms; it exists whenever the page has a
    /// keyword hit, the only results highlighted.
    fn highlight(&mut self, body: &str, _query_terms: &[String]) -> Option<String> {
        let snippet = self.body.as_ref()?.snippet(body);
        (!snippet.highlighted().is_empty()).then(|| truncate(snippet.fragment(), self.max_chars))
    }
}

/// The distinct terms `analyzer` makes of `text`, in first-seen order.
pub(crate) fn analyze_with(analyzer: &mut TextAnalyzer, text: &str) -> Vec<String> {
    let mut stream = analyzer.token_stream(text);
    let mut terms: Vec<String> = Vec::new();
    while stream.advance() {
        let t = &stream.token().text;
        if !terms.contains(t) {
            terms.push(t.clone());
        }
    }
    terms
}

/// A keyword index failure at `path`, keeping tantivy's (or the OS's) error as the source.
fn index_err(path: &Path, e: impl Into<navigator_core::BoxError>) -> Error {
    let source = e.into();
    Error::Index {
        index: "keyword",
        path: path.to_path_buf(),
        message: source.to_string(),
        source: Some(source),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use navigator_core::ItemType;

    fn items(n: usize) -> Vec<Item> {
        let t = chrono::DateTime::parse_from_rfc3339("2026-01-01T00:00:00Z")
            .unwrap()
            .to_utc();
        (0..n)
            .map(|i| {
                Item::new(
                    format!("n{i}"),
                    ItemType::Resource,
                    format!("kestrel note {i}"),
                    t,
                )
                .unwrap()
                .with_body(format!("the kestrel{i} hovered over the meadow"))
            })
            .collect()
    }

    /// A word inside a Japanese sentence, and an accented word written decomposed, are found
    /// by their plain spellings (the index cut at punctuation only, and kept accents).
    #[test]
    fn words_inside_cjk_sentences_and_accented_words_are_found() {
        let dir = tempfile::tempdir().unwrap();
        let (index, _) = KeywordIndex::open(&dir.path().join("keyword")).unwrap();
        let t = chrono::DateTime::parse_from_rfc3339("2026-01-01T00:00:00Z")
            .unwrap()
            .to_utc();
        let note = |id: &str, body: &str| {
            Item::new(id.to_string(), ItemType::Resource, id.to_string(), t)
                .unwrap()
                .with_body(body.to_string())
        };
        let decomposed: String =
            unicode_normalization::UnicodeNormalization::nfd("Zoë from Málaga").collect();
        let items = [
            note(
                "tokyo",
                "浅草寺を訪れて、築地市場で寿司を食べる予定です。新幹線で京都へ行く。我的猫很可爱。",
            ),
            note("spain", &decomposed),
            note("other", "kestrel over the meadow"),
        ];
        let changes: Vec<(u64, Option<&Item>)> = items
            .iter()
            .enumerate()
            .map(|(k, it)| (k as u64, Some(it)))
            .collect();
        index.apply(&changes, 3).unwrap();
        let first = |q: &str| {
            let found = index.search(q, &Filter::everything(), 10).unwrap();
            found.hits.first().map(|h| h.0)
        };
        for q in ["寿司", "新幹線", "京都", "築地市場", "猫"] {
            assert_eq!(first(q), Some(0), "{q}");
        }
        for q in ["malaga", "Málaga", "zoe"] {
            assert_eq!(first(q), Some(1), "{q}");
        }
        assert_eq!(first("大阪"), None);
    }

    /// Long items are several documents each: every item counts once in the total and comes
    /// back once, across segments and after updates (an item's passages stay neighbours).
    #[test]
    fn an_item_of_many_passages_counts_and_ranks_once() {
        let dir = tempfile::tempdir().unwrap();
        let (index, _) = KeywordIndex::open(&dir.path().join("keyword")).unwrap();
        let t = chrono::DateTime::parse_from_rfc3339("2026-01-01T00:00:00Z")
            .unwrap()
            .to_utc();
        let long = |id: &str, n: usize| {
            let body = (0..n)
                .map(|i| {
                    format!(
                        "Paragraph {i} about the heron {}",
                        "and the reeds ".repeat(40)
                    )
                })
                .collect::<Vec<_>>()
                .join("\n\n");
            Item::new(id.to_string(), ItemType::Resource, id.to_string(), t)
                .unwrap()
                .with_body(body)
        };
        let items = [long("a", 30), long("b", 12), long("c", 40)];
        // One commit per item: three segments.
        for (k, item) in items.iter().enumerate() {
            index
                .apply(&[(k as u64, Some(item))], k as u64 + 1)
                .unwrap();
        }
        assert_eq!(index.num_docs(), 3);
        let check = |index: &KeywordIndex| {
            let found = index
                .search("heron reeds", &Filter::everything(), 10)
                .unwrap();
            assert_eq!(found.total, 3);
            let mut keys: Vec<u64> = found.hits.iter().map(|h| h.0).collect();
            keys.sort_unstable();
            assert_eq!(keys, [0, 1, 2]);
            let one = index.search("heron", &Filter::everything(), 1).unwrap();
            assert_eq!((one.hits.len(), one.total), (1, 3));
        };
        check(&index);
        // Rewritten (deleted and added again) and merged into one segment: still once each.
        index.apply(&[(1, Some(&long("b", 25)))], 4).unwrap();
        check(&index);
        index.compact().unwrap();
        check(&index);
        assert_eq!(index.num_docs(), 3);
    }

    /// Defect 5 of the reliability audit: a damaged tantivy segment was not noticed on open,
    /// so open failed or every search did. Each live segment file is now verified on open, and
    /// a damaged index is reported and recreated empty (the engine refills it from the store).
    #[test]
    fn defect_5_a_damaged_segment_is_found_on_open_and_the_index_recreated() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("keyword");
        let (index, opened) = KeywordIndex::open(&path).unwrap();
        assert_eq!(opened, Opened::New);
        let items = items(30);
        let changes: Vec<(u64, Option<&Item>)> = items
            .iter()
            .enumerate()
            .map(|(k, it)| (k as u64, Some(it)))
            .collect();
        index.apply(&changes, 30).unwrap();
        drop(index);
        let (index, opened) = KeywordIndex::open(&path).unwrap();
        assert_eq!(opened, Opened::Loaded);
        assert_eq!((index.num_docs(), index.applied_seq().unwrap()), (30, 30));
        drop(index);

        let term = std::fs::read_dir(&path)
            .unwrap()
            .map(|e| e.unwrap().path())
            .find(|p| p.extension().is_some_and(|e| e == "term"))
            .expect("a term dictionary");
        let mut bytes = std::fs::read(&term).unwrap();
        let middle = bytes.len() / 2;
        bytes[middle] ^= 0x5a;
        // The damaged copy is renamed over the file, never written into it: a reload tantivy
        // started on a thread of its own when the index opened can still be reading the
        // file's mapping after the index is dropped, and truncating a mapped file in place
        // kills the process with SIGBUS.
        let damaged = term.with_extension("damaged");
        std::fs::write(&damaged, &bytes).unwrap();
        std::fs::rename(&damaged, &term).unwrap();
        let (index, opened) = KeywordIndex::open(&path).unwrap();
        match opened {
            Opened::Damaged(why) => assert!(why.contains(".term"), "{why}"),
            other => panic!("opened as {other:?}"),
        }
        assert_eq!(index.num_docs(), 0, "recreated empty, to be refilled");
        index.apply(&changes[..1], 31).unwrap();
        assert_eq!(index.num_docs(), 1);
    }

    /// The store write runs beside the commit's preparation: staged documents become
    /// searchable, with the write's seq, only when the write says so; dropped ones never do,
    /// and the next commit does not carry them.
    #[test]
    fn commit_beside_commits_or_drops_what_was_staged_after_the_write() {
        let dir = tempfile::tempdir().unwrap();
        let (index, _) = KeywordIndex::open(&dir.path().join("keyword")).unwrap();
        let items = items(6);
        let staged = |range: std::ops::Range<usize>| -> Vec<(u64, Option<&Item>)> {
            range.map(|k| (k as u64, Some(&items[k]))).collect()
        };
        index.stage(&staged(0..2), 0).unwrap();
        let (written, kept) = index
            .commit_beside(
                || Ok::<u64, String>(2),
                |w| match w {
                    Ok(seq) => Staged::Commit(*seq),
                    Err(_) => Staged::Drop,
                },
            )
            .unwrap();
        kept.unwrap();
        assert_eq!(written, Ok(2));
        assert_eq!((index.num_docs(), index.applied_seq().unwrap()), (2, 2));

        // A failed store write: its documents are dropped, its error comes back.
        index.stage(&staged(2..4), 2).unwrap();
        let (written, dropped) = index
            .commit_beside(
                || Err::<u64, String>("disk full".into()),
                |w| match w {
                    Ok(seq) => Staged::Commit(*seq),
                    Err(_) => Staged::Drop,
                },
            )
            .unwrap();
        dropped.unwrap();
        assert_eq!(written, Err("disk full".to_string()));
        assert_eq!((index.num_docs(), index.applied_seq().unwrap()), (2, 2));

        // The next write commits its own documents only.
        index.stage(&staged(4..6), 4).unwrap();
        index.commit(3).unwrap();
        assert_eq!((index.num_docs(), index.applied_seq().unwrap()), (4, 3));
        let keys: Vec<u64> = index
            .search(
                "kestrel4 kestrel5 kestrel2 kestrel3",
                &Filter::everything(),
                10,
            )
            .unwrap()
            .hits
            .iter()
            .map(|&(key, _)| key)
            .collect();
        assert!(keys.contains(&4) && keys.contains(&5), "{keys:?}");
        assert!(!keys.contains(&2) && !keys.contains(&3), "{keys:?}");

        // A store write that panics: the panic reaches the caller, the documents are
        // dropped, and the index still takes writes.
        index.stage(&[(10, Some(&items[0]))], 10).unwrap();
        let panicked = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            index.commit_beside(|| -> u64 { panic!("store") }, |_| Staged::Commit(9))
        }));
        assert!(panicked.is_err());
        index.commit(4).unwrap();
        assert_eq!((index.num_docs(), index.applied_seq().unwrap()), (4, 4));
    }
}
