//! Chinese word segmentation for the string rule (PROTOCOL §5.3 step 4, §5.4 "jieba").
//!
//! The official checker replaces a string with `" ".join(jieba.cut(s))` (jieba 0.42.1,
//! accurate mode, HMM on, default dictionary). [`JiebaSegmenter`] does this with `jieba-rs`
//! for the dictionary and HMM work, around a driver that follows Python jieba where
//! `jieba-rs` deliberately differs:
//! - blocks are cut with Python's classes (`[\u4E00-\u9FD5a-zA-Z0-9+#&._%-]+`; every
//!   other character is a token of its own, except `"\r\n"`), whereas `jieba-rs` also
//!   treats U+9FD6–U+9FFF and the CJK extensions as block characters;
//! - alphanumeric runs left to the HMM are split with Python's
//!   `[a-zA-Z0-9]+(?:\.\d+)?%?`, whereas `jieba-rs` keeps `2024-06-01`, `N-11`, `a.b` and
//!   `max_words` whole (Python: `2024 - 06 - 01`, `N - 11`, `a . b`, `max _ words`; `3.5`
//!   stays one token in both);
//! - the embedded `jieba-rs` dictionary lacks jieba 0.42.1's `B超 3 n`, which is added back
//!   so the total frequency (and so every route probability) is the same.
//!
//! The native build embeds the default dictionary (cargo feature `jieba-dict`); the
//! WebAssembly build constructs the segmenter from dictionary bytes loaded at run time.
//! [`NoSegmenter`] reports that segmentation is unavailable so a caller can flag the
//! verdict instead of guessing.

use std::io::BufReader;

use thiserror::Error;

/// Why a string could not be segmented.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum SegmentError {
    /// No segmenter (no dictionary) is loaded.
    #[error("segmenter unavailable")]
    Unavailable,
    /// The dictionary could not be loaded.
    #[error("invalid jieba dictionary: {0}")]
    BadDictionary(String),
}

/// Splits a string into words as `jieba.cut(s)` does.
pub trait Segmenter {
    /// The words of `s`, in order; concatenated they give back `s`.
    fn cut(&self, s: &str) -> Result<Vec<String>, SegmentError>;
}

/// jieba word segmentation (accurate mode, HMM on).
pub struct JiebaSegmenter {
    jieba: jieba_rs::Jieba,
}

impl std::fmt::Debug for JiebaSegmenter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("JiebaSegmenter").finish_non_exhaustive()
    }
}

impl JiebaSegmenter {
    /// A segmenter with jieba's default dictionary, embedded in the binary.
    #[cfg(feature = "jieba-dict")]
    pub fn with_default_dict() -> Self {
        Self::with_042_entries(jieba_rs::Jieba::new())
    }

    /// A segmenter from the bytes of a jieba dictionary file (`word freq [tag]` lines),
    /// for builds that load the dictionary at run time. For parity pass jieba 0.42.1's
    /// `dict.txt`; `jieba-rs`'s copy also works, because the one entry it lacks
    /// (`B超 3 n`) is added whenever it is missing.
    pub fn from_dict_bytes(dict: &[u8]) -> Result<Self, SegmentError> {
        let mut reader = BufReader::new(dict);
        let jieba = jieba_rs::Jieba::with_dict(&mut reader)
            .map_err(|e| SegmentError::BadDictionary(e.to_string()))?;
        Ok(Self::with_042_entries(jieba))
    }

    /// Adds the jieba 0.42.1 dictionary entry that `jieba-rs`'s copy lacks.
    fn with_042_entries(mut jieba: jieba_rs::Jieba) -> Self {
        if !jieba.has_word("B超") {
            jieba.add_word("B超", Some(3), Some("n"));
        }
        JiebaSegmenter { jieba }
    }
}

impl Segmenter for JiebaSegmenter {
    fn cut(&self, s: &str) -> Result<Vec<String>, SegmentError> {
        let mut out = Vec::new();
        let mut rest = s;
        while let Some(first) = rest.chars().next() {
            if is_py_block_char(first) {
                let end = rest
                    .char_indices()
                    .find(|&(_, c)| !is_py_block_char(c))
                    .map_or(rest.len(), |(i, _)| i);
                let (block, tail) = rest.split_at(end);
                for token in self.jieba.cut(block, true) {
                    push_python_skip_split(token.word, &self.jieba, &mut out);
                }
                rest = tail;
            } else {
                // Outside blocks: "\r\n" is one token, every other character its own.
                let len = if rest.starts_with("\r\n") {
                    2
                } else {
                    first.len_utf8()
                };
                let (token, tail) = rest.split_at(len);
                out.push(token.to_owned());
                rest = tail;
            }
        }
        Ok(out)
    }
}

/// Python jieba's `re_han_default` class: `[\u4E00-\u9FD5a-zA-Z0-9+#&\._%\-]`.
fn is_py_block_char(c: char) -> bool {
    ('\u{4E00}'..='\u{9FD5}').contains(&c)
        || c.is_ascii_alphanumeric()
        || matches!(c, '+' | '#' | '&' | '.' | '_' | '%' | '-')
}

/// Pushes `word`, split as Python's HMM fallback splits non-Han text
/// (`re_skip = [a-zA-Z0-9]+(?:\.\d+)?%?`, gaps kept) when it is a `jieba-rs` joined
/// alphanumeric run (`a-b`, `2024-06-01`, `x_y`), which Python never produces whole unless
/// it is a dictionary word.
fn push_python_skip_split(word: &str, jieba: &jieba_rs::Jieba, out: &mut Vec<String>) {
    let joined_run = word.bytes().any(|b| matches!(b, b'.' | b'_' | b'-'))
        && word
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-' | b'%'));
    if !joined_run || jieba.has_word(word) {
        out.push(word.to_owned());
        return;
    }
    let bytes = word.as_bytes();
    let run_end = |mut i: usize, pred: fn(&u8) -> bool| {
        while bytes.get(i).is_some_and(pred) {
            i += 1;
        }
        i
    };
    let mut pos = 0;
    while pos < bytes.len() {
        let end = if bytes.get(pos).is_some_and(u8::is_ascii_alphanumeric) {
            let mut end = run_end(pos, u8::is_ascii_alphanumeric);
            if bytes.get(end) == Some(&b'.') && bytes.get(end + 1).is_some_and(u8::is_ascii_digit) {
                end = run_end(end + 1, u8::is_ascii_digit);
            }
            if bytes.get(end) == Some(&b'%') {
                end += 1;
            }
            end
        } else {
            run_end(pos, |b| !b.is_ascii_alphanumeric())
        };
        // All bytes are ASCII, so every index is a char boundary.
        if let Some(piece) = word.get(pos..end) {
            out.push(piece.to_owned());
        }
        pos = end;
    }
}

/// jieba with the embedded default dictionary, built on the first string that needs it.
///
/// Building the dictionary is the most expensive step of a scoring run's set-up, and only
/// strings with Han characters are ever segmented (PROTOCOL §5.3 step 4), so an English
/// file never pays for it. The dictionary is built at most once per value, also when
/// several threads share it.
#[cfg(feature = "jieba-dict")]
#[derive(Default)]
pub struct LazyJieba {
    jieba: std::sync::OnceLock<JiebaSegmenter>,
}

#[cfg(feature = "jieba-dict")]
impl LazyJieba {
    /// A segmenter whose dictionary is not built yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// True once the dictionary has been built.
    pub fn is_built(&self) -> bool {
        self.jieba.get().is_some()
    }
}

#[cfg(feature = "jieba-dict")]
impl std::fmt::Debug for LazyJieba {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LazyJieba")
            .field("built", &self.is_built())
            .finish()
    }
}

#[cfg(feature = "jieba-dict")]
impl Segmenter for LazyJieba {
    fn cut(&self, s: &str) -> Result<Vec<String>, SegmentError> {
        self.jieba
            .get_or_init(JiebaSegmenter::with_default_dict)
            .cut(s)
    }
}

/// A segmenter that is not there: every call fails with [`SegmentError::Unavailable`].
#[derive(Debug, Clone, Copy, Default)]
pub struct NoSegmenter;

impl Segmenter for NoSegmenter {
    fn cut(&self, _s: &str) -> Result<Vec<String>, SegmentError> {
        Err(SegmentError::Unavailable)
    }
}

/// `" ".join(jieba.cut(s))`.
pub fn join_words(seg: &dyn Segmenter, s: &str) -> Result<String, SegmentError> {
    Ok(seg.cut(s)?.join(" "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_segmenter_reports_unavailable() {
        assert_eq!(NoSegmenter.cut("北京"), Err(SegmentError::Unavailable));
        assert_eq!(
            SegmentError::Unavailable.to_string(),
            "segmenter unavailable"
        );
    }

    #[test]
    fn runtime_dictionary_is_used() {
        let seg = JiebaSegmenter::from_dict_bytes("北京 100 ns\n烤鸭 100 n\n".as_bytes());
        let seg = match seg {
            Ok(s) => s,
            Err(e) => panic!("dictionary should load: {e}"),
        };
        assert_eq!(join_words(&seg, "北京烤鸭"), Ok("北京 烤鸭".to_owned()));
    }

    #[test]
    fn bad_dictionary_is_an_error() {
        let r = JiebaSegmenter::from_dict_bytes("北京 notanumber\n".as_bytes());
        assert!(matches!(r, Err(SegmentError::BadDictionary(_))));
    }

    #[cfg(feature = "jieba-dict")]
    #[test]
    fn default_dictionary_segments_like_jieba() {
        let seg = JiebaSegmenter::with_default_dict();
        assert_eq!(join_words(&seg, "北京市"), Ok("北京市".to_owned()));
        assert_eq!(join_words(&seg, "北京"), Ok("北京".to_owned()));
        let words = seg.cut("北京 roast duck 3.5").unwrap_or_default();
        assert_eq!(words, ["北京", " ", "roast", " ", "duck", " ", "3.5"]);
    }

    #[cfg(feature = "jieba-dict")]
    #[test]
    fn lazy_jieba_builds_on_the_first_cut_only() {
        let lazy = LazyJieba::new();
        assert!(!lazy.is_built());
        assert_eq!(
            join_words(&lazy, "北京烤鸭"),
            join_words(&JiebaSegmenter::with_default_dict(), "北京烤鸭")
        );
        assert!(lazy.is_built());
        assert_eq!(join_words(&lazy, "北京市"), Ok("北京市".to_owned()));
    }

    /// Expected tokens are jieba 0.42.1's (`list(jieba.cut(s))`).
    #[cfg(feature = "jieba-dict")]
    #[test]
    fn follows_python_jieba_where_jieba_rs_differs() {
        let seg = JiebaSegmenter::with_default_dict();
        let cut = |s: &str| seg.cut(s).unwrap_or_default();
        assert_eq!(
            cut("日期2024-06-01"),
            ["日期", "2024", "-", "06", "-", "01"]
        );
        assert_eq!(cut("id: N-11"), ["id", ":", " ", "N", "-", "11"]);
        assert_eq!(
            cut("max_words和a.b"),
            ["max", "_", "words", "和", "a", ".", "b"]
        );
        assert_eq!(cut("涨了5.5%"), ["涨", "了", "5.5%"]);
        assert_eq!(cut("\u{3400}\u{3401}中"), ["\u{3400}", "\u{3401}", "中"]);
        assert_eq!(cut("a\r\nb\n\n"), ["a", "\r\n", "b", "\n", "\n"]);
        assert_eq!(cut("做B超"), ["做", "B超"]);
    }
}
