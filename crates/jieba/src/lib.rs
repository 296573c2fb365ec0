//! jieba word segmentation for the wildtool page, in its own WebAssembly module so the app
//! shell does not carry jieba's HMM tables; the page loads it together with the dictionary
//! the first time a Chinese string must be segmented. It runs the engine's own
//! [`wildtool_core::checker::JiebaSegmenter`], so the words are exactly the CLI's.
#![cfg(target_arch = "wasm32")]
#![forbid(unsafe_code)]

use wasm_bindgen::prelude::*;
use wildtool_core::checker::{JiebaSegmenter, Segmenter as _};

/// A segmenter built from a jieba dictionary file.
#[wasm_bindgen]
pub struct Segmenter {
    inner: JiebaSegmenter,
}

#[wasm_bindgen]
impl Segmenter {
    /// Builds the segmenter from the bytes of `dict.txt`.
    #[wasm_bindgen(constructor)]
    pub fn new(dict: &[u8]) -> Result<Segmenter, JsError> {
        JiebaSegmenter::from_dict_bytes(dict)
            .map(|inner| Segmenter { inner })
            .map_err(|e| JsError::new(&e.to_string()))
    }

    /// The words of `text` as `jieba.cut(text)` gives them.
    pub fn cut(&self, text: &str) -> Result<js_sys::Array, JsError> {
        let words = self
            .inner
            .cut(text)
            .map_err(|e| JsError::new(&e.to_string()))?;
        Ok(words.iter().map(|w| JsValue::from_str(w)).collect())
    }
}
