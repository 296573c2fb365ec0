//! `wildtool report`: a self-contained HTML report (headline rates, the page's SVG charts
//! with data tables, the summary table) from the `report.json` that `wildtool score` and
//! `wildtool run` write.

use std::path::{Path, PathBuf};

use wildtool_core::chart::dashboard::{self, ComparisonRow};
use wildtool_core::chart::html::{report_html, ReportMeta};
use wildtool_core::dataset::fingerprint_hex;
use wildtool_core::formats::ReportDoc;
use wildtool_core::report::summary::summary_table;

use super::files::{read_document, read_text, write_file, FileError};

/// The published leaderboard (reference JSON in `data/`).
const LEADERBOARD: &str = include_str!("../../data/paper-leaderboard.json");

/// Arguments of `wildtool report`.
#[derive(Debug, Clone)]
pub struct ReportArgs {
    /// The dataset the run was scored on (its fingerprint is checked).
    pub dataset: Option<PathBuf>,
    /// A directory holding `report.json` (a `score` or `run` output directory).
    pub score_dir: Option<PathBuf>,
    /// Or the `report.json` itself.
    pub from: Option<PathBuf>,
    /// The HTML file to write.
    pub out: PathBuf,
    /// Published models to compare with.
    pub compare: Vec<String>,
}

/// Why `wildtool report` failed.
#[derive(Debug, thiserror::Error)]
pub enum ReportError {
    /// Bad arguments or inputs.
    #[error("{0}")]
    Usage(String),
    /// File IO.
    #[error(transparent)]
    File(#[from] FileError),
}

fn report_path(args: &ReportArgs) -> Result<PathBuf, ReportError> {
    match (&args.from, &args.score_dir) {
        (Some(p), None) => {
            super::commit::settle_input(p)?;
            Ok(p.clone())
        }
        (None, Some(d)) => {
            super::commit::settle_for_reading(d)?;
            Ok(d.join("report.json"))
        }
        _ => Err(ReportError::Usage(
            "give exactly one of --score-dir DIR or --from report.json".to_owned(),
        )),
    }
}

fn file_label(path: &Path) -> String {
    path.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// The `env-report.json` beside a report (or named by `--from`), parsed.
fn env_report(args: &ReportArgs) -> Result<Option<wildtool_core::json::Value>, ReportError> {
    let path = match (&args.from, &args.score_dir) {
        (Some(p), None) if p.file_name().is_some_and(|n| n == "env-report.json") => p.clone(),
        (None, Some(d)) => d.join("env-report.json"),
        _ => return Ok(None),
    };
    if !path.is_file() {
        return Ok(None);
    }
    let v = wildtool_core::json::loads(&read_text(&path)?)
        .map_err(|e| ReportError::Usage(format!("{}: {e}", path.display())))?;
    if v.get("format").and_then(|f| f.as_str())
        != Some(wildtool_core::ledger::metrics::ENV_REPORT_FORMAT)
    {
        return Err(ReportError::Usage(format!(
            "{} is not an env-report.json",
            path.display()
        )));
    }
    Ok(Some(v))
}

/// Every file `report` may read (none of them may be its `--out`).
fn inputs(args: &ReportArgs) -> Vec<PathBuf> {
    let mut list: Vec<PathBuf> = Vec::new();
    list.extend(args.dataset.clone());
    list.extend(args.from.clone());
    if let Some(d) = &args.score_dir {
        list.push(d.clone());
        list.push(d.join("report.json"));
        list.push(d.join("env-report.json"));
    }
    if let Some(parent) = args.from.as_ref().and_then(|f| f.parent()) {
        list.push(parent.join("env-report.json"));
    }
    list
}

/// Writes the report page as a set of one, never onto an input.
fn write_page(args: &ReportArgs, html: String) -> Result<(), FileError> {
    let inputs = inputs(args);
    let refs: Vec<&Path> = inputs.iter().map(PathBuf::as_path).collect();
    write_file(&args.out, html, &refs)
}

/// Runs `wildtool report`: the official report, with an "Extension: ledger environment"
/// section when the directory also holds an env-report.json (or a page of that section
/// alone for an env run without an official report).
pub fn report(args: &ReportArgs) -> Result<(), ReportError> {
    {
        let inputs = inputs(args);
        let refs: Vec<&Path> = inputs.iter().map(PathBuf::as_path).collect();
        super::commit::check_not_input(&args.out, &refs)?;
    }
    if let Some(d) = &args.score_dir {
        super::commit::settle_for_reading(d)?;
    }
    let env = env_report(args)?;
    let official = report_path(args)?;
    if let (Some(env), false) = (&env, official.is_file()) {
        if let Some(ds) = &args.dataset {
            let fp = fingerprint_hex(&read_text(ds)?);
            let found = env
                .get("dataset_fingerprint")
                .and_then(|f| f.as_str())
                .unwrap_or("");
            if fp != found {
                return Err(ReportError::Usage(format!(
                    "{} has fingerprint {fp}, but the env run was made on a dataset with fingerprint {found}",
                    ds.display()
                )));
            }
        }
        write_page(args, wildtool_core::ledger::report_html::env_page(env))?;
        println!("wrote {}", args.out.display());
        return Ok(());
    }
    let path = official;
    let doc = ReportDoc::parse(&read_document(&path)?)
        .map_err(|e| ReportError::Usage(format!("{}: {e}", path.display())))?;
    let mut dataset_label = doc.dataset.file.clone().unwrap_or_default();
    if let Some(ds) = &args.dataset {
        let fp = fingerprint_hex(&read_text(ds)?);
        if !doc.dataset.fingerprint.is_empty() && fp != doc.dataset.fingerprint {
            return Err(ReportError::Usage(format!(
                "{} has fingerprint {fp}, but the report was scored on a dataset with fingerprint {}",
                ds.display(),
                doc.dataset.fingerprint
            )));
        }
        dataset_label = file_label(ds);
    }
    let model = doc.model_name.clone();
    let report = &doc.report;
    let mut charts = dashboard::standard_charts(&model, report);
    let mut rows: Vec<ComparisonRow> = vec![dashboard::summarize(&model, report)];
    if let Ok(models) = dashboard::parse_leaderboard(LEADERBOARD) {
        rows.extend(
            args.compare
                .iter()
                .filter_map(|w| models.iter().find(|m| &m.model == w))
                .map(|m| m.to_row()),
        );
    }
    charts.push(dashboard::comparison(&rows));
    let meta = ReportMeta {
        model: model.clone(),
        dataset: dataset_label,
        fingerprint: doc.dataset.fingerprint.clone(),
        scorer: doc.scorer.clone(),
        summary: summary_table(&model, report),
    };
    let mut html = report_html(&meta, report, &charts);
    if let Some(env) = &env {
        if let Some(at_end) = html.rfind("</main>") {
            html.insert_str(
                at_end,
                &wildtool_core::ledger::report_html::env_section(env),
            );
        }
    }
    write_page(args, html)?;
    println!("wrote {}", args.out.display());
    Ok(())
}
