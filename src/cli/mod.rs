//! Command-line parsing and dispatch.

mod files;
mod generate_cmd;
mod report_cmd;
mod run_cmd;
mod score_cmd;
mod validate_cmd;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};

use wildtool::dataset::Lang;

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
    },
    /// Print the distribution table of a dataset.
    Stats {
        /// The dataset (JSON Lines).
        file: PathBuf,
        /// Which language's fields to read.
        #[arg(long, value_enum, default_value = "en")]
        lang: LangArg,
    },
    /// Score an official-format result file: writes score.jsonl, metric.json and
    /// report.json into DIR.
    Score {
        /// The dataset the results were produced on.
        #[arg(long)]
        dataset: PathBuf,
        /// The result file (official `*_result.jsonl` layout).
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
        /// Cap on logged candidates after an action error.
        #[arg(long, default_value_t = wildtool::protocol::DEFAULT_CANDIDATE_CAP)]
        candidate_cap: usize,
    },
    /// Generate a fresh suite in the official format from the built-in domain packs,
    /// deterministic from the seed and the factors.
    Generate(generate_cmd::GenerateOpts),
    /// Run a model (or a built-in agent) on a dataset with the official protocol, with
    /// checkpoint/resume; writes result.jsonl in DIR and scores it like `score`.
    /// Exit code 3: some tasks are incomplete for transport reasons (re-run to resume).
    Run(RunOpts),
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
        /// Published models to compare with (repeatable).
        #[arg(long, default_values_t = ["GPT-4o".to_owned(), "Claude-4-Sonnet".to_owned(), "Qwen3-8B".to_owned()])]
        compare: Vec<String>,
    },
}

/// Options of `wildtool run`.
#[derive(Debug, clap::Args)]
struct RunOpts {
    /// The dataset (JSON Lines).
    #[arg(long)]
    dataset: PathBuf,
    /// Model name sent to the endpoint and written to the result file (default: the provider name).
    #[arg(long)]
    model: Option<String>,
    /// Endpoint base URL, e.g. http://127.0.0.1:8000/v1 (required for openai).
    #[arg(long)]
    base_url: Option<String>,
    /// openai | anthropic | gold | baseline | replay.
    #[arg(long, default_value = "openai")]
    provider: String,
    /// Environment variable holding the API key (default OPENAI_API_KEY / ANTHROPIC_API_KEY).
    /// The key is never written anywhere.
    #[arg(long)]
    api_key_env: Option<String>,
    /// Tasks in flight at once.
    #[arg(long, default_value_t = 8)]
    concurrency: usize,
    /// Sampling temperature.
    #[arg(long, default_value_t = 0.0)]
    temperature: f64,
    /// Per-request timeout in seconds.
    #[arg(long, default_value_t = 600.0)]
    timeout: f64,
    /// Retries per request on 429/5xx/network errors before the task is incomplete.
    #[arg(long, default_value_t = 6)]
    retries: u32,
    /// First backoff delay in seconds (doubles per retry, with jitter; Retry-After wins).
    #[arg(long, default_value_t = 2.0)]
    backoff: f64,
    /// Sessions to run (0-based dataset lines), e.g. 0-9,12,20-.
    #[arg(long)]
    sessions: Option<String>,
    /// Result file whose outputs --provider replay re-feeds.
    #[arg(long)]
    replay_file: Option<PathBuf>,
    /// Output directory (checkpoint.jsonl, result.jsonl, score.jsonl, metric.json, report.json).
    #[arg(long)]
    out: PathBuf,
    /// Which language's fields to read.
    #[arg(long, value_enum, default_value = "en")]
    lang: LangArg,
    /// Cap on logged candidates after an action error.
    #[arg(long, default_value_t = wildtool::protocol::DEFAULT_CANDIDATE_CAP)]
    candidate_cap: usize,
}

/// Runs the CLI and maps errors to exit codes (1: failure, 2: invalid input).
pub fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Validate {
            file,
            lang,
            semantic,
        } => validate_cmd::validate(&file, lang.into(), semantic),
        Command::Stats { file, lang } => validate_cmd::stats(&file, lang.into()),
        Command::Score {
            dataset,
            results,
            out,
            lang,
            model_name,
            candidate_cap,
        } => score_cmd::score(&score_cmd::ScoreArgs {
            dataset,
            results,
            out,
            lang: lang.into(),
            model_name,
            candidate_cap,
        }),
        Command::Report {
            dataset,
            score_dir,
            from,
            out,
            compare,
        } => {
            return match report_cmd::report(&report_cmd::ReportArgs {
                dataset,
                score_dir,
                from,
                out,
                compare,
            }) {
                Ok(()) => ExitCode::SUCCESS,
                Err(e) => {
                    eprintln!("wildtool: {e}");
                    ExitCode::from(if matches!(e, report_cmd::ReportError::Usage(_)) {
                        2
                    } else {
                        1
                    })
                }
            };
        }
        Command::Generate(o) => {
            return match generate_cmd::generate(&o) {
                Ok(code) => code,
                Err(e) => {
                    eprintln!("wildtool: {e}");
                    ExitCode::from(1)
                }
            };
        }
        Command::Run(o) => {
            let args = run_cmd::RunArgs {
                dataset: o.dataset,
                model: o.model,
                base_url: o.base_url,
                provider: o.provider,
                api_key_env: o.api_key_env,
                concurrency: o.concurrency,
                temperature: o.temperature,
                timeout: o.timeout,
                retries: o.retries,
                sessions: o.sessions,
                replay_file: o.replay_file,
                out: o.out,
                lang: o.lang.into(),
                candidate_cap: o.candidate_cap,
                backoff: o.backoff,
            };
            return match run_cmd::run(&args) {
                Ok(code) => code,
                Err(e) => {
                    eprintln!("wildtool: {e}");
                    ExitCode::from(if matches!(e, run_cmd::RunCmdError::Usage(_)) {
                        2
                    } else {
                        1
                    })
                }
            };
        }
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("wildtool: {e}");
            ExitCode::from(1)
        }
    }
}
