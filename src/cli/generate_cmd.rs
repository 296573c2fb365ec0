//! `wildtool generate`: writes a fresh suite from the built-in domain packs.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use wildtool_core::generate::{GenerateError, GenerateSpec, PackText};

/// The domain packs compiled into the binary (`data/packs/*.json`).
pub const BUILTIN_PACKS: &[PackText<'static>] = &[
    PackText {
        name: "calendar.json",
        text: include_str!("../../data/packs/calendar.json"),
    },
    PackText {
        name: "common.json",
        text: include_str!("../../data/packs/common.json"),
    },
    PackText {
        name: "devtools.json",
        text: include_str!("../../data/packs/devtools.json"),
    },
    PackText {
        name: "email.json",
        text: include_str!("../../data/packs/email.json"),
    },
    PackText {
        name: "finance-ledger.json",
        text: include_str!("../../data/packs/finance-ledger.json"),
    },
    PackText {
        name: "fitness.json",
        text: include_str!("../../data/packs/fitness.json"),
    },
    PackText {
        name: "home.json",
        text: include_str!("../../data/packs/home.json"),
    },
    PackText {
        name: "maps.json",
        text: include_str!("../../data/packs/maps.json"),
    },
    PackText {
        name: "music.json",
        text: include_str!("../../data/packs/music.json"),
    },
    PackText {
        name: "news.json",
        text: include_str!("../../data/packs/news.json"),
    },
    PackText {
        name: "recipes.json",
        text: include_str!("../../data/packs/recipes.json"),
    },
    PackText {
        name: "shopping.json",
        text: include_str!("../../data/packs/shopping.json"),
    },
    PackText {
        name: "travel.json",
        text: include_str!("../../data/packs/travel.json"),
    },
    PackText {
        name: "weather.json",
        text: include_str!("../../data/packs/weather.json"),
    },
];

/// Options of `wildtool generate` (every factor is optional).
#[derive(Debug, clap::Args)]
pub struct GenerateOpts {
    /// Seed of the suite: the same seed and factors give the same bytes everywhere.
    #[arg(long)]
    pub seed: u64,
    /// Number of sessions (four tasks each).
    #[arg(long)]
    pub sessions: usize,
    /// The JSON Lines file to write.
    #[arg(long)]
    pub out: PathBuf,
    /// Changes of coarse task type per session (0-3).
    ///
    /// Exactly K changes of coarse type (Single, Multi, Clarify, Chat; PROTOCOL §7.3)
    /// between consecutive tasks. Must agree with --types when both are set.
    #[arg(long)]
    pub transitions: Option<String>,
    /// Four task types, e.g. single,chat,clarify,multi (single, parallel, sequential, mixed, multi, clarify, chat).
    ///
    /// The task types of every session, in order; `multi` leaves the exact Multi-Tool type
    /// to --multi. Unset: drawn from --transitions.
    #[arg(long)]
    pub types: Option<String>,
    /// Exact type of Multi-Tool tasks: parallel, sequential or mixed.
    #[arg(long)]
    pub multi: Option<String>,
    /// Calls of a Parallel task (2-8).
    ///
    /// Independent calls in one step; the same function may appear several times with
    /// different arguments.
    #[arg(long)]
    pub width: Option<String>,
    /// Calls of a Sequential task (2-5).
    ///
    /// A chain in which each call takes an id returned by the previous one.
    #[arg(long)]
    pub depth: Option<String>,
    /// Graph of a Mixed task: chain-side, fan-out, fan-in or two-chains.
    ///
    /// chain-side: a→b plus an independent c; fan-out: a→b, a→c; fan-in: a→c, b→c;
    /// two-chains: a→b plus c→d.
    #[arg(long)]
    pub shape: Option<String>,
    /// Hidden-intent subtypes of tasks 2-4: coref, partial or long (one, or three joined by commas).
    ///
    /// How each later task refers back to a value of the conversation: by a phrase
    /// (coref: "that city"), by leaving it out (partial), or by pointing at a turn at least
    /// three dialogue turns back (long: "the city I mentioned in my first message").
    #[arg(long)]
    pub subtypes: Option<String>,
    /// Distance of a long-range dependency in dialogue turns (3-6).
    ///
    /// Exact distance of every Long-Range Dependency. Unset: the nearest source at least
    /// 3 turns back. Distances of 4-6 need clarifications in between.
    #[arg(long)]
    pub distance: Option<String>,
    /// Clarification rounds of a Clarify task (1-2).
    #[arg(long)]
    pub rounds: Option<String>,
    /// Class of the parameter the first clarification asks for: name, date, number or choice.
    ///
    /// name: a name, title or address; date: a date or time; number: a number or amount;
    /// choice: an enum value. Unset: any askable parameter.
    #[arg(long)]
    pub missing: Option<String>,
    /// Tools offered but never called, per session (0-4).
    ///
    /// Look-alikes of the called tools first (similar names and descriptions), then other
    /// look-alikes, then unused tools of the domain.
    #[arg(long)]
    pub distractors: Option<String>,
    /// How dates, quantities and enum values are stated: literal, transformed or mixed.
    ///
    /// literal: as the argument needs them ("on 2025-03-18", "90 minutes", "in metric
    /// units"); transformed: in words the model must convert ("this coming Tuesday", "at
    /// half past 7 in the evening", "1.5 hours", "in Celsius"); mixed (the default) draws
    /// each value.
    #[arg(long)]
    pub args: Option<String>,
    /// Domains to draw from (pack ids or domain names, joined by commas).
    ///
    /// Unset: every domain pack, drawn by its weight (the finance ledger 4, the others 1).
    #[arg(long)]
    pub domains: Option<String>,
    /// Environment of the sessions: none or ledger (a wildtool extension).
    ///
    /// ledger: finance-ledger sessions with a `ledger_env` scenario (initial ledger with
    /// months of reconciled history, receipts), observations computed by running the gold
    /// calls through the ledger environment, for `wildtool run --env ledger`. Their task
    /// types and tools follow --challenge, so the structure factors above are refused.
    #[arg(long)]
    pub env: Option<String>,
    /// What ledger sessions test: compositional, correction, question, clarify or mixed.
    ///
    /// compositional: a read beside a receipt booking in one request; correction: a write,
    /// then "make it X instead of Y" (amend, not re-add); question: writes each followed
    /// by a question about them (no write expected); clarify: writes whose amount must be
    /// asked first; mixed (the default) draws one per session. Implies --env ledger.
    #[arg(long)]
    pub challenge: Option<String>,
}

/// Errors of `wildtool generate`.
#[derive(Debug, thiserror::Error)]
pub enum GenerateCmdError {
    /// Invalid or impossible factors (exit code 2).
    #[error("{0}")]
    Usage(GenerateError),
    /// Broken packs or no draw satisfies the factors.
    #[error(transparent)]
    Generate(GenerateError),
    /// Writing the file failed.
    #[error(transparent)]
    File(#[from] super::files::FileError),
}

impl From<GenerateError> for GenerateCmdError {
    fn from(e: GenerateError) -> Self {
        match e {
            GenerateError::Spec(_) | GenerateError::Infeasible { .. } => Self::Usage(e),
            other => Self::Generate(other),
        }
    }
}

impl GenerateOpts {
    fn spec(&self) -> Result<GenerateSpec, GenerateError> {
        let mut spec = GenerateSpec::new(self.seed, 0);
        spec.set("sessions", &self.sessions.to_string())?;
        let factors = [
            ("transitions", &self.transitions),
            ("types", &self.types),
            ("multi", &self.multi),
            ("width", &self.width),
            ("depth", &self.depth),
            ("shape", &self.shape),
            ("subtypes", &self.subtypes),
            ("distance", &self.distance),
            ("rounds", &self.rounds),
            ("missing", &self.missing),
            ("distractors", &self.distractors),
            ("args", &self.args),
            ("domains", &self.domains),
            ("env", &self.env),
            ("challenge", &self.challenge),
        ];
        for (name, value) in factors {
            if let Some(v) = value {
                spec.set(name, v)?;
            }
        }
        spec.check()?;
        Ok(spec)
    }
}

fn write(path: &Path, text: &str) -> Result<(), super::files::FileError> {
    super::files::write_file(path, text, &[])
}

/// Runs `wildtool generate`: writes the suite and reports its spec and fingerprint.
pub fn generate(opts: &GenerateOpts) -> Result<ExitCode, GenerateCmdError> {
    let spec = opts.spec()?;
    let text = wildtool_core::ledger::generated::generate(BUILTIN_PACKS, &spec)?;
    write(&opts.out, &text)?;
    eprintln!(
        "{}: {} sessions ({}), fingerprint {}",
        opts.out.display(),
        spec.sessions,
        spec.to_text(),
        wildtool_core::dataset::fingerprint_hex(&text)
    );
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_compiled_packs_are_the_core_list() {
        let names: Vec<&str> = BUILTIN_PACKS.iter().map(|p| p.name).collect();
        assert_eq!(names, wildtool_core::generate::pack::PACK_FILES);
    }
}
