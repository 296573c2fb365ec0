//! `wildtool audit`: which dataset tasks look wrong, read from several runs of one dataset.
//! The runs are read as `compare` reads them; the statistics and both documents are the
//! core's (`audit`).

use std::path::{Path, PathBuf};

use wildtool_core::audit::{audit, failures, AuditRun, Failures};
use wildtool_core::checker;
use wildtool_core::dataset::{Lang, LoadedDataset};
use wildtool_core::score::{OfficialChecker, ScoreOptions, Scorer};

use super::compare_cmd::{load_runs, trial_dirs, CompareArgs, CompareCmdError};
use super::files::{for_each_line, read_text};

/// Arguments of `wildtool audit`.
#[derive(Debug)]
pub struct AuditArgs {
    /// Runs, as `compare` takes them.
    pub runs: Vec<PathBuf>,
    /// The dataset every run was scored on.
    pub dataset: PathBuf,
    /// Write `audit.json` here.
    pub json: Option<PathBuf>,
    /// Write the Markdown report here.
    pub md: Option<PathBuf>,
    /// Labels replacing the runs' model names, in run order.
    pub labels: Vec<String>,
    /// Dataset language.
    pub lang: Lang,
    /// Candidate cap (for result files scored here).
    pub candidate_cap: usize,
    /// Items listed on the terminal.
    pub top: usize,
}

fn usage(msg: String) -> CompareCmdError {
    CompareCmdError::Usage(msg)
}

/// A result file's score lines, scored here (as `compare` scores it).
fn scored_text(path: &Path, loaded: &LoadedDataset, cap: usize) -> Result<String, CompareCmdError> {
    let segmenter = checker::default_segmenter();
    let check = OfficialChecker::new(segmenter.as_ref());
    let mut scorer = Scorer::new(loaded, &check, ScoreOptions { candidate_cap: cap });
    let mut text = String::new();
    for_each_line(path, |span, line| {
        if let Ok(line) = line {
            if let Ok(scored) = scorer.score_line(span.number, line) {
                text.push_str(&scored.score_line);
                text.push('\n');
            }
        }
    })?;
    Ok(text)
}

/// One trial's failure details: its directory's `score.jsonl`, else its result file
/// scored here; a `report.json` has none.
fn trial_failures(
    path: &Path,
    loaded: &LoadedDataset,
    cap: usize,
) -> Result<Failures, CompareCmdError> {
    if path.is_dir() {
        let score = path.join("score.jsonl");
        if score.is_file() {
            return Ok(failures(&read_text(&score)?));
        }
        let results = path.join("result.jsonl");
        if results.is_file() {
            return Ok(failures(&scored_text(&results, loaded, cap)?));
        }
        return Ok(Failures::new());
    }
    if path.extension().is_some_and(|e| e == "json") {
        return Ok(Failures::new());
    }
    Ok(failures(&scored_text(path, loaded, cap)?))
}

/// Runs `wildtool audit`.
pub fn audit_cmd(args: &AuditArgs) -> Result<(), CompareCmdError> {
    let reading = CompareArgs {
        labels: args.labels.clone(),
        ..CompareArgs::reading(
            args.runs.clone(),
            &args.dataset,
            args.lang,
            args.candidate_cap,
        )
    };
    let loaded_runs = load_runs(&reading)?;
    if loaded_runs.env || loaded_runs.own.iter().any(|o| *o) {
        return Err(usage(
            "the audit reads official runs; ledger-environment and own-history runs (wildtool extensions) are not audited with them".to_owned(),
        ));
    }
    let dataset_text = read_text(&args.dataset)?;
    let loaded = wildtool_core::protocol::load_checked(&dataset_text, args.lang);
    let mut runs = Vec::with_capacity(loaded_runs.runs.len());
    for (run, path) in loaded_runs.runs.iter().zip(&args.runs) {
        let trials = trial_dirs(path)?;
        let paths = if trials.is_empty() {
            vec![path.clone()]
        } else {
            trials
        };
        let mut details = Vec::with_capacity(paths.len());
        for p in &paths {
            details.push(trial_failures(p, &loaded, args.candidate_cap)?);
        }
        let failures = if details.iter().all(Failures::is_empty) {
            Vec::new()
        } else {
            details
        };
        runs.push(AuditRun {
            label: run.label.clone(),
            trials: run.trials.clone(),
            failures,
        });
    }
    let doc = audit(&runs, &loaded_runs.shapes, loaded_runs.fingerprint)
        .map_err(|e| usage(e.to_string()))?;
    let mut inputs: Vec<&Path> = args.runs.iter().map(PathBuf::as_path).collect();
    inputs.push(&args.dataset);
    if let Some(path) = &args.json {
        super::commit::write_file(path, doc.to_json() + "\n", &inputs)?;
        eprintln!("wrote {}", path.display());
    }
    if let Some(path) = &args.md {
        let name = args
            .dataset
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        super::commit::write_file(path, doc.markdown(&name), &inputs)?;
        eprintln!("wrote {}", path.display());
    }
    print!("{}", doc.text(args.top));
    Ok(())
}
