//! The pool survives a server restart: stop PostgreSQL with the project's script, see typed
//! errors (no panic, no hang), start it again on the same data directory and port, and carry
//! on with the same `PgStore`. Its own test binary: it restarts the shared test server, which
//! no other test may be using at that moment (cargo runs test binaries one at a time).
#![cfg(feature = "postgres")]

mod pg_common;

use navigator_core::{Item, ItemType, Store};
use navigator_search::pg::PgStore;
use std::process::Command;
use std::time::Duration;

fn script(cmd: &str, dir: &str) {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../scripts/postgres.sh");
    let out = Command::new("bash")
        .args([path, cmd, dir])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "postgres.sh {cmd} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[tokio::test]
async fn the_pool_reconnects_after_the_server_restarts() {
    let Some(url) = pg_common::url() else {
        return;
    };
    let Ok(dir) = std::env::var("NAVIGATOR_PG_DIR") else {
        assert!(
            std::env::var_os("CI").is_none(),
            "NAVIGATOR_PG_DIR is not set under CI (scripts/postgres.sh start exports it)"
        );
        eprintln!("skipping: NAVIGATOR_PG_DIR is not set, so the server cannot be restarted");
        return;
    };
    let mut config = pg_common::config(&url, "reconnect", 4);
    config.connect_timeout = Duration::from_secs(3);
    config.wait_timeout = Duration::from_secs(5);
    let store = PgStore::connect(config).await.unwrap();
    // Whole seconds: PostgreSQL keeps timestamps to the microsecond.
    let now = chrono::DateTime::from_timestamp(chrono::Utc::now().timestamp(), 0).unwrap();
    let item = Item::new("before", ItemType::Task, "Written before the restart", now).unwrap();
    store.put_item(&item).await.unwrap();
    // Several pooled connections are open when the server goes away.
    let warm: Vec<_> = (0..4)
        .map(|_| {
            let s = store.clone();
            tokio::spawn(async move { s.count_items().await.unwrap() })
        })
        .collect();
    for w in warm {
        w.await.unwrap();
    }

    script("stop", &dir);
    let started = std::time::Instant::now();
    let err = store.get_item("before").await.unwrap_err();
    assert!(
        matches!(
            err,
            navigator_core::Error::Backend {
                backend: "postgres",
                kind: navigator_core::ErrorKind::Unavailable,
                ..
            }
        ),
        "{err:?}"
    );
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "a down server must fail fast"
    );

    script("start", &dir);
    assert_eq!(store.get_item("before").await.unwrap(), Some(item));
    let after = Item::new("after", ItemType::Task, "Written after the restart", now).unwrap();
    store.put_item(&after).await.unwrap();
    assert_eq!(store.count_items().await.unwrap(), 2);
    store.drop_schema().await.unwrap();
}
