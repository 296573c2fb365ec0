//! `wildtool plan`: how small a drop the gate can detect at a size, and how many sessions
//! a drop needs, from pilot runs (the core's `plan`).

use std::path::PathBuf;

use wildtool_core::compare::gate::GateRule;
use wildtool_core::compare::BootstrapOptions;
use wildtool_core::dataset::Lang;
use wildtool_core::plan::{plan, simulate, PlanPilot, PlanSettings};

use super::compare_cmd::{load_runs, CompareArgs, CompareCmdError};

/// Arguments of `wildtool plan`.
#[derive(Debug)]
pub struct PlanArgs {
    /// The pilot run.
    pub pilot: PathBuf,
    /// A second pilot run.
    pub pilot_b: Option<PathBuf>,
    /// The dataset the pilots were scored on.
    pub dataset: PathBuf,
    /// Sessions per planned run (`None`: the dataset's).
    pub sessions: Option<u64>,
    /// Trials per planned run.
    pub trials: u32,
    /// The gate's settings.
    pub rule: GateRule,
    /// Power asked for.
    pub power: f64,
    /// A drop in points to find the sessions for.
    pub difference: Option<f64>,
    /// Simulated gates to check the plan with (0: none).
    pub simulate: usize,
    /// Seed of the simulation.
    pub seed: u64,
    /// A JSON file to write the plan to.
    pub json: Option<PathBuf>,
    /// Dataset language.
    pub lang: Lang,
    /// Candidate cap.
    pub candidate_cap: usize,
}

/// Why `wildtool plan` failed.
#[derive(Debug, thiserror::Error)]
pub enum PlanCmdError {
    /// Unusable pilot or settings (exit code 2).
    #[error("{0}")]
    Usage(String),
    /// Reading the runs.
    #[error(transparent)]
    Compare(#[from] CompareCmdError),
    /// Writing the plan.
    #[error(transparent)]
    File(#[from] super::files::FileError),
}

/// Runs `wildtool plan`.
pub fn plan_cmd(args: &PlanArgs) -> Result<(), PlanCmdError> {
    let mut runs = vec![args.pilot.clone()];
    runs.extend(args.pilot_b.clone());
    let loaded = load_runs(&CompareArgs::reading(
        runs,
        &args.dataset,
        args.lang,
        args.candidate_cap,
    ))?;
    let usage = |e: String| PlanCmdError::Usage(e);
    let pilot = PlanPilot::new(
        loaded
            .runs
            .first()
            .ok_or_else(|| usage("no pilot".to_owned()))?,
        loaded.runs.get(1),
        loaded.dataset(),
    )
    .map_err(|e| usage(e.to_string()))?;
    let dataset_sessions = {
        let mut s: Vec<u32> = loaded.shapes.iter().map(|t| t.session).collect();
        s.dedup();
        s.len() as u64
    };
    let settings = PlanSettings {
        sessions: args.sessions.unwrap_or(dataset_sessions),
        trials: args.trials,
        rule: args.rule,
        power: args.power,
        difference_points: args.difference,
    };
    let doc = plan(&pilot, &settings).map_err(|e| usage(e.to_string()))?;
    print!("{}", doc.summary_text());
    if args.simulate > 0 {
        let boot = BootstrapOptions::default();
        let checks = [
            doc.min_detectable.map(|d| (settings.sessions, d)),
            doc.difference.zip(doc.sessions_needed).map(|(d, n)| (n, d)),
        ];
        for (sessions, d) in checks.into_iter().flatten() {
            if let Some(p) = simulate(
                &pilot,
                sessions,
                settings.trials,
                d,
                &settings.rule,
                args.simulate,
                args.seed,
                &boot,
            ) {
                println!(
                    "simulated: {} gates of {sessions} session(s) × {} trial(s) with a drop of {:.1} points from the pilot model failed {:.0}% of the time (planned {:.0}%)",
                    args.simulate,
                    settings.trials,
                    d * 100.0,
                    p * 100.0,
                    settings.power * 100.0
                );
            }
        }
    }
    if let Some(path) = &args.json {
        let mut inputs: Vec<&std::path::Path> = vec![&args.pilot, &args.dataset];
        inputs.extend(args.pilot_b.as_deref());
        super::files::write_file(path, doc.to_json() + "\n", &inputs)?;
        println!("wrote {}", path.display());
    }
    Ok(())
}
