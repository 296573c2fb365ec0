//! `wildtool run --history own`: own-history runs (a wildtool extension, never an official
//! number). Every task continues the model's own conversation of the earlier tasks; tool
//! calls are answered by the core's canned environment (`own::canned`), or — with
//! `--env ledger` — by the ledger environment for sessions with `ledger_env`, whose
//! ledger then carries from task to task. The same run engine as every other run.
//! Writes `own-checkpoint.jsonl`, `own-result.jsonl`, `own-report.json` and
//! `own-report.html` (per trial in `trial-K/` when there are several), `own-trials.json`
//! over several trials and `manifest.json` — never `result.jsonl`, `score.jsonl` or
//! `metric.json` — all committed together, and prints the labelled summary.

use std::collections::BTreeMap;
use std::fs;
use std::process::ExitCode;
use std::sync::Arc;

use crate::native::store::StoreError;
use crate::native::{Driver, FileStore, UreqTransport};
use wildtool_core::chart::dashboard;
use wildtool_core::chart::html::{report_html, ReportMeta};
use wildtool_core::checker;
use wildtool_core::dataset::{load_dataset, Session};
use wildtool_core::ledger::answer::Answerer;
use wildtool_core::ledger::metrics::EXTENSION_LABEL;
use wildtool_core::ledger::run_file::SessionEnv;
use wildtool_core::ledger::ENV_VERSION;
use wildtool_core::own::figure::propagation;
use wildtool_core::own::rescore::rescore;
use wildtool_core::own::run_file::{header_line, label_html, session_line, OwnHead};
use wildtool_core::own::{canned, ledger_own, OWN_LABEL, OWN_VERSION};
use wildtool_core::report::summary::summary_table;
use wildtool_core::runner::checkpoint::{line_traces, CheckpointStore};
use wildtool_core::runner::engine::{Engine, EngineError, Event, RunStatus};
use wildtool_core::runner::env_checkpoint::EnvMode;
use wildtool_core::score::{OfficialChecker, ScoreOptions};

use super::files::{at, OutputSet};
use super::run_cmd::unix_now;
use super::run_cmd::{install_interrupt_handler, Display, RunArgs, RunCmdError};
use super::EXIT_INCOMPLETE;

fn usage(m: impl Into<String>) -> RunCmdError {
    RunCmdError::Usage(m.into())
}

/// Runs `wildtool run --history own` (`ledger`: with `--env ledger`): 0 when every task
/// is scored, 3 when some are not (resumable), 4 when the endpoint failed the preflight,
/// 2 for unusable inputs.
pub fn run(args: &RunArgs, ledger: bool) -> Result<ExitCode, RunCmdError> {
    if args.dry_run {
        return Err(usage(
            "--dry-run estimates official runs only; it is not available with --history own",
        ));
    }
    if args.ci.junit.is_some() || args.ci.summary_md.is_some() {
        return Err(usage(
            "--junit and --summary-md describe official runs; with --history own, read own-report.json",
        ));
    }
    if args.cassette.is_some() || args.offline {
        return Err(usage(
            "--cassette and --offline record and replay official and env runs; they are not available with --history own",
        ));
    }
    Ok(match execute(args, ledger)? {
        RunStatus::Done => ExitCode::SUCCESS,
        _ => ExitCode::from(EXIT_INCOMPLETE),
    })
}

fn execute(args: &RunArgs, ledger: bool) -> Result<RunStatus, RunCmdError> {
    let super::run_cmd::Prepared {
        dataset_text,
        fingerprint: fp,
        spec,
        auth,
    } = super::run_cmd::prepare(args)?;
    let loaded = load_dataset(&dataset_text, args.lang);
    let selected = super::run_cmd::selected_sessions(args, &loaded.sessions)?;
    let mut envs = BTreeMap::new();
    if ledger {
        for s in &selected {
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
        if envs.is_empty() {
            return Err(usage(format!(
                "{}: no selected session has a ledger_env field, so there is nothing to run in the ledger environment",
                args.dataset.display()
            )));
        }
    }
    let started_unix = unix_now();
    let environment = if ledger {
        wildtool_core::own::rescore::LEDGER_ENVIRONMENT
    } else {
        "canned"
    };
    let version = if ledger {
        format!("{OWN_VERSION} {ENV_VERSION}")
    } else {
        OWN_VERSION.to_owned()
    };
    fs::create_dir_all(&args.out).map_err(at(&args.out))?;
    let mut store = FileStore::new(&args.out.join("own-checkpoint.jsonl"));
    let stored = store.load()?;
    let transport = Arc::new(UreqTransport::new(auth, spec.concurrency()));
    let mut driver = Driver::new(transport);
    let mode = EnvMode::own(&version);
    let mut engine = match Engine::new_env(&selected, spec.clone(), &stored, driver.now(), mode) {
        Ok(e) => e.with_own_history(wildtool_core::protocol::start_own),
        Err(EngineError::Checkpoint(m)) => return Err(m.into()),
        Err(EngineError::NoSessions) => return Err(usage("no sessions selected")),
    };
    install_interrupt_handler(driver.controller());
    let by_index: BTreeMap<usize, &Session> = selected.iter().map(|s| (s.index, *s)).collect();
    let mut answerer = Answerer::new(envs.clone()).own_history();
    let mut display = Display::new();
    let end = driver.run_with_env(
        &mut engine,
        |event| {
            match event {
                Event::Persist(line) => store.append(&line)?,
                Event::Progress(p) => display.update(&p),
                _ => {}
            }
            Ok::<(), StoreError>(())
        },
        |call| {
            let session = by_index
                .get(&call.task.line)
                .ok_or_else(|| format!("no session at index {}", call.task.line))?;
            if envs.contains_key(&session.index) {
                answerer.answer(
                    call.task.trial,
                    session,
                    call.task.task,
                    &call.prior,
                    &call.calls,
                )
            } else {
                Ok(canned::answer(session, call.task.task, &call.calls))
            }
        },
    );
    display.finish();
    let end = end?;
    super::run_cmd::report_end("own-history run", &end)?;
    let trial_dirs = super::run_cmd::trial_dirs(&args.out, spec.trials());
    let tasks_total: u64 = selected.iter().map(|s| s.tasks.len() as u64).sum();
    let segmenter = checker::default_segmenter();
    let check = OfficialChecker::new(segmenter.as_ref());
    let dataset_file = args
        .dataset
        .file_name()
        .map(|n| n.to_string_lossy().into_owned());
    let mut trial_outcomes = Vec::new();
    let mut env_trial_outcomes = Vec::new();
    // The whole output set of the run: every trial's files, own-trials.json and
    // manifest.json, committed together (outputs.md); the dataset is never one of them.
    let mut set = OutputSet::begin(&args.out, &[args.dataset.as_path()])?;
    let mut printed = Vec::new();
    for (t, assembled) in end.trials.iter().enumerate() {
        let prefix = if spec.trials() == 1 {
            String::new()
        } else {
            format!("trial-{}/", t + 1)
        };
        let head = OwnHead {
            model_name: spec.model().to_owned(),
            dataset_fingerprint: fp.clone(),
            environment: environment.to_owned(),
            status: end.status.as_str().to_owned(),
            trial: t as u64 + 1,
            tasks_total,
        };
        let mut text = header_line(&head);
        text.push('\n');
        for line in assembled.text.lines() {
            let (id, traces) = line_traces(line).map_err(|e| usage(format!("internal: {e}")))?;
            let Some(session) = selected.iter().find(|s| s.id == id) else {
                continue;
            };
            let env = if envs.contains_key(&session.index) {
                "ledger"
            } else {
                "canned"
            };
            text.push_str(&session_line(session, spec.model(), env, &traces));
            text.push('\n');
        }
        let re = rescore(
            &loaded,
            &fp,
            dataset_file.clone(),
            &text,
            &check,
            ScoreOptions {
                candidate_cap: args.candidate_cap,
            },
        )
        .map_err(usage)?;
        for (no, problem) in &re.scored.problems {
            eprintln!("warning: {prefix}own-result.jsonl line {no}: {problem}");
        }
        trial_outcomes.push(re.scored.outcomes.clone());
        if ledger {
            env_trial_outcomes.push(ledger_own::env_outcomes(
                &loaded,
                &re.envs,
                &re.scored.traces,
            ));
        }
        let model = spec.model().to_owned();
        let summary = summary_table(&model, &re.doc.report);
        let meta = ReportMeta {
            model: model.clone(),
            dataset: args.dataset.display().to_string(),
            fingerprint: fp.clone(),
            scorer: re.doc.scorer.clone(),
            summary: format!("{OWN_LABEL}\n\n{summary}"),
        };
        let charts = dashboard::standard_charts(&model, &re.doc.report);
        let html = label_html(&report_html(&meta, &re.doc.report, &charts));
        set.write(&format!("{prefix}own-result.jsonl"), &text)?;
        set.write(&format!("{prefix}own-report.json"), &re.report_json)?;
        set.write(&format!("{prefix}own-report.html"), &html)?;
        printed.push((t, summary, re));
    }
    let mut env_trials_line = None;
    if spec.trials() > 1 {
        // pass^k over the trials' official-style labels, as trials.json has it for
        // official runs (the own-history label first).
        let shapes = wildtool_core::share::task_shapes(&loaded);
        let fp = wildtool_core::dataset::fingerprint(&dataset_text);
        let doc = super::run_cmd::trials_json(&shapes, fp, spec.model(), trial_outcomes)?;
        // With --env ledger, pass^k over the ledger tasks' env_success too (as
        // env-trials.json has it for gold-history env runs), labelled as both extensions.
        let ledger_env = if ledger {
            let env_doc =
                super::run_cmd::trials_json(&shapes, fp, spec.model(), env_trial_outcomes)?;
            if !args.quiet {
                let v: serde_json::Value = serde_json::from_str(&env_doc).unwrap_or_default();
                let k = spec.trials().to_string();
                let rate = |key: &str| match v[key][k.as_str()].as_f64() {
                    Some(r) => format!("{:.1}%", 100.0 * r),
                    None => "–".to_owned(),
                };
                env_trials_line = Some(format!(
                    "ledger sessions (own history), env_success over {k} trials: pass^{k} {}, pass@{k} {} ({EXTENSION_LABEL})",
                    rate("pass_hat_k"),
                    rate("pass_at_k")
                ));
            }
            format!(
                ", \"ledger_env\": {{\"extension\": {}, \"on\": \"env_success of the ledger sessions' tasks (own history)\", \"trials\": {}}}",
                serde_json::to_string(EXTENSION_LABEL).unwrap_or_default(),
                env_doc
            )
        } else {
            String::new()
        };
        let text = format!(
            "{{\"extension\": {}, \"on\": \"official-style labels on the model's own traces\", \"trials\": {}{ledger_env}}}\n",
            serde_json::to_string(OWN_LABEL).unwrap_or_default(),
            doc
        );
        set.write("own-trials.json", &text)?;
    }
    super::manifest_out::write_manifest(
        args,
        &spec,
        &end,
        driver.take_exchanges(),
        started_unix,
        super::manifest_out::RunFiles {
            kind: if ledger {
                &super::manifest_out::OWN_LEDGER
            } else {
                &super::manifest_out::OWN
            },
            dirs: &trial_dirs,
        },
        &mut set,
    )?;
    let written = set.commit()?;
    for (t, summary, re) in printed {
        if args.quiet {
            continue;
        }
        if spec.trials() > 1 {
            println!("trial {}:", t + 1);
        }
        println!("{OWN_LABEL}");
        print!("{summary}");
        let prop = propagation(&re.scored.outcomes);
        match prop.share {
            Some(s) => println!(
                "error propagation: {:.1}% of the failed tasks at positions 2-4 ({} of {}) follow an earlier failure in their session",
                100.0 * s,
                prop.following_failure,
                prop.failures_with_predecessor
            ),
            None => println!("error propagation: no failed task at positions 2-4"),
        }
        let tok = re.scored.tokens;
        println!(
            "tokens per session: {:.0} prompt + {:.0} completion as reported; about {:.0} prompt tokens by the size of the messages sent ({} sessions)",
            tok.input_per_session, tok.output_per_session, tok.estimated_prompt_per_session, tok.sessions
        );
        if let Some(l) = &re.ledger_env {
            println!(
                "ledger sessions (own history): {}",
                serde_json::to_string(l).unwrap_or_default()
            );
        }
    }
    if let Some(line) = env_trials_line {
        println!("{line}");
    }
    eprintln!("wrote {}", super::commit::listed(&written));
    if end.status != RunStatus::Done {
        if let Some(reason) = &end.reason {
            eprintln!("own-history run {}: {reason}", end.status.as_str());
        }
    }
    Ok(end.status)
}
