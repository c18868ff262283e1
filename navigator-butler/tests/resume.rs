//! Conversations persisted in the store: a Butler restarted in the middle of a conversation
//! (a new process: a new Butler over the same redb file) resumes it — the earlier turns are in
//! the next prompt, the digest and the spend carry on.

use navigator_butler::Butler;
use navigator_core::{ConversationStore, Interaction, ScriptedLlm, Usage};
use navigator_search::{FixedClock, RedbStore};
use std::sync::Arc;

fn answer(text: &str) -> Interaction {
    Interaction::text(format!(
        r#"{{"classification":{{"intent":"direct_answer","confidence":0.9,"reasoning":"chat"}},"response":"{text}"}}"#
    ))
    .with_usage(Usage {
        input_tokens: 100,
        output_tokens: 10,
        ..Usage::default()
    })
}

fn butler(llm: Arc<ScriptedLlm>, store: Arc<dyn ConversationStore>) -> Butler {
    Butler::builder(llm)
        .conversations(store)
        .clock(Arc::new(FixedClock(
            "2026-11-21T12:00:00Z".parse().unwrap(),
        )))
        .history_tokens(100)
        .build()
        .unwrap()
}

#[tokio::test]
async fn a_restarted_butler_resumes_the_conversation_from_the_store() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("conversations.redb");
    let before = {
        let store: Arc<dyn ConversationStore> = Arc::new(RedbStore::open(&path).unwrap());
        let llm = Arc::new(ScriptedLlm::from_texts(
            "claude-sonnet-4-5",
            Vec::<String>::new(),
        ));
        for i in 0..6 {
            llm.push(answer(&format!(
                "Answer {i} about the Lisbon offsite budget."
            )));
        }
        let b = butler(llm, store.clone());
        for i in 0..6 {
            b.handle_message(
                "trip",
                &format!("Question {i}: what about the Lisbon offsite?"),
            )
            .await
            .unwrap();
        }
        b.history("trip").await.unwrap()
        // The Butler and the store are dropped here: the "process" ends.
    };
    assert!(
        !before.digest.is_empty(),
        "the window overflowed into the digest"
    );
    assert_eq!(before.usage.input_tokens, 600);

    let store: Arc<dyn ConversationStore> = Arc::new(RedbStore::open(&path).unwrap());
    let llm = Arc::new(ScriptedLlm::from_texts(
        "claude-sonnet-4-5",
        Vec::<String>::new(),
    ));
    llm.push(answer("Resumed."));
    let b = butler(llm.clone(), store.clone());
    assert_eq!(b.history("trip").await.unwrap(), before);
    b.handle_message("trip", "And the hotel?").await.unwrap();

    // The prompt after the restart carries the earlier turns and the digest.
    let sent = &llm.requests()[0];
    let history: Vec<_> = sent.messages.iter().map(|m| m.content.as_str()).collect();
    assert_eq!(history.last(), Some(&"And the hotel?"));
    assert!(
        history.iter().any(|m| m.contains("Question 5")),
        "{history:?}"
    );
    for line in &before.digest {
        assert!(sent.system_text().contains(line.as_str()), "{line}");
    }
    let record = store.get_conversation("trip").await.unwrap().unwrap();
    assert_eq!(record.usage.input_tokens, 700);
    assert!(record.cost_usd > 0.0);
    assert_eq!(record.turns.last().unwrap().content, "Resumed.");
}
