//! The keyword index's merge policy: tantivy's log merge policy, held back while large
//! batches are written.
//!
//! Every commit adds a segment and the log policy merges small segments as they pile up. In a
//! bulk load those merges are work done twice: the load ends with [`SearchEngine::compact`]
//! (crate::SearchEngine::compact), which merges everything into one segment anyway, and
//! meanwhile they took about an eighth of the load's CPU from the writes. So while the last
//! write was a large batch, no merge starts until [`HELD_MAX`] segments are waiting; the next
//! small write (or the compaction) lets the log policy merge again.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use tantivy::index::SegmentMeta;
use tantivy::indexer::{LogMergePolicy, MergeCandidate, MergePolicy};

/// Documents in one write from which it counts as a bulk write.
pub(crate) const BULK_MIN: usize = 256;
/// Segments after which merges run even during a bulk load (each search visits every segment).
const HELD_MAX: usize = 48;

/// The log merge policy, paused while [`BulkSwitch`] says a bulk load is writing.
#[derive(Debug)]
pub(crate) struct BulkAwareMerges {
    log: LogMergePolicy,
    bulk: Arc<AtomicBool>,
}

/// Tells the policy whether the write being committed is a bulk write.
#[derive(Debug, Clone, Default)]
pub(crate) struct BulkSwitch(Arc<AtomicBool>);

impl BulkSwitch {
    /// Notes the size of the write about to be committed.
    pub(crate) fn writing(&self, docs: usize) {
        self.0.store(docs >= BULK_MIN, Ordering::Release);
    }

    /// The policy for a writer, following this switch.
    pub(crate) fn policy(&self) -> Box<dyn MergePolicy> {
        Box::new(BulkAwareMerges {
            log: LogMergePolicy::default(),
            bulk: self.0.clone(),
        })
    }
}

impl MergePolicy for BulkAwareMerges {
    fn compute_merge_candidates(&self, segments: &[SegmentMeta]) -> Vec<MergeCandidate> {
        if self.bulk.load(Ordering::Acquire) && segments.len() < HELD_MAX {
            return Vec::new();
        }
        self.log.compute_merge_candidates(segments)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tantivy::index::SegmentId;
    use tantivy::schema::Schema;
    use tantivy::Index;

    /// `n` small segments of one in-memory index.
    fn segments(n: usize) -> Vec<SegmentMeta> {
        let index = Index::create_in_ram(Schema::builder().build());
        (0..n)
            .map(|_| index.new_segment_meta(SegmentId::generate_random(), 5_000))
            .collect()
    }

    #[test]
    fn bulk_writes_hold_merges_back_until_too_many_segments() {
        let switch = BulkSwitch::default();
        let policy = switch.policy();
        let twelve = segments(12);
        // Small writes: the log policy merges twelve small segments.
        switch.writing(10);
        assert!(!policy.compute_merge_candidates(&twelve).is_empty());
        // A bulk write holds them back, up to the cap.
        switch.writing(BULK_MIN);
        assert!(policy.compute_merge_candidates(&twelve).is_empty());
        assert!(!policy
            .compute_merge_candidates(&segments(HELD_MAX))
            .is_empty());
        // The next small write lets them merge again.
        switch.writing(1);
        assert!(!policy.compute_merge_candidates(&twelve).is_empty());
    }
}
