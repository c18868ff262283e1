//! [`ConversationStore`] for [`RedbStore`]: one record per conversation in the `conversations`
//! table, its id the key and its JSON the value.
//!
//! The table is created on open like every other table (`create_tables`), so a store file
//! written before conversations existed opens as it always did and gains an empty table.

use super::{RedbStore, CONVERSATIONS};
use chrono::{DateTime, Utc};
use navigator_core::{ConversationRecord, ConversationStore};
use redb::ReadableTable;
use serde::Deserialize;

type CoreResult<T> = navigator_core::Result<T>;

/// The one field a listing needs: serde skips the rest of the record without building it.
#[derive(Deserialize)]
struct UpdatedAt {
    #[serde(rename = "updatedAt")]
    updated_at: DateTime<Utc>,
}

impl RedbStore {
    fn list(&self, limit: usize) -> crate::Result<Vec<(String, DateTime<Utc>)>> {
        let txn = self.db.begin_read().map_err(|e| self.err(e))?;
        let t = txn.open_table(CONVERSATIONS).map_err(|e| self.err(e))?;
        let mut listed = Vec::new();
        for row in t.iter().map_err(|e| self.err(e))? {
            let (id, json) = row.map_err(|e| self.err(e))?;
            let stamp: UpdatedAt = serde_json::from_slice(json.value())
                .map_err(|e| self.corrupt("conversation", id.value(), e))?;
            listed.push((id.value().to_string(), stamp.updated_at));
        }
        listed.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        listed.truncate(limit);
        Ok(listed)
    }

    fn remove_conversation(&self, id: &str) -> crate::Result<bool> {
        let txn = self.db.begin_write().map_err(|e| self.err(e))?;
        let existed = {
            let mut t = txn.open_table(CONVERSATIONS).map_err(|e| self.err(e))?;
            let removed = t.remove(id).map_err(|e| self.err(e))?;
            removed.is_some()
        };
        txn.commit().map_err(|e| self.err(e))?;
        Ok(existed)
    }
}

#[async_trait::async_trait]
impl ConversationStore for RedbStore {
    /// One write transaction, committed with redb's default (immediate) durability.
    async fn put_conversation(&self, record: &ConversationRecord) -> CoreResult<()> {
        record.validate()?;
        Ok(self.put_json(CONVERSATIONS, &[(record.id.as_str(), record)])?)
    }

    async fn get_conversation(&self, id: &str) -> CoreResult<Option<ConversationRecord>> {
        ConversationRecord::check_id(id)?;
        Ok(self.get_json(CONVERSATIONS, "conversation", id)?)
    }

    async fn delete_conversation(&self, id: &str) -> CoreResult<bool> {
        ConversationRecord::check_id(id)?;
        Ok(self.remove_conversation(id)?)
    }

    async fn list_conversations(&self, limit: usize) -> CoreResult<Vec<(String, DateTime<Utc>)>> {
        Ok(self.list(limit)?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use redb::{Database, TableDefinition};

    /// A store file from before the `conversations` table: only the tables it had then.
    #[tokio::test]
    async fn a_store_from_before_conversations_opens_and_keeps_them() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("store.redb");
        {
            let db = Database::create(&path).unwrap();
            let txn = db.begin_write().unwrap();
            for name in ["items", "toc_nodes", "grips"] {
                let old: TableDefinition<&str, &[u8]> = TableDefinition::new(name);
                drop(txn.open_table(old).unwrap());
            }
            txn.commit().unwrap();
        }
        let store = RedbStore::open(&path).unwrap();
        assert_eq!(store.list_conversations(10).await.unwrap(), vec![]);
        let record = ConversationRecord {
            id: "chat".into(),
            ..ConversationRecord::default()
        };
        store.put_conversation(&record).await.unwrap();
        drop(store);
        let store = RedbStore::open(&path).unwrap();
        assert_eq!(store.get_conversation("chat").await.unwrap(), Some(record));
    }
}
