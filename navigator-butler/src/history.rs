//! Conversation history per session, bounded by tokens.
//!
//! The policy: every turn is kept verbatim while the session's turns fit in `max_tokens`
//! (counted with tiktoken's `o200k_base`). When they do not, the oldest turns are dropped, a
//! user turn and the assistant turn after it together, so the window always opens on a user
//! turn (Anthropic rejects a conversation that opens with the assistant). Each dropped user
//! request leaves one line in a digest ("Earlier the user asked: …", at most
//! [`DIGEST_LINE_CHARS`] characters) that the prompt carries as a dynamic system block; the
//! digest keeps its newest lines within a quarter of the budget. An extractive digest rather
//! than an LLM summary: it costs no call and cannot invent anything.
//!
//! With a [`ConversationStore`] the window, the digest and the conversation's spend are
//! written after every turn (the store makes each write atomic and durable) and read back the
//! first time a conversation id is seen, so a restarted Butler resumes where it stopped.

use navigator_core::{ConversationRecord, ConversationStore, Message, Role, TokenCounter, Usage};
use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};

/// Longest digest line for one dropped request, in characters.
pub const DIGEST_LINE_CHARS: usize = 160;

/// One session's window.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SessionHistory {
    /// Turns kept verbatim, oldest first.
    pub turns: Vec<Message>,
    /// One line per dropped request, oldest first.
    pub digest: Vec<String>,
    /// Tokens spent over the whole conversation.
    pub usage: Usage,
    /// USD spent over the whole conversation (priced at the Butler's model; 0 when unpriced).
    pub cost_usd: f64,
}

impl SessionHistory {
    /// The digest as prompt text, `None` when nothing was dropped.
    pub fn digest_text(&self) -> Option<String> {
        (!self.digest.is_empty()).then(|| self.digest.join("\n"))
    }
}

/// Histories by session id, optionally persisted.
pub(crate) struct HistoryStore {
    max_tokens: u64,
    counter: TokenCounter,
    sessions: Mutex<HashMap<String, SessionHistory>>,
    store: Option<Arc<dyn ConversationStore>>,
}

impl std::fmt::Debug for HistoryStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HistoryStore")
            .field("max_tokens", &self.max_tokens)
            .field("persisted", &self.store.is_some())
            .finish()
    }
}

impl HistoryStore {
    pub(crate) fn new(max_tokens: u64, store: Option<Arc<dyn ConversationStore>>) -> Self {
        Self {
            max_tokens,
            counter: TokenCounter::for_provider("openai"),
            sessions: Mutex::new(HashMap::new()),
            store,
        }
    }

    /// The session's history: from memory, else from the store (a conversation of an earlier
    /// run), else empty.
    pub(crate) async fn load(&self, session: &str) -> navigator_core::Result<SessionHistory> {
        if let Some(h) = self.lock().get(session) {
            return Ok(h.clone());
        }
        let Some(store) = &self.store else {
            return Ok(SessionHistory::default());
        };
        let loaded = match store.get_conversation(session).await? {
            Some(r) => SessionHistory {
                turns: r.turns,
                digest: r.digest,
                usage: r.usage,
                cost_usd: r.cost_usd,
            },
            None => SessionHistory::default(),
        };
        // Another turn may have loaded it meanwhile; the first one in wins.
        Ok(self
            .lock()
            .entry(session.to_string())
            .or_insert(loaded)
            .clone())
    }

    /// Records one exchange and its spend, trims the session back within budget and writes
    /// it to the store, if there is one.
    pub(crate) async fn record(
        &self,
        session: &str,
        user: &str,
        assistant: &str,
        usage: Usage,
        cost_usd: f64,
    ) -> navigator_core::Result<()> {
        let snapshot = {
            let mut sessions = self.lock();
            let history = sessions.entry(session.to_string()).or_default();
            history.turns.push(Message::user(user));
            history.turns.push(Message::assistant(assistant));
            history.usage += usage;
            history.cost_usd += cost_usd;
            self.trim(history);
            history.clone()
        };
        if let Some(store) = &self.store {
            store
                .put_conversation(&ConversationRecord {
                    id: session.to_string(),
                    turns: snapshot.turns,
                    digest: snapshot.digest,
                    updated_at: chrono::Utc::now(),
                    usage: snapshot.usage,
                    cost_usd: snapshot.cost_usd,
                })
                .await?;
        }
        Ok(())
    }

    fn trim(&self, history: &mut SessionHistory) {
        let cost = |m: &Message| self.counter.count(&m.token_text());
        let mut total: u64 = history.turns.iter().map(cost).sum();
        let mut turns: VecDeque<Message> = std::mem::take(&mut history.turns).into();
        while total > self.max_tokens && !turns.is_empty() {
            let dropped = turns.pop_front().expect("not empty");
            total -= cost(&dropped);
            if dropped.role == Role::User {
                history.digest.push(digest_line(&dropped.content));
            }
            while turns.front().is_some_and(|m| m.role != Role::User) {
                total -= cost(&turns.pop_front().expect("not empty"));
            }
        }
        history.turns = turns.into();
        let digest_budget = self.max_tokens / 4;
        while history.digest.len() > 1
            && history
                .digest
                .iter()
                .map(|l| self.counter.count(l))
                .sum::<u64>()
                > digest_budget
        {
            history.digest.remove(0);
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, SessionHistory>> {
        // A panic elsewhere while holding the lock leaves the map intact; keep serving it.
        self.sessions.lock().unwrap_or_else(|e| e.into_inner())
    }
}

fn digest_line(request: &str) -> String {
    let flat = request.split_whitespace().collect::<Vec<_>>().join(" ");
    let cut: String = flat.chars().take(DIGEST_LINE_CHARS).collect();
    let ellipsis = if cut.len() < flat.len() { "…" } else { "" };
    format!("Earlier the user asked: {cut}{ellipsis}")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(store: &HistoryStore, session: &str, user: &str, assistant: &str) {
        let rt = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        rt.block_on(store.record(session, user, assistant, Usage::default(), 0.0))
            .unwrap();
    }

    fn get(store: &HistoryStore, session: &str) -> SessionHistory {
        let rt = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        rt.block_on(store.load(session)).unwrap()
    }

    #[test]
    fn sessions_are_separate_and_keep_order() {
        let store = HistoryStore::new(10_000, None);
        record(&store, "a", "hi", "hello");
        record(&store, "b", "other", "reply");
        record(&store, "a", "and then?", "then this");
        let a = get(&store, "a");
        let texts: Vec<_> = a.turns.iter().map(|m| m.content.as_str()).collect();
        assert_eq!(texts, ["hi", "hello", "and then?", "then this"]);
        assert_eq!(get(&store, "b").turns.len(), 2);
        assert!(get(&store, "missing").turns.is_empty());
        assert_eq!(a.digest_text(), None);
    }

    #[test]
    fn over_budget_drops_oldest_exchanges_into_the_digest_and_opens_on_a_user_turn() {
        let store = HistoryStore::new(40, None);
        for i in 0..6 {
            record(
                &store,
                "s",
                &format!("question number {i} about the quarterly report"),
                &format!("answer number {i} with some detail"),
            );
        }
        let h = get(&store, "s");
        let total: u64 = h
            .turns
            .iter()
            .map(|m| store.counter.count(&m.content))
            .sum();
        assert!(total <= 40, "{total}");
        assert_eq!(h.turns.first().unwrap().role, Role::User);
        assert!(h.turns.last().unwrap().content.contains("answer number 5"));
        assert!(h
            .digest
            .last()
            .unwrap()
            .starts_with("Earlier the user asked: question number"));
        assert!(!h.digest.iter().any(|l| l.contains("answer")));
    }

    #[test]
    fn a_second_store_over_the_same_backend_resumes_the_conversation() {
        let backend: Arc<dyn ConversationStore> = Arc::new(navigator_core::MemoryStore::new());
        let first = HistoryStore::new(40, Some(backend.clone()));
        for i in 0..6 {
            record(
                &first,
                "c1",
                &format!("question number {i} about the report"),
                &format!("answer {i}"),
            );
        }
        let before = get(&first, "c1");
        let second = HistoryStore::new(40, Some(backend));
        assert_eq!(get(&second, "c1"), before);
        assert!(!before.digest.is_empty());
        assert!(get(&second, "other").turns.is_empty());
    }

    #[test]
    fn long_requests_are_cut_in_the_digest() {
        let line = digest_line(&"word ".repeat(100));
        assert!(line.ends_with('…'));
        assert!(line.chars().count() <= "Earlier the user asked: ".len() + DIGEST_LINE_CHARS + 1);
    }
}
