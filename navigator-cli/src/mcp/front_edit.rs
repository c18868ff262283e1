//! Edits a note's front matter in place: the keys a write changed are rewritten, the others
//! keep their text — comments, flow lists (`tags: [a, b]`), quoting and blank lines — where
//! serializing the whole mapping again would turn every one into serde_yaml's style.

use serde_yaml::{Mapping, Value};

/// The front matter block `block` (which parsed to `was`) edited to hold `now`: a key whose
/// value changed is written anew in its place, a removed key's lines go, a new key is appended.
/// `None` when the block cannot be edited line by line (carriage returns, a key this reader
/// does not find at the start of a line) or the edit would not parse back to `now`; the caller
/// then writes the whole mapping.
pub(crate) fn edited(block: &str, was: &Mapping, now: &Mapping) -> Option<String> {
    if block.contains('\r') {
        return None;
    }
    let lines: Vec<&str> = block.split_inclusive('\n').collect();
    let spans = key_spans(&lines);
    // Every key read must be found: an unfound one's lines could sit inside another's span.
    if spans.len() != was.len() || spans.iter().any(|(k, _, _)| !was.contains_key(k)) {
        return None;
    }
    let mut out = String::new();
    let mut at = 0;
    for (key, start, end) in &spans {
        out.extend(lines[at..*start].iter().copied());
        match now.get(key) {
            None => {}
            Some(v) if was.get(key) == Some(v) => out.extend(lines[*start..*end].iter().copied()),
            Some(v) => out.push_str(&one_key(key, v)?),
        }
        at = *end;
    }
    out.extend(lines[at..].iter().copied());
    for (key, v) in now.iter().filter(|(k, _)| !was.contains_key(*k)) {
        if !out.is_empty() && !out.ends_with('\n') {
            out.push('\n');
        }
        out.push_str(&one_key(key, v)?);
    }
    let back: Value = serde_yaml::from_str(&out).ok()?;
    let same = match back {
        Value::Mapping(m) => m.len() == now.len() && now.iter().all(|(k, v)| m.get(k) == Some(v)),
        _ => false,
    };
    same.then_some(out)
}

/// `key: value` as serde_yaml writes a one-key mapping, ending in a newline.
fn one_key(key: &Value, value: &Value) -> Option<String> {
    let mut m = Mapping::new();
    m.insert(key.clone(), value.clone());
    serde_yaml::to_string(&m).ok()
}

/// The top-level keys of `lines` in order, each with the lines it spans: its own, then the
/// indented lines and column-0 sequence items (`- a`) after it, with the blank lines between
/// them; the comments and blank lines that follow its last such line are left outside, to
/// the next key.
fn key_spans(lines: &[&str]) -> Vec<(Value, usize, usize)> {
    let mut spans: Vec<(Value, usize, usize)> = Vec::new();
    for (n, line) in lines.iter().enumerate() {
        if let Some(key) = top_level_key(line) {
            spans.push((key, n, n + 1));
        } else if let Some(last) = spans.last_mut() {
            let content = !line.trim().is_empty() && !line.starts_with('#');
            if content && (line.starts_with([' ', '\t']) || line.starts_with('-')) {
                last.2 = n + 1;
            }
        }
    }
    spans
}

/// The key a line starting at column 0 sets (`title: x`, `"a b": x`, `tags:`), read as YAML.
fn top_level_key(line: &str) -> Option<Value> {
    let line = line.trim_end();
    if line.is_empty() || line.starts_with([' ', '\t', '#', '-', '?', '[', '{']) {
        return None;
    }
    let end = match line.chars().next()? {
        q @ ('"' | '\'') => line[1..].find(q)? + 2,
        _ => line
            .find(": ")
            .or_else(|| line.ends_with(':').then(|| line.len() - 1))?,
    };
    let rest = &line[end..];
    if !(rest.starts_with(": ") || rest == ":") {
        return None;
    }
    serde_yaml::from_str(&line[..end]).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mapping(yaml: &str) -> Mapping {
        serde_yaml::from_str(yaml).unwrap()
    }

    /// `block` edited by `change` to the mapping it makes.
    fn edit(block: &str, change: impl FnOnce(&mut Mapping)) -> Option<String> {
        let was = mapping(block);
        let mut now = was.clone();
        change(&mut now);
        edited(block, &was, &now)
    }

    const NOTE: &str = "# kept: a comment\ntitle: \"Kitchen plan\"\ntags: [home, renovation]\n\n# dates\ncreated: 2025-01-02\nsteps:\n  - measure\n  - order\nowner: me\n";

    #[test]
    fn unchanged_keys_keep_their_comments_flow_lists_and_quotes() {
        let out = edit(NOTE, |m| {
            m.insert("updated".into(), "2025-02-01".into());
            m.insert("owner".into(), "you".into());
        })
        .unwrap();
        assert_eq!(
            out,
            "# kept: a comment\ntitle: \"Kitchen plan\"\ntags: [home, renovation]\n\n# dates\ncreated: 2025-01-02\nsteps:\n  - measure\n  - order\nowner: you\nupdated: 2025-02-01\n"
        );
    }

    #[test]
    fn a_changed_or_removed_key_takes_its_continuation_lines_and_leaves_the_next_comment() {
        let out = edit(NOTE, |m| {
            m.insert("tags".into(), Value::Sequence(vec!["garden".into()]));
            m.remove("steps");
        })
        .unwrap();
        assert_eq!(
            out,
            "# kept: a comment\ntitle: \"Kitchen plan\"\ntags:\n- garden\n\n# dates\ncreated: 2025-01-02\nowner: me\n"
        );
        // A column-0 sequence and a block scalar with a blank line inside belong to their key.
        let block = "tags:\n- a\n- b\nabout: |\n  one\n\n  two\n# end\nx: 1\n";
        let out = edit(block, |m| {
            m.insert("tags".into(), Value::Sequence(vec!["c".into()]));
            m.insert("about".into(), "short".into());
        })
        .unwrap();
        assert_eq!(out, "tags:\n- c\nabout: short\n# end\nx: 1\n");
    }

    #[test]
    fn what_cannot_be_edited_line_by_line_is_left_to_the_caller() {
        // Carriage returns; a complex key this reader does not find; a key on a flow mapping.
        for block in [
            "a: 1\r\nb: 2\r\n",
            "? [a, b]\n: 1\nc: 2\n",
            "{a: 1, b: 2}\n",
        ] {
            assert_eq!(
                edit(block, |m| {
                    m.insert("z".into(), 3.into());
                }),
                None,
                "{block:?}"
            );
        }
        // Quoted keys and keys holding colons in their values are found.
        let out = edit("\"my key\": 1\nurl: http://x.y/z\n", |m| {
            m.insert("my key".into(), 2.into());
        })
        .unwrap();
        assert_eq!(out, "my key: 2\nurl: http://x.y/z\n");
    }
}
