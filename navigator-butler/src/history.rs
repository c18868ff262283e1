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

use navigator_core::{Message, Role, TokenCounter};
use std::collections::{HashMap, VecDeque};
use std::sync::Mutex;

/// Longest digest line for one dropped request, in characters.
pub const DIGEST_LINE_CHARS: usize = 160;

/// One session's window.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SessionHistory {
    /// Turns kept verbatim, oldest first.
    pub turns: Vec<Message>,
    /// One line per dropped request, oldest first.
    pub digest: Vec<String>,
}

impl SessionHistory {
    /// The digest as prompt text, `None` when nothing was dropped.
    pub fn digest_text(&self) -> Option<String> {
        (!self.digest.is_empty()).then(|| self.digest.join("\n"))
    }
}

/// Histories by session id.
#[derive(Debug)]
pub(crate) struct HistoryStore {
    max_tokens: u64,
    counter: TokenCounter,
    sessions: Mutex<HashMap<String, SessionHistory>>,
}

impl HistoryStore {
    pub(crate) fn new(max_tokens: u64) -> Self {
        Self {
            max_tokens,
            counter: TokenCounter::for_provider("openai"),
            sessions: Mutex::new(HashMap::new()),
        }
    }

    pub(crate) fn get(&self, session: &str) -> SessionHistory {
        self.lock().get(session).cloned().unwrap_or_default()
    }

    /// Records one exchange and trims the session back within budget.
    pub(crate) fn record(&self, session: &str, user: &str, assistant: &str) {
        let mut sessions = self.lock();
        let history = sessions.entry(session.to_string()).or_default();
        history.turns.push(Message::user(user));
        history.turns.push(Message::assistant(assistant));
        self.trim(history);
    }

    fn trim(&self, history: &mut SessionHistory) {
        let cost = |m: &Message| self.counter.count(&m.content);
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

    #[test]
    fn sessions_are_separate_and_keep_order() {
        let store = HistoryStore::new(10_000);
        store.record("a", "hi", "hello");
        store.record("b", "other", "reply");
        store.record("a", "and then?", "then this");
        let a = store.get("a");
        let texts: Vec<_> = a.turns.iter().map(|m| m.content.as_str()).collect();
        assert_eq!(texts, ["hi", "hello", "and then?", "then this"]);
        assert_eq!(store.get("b").turns.len(), 2);
        assert!(store.get("missing").turns.is_empty());
        assert_eq!(a.digest_text(), None);
    }

    #[test]
    fn over_budget_drops_oldest_exchanges_into_the_digest_and_opens_on_a_user_turn() {
        let store = HistoryStore::new(40);
        for i in 0..6 {
            store.record(
                "s",
                &format!("question number {i} about the quarterly report"),
                &format!("answer number {i} with some detail"),
            );
        }
        let h = store.get("s");
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
    fn long_requests_are_cut_in_the_digest() {
        let line = digest_line(&"word ".repeat(100));
        assert!(line.ends_with('…'));
        assert!(line.chars().count() <= "Earlier the user asked: ".len() + DIGEST_LINE_CHARS + 1);
    }
}
