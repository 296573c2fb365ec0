//! Chinese word segmentation for the string rule (PROTOCOL §5.3 step 4, §5.4 "jieba").
//!
//! The official checker replaces a string with `" ".join(jieba.cut(s))` (jieba 0.42.1,
//! accurate mode, HMM on, default dictionary). [`JiebaSegmenter`] does this with `jieba-rs`.
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
        JiebaSegmenter {
            jieba: jieba_rs::Jieba::new(),
        }
    }

    /// A segmenter from the bytes of a jieba dictionary file (`word freq [tag]` lines,
    /// such as jieba's `dict.txt`), for builds that load the dictionary at run time.
    pub fn from_dict_bytes(dict: &[u8]) -> Result<Self, SegmentError> {
        let mut reader = BufReader::new(dict);
        let jieba = jieba_rs::Jieba::with_dict(&mut reader)
            .map_err(|e| SegmentError::BadDictionary(e.to_string()))?;
        Ok(JiebaSegmenter { jieba })
    }
}

impl Segmenter for JiebaSegmenter {
    fn cut(&self, s: &str) -> Result<Vec<String>, SegmentError> {
        Ok(self
            .jieba
            .cut(s, true)
            .into_iter()
            .map(|token| token.word.to_owned())
            .collect())
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
        assert_eq!(SegmentError::Unavailable.to_string(), "segmenter unavailable");
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
        assert_eq!(words.concat(), "北京 roast duck 3.5");
        assert!(words.iter().any(|w| w == "3.5"), "{words:?}");
    }
}
