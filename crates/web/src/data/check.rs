//! Is an arriving dataset one? The same sniffing as Offline scoring (`formats::sniff`),
//! read for a dataset: a result file, a checkpoint, a run export, a score or metric file,
//! a CSV, binary data or an empty file is refused with its reason, and so is a file from
//! which no task can be read. A refused dataset leaves the loaded one in place.

use wildtool_core::formats::sniff::{sniff, FileKind};

use crate::data::Loaded;

/// Why `text` is not a dataset, before it is parsed (`None`: parse it).
pub fn refusal(text: &str) -> Option<String> {
    let kind = sniff(text.as_bytes(), text.len() as u64);
    let why = match kind {
        FileKind::Dataset | FileKind::Other { .. } => return None,
        FileKind::Empty => "the file is empty",
        FileKind::Results | FileKind::Checkpoint | FileKind::RunExport { .. } => {
            "this is a result file, not a dataset: score it in Offline scoring"
        }
        FileKind::Csv => "this is a CSV file, not JSON Lines",
        FileKind::Binary => "this is binary data, not text",
        _ => "this is a scorer's output, not a dataset",
    };
    Some(why.to_owned())
}

/// Why a parsed dataset cannot be run (`None`: it has a task to run).
pub fn unrunnable(d: &Loaded) -> Option<String> {
    if d.tasks > 0 {
        return None;
    }
    Some(match d.dataset.errors().next() {
        Some(p) => format!(
            "no task could be read from it ({} error(s); first: {p})",
            d.error_count()
        ),
        None => "no task could be read".to_owned(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_is_not_a_dataset_is_refused_with_a_reason() {
        let results = r#"{"id": "wild_tool_bench_0", "model_name": "m", "result": []}"#;
        assert!(refusal(results).unwrap().contains("Offline scoring"));
        assert!(refusal("a,b,c\n1,2,3\n").unwrap().contains("CSV"));
        assert!(refusal("").unwrap().contains("empty"));
        assert!(refusal("\u{0}\u{1}binary").unwrap().contains("binary"));
        let suite = include_str!("../../../../tests/fixtures/mini.jsonl");
        assert_eq!(refusal(suite), None);
        let d = crate::data::load(
            suite,
            crate::data::DatasetSource::Bundled,
            wildtool_core::dataset::Lang::En,
        );
        assert_eq!(unrunnable(d), None);
        let d = crate::data::load(
            "not json\n",
            crate::data::DatasetSource::Bundled,
            wildtool_core::dataset::Lang::En,
        );
        assert!(unrunnable(d)
            .unwrap()
            .starts_with("no task could be read from it (1 error(s); first: line 1"));
    }
}
