//! Prompt templates: `NAME.md` files of plain markdown with `{{var}}` placeholders.
//!
//! A [`TemplateSet`] looks a name up in its directories (the one added last first), then in its
//! embedded defaults: core compiles in its own (`structured_output`, `structured_output_retry`)
//! and other crates register theirs with [`TemplateSet::with_embedded`], so a deployment can
//! override any prompt by dropping a file in a directory without rebuilding.
//!
//! Rendering is strict, because a prompt with a hole in it fails silently at the model: a
//! placeholder without a value is an error naming the variable, and a `{{` that does not form
//! a placeholder (`{{ user name }}`, an unclosed `{{`) is an error too, so nothing `{{…}}`-like
//! reaches the output from the template itself. Values are inserted verbatim and not scanned
//! again: a user message containing `{{` is content, not a placeholder.

mod render;
mod set;

pub use render::{Template, Vars};
pub use set::{TemplateSet, TemplateSource};
