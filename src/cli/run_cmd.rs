//! `wildtool run`: evaluates a live endpoint or a built-in agent, with checkpoint/resume,
//! then writes `result.jsonl` (official layout) and scores it exactly like `wildtool score`.

use std::fs;
use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::native::run::{execute, RunConfig, RunError};
use crate::native::{FileStore, LiveResponder, UreqTransport};
use wildtool_core::dataset::{fingerprint_hex, load_dataset, Lang, Session};
use wildtool_core::registry;
use wildtool_core::runner::agents::{BaselineAgent, GoldAgent, ReplayAgent};
use wildtool_core::runner::driver::Responder;
use wildtool_core::runner::policy::RetryPolicy;
use wildtool_core::runner::progress::Progress;
use wildtool_core::runner::provider::Endpoint;
use wildtool_core::runner::select::SessionRange;

use super::files::{at, read_text, FileError};
use super::score_cmd::{score_with, ScoreArgs, ScoreExtras};

/// Exit code when some tasks ended incomplete for transport reasons (re-run to resume).
pub const EXIT_INCOMPLETE: u8 = 3;

/// Arguments of `wildtool run`.
#[derive(Debug, Clone)]
pub struct RunArgs {
    /// Dataset path.
    pub dataset: PathBuf,
    /// Model name sent to the endpoint and written to the result file.
    pub model: Option<String>,
    /// Endpoint base URL.
    pub base_url: Option<String>,
    /// A dialect or built-in agent named in `wildtool_core::registry`.
    pub provider: String,
    /// Environment variable holding the API key.
    pub api_key_env: Option<String>,
    /// Tasks in flight.
    pub concurrency: usize,
    /// Temperature.
    pub temperature: f64,
    /// Per-request timeout in seconds.
    pub timeout: f64,
    /// Retries per request.
    pub retries: u32,
    /// Session selection.
    pub sessions: Option<String>,
    /// Result file for `replay`.
    pub replay_file: Option<PathBuf>,
    /// Output directory.
    pub out: PathBuf,
    /// Dataset language.
    pub lang: Lang,
    /// Candidate cap for scoring.
    pub candidate_cap: usize,
    /// Backoff base in seconds (tests use small values).
    pub backoff: f64,
}

/// Why `wildtool run` stopped.
#[derive(Debug, thiserror::Error)]
pub enum RunCmdError {
    /// Bad arguments.
    #[error("{0}")]
    Usage(String),
    /// File IO.
    #[error(transparent)]
    File(#[from] FileError),
    /// Checkpoint problems.
    #[error(transparent)]
    Run(#[from] RunError<crate::native::store::StoreError>),
}

enum Agent {
    Gold(GoldAgent),
    Baseline(BaselineAgent),
    Replay(ReplayAgent),
    Live(LiveResponder),
}

impl Agent {
    fn responder(&self) -> &dyn Responder {
        match self {
            Agent::Gold(a) => a,
            Agent::Baseline(a) => a,
            Agent::Replay(a) => a,
            Agent::Live(a) => a,
        }
    }
}

fn build_agent(
    args: &RunArgs,
    model: &str,
    cancel: &Arc<AtomicBool>,
) -> Result<Agent, RunCmdError> {
    match args.provider.as_str() {
        "gold" => Ok(Agent::Gold(GoldAgent)),
        "baseline" => Ok(Agent::Baseline(BaselineAgent)),
        "replay" => {
            let path = args.replay_file.as_ref().ok_or_else(|| {
                RunCmdError::Usage("--provider replay needs --replay-file".to_owned())
            })?;
            let text = read_text(path)?;
            let agent = ReplayAgent::from_text(&text)
                .map_err(|e| RunCmdError::Usage(format!("{}: {e}", path.display())))?;
            Ok(Agent::Replay(agent))
        }
        name => {
            let info = registry::provider_named(name).ok_or_else(|| {
                RunCmdError::Usage(format!(
                    "unknown --provider {name:?} ({})",
                    registry::backend_names().join(", ")
                ))
            })?;
            let kind = info.kind;
            let base_url = match (&args.base_url, info.default_base_url) {
                (Some(u), _) => u.clone(),
                (None, Some(default)) => default.to_owned(),
                (None, None) => {
                    return Err(RunCmdError::Usage(format!(
                        "--base-url is required for --provider {name}"
                    )))
                }
            };
            let var = args
                .api_key_env
                .clone()
                .unwrap_or_else(|| info.key_env.to_owned());
            // The key is read here and kept only inside the transport.
            let auth = match std::env::var(&var) {
                Ok(key) if !key.is_empty() => Some((kind.auth(), key)),
                _ => {
                    eprintln!("note: ${var} is not set; sending requests without an API key");
                    None
                }
            };
            let policy = RetryPolicy {
                max_retries: args.retries,
                base_delay: Duration::from_secs_f64(args.backoff.max(0.0)),
                timeout: Duration::from_secs_f64(args.timeout.max(0.001)),
                ..RetryPolicy::default()
            };
            Ok(Agent::Live(LiveResponder {
                provider: kind,
                endpoint: Endpoint {
                    base_url,
                    browser: false,
                },
                model: model.to_owned(),
                temperature: args.temperature,
                policy,
                transport: Box::new(UreqTransport::new(auth, args.concurrency)),
                cancel: cancel.clone(),
            }))
        }
    }
}

/// A progress display: a bar on a terminal, plain lines (at most every 2 s) otherwise.
struct Display {
    bar: Option<indicatif::ProgressBar>,
    last_line: Option<Instant>,
}

impl Display {
    fn new() -> Self {
        let bar = std::io::stderr().is_terminal().then(|| {
            let bar = indicatif::ProgressBar::new(0);
            let style = indicatif::ProgressStyle::with_template(
                "{bar:30} {pos}/{len} tasks {per_sec} eta {eta} {msg}",
            )
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar());
            bar.set_style(style);
            bar
        });
        Self {
            bar,
            last_line: None,
        }
    }

    fn update(&mut self, p: &Progress, elapsed: f64) {
        match &self.bar {
            Some(bar) => {
                bar.set_length(p.total);
                bar.set_position(p.settled());
                bar.set_message(format!(
                    "| names ok {} | incomplete {} | retries {} | tokens {}+{}",
                    p.names_correct, p.incomplete, p.retries, p.input_tokens, p.output_tokens
                ));
            }
            None => {
                let due = self
                    .last_line
                    .is_none_or(|t| t.elapsed() >= Duration::from_secs(2))
                    || p.settled() == p.total;
                if due {
                    eprintln!("{}", p.line(elapsed));
                    self.last_line = Some(Instant::now());
                }
            }
        }
    }

    fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}

/// Runs `wildtool run`.
pub fn run(args: &RunArgs) -> Result<ExitCode, RunCmdError> {
    let dataset_text = read_text(&args.dataset)?;
    let loaded = load_dataset(&dataset_text, args.lang);
    let errors = loaded.errors().count();
    if errors > 0 {
        eprintln!(
            "warning: dataset {} has {errors} error(s) (run `wildtool validate`)",
            args.dataset.display()
        );
    }
    let range = args
        .sessions
        .as_deref()
        .map(SessionRange::parse)
        .transpose()
        .map_err(|e| RunCmdError::Usage(e.to_string()))?;
    let sessions: Vec<&Session> = loaded
        .sessions
        .iter()
        .filter(|s| range.as_ref().is_none_or(|r| r.contains(s.line)))
        .collect();
    if sessions.is_empty() {
        return Err(RunCmdError::Usage("no sessions selected".to_owned()));
    }
    let model = args.model.clone().unwrap_or_else(|| args.provider.clone());
    let cancel = Arc::new(AtomicBool::new(false));
    install_interrupt_handler(&cancel);
    let agent = build_agent(args, &model, &cancel)?;
    fs::create_dir_all(&args.out).map_err(at(&args.out))?;
    let mut store = FileStore::new(&args.out.join("checkpoint.jsonl"));
    let mut display = Display::new();
    let summary = execute(
        &sessions,
        agent.responder(),
        &mut store,
        RunConfig {
            model: &model,
            dataset_fingerprint: &fingerprint_hex(&dataset_text),
            concurrency: args.concurrency.max(1),
        },
        &cancel,
        |p, e| display.update(p, e),
    )?;
    display.finish();
    let p = &summary.progress;
    eprintln!(
        "run: {} task(s) finished now, {} resumed from the checkpoint, {} incomplete; {} request(s), {} retr(y/ies), tokens {}+{}, {:.1}s",
        p.done, p.resumed, p.incomplete, p.requests, p.retries, p.input_tokens, p.output_tokens, p.elapsed
    );
    let result_path = args.out.join("result.jsonl");
    fs::write(&result_path, &summary.assembled.text).map_err(at(&result_path))?;
    let incomplete_path = args.out.join("incomplete.json");
    if summary.incomplete.is_empty() {
        let _ = fs::remove_file(&incomplete_path);
    } else {
        let list: Vec<serde_json::Value> = summary
            .incomplete
            .iter()
            .map(|t| serde_json::json!({"id": t.id, "task": t.task, "reason": t.reason}))
            .collect();
        let text = serde_json::to_string_pretty(&serde_json::json!({
            "note": "tasks given up for transport reasons; they are not model errors, their sessions are left out of result.jsonl, and re-running the same command resumes them",
            "tasks": list,
        }))
        .unwrap_or_default();
        fs::write(&incomplete_path, text + "\n").map_err(at(&incomplete_path))?;
        eprintln!(
            "warning: {} task(s) incomplete (transport); see {}; re-run to resume",
            summary.incomplete.len(),
            incomplete_path.display()
        );
    }
    if summary.assembled.sessions == 0 {
        eprintln!("no complete session yet; nothing to score");
        return Ok(ExitCode::from(EXIT_INCOMPLETE));
    }
    // The run's sessions are its tasks_total (a --sessions run is not partial by itself).
    let scope = ScoreExtras {
        sessions: Some(sessions.iter().map(|s| s.line).collect()),
        ..ScoreExtras::default()
    };
    score_with(
        &ScoreArgs {
            dataset: args.dataset.clone(),
            results: result_path,
            out: args.out.clone(),
            lang: args.lang,
            model_name: None,
            candidate_cap: args.candidate_cap,
        },
        &scope,
    )?;
    if summary.incomplete.is_empty() {
        Ok(ExitCode::SUCCESS)
    } else {
        Ok(ExitCode::from(EXIT_INCOMPLETE))
    }
}

/// Ctrl-C cancels the run: no new task starts, in-flight requests stop, finished tasks stay
/// in the checkpoint and the command exits with the incomplete code (re-run to resume). A
/// second Ctrl-C exits at once (the checkpoint is flushed per task, so nothing finished is
/// lost either way).
fn install_interrupt_handler(cancel: &Arc<AtomicBool>) {
    let flag = cancel.clone();
    let presses = std::sync::atomic::AtomicUsize::new(0);
    let installed = ctrlc::set_handler(move || {
        if presses.fetch_add(1, std::sync::atomic::Ordering::SeqCst) > 0 {
            std::process::exit(130);
        }
        flag.store(true, std::sync::atomic::Ordering::SeqCst);
        eprintln!("\ninterrupted: stopping; finished tasks are kept, re-run the same command to resume (Ctrl-C again to quit now)");
    });
    if let Err(e) = installed {
        eprintln!(
            "warning: cannot install the Ctrl-C handler ({e}); Ctrl-C will end the run at once"
        );
    }
}
