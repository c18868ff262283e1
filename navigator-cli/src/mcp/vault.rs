//! The vault on disk, as the note tools touch it: paths confined to the vault, notes written
//! atomically, front matter edited key by key.
//!
//! Confinement is checked on the path as given and on the disk: a path must be relative, made
//! of plain names only (no `..`, no root, no drive prefix), must not name a hidden file or
//! folder (the indexer skips those, so the note could never be found), and every part of it
//! that already exists must be a real folder or file inside the vault — a symlink anywhere on
//! the way is refused, whether it points out of the vault or not, because the indexer does not
//! follow symlinks either.
//!
//! Writes go to a hidden temporary file beside the target, are flushed to disk, renamed over
//! the target and the folder is synced: a reader (or a crash) sees the old note or the new
//! one, never half of one.

use super::errors::{ToolError, ToolResult};
use serde_json::Value;
use std::io::Write;
use std::path::{Component, Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// The extensions a note may have; a path without one gets `.md`.
const NOTE_EXTENSIONS: [&str; 3] = ["md", "markdown", "txt"];

/// A note's place: its vault-relative path (`/`-separated, the item id) and absolute path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct NotePath {
    /// The vault-relative path with `/` separators: the note's item id.
    pub rel: String,
    /// The path on disk.
    pub abs: PathBuf,
}

/// Checks `given` (a vault-relative path or item id) and places it in `vault` (canonical).
/// `add_extension`: a path without a note extension gets `.md` (for new notes).
pub(crate) fn resolve(vault: &Path, given: &str, add_extension: bool) -> ToolResult<NotePath> {
    let trimmed = given.trim();
    if trimmed.is_empty() {
        return Err(ToolError::bad_request("path: must not be empty"));
    }
    if trimmed.ends_with(['/', '\\']) {
        return Err(ToolError::bad_request(format!(
            "path `{trimmed}`: names a folder (it ends in `/`); a note's path ends in its file \
             name (`{}Plan.md`)",
            trimmed
        )));
    }
    let path = Path::new(trimmed);
    let mut parts: Vec<String> = Vec::new();
    for component in path.components() {
        match component {
            Component::Normal(name) => {
                let name = name.to_str().ok_or_else(|| {
                    ToolError::bad_request(format!("path `{trimmed}`: not valid UTF-8"))
                })?;
                if name.starts_with('.') {
                    return Err(ToolError::bad_request(format!(
                        "path `{trimmed}`: `{name}` is hidden, and hidden files are never indexed"
                    )));
                }
                // On Unix `\` is part of a name: `2 Areas\x.md` would be one file at the root.
                if name.contains('\\') {
                    return Err(ToolError::bad_request(format!(
                        "path `{trimmed}`: folders are separated by `/`, not `\\`"
                    )));
                }
                parts.push(name.to_string());
            }
            Component::CurDir => {}
            Component::ParentDir => {
                return Err(ToolError::outside_vault(format!(
                    "path `{trimmed}`: `..` is not allowed, paths stay inside the vault"
                )))
            }
            Component::RootDir | Component::Prefix(_) => {
                return Err(ToolError::outside_vault(format!(
                    "path `{trimmed}`: must be relative to the vault, not absolute"
                )))
            }
        }
    }
    let Some(last) = parts.last_mut() else {
        return Err(ToolError::bad_request(format!(
            "path `{trimmed}`: names no file"
        )));
    };
    let has_extension = Path::new(last.as_str())
        .extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| NOTE_EXTENSIONS.contains(&e.to_ascii_lowercase().as_str()));
    if !has_extension {
        if !add_extension {
            return Err(ToolError::bad_request(format!(
                "path `{trimmed}`: not a note (.md, .markdown or .txt)"
            )));
        }
        last.push_str(".md");
    }
    // Every part that exists must be a real folder or file; below the first missing one
    // everything is created by the write itself.
    let mut abs = vault.to_path_buf();
    let mut on_disk = true;
    for part in &parts {
        abs.push(part);
        if !on_disk {
            continue;
        }
        match std::fs::symlink_metadata(&abs) {
            Ok(meta) if meta.file_type().is_symlink() => {
                return Err(ToolError::outside_vault(format!(
                    "path `{trimmed}`: `{part}` is a symbolic link, and notes are written only \
                     to real files inside the vault"
                )))
            }
            Ok(_) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                on_disk = false;
                if let Some(existing) = differs_in_case(&abs, part) {
                    return Err(ToolError::bad_request(format!(
                        "path `{trimmed}`: `{part}` differs only in case from the existing \
                         `{existing}`, which would become a second folder or note beside it; \
                         write `{existing}`"
                    )));
                }
            }
            Err(e) => return Err(ToolError::io("reading", &abs, e)),
        }
    }
    Ok(NotePath {
        rel: parts.join("/"),
        abs,
    })
}

/// The name of an entry beside `abs` (which does not exist) that equals `name` but for case.
fn differs_in_case(abs: &Path, name: &str) -> Option<String> {
    let lower = name.to_lowercase();
    std::fs::read_dir(abs.parent()?)
        .ok()?
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .find(|other| other.to_lowercase() == lower)
}

/// Writes `text` to `path` atomically (hidden temporary file, fsync, rename, fsync of the
/// folder), creating missing folders. `create_new`: fail when the note already exists.
pub(crate) fn write_atomic(path: &NotePath, text: &str, create_new: bool) -> ToolResult<()> {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let dir = path
        .abs
        .parent()
        .ok_or_else(|| ToolError::bad_request(format!("path `{}`: no folder", path.rel)))?;
    std::fs::create_dir_all(dir).map_err(|e| ToolError::io("creating the folder", dir, e))?;
    if create_new && path.abs.exists() {
        return Err(ToolError::new(
            "already_exists",
            format!(
                "note `{}` already exists: use update_note to change it",
                path.rel
            ),
        ));
    }
    let name = path
        .abs
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp = dir.join(format!(
        ".{name}.navigator-{}-{}.tmp",
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed)
    ));
    let written = (|| {
        let mut file = std::fs::File::create(&tmp)?;
        file.write_all(text.as_bytes())?;
        file.sync_all()?;
        std::fs::rename(&tmp, &path.abs)?;
        // The rename is durable once the folder is: a crash after the reply keeps the note.
        std::fs::File::open(dir)?.sync_all()
    })();
    written.map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        ToolError::io("writing", &path.abs, e)
    })
}

/// Whether the note at vault-relative `rel` is plain text (`.txt`): the index reads no front
/// matter from it, so none is written to it.
pub(crate) fn is_plain_text(rel: &str) -> bool {
    rel.to_ascii_lowercase().ends_with(".txt")
}

/// A note's front matter as an ordered YAML mapping, and its body.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct NoteText {
    pub front: serde_yaml::Mapping,
    pub body: String,
    /// The front matter block as read (line ends as `\n`) and the mapping it held:
    /// [`NoteText::render`] keeps the text of the keys left as they were.
    read: Option<(String, serde_yaml::Mapping)>,
    /// The note's line ends were `\r\n`: it is written back with them, throughout.
    crlf: bool,
    /// It started with a byte-order mark, which it keeps.
    bom: bool,
}

impl NoteText {
    /// Splits `text`; front matter that is not a YAML mapping is an error naming `rel`, so a
    /// note is never rewritten with its front matter lost.
    pub(crate) fn parse(rel: &str, text: &str) -> ToolResult<Self> {
        let (block, body) = navigator_search::ingest::front_matter::split(text);
        let front = match block {
            None => serde_yaml::Mapping::new(),
            Some(b) if b.trim().is_empty() => serde_yaml::Mapping::new(),
            Some(b) => match serde_yaml::from_str::<serde_yaml::Value>(b) {
                Ok(serde_yaml::Value::Mapping(m)) => m,
                Ok(serde_yaml::Value::Null) => serde_yaml::Mapping::new(),
                Ok(_) => {
                    return Err(ToolError::bad_request(format!(
                        "note `{rel}`: its front matter is not a mapping of keys"
                    )))
                }
                Err(e) => {
                    return Err(ToolError::bad_request(format!(
                        "note `{rel}`: its front matter is not valid YAML ({}); fix it by hand",
                        navigator_search::ingest::front_matter::yaml_error(&e)
                    )))
                }
            },
        };
        Ok(Self {
            read: block.map(|b| (b.replace("\r\n", "\n"), front.clone())),
            front,
            body: body.to_string(),
            crlf: text.contains("\r\n"),
            bom: text.starts_with('\u{feff}'),
        })
    }

    /// Sets (or, with `null`, removes) front matter keys; other keys keep their place.
    pub(crate) fn merge(&mut self, fields: &serde_json::Map<String, Value>) -> ToolResult<()> {
        for (key, value) in fields {
            let k = serde_yaml::Value::String(key.clone());
            if value.is_null() {
                self.front.remove(&k);
                continue;
            }
            let v = serde_yaml::to_value(value).map_err(|e| {
                ToolError::bad_request(format!("frontMatter.{key}: not representable: {e}"))
            })?;
            self.front.insert(k, v);
        }
        Ok(())
    }

    /// Sets one key.
    pub(crate) fn set(&mut self, key: &str, value: impl Into<serde_yaml::Value>) {
        self.front
            .insert(serde_yaml::Value::String(key.into()), value.into());
    }

    /// Whether the front matter has `key`.
    pub(crate) fn has(&self, key: &str) -> bool {
        self.front
            .contains_key(serde_yaml::Value::String(key.into()))
    }

    /// The note as text: `---` block (when there are keys), then the body. The keys of a
    /// read block that kept their values keep their text (comments, flow lists, quoting).
    pub(crate) fn render(&self) -> ToolResult<String> {
        let mut out = String::new();
        if !self.front.is_empty() {
            let kept = self
                .read
                .as_ref()
                .and_then(|(block, was)| super::front_edit::edited(block, was, &self.front));
            let yaml = match kept {
                Some(yaml) => yaml,
                None => serde_yaml::to_string(&self.front).map_err(|e| {
                    ToolError::new("internal", format!("writing the front matter: {e}"))
                })?,
            };
            out.push_str("---\n");
            out.push_str(&yaml);
            out.push_str("---\n");
        }
        out.push_str(&self.body);
        if !out.ends_with('\n') {
            out.push('\n');
        }
        if self.crlf {
            out = out.replace("\r\n", "\n").replace('\n', "\r\n");
        }
        if self.bom {
            out.insert(0, '\u{feff}');
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn vault() -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        (dir, root)
    }

    #[test]
    fn plain_relative_paths_are_placed_in_the_vault() {
        let (_d, root) = vault();
        let p = resolve(&root, "1 Projects/Phoenix/plan", true).unwrap();
        assert_eq!(p.rel, "1 Projects/Phoenix/plan.md");
        assert_eq!(
            p.abs,
            root.join("1 Projects").join("Phoenix").join("plan.md")
        );
        assert_eq!(
            resolve(&root, "./Notes.txt", false).unwrap().rel,
            "Notes.txt"
        );
        assert_eq!(
            resolve(&root, "plan", false).unwrap_err().code,
            "bad_request"
        );
    }

    #[test]
    fn escapes_are_refused_as_outside_the_vault() {
        let (_d, root) = vault();
        for bad in ["../x.md", "a/../../x.md", "/etc/passwd", "a/../b.md"] {
            let e = resolve(&root, bad, true).unwrap_err();
            assert_eq!(e.code, "outside_vault", "{bad}: {e:?}");
        }
        assert_eq!(resolve(&root, "  ", true).unwrap_err().code, "bad_request");
        assert_eq!(
            resolve(&root, ".obsidian/x.md", true).unwrap_err().code,
            "bad_request"
        );
    }

    #[test]
    fn a_note_keeps_its_line_ends_and_byte_order_mark() {
        let text = "\u{feff}---\r\ntags: [a, b]  # mine\r\ntitle: Plan\r\n---\r\nLine one.\r\nLine two.\r\n";
        let mut note = NoteText::parse("x.md", text).unwrap();
        note.set("title", "New plan");
        note.body = format!("{}\nAdded.\n", note.body.trim_end());
        assert_eq!(
            note.render().unwrap(),
            "\u{feff}---\r\ntags: [a, b]  # mine\r\ntitle: New plan\r\n---\r\nLine one.\r\nLine two.\r\nAdded.\r\n"
        );
        // Plain line ends stay plain.
        let mut note = NoteText::parse("x.md", "---\na: 1\n---\nbody\n").unwrap();
        note.set("b", 2);
        assert_eq!(note.render().unwrap(), "---\na: 1\nb: 2\n---\nbody\n");
    }

    #[test]
    fn a_backslash_or_a_folder_spelt_in_another_case_is_refused_with_the_right_spelling() {
        let (_d, root) = vault();
        let e = resolve(&root, "2 Areas\\win.md", true).unwrap_err();
        assert_eq!(e.code, "bad_request");
        assert!(e.message.contains("separated by `/`"), "{e:?}");
        std::fs::create_dir_all(root.join("1 Projects").join("Kitchen")).unwrap();
        std::fs::write(root.join("1 Projects/Kitchen/Plan.md"), "x").unwrap();
        let e = resolve(&root, "1 projects/kitchen/plan.md", true).unwrap_err();
        assert_eq!(e.code, "bad_request");
        assert!(e.message.contains("`1 Projects`"), "{e:?}");
        let e = resolve(&root, "1 Projects/Kitchen/plan.md", true).unwrap_err();
        assert!(e.message.contains("`Plan.md`"), "{e:?}");
        // The right spelling, and a new name beside it, are fine.
        assert!(resolve(&root, "1 Projects/Kitchen/Plan.md", false).is_ok());
        assert!(resolve(&root, "1 Projects/Kitchen/Budget.md", true).is_ok());
    }

    #[cfg(unix)]
    #[test]
    fn symlinks_on_the_way_are_refused() {
        let (_d, root) = vault();
        let outside = tempfile::tempdir().unwrap();
        std::os::unix::fs::symlink(outside.path(), root.join("escape")).unwrap();
        let e = resolve(&root, "escape/x.md", true).unwrap_err();
        assert_eq!(e.code, "outside_vault");
        std::fs::write(outside.path().join("secret.md"), "s").unwrap();
        std::os::unix::fs::symlink(outside.path().join("secret.md"), root.join("link.md")).unwrap();
        assert_eq!(
            resolve(&root, "link.md", false).unwrap_err().code,
            "outside_vault"
        );
    }

    #[test]
    fn atomic_writes_create_folders_and_refuse_to_clobber_new_notes() {
        let (_d, root) = vault();
        let p = resolve(&root, "Areas/Health/run.md", true).unwrap();
        write_atomic(&p, "# Run\n", true).unwrap();
        assert_eq!(std::fs::read_to_string(&p.abs).unwrap(), "# Run\n");
        assert_eq!(
            write_atomic(&p, "again", true).unwrap_err().code,
            "already_exists"
        );
        write_atomic(&p, "# Run 2\n", false).unwrap();
        assert_eq!(std::fs::read_to_string(&p.abs).unwrap(), "# Run 2\n");
        let leftovers: Vec<_> = std::fs::read_dir(p.abs.parent().unwrap())
            .unwrap()
            .filter_map(Result::ok)
            .filter(|e| e.file_name().to_string_lossy().ends_with(".tmp"))
            .collect();
        assert!(leftovers.is_empty(), "no temporary file left behind");
    }

    #[test]
    fn front_matter_is_kept_and_merged_key_by_key() {
        let text = "---\ntitle: Plan\nowner: Dana\ntags: [a, b]\n---\n# Plan\nbody\n";
        let mut note = NoteText::parse("plan.md", text).unwrap();
        let fields = json!({"status": "active", "owner": null, "tags": ["a", "c"]});
        note.merge(fields.as_object().unwrap()).unwrap();
        let out = note.render().unwrap();
        let again = NoteText::parse("plan.md", &out).unwrap();
        assert_eq!(again.body, "# Plan\nbody\n");
        assert!(out.starts_with("---\ntitle: Plan\n"), "order kept: {out}");
        assert!(!out.contains("owner"));
        assert!(out.contains("status: active"));
        assert!(again.has("tags"));
    }

    #[test]
    fn broken_front_matter_is_an_error_not_a_loss() {
        let e = NoteText::parse("x.md", "---\ntitle: [unclosed\n---\nbody").unwrap_err();
        assert_eq!(e.code, "bad_request");
        assert!(e.message.contains("x.md"));
        let plain = NoteText::parse("y.md", "just text").unwrap();
        assert_eq!(plain.render().unwrap(), "just text\n");
    }
}
