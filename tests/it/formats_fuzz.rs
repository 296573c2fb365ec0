//! Fuzz targets, bounded in time: the command line's line reader over files full of
//! invalid and cut UTF-8 (against an independent reference), the core line splitter
//! under every chunking, and the page's upload parsers (sniffing, checkpoint, run export,
//! report.json, assembly and scoring) on mutated real documents — no panic, no trap,
//! every failure a named error.

use proptest::prelude::*;

use crate::support::read_fixture;
use wildtool::cli::files::{for_each_line, LineReader};
use wildtool_core::checker;
use wildtool_core::dataset::{fingerprint_hex, load_dataset, Lang, LoadedDataset};
use wildtool_core::formats::upload::{checkpoint_results, run_export_results};
use wildtool_core::formats::{check_belongs, sniff, ReportDoc, RunExport, RunMeta};
use wildtool_core::input::lines::{self, LineSplitter};
use wildtool_core::runner::checkpoint::{CheckpointFile, CheckpointHeader};
use wildtool_core::score::{ScoreOptions, Scorer};

/// Pieces lines are made of: text, multi-byte characters, stray continuation bytes,
/// lead bytes without their continuation, invalid bytes, carriage returns, blanks.
fn piece() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        "[a-z{}\":, ]{0,6}".prop_map(String::into_bytes),
        Just("é".as_bytes().to_vec()),
        Just("中文".as_bytes().to_vec()),
        Just("😀".as_bytes().to_vec()),
        Just(vec![0x80]),
        Just(vec![0xE4, 0xB8]),
        Just(vec![0xF0, 0x9F, 0x98]),
        Just(vec![0xFF]),
        Just(vec![0xC0, 0xAF]),
        Just(b"\r".to_vec()),
        Just(b"  ".to_vec()),
    ]
}

fn file_bytes() -> impl Strategy<Value = Vec<u8>> {
    (
        any::<bool>(),
        prop::collection::vec(prop::collection::vec(piece(), 0..6), 0..12),
        any::<bool>(),
    )
        .prop_map(|(bom, lines, trailing)| {
            let mut out = if bom {
                b"\xEF\xBB\xBF".to_vec()
            } else {
                Vec::new()
            };
            for (i, line) in lines.iter().enumerate() {
                if i > 0 {
                    out.push(b'\n');
                }
                for p in line {
                    out.extend_from_slice(p);
                }
            }
            if trailing {
                out.push(b'\n');
            }
            out
        })
}

/// What every non-blank line should give, computed without the code under test.
fn reference(bytes: &[u8]) -> Vec<(usize, Result<String, ()>)> {
    let mut out = Vec::new();
    let parts: Vec<&[u8]> = bytes.split(|&b| b == b'\n').collect();
    for (i, raw) in parts.iter().enumerate() {
        if i + 1 == parts.len() && raw.is_empty() {
            break;
        }
        let mut line = *raw;
        if line.last() == Some(&b'\r') {
            line = &line[..line.len() - 1];
        }
        if i == 0 && line.starts_with(b"\xEF\xBB\xBF") {
            line = &line[3..];
        }
        match std::str::from_utf8(line) {
            Ok(t) if t.trim().is_empty() => {}
            Ok(t) => out.push((i + 1, Ok(t.to_owned()))),
            Err(_) => out.push((i + 1, Err(()))),
        }
    }
    out
}

fn temp_file(bytes: &[u8]) -> std::path::PathBuf {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static N: AtomicUsize = AtomicUsize::new(0);
    let path = std::env::temp_dir().join(format!(
        "wildtool-linefuzz-{}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    ));
    std::fs::write(&path, bytes).expect("write");
    path
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// The CLI's line reader: every non-blank line once, by number; valid lines with their
    /// exact text (re-readable by span); damaged lines as errors naming that line only.
    #[test]
    fn cli_line_reader_costs_a_damaged_line_only(bytes in file_bytes()) {
        let path = temp_file(&bytes);
        let mut seen: Vec<(usize, Result<String, ()>)> = Vec::new();
        let mut spans = Vec::new();
        for_each_line(&path, |span, text| {
            match text {
                Ok(t) => {
                    spans.push((span, t.to_owned()));
                    seen.push((span.number, Ok(t.to_owned())));
                }
                Err(e) => {
                    assert_eq!(e.line(), span.number);
                    seen.push((span.number, Err(())));
                }
            }
        }).expect("reads");
        let mut reader = LineReader::open(&path).expect("opens");
        for (span, text) in spans {
            let again = reader.read(span).expect("io").expect("still valid");
            prop_assert_eq!(again, text);
        }
        let _ = std::fs::remove_file(&path);
        prop_assert_eq!(seen, reference(&bytes));
    }

    /// The core splitter gives the same lines under any chunking, and the same as `split`.
    #[test]
    fn splitter_is_independent_of_chunking(bytes in file_bytes(), size in 1usize..9, limit in 1usize..40) {
        let whole: Vec<_> = lines::split_with_limit(&bytes, limit)
            .map(|(s, t)| (s, t.map(|t| t.map(str::to_owned))))
            .collect();
        let mut chunked = Vec::new();
        let mut splitter = LineSplitter::with_limit(limit);
        let mut visit = |span: lines::LineSpan, r: Result<&[u8], lines::LineError>| {
            chunked.push((span, r.and_then(|b| lines::decode(&span, b).map(|t| t.map(str::to_owned)))));
        };
        for c in bytes.chunks(size) {
            splitter.push(c, &mut visit);
        }
        splitter.finish(&mut visit);
        prop_assert_eq!(chunked, whole);
    }
}

struct Seeds {
    dataset: LoadedDataset,
    fp: String,
    docs: Vec<Vec<u8>>,
}

fn seeds() -> &'static Seeds {
    static SEEDS: std::sync::OnceLock<Seeds> = std::sync::OnceLock::new();
    SEEDS.get_or_init(|| {
        let text = read_fixture("mini.jsonl");
        let fp = fingerprint_hex(&text);
        let result = read_fixture("official-runs/mock-seed-0/mini_result.jsonl");
        // A small checkpoint (two sessions) keeps each case fast.
        let mut checkpoint = CheckpointHeader::new("m", &fp).to_line() + "\n";
        let mut records = Vec::new();
        for line in result.lines().take(2) {
            let v: serde_json::Value = serde_json::from_str(line).expect("line");
            let id = v["id"].as_str().unwrap_or_default().to_owned();
            let index: usize = id.rsplit('_').next().and_then(|n| n.parse().ok()).unwrap_or(0);
            for (task, r) in v["result"].as_array().into_iter().flatten().enumerate() {
                let rec = serde_json::json!({"id": id, "line": index, "task": task, "result": r}).to_string();
                checkpoint.push_str(&rec);
                checkpoint.push('\n');
                records.push(rec);
            }
        }
        let mut v2 = RunExport::new(RunMeta::new("l", "m", &fp), Default::default());
        v2.records = Some(records);
        let v1 = serde_json::json!({
            "wildtool_run": 1, "scorer": "s", "model": "m", "label": "l",
            "dataset_fingerprint": fp, "settings": {"provider": "openai", "temperature": 0},
            "records": null, "result_jsonl": result.lines().take(1).collect::<String>(), "outcomes": [],
        });
        let report = serde_json::json!({
            "wildtool_report": 2, "model_name": "m", "dataset": {"fingerprint": fp},
            "tasks": [{"session": 0, "position": 0, "task_type": "Single-Tool", "subtype": null,
                       "transitions": 0, "correct": true, "name_correct": true, "optimal": true,
                       "steps_logged": 1, "nodes_total": 1, "nodes_done": 1, "error": null,
                       "incomplete": false}],
        });
        Seeds {
            dataset: load_dataset(&text, Lang::En),
            fp,
            docs: vec![
                checkpoint.into_bytes(),
                v2.to_json().into_bytes(),
                v1.to_string().into_bytes(),
                report.to_string().into_bytes(),
                result.lines().nth(2).unwrap_or_default().as_bytes().to_vec(),
            ],
        }
    })
}

#[derive(Debug, Clone)]
enum Edit {
    Flip(usize, u8),
    Insert(usize, Vec<u8>),
    Cut(usize),
    Swap(usize, usize),
}

fn edit() -> impl Strategy<Value = Edit> {
    prop_oneof![
        (any::<usize>(), any::<u8>()).prop_map(|(a, b)| Edit::Flip(a, b)),
        (
            any::<usize>(),
            prop_oneof![
                Just(b"null".to_vec()),
                Just(b"42".to_vec()),
                Just(b"\"x\"".to_vec()),
                Just(b"[".to_vec()),
                Just(b"{".to_vec()),
                Just(b"\n".to_vec()),
                Just(vec![0xFF]),
                Just(vec![0xE4, 0xB8]),
                Just(b"\"wildtool_run\": 2,".to_vec()),
                Just(b"\"wildtool_checkpoint\": 1,".to_vec()),
            ]
        )
            .prop_map(|(a, b)| Edit::Insert(a, b)),
        any::<usize>().prop_map(Edit::Cut),
        (any::<usize>(), any::<usize>()).prop_map(|(a, b)| Edit::Swap(a, b)),
    ]
}

fn apply(doc: &mut Vec<u8>, e: &Edit) {
    let n = doc.len().max(1);
    match e {
        Edit::Flip(at, b) => {
            if let Some(x) = doc.get_mut(at % n) {
                *x = *b;
            }
        }
        Edit::Insert(at, bytes) => {
            let at = (at % n).min(doc.len());
            doc.splice(at..at, bytes.iter().copied());
        }
        Edit::Cut(at) => doc.truncate(at % n),
        Edit::Swap(a, b) => {
            let (a, b) = (a % n, b % n);
            if a < doc.len() && b < doc.len() {
                doc.swap(a, b);
            }
        }
    }
}

/// Everything the page does with an upload, in the order it does it.
fn process_upload(bytes: &[u8]) -> Result<(), String> {
    let s = seeds();
    let kind = sniff(&bytes[..bytes.len().min(65_536)], bytes.len() as u64);
    let _ = kind.message();
    let text = match kind.name() {
        "checkpoint" => {
            let file = CheckpointFile::parse(bytes).map_err(|e| e.to_string())?;
            checkpoint_results(&file, &s.dataset, &s.fp)
                .map_err(|e| e.to_string())?
                .text
        }
        "run_export" => {
            let doc = RunExport::parse(bytes).map_err(|e| e.to_string())?;
            run_export_results(&doc, &s.dataset, &s.fp).map_err(|e| e.to_string())?
        }
        "report" => {
            ReportDoc::parse(bytes).map_err(|e| e.to_string())?;
            return Ok(());
        }
        _ => String::from_utf8_lossy(bytes).into_owned(),
    };
    let check = |_: &wildtool_core::json::Value,
                 _: &str,
                 _: &wildtool_core::json::Value,
                 _: &str| { "correct".to_owned() };
    let mut scorer = Scorer::new(&s.dataset, &check, ScoreOptions::default());
    for (span, line) in lines::split(text.as_bytes()) {
        match line {
            Ok(Some(t)) => {
                let _ = scorer.score_line(span.number, t);
            }
            Ok(None) => {}
            Err(e) => scorer.skip(e.into()),
        }
    }
    let _ = check_belongs(&scorer.final_stats());
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    /// Mutated uploads never panic; a refused one always says why.
    #[test]
    fn upload_parsers_never_panic(which in 0usize..5, edits in prop::collection::vec(edit(), 1..6)) {
        let mut doc = seeds().docs[which].clone();
        for e in &edits {
            apply(&mut doc, e);
        }
        if let Err(message) = process_upload(&doc) {
            prop_assert!(!message.is_empty());
        }
    }

    /// Arbitrary bytes: sniffing and the document readers return, with a kind or an error.
    #[test]
    fn arbitrary_bytes_are_classified(bytes in prop::collection::vec(any::<u8>(), 0..300)) {
        let _ = process_upload(&bytes);
        let _ = CheckpointFile::parse(&bytes);
        let _ = RunExport::parse(&bytes);
        let _ = ReportDoc::parse(&bytes);
    }
}

#[test]
fn unmutated_seeds_are_accepted() {
    for doc in &seeds().docs {
        process_upload(doc).expect("a clean upload is read");
    }
    let _ = checker::default_segmenter();
}
