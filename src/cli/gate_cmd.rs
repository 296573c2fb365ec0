//! `wildtool gate`: the noise-aware regression gate for CI. Reads a baseline and a
//! candidate run like `compare`, decides with the core's rule (`compare::gate`) and exits
//! 0 (no regression with evidence), 1 (regression) or 2 (the runs cannot be gated).

use std::path::PathBuf;
use std::process::ExitCode;

use wildtool_core::compare::gate::{
    gate_runs, metric_mismatch, metric_named, metric_names, GateRule,
};
use wildtool_core::compare::BootstrapOptions;
use wildtool_core::dataset::Lang;

use super::compare_cmd::{load_runs, CompareArgs, CompareCmdError};
use super::EXIT_FAILURE;

/// Arguments of `wildtool gate`.
#[derive(Debug)]
pub struct GateArgs {
    /// The baseline run (any input `compare` takes).
    pub baseline: PathBuf,
    /// The candidate run.
    pub candidate: PathBuf,
    /// The dataset both were scored on.
    pub dataset: PathBuf,
    /// The metric's name (`compare::gate::METRICS`).
    pub metric: String,
    /// The rule's settings.
    pub rule: GateRule,
    /// Dataset language (for result files scored here).
    pub lang: Lang,
    /// Candidate cap (for result files scored here).
    pub candidate_cap: usize,
    /// JUnit and Markdown outputs.
    pub ci: super::ci_out::CiOpts,
}

/// Why `wildtool gate` could not decide (always exit code 2: a gate that cannot decide
/// must never look like a regression or a pass).
#[derive(Debug, thiserror::Error)]
pub enum GateCmdError {
    /// Unusable inputs or settings.
    #[error("cannot gate: {0}")]
    Unusable(String),
}

impl From<CompareCmdError> for GateCmdError {
    fn from(e: CompareCmdError) -> Self {
        GateCmdError::Unusable(e.to_string())
    }
}

/// Runs `wildtool gate`; the exit code is the decision. A gate that cannot decide still
/// writes its JUnit file, with the gate as an error case.
pub fn gate(args: &GateArgs) -> Result<ExitCode, GateCmdError> {
    match decide(args) {
        Err(e) => {
            if let Some(path) = &args.ci.junit {
                let suite =
                    wildtool_core::ci::junit::gate_error_suite(&args.metric, &e.to_string());
                let _ = super::ci_out::write_junit(path, &[suite]);
            }
            Err(e)
        }
        ok => ok,
    }
}

fn decide(args: &GateArgs) -> Result<ExitCode, GateCmdError> {
    let metric = metric_named(&args.metric).ok_or_else(|| {
        GateCmdError::Unusable(format!(
            "unknown --metric {:?} (one of: {})",
            args.metric,
            metric_names().join(", ")
        ))
    })?;
    args.rule
        .check()
        .map_err(|e| GateCmdError::Unusable(e.to_string()))?;
    let loaded = load_runs(&CompareArgs::reading(
        vec![args.baseline.clone(), args.candidate.clone()],
        &args.dataset,
        args.lang,
        args.candidate_cap,
    ))?;
    if let Some(why) = metric_mismatch(metric, loaded.env) {
        return Err(GateCmdError::Unusable(why));
    }
    let [baseline, candidate] = loaded.runs.as_slice() else {
        return Err(GateCmdError::Unusable("two runs are needed".to_owned()));
    };
    let (pair, verdict) = gate_runs(
        baseline,
        candidate,
        loaded.dataset(),
        metric,
        &args.rule,
        &BootstrapOptions::default(),
    )
    .map_err(|e| GateCmdError::Unusable(e.to_string()))?;
    println!("{}", verdict.reason);
    eprintln!("gate: {}", verdict.context());
    let io = |e: super::files::FileError| GateCmdError::Unusable(e.to_string());
    let read = |p: &PathBuf| super::ci_out::read_dirs(std::slice::from_ref(p));
    let (base_dir, cand_dir) = (read(&args.baseline), read(&args.candidate));
    if let Some(path) = &args.ci.junit {
        let details = if cand_dir.details.iter().any(|d| !d.is_empty()) {
            cand_dir.details.clone()
        } else {
            Vec::new()
        };
        let suite = wildtool_core::ci::junit::run_suite(
            &candidate.label,
            &loaded.shapes,
            &candidate.trials,
            &details,
            &Default::default(),
        );
        super::ci_out::write_junit(
            path,
            &[suite, wildtool_core::ci::junit::gate_suite(&verdict)],
        )
        .map_err(io)?;
    }
    if let Some(path) = &args.ci.summary_md {
        let cost = |d: &super::ci_out::DirRun| d.report.as_ref().and_then(|r| r.cost.clone());
        let (cb, cc) = (cost(&base_dir), cost(&cand_dir));
        let md = wildtool_core::ci::summary::pair_markdown(
            &pair,
            Some(&verdict),
            [cb.as_ref(), cc.as_ref()],
        );
        super::ci_out::write_md(path, &md).map_err(io)?;
    }
    Ok(if verdict.outcome.fails() {
        ExitCode::from(EXIT_FAILURE)
    } else {
        ExitCode::SUCCESS
    })
}
