//! Outlines of documents without a code grammar: Markdown headings (`pulldown-cmark`) and TOML
//! tables and keys (`toml_edit`), so a README or a `Cargo.toml` shows its shape at levels 2
//! and 3 instead of only its path.
//!
//! These outlines only shape how a document is *shown*: ranking and the reference graph read
//! code outlines alone ([`FileEntry::code_outline`](crate::FileEntry::code_outline)), so a
//! heading never counts as a definition.

use crate::outline::{clip, collapse_ws, Outline, Symbol, MAX_DEPTH};
use pulldown_cmark::{Event, HeadingLevel, Options, Parser, Tag, TagEnd};
use toml_edit::{Document, Item, Table};

/// A document format with an outline but no code grammar.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum DocFormat {
    /// Markdown (`.md`, `.markdown`): its headings.
    Markdown,
    /// TOML (`.toml`): its tables, and their keys one level down.
    Toml,
}

impl DocFormat {
    /// The format of a path, by extension.
    pub(crate) fn from_path(path: &str) -> Option<DocFormat> {
        let ext = path.rsplit_once('.')?.1.to_ascii_lowercase();
        match ext.as_str() {
            "md" | "markdown" => Some(DocFormat::Markdown),
            "toml" => Some(DocFormat::Toml),
            _ => None,
        }
    }
}

/// The outline of `text` in `format`. A TOML file that does not parse gets an empty, partial
/// outline (shown as its path, or whole).
pub(crate) fn outline(format: DocFormat, text: &str) -> Outline {
    match format {
        DocFormat::Markdown => markdown(text),
        DocFormat::Toml => toml(text).unwrap_or(Outline {
            symbols: Vec::new(),
            partial: true,
            members: Vec::new(),
        }),
    }
}

/// The outline of a document that has no code grammar, by its path's extension: a Markdown
/// file's headings, a TOML file's tables and keys. `None` for other kinds of file. (What a
/// [`RepoMap`](crate::RepoMap) shows of such a document at levels 2 and 3.)
///
/// ```
/// let o = navigator_context::document_outline("README.md", "# Tool\n\n## Install\n").unwrap();
/// assert_eq!(o.symbols[1].signature, "## Install");
/// assert!(navigator_context::document_outline("notes.txt", "text").is_none());
/// ```
pub fn document_outline(path: &str, text: &str) -> Option<Outline> {
    DocFormat::from_path(path).map(|format| outline(format, text))
}

/// Line numbers of byte offsets in one text, by binary search over its line starts (a
/// document of 40,000 headings is outlined in one pass, not one scan per heading).
struct Lines {
    /// Byte offset just past each `\n`.
    starts: Vec<usize>,
    len: usize,
    ends_with_newline: bool,
}

impl Lines {
    fn new(text: &str) -> Lines {
        Lines {
            starts: newline_ends(text),
            len: text.len(),
            ends_with_newline: text.ends_with('\n'),
        }
    }

    /// 1-based line of byte `at`.
    fn of(&self, at: usize) -> u32 {
        let at = at.min(self.len);
        self.starts.partition_point(|&s| s <= at) as u32 + 1
    }

    /// Lines of the text (a last line without a newline counts).
    fn count(&self) -> u32 {
        self.of(self.len) - u32::from(self.ends_with_newline)
    }
}

/// Offsets just past each newline of `text`.
fn newline_ends(text: &str) -> Vec<usize> {
    text.bytes()
        .enumerate()
        .filter(|(_, b)| *b == b'\n')
        .map(|(i, _)| i + 1)
        .collect()
}

/// Headings, nested by level. A document whose shallowest level holds a single heading (its
/// title) lists that title and the next level's headings at the top, so level 2 shows the
/// sections rather than the title alone. Headings inside a block quote, a list item or a
/// footnote are quoted or listed text, not sections of the document, and are left out; HTML
/// headings (`<h1 align="center">Tool</h1>`, common at the top of a README) count.
fn markdown(text: &str) -> Outline {
    let mut found: Vec<(usize, String, usize)> = Vec::new();
    let mut open: Option<(usize, String, usize)> = None;
    // Depth of block quotes, list items and footnotes around the current event.
    let mut nested = 0usize;
    // An HTML block's text, from its start (blocks arrive a line at a time).
    let mut html: Option<(String, usize)> = None;
    let text = &*raw_end_tags_lower_cased(text);
    for (event, range) in Parser::new_ext(text, Options::all()).into_offset_iter() {
        match event {
            Event::Start(Tag::BlockQuote(_) | Tag::Item | Tag::FootnoteDefinition(_)) => {
                nested += 1;
            }
            Event::End(TagEnd::BlockQuote(_) | TagEnd::Item | TagEnd::FootnoteDefinition) => {
                nested = nested.saturating_sub(1);
            }
            Event::Start(Tag::Heading { level, .. }) if nested == 0 => {
                open = Some((heading_level(level), String::new(), range.start));
            }
            Event::Start(Tag::HtmlBlock) if nested == 0 => {
                html = Some((String::new(), range.start));
            }
            Event::Html(t) => {
                if let Some((block, _)) = html.as_mut() {
                    block.push_str(&t);
                }
            }
            Event::End(TagEnd::HtmlBlock) => {
                if let Some((block, start)) = html.take() {
                    found.extend(html_headings(&block, start));
                }
            }
            Event::Text(t) | Event::Code(t) => {
                if let Some((_, title, _)) = open.as_mut() {
                    title.push_str(&t);
                }
            }
            Event::SoftBreak | Event::HardBreak => {
                if let Some((_, title, _)) = open.as_mut() {
                    title.push(' ');
                }
            }
            Event::End(TagEnd::Heading(_)) => {
                if let Some((level, title, start)) = open.take() {
                    let title = collapse_ws(&title);
                    if !title.is_empty() {
                        found.push((level, title, start));
                    }
                }
            }
            _ => {}
        }
    }
    let mut levels: Vec<usize> = found.iter().map(|(l, _, _)| *l).collect();
    levels.sort_unstable();
    levels.dedup();
    let titled = levels.len() > 1 && found.iter().filter(|(l, _, _)| *l == levels[0]).count() == 1;
    let base = if titled {
        levels[1]
    } else {
        levels.first().copied().unwrap_or(1)
    };
    let lines = Lines::new(text);
    let last = lines.count();
    let mut symbols = Vec::new();
    for (k, (level, title, start)) in found.iter().enumerate() {
        let depth = level.saturating_sub(base);
        if depth >= MAX_DEPTH {
            continue;
        }
        // A section runs to the next heading at its level or above.
        let end = found[k + 1..]
            .iter()
            .find(|(l, _, _)| l <= level)
            .map_or(last, |(_, _, s)| lines.of(*s).saturating_sub(1));
        let line = lines.of(*start);
        symbols.push(Symbol {
            depth: depth as u8,
            name: title.clone(),
            signature: clip(&format!("{} {title}", "#".repeat(*level))),
            doc: None,
            line,
            end_line: end.max(line),
        });
    }
    Outline {
        symbols,
        partial: false,
        members: Vec::new(),
    }
}

/// `text` with the end tags of raw HTML blocks (`</PRE>`, `</Script>`, …) in lower case.
/// CommonMark ends such a block at its end tag in any case, but the parser matches only lower
/// case, so an upper-case `<PRE>` block ran to the end of the document and hid every heading
/// after it. The same bytes in the same places: offsets keep their lines.
fn raw_end_tags_lower_cased(text: &str) -> std::borrow::Cow<'_, str> {
    static END: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        regex::Regex::new(r"(?i)</(?:pre|script|style|textarea)\b")
            .expect("a valid built-in pattern")
    });
    END.replace_all(text, |c: &regex::Captures| c[0].to_ascii_lowercase())
}

/// The `<h1>`..`<h6>` headings of an HTML block that starts at byte `start`: (level, text
/// with tags removed and common entities decoded, start byte). Empty ones (a logo alone) are
/// left out.
fn html_headings(block: &str, start: usize) -> Vec<(usize, String, usize)> {
    static HEADING: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        regex::Regex::new(r"(?is)<h([1-6])(?:\s[^>]*)?>(.*?)</h[1-6]\s*>")
            .expect("a valid built-in pattern")
    });
    static TAG: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        regex::Regex::new(r"(?s)<[^>]*>").expect("a valid built-in pattern")
    });
    // Comments and the raw text of scripts, styles and preformatted blocks hold no headings;
    // blanked to spaces of the same length so offsets keep their lines.
    static RAW: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        regex::Regex::new(
            r"(?is)<!--.*?(?:-->|\z)|<script\b.*?(?:</script\s*>|\z)|<style\b.*?(?:</style\s*>|\z)|<pre\b.*?(?:</pre\s*>|\z)|<textarea\b.*?(?:</textarea\s*>|\z)",
        )
        .expect("a valid built-in pattern")
    });
    let block = RAW.replace_all(block, |c: &regex::Captures| {
        c[0].chars()
            .map(|ch| if ch == '\n' { '\n' } else { ' ' })
            .collect::<String>()
    });
    HEADING
        .captures_iter(&block)
        .filter_map(|c| {
            let level = c[1].parse::<usize>().ok()?;
            let inner = TAG.replace_all(&c[2], " ");
            let title = collapse_ws(&decode_entities(&inner));
            let at = c.get(0).map_or(0, |m| m.start());
            (!title.is_empty()).then_some((level, title, start + at))
        })
        .collect()
}

/// HTML character references decoded: numeric ones (`&#233;`, `&#x41;`) and the named ones
/// heading text uses; an unknown name stays as written.
fn decode_entities(text: &str) -> String {
    static ENTITY: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        regex::Regex::new(r"&(#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6}|[a-zA-Z]{2,8});")
            .expect("a valid built-in pattern")
    });
    ENTITY
        .replace_all(text, |c: &regex::Captures| {
            let name = &c[1];
            let code = if let Some(hex) = name.strip_prefix("#x").or(name.strip_prefix("#X")) {
                u32::from_str_radix(hex, 16).ok()
            } else if let Some(dec) = name.strip_prefix('#') {
                dec.parse().ok()
            } else {
                None
            };
            let named = match name {
                "amp" => Some('&'),
                "lt" => Some('<'),
                "gt" => Some('>'),
                "quot" => Some('"'),
                "apos" => Some('\''),
                "nbsp" => Some(' '),
                "copy" => Some('©'),
                "reg" => Some('®'),
                "trade" => Some('™'),
                "mdash" => Some('—'),
                "ndash" => Some('–'),
                "hellip" => Some('…'),
                "eacute" => Some('é'),
                _ => None,
            };
            match code.and_then(char::from_u32).or(named) {
                Some(ch) => ch.to_string(),
                None => c[0].to_string(),
            }
        })
        .into_owned()
}

fn heading_level(level: HeadingLevel) -> usize {
    match level {
        HeadingLevel::H1 => 1,
        HeadingLevel::H2 => 2,
        HeadingLevel::H3 => 3,
        HeadingLevel::H4 => 4,
        HeadingLevel::H5 => 5,
        HeadingLevel::H6 => 6,
    }
}

/// Table headers (`[a.b]`, `[[bin]]`) at the top, their keys one level down; keys before the
/// first header at the top too. In source order.
fn toml(text: &str) -> Option<Outline> {
    let doc = Document::parse(text).ok()?;
    let mut items: Vec<(usize, u8, String, String, usize)> = Vec::new();
    walk(text, doc.as_table(), "", 0, &mut items);
    items.sort_by_key(|(start, ..)| *start);
    let lines = Lines::new(text);
    let last = lines.count();
    let headers: Vec<usize> = items
        .iter()
        .filter(|(_, depth, ..)| *depth == 0)
        .map(|(start, ..)| *start)
        .collect();
    let symbols = items
        .into_iter()
        .map(|(start, depth, name, signature, end)| {
            let line = lines.of(start);
            let end_line = if depth == 0 && signature.starts_with('[') {
                // A table runs to the next top-level entry (`headers` is in source order).
                let next = headers.partition_point(|&s| s <= start);
                headers
                    .get(next)
                    .map_or(last, |&s| lines.of(s).saturating_sub(1))
            } else {
                lines.of(end.saturating_sub(1).max(start))
            };
            Symbol {
                depth,
                name,
                signature,
                doc: None,
                line,
                end_line: end_line.max(line),
            }
        })
        .collect();
    Some(Outline {
        symbols,
        partial: false,
        members: Vec::new(),
    })
}

/// Collects `table`'s entries: (start byte, depth, name, signature, end byte). Explicit
/// headers are depth 0; keys are one below the table holding them (depth 0 at the root).
fn walk(
    text: &str,
    table: &Table,
    prefix: &str,
    depth: u8,
    out: &mut Vec<(usize, u8, String, String, usize)>,
) {
    for (key, item) in table.iter() {
        let name = if prefix.is_empty() {
            key.to_string()
        } else {
            format!("{prefix}.{key}")
        };
        match item {
            Item::Table(t) if !t.is_dotted() => {
                if let (false, Some(span)) = (t.is_implicit(), t.span()) {
                    out.push((span.start, 0, name.clone(), header(text, &span), span.end));
                }
                walk(text, t, &name, 1, out);
            }
            Item::ArrayOfTables(array) => {
                for t in array.iter() {
                    if let Some(span) = t.span() {
                        out.push((span.start, 0, name.clone(), header(text, &span), span.end));
                    }
                    walk(text, t, &name, 1, out);
                }
            }
            Item::None => {}
            // A key with a value (a dotted key `a.b = 1` is a table marked dotted).
            _ => {
                let Some(span) = table.key(key).and_then(|k| k.span()) else {
                    continue;
                };
                let end = item.span().map_or(span.end, |s| s.end);
                out.push((span.start, depth, name, assignment(text, span.start), end));
            }
        }
    }
}

/// A table's header as written, e.g. `[dependencies]` or `[[bin]]`.
fn header(text: &str, span: &std::ops::Range<usize>) -> String {
    let raw = text.get(span.clone()).unwrap_or_default();
    clip(&collapse_ws(raw.lines().next().unwrap_or_default()))
}

/// The line a key starts on, as written (a value running over more lines shows its first).
fn assignment(text: &str, start: usize) -> String {
    let begin = text[..start].rfind('\n').map_or(0, |i| i + 1);
    let line = text[begin..].lines().next().unwrap_or_default();
    clip(&collapse_ws(line))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entries(o: &Outline) -> Vec<(u8, &str, u32, u32)> {
        o.symbols
            .iter()
            .map(|s| (s.depth, s.signature.as_str(), s.line, s.end_line))
            .collect()
    }

    #[test]
    fn formats_by_extension() {
        assert_eq!(DocFormat::from_path("README.md"), Some(DocFormat::Markdown));
        assert_eq!(
            DocFormat::from_path("docs/a.MARKDOWN"),
            Some(DocFormat::Markdown)
        );
        assert_eq!(DocFormat::from_path("Cargo.toml"), Some(DocFormat::Toml));
        assert_eq!(DocFormat::from_path("src/lib.rs"), None);
        assert_eq!(DocFormat::from_path("Makefile"), None);
    }

    #[test]
    fn markdown_headings_nest_under_a_single_title_and_skip_code_blocks() {
        let md = "# Tool\n\nIntro.\n\n## Install\n\n```sh\n# not a heading\n```\n\n### From source\n\nText\n\n## Usage\nLast\n";
        let o = outline(DocFormat::Markdown, md);
        assert_eq!(
            entries(&o),
            vec![
                (0, "# Tool", 1, 16),
                (0, "## Install", 5, 14),
                (1, "### From source", 11, 14),
                (0, "## Usage", 15, 16),
            ]
        );
        assert_eq!(o.symbols[2].name, "From source");
    }

    #[test]
    fn markdown_setext_and_inline_code_headings_and_several_top_headings() {
        let md = "Title\n=====\n\n`run` it\n---------\n\n# Second top\n";
        let o = outline(DocFormat::Markdown, md);
        let sigs: Vec<_> = o
            .symbols
            .iter()
            .map(|s| (s.depth, s.signature.as_str()))
            .collect();
        assert_eq!(
            sigs,
            vec![(0, "# Title"), (1, "## run it"), (0, "# Second top")]
        );
    }

    #[test]
    fn toml_tables_and_keys_in_source_order() {
        let toml = "name = \"x\" # the name\n\n[package]\nversion = \"1\"\nauthors = [\n  \"a\",\n]\n\n[[bin]]\nname = \"cli\"\n\n[tool.ruff.lint]\nselect = [\"E\"]\nsub.key = 2\n";
        let o = outline(DocFormat::Toml, toml);
        assert_eq!(
            entries(&o),
            vec![
                (0, "name = \"x\" # the name", 1, 1),
                (0, "[package]", 3, 8),
                (1, "version = \"1\"", 4, 4),
                (1, "authors = [", 5, 7),
                (0, "[[bin]]", 9, 11),
                (1, "name = \"cli\"", 10, 10),
                (0, "[tool.ruff.lint]", 12, 14),
                (1, "select = [\"E\"]", 13, 13),
                (1, "sub.key = 2", 14, 14),
            ]
        );
        assert_eq!(o.symbols[6].name, "tool.ruff.lint");
        assert!(!o.partial);
    }

    #[test]
    fn broken_toml_is_an_empty_partial_outline() {
        let o = outline(DocFormat::Toml, "[package\nname = ");
        assert!(o.symbols.is_empty() && o.partial);
    }
    #[test]
    fn markdown_quoted_and_listed_headings_are_not_sections_and_html_headings_are() {
        let md = "<h1 align=\"center\">\n  <img src=\"logo.svg\">\n  Tool &amp; co\n</h1>\n\n<p align=\"center\"><img src=\"x.png\"></p>\n\n## Install\n\n> # Quoted title\n> text\n\n- ## Listed\n\n[^n]: note\n\n## Usage\n";
        let o = outline(DocFormat::Markdown, md);
        assert_eq!(
            entries(&o),
            vec![
                (0, "# Tool & co", 1, 17),
                (0, "## Install", 8, 16),
                (0, "## Usage", 17, 17),
            ]
        );
    }
    /// (heading, line) of each entry.
    fn headings(o: &Outline) -> Vec<(&str, u32)> {
        o.symbols
            .iter()
            .map(|s| (s.signature.as_str(), s.line))
            .collect()
    }

    #[test]
    fn html_comments_scripts_and_preformatted_text_hold_no_headings_and_entities_decode() {
        let md = "# A\n\n<!-- <h2>commented</h2> -->\n\n<script>\n// <h2>js</h2>\n</script>\n\n<pre>\n<h2>shown code</h2>\n</pre>\n\n<h2>Caf&#233; &#x41;&eacute; &copy; &bogus;</h2>\n";
        let o = outline(DocFormat::Markdown, md);
        let sigs = headings(&o);
        assert_eq!(sigs, [("# A", 1), ("## Café Aé © &bogus;", 13)]);
    }

    #[test]
    fn upper_case_raw_html_blocks_end_where_their_end_tag_is() {
        let md = "# A\n\n<PRE>\n# not a heading\n</PRE>\n\n## B\n\n<Script>\nx = 1\n</SCRIPT>\n\n## C\n\n<STYLE>\np {}\n</Style>\n\n## D\n\n<TEXTAREA>\n</TEXTAREA>\n\n## E\n";
        let o = outline(DocFormat::Markdown, md);
        let sigs = headings(&o);
        assert_eq!(
            sigs,
            [
                ("# A", 1),
                ("## B", 7),
                ("## C", 13),
                ("## D", 19),
                ("## E", 24)
            ]
        );
    }

    #[test]
    fn line_numbers_hold_across_many_headings() {
        let md = format!("# Changes\n\n{}", "## v\n\n- fixed\n\n".repeat(3000));
        let o = outline(DocFormat::Markdown, &md);
        assert_eq!(o.symbols.len(), 3001);
        let last = o.symbols.last().unwrap();
        // Title on line 1, then four lines per release from line 3.
        assert_eq!((last.line, last.end_line), (3 + 4 * 2999, 2 + 4 * 3000));
        assert_eq!((o.symbols[1].line, o.symbols[1].end_line), (3, 6));
        let lines = Lines::new("a\nb\n\nc");
        assert_eq!(
            [
                lines.of(0),
                lines.of(1),
                lines.of(2),
                lines.of(4),
                lines.of(5)
            ],
            [1, 1, 2, 3, 4]
        );
        assert_eq!(lines.count(), 4);
        assert_eq!(Lines::new("a\n").count(), 1);
        assert_eq!(Lines::new("").count(), 1);
    }
}
