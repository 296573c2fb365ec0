//! `wildtool score`: offline scoring of an official-format result file.

use std::fs;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use wildtool_core::checker;
use wildtool_core::dataset::{fingerprint_hex, Lang, LoadedDataset};
use wildtool_core::outcome::TaskOutcome;
use wildtool_core::report::summary::summary_table;
use wildtool_core::report::RunReport;
use wildtool_core::score::{OfficialChecker, ScoreOptions, ScoreStats, Scorer};

use super::files::{at, for_each_line, read_text, FileError, LineReader, LineSpan};

/// Arguments of `wildtool score`.
#[derive(Debug)]
pub struct ScoreArgs {
    /// Dataset path.
    pub dataset: PathBuf,
    /// Result file path.
    pub results: PathBuf,
    /// Output directory.
    pub out: PathBuf,
    /// Dataset language.
    pub lang: Lang,
    /// metric.json model name override.
    pub model_name: Option<String>,
    /// Candidate cap.
    pub candidate_cap: usize,
}

/// The sort key of a result line: the integer after the last `_` of its id. It is read
/// cheaply from the official line prefix (`{"id": "wild_tool_bench_N"`) and otherwise by
/// parsing the line; lines without a usable id sort last and are reported when scored.
fn sort_index(line: &str) -> usize {
    let suffix = |id: &str| id.rsplit('_').next().and_then(|n| n.parse::<usize>().ok());
    if let Some(rest) = line.strip_prefix("{\"id\": \"") {
        if let Some(index) = rest.split('"').next().and_then(suffix) {
            return index;
        }
    }
    wildtool_core::json::loads(line)
        .ok()
        .and_then(|v| v.get("id").and_then(|id| id.as_str()).and_then(suffix))
        .unwrap_or(usize::MAX)
}

/// The dataset a report is about.
struct DatasetInfo<'a> {
    path: &'a Path,
    text: &'a str,
    loaded: &'a LoadedDataset,
}

/// Writes `report.json`: wildtool's own results, next to the parity files.
fn write_report_json(
    path: &Path,
    model: &str,
    dataset: &DatasetInfo<'_>,
    report: &RunReport,
    stats: &ScoreStats,
    outcomes: &[TaskOutcome],
) -> Result<(), FileError> {
    let (dataset_path, dataset_text, loaded) = (dataset.path, dataset.text, dataset.loaded);
    let failed: Vec<serde_json::Value> = outcomes
        .iter()
        .filter(|o| !o.correct)
        .map(|o| {
            serde_json::json!({
                "session": o.session,
                "task": o.position,
                "raw_label": o.error.map(|e| e.as_str()),
                "column": o.error.map(|e| e.default_column().as_str()),
                "incomplete": o.incomplete,
            })
        })
        .collect();
    let doc = serde_json::json!({
        "wildtool_version": env!("CARGO_PKG_VERSION"),
        "scorer": wildtool_core::SCORER_VERSION,
        "model_name": model,
        "dataset": {
            "file": dataset_path.file_name().map(|n| n.to_string_lossy().into_owned()),
            "fingerprint": fingerprint_hex(dataset_text),
            "sessions": loaded.line_count,
            "problems": loaded.problems.len(),
        },
        "report": report,
        "scoring": stats,
        "official_crash_fallbacks": stats
            .official_crashes
            .keys()
            .map(|code| (code.clone(), wildtool_core::protocol::fallback_of(code).unwrap_or("see PROTOCOL §6")))
            .collect::<std::collections::BTreeMap<_, _>>(),
        "failed_tasks": failed,
        "tasks": outcomes,
        "notes": [
            "Parity files are score.jsonl and metric.json; everything here is wildtool's own.",
            "Error columns use the mapping named in report.errors.mapping (PROTOCOL §8).",
            "scoring.official_crashes counts inputs on which the official code would have crashed (PROTOCOL §6); wildtool applied the documented fallback instead."
        ],
    });
    let text =
        serde_json::to_string_pretty(&doc).unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"));
    fs::write(path, text + "\n").map_err(at(path))
}

/// Runs `wildtool score`.
pub fn score(args: &ScoreArgs) -> Result<ExitCode, FileError> {
    let dataset_text = read_text(&args.dataset)?;
    let loaded = wildtool_core::protocol::load_checked(&dataset_text, args.lang);
    let errors = loaded.errors().count();
    if errors > 0 {
        eprintln!(
            "warning: dataset {} has {errors} error(s) (run `wildtool validate`); scoring applies the PROTOCOL §6 fallbacks",
            args.dataset.display()
        );
    }
    fs::create_dir_all(&args.out).map_err(at(&args.out))?;

    // Pass 1: line spans and sort keys only, so a huge file is never held in memory.
    let mut spans: Vec<(usize, LineSpan)> = Vec::new();
    for_each_line(&args.results, |span, text| {
        spans.push((sort_index(text), span))
    })?;
    spans.sort_by_key(|(index, span)| (*index, span.line));

    let segmenter = checker::default_segmenter();
    let check = OfficialChecker::new(segmenter.as_ref());
    let mut scorer = Scorer::new(
        &loaded,
        &check,
        ScoreOptions {
            candidate_cap: args.candidate_cap,
        },
    );
    let score_path = args.out.join("score.jsonl");
    let file = fs::File::create(&score_path).map_err(at(&score_path))?;
    let mut writer = BufWriter::new(file);
    let mut reader = LineReader::open(&args.results)?;
    let mut outcomes = Vec::new();
    // Pass 2: score in id order (the official score file is sorted by id).
    let mut first = true;
    for (_, span) in &spans {
        let text = reader.read(*span)?;
        match scorer.score_line(span.line, &text) {
            Ok(line) => {
                outcomes.extend(line.outcomes);
                if !first {
                    writer.write_all(b"\n").map_err(at(&score_path))?;
                }
                writer
                    .write_all(line.score_line.as_bytes())
                    .map_err(at(&score_path))?;
                first = false;
            }
            Err(e) => eprintln!("warning: {e} (skipped)"),
        }
    }
    writer.flush().map_err(at(&score_path))?;

    let model = args
        .model_name
        .clone()
        .or_else(|| scorer.model_name().map(str::to_owned))
        .unwrap_or_else(|| "unknown-model".to_owned());
    let metric_path = args.out.join("metric.json");
    fs::write(&metric_path, scorer.metric_json(&model)).map_err(at(&metric_path))?;
    let report = RunReport::from_outcomes(&outcomes);
    write_report_json(
        &args.out.join("report.json"),
        &model,
        &DatasetInfo {
            path: &args.dataset,
            text: &dataset_text,
            loaded: &loaded,
        },
        &report,
        &scorer.final_stats(),
        &outcomes,
    )?;
    print!("{}", summary_table(&model, &report));
    let stats = scorer.final_stats();
    if stats.label_disagreements > 0 {
        println!("  note: {} task(s) had recorded labels that differ from the official decision; the official decision was used", stats.label_disagreements);
    }
    if !stats.official_crashes.is_empty() {
        println!(
            "  note: the official code would have crashed on: {:?}",
            stats.official_crashes
        );
    }
    if !stats.skipped.is_empty() {
        println!(
            "  note: {} result line(s) could not be scored (see warnings above)",
            stats.skipped.len()
        );
    }
    println!(
        "wrote {}, {}, {}",
        score_path.display(),
        metric_path.display(),
        args.out.join("report.json").display()
    );
    Ok(ExitCode::SUCCESS)
}
