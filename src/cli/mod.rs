//! Command-line parsing and dispatch (one module per subcommand).

mod audit_cmd;
mod ci_out;
pub mod commit;
mod compare_cmd;
mod env_cmd;
mod env_run_cmd;
pub mod files;
mod gate_cmd;
mod generate_cmd;
mod manifest_out;
mod own_run_cmd;
mod plan_cmd;
mod prices;
mod probe_cmd;
mod report_cmd;
mod run_cmd;
mod score_cmd;
mod sweep_cmd;
mod validate_cmd;
mod verify_cmd;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};

use wildtool_core::dataset::Lang;
use wildtool_core::runner::engine::{DEFAULT_BREAKER_THRESHOLD, DEFAULT_STREAM_IDLE_TIMEOUT};
use wildtool_core::runner::registry;

/// Exit code of a command that failed (IO, unexpected input).
pub const EXIT_FAILURE: u8 = 1;
/// Exit code of invalid arguments or inputs (also clap's).
pub const EXIT_USAGE: u8 = 2;
/// Exit code of a run with tasks that are not scored (incomplete, cancelled, stopped):
/// re-run the same command to resume.
pub const EXIT_INCOMPLETE: u8 = 3;
/// Exit code of a run whose endpoint failed the preflight (nothing was sent).
pub const EXIT_PREFLIGHT: u8 = 4;

/// The keys this process holds, redacted by value from every message it prints or
/// stores ([`redact`]).
static SECRETS: std::sync::Mutex<Option<wildtool_core::runner::redact::Redactor>> =
    std::sync::Mutex::new(None);

/// Adds a key to the process's redactor (the moment it is read from the environment).
pub fn register_secret(key: &str) {
    if let Ok(mut guard) = SECRETS.lock() {
        guard.get_or_insert_with(Default::default).add(key);
    }
}

/// `text` with every key this process holds replaced (the core's redactor).
pub fn redact(text: &str) -> String {
    match SECRETS.lock() {
        Ok(guard) => match guard.as_ref() {
            Some(r) => r.redact(text),
            None => text.to_owned(),
        },
        Err(_) => text.to_owned(),
    }
}

/// The process's redactor (for the transport).
pub fn redactor() -> wildtool_core::runner::redact::Redactor {
    SECRETS
        .lock()
        .ok()
        .and_then(|g| g.clone())
        .unwrap_or_default()
}

/// The exit code of a file error: 2 for an output refused before anything was written
/// (a symlink, a directory in the way, an input), 1 for IO failures.
pub fn file_exit_code(e: &files::FileError) -> u8 {
    if commit::is_refusal(e) {
        EXIT_USAGE
    } else {
        EXIT_FAILURE
    }
}

/// Every way a command can fail.
#[derive(Debug, thiserror::Error)]
pub enum CliError {
    /// File IO.
    #[error(transparent)]
    File(#[from] files::FileError),
    /// `wildtool run`.
    #[error(transparent)]
    Run(#[from] run_cmd::RunCmdError),
    /// `wildtool report`.
    #[error(transparent)]
    Report(#[from] report_cmd::ReportError),
    /// `wildtool compare`.
    #[error(transparent)]
    Compare(#[from] compare_cmd::CompareCmdError),
    /// `wildtool generate`.
    #[error(transparent)]
    Generate(#[from] generate_cmd::GenerateCmdError),
    /// `wildtool sweep`.
    #[error(transparent)]
    Sweep(#[from] sweep_cmd::SweepCmdError),
    /// `wildtool gate`.
    #[error(transparent)]
    Gate(#[from] gate_cmd::GateCmdError),
    /// `wildtool plan`.
    #[error(transparent)]
    Plan(#[from] plan_cmd::PlanCmdError),
    /// `--prices`.
    #[error(transparent)]
    Prices(#[from] prices::PriceOptsError),
    /// `wildtool probe-stream` with unusable options.
    #[error(transparent)]
    Probe(#[from] probe_cmd::ProbeUsage),
    /// `wildtool env-score`, `wildtool env-export`.
    #[error(transparent)]
    Env(#[from] env_cmd::EnvCmdError),
}

impl CliError {
    /// The process exit code: 2 for invalid arguments or inputs, 4 for a failed
    /// preflight, 1 for other failures (3, a resumable run, is not an error).
    pub fn exit_code(&self) -> u8 {
        match self {
            CliError::File(e) => file_exit_code(e),
            CliError::Run(e) => e.exit_code(),
            CliError::Report(report_cmd::ReportError::Usage(_)) => EXIT_USAGE,
            CliError::Report(report_cmd::ReportError::File(e)) => file_exit_code(e),
            CliError::Compare(compare_cmd::CompareCmdError::Usage(_)) => EXIT_USAGE,
            CliError::Compare(compare_cmd::CompareCmdError::File(e)) => file_exit_code(e),
            CliError::Generate(generate_cmd::GenerateCmdError::Usage(_)) => EXIT_USAGE,
            CliError::Generate(generate_cmd::GenerateCmdError::File(e)) => file_exit_code(e),
            CliError::Generate(_) => EXIT_FAILURE,
            CliError::Sweep(e) => e.exit_code(),
            CliError::Gate(_) => EXIT_USAGE,
            CliError::Plan(plan_cmd::PlanCmdError::File(e)) => file_exit_code(e),
            CliError::Plan(_) => EXIT_USAGE,
            CliError::Prices(prices::PriceOptsError::File(_)) => EXIT_FAILURE,
            CliError::Prices(_) => EXIT_USAGE,
            CliError::Probe(_) => EXIT_USAGE,
            CliError::Env(env_cmd::EnvCmdError::Usage(_)) => EXIT_USAGE,
            CliError::Env(env_cmd::EnvCmdError::File(e)) => file_exit_code(e),
        }
    }
}

/// Evaluate LLM tool use on WildToolBench-format data, with exact parity to the official
/// scorer.
#[derive(Debug, Parser)]
#[command(name = "wildtool", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

/// Dataset language.
#[derive(Debug, Clone, Copy, ValueEnum)]
enum LangArg {
    /// The `english_*` fields (default).
    En,
    /// The Chinese fields.
    Zh,
}

impl From<LangArg> for Lang {
    fn from(l: LangArg) -> Self {
        match l {
            LangArg::En => Lang::En,
            LangArg::Zh => Lang::Zh,
        }
    }
}

/// Export formats.
#[derive(Debug, Clone, Copy, ValueEnum)]
enum ExportFormat {
    /// Every Eval Ever (schema 0.3.0): aggregate record and instance-level JSONL.
    Eee,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Check a dataset file; exit 2 and list every problem when it is invalid.
    Validate {
        /// The dataset (JSON Lines).
        file: PathBuf,
        /// Which language's fields to read.
        #[arg(long, value_enum, default_value = "en")]
        lang: LangArg,
        /// Also run the semantic checks for curated suites (topology vs. declared type,
        /// gold arguments vs. the argument checker).
        #[arg(long)]
        semantic: bool,
        /// With --semantic: also check every ledger_env scenario (the initial ledger
        /// reads and checks, every gold tool is implemented, strict replay of the gold
        /// observations, no order-dependent parallel step, the assertions hold on the
        /// expected states, the gold answers mention every must_mention item and the
        /// gold writes leave no soft violation).
        #[arg(long, requires = "semantic")]
        env: bool,
    },
    /// Re-score a ledger-environment run (a wildtool extension) offline by replaying
    /// its recorded calls: writes OUT/env-report.json, byte for byte what the run wrote.
    /// A damaged line costs that line only (named by number). Exit code 2 when a line
    /// was not scored or the file belongs to another dataset or environment version.
    EnvScore {
        /// The dataset the run was made on.
        #[arg(long)]
        dataset: PathBuf,
        /// The run's env-result.jsonl.
        #[arg(long)]
        results: PathBuf,
        /// Output directory.
        #[arg(long)]
        out: PathBuf,
        /// Use the recomputed results where the environment now answers differently
        /// from the recorded ones (tau2's non-strict replay) instead of refusing the line.
        #[arg(long)]
        lenient: bool,
    },
    /// Write one task's ledger of a ledger-environment run as canonical Beancount text
    /// (`actual`, `expected`) or their unified diff (`diff`).
    EnvExport {
        /// The run's output directory (holds env-result.jsonl and env-run.json).
        #[arg(long)]
        run: PathBuf,
        /// The dataset (default: the one env-run.json names).
        #[arg(long)]
        dataset: Option<PathBuf>,
        /// Session: its 0-based index in the dataset.
        #[arg(long)]
        session: usize,
        /// Task: 0-based position in the session (default: the last task).
        #[arg(long)]
        task: Option<usize>,
        /// Which ledger.
        #[arg(long, value_enum, default_value = "actual")]
        which: WhichArg,
        /// The file to write.
        #[arg(long)]
        out: PathBuf,
    },
    /// Print the distribution table of a dataset (and a generated suite's factor tables)
    /// with its fingerprint. Exit code 2 when the file is not a dataset.
    Stats {
        /// The dataset (JSON Lines).
        file: PathBuf,
        /// Which language's fields to read.
        #[arg(long, value_enum, default_value = "en")]
        lang: LangArg,
    },
    /// Score a result file: writes score.jsonl, metric.json and report.json into DIR
    /// (together, or not at all). Exit code 2 when the file holds no results (a dataset,
    /// a CSV, an empty file …) or its results belong to another dataset.
    Score {
        /// The dataset the results were produced on.
        #[arg(long)]
        dataset: PathBuf,
        /// The result file (official `*_result.jsonl` layout), a `wildtool run`
        /// checkpoint.jsonl or a run exported by the page.
        #[arg(long)]
        results: PathBuf,
        /// Output directory (created if missing).
        #[arg(long)]
        out: PathBuf,
        /// Which language's fields to read.
        #[arg(long, value_enum, default_value = "en")]
        lang: LangArg,
        /// Model name for metric.json (default: the result file's, with / as _).
        #[arg(long)]
        model_name: Option<String>,
        /// Cap on the gold candidates logged per step after an action error.
        ///
        /// The official code logs one candidate per alive path, which can grow
        /// exponentially; beyond the cap only distinct entries are logged, with
        /// "candidates_truncated": true. No label or metric depends on it.
        #[arg(long, default_value_t = wildtool_core::protocol::DEFAULT_CANDIDATE_CAP)]
        candidate_cap: usize,
        /// Score results that do not match the dataset anyway (report.json records it).
        #[arg(long)]
        force: bool,
        /// Threads scoring result lines at once (1 to 256; default 1: on two cores a second
        /// thread costs more CPU than the wall time it saves, docs/speed.md).
        ///
        /// The files are the same bytes whatever the number: lines are scored in any
        /// order and counted and written in the score file's order.
        #[arg(long, value_parser = clap::value_parser!(u32).range(1..=256))]
        jobs: Option<u32>,
        #[command(flatten)]
        prices: prices::PriceOpts,
        #[command(flatten)]
        ci: ci_out::CiOpts,
    },
    /// Compare runs on one dataset: exact McNemar test, paired session-bootstrap intervals
    /// and per-category differences for every pair; writes compare.json and compare.html
    /// into OUT. Exit code 2 when the runs were scored on another dataset.
    Compare {
        /// Runs: `run`/`score` output directories (report.json, else result.jsonl),
        /// directories of trials (trial-1/, trial-2/ …), report.json or result files.
        #[arg(required = true, num_args = 2..)]
        runs: Vec<PathBuf>,
        /// The dataset the runs were scored on (its fingerprint is checked).
        #[arg(long)]
        dataset: PathBuf,
        /// Output directory (compare.json and compare.html; created if missing).
        #[arg(long)]
        out: PathBuf,
        /// Labels for the runs, in order (repeatable; default: the model names).
        #[arg(long = "label")]
        labels: Vec<String>,
        /// Which language's fields to read (for result files).
        #[arg(long, value_enum, default_value = "en")]
        lang: LangArg,
        /// Cap on the gold candidates logged per step after an action error (for result
        /// files; see `wildtool score --help`).
        #[arg(long, default_value_t = wildtool_core::protocol::DEFAULT_CANDIDATE_CAP)]
        candidate_cap: usize,
        #[command(flatten)]
        ci: ci_out::CiOpts,
    },
    /// Audit the dataset's items from several runs of it: items no run passes, items every
    /// run passes, items whose failures share one argument value or one error class
    /// across runs, items where several runs agree with each other against the gold, and
    /// per-item difficulty and discrimination from a Rasch fit (docs/verify.md). Prints the
    /// counts and the items to check first; --json and --md write the whole audit. Exit
    /// code 2 when the runs were scored on another dataset.
    Audit {
        /// Runs: `run`/`score` output directories (report.json, else result.jsonl; failure
        /// details from score.jsonl), directories of trials, report.json or result files.
        #[arg(required = true)]
        runs: Vec<PathBuf>,
        /// The dataset the runs were scored on (its fingerprint is checked).
        #[arg(long)]
        dataset: PathBuf,
        /// Write the audit as JSON (audit.json format 1) to this file.
        #[arg(long)]
        json: Option<PathBuf>,
        /// Write the audit as a Markdown report (to file against the dataset) to this file.
        #[arg(long)]
        md: Option<PathBuf>,
        /// Labels for the runs, in order (repeatable; default: the model names).
        #[arg(long = "label")]
        labels: Vec<String>,
        /// Items to check listed on the terminal.
        #[arg(long, default_value_t = 10)]
        top: usize,
        /// Which language's fields to read (for result files).
        #[arg(long, value_enum, default_value = "en")]
        lang: LangArg,
        /// Cap on the gold candidates logged per step after an action error (for result
        /// files; see `wildtool score --help`).
        #[arg(long, default_value_t = wildtool_core::protocol::DEFAULT_CANDIDATE_CAP)]
        candidate_cap: usize,
    },
    /// Gate a candidate run against a baseline run for CI: exit 1 only when the candidate
    /// is worse with evidence (the paired exact test's p below --alpha and the paired
    /// session-bootstrap interval's upper bound below −--margin), 0 otherwise (the reason
    /// is printed in one line), 2 when the runs cannot be gated (another dataset, nothing
    /// scored, fewer sessions than --min-sessions). The numbers are `compare`'s.
    Gate(GateOpts),
    /// Plan a gated comparison from pilot runs: the smallest drop the gate detects with
    /// 80% power at --sessions × --trials, and with --difference the sessions that drop
    /// needs. The model and its assumptions are printed with the numbers; --simulate
    /// checks them with simulated gates drawn from the same pilot.
    Plan(PlanOpts),
    /// Generate a fresh suite in the official format from the built-in domain packs,
    /// deterministic from the seed and the factors. Exit code 2: invalid or impossible
    /// factors.
    ///
    /// A factor that is set is the same in every session of the suite; one left unset is
    /// drawn per session from a default close to the bundled suite's distribution. The
    /// same names and values make up a spec string (seed=7,sessions=64,transitions=2),
    /// which the page's dataset=generate:… address and `wildtool sweep` take.
    Generate(generate_cmd::GenerateOpts),
    /// Run a model (or a built-in agent) on a dataset with the official protocol, with
    /// checkpoint/resume; writes result.jsonl in DIR and scores it like `score`.
    /// Exit codes: 2 invalid settings; 3 some tasks are not scored (incomplete, cancelled
    /// or stopped; re-run to resume); 4 the endpoint failed the preflight.
    Run(RunOpts),
    /// Sweep one factor of a generated suite: one suite per level (every other factor
    /// held fixed, sessions paired across levels), each run and scored like `run` in
    /// DIR/level-<value>/, then DIR/sweep.json, DIR/sweep.html and a table with 95%
    /// intervals and a test for trend. Re-running the same command resumes unfinished
    /// levels. Exit codes as `run`: 2 invalid options, 3 some level is not done, 4 the
    /// endpoint failed the preflight.
    Sweep(SweepOpts),
    /// Check that an endpoint streams tool calls faithfully: the same small set of tool
    /// tasks (parallel calls, nested arguments, long arguments, several calls of one
    /// function) sent once without streaming and once streamed, at temperature 0, and the
    /// calls compared (names, argument JSON, count). A difference is reported as the
    /// server's, with both replies and, for known servers (vLLM, SGLang, llama.cpp,
    /// Ollama, TGI), the fix or version to look for. Exit codes: 0 the calls agree; 1 the
    /// server loses or changes calls when streaming; 2 invalid options; 3 inconclusive
    /// (the model made no call, or a task got no reply); 4 no usable reply at all.
    ProbeStream(probe_cmd::ProbeOpts),
    /// Export a run in a shared results schema: `--format eee` writes Every Eval Ever
    /// (schema 0.3.0) records under OUT/data/<benchmark>/<developer>/<model>/: per output
    /// directory (per trial) one aggregate record and its instance-level JSONL (one
    /// multi-turn record per task: transcript, label, error class, tokens, latency). An
    /// env run exports as its own benchmark (wildtoolbench-ledger-env). Exit code 2 when
    /// the run cannot be read (it needs the manifest.json of a run).
    Export {
        /// The run directory (`wildtool run --out`).
        run: PathBuf,
        /// The format.
        #[arg(long, value_enum)]
        format: ExportFormat,
        /// The dataset the run was made on.
        #[arg(long)]
        dataset: PathBuf,
        /// Output directory (default: RUN/eee).
        #[arg(long)]
        out: Option<PathBuf>,
        /// Which language's fields to read.
        #[arg(long, value_enum, default_value = "en")]
        lang: LangArg,
    },
    /// Verify a run's claims: re-score its results against the dataset (checked by
    /// fingerprint), recompute every claimed file, number and hash, and print each claim
    /// with ✓ or ✗ and the first difference (the first differing task where labels
    /// differ). BUNDLE is a run directory, or files: a manifest.json, a result file, the
    /// claimed metric.json / report.json / score.jsonl, a cassette, or a run file the page
    /// exported (*.wildtool-run.json: its manifest and results, every trial's) — an
    /// official harness's result file with its metric.json verifies too. Exit codes: 0 every claim holds;
    /// 1 a claim fails; 2 the bundle cannot be read.
    Verify {
        /// A run directory, or the bundle's files.
        #[arg(required = true)]
        bundle: Vec<PathBuf>,
        /// The dataset the run was made on.
        #[arg(long)]
        dataset: PathBuf,
        /// The run's cassette (default: the one its manifest names, in the run directory).
        #[arg(long)]
        cassette: Option<PathBuf>,
        /// Which language's fields to read.
        #[arg(long, value_enum, default_value = "en")]
        lang: LangArg,
        /// Cap on the gold candidates logged per step after an action error (see
        /// `wildtool score --help`).
        #[arg(long, default_value_t = wildtool_core::protocol::DEFAULT_CANDIDATE_CAP)]
        candidate_cap: usize,
    },
    /// Write a self-contained HTML report (headline rates, charts with data tables,
    /// summary) from the report.json of a `score` or `run` output directory.
    Report {
        /// The dataset the run was scored on (its fingerprint is checked).
        #[arg(long)]
        dataset: Option<PathBuf>,
        /// A `score`/`run` output directory (reads DIR/report.json).
        #[arg(long, conflicts_with = "from")]
        score_dir: Option<PathBuf>,
        /// A report.json file.
        #[arg(long)]
        from: Option<PathBuf>,
        /// The HTML file to write.
        #[arg(long)]
        out: PathBuf,
        /// Published models to compare with (repeatable; names as in
        /// data/paper-leaderboard.json).
        #[arg(long, default_values_t = ["GPT-4o".to_owned(), "Claude-4-Sonnet".to_owned(), "Qwen3-8B".to_owned()])]
        compare: Vec<String>,
    },
}

/// Which ledger `env-export` writes.
#[derive(Debug, Clone, Copy, ValueEnum)]
enum WhichArg {
    /// The ledger the model left.
    Actual,
    /// The expected ledger (the state before the task plus the gold writes).
    Expected,
    /// The unified diff of the expected and the actual ledger.
    Diff,
}

/// An evaluation environment (a wildtool extension).
#[derive(Debug, Clone, Copy, ValueEnum)]
enum EnvArg {
    /// The stateful ledger environment: tool calls run on an in-memory Beancount ledger
    /// and each task is judged on the state it leaves.
    Ledger,
}

/// The history each task of a run sees.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum HistoryArg {
    /// The gold history of the earlier tasks (the official protocol).
    Gold,
    /// The model's own conversation of the earlier tasks (an extension).
    Own,
}

/// Options of `wildtool gate`.
#[derive(Debug, clap::Args)]
struct GateOpts {
    /// The baseline run: a `run`/`score` output directory, a directory of trials, a
    /// report.json or a result file (as for `compare`).
    #[arg(long)]
    baseline: PathBuf,
    /// The candidate run (same kinds of input).
    #[arg(long)]
    candidate: PathBuf,
    /// The dataset both runs were scored on (its fingerprint is checked).
    #[arg(long)]
    dataset: PathBuf,
    /// What to gate on: task (task accuracy), session (session accuracy) or names
    /// (tool-name accuracy) for official runs; env_task or env_session (env_success of
    /// tasks or whole sessions) for ledger-environment runs, a wildtool extension.
    #[arg(long, default_value = "task")]
    metric: String,
    /// Significance level of the paired exact test; the interval's confidence is 1 − alpha.
    #[arg(long, default_value_t = 0.05)]
    alpha: f64,
    /// Points (0-100) by which the interval's upper bound must lie below zero to fail.
    #[arg(long, default_value_t = 0.0)]
    margin: f64,
    /// Refuse to decide (exit 2) when fewer sessions than this were scored in both runs.
    #[arg(long, default_value_t = 0)]
    min_sessions: u64,
    /// Which language's fields to read (for result files).
    #[arg(long, value_enum, default_value = "en")]
    lang: LangArg,
    /// Cap on logged candidates after an action error (for result files).
    #[arg(long, default_value_t = wildtool_core::protocol::DEFAULT_CANDIDATE_CAP)]
    candidate_cap: usize,
    #[command(flatten)]
    ci: ci_out::CiOpts,
}

/// Options of `wildtool plan`.
#[derive(Debug, clap::Args)]
struct PlanOpts {
    /// The pilot run (any input `compare` takes; a directory of trials gives the plan the
    /// run-to-run noise).
    #[arg(long)]
    pilot: PathBuf,
    /// A second pilot run (e.g. the candidate, or a second run of the baseline): its
    /// per-task disagreement with the first is the noise planned for.
    #[arg(long)]
    pilot_b: Option<PathBuf>,
    /// The dataset the pilots were scored on.
    #[arg(long)]
    dataset: PathBuf,
    /// Sessions per planned run (default: the dataset's).
    #[arg(long)]
    sessions: Option<u64>,
    /// Trials per planned run (1-100).
    #[arg(long, default_value_t = 1)]
    trials: u32,
    /// A drop in points (0-100) to find the sessions for.
    #[arg(long)]
    difference: Option<f64>,
    /// The gate's --alpha.
    #[arg(long, default_value_t = 0.05)]
    alpha: f64,
    /// The gate's --margin in points.
    #[arg(long, default_value_t = 0.0)]
    margin: f64,
    /// The power asked for.
    #[arg(long, default_value_t = 0.8)]
    power: f64,
    /// Check the plan with this many simulated gates from the pilot model (0: none).
    #[arg(long, default_value_t = 0)]
    simulate: usize,
    /// Seed of the simulation.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Also write the plan as JSON to this file.
    #[arg(long)]
    json: Option<PathBuf>,
    /// Which language's fields to read (for result files).
    #[arg(long, value_enum, default_value = "en")]
    lang: LangArg,
    /// Cap on logged candidates after an action error (for result files).
    #[arg(long, default_value_t = wildtool_core::protocol::DEFAULT_CANDIDATE_CAP)]
    candidate_cap: usize,
}

/// Options of `wildtool run`.
#[derive(Debug, clap::Args)]
struct RunOpts {
    /// The dataset (JSON Lines).
    #[arg(long)]
    dataset: PathBuf,
    /// Output directory (checkpoint.jsonl, result.jsonl, score.jsonl, metric.json, report.json).
    #[arg(long)]
    out: PathBuf,
    /// Run in an environment instead of the official protocol (an extension, never an
    /// official number): `ledger` runs the sessions with a ledger_env field on an
    /// in-memory ledger and writes env-result.jsonl, env-report.json and env-run.json
    /// (not score.jsonl or metric.json). Sessions without ledger_env are skipped; exit
    /// code 2 when none has one.
    #[arg(long, value_enum)]
    env: Option<EnvArg>,
    /// Which history each task sees: `gold` (the official protocol; what official numbers
    /// use) or `own` (an extension: each task continues the model's own conversation of
    /// the session's earlier tasks; tool calls are answered by the canned environment —
    /// a call matching a gold node of the task by name gets its gold observation, any
    /// other an error observation — or, with --env ledger, by the ledger, which then
    /// carries over). Own history writes own-result.jsonl, own-report.json and
    /// own-report.html, labelled as an extension; `wildtool score` refuses them.
    #[arg(long, value_enum, default_value = "gold")]
    history: HistoryArg,
    /// Estimate the run's requests, tokens and cost (from the dataset's rendered requests
    /// along the gold paths, times the trials) and exit without running or writing.
    #[arg(long)]
    dry_run: bool,
    /// Record every request/reply pair into this cassette (JSON Lines, appended; see
    /// docs/verify.md), or with --offline answer from it.
    #[arg(long)]
    cassette: Option<PathBuf>,
    /// With --cassette: answer every request from the cassette and send nothing; a
    /// request the cassette does not hold leaves its task incomplete (exit code 3).
    #[arg(long, requires = "cassette")]
    offline: bool,
    #[command(flatten)]
    ci: ci_out::CiOpts,
    #[command(flatten)]
    run: EngineOpts,
}

/// How a run is made (shared by `wildtool run` and `wildtool sweep`).
#[derive(Debug, clap::Args)]
struct EngineOpts {
    /// Model name sent to the endpoint and written to the result file (required for
    /// openai, anthropic and gemini; default for the built-in agents: the agent's name).
    #[arg(long)]
    model: Option<String>,
    /// Endpoint base URL, e.g. http://127.0.0.1:8000/v1: an absolute http(s) URL with a
    /// host (required for openai; anthropic and gemini default to their APIs).
    #[arg(long)]
    base_url: Option<String>,
    /// What answers the tasks (see the long help).
    #[arg(long, default_value = "openai", long_help = registry::provider_help())]
    provider: String,
    /// Environment variable holding the API key (default: the provider's, e.g.
    /// OPENAI_API_KEY, ANTHROPIC_API_KEY, GEMINI_API_KEY). The key is never written anywhere.
    #[arg(long)]
    api_key_env: Option<String>,
    /// Tasks in flight at most (1-256). The run lowers it on rate limiting (429/503/529,
    /// Retry-After) and raises it again, unless --fixed-concurrency is given.
    #[arg(long, default_value_t = registry::DEFAULTS.concurrency as u64)]
    concurrency: u64,
    /// Keep the concurrency fixed (no adaptive lowering on rate limiting).
    #[arg(long)]
    fixed_concurrency: bool,
    /// Sampling temperature (0-2).
    #[arg(long, default_value_t = registry::DEFAULTS.temperature)]
    temperature: f64,
    /// Per-request timeout in seconds (0.1-3600).
    #[arg(long, default_value_t = registry::DEFAULTS.timeout_secs)]
    timeout: f64,
    /// Retries per request on 408/409/425/429/5xx, network errors and timeouts (0-20)
    /// before the task is incomplete; other statuses are never retried.
    #[arg(long, default_value_t = u64::from(registry::DEFAULTS.retries))]
    retries: u64,
    /// First backoff delay in seconds (0-600; doubles per retry, with jitter). A server's
    /// Retry-After is honoured up to the longest delay these settings allow, and never
    /// longer than --timeout.
    #[arg(long, default_value_t = registry::DEFAULTS.backoff_secs)]
    backoff: f64,
    /// Run every task K times as independent trials (1-100): writes OUT/trial-1/ …
    /// OUT/trial-K/ and OUT/trials.json.
    #[arg(long, default_value_t = 1)]
    trials: u64,
    /// Skip the preflight request that checks the endpoint before any task (without it, a
    /// failed check stops the run with the reason, a fix and exit code 4).
    #[arg(long)]
    no_preflight: bool,
    /// Stream every request (the official request plus the dialect's stream switch; see
    /// docs/streaming.md) and reassemble the event streams into the replies a
    /// non-streaming request returns: scored exactly as without streaming, with
    /// first-token latency measured. Check the server with `wildtool probe-stream` first.
    #[arg(long)]
    stream: bool,
    /// With --stream: the longest silence between two chunks of a reply, in seconds
    /// (0.1-3600), before the request counts as timed out (and is retried); --timeout
    /// still bounds the whole reply.
    #[arg(long, default_value_t = DEFAULT_STREAM_IDLE_TIMEOUT)]
    stream_idle_timeout: f64,
    /// Stop the run when this many tasks in a row fail with the same non-retryable error
    /// (0-10000; 0 = never). Finished tasks are kept; re-run to resume.
    #[arg(long, default_value_t = DEFAULT_BREAKER_THRESHOLD)]
    breaker_threshold: u64,
    /// Sessions to run (0-based dataset lines), e.g. 0-9,12,20- (default: all). The
    /// report counts only these sessions' tasks.
    #[arg(long)]
    sessions: Option<String>,
    /// Result file whose recorded outputs --provider replay re-feeds (required for replay).
    #[arg(long)]
    replay_file: Option<PathBuf>,
    /// Which language's fields to read.
    #[arg(long, value_enum, default_value = "en")]
    lang: LangArg,
    /// Cap on the gold candidates logged per step after an action error (see
    /// `wildtool score --help`).
    #[arg(long, default_value_t = wildtool_core::protocol::DEFAULT_CANDIDATE_CAP)]
    candidate_cap: usize,
    #[command(flatten)]
    prices: prices::PriceOpts,
    /// Stop the run cleanly (partial, resumable) before its spend, by the replies' reported
    /// usage and the price table, would pass this amount (in the table's currency).
    #[arg(long)]
    max_cost: Option<f64>,
}

impl EngineOpts {
    fn args(self, dataset: PathBuf, out: PathBuf) -> run_cmd::RunArgs {
        run_cmd::RunArgs {
            dataset,
            model: self.model,
            base_url: self.base_url,
            provider: self.provider,
            api_key_env: self.api_key_env,
            concurrency: self.concurrency,
            fixed_concurrency: self.fixed_concurrency,
            temperature: self.temperature,
            timeout: self.timeout,
            retries: self.retries,
            backoff: self.backoff,
            trials: self.trials,
            no_preflight: self.no_preflight,
            stream: self.stream,
            stream_idle_timeout: self.stream_idle_timeout,
            breaker_threshold: self.breaker_threshold,
            sessions: self.sessions,
            replay_file: self.replay_file,
            out,
            lang: self.lang.into(),
            candidate_cap: self.candidate_cap,
            quiet: false,
            prices: self.prices,
            max_cost: self.max_cost,
            dry_run: false,
            ci: ci_out::CiOpts::default(),
            cassette: None,
            offline: false,
            env_name: None,
        }
    }
}

/// Options of `wildtool sweep`.
#[derive(Debug, clap::Args)]
struct SweepOpts {
    /// The factor and its levels: name=level,level,… with 2-16 levels (e.g.
    /// transitions=0,1,2,3; a list value joins its items with +, e.g.
    /// types=single+chat+chat+chat,multi+multi+multi+multi). The factors are those of
    /// `wildtool generate --help`.
    #[arg(long)]
    factor: String,
    /// Sessions per level (session i of every level shares its other draws).
    #[arg(long)]
    per_level: usize,
    /// Seed of every level's suite.
    #[arg(long)]
    seed: u64,
    /// Factors held fixed at every level, as name=value pairs joined by commas (e.g.
    /// distractors=1,domains=weather+maps); the others are drawn per session, paired
    /// across levels.
    #[arg(long)]
    hold: Option<String>,
    /// Output directory: DIR/level-<value>/ per level (dataset.jsonl and the run's files),
    /// DIR/sweep.json and DIR/sweep.html.
    #[arg(long)]
    out: PathBuf,
    #[command(flatten)]
    run: EngineOpts,
}

/// The command-line definition (for tests that walk every subcommand).
pub fn command() -> clap::Command {
    <Cli as clap::CommandFactory>::command()
}

/// Runs the CLI and maps errors to exit codes ([`CliError::exit_code`]).
pub fn main() -> ExitCode {
    let cli = Cli::parse();
    match dispatch(cli.command) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("wildtool: {}", redact(&e.to_string()));
            ExitCode::from(e.exit_code())
        }
    }
}

fn dispatch(command: Command) -> Result<ExitCode, CliError> {
    Ok(match command {
        Command::Validate {
            file,
            lang,
            semantic,
            env,
        } => validate_cmd::validate(&file, lang.into(), semantic, env)?,
        Command::EnvScore {
            dataset,
            results,
            out,
            lenient,
        } => env_cmd::env_score(&dataset, &results, &out, lenient)?,
        Command::EnvExport {
            run,
            dataset,
            session,
            task,
            which,
            out,
        } => {
            let which = match which {
                WhichArg::Actual => env_cmd::Which::Actual,
                WhichArg::Expected => env_cmd::Which::Expected,
                WhichArg::Diff => env_cmd::Which::Diff,
            };
            env_cmd::env_export(&run, dataset.as_deref(), session, task, which, &out)?
        }
        Command::Stats { file, lang } => validate_cmd::stats(&file, lang.into())?,
        Command::Score {
            dataset,
            results,
            out,
            lang,
            model_name,
            candidate_cap,
            force,
            jobs,
            prices,
            ci,
        } => {
            score_cmd::without_huge_pages();
            score_cmd::score_with(
                &score_cmd::ScoreArgs {
                    dataset,
                    results,
                    out,
                    lang: lang.into(),
                    model_name,
                    candidate_cap,
                },
                &score_cmd::ScoreExtras {
                    force,
                    jobs,
                    prices: if prices.given() {
                        Some(prices.choice()?)
                    } else {
                        None
                    },
                    ci,
                    exits_after: true,
                    ..score_cmd::ScoreExtras::default()
                },
            )?
        }
        Command::Report {
            dataset,
            score_dir,
            from,
            out,
            compare,
        } => {
            report_cmd::report(&report_cmd::ReportArgs {
                dataset,
                score_dir,
                from,
                out,
                compare,
            })?;
            ExitCode::SUCCESS
        }
        Command::Compare {
            runs,
            dataset,
            out,
            labels,
            lang,
            candidate_cap,
            ci,
        } => {
            compare_cmd::compare(&compare_cmd::CompareArgs {
                runs,
                dataset,
                out,
                lang: lang.into(),
                labels,
                candidate_cap,
                ci,
            })?;
            ExitCode::SUCCESS
        }
        Command::Gate(o) => gate_cmd::gate(&gate_cmd::GateArgs {
            baseline: o.baseline,
            candidate: o.candidate,
            dataset: o.dataset,
            metric: o.metric,
            rule: wildtool_core::compare::gate::GateRule {
                alpha: o.alpha,
                margin_points: o.margin,
                min_sessions: o.min_sessions,
            },
            lang: o.lang.into(),
            candidate_cap: o.candidate_cap,
            ci: o.ci,
        })?,
        Command::Plan(o) => {
            plan_cmd::plan_cmd(&plan_cmd::PlanArgs {
                pilot: o.pilot,
                pilot_b: o.pilot_b,
                dataset: o.dataset,
                sessions: o.sessions,
                trials: o.trials,
                rule: wildtool_core::compare::gate::GateRule {
                    alpha: o.alpha,
                    margin_points: o.margin,
                    min_sessions: 0,
                },
                power: o.power,
                difference: o.difference,
                simulate: o.simulate,
                seed: o.seed,
                json: o.json,
                lang: o.lang.into(),
                candidate_cap: o.candidate_cap,
            })?;
            ExitCode::SUCCESS
        }
        Command::Audit {
            runs,
            dataset,
            json,
            md,
            labels,
            top,
            lang,
            candidate_cap,
        } => {
            audit_cmd::audit_cmd(&audit_cmd::AuditArgs {
                runs,
                dataset,
                json,
                md,
                labels,
                lang: lang.into(),
                candidate_cap,
                top,
            })?;
            ExitCode::SUCCESS
        }
        Command::Generate(o) => generate_cmd::generate(&o)?,
        Command::ProbeStream(o) => probe_cmd::probe_stream(&o)?,
        Command::Export {
            run,
            format: ExportFormat::Eee,
            dataset,
            out,
            lang,
        } => verify_cmd::export_cmd(&verify_cmd::ExportArgs {
            out: out.unwrap_or_else(|| run.join("eee")),
            run,
            dataset,
            lang: lang.into(),
        })?,
        Command::Verify {
            bundle,
            dataset,
            cassette,
            lang,
            candidate_cap,
        } => verify_cmd::verify_cmd(&verify_cmd::VerifyArgs {
            bundle,
            dataset,
            cassette,
            lang: lang.into(),
            candidate_cap,
        }),
        Command::Run(o) => {
            let args = run_cmd::RunArgs {
                dry_run: o.dry_run,
                ci: o.ci,
                cassette: o.cassette,
                offline: o.offline,
                env_name: o.env.map(|e| match e {
                    EnvArg::Ledger => "ledger",
                }),
                ..o.run.args(o.dataset, o.out)
            };
            match (o.history, o.env) {
                (HistoryArg::Own, env) => own_run_cmd::run(&args, env.is_some())?,
                (HistoryArg::Gold, Some(EnvArg::Ledger)) => env_run_cmd::run(&args)?,
                (HistoryArg::Gold, None) => run_cmd::run(&args)?,
            }
        }
        Command::Sweep(o) => sweep_cmd::sweep(&sweep_cmd::SweepArgs {
            factor: o.factor,
            per_level: o.per_level,
            seed: o.seed,
            hold: o.hold,
            out: o.out.clone(),
            run: o.run.args(o.out.join("dataset.jsonl"), o.out),
        })?,
    })
}
