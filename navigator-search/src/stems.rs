//! The keyword index's analyser: words cut by [`crate::words::WordTokenizer`] (letters,
//! digits and their combining marks; CJK runs as character pairs), longer than 40 bytes
//! dropped, lowercased, accents folded ([`crate::words::FoldAccents`]), then Snowball English
//! stems, each thread remembering the stems it has computed.
//!
//! Stemming is a quarter of the analysing thread's time in a bulk load (the Snowball rules run
//! for every token, and a note's title and tags are indexed several times over), while the
//! words of a corpus repeat: a lookup in a table of the words seen before gives the same stem
//! for a fraction of the work. The stems are those of tantivy's own filter, byte for byte: on
//! plain ASCII text the analyser gives what tantivy's `en_stem` gives.

use crate::words::{FoldAccents, WordTokenizer};
use std::cell::RefCell;
use std::collections::HashMap;
use tantivy::tokenizer::{
    LowerCaser, RemoveLongFilter, TextAnalyzer, Token, TokenFilter, TokenStream, Tokenizer,
};

/// The name the text field's schema gives its analyser. An index written with another
/// (tantivy's `en_stem`, before accents were folded and CJK text cut into pairs) has another
/// schema: it is rebuilt from the store when opened.
pub(crate) const ANALYZER: &str = "en_fold_cjk";

/// Words whose stems one thread keeps at most; the table starts again past it (a few MB).
const MAX_REMEMBERED: usize = 100_000;

thread_local! {
    /// Each word this thread stemmed, and its stem.
    static STEMS: RefCell<HashMap<String, String>> = RefCell::new(HashMap::new());
}

/// The analyser: words, long ones dropped, lowercased, accents folded, English stems.
pub(crate) fn analyzer() -> TextAnalyzer {
    TextAnalyzer::builder(WordTokenizer)
        .filter(RemoveLongFilter::limit(40))
        .filter(LowerCaser)
        .filter(FoldAccents)
        .filter(RememberedStems)
        .build()
}

/// Registers [`analyzer`] on `index` under [`ANALYZER`], for its writers and its readers.
pub(crate) fn register(index: &tantivy::Index) {
    index.tokenizers().register(ANALYZER, analyzer());
}

/// The English Snowball stem of each (lowercased) token, looked up before it is computed.
#[derive(Clone, Copy, Default)]
struct RememberedStems;

impl TokenFilter for RememberedStems {
    type Tokenizer<T: Tokenizer> = RememberedStemsFilter<T>;

    fn transform<T: Tokenizer>(self, inner: T) -> RememberedStemsFilter<T> {
        RememberedStemsFilter { inner }
    }
}

#[derive(Clone)]
struct RememberedStemsFilter<T> {
    inner: T,
}

impl<T: Tokenizer> Tokenizer for RememberedStemsFilter<T> {
    type TokenStream<'a> = RememberedStemsStream<T::TokenStream<'a>>;

    fn token_stream<'a>(&'a mut self, text: &'a str) -> Self::TokenStream<'a> {
        RememberedStemsStream {
            tail: self.inner.token_stream(text),
            stemmer: rust_stemmers::Stemmer::create(rust_stemmers::Algorithm::English),
        }
    }
}

struct RememberedStemsStream<T> {
    tail: T,
    stemmer: rust_stemmers::Stemmer,
}

impl<T: TokenStream> TokenStream for RememberedStemsStream<T> {
    fn advance(&mut self) -> bool {
        if !self.tail.advance() {
            return false;
        }
        let token = self.tail.token_mut();
        STEMS.with_borrow_mut(|stems| {
            if let Some(stem) = stems.get(token.text.as_str()) {
                if *stem != token.text {
                    token.text.clear();
                    token.text.push_str(stem);
                }
                return;
            }
            let stem = self.stemmer.stem(&token.text).into_owned();
            if stems.len() >= MAX_REMEMBERED {
                stems.clear();
            }
            let word = std::mem::replace(&mut token.text, stem.clone());
            stems.insert(word, stem);
        });
        true
    }

    fn token(&self) -> &Token {
        self.tail.token()
    }

    fn token_mut(&mut self) -> &mut Token {
        self.tail.token_mut()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tokens(analyzer: &mut TextAnalyzer, text: &str) -> Vec<(String, usize, usize, usize)> {
        let mut stream = analyzer.token_stream(text);
        let mut out = Vec::new();
        while let Some(t) = stream.next() {
            out.push((t.text.clone(), t.offset_from, t.offset_to, t.position));
        }
        out
    }

    #[test]
    fn on_ascii_text_the_analyser_is_tantivys_en_stem_token_for_token() {
        let builtin = tantivy::tokenizer::TokenizerManager::default();
        let mut theirs = builtin.get("en_stem").expect("tantivy registers en_stem");
        let mut ours = analyzer();
        let texts = [
            "Running runners ran; the RUNNING of the bulls, generously generalized",
            "Hyperparameter tuning: learning-rate schedules and caresses, ponies, agreed",
            "naive cafe resume -- and 12345 numbers_with_underscores",
            &"a".repeat(41),
            "",
            // Twice: the second pass reads every stem from the table.
            "Running runners ran; the RUNNING of the bulls, generously generalized",
        ];
        for text in texts {
            assert_eq!(
                tokens(&mut ours, text),
                tokens(&mut theirs, text),
                "{text:?}"
            );
        }
        assert_eq!(
            tokens(&mut ours, "Running generalized")
                .into_iter()
                .map(|t| t.0)
                .collect::<Vec<_>>(),
            ["run", "general"]
        );
    }

    #[test]
    fn accented_and_plain_spellings_meet_at_one_stem() {
        let mut ours = analyzer();
        let stems = |a: &mut TextAnalyzer, t: &str| -> Vec<String> {
            tokens(a, t).into_iter().map(|t| t.0).collect()
        };
        assert_eq!(
            stems(&mut ours, "Naïve cafés, résumés"),
            stems(&mut ours, "naive cafes, resumes")
        );
        let decomposed: String =
            unicode_normalization::UnicodeNormalization::nfd("Málaga").collect();
        assert_eq!(stems(&mut ours, &decomposed), ["malaga"]);
    }

    #[test]
    fn a_full_table_starts_again_and_still_stems() {
        let mut ours = analyzer();
        let words: String = (0..MAX_REMEMBERED + 10)
            .map(|i| format!("word{i}ing "))
            .collect();
        let n = tokens(&mut ours, &words).len();
        assert_eq!(n, MAX_REMEMBERED + 10);
        STEMS.with_borrow(|stems| assert!(stems.len() < MAX_REMEMBERED));
        assert_eq!(tokens(&mut ours, "walking")[0].0, "walk");
    }
}
