//! `wildtool run --env ledger`: the ledger environment (an extension, never an official
//! metric). The same run engine as official runs (checkpoint/resume, preflight, retries,
//! cancel, trials, honest end states), with every tool call answered in process by the
//! core's ledger environment. Writes `env-checkpoint.jsonl`, `env-result.jsonl`,
//! `env-report.json` and `env-run.json` (per trial in `trial-K/` when there are several,
//! plus `env-trials.json`) — never `score.jsonl` or `metric.json` — and prints the
//! summary table.

use std::collections::BTreeMap;
use std::fs;
use std::path::Path;
use std::process::ExitCode;

use crate::native::store::StoreError;
use crate::native::{Driver, FileStore};
use wildtool_core::dataset::{fingerprint, load_dataset, Session};
use wildtool_core::ledger::answer::Answerer;
use wildtool_core::ledger::metrics::{ReportHead, EXTENSION_LABEL};
use wildtool_core::ledger::outcomes::env_outcomes;
use wildtool_core::ledger::run_file::{header_line, score_file, session_line, SessionEnv};
use wildtool_core::ledger::scenario::has_scenario;
use wildtool_core::ledger::ENV_VERSION;
use wildtool_core::runner::checkpoint::{line_traces, CheckpointStore};
use wildtool_core::runner::engine::{Engine, EngineError, Event, RunEnd, RunStatus};
use wildtool_core::runner::env_checkpoint::EnvMode;
use wildtool_core::share::task_shapes;

use super::files::{at, OutputSet};
use super::run_cmd::{
    install_interrupt_handler, trials_json, unix_now, Display, RunArgs, RunCmdError,
};
use super::EXIT_INCOMPLETE;

fn usage(m: impl Into<String>) -> RunCmdError {
    RunCmdError::Usage(m.into())
}

/// Runs `wildtool run --env ledger`: 0 when every env task is scored, 3 when some are not
/// (resumable), 4 when the endpoint failed the preflight, 2 for unusable inputs (a dataset
/// without `ledger_env` sessions among them).
pub fn run(args: &RunArgs) -> Result<ExitCode, RunCmdError> {
    if args.dry_run {
        return Err(usage(
            "--dry-run estimates official runs only; it is not available with --env ledger"
                .to_owned(),
        ));
    }
    if args.ci.junit.is_some() || args.ci.summary_md.is_some() {
        return Err(usage(
            "--junit and --summary-md describe official runs; with --env ledger, read env-report.json"
                .to_owned(),
        ));
    }
    Ok(match execute(args)? {
        RunStatus::Done => ExitCode::SUCCESS,
        _ => ExitCode::from(EXIT_INCOMPLETE),
    })
}

/// Runs the env run and writes its files; the engine's end status (`wildtool sweep` runs
/// ledger-environment levels through this).
pub(super) fn execute(args: &RunArgs) -> Result<RunStatus, RunCmdError> {
    let super::run_cmd::Prepared {
        dataset_text,
        fingerprint: fp,
        spec,
        auth,
    } = super::run_cmd::prepare(args)?;
    let loaded = load_dataset(&dataset_text, args.lang);
    let selected = super::run_cmd::selected_sessions(args, &loaded.sessions)?;
    let (with_env, without): (Vec<&Session>, Vec<&Session>) =
        selected.into_iter().partition(|s| has_scenario(s));
    if with_env.is_empty() {
        return Err(usage(format!(
            "{}: no selected session has a ledger_env field, so there is nothing to run in the ledger environment",
            args.dataset.display()
        )));
    }
    if !without.is_empty() {
        eprintln!(
            "note: {} selected session(s) have no ledger_env and are skipped",
            without.len()
        );
    }
    let mut envs = BTreeMap::new();
    for s in &with_env {
        match SessionEnv::of(s) {
            Ok(Some(env)) => {
                envs.insert(s.index, env);
            }
            Ok(None) => {}
            Err(e) => {
                return Err(usage(format!(
                    "{e} (run `wildtool validate --semantic --env`)"
                )))
            }
        }
    }
    fs::create_dir_all(&args.out).map_err(at(&args.out))?;
    let mut store = FileStore::new(&args.out.join("env-checkpoint.jsonl"));
    let stored = store.load()?;
    let transport = super::run_cmd::transport(args, auth, spec.concurrency())?;
    let mut driver = Driver::new(transport);
    let mode = EnvMode::gold(ENV_VERSION);
    let mut engine = match Engine::new_env(&with_env, spec.clone(), &stored, driver.now(), mode) {
        Ok(e) => e,
        Err(EngineError::Checkpoint(m)) => return Err(m.into()),
        Err(EngineError::NoSessions) => return Err(usage("no sessions selected")),
    };
    install_interrupt_handler(driver.controller());
    let started = unix_now();
    let by_index: BTreeMap<usize, &Session> = with_env.iter().map(|s| (s.index, *s)).collect();
    let mut answerer = Answerer::new(envs.clone());
    let mut display = Display::new();
    let forget: std::cell::RefCell<Vec<(u32, usize, usize)>> = std::cell::RefCell::new(Vec::new());
    let end = driver.run_with_env(
        &mut engine,
        |event| {
            match event {
                Event::Persist(line) => store.append(&line)?,
                Event::Progress(p) => display.update(&p),
                Event::TaskSettled { key, .. } => {
                    forget.borrow_mut().push((key.trial, key.line, key.task))
                }
                _ => {}
            }
            Ok::<(), StoreError>(())
        },
        |call| {
            for (trial, line, task) in forget.borrow_mut().drain(..) {
                answerer.forget(trial, line, task);
            }
            let session = by_index
                .get(&call.task.line)
                .ok_or_else(|| format!("no session at index {}", call.task.line))?;
            answerer.answer(
                call.task.trial,
                session,
                call.task.task,
                &call.prior,
                &call.calls,
            )
        },
    );
    display.finish();
    let end = end?;
    super::run_cmd::report_end("env run", &end)?;
    let trial_dirs = super::run_cmd::trial_dirs(&args.out, spec.trials());
    let per_trial_tasks: u64 = with_env.iter().map(|s| s.tasks.len() as u64).sum();
    let mut trial_outcomes = Vec::new();
    let mut inputs: Vec<&Path> = vec![&args.dataset];
    inputs.extend(args.replay_file.as_deref());
    let mut outputs = OutputSet::begin(&args.out, &inputs)?;
    let mut wrote = Vec::new();
    for (t, (dir, assembled)) in trial_dirs.iter().zip(&end.trials).enumerate() {
        let prefix = if spec.trials() == 1 {
            String::new()
        } else {
            format!("trial-{}/", t + 1)
        };
        let head = ReportHead {
            model_name: spec.model().to_owned(),
            dataset_fingerprint: fp.clone(),
            history_mode: "gold".to_owned(),
            env_version: ENV_VERSION.to_owned(),
            status: end.status.as_str().to_owned(),
            tasks_total: per_trial_tasks,
            trial: t as u64 + 1,
            sessions_without_env: without.len() as u64,
        };
        let mut text = header_line(&head);
        text.push('\n');
        for line in assembled.text.lines() {
            let (id, traces) = line_traces(line).map_err(|e| usage(format!("internal: {e}")))?;
            let Some(session) = with_env.iter().find(|s| s.id == id) else {
                continue;
            };
            let Some(env) = envs.get(&session.index) else {
                continue;
            };
            let (line, _) = session_line(session, env, spec.model(), "gold", &traces)
                .map_err(|e| usage(format!("{}: {e}", session.id)))?;
            text.push_str(&line);
            text.push('\n');
        }
        let scored =
            score_file(&loaded.sessions, &fp, &text, false).map_err(|e| usage(e.to_string()))?;
        for (no, problem) in &scored.problems {
            eprintln!("warning: env-result.jsonl line {no}: {problem}");
        }
        outputs.write(&format!("{prefix}env-result.jsonl"), &text)?;
        outputs.write(&format!("{prefix}env-report.json"), &scored.report)?;
        outputs.write(
            &format!("{prefix}env-run.json"),
            env_run_json(&spec, &end, started, &args.dataset),
        )?;
        trial_outcomes.push(env_outcomes(&loaded, &scored.sessions));
        if !args.quiet {
            if spec.trials() > 1 {
                println!("trial {}:", t + 1);
            }
            print!("{}", scored.metrics.table());
            println!(
                "{} of {} env task(s) scored; {} session(s) without ledger_env skipped",
                scored.metrics.env_task_success.n,
                per_trial_tasks,
                without.len()
            );
        }
        wrote.push(format!(
            "wrote {} and {}",
            dir.join("env-result.jsonl").display(),
            dir.join("env-report.json").display()
        ));
    }
    super::manifest_out::write_manifest(
        args,
        &spec,
        &end,
        driver.take_exchanges(),
        started,
        super::manifest_out::RunFiles {
            kind: &super::manifest_out::ENV_LEDGER,
            dirs: &trial_dirs,
        },
        &mut outputs,
    )?;
    if spec.trials() > 1 {
        write_env_trials(
            &mut outputs,
            &dataset_text,
            &loaded,
            spec.model(),
            trial_outcomes,
        )?;
        wrote.push(format!(
            "wrote {}",
            args.out.join("env-trials.json").display()
        ));
    }
    outputs.commit()?;
    for line in wrote {
        eprintln!("{line}");
    }
    if end.status != RunStatus::Done {
        if let Some(reason) = &end.reason {
            eprintln!("env run {}: {reason}", end.status.as_str());
        }
    }
    Ok(end.status)
}

fn env_run_json(
    spec: &wildtool_core::runner::engine::RunSpec,
    end: &RunEnd,
    started: f64,
    dataset: &Path,
) -> String {
    let p = &end.progress;
    let incomplete: Vec<serde_json::Value> = end
        .incomplete
        .iter()
        .map(|t| serde_json::json!({"id": t.id, "trial": t.key.trial, "task": t.key.task, "reason": t.reason}))
        .collect();
    let doc = serde_json::json!({
        "wildtool_env_run_status": 1,
        "extension": EXTENSION_LABEL,
        "env_version": ENV_VERSION,
        "history_mode": "gold",
        "model_name": spec.model(),
        "dataset_path": std::fs::canonicalize(dataset).unwrap_or_else(|_| dataset.to_path_buf()).to_string_lossy(),
        "status": end.status.as_str(),
        "reason": end.reason,
        "fix": end.fix,
        "trials": spec.trials(),
        "tasks_total": end.tasks_total,
        "tasks_scored": end.tasks_scored,
        "started_unix": started,
        "counters": {
            "finished_now": p.done,
            "resumed": p.resumed,
            "incomplete": p.incomplete,
            "requests": p.requests,
            "retries": p.retries,
            "input_tokens": p.input_tokens,
            "output_tokens": p.output_tokens,
            "elapsed_seconds": p.elapsed,
        },
        "incomplete": incomplete,
    });
    serde_json::to_string_pretty(&doc).unwrap_or_default() + "\n"
}

fn write_env_trials(
    outputs: &mut OutputSet,
    dataset_text: &str,
    loaded: &wildtool_core::dataset::LoadedDataset,
    model: &str,
    trials: Vec<Vec<wildtool_core::outcome::TaskOutcome>>,
) -> Result<(), RunCmdError> {
    let doc = trials_json(
        &task_shapes(loaded),
        fingerprint(dataset_text),
        model,
        trials,
    )?;
    let text = format!(
        "{{\"extension\": {:?}, \"on\": \"env_success\", \"trials\": {}}}\n",
        EXTENSION_LABEL, doc
    );
    outputs.write("env-trials.json", &text)?;
    Ok(())
}
