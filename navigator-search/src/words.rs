//! How the keyword index cuts text into words, before lower-casing and stemming
//! (`stems.rs`).
//!
//! - A word is a run of letters, digits and the combining marks on them: decomposed text
//!   (`Ma\u{301}laga`, as macOS and many clipboards write it) is one word, not `Ma` + `laga`.
//! - Chinese, Japanese and Korean write no spaces between words: a run of their characters
//!   gives each character and each overlapping pair (`京都へ` gives `京`, `京都`, `都`, `都へ`,
//!   `へ`), the usual dictionary-free way (Lucene's CJK bigrams, with unigrams) to find a word
//!   inside a sentence, one character long (`猫`) or longer.
//! - [`FoldAccents`] then folds each word to its unaccented, compatibility-composed form
//!   (`Málaga`, decomposed or not, and `malaga` meet; `Straße` and `strasse`, `Tromsø` and
//!   `tromso`, half-width `ｶﾌｪ` and `カフェ`, `ﬁ` and `fi`).
//!
//! Offsets stay those of the original text, so snippets highlight what the note says.

use tantivy::tokenizer::{AsciiFoldingFilter, Token, TokenFilter, TokenStream, Tokenizer};
use unicode_normalization::UnicodeNormalization;

/// Words, and CJK characters and character pairs, of a text (see the module's
/// documentation).
#[derive(Clone, Copy, Default)]
pub(crate) struct WordTokenizer;

impl Tokenizer for WordTokenizer {
    type TokenStream<'a> = WordStream<'a>;

    fn token_stream<'a>(&'a mut self, text: &'a str) -> WordStream<'a> {
        WordStream {
            text,
            at: 0,
            pending: std::collections::VecDeque::new(),
            token: Token::default(),
            position: None,
        }
    }
}

/// Whether `c` belongs to a word: a letter or digit, or a combining mark on one.
fn is_word_char(c: char) -> bool {
    c.is_alphanumeric() || unicode_normalization::char::is_combining_mark(c)
}

/// Whether `c` is written without spaces between words: Han ideographs, kana, Hangul.
fn is_cjk(c: char) -> bool {
    matches!(c as u32,
        0x1100..=0x11FF      // Hangul Jamo
        | 0x3040..=0x30FF    // Hiragana, Katakana
        | 0x3130..=0x318F    // Hangul compatibility Jamo
        | 0x31F0..=0x31FF    // Katakana phonetic extensions
        | 0x3400..=0x4DBF    // CJK extension A
        | 0x4E00..=0x9FFF    // CJK unified ideographs
        | 0xAC00..=0xD7AF    // Hangul syllables
        | 0xF900..=0xFAFF    // CJK compatibility ideographs
        | 0xFF66..=0xFF9F    // half-width Katakana
        | 0x20000..=0x3FFFF) // CJK extensions B and beyond
}

pub(crate) struct WordStream<'a> {
    text: &'a str,
    /// Where the next word is looked for.
    at: usize,
    /// The byte ranges still to emit of the CJK run last read.
    pending: std::collections::VecDeque<(usize, usize)>,
    token: Token,
    position: Option<usize>,
}

impl WordStream<'_> {
    fn emit(&mut self, (from, to): (usize, usize)) -> bool {
        let position = self.position.map_or(0, |p| p + 1);
        self.position = Some(position);
        self.token.text.clear();
        self.token.text.push_str(&self.text[from..to]);
        self.token.offset_from = from;
        self.token.offset_to = to;
        self.token.position = position;
        self.token.position_length = 1;
        true
    }

    /// Queues the CJK run starting at `from`: each character, and after it the pair it
    /// starts with its neighbour. Returns where the run ends.
    fn queue_cjk_run(&mut self, from: usize) -> usize {
        let bounds: Vec<(usize, usize)> = self.text[from..]
            .char_indices()
            .take_while(|(_, c)| is_cjk(*c))
            .map(|(k, c)| (from + k, from + k + c.len_utf8()))
            .collect();
        for (k, &(start, end)) in bounds.iter().enumerate() {
            self.pending.push_back((start, end));
            if let Some(&(_, next_end)) = bounds.get(k + 1) {
                self.pending.push_back((start, next_end));
            }
        }
        bounds.last().map_or(from, |&(_, end)| end)
    }
}

impl TokenStream for WordStream<'_> {
    fn advance(&mut self) -> bool {
        if let Some(next) = self.pending.pop_front() {
            return self.emit(next);
        }
        // Skip to the next word character.
        let text = self.text;
        let Some((start, first)) = text[self.at..]
            .char_indices()
            .find(|(_, c)| is_word_char(*c))
            .map(|(k, c)| (self.at + k, c))
        else {
            self.at = text.len();
            return false;
        };
        if is_cjk(first) {
            self.at = self.queue_cjk_run(start);
            let next = self.pending.pop_front().unwrap_or((start, self.at));
            return self.emit(next);
        }
        // A run of word characters up to the end, a non-word character or a CJK one.
        let end = text[start..]
            .char_indices()
            .find(|(_, c)| !is_word_char(*c) || is_cjk(*c))
            .map_or(text.len(), |(k, _)| start + k);
        self.at = end;
        self.emit((start, end))
    }

    fn token(&self) -> &Token {
        &self.token
    }

    fn token_mut(&mut self) -> &mut Token {
        &mut self.token
    }
}

/// Folds each token to its unaccented, compatibility-composed form (NFKC: half-width kana,
/// ligatures and full-width letters become their plain forms): the accents of Latin, Greek
/// and Cyrillic letters (the combining diacritical marks, U+0300–U+036F, of the decomposed
/// form) are dropped, the rest composed again (kana voicing marks and Hangul stay whole), then
/// tantivy's [`AsciiFoldingFilter`] folds what has no accent to drop (`ß` → `ss`, `ø` →
/// `o`, `æ` → `ae`). Plain ASCII passes untouched.
#[derive(Clone, Copy, Default)]
pub(crate) struct FoldAccents;

impl TokenFilter for FoldAccents {
    type Tokenizer<T: Tokenizer> = <AsciiFoldingFilter as TokenFilter>::Tokenizer<Unaccent<T>>;

    fn transform<T: Tokenizer>(self, inner: T) -> Self::Tokenizer<T> {
        AsciiFoldingFilter.transform(Unaccent { inner })
    }
}

#[derive(Clone)]
pub(crate) struct Unaccent<T> {
    inner: T,
}

impl<T: Tokenizer> Tokenizer for Unaccent<T> {
    type TokenStream<'a> = UnaccentStream<T::TokenStream<'a>>;

    fn token_stream<'a>(&'a mut self, text: &'a str) -> Self::TokenStream<'a> {
        UnaccentStream {
            tail: self.inner.token_stream(text),
        }
    }
}

pub(crate) struct UnaccentStream<T> {
    tail: T,
}

impl<T: TokenStream> TokenStream for UnaccentStream<T> {
    fn advance(&mut self) -> bool {
        if !self.tail.advance() {
            return false;
        }
        let token = self.tail.token_mut();
        if !token.text.is_ascii() {
            token.text = token
                .text
                .nfkd()
                .filter(|c| !('\u{300}'..='\u{36F}').contains(c))
                .nfkc()
                .collect();
        }
        true
    }

    fn token(&self) -> &Token {
        self.tail.token()
    }

    fn token_mut(&mut self) -> &mut Token {
        self.tail.token_mut()
    }
}

/// The words of `text` as the keyword index sees them before stemming (cut by
/// [`WordTokenizer`], words over 40 bytes dropped, lowercased, accents folded), joined by
/// spaces. The PostgreSQL backend gives this to its `english` text search for items and
/// queries alike, so that both backends find the same words (`Málaga` as `malaga`, a CJK
/// word inside a sentence).
#[cfg(feature = "postgres")]
pub(crate) fn folded_words(text: &str) -> String {
    use tantivy::tokenizer::{LowerCaser, RemoveLongFilter, TextAnalyzer};
    thread_local! {
        // Built once per thread: a bulk write folds three texts per item.
        static ANALYZER: std::cell::RefCell<TextAnalyzer> = std::cell::RefCell::new(
            TextAnalyzer::builder(WordTokenizer)
                .filter(RemoveLongFilter::limit(40))
                .filter(LowerCaser)
                .filter(FoldAccents)
                .build(),
        );
    }
    ANALYZER.with_borrow_mut(|analyzer| {
        let mut stream = analyzer.token_stream(text);
        let mut out = String::with_capacity(text.len());
        while let Some(token) = stream.next() {
            if !out.is_empty() {
                out.push(' ');
            }
            out.push_str(&token.text);
        }
        out
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use tantivy::tokenizer::{LowerCaser, TextAnalyzer};

    fn words(text: &str) -> Vec<(String, usize, usize, usize)> {
        let mut analyzer = TextAnalyzer::builder(WordTokenizer)
            .filter(LowerCaser)
            .filter(FoldAccents)
            .build();
        let mut stream = analyzer.token_stream(text);
        let mut out = Vec::new();
        while let Some(t) = stream.next() {
            out.push((t.text.clone(), t.offset_from, t.offset_to, t.position));
        }
        out
    }

    fn texts(text: &str) -> Vec<String> {
        words(text).into_iter().map(|w| w.0).collect()
    }

    #[test]
    fn latin_words_split_where_tantivys_simple_tokenizer_splits_them() {
        assert_eq!(
            words("Hello, wide_world 42!"),
            [
                ("hello".to_string(), 0, 5, 0),
                ("wide".to_string(), 7, 11, 1),
                ("world".to_string(), 12, 17, 2),
                ("42".to_string(), 18, 20, 3),
            ]
        );
        assert!(words("").is_empty());
        assert!(words(" ,;— ").is_empty());
    }

    #[test]
    fn accents_fold_whether_the_text_is_composed_or_not() {
        let composed = "Résumé from Málaga: Zoë, crème brûlée, Straße, Tromsø";
        let decomposed: String = composed.nfd().collect();
        let expected = [
            "resume", "from", "malaga", "zoe", "creme", "brulee", "strasse", "tromso",
        ];
        assert_eq!(texts(composed), expected);
        assert_eq!(texts(&decomposed), expected);
        // Offsets are the text's own: the decomposed word is highlighted whole.
        let malaga = &words(&decomposed)[2];
        assert_eq!(&decomposed[malaga.1..malaga.2], "Ma\u{301}laga");
    }

    #[test]
    fn cjk_runs_give_each_character_and_each_pair() {
        assert_eq!(
            texts("新幹線で京都。"),
            [
                "新", "新幹", "幹", "幹線", "線", "線で", "で", "で京", "京", "京都", "都"
            ]
        );
        assert_eq!(texts("寿司"), ["寿", "寿司", "司"]);
        assert_eq!(texts("猫"), ["猫"]);
        // Between other words, with their offsets and positions.
        assert_eq!(
            words("go 東京 now 日"),
            [
                ("go".to_string(), 0, 2, 0),
                ("東".to_string(), 3, 6, 1),
                ("東京".to_string(), 3, 9, 2),
                ("京".to_string(), 6, 9, 3),
                ("now".to_string(), 10, 13, 4),
                ("日".to_string(), 14, 17, 5),
            ]
        );
        // A Latin word written against a CJK run is a word of its own.
        assert_eq!(texts("Rust入門"), ["rust", "入", "入門", "門"]);
        // Kana voicing marks and Hangul stay whole; half-width kana meet full-width.
        assert_eq!(texts("がっ"), ["が", "がっ", "っ"]);
        assert_eq!(texts("서울"), ["서", "서울", "울"]);
        assert_eq!(texts("ｶﾌｪ"), texts("カフェ"));
    }

    #[cfg(feature = "postgres")]
    #[test]
    fn folded_words_are_the_indexed_words_before_stemming() {
        let decomposed: String = "Crème brûlée in Málaga".nfd().collect();
        assert_eq!(folded_words(&decomposed), "creme brulee in malaga");
        assert_eq!(
            folded_words("新幹線, Straße!"),
            "新 新幹 幹 幹線 線 strasse"
        );
        assert_eq!(folded_words(&"x".repeat(41)), "");
        assert_eq!(folded_words(" ,;— "), "");
    }
}
