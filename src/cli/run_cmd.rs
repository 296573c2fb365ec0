//! `wildtool run`: evaluates a live endpoint or a built-in agent through the core's run
//! engine (checkpoint/resume, preflight, retries, adaptive concurrency, circuit breaker,
//! repeated trials), then writes the official `result.jsonl` of each trial and scores it
//! exactly like `wildtool score`.

use std::fs;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::native::store::StoreError;
use crate::native::{CassetteTransport, Control, Driver, FileStore, Transport, UreqTransport};
use wildtool_core::compare::{trials_report, BootstrapOptions, DatasetRef, RunInput};
use wildtool_core::dataset::{fingerprint, fingerprint_hex, load_dataset, Lang, Session};
use wildtool_core::formats::meta::{rfc3339, ConcurrencyMeta, StreamMeta, Tokens};
use wildtool_core::formats::RunMeta;
use wildtool_core::provenance::cassette::Cassette;
use wildtool_core::runner::agents::ReplayAgent;
use wildtool_core::runner::checkpoint::{CheckpointMismatch, CheckpointStore};
use wildtool_core::runner::engine::{
    AgentKind, BackendSettings, Engine, EngineError, Event, ProgressSnapshot, RunEnd, RunSettings,
    RunSpec, RunStatus, SpecError,
};
use wildtool_core::runner::registry;
use wildtool_core::runner::select::SessionRange;
use wildtool_core::runner::stream::CoreReaders;
use wildtool_core::share::task_shapes;

use super::compare_cmd::outcomes_from_report;
use super::files::{at, read_text, FileError, OutputSet};
use super::redact;
use super::score_cmd::{score_into, ScoreArgs, ScoreExtras};
use super::{EXIT_FAILURE, EXIT_INCOMPLETE, EXIT_PREFLIGHT, EXIT_USAGE};

/// Arguments of `wildtool run`.
#[derive(Debug, Clone)]
pub struct RunArgs {
    /// Dataset path.
    pub dataset: PathBuf,
    /// Model name sent to the endpoint and written to the result file.
    pub model: Option<String>,
    /// Endpoint base URL.
    pub base_url: Option<String>,
    /// A dialect or built-in agent named in `wildtool_core::runner::registry`.
    pub provider: String,
    /// Environment variable holding the API key.
    pub api_key_env: Option<String>,
    /// Tasks in flight at most.
    pub concurrency: u64,
    /// Keep the concurrency fixed (no adaptive lowering on rate limits).
    pub fixed_concurrency: bool,
    /// Temperature.
    pub temperature: f64,
    /// Per-request timeout in seconds.
    pub timeout: f64,
    /// Retries per request.
    pub retries: u64,
    /// Backoff base in seconds.
    pub backoff: f64,
    /// Repetitions of every task.
    pub trials: u64,
    /// Skip the preflight request.
    pub no_preflight: bool,
    /// Stream every request.
    pub stream: bool,
    /// Longest silence between two chunks of a streamed reply, seconds.
    pub stream_idle_timeout: f64,
    /// Consecutive equal non-retryable failures that stop the run (0 = never).
    pub breaker_threshold: u64,
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
    /// Print no summary table on stdout (a sweep prints its own).
    pub quiet: bool,
    /// The price table and entry.
    pub prices: super::prices::PriceOpts,
    /// The cost limit.
    pub max_cost: Option<f64>,
    /// Estimate only.
    pub dry_run: bool,
    /// JUnit and Markdown outputs.
    pub ci: super::ci_out::CiOpts,
    /// The cassette to record into (or, `offline`, to answer from).
    pub cassette: Option<PathBuf>,
    /// Answer from the cassette only.
    pub offline: bool,
    /// The environment (`ledger`), for the manifest.
    pub env_name: Option<&'static str>,
}

/// Why `wildtool run` stopped without a result.
#[derive(Debug, thiserror::Error)]
pub enum RunCmdError {
    /// Bad arguments.
    #[error("{0}")]
    Usage(String),
    /// A setting out of range, an unusable base URL, an empty model name.
    #[error(transparent)]
    Spec(#[from] SpecError),
    /// The output directory holds another run's checkpoint.
    #[error(transparent)]
    Checkpoint(#[from] CheckpointMismatch),
    /// File IO.
    #[error(transparent)]
    File(#[from] FileError),
    /// The checkpoint file could not be written.
    #[error("checkpoint: {0}")]
    Store(#[from] StoreError),
    /// The price table.
    #[error(transparent)]
    Prices(#[from] super::prices::PriceOptsError),
    /// The run's final scoring was refused (the dataset changed on disk, the results do
    /// not belong to it, nothing could be scored); `run.json` says so.
    #[error("{0}")]
    Refused(String),
    /// The endpoint failed the preflight; no task was sent.
    #[error("preflight failed ({class}): {reason}{}", .fix.as_ref().map(|f| format!("\n  fix: {f}")).unwrap_or_default())]
    Preflight {
        /// The kind of problem, for people.
        class: &'static str,
        /// What is wrong.
        reason: String,
        /// What to do about it.
        fix: Option<String>,
    },
}

impl RunCmdError {
    /// The process exit code: 2 for usage problems (settings, URLs, another run's
    /// checkpoint), 4 for a failed preflight, 1 otherwise.
    pub fn exit_code(&self) -> u8 {
        match self {
            RunCmdError::Usage(_)
            | RunCmdError::Spec(_)
            | RunCmdError::Checkpoint(_)
            | RunCmdError::Refused(_) => EXIT_USAGE,
            RunCmdError::Preflight { .. } => EXIT_PREFLIGHT,
            RunCmdError::File(e) => super::file_exit_code(e),
            RunCmdError::Store(_) => EXIT_FAILURE,
            RunCmdError::Prices(super::prices::PriceOptsError::File(_)) => EXIT_FAILURE,
            RunCmdError::Prices(_) => EXIT_USAGE,
        }
    }
}

fn usage(message: impl Into<String>) -> RunCmdError {
    RunCmdError::Usage(message.into())
}

/// The backend, the model name and the API key (for endpoints) from the arguments.
pub(crate) fn backend(
    args: &RunArgs,
) -> Result<(BackendSettings, String, Option<String>), RunCmdError> {
    let agent = |kind: AgentKind| {
        let model = args.model.clone().unwrap_or_else(|| args.provider.clone());
        Ok((BackendSettings::Agent(kind), model, None))
    };
    match args.provider.as_str() {
        "gold" => agent(AgentKind::Gold),
        "baseline" => agent(AgentKind::Baseline),
        "replay" => {
            let path = args
                .replay_file
                .as_ref()
                .ok_or_else(|| usage("--provider replay needs --replay-file"))?;
            let text = read_text(path)?;
            let replay = ReplayAgent::from_text(&text)
                .map_err(|e| usage(format!("{}: {e}", path.display())))?;
            agent(AgentKind::Replay(replay))
        }
        name => {
            let info = registry::provider_named(name).ok_or_else(|| {
                usage(format!(
                    "unknown --provider {name:?} ({})",
                    registry::backend_names().join(", ")
                ))
            })?;
            let provider = info.kind;
            let base_url = match (&args.base_url, info.default_base_url) {
                (Some(u), _) => u.clone(),
                (None, Some(default)) => default.to_owned(),
                (None, None) => {
                    return Err(usage(format!(
                        "--base-url is required for --provider {name}"
                    )))
                }
            };
            let model = args
                .model
                .clone()
                .ok_or_else(|| usage(format!("--model is required for --provider {name}")))?;
            let var = args
                .api_key_env
                .clone()
                .unwrap_or_else(|| info.key_env.to_owned());
            // The key is read here and kept only inside the transport.
            let key = match std::env::var(&var) {
                Ok(key) if !key.is_empty() => {
                    super::register_secret(&key);
                    Some(key)
                }
                _ => {
                    eprintln!("note: ${var} is not set; sending requests without an API key");
                    None
                }
            };
            Ok((
                BackendSettings::Http {
                    provider,
                    base_url,
                    temperature: args.temperature,
                    browser: false,
                },
                model,
                key,
            ))
        }
    }
}

/// The transport a run sends with: the network, the network recorded into a cassette, or
/// (offline) a cassette alone.
pub(crate) fn transport(
    args: &RunArgs,
    auth: Option<(wildtool_core::runner::provider::AuthStyle, String)>,
    concurrency: usize,
) -> Result<Arc<dyn Transport>, RunCmdError> {
    let Some(path) = &args.cassette else {
        return Ok(Arc::new(UreqTransport::new(auth, concurrency)));
    };
    if args.offline {
        let bytes = fs::read(path).map_err(at(path))?;
        let cassette =
            Cassette::parse(&bytes).map_err(|e| usage(format!("{}: {e}", path.display())))?;
        eprintln!(
            "offline: answering from {} ({} recorded exchange(s)); nothing is sent",
            path.display(),
            cassette.entries().len()
        );
        return Ok(Arc::new(CassetteTransport::replay(cassette)));
    }
    let inner: Arc<dyn Transport> = Arc::new(UreqTransport::new(auth, concurrency));
    Ok(Arc::new(
        CassetteTransport::record(inner, path).map_err(at(path))?,
    ))
}

/// The run's validated definition from the arguments.
pub(crate) fn run_spec(
    args: &RunArgs,
    model: String,
    fingerprint: String,
    backend: BackendSettings,
    pricing: Option<wildtool_core::cost::ModelPrice>,
) -> Result<RunSpec, RunCmdError> {
    Ok(RunSpec::new(RunSettings {
        pricing,
        max_cost: args.max_cost,
        trials: args.trials,
        concurrency: args.concurrency,
        timeout: args.timeout,
        retries: args.retries,
        backoff: args.backoff,
        preflight: !args.no_preflight,
        breaker_threshold: args.breaker_threshold,
        adaptive: !args.fixed_concurrency,
        stream: args.stream,
        stream_idle_timeout: args.stream_idle_timeout,
        ..RunSettings::new(model, fingerprint, backend)
    })?)
}

/// A progress display: a bar on a terminal, plain lines (at most every 2 s) otherwise.
pub(crate) struct Display {
    bar: Option<indicatif::ProgressBar>,
    last_line: Option<Instant>,
}

impl Display {
    pub(crate) fn new() -> Self {
        let bar = std::io::stderr().is_terminal().then(|| {
            let bar = indicatif::ProgressBar::new(0);
            let style = indicatif::ProgressStyle::with_template(
                "{bar:30} {pos}/{len} tasks {per_sec} eta {eta} {wide_msg}",
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

    pub(crate) fn update(&mut self, p: &ProgressSnapshot) {
        match &self.bar {
            Some(bar) => {
                bar.set_length(p.total);
                bar.set_position(p.settled());
                bar.set_message(format!(
                    "| names ok {} | incomplete {} | retries {} | {} | in flight {}/{}{}",
                    p.names_correct,
                    p.incomplete,
                    p.retries,
                    p.tokens_said(),
                    p.in_flight,
                    p.concurrency_limit,
                    p.detail()
                ));
            }
            None => {
                let due = self
                    .last_line
                    .is_none_or(|t| t.elapsed() >= Duration::from_secs(2))
                    || p.settled() == p.total;
                if due {
                    eprintln!("{}", p.line());
                    self.last_line = Some(Instant::now());
                }
            }
        }
    }

    pub(crate) fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}

/// Stages `incomplete.json` (or the removal of a stale one).
fn stage_incomplete(set: &mut OutputSet, end: &RunEnd, trials: u32) -> Result<(), FileError> {
    if end.incomplete.is_empty() {
        return set.remove("incomplete.json");
    }
    let list: Vec<serde_json::Value> = end
        .incomplete
        .iter()
        .map(|t| {
            let mut v =
                serde_json::json!({"id": t.id, "task": t.key.task, "reason": redact(&t.reason)});
            if trials > 1 {
                v["trial"] = serde_json::json!(t.key.trial);
            }
            v
        })
        .collect();
    let text = serde_json::to_string_pretty(&serde_json::json!({
        "note": "tasks given up for transport reasons; they are not model errors, their sessions are left out of result.jsonl, and re-running the same command resumes them",
        "tasks": list,
    }))
    .unwrap_or_default();
    set.write("incomplete.json", text + "\n")
}

/// The text of `run.json` (`{"wildtool_run_status": 1, …}`): how the run ended (or
/// `refused` with the reason, when its final scoring was refused), its settings and
/// counters, and what adaptive concurrency did.
fn run_json(spec: &RunSpec, end: &RunEnd, refused: Option<(&str, &str)>) -> String {
    let p = &end.progress;
    let c = &end.concurrency;
    let (status, reason, fix) = match refused {
        Some((status, reason)) => (status.to_owned(), Some(reason.to_owned()), None),
        None => (
            end.status.as_str().to_owned(),
            end.reason.as_deref().map(redact),
            end.fix.as_deref().map(redact),
        ),
    };
    let doc = serde_json::json!({
        "wildtool_run_status": 1,
        "model_name": spec.model(),
        "status": status,
        "reason": reason,
        "fix": fix,
        "trials": spec.trials(),
        "tasks_total": end.tasks_total,
        "tasks_scored": end.tasks_scored,
        "settings": {
            "concurrency": spec.concurrency(),
            "adaptive_concurrency": spec.adaptive(),
            "timeout": spec.timeout(),
            "retries": spec.retries(),
            "backoff": spec.backoff(),
            "preflight": spec.preflight(),
            "breaker_threshold": spec.breaker_threshold(),
            "stream": spec.stream(),
            "stream_idle_timeout": spec.stream().then(|| spec.stream_idle_timeout()),
        },
        "concurrency": {
            "max": c.max,
            "min_limit": c.min_limit,
            "final_limit": c.final_limit,
            "decreases": c.decreases,
        },
        "counters": {
            "finished_now": p.done,
            "resumed": p.resumed,
            "incomplete": p.incomplete,
            "requests": p.requests,
            "retries": p.retries,
            "input_tokens": p.input_tokens,
            "output_tokens": p.output_tokens,
            "elapsed_seconds": p.elapsed,
            "spent": end.spent,
            "first_token_seconds": p.first_token,
        },
    });
    serde_json::to_string_pretty(&doc).unwrap_or_default() + "\n"
}

/// Why the run's final scoring is refused when the dataset file no longer holds the bytes
/// the run read at its start (the run scores those bytes, but its outputs name the file).
fn dataset_changed(path: &Path, started: &str) -> Option<String> {
    let then = fingerprint_hex(started);
    match read_text(path) {
        Ok(now) if now == started => None,
        Ok(now) => Some(format!(
            "{}: the dataset changed on disk during the run (fingerprint {then} when the run started, {} now); nothing was scored or written. Restore the file and re-run the same command to score the checkpoint",
            path.display(),
            fingerprint_hex(&now)
        )),
        Err(e) => Some(format!(
            "{}: the dataset cannot be read again at the end of the run ({e}); nothing was scored or written",
            path.display()
        )),
    }
}

/// The drive Ctrl-C cancels (the current one: a sweep runs several in turn).
static INTERRUPT_TARGET: std::sync::Mutex<Option<crate::native::Controller>> =
    std::sync::Mutex::new(None);
static INTERRUPT_INSTALL: std::sync::Once = std::sync::Once::new();

/// Ctrl-C cancels the current run through its driver's channel (noticed at once):
/// in-flight requests are abandoned, finished tasks stay in the checkpoint, the command
/// exits with the incomplete code (re-run to resume). A second Ctrl-C exits at once (the
/// checkpoint is flushed per task, so nothing finished is lost either way). The handler
/// is installed once per process; each run names itself the target.
pub(crate) fn install_interrupt_handler(controller: crate::native::Controller) {
    if let Ok(mut target) = INTERRUPT_TARGET.lock() {
        *target = Some(controller);
    }
    INTERRUPT_INSTALL.call_once(|| {
        let presses = std::sync::atomic::AtomicUsize::new(0);
        let installed = ctrlc::set_handler(move || {
            if presses.fetch_add(1, std::sync::atomic::Ordering::SeqCst) > 0 {
                std::process::exit(130);
            }
            eprintln!("\ninterrupted: stopping; finished tasks are kept, re-run the same command to resume (Ctrl-C again to quit now)");
            if let Ok(target) = INTERRUPT_TARGET.lock() {
                if let Some(c) = target.as_ref() {
                    c.send(Control::Cancel);
                }
            }
        });
        if let Err(e) = installed {
            eprintln!(
                "warning: cannot install the Ctrl-C handler ({e}); Ctrl-C will end the run at once"
            );
        }
    });
}

/// What the runs of every kind start from: the dataset's bytes and fingerprint, the run's
/// settings checked into one spec, and the endpoint's authentication.
pub(crate) struct Prepared {
    /// The dataset file's bytes, as read at the start (the run scores these).
    pub dataset_text: String,
    /// Their fingerprint.
    pub fingerprint: String,
    /// The run's settings.
    pub spec: RunSpec,
    /// How the endpoint authenticates, with the key (`None` for built-in agents).
    pub auth: Option<(wildtool_core::runner::provider::AuthStyle, String)>,
}

/// Reads the dataset and builds the run's spec (prices from the price table).
pub(crate) fn prepare(args: &RunArgs) -> Result<Prepared, RunCmdError> {
    let dataset_text = read_text(&args.dataset)?;
    let fingerprint = fingerprint_hex(&dataset_text);
    let (backend_settings, model, key) = backend(args)?;
    let auth = match &backend_settings {
        BackendSettings::Http { provider, .. } => key.map(|k| (provider.auth(), k)),
        BackendSettings::Agent(_) => None,
    };
    let pricing = args.prices.choice()?.pricing(&model);
    let spec = run_spec(
        args,
        model,
        fingerprint.clone(),
        backend_settings,
        pricing.map(|p| p.prices),
    )?;
    Ok(Prepared {
        dataset_text,
        fingerprint,
        spec,
        auth,
    })
}

/// The sessions `--sessions` selects (all without it); refused when it selects none.
pub(crate) fn selected_sessions<'a>(
    args: &RunArgs,
    sessions: &'a [Session],
) -> Result<Vec<&'a Session>, RunCmdError> {
    let range = args
        .sessions
        .as_deref()
        .map(SessionRange::parse)
        .transpose()
        .map_err(|e| usage(e.to_string()))?;
    let selected: Vec<&Session> = sessions
        .iter()
        .filter(|s| range.as_ref().is_none_or(|r| r.contains(s.index)))
        .collect();
    if selected.is_empty() {
        return Err(usage("no sessions selected"));
    }
    Ok(selected)
}

/// Runs `wildtool run`: 0 when every task is scored, 3 when some are not (resumable).
pub fn run(args: &RunArgs) -> Result<ExitCode, RunCmdError> {
    Ok(match execute(args)? {
        RunStatus::Done => ExitCode::SUCCESS,
        _ => ExitCode::from(EXIT_INCOMPLETE),
    })
}

/// Runs, writes and scores one run (see the module docs); returns how it ended.
pub(crate) fn execute(args: &RunArgs) -> Result<RunStatus, RunCmdError> {
    let dataset_text = read_text(&args.dataset)?;
    let (backend, model, key) = backend(args)?;
    let auth = match &backend {
        BackendSettings::Http { provider, .. } => key.map(|k| (provider.auth(), k)),
        BackendSettings::Agent(_) => None,
    };
    let prices = args.prices.choice()?;
    let pricing = prices.pricing(&model);
    if pricing.is_none() && (args.prices.given() || args.max_cost.is_some()) {
        eprintln!(
            "note: no price for {:?} in the price table; the run's cost is not computed",
            prices.entry_name(&model)
        );
    }
    let spec = run_spec(
        args,
        model,
        fingerprint_hex(&dataset_text),
        backend,
        pricing.as_ref().map(|p| p.prices.clone()),
    )?;
    let loaded = load_dataset(&dataset_text, args.lang);
    let errors = loaded.errors().count();
    if errors > 0 {
        eprintln!(
            "warning: dataset {} has {errors} error(s) (run `wildtool validate`)",
            args.dataset.display()
        );
    }
    let sessions = selected_sessions(args, &loaded.sessions)?;
    if args.dry_run {
        print_estimate(&spec, &sessions, pricing.as_ref());
        return Ok(RunStatus::Done);
    }
    fs::create_dir_all(&args.out).map_err(at(&args.out))?;
    // The resume reads the directory: an interrupted set is settled first.
    super::commit::settle(&args.out)?;
    let checkpoint = args.out.join("checkpoint.jsonl");
    if fs::symlink_metadata(&checkpoint).is_ok_and(|m| !m.is_file()) {
        return Err(super::commit::refuse(
            &checkpoint,
            "is not a regular file (a symbolic link?); the checkpoint is never written through a link",
        )
        .into());
    }
    let mut store = FileStore::new(&checkpoint);
    let stored = store.load()?;
    let transport = transport(args, auth, spec.concurrency())?;
    let mut driver = Driver::new(transport);
    let mut engine = match Engine::new(&sessions, spec.clone(), &stored, driver.now()) {
        Ok(e) => e,
        Err(EngineError::Checkpoint(m)) => return Err(m.into()),
        Err(EngineError::NoSessions) => return Err(usage("no sessions selected")),
    };
    engine.set_stream_readers(Box::new(CoreReaders::default()));
    install_interrupt_handler(driver.controller());
    let started_unix = unix_now();
    let mut display = Display::new();
    let end = driver.run(&mut engine, |event| {
        match event {
            Event::Persist(line) => store.append(&line)?,
            Event::Progress(p) => display.update(&p),
            _ => {}
        }
        Ok::<(), StoreError>(())
    });
    display.finish();
    let end = end?;
    let p = &end.progress;
    if let Some(class) = end.preflight {
        return Err(RunCmdError::Preflight {
            class: class.label(),
            reason: redact(end.reason.as_deref().unwrap_or_default()),
            fix: end.fix.as_deref().map(redact),
        });
    }
    eprintln!(
        "run: {} task(s) finished now, {} resumed from the checkpoint, {} incomplete; {} request(s), {} retr(y/ies), {}, {:.1}s",
        p.done, p.resumed, p.incomplete, p.requests, p.retries, p.tokens_said(), p.elapsed
    );
    if spec.stream() {
        match &p.first_token {
            Some(t) => eprintln!("stream: {}", t.describe()),
            None => eprintln!("stream: no streamed reply produced output"),
        }
    }
    let c = &end.concurrency;
    if c.decreases > 0 {
        eprintln!(
            "concurrency: lowered {} time(s) after rate limiting (lowest {}, final {}, maximum {})",
            c.decreases, c.min_limit, c.final_limit, c.max
        );
    }
    if let Some(spent) = end.spent {
        eprintln!(
            "spent: {} {} by the replies' reported usage{}",
            wildtool_core::cost::figures::money(spent),
            pricing.as_ref().map(|p| p.currency.as_str()).unwrap_or(""),
            args.max_cost
                .map(|l| format!(" (limit {l})"))
                .unwrap_or_default()
        );
    }
    let trial_dirs = trial_dirs(&args.out, spec.trials());
    let cached = wildtool_core::cost::usage::cached_from_records(
        &FileStore::new(&args.out.join("checkpoint.jsonl")).load()?,
    );
    // The run's sessions are its tasks_total (a --sessions run is not partial by itself).
    let dataset_text = Arc::new(dataset_text);
    let scope = ScoreExtras {
        prices: pricing.is_some().then(|| prices.clone()),
        sessions: Some(sessions.iter().map(|s| s.index).collect()),
        run: Some(run_meta(args, &spec, &end, started_unix)),
        quiet: args.quiet,
        dataset_text: Some(dataset_text.clone()),
        ..ScoreExtras::default()
    };
    // The whole output set of the run: every trial's files, trials.json, run.json and
    // incomplete.json, committed together (or, when the scoring is refused, only run.json
    // and incomplete.json saying so, the previous results left as they were).
    let mut inputs: Vec<&Path> = vec![&args.dataset];
    inputs.extend(args.replay_file.as_deref());
    let mut set = OutputSet::begin(&args.out, &inputs)?;
    let mut refused = dataset_changed(&args.dataset, &dataset_text);
    let mut scored_any = false;
    let mut printed = Vec::new();
    for (t, (dir, assembled)) in trial_dirs.iter().zip(&end.trials).enumerate() {
        if refused.is_some() {
            break;
        }
        let prefix = if spec.trials() == 1 {
            String::new()
        } else {
            format!("trial-{}/", t + 1)
        };
        let scope = ScoreExtras {
            cached: Some(
                cached
                    .iter()
                    .filter(|((trial, _, _), _)| *trial as usize == t + 1)
                    .map(|((_, l, k), c)| ((*l, *k), c.clone()))
                    .collect(),
            ),
            ..scope.clone()
        };
        let result_name = format!("{prefix}result.jsonl");
        set.write(&result_name, &assembled.text)?;
        if assembled.sessions == 0 {
            eprintln!(
                "{}: no complete session yet; nothing to score",
                dir.join("result.jsonl").display()
            );
            for name in ["score.jsonl", "metric.json", "report.json"] {
                set.remove(&format!("{prefix}{name}"))?;
            }
            continue;
        }
        let staged = score_into(
            &ScoreArgs {
                dataset: args.dataset.clone(),
                results: set.staged(&result_name),
                out: dir.clone(),
                lang: args.lang,
                model_name: None,
                candidate_cap: args.candidate_cap,
            },
            &scope,
            &mut set,
            &prefix,
        )?;
        match staged {
            Ok(staged) => {
                scored_any = true;
                printed.push(staged);
            }
            Err(message) => refused = Some(message),
        }
    }
    if refused.is_none() && !scored_any && end.status == RunStatus::Done {
        refused = Some("no task could be scored".to_owned());
    }
    if let Some(message) = refused {
        drop(set);
        let message = redact(&message);
        let mut set = OutputSet::begin(&args.out, &inputs)?;
        set.write(
            "run.json",
            run_json(&spec, &end, Some(("refused", &message))),
        )?;
        stage_incomplete(&mut set, &end, spec.trials())?;
        set.commit()?;
        return Err(RunCmdError::Refused(format!(
            "{message}\n  run.json records the refusal; the previous results in {} were left as they were",
            args.out.display()
        )));
    }
    if spec.trials() > 1 && scored_any {
        let staged_dirs: Vec<PathBuf> = (1..=spec.trials())
            .map(|t| set.staged(&format!("trial-{t}")))
            .collect();
        let doc = trials_doc(args, &dataset_text, &staged_dirs, spec.model())?;
        set.write("trials.json", doc + "\n")?;
    }
    set.write("run.json", run_json(&spec, &end, None))?;
    stage_incomplete(&mut set, &end, spec.trials())?;
    super::manifest_out::write_manifest(
        args,
        &spec,
        &end,
        driver.take_exchanges(),
        started_unix,
        super::manifest_out::RunFiles {
            kind: &super::manifest_out::OFFICIAL,
            dirs: &trial_dirs,
        },
        &mut set,
    )?;
    let written = set.commit()?;
    for staged in printed {
        if args.quiet {
            for n in staged.notes {
                eprintln!("{n}");
            }
        } else {
            print!("{}", staged.table);
            for n in staged.notes {
                println!("{n}");
            }
        }
    }
    eprintln!("wrote {}", super::commit::listed(&written));
    if !end.incomplete.is_empty() {
        eprintln!(
            "warning: {} task(s) incomplete (transport); see {}; re-run to resume",
            end.incomplete.len(),
            args.out.join("incomplete.json").display()
        );
    }
    let shapes: Vec<_> = task_shapes(&wildtool_core::protocol::load_checked(
        &dataset_text,
        args.lang,
    ))
    .into_iter()
    .filter(|s| sessions.iter().any(|x| x.index == s.session as usize))
    .collect();
    let reasons = end
        .incomplete
        .iter()
        .map(|t| {
            (
                (t.key.line as u32, t.key.task as u8),
                format!("not scored: {}", t.reason),
            )
        })
        .collect();
    super::ci_out::write_run_outputs(
        &args.ci,
        spec.model(),
        &shapes,
        &trial_dirs,
        &reasons,
        &inputs,
    )?;
    if end.status != RunStatus::Done {
        if let Some(reason) = &end.reason {
            eprintln!("run {}: {}", end.status.as_str(), redact(reason));
        }
        if let Some(fix) = &end.fix {
            eprintln!("  fix: {}", redact(fix));
        }
    }
    Ok(end.status)
}

/// The end of an env or own-history run as the terminal shows it: a failed preflight as
/// its error, else one progress line (`what` names the run) and every incomplete task with
/// its reason, the key redacted.
pub(crate) fn report_end(what: &str, end: &RunEnd) -> Result<(), RunCmdError> {
    if let Some(class) = end.preflight {
        return Err(RunCmdError::Preflight {
            class: class.label(),
            reason: end.reason.clone().unwrap_or_default(),
            fix: end.fix.clone(),
        });
    }
    let p = &end.progress;
    eprintln!(
        "{what}: {} task(s) finished now, {} resumed from the checkpoint, {} incomplete; {} request(s), {} retr(y/ies), {}, {:.1}s",
        p.done, p.resumed, p.incomplete, p.requests, p.retries, p.tokens_said(), p.elapsed
    );
    for t in &end.incomplete {
        eprintln!(
            "  incomplete: {} task {} — {}",
            t.id,
            t.key.task,
            super::redact(&t.reason)
        );
    }
    Ok(())
}

/// The directories of a run's trials: `out` itself for one trial, `out/trial-N/` else.
pub(crate) fn trial_dirs(out: &Path, trials: u32) -> Vec<PathBuf> {
    if trials == 1 {
        vec![out.to_path_buf()]
    } else {
        (1..=trials)
            .map(|t| out.join(format!("trial-{t}")))
            .collect()
    }
}

/// Prints the dry-run estimate of a run.
fn print_estimate(
    spec: &RunSpec,
    sessions: &[&Session],
    pricing: Option<&wildtool_core::cost::Pricing>,
) {
    let temperature = match spec.backend() {
        wildtool_core::runner::engine::Backend::Http { temperature, .. } => *temperature,
        wildtool_core::runner::engine::Backend::Agent(_) => 0.0,
    };
    let (provider, endpoint) = match spec.endpoint() {
        Some((p, e)) => (p, e),
        None => {
            println!(
                "dry run: {} task(s) × {} trial(s) answered by a built-in agent: no requests, no cost",
                sessions.iter().map(|s| s.tasks.len()).sum::<usize>(),
                spec.trials()
            );
            return;
        }
    };
    let est = wildtool_core::runner::dry_run::estimate_run(
        sessions,
        spec.trials(),
        provider,
        &endpoint,
        spec.model(),
        temperature,
        pricing.map(|p| &p.prices),
    );
    let err = est.relative_error * 100.0;
    println!(
        "dry run: {} task(s), about {} request(s) along the gold paths, {} prompt and {} completion tokens (± {err:.0}%)",
        est.tasks, est.requests, est.input_tokens, est.output_tokens
    );
    match (est.cost, pricing) {
        (Some(c), Some(p)) => println!(
            "estimated cost: {} {} (± {err:.0}%: {} to {}; prices of {} from the {}); reasoning tokens and extra steps are not included, prompt caching would lower it",
            wildtool_core::cost::figures::money(c),
            p.currency,
            wildtool_core::cost::figures::money(c * (1.0 - est.relative_error)),
            wildtool_core::cost::figures::money(c * (1.0 + est.relative_error)),
            p.model,
            p.source
        ),
        _ => println!(
            "estimated cost: unknown (no price for {:?}; give --prices FILE or --price-model NAME)",
            spec.model()
        ),
    }
}

pub(crate) fn unix_now() -> f64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs_f64())
        .unwrap_or(0.0)
}

/// The run's metadata for `report.json` (never the key; of the endpoint only its origin).
/// Request and token totals are the whole run's, so they are left out when the run has
/// several trials (each trial has its own `report.json`).
fn run_meta(args: &RunArgs, spec: &RunSpec, end: &RunEnd, started_unix: f64) -> RunMeta {
    let mut meta = RunMeta::new(spec.model(), spec.model(), spec.dataset());
    meta.provider = Some(args.provider.clone());
    meta.endpoint = spec
        .endpoint()
        .and_then(|(_, e)| RunMeta::endpoint_of(&e.base_url));
    meta.dataset.name = args
        .dataset
        .file_name()
        .map(|n| n.to_string_lossy().into_owned());
    meta.started_at = rfc3339(started_unix);
    meta.finished_at = rfc3339(unix_now());
    meta.duration_seconds = Some(end.progress.elapsed);
    if spec.trials() == 1 {
        meta.tokens = Some(Tokens {
            input: end.progress.input_tokens,
            output: end.progress.output_tokens,
        });
        meta.requests = Some(end.progress.requests);
    }
    if spec.endpoint().is_some() {
        let c = end.concurrency;
        meta.concurrency = Some(ConcurrencyMeta {
            max: c.max as u64,
            min: c.min_limit as u64,
            final_limit: c.final_limit as u64,
            decreases: c.decreases,
            browser_cap: None,
        });
    }
    if spec.stream() {
        meta.stream = Some(StreamMeta {
            first_token: end.progress.first_token,
        });
    }
    meta
}

/// The `trials.json` document of a run's per-trial outcomes.
pub(crate) fn trials_json(
    shapes: &[wildtool_core::share::TaskShape],
    fingerprint: u64,
    model: &str,
    trials: Vec<Vec<wildtool_core::outcome::TaskOutcome>>,
) -> Result<String, RunCmdError> {
    let run = RunInput {
        label: model.to_owned(),
        fingerprint,
        trials,
    };
    let doc = trials_report(
        &run,
        DatasetRef {
            fingerprint,
            shapes,
        },
        &BootstrapOptions::default(),
    )
    .map_err(|e| usage(e.to_string()))?;
    Ok(doc.to_json())
}

/// The `trials.json` text from the trials' (staged) `report.json` files (a trial without
/// one counts as unscored in every task).
fn trials_doc(
    args: &RunArgs,
    dataset_text: &str,
    trial_dirs: &[PathBuf],
    model: &str,
) -> Result<String, RunCmdError> {
    let loaded = wildtool_core::protocol::load_checked(dataset_text, args.lang);
    let shapes = task_shapes(&loaded);
    let fp = fingerprint(dataset_text);
    let mut trials = Vec::new();
    for dir in trial_dirs {
        let report = dir.join("report.json");
        if report.is_file() {
            let outcomes = outcomes_from_report(&report).map_err(|e| usage(e.to_string()))?;
            trials.push(outcomes);
        } else {
            trials.push(Vec::new());
        }
    }
    trials_json(&shapes, fp, model, trials)
}
