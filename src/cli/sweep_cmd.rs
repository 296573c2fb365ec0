//! `wildtool sweep`: one generated suite per level of a factor, each run and scored by
//! the same code as `wildtool run` into `DIR/level-<value>/`, then the core's sweep
//! analysis (`DIR/sweep.json`, `DIR/sweep.html`, a table on stdout). Re-running the same
//! command skips finished levels and resumes the others from their checkpoints.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use wildtool_core::dataset::fingerprint_hex;
use wildtool_core::formats::ReportDoc;
use wildtool_core::outcome::TaskOutcome;
use wildtool_core::report::RunStatus as ReportStatus;
use wildtool_core::runner::engine::RunStatus;
use wildtool_core::sweep::env::env_trial;
use wildtool_core::sweep::html::{summary_text, sweep_html};
use wildtool_core::sweep::{analyse, LevelInput, SweepError, SweepInput, SweepPlan, TrendOptions};

use super::files::{at, read_document, read_text, write_file, FileError, OutputSet};
use super::generate_cmd::BUILTIN_PACKS;
use super::run_cmd::{execute, RunArgs, RunCmdError};
use super::{EXIT_INCOMPLETE, EXIT_USAGE};

/// Arguments of `wildtool sweep`.
#[derive(Debug, Clone)]
pub struct SweepArgs {
    /// `factor=level,level,…`.
    pub factor: String,
    /// Sessions per level.
    pub per_level: usize,
    /// Seed of every level's suite.
    pub seed: u64,
    /// Factors held fixed (`name=value,…`).
    pub hold: Option<String>,
    /// The sweep's directory.
    pub out: PathBuf,
    /// How each level is run (its dataset and output directory are set per level).
    pub run: RunArgs,
}

/// Why `wildtool sweep` stopped.
#[derive(Debug, thiserror::Error)]
pub enum SweepCmdError {
    /// Bad options: the factor, its levels, the fixed factors, a directory of another sweep.
    #[error("{0}")]
    Usage(String),
    /// A level's run could not start or its endpoint failed the preflight.
    #[error("{level}: {source}")]
    Run {
        /// The level's directory.
        level: String,
        /// What went wrong.
        source: RunCmdError,
    },
    /// File IO.
    #[error(transparent)]
    File(#[from] FileError),
    /// A level's suite could not be generated.
    #[error("{0}")]
    Generate(String),
}

impl SweepCmdError {
    /// The process exit code: 2 for bad options, the run's code for a level's run error
    /// (4: the preflight failed), 1 otherwise.
    pub fn exit_code(&self) -> u8 {
        match self {
            SweepCmdError::Usage(_) => EXIT_USAGE,
            SweepCmdError::Run { source, .. } => source.exit_code(),
            SweepCmdError::File(e) => super::file_exit_code(e),
            // A level that cannot be generated is an impossible combination of options.
            SweepCmdError::Generate(_) => EXIT_USAGE,
        }
    }
}

impl From<SweepError> for SweepCmdError {
    fn from(e: SweepError) -> Self {
        SweepCmdError::Usage(e.to_string())
    }
}

/// The plan from the options (every level checked before anything is written).
fn plan(args: &SweepArgs) -> Result<SweepPlan, SweepCmdError> {
    Ok(SweepPlan::from_options(
        &args.factor,
        &args.seed.to_string(),
        &args.per_level.to_string(),
        args.hold.as_deref().unwrap_or(""),
    )?)
}

/// The outcomes of a level: one list per trial, from its `report.json` files (a trial
/// without one is left out). `done` tells whether every trial scored every task and was
/// run with this sweep's model and provider.
fn level_outcomes(dir: &Path, run: &RunArgs, model: &str) -> (Vec<Vec<TaskOutcome>>, bool) {
    let trials = run.trials;
    let dirs: Vec<PathBuf> = if trials <= 1 {
        vec![dir.to_path_buf()]
    } else {
        (1..=trials)
            .map(|t| dir.join(format!("trial-{t}")))
            .collect()
    };
    let mut out = Vec::new();
    let mut done = true;
    for d in dirs {
        let doc = read_document(&d.join("report.json"))
            .ok()
            .and_then(|bytes| ReportDoc::parse(&bytes).ok());
        match doc {
            Some(doc) => {
                let same_run = doc.run.as_ref().is_some_and(|r| {
                    r.model == model && r.provider.as_deref() == Some(run.provider.as_str())
                });
                done &= doc.status == ReportStatus::Done && same_run;
                out.push(doc.tasks);
            }
            None => done = false,
        }
    }
    (out, done)
}

/// The outcomes of a ledger-environment level: each trial's `env-result.jsonl` scored
/// against the level's dataset (`sweep::env`), with its env metrics. `done` as in
/// [`level_outcomes`] (every trial done, by this sweep's model).
fn env_level_outcomes(
    dir: &Path,
    dataset: &str,
    run: &RunArgs,
    model: &str,
) -> (Vec<Vec<TaskOutcome>>, Vec<serde_json::Value>, bool) {
    let dirs: Vec<PathBuf> = if run.trials <= 1 {
        vec![dir.to_path_buf()]
    } else {
        (1..=run.trials)
            .map(|t| dir.join(format!("trial-{t}")))
            .collect()
    };
    let (mut outcomes, mut metrics, mut done) = (Vec::new(), Vec::new(), true);
    for d in dirs {
        let trial = read_text(&d.join("env-result.jsonl"))
            .ok()
            .and_then(|text| env_trial(dataset, &text, run.lang).ok());
        match trial {
            Some(t) => {
                done &= t.status == "done" && t.model == model;
                outcomes.push(t.outcomes);
                metrics.push(t.metrics);
            }
            None => done = false,
        }
    }
    (outcomes, metrics, done)
}

/// Writes the level's dataset, or checks that the one already there is the same suite.
/// The level's directory is settled first (a kept level is read, not run).
fn place_dataset(path: &Path, text: &str) -> Result<(), SweepCmdError> {
    if let Some(dir) = path.parent() {
        super::commit::settle(dir)?;
    }
    if fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink()) {
        return Err(super::commit::refuse(
            path,
            "is a symbolic link; a sweep never reads or writes its suites through links",
        )
        .into());
    }
    if path.is_file() {
        let existing = read_text(path)?;
        if existing != text {
            return Err(SweepCmdError::Usage(format!(
                "{} holds another suite than this sweep generates (fingerprint {} instead of {}); use another --out or the same options as before",
                path.display(),
                fingerprint_hex(&existing),
                fingerprint_hex(text)
            )));
        }
        return Ok(());
    }
    write_file(path, text, &[])?;
    Ok(())
}

/// Runs `wildtool sweep`: 0 when every level is done, 3 when some level is not (re-run
/// to resume).
pub fn sweep(args: &SweepArgs) -> Result<ExitCode, SweepCmdError> {
    let plan = plan(args)?;
    fs::create_dir_all(&args.out).map_err(at(&args.out))?;
    // Every suite first: a level that cannot be generated stops the sweep before any run.
    let mut suites = Vec::new();
    for i in 0..plan.levels.len() {
        let text = plan
            .generate_level(BUILTIN_PACKS, i)
            .map_err(|e| SweepCmdError::Generate(format!("{}: {e}", plan.dir_name(i))))?;
        let dataset = args.out.join(plan.dir_name(i)).join("dataset.jsonl");
        place_dataset(&dataset, &text)?;
        let fingerprint = fingerprint_hex(&text);
        suites.push((dataset, fingerprint, text));
    }
    let model = args
        .run
        .model
        .clone()
        .unwrap_or_else(|| args.run.provider.clone());
    let count = plan.levels.len();
    let mut levels = Vec::new();
    let mut stopped = false;
    // Ledger-environment suites (env=ledger, a challenge sweep) run in the environment.
    let env = plan.is_ledger();
    for (i, (dataset, fingerprint, text)) in suites.into_iter().enumerate() {
        let name = plan.dir_name(i);
        let dir = args.out.join(&name);
        let value = plan.levels.get(i).cloned().unwrap_or_default();
        let read = |dir: &Path| {
            if env {
                env_level_outcomes(dir, &text, &args.run, &model)
            } else {
                let (t, done) = level_outcomes(dir, &args.run, &model);
                (t, Vec::new(), done)
            }
        };
        let (mut trials, mut env_metrics, done) = read(&dir);
        if done {
            eprintln!("level {}/{count} {name}: done (kept)", i + 1);
        } else if !stopped {
            eprintln!(
                "level {}/{count} {name}: {} = {value}, fingerprint {fingerprint}",
                i + 1,
                plan.factor.name()
            );
            let run = RunArgs {
                dataset,
                out: dir.clone(),
                quiet: true,
                ..args.run.clone()
            };
            let status = if env {
                super::env_run_cmd::execute(&RunArgs {
                    env_name: Some("ledger"),
                    ..run
                })
            } else {
                execute(&run)
            }
            .map_err(|source| SweepCmdError::Run {
                level: name.clone(),
                source,
            })?;
            if status == RunStatus::Cancelled {
                eprintln!("sweep cancelled; re-run the same command to resume");
                stopped = true;
            }
            (trials, env_metrics, _) = read(&dir);
        }
        levels.push(LevelInput {
            value,
            dir: name,
            fingerprint,
            trials,
            env_metrics,
        });
    }
    let doc = analyse(
        &SweepInput {
            plan: &plan,
            model,
            levels,
        },
        TrendOptions::default(),
    );
    let mut set = OutputSet::begin(&args.out, &[])?;
    set.write("sweep.json", doc.to_json() + "\n")?;
    set.write("sweep.html", sweep_html(&doc))?;
    let written = set.commit()?;
    print!("{}", summary_text(&doc));
    eprintln!("wrote {}", super::commit::listed(&written));
    Ok(if doc.status == "done" {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(EXIT_INCOMPLETE)
    })
}
