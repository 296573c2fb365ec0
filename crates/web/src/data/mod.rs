//! A dataset loaded into the page: the core's parsed sessions with their validation
//! problems, fingerprint and task shapes, and its lazily installed Chinese segmenter.
//!
//! A loaded dataset lives for the rest of the page's life (`Box::leak`), so that the run
//! engine, scorers and views can borrow its sessions without reference counting. A page
//! loads a handful of datasets at most, so the cost is bounded by what the user chose.

pub mod check;

use std::cell::RefCell;

use serde::Serialize;

use wildtool_core::checker::{NoSegmenter, SegmentError, Segmenter};
use wildtool_core::dataset::{fingerprint_hex, load_dataset, Lang, LoadedDataset, Session};
use wildtool_core::share::{task_shapes, TaskShape};

/// The official data file's address (the "Official data" button and `dataset=official`).
pub const OFFICIAL_DATA: &str = "https://raw.githubusercontent.com/yupeijei1997/WildToolBench/main/wild-tool-bench/data/Wild-Tool-Bench.jsonl";
/// Where the bundled suite is served, relative to the page.
pub const BUNDLED_DATA: &str = "./data/suite.jsonl";
/// Where the published leaderboard is served, relative to the page.
pub const LEADERBOARD_DATA: &str = "./data/paper-leaderboard.json";
/// Where the list of official datasets (the leaderboard's data) is served.
pub const OFFICIAL_DATASETS: &str = "./data/official-datasets.json";

/// Where a dataset came from (kept with every run so it can be loaded again).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum DatasetSource {
    /// The bundled suite.
    Bundled,
    /// Fetched from a URL.
    Url {
        /// The address.
        url: String,
    },
    /// A file the user chose.
    Upload {
        /// Its name.
        name: String,
    },
    /// A suite generated in the page (generated again from its spec when needed).
    Generated {
        /// The canonical spec (`seed=S,sessions=N,name=value,…`).
        spec: String,
    },
}

impl DatasetSource {
    /// Reads the stored form (`{"kind": "bundled" | "url" | "upload" | "generated", "url"?,
    /// "name"?, "spec"?}`).
    pub fn from_value(v: &serde_json::Value) -> Option<DatasetSource> {
        let field = |k: &str| v.get(k).and_then(|x| x.as_str()).map(str::to_owned);
        match v.get("kind")?.as_str()? {
            "bundled" => Some(DatasetSource::Bundled),
            "url" => Some(DatasetSource::Url { url: field("url")? }),
            "upload" => Some(DatasetSource::Upload {
                name: field("name")?,
            }),
            "generated" => Some(DatasetSource::Generated {
                spec: field("spec")?,
            }),
            _ => None,
        }
    }

    /// A short name for the user.
    pub fn display(&self) -> String {
        match self {
            DatasetSource::Bundled => "the bundled suite".to_owned(),
            DatasetSource::Url { url } if url == OFFICIAL_DATA => "the official data".to_owned(),
            DatasetSource::Url { url } => url.clone(),
            DatasetSource::Upload { name } => name.clone(),
            DatasetSource::Generated { spec } => format!("the generated suite {spec}"),
        }
    }

    /// The address to fetch it from again, when it can be fetched.
    pub fn url(&self) -> Option<&str> {
        match self {
            DatasetSource::Bundled => Some(BUNDLED_DATA),
            DatasetSource::Url { url } => Some(url),
            DatasetSource::Upload { .. } | DatasetSource::Generated { .. } => None,
        }
    }
}

/// The segmenter the checker uses for Chinese strings: empty until the page installs
/// jieba (a separate module loaded with its dictionary only when needed); until then
/// segmenting fails as with [`NoSegmenter`].
#[derive(Default)]
pub struct LazySegmenter {
    cut: RefCell<Option<CutFn>>,
}

/// A segmentation function (`None` when it failed).
pub type CutFn = Box<dyn Fn(&str) -> Option<Vec<String>>>;

/// A segmentation function shared by every dataset of the page.
pub type SharedCut = std::rc::Rc<dyn Fn(&str) -> Option<Vec<String>>>;

impl LazySegmenter {
    /// Installs the segmentation function.
    pub fn install(&self, cut: CutFn) {
        *self.cut.borrow_mut() = Some(cut);
    }

    /// True once a segmenter is installed.
    pub fn ready(&self) -> bool {
        self.cut.borrow().is_some()
    }
}

impl Segmenter for LazySegmenter {
    fn cut(&self, s: &str) -> Result<Vec<String>, SegmentError> {
        let guard = self.cut.borrow();
        match guard.as_ref() {
            Some(cut) => cut(s).ok_or(SegmentError::Unavailable),
            None => NoSegmenter.cut(s),
        }
    }
}

/// A loaded dataset.
pub struct Loaded {
    /// Sessions and problems.
    pub dataset: LoadedDataset,
    /// FNV fingerprint, 16 hex digits.
    pub fingerprint: String,
    /// Where it came from.
    pub source: DatasetSource,
    /// Its language.
    pub lang: Lang,
    /// The Chinese segmenter, once the page has loaded jieba (the lab module, which
    /// scores, is handed the same one).
    pub segmenter: &'static LazySegmenter,
    /// Task shapes (share links), in dataset order.
    pub shapes: Vec<TaskShape>,
    /// Tasks in the dataset.
    pub tasks: usize,
    /// Git blob id of the text (recognises the official dataset).
    pub git_blob: String,
    /// The text (verification re-scores against it).
    pub text: String,
}

/// A dataset shared for the page's life.
pub type Dataset = &'static Loaded;

/// True when `text` holds a character jieba's check looks for (U+4E00–U+9FA5).
pub fn has_cjk(text: &str) -> bool {
    text.chars().any(|c| ('\u{4e00}'..='\u{9fa5}').contains(&c))
}

/// The language named in a link or the setup form (`zh`, else English).
pub fn lang_of(name: &str) -> Lang {
    if name == "zh" {
        Lang::Zh
    } else {
        Lang::En
    }
}

/// The name of a language for links and forms.
pub fn lang_name(lang: Lang) -> &'static str {
    match lang {
        Lang::Zh => "zh",
        Lang::En => "en",
    }
}

/// Parses and validates `text` and keeps it for the page's life.
pub fn load(text: &str, source: DatasetSource, lang: Lang) -> Dataset {
    let dataset = load_dataset(text, lang);
    let shapes = task_shapes(&dataset);
    let segmenter: &'static LazySegmenter = Box::leak(Box::default());
    let loaded = Loaded {
        fingerprint: fingerprint_hex(text),
        git_blob: wildtool_core::compare::leaderboard::git_blob_id(text.as_bytes()),
        tasks: shapes.len(),
        text: text.to_owned(),
        source,
        lang,
        segmenter,
        shapes,
        dataset,
    };
    Box::leak(Box::new(loaded))
}

impl Loaded {
    /// The session at dataset index `index`.
    pub fn session(&self, index: usize) -> Option<&Session> {
        self.dataset.session_at(index)
    }

    /// Errors among the validation problems.
    pub fn error_count(&self) -> usize {
        self.dataset.errors().count()
    }

    /// Warnings among the validation problems.
    pub fn warning_count(&self) -> usize {
        self.dataset.warnings().count()
    }

    /// The fingerprint as a number (share links).
    pub fn fingerprint_u64(&self) -> u64 {
        u64::from_str_radix(&self.fingerprint, 16).unwrap_or(0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_loaded_dataset_has_shapes_and_a_fingerprint() {
        let text = include_str!("../../../../tests/fixtures/mini.jsonl");
        let d = load(text, DatasetSource::Bundled, Lang::En);
        assert_eq!(d.dataset.sessions.len(), 8);
        assert_eq!(d.tasks, d.shapes.len());
        assert_eq!(d.fingerprint.len(), 16);
        assert_eq!(
            d.fingerprint_u64(),
            u64::from_str_radix(&d.fingerprint, 16).unwrap()
        );
        assert!(!d.segmenter.ready());
        d.segmenter
            .install(Box::new(|s| Some(s.chars().map(String::from).collect())));
        assert_eq!(d.segmenter.cut("ab").unwrap(), vec!["a", "b"]);
    }
}
