//! A markdown note body → the text the engine indexes, with what the parser found in it.
//!
//! The text keeps the note's structure that matters for search and chunking — headings stay
//! on their own line with their `#` marks, paragraphs and list items on their own lines,
//! code as written — and drops markup: emphasis marks, link targets, image links, HTML.
//! `[[wiki links]]` become their shown text (`[[Target|shown]]` → `shown`) and are collected
//! as links; `#tags` in running text (not in code or headings) are collected as tags.

use pulldown_cmark::{Event, HeadingLevel, LinkType, Options, Parser, Tag, TagEnd};

/// What a markdown body holds.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Parsed {
    /// The indexed text.
    pub text: String,
    /// The text of the first level-1 heading.
    pub first_heading: Option<String>,
    /// Wiki-link targets in order of first appearance (`[[Target#Section|shown]]` →
    /// `Target`).
    pub links: Vec<String>,
    /// Inline `#tags`.
    pub tags: Vec<String>,
}

/// Parses a markdown body (front matter already removed).
pub fn parse(body: &str) -> Parsed {
    let options = Options::ENABLE_WIKILINKS
        | Options::ENABLE_TABLES
        | Options::ENABLE_STRIKETHROUGH
        | Options::ENABLE_TASKLISTS;
    let mut out = Parsed::default();
    let mut heading: Option<(HeadingLevel, String)> = None;
    let mut in_code = false;
    let mut image_depth = 0usize;
    let mut list_depth = 0usize;
    let text = &mut out.text;
    for event in Parser::new_ext(body, options) {
        match event {
            Event::Start(Tag::Heading { level, .. }) => {
                line_break(text);
                heading = Some((level, String::new()));
            }
            Event::End(TagEnd::Heading(_)) => {
                if let Some((level, h)) = heading.take() {
                    let h = h.trim().to_string();
                    if level == HeadingLevel::H1 && out.first_heading.is_none() && !h.is_empty() {
                        out.first_heading = Some(h.clone());
                    }
                    text.push_str(&"#".repeat(level as usize));
                    text.push(' ');
                    text.push_str(&h);
                    text.push('\n');
                }
            }
            Event::Start(Tag::CodeBlock(_)) => {
                line_break(text);
                in_code = true;
            }
            Event::End(TagEnd::CodeBlock) => {
                in_code = false;
                line_break(text);
            }
            Event::Start(Tag::List(_)) => list_depth += 1,
            Event::End(TagEnd::List(_)) => {
                list_depth = list_depth.saturating_sub(1);
                line_break(text);
            }
            Event::Start(Tag::Item) => {
                line_break(text);
                text.push_str(&"  ".repeat(list_depth.saturating_sub(1)));
                text.push_str("- ");
            }
            Event::Start(Tag::Image { .. }) => image_depth += 1,
            Event::End(TagEnd::Image) => image_depth = image_depth.saturating_sub(1),
            Event::Start(Tag::Link {
                link_type: LinkType::WikiLink { .. },
                dest_url,
                ..
            }) => {
                let target = dest_url.split(['#', '|']).next().unwrap_or("").trim();
                if !target.is_empty() && !out.links.iter().any(|l| l == target) {
                    out.links.push(target.to_string());
                }
            }
            Event::End(
                TagEnd::Paragraph | TagEnd::BlockQuote(_) | TagEnd::TableRow | TagEnd::TableHead,
            ) => line_break(text),
            Event::End(TagEnd::TableCell) => text.push_str(" | "),
            Event::Text(t) if image_depth == 0 => match heading.as_mut() {
                Some((_, h)) => h.push_str(&t),
                None => {
                    if !in_code {
                        collect_tags(&t, &mut out.tags);
                    }
                    text.push_str(&t);
                }
            },
            Event::Code(t) if image_depth == 0 => match heading.as_mut() {
                Some((_, h)) => h.push_str(&t),
                None => text.push_str(&t),
            },
            Event::SoftBreak | Event::HardBreak => match heading.as_mut() {
                Some((_, h)) => h.push(' '),
                None => text.push('\n'),
            },
            Event::TaskListMarker(done) => text.push_str(if done { "[x] " } else { "[ ] " }),
            _ => {}
        }
    }
    let trimmed = out.text.trim_end().len();
    out.text.truncate(trimmed);
    out.tags = super::front_matter::dedup(std::mem::take(&mut out.tags));
    out
}

fn line_break(text: &mut String) {
    if !text.is_empty() && !text.ends_with('\n') {
        text.push('\n');
    }
}

/// `#tag` and `#nested/tag` words: a `#` at a word start followed by a letter (so `#1` and
/// `C#` are not tags).
fn collect_tags(text: &str, tags: &mut Vec<String>) {
    let mut prev: Option<char> = None;
    for (i, c) in text.char_indices() {
        let at_word_start = prev.is_none_or(char::is_whitespace);
        prev = Some(c);
        if c != '#' || !at_word_start {
            continue;
        }
        let rest = &text[i + 1..];
        if !rest.chars().next().is_some_and(char::is_alphabetic) {
            continue;
        }
        let end = rest
            .find(|ch: char| !(ch.is_alphanumeric() || ch == '_' || ch == '-' || ch == '/'))
            .unwrap_or(rest.len());
        tags.push(rest[..end].trim_end_matches('/').to_string());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headings_lists_and_code_keep_their_lines_and_markup_goes() {
        let p = parse(
            "# Launch plan\n\nThe **beta** ships in [May](https://x.test).\n\n## Risks\n\n- vendor delay\n- budget\n\n```\nlet x = 1;\n```\n![diagram](d.png)\n",
        );
        assert_eq!(p.first_heading.as_deref(), Some("Launch plan"));
        assert_eq!(
            p.text,
            "# Launch plan\nThe beta ships in May.\n## Risks\n- vendor delay\n- budget\nlet x = 1;"
        );
    }

    #[test]
    fn wiki_links_become_their_text_and_are_collected() {
        let p = parse(
            "See [[Budget 2025]] and [[Vendors#Shortlist|the shortlist]], again [[Budget 2025]].",
        );
        assert_eq!(p.links, ["Budget 2025", "Vendors"]);
        assert_eq!(
            p.text,
            "See Budget 2025 and the shortlist, again Budget 2025."
        );
    }

    #[test]
    fn inline_tags_outside_code_and_headings() {
        let p =
            parse("# Title #notatag\nWork on #rust and #search/hybrid, not C# or #1.\n\n`#code`");
        assert_eq!(p.tags, ["rust", "search/hybrid"]);
    }
}
