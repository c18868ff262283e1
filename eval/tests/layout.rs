//! The workspace's shape, checked: no sibling modules importing each other in any crate, the
//! dependency arrows of `ARCHITECTURE.md` equal to the `Cargo.toml` files, and a declared
//! `rust-version` that every locked dependency accepts.

use navigator_eval::layout::{architecture, modules, rust_version, workspace_root};

#[test]
fn no_sibling_modules_import_each_other() {
    let root = workspace_root();
    let meta = navigator_eval::layout::cargo_metadata(&root, &["--no-deps"]).unwrap();
    let mut found = Vec::new();
    let mut crates = 0;
    for package in meta["packages"].as_array().unwrap() {
        for target in package["targets"].as_array().unwrap() {
            let kinds: Vec<&str> = target["kind"]
                .as_array()
                .unwrap()
                .iter()
                .filter_map(|k| k.as_str())
                .collect();
            if !kinds.iter().any(|k| *k == "lib" || *k == "bin") {
                continue;
            }
            let src = std::path::PathBuf::from(target["src_path"].as_str().unwrap());
            crates += 1;
            for cycle in modules::sibling_cycles(&src).unwrap() {
                found.push(format!("{}: {cycle}", target["name"].as_str().unwrap()));
            }
        }
    }
    assert!(crates >= 6, "only {crates} crate roots found");
    assert!(found.is_empty(), "module cycles:\n{}", found.join("\n"));
}

#[test]
fn architecture_md_lists_the_cargo_dependencies() {
    let root = workspace_root();
    let path = root.join("ARCHITECTURE.md");
    let text = std::fs::read_to_string(&path).unwrap();
    let documented = architecture::documented(&path, &text).unwrap();
    let declared = architecture::declared(&root).unwrap();
    let diff = architecture::differences(&documented, &declared);
    assert!(
        diff.is_empty(),
        "ARCHITECTURE.md is out of date:\n{}",
        diff.join("\n")
    );
}

#[test]
fn rust_version_holds_for_every_locked_dependency() {
    let report = rust_version::Report::read(&workspace_root()).unwrap();
    let highest = report
        .highest_dependency()
        .expect("dependencies declare rust-version");
    let violations: Vec<String> = report
        .violations()
        .iter()
        .map(|(m, d)| {
            format!(
                "{} declares rust-version {}, but {} needs {}",
                m.package, m.rust_version, d.package, d.rust_version
            )
        })
        .collect();
    assert!(violations.is_empty(), "{}", violations.join("\n"));
    eprintln!(
        "highest locked rust-version: {} ({})",
        highest.rust_version, highest.package
    );
}
