//! [`ConversationStore`] for [`PgStore`]: one row per conversation in the `conversations`
//! table (migration 2), the record as `jsonb` beside its owner, id and update time; a handle
//! sees its owner's conversations only.
//!
//! The `updated_at` column is what a listing orders by, and what a record read back carries:
//! like every timestamp of the backend it is kept to the microsecond.

use super::PgStore;
use crate::Error;
use chrono::{DateTime, Utc};
use navigator_core::{ConversationRecord, ConversationStore};

type CoreResult<T> = navigator_core::Result<T>;

fn corrupt(id: &str, e: impl std::fmt::Display) -> navigator_core::Error {
    Error::Corrupt {
        what: "conversation",
        key: id.to_string(),
        message: e.to_string(),
    }
    .into()
}

#[async_trait::async_trait]
impl ConversationStore for PgStore {
    /// One statement (an upsert), committed when it returns.
    async fn put_conversation(&self, record: &ConversationRecord) -> CoreResult<()> {
        record.validate()?;
        let json = serde_json::to_value(record).map_err(|e| corrupt(&record.id, e))?;
        self.query(
            "put conversation",
            "INSERT INTO conversations (owner, id, record, updated_at) VALUES ($1, $2, $3, $4)
             ON CONFLICT (owner, id) DO UPDATE SET record = EXCLUDED.record,
                 updated_at = EXCLUDED.updated_at",
            &[self.owner(), &record.id, &json, &record.updated_at],
        )
        .await?;
        Ok(())
    }

    async fn get_conversation(&self, id: &str) -> CoreResult<Option<ConversationRecord>> {
        ConversationRecord::check_id(id)?;
        let rows = self
            .query(
                "get conversation",
                "SELECT record, updated_at FROM conversations WHERE owner = $1 AND id = $2",
                &[self.owner(), &id],
            )
            .await?;
        rows.first()
            .map(|row| {
                let mut record: ConversationRecord =
                    serde_json::from_value(row.get(0)).map_err(|e| corrupt(id, e))?;
                record.updated_at = row.get(1);
                Ok(record)
            })
            .transpose()
    }

    async fn delete_conversation(&self, id: &str) -> CoreResult<bool> {
        ConversationRecord::check_id(id)?;
        let rows = self
            .query(
                "delete conversation",
                "DELETE FROM conversations WHERE owner = $1 AND id = $2 RETURNING 1",
                &[self.owner(), &id],
            )
            .await?;
        Ok(!rows.is_empty())
    }

    async fn list_conversations(&self, limit: usize) -> CoreResult<Vec<(String, DateTime<Utc>)>> {
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        // Ties by id in byte order (COLLATE "C"), as the other backends order them.
        let rows = self
            .query(
                "list conversations",
                "SELECT id, updated_at FROM conversations WHERE owner = $1
                 ORDER BY updated_at DESC, id COLLATE \"C\" LIMIT $2",
                &[self.owner(), &limit],
            )
            .await?;
        Ok(rows.iter().map(|r| (r.get(0), r.get(1))).collect())
    }
}
