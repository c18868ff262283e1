//! A small web-service repository written to a temporary directory, shared by the tests.

use std::fs;
use std::path::Path;

/// Writes the fixture under `root` and returns nothing; files are chosen so that only a few
/// match "auth middleware" while the rest give the explorer plenty of other material.
pub fn write_repo(root: &Path) {
    let files: &[(&str, &str)] = &[
        ("src/auth/middleware.rs", "//! Authentication middleware for the HTTP server.\n\nuse crate::auth::session::Session;\n\n/// Checks the bearer token of every request.\npub struct AuthMiddleware { secret: String }\n\nimpl AuthMiddleware {\n    /// Builds the middleware from the signing secret.\n    pub fn new(secret: &str) -> Self { Self { secret: secret.into() } }\n    /// Rejects requests without a valid session token.\n    pub fn handle(&self, token: &str) -> Result<Session, String> { Session::verify(token, &self.secret) }\n}\n"),
        ("src/auth/session.rs", "/// A verified user session.\npub struct Session { pub user: String }\n\nimpl Session {\n    /// Verifies a token signed with `secret`.\n    pub fn verify(token: &str, secret: &str) -> Result<Session, String> {\n        if token.ends_with(secret) { Ok(Session { user: token.into() }) } else { Err(\"bad token\".into()) }\n    }\n}\n"),
        ("src/auth/mod.rs", "//! Authentication.\npub mod middleware;\npub mod session;\n"),
        ("src/lib.rs", "pub mod auth;\npub mod db;\npub mod billing;\n"),
        ("tests/auth_middleware.rs", "#[test]\nfn rejects_bad_tokens() { assert!(true) }\n"),
        ("README.md", "# Service\nA small web service.\n"),
        ("web/app.ts", "export interface Invoice { id: string; total: number }\nexport function renderInvoice(i: Invoice): string { return i.id }\n"),
        ("scripts/migrate.py", "def migrate(db):\n    \"\"\"Runs the schema migrations.\"\"\"\n    return db\n"),
    ];
    for (path, text) in files {
        let p = root.join(path);
        fs::create_dir_all(p.parent().unwrap()).unwrap();
        fs::write(p, text).unwrap();
    }
    // Plenty of unrelated material, so a 2,000-token budget can be filled.
    for i in 0..40 {
        let body: String = (0..12)
            .map(|j| format!("/// Computes ledger entry {j} of table {i}.\npub fn ledger_{i}_{j}(rows: &[u64]) -> u64 {{ rows.iter().sum::<u64>() + {j} }}\n"))
            .collect();
        let p = root.join(format!("src/db/table_{i:02}.rs"));
        fs::create_dir_all(p.parent().unwrap()).unwrap();
        fs::write(p, body).unwrap();
    }
    for i in 0..10 {
        let p = root.join(format!("src/billing/invoice_{i}.rs"));
        fs::create_dir_all(p.parent().unwrap()).unwrap();
        fs::write(
            p,
            format!("/// Invoice kind {i}.\npub struct Invoice{i} {{ pub total: u64 }}\n"),
        )
        .unwrap();
    }
}
