//! `--junit FILE` and `--summary-md FILE`: the core's JUnit and Markdown builders fed from
//! run directories (report.json outcomes, score.jsonl failure details), written all or
//! nothing.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use wildtool_core::ci::junit::{details, junit_xml, run_suite, Details, Suite};
use wildtool_core::formats::ReportDoc;
use wildtool_core::outcome::TaskOutcome;
use wildtool_core::share::TaskShape;

use super::files::{write_file, FileError};

/// Where to write the CI outputs.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct CiOpts {
    /// Write JUnit XML here: one test case per task (class = session, name = task number
    /// and type; failures carry the error class and the first differing argument; unscored
    /// tasks are skipped, flaky ones with trials marked), and the gate as one more case.
    #[arg(long)]
    pub junit: Option<PathBuf>,
    /// Write a Markdown summary here (headline, the gate's verdict, the biggest
    /// per-category changes), for a pull-request comment.
    #[arg(long)]
    pub summary_md: Option<PathBuf>,
}

/// A run's trial directories read for its suite: outcomes, failure details, cost.
pub struct DirRun {
    /// Per trial outcomes.
    pub trials: Vec<Vec<TaskOutcome>>,
    /// Per trial failure details.
    pub details: Vec<Details>,
    /// The first trial's report.
    pub report: Option<ReportDoc>,
}

/// Reads `dir/report.json` and `dir/score.jsonl` of each trial directory (missing files
/// give an unscored trial and no details).
pub fn read_dirs(dirs: &[PathBuf]) -> DirRun {
    let mut run = DirRun {
        trials: Vec::new(),
        details: Vec::new(),
        report: None,
    };
    for dir in dirs {
        let report = std::fs::read(dir.join("report.json"))
            .ok()
            .and_then(|b| ReportDoc::parse(&b).ok());
        run.trials
            .push(report.as_ref().map(|r| r.tasks.clone()).unwrap_or_default());
        if run.report.is_none() {
            run.report = report;
        }
        run.details.push(
            std::fs::read_to_string(dir.join("score.jsonl"))
                .map(|t| details(&t))
                .unwrap_or_default(),
        );
    }
    run
}

/// Writes the JUnit file and the summary of a run scored into `dirs` (one per trial).
pub fn write_run_outputs(
    opts: &CiOpts,
    label: &str,
    shapes: &[TaskShape],
    dirs: &[PathBuf],
    reasons: &BTreeMap<(u32, u8), String>,
    inputs: &[&Path],
) -> Result<(), FileError> {
    if opts.junit.is_none() && opts.summary_md.is_none() {
        return Ok(());
    }
    let run = read_dirs(dirs);
    if let Some(path) = &opts.junit {
        write_junit(path, &[dir_suite(label, shapes, &run, reasons)], inputs)?;
    }
    if let (Some(path), Some(report)) = (&opts.summary_md, &run.report) {
        let costs: Vec<_> = dirs
            .iter()
            .filter_map(|d| {
                std::fs::read(d.join("report.json"))
                    .ok()
                    .and_then(|b| ReportDoc::parse(&b).ok())
                    .and_then(|r| r.cost)
            })
            .collect();
        let cost = wildtool_core::cost::CostFigures::combine(&costs);
        write_md(
            path,
            &wildtool_core::ci::summary::run_markdown(label, &report.report, cost.as_ref()),
            inputs,
        )?;
    }
    Ok(())
}

/// The suite of a run read from directories.
pub fn dir_suite(
    label: &str,
    shapes: &[TaskShape],
    run: &DirRun,
    reasons: &BTreeMap<(u32, u8), String>,
) -> Suite {
    run_suite(label, shapes, &run.trials, &run.details, reasons)
}

/// Writes the JUnit file of `suites`.
pub fn write_junit(path: &Path, suites: &[Suite], inputs: &[&Path]) -> Result<(), FileError> {
    write_file(path, junit_xml(suites), inputs)?;
    eprintln!("wrote {}", path.display());
    Ok(())
}

/// Writes a Markdown summary.
pub fn write_md(path: &Path, text: &str, inputs: &[&Path]) -> Result<(), FileError> {
    write_file(path, text, inputs)?;
    eprintln!("wrote {}", path.display());
    Ok(())
}
