//! The MCP binary's command line: help, version and usage errors, without serving.

use std::process::{Command, Output};

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_navigator-workflow-mcp"))
        .args(args)
        .output()
        .expect("run the MCP binary")
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

#[test]
fn help_prints_the_usage_and_exits_0() {
    // Regression: `--help` was taken for a workflow file ("--help: No such file or directory").
    for flag in ["--help", "-h"] {
        let output = run(&[flag]);
        assert_eq!(output.status.code(), Some(0), "{flag}: {}", stderr(&output));
        let text = stdout(&output);
        assert!(
            text.starts_with(
                "Usage: navigator-workflow-mcp [--state FILE] [WORKFLOW_FILE_OR_DIR ...]"
            ),
            "{flag}: {text}"
        );
        assert!(text.contains("--state FILE"), "{text}");
        assert!(text.contains("--version"), "{text}");
        assert!(stderr(&output).is_empty(), "{}", stderr(&output));
    }
}

#[test]
fn version_prints_the_version_and_exits_0() {
    for flag in ["--version", "-V"] {
        let output = run(&[flag]);
        assert_eq!(output.status.code(), Some(0), "{flag}: {}", stderr(&output));
        assert_eq!(
            stdout(&output),
            format!("navigator-workflow-mcp {}\n", env!("CARGO_PKG_VERSION"))
        );
    }
}

#[test]
fn help_wins_over_the_other_arguments() {
    let output = run(&["no/such/dir", "--help"]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(stdout(&output).starts_with("Usage:"));
}

#[test]
fn unknown_options_and_a_missing_state_file_are_usage_errors_with_exit_code_2() {
    for (args, message) in [
        (&["--bogus"][..], "unknown option `--bogus`"),
        (&["-x", "workflows"][..], "unknown option `-x`"),
        (&["--state"][..], "--state needs a file"),
        (&["--state="][..], "--state needs a file"),
    ] {
        let output = run(args);
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        let text = stderr(&output);
        assert!(text.contains(message), "{args:?}: {text}");
        assert!(text.contains("--help"), "{args:?}: {text}");
        assert!(
            stdout(&output).is_empty(),
            "{args:?}: stdout belongs to the protocol"
        );
    }
}

#[test]
fn after_a_double_dash_a_dash_name_is_a_workflow_path() {
    let output = run(&["--", "--help"]);
    assert_eq!(output.status.code(), Some(1));
    assert!(stdout(&output).is_empty());
    assert!(stderr(&output).contains("--help: "), "{}", stderr(&output));
}
