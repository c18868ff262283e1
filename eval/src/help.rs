//! `--help` for the evaluation programs: each prints its own module documentation, the
//! usage it already spells out, instead of taking `--help` for an argument.

/// The `//!` lines of a program's source (`include_str!` of its file), without the markers.
pub fn module_doc(source: &str) -> String {
    source
        .lines()
        .map_while(|line| line.strip_prefix("//!"))
        .map(|line| line.strip_prefix(' ').unwrap_or(line))
        .collect::<Vec<_>>()
        .join("\n")
}

/// When the command line asks for help (`--help` or `-h`), prints the program's module
/// documentation and exits successfully; otherwise returns.
pub fn exit_on_help(source: &str) {
    if std::env::args().skip(1).any(|a| a == "--help" || a == "-h") {
        println!("{}", module_doc(source));
        std::process::exit(0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_module_doc_is_the_leading_doc_lines_unmarked() {
        let source = "//! Runs things.\n//!\n//! ```text\n//! tool --flag\n//! ```\nuse std::io;\n//! not the module doc\n";
        assert_eq!(
            module_doc(source),
            "Runs things.\n\n```text\ntool --flag\n```"
        );
    }

    #[test]
    fn every_program_documents_itself() {
        for source in [
            include_str!("bin/beir_eval.rs"),
            include_str!("bin/butler_conversations.rs"),
            include_str!("bin/butler_router_eval.rs"),
            include_str!("bin/localize_eval.rs"),
            include_str!("bin/mcp_bench.rs"),
            include_str!("bin/pg_bench.rs"),
            include_str!("bin/scale_bench.rs"),
        ] {
            let doc = module_doc(source);
            assert!(doc.lines().count() >= 3, "{doc}");
            assert!(source.contains("exit_on_help(include_str!("), "{doc}");
        }
    }
}
