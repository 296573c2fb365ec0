//! Command-line parsing and dispatch.

mod files;
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
}

/// Runs the CLI and maps errors to exit codes (1: failure, 2: invalid input).
pub fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Validate { file, lang, semantic } => validate_cmd::validate(&file, lang.into(), semantic),
        Command::Stats { file, lang } => validate_cmd::stats(&file, lang.into()),
        Command::Score { dataset, results, out, lang, model_name, candidate_cap } => score_cmd::score(
            &score_cmd::ScoreArgs { dataset, results, out, lang: lang.into(), model_name, candidate_cap },
        ),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("wildtool: {e}");
            ExitCode::from(1)
        }
    }
}
