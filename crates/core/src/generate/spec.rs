//! What to generate: the seed, the size and the factors, each fixed or left to its
//! default distribution. One parser serves the command line (`--name value`) and the
//! page (`seed=S,sessions=N,transitions=K`).

use std::fmt::Write as _;

use crate::outcome::{TaskType, TurnSubtype};

use super::GenerateError;

/// Largest suite the generator writes in one call.
pub const MAX_SESSIONS: usize = 1_000_000;
/// Largest number of distractor tools per session.
pub const MAX_DISTRACTORS: u8 = 4;
/// Largest long-range distance in dialogue turns.
pub const MAX_DISTANCE: u8 = 6;

/// A task type as the `types` factor names it: an official type, or `multi` for a
/// Multi-Tool task whose exact type the `multi` factor decides.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum TypeChoice {
    /// An official task type.
    Exact(TaskType),
    /// Some Multi-Tool type.
    Multi,
}

impl TypeChoice {
    fn parse(s: &str) -> Option<Self> {
        Some(match s.trim().to_ascii_lowercase().as_str() {
            "single" | "single-tool" => Self::Exact(TaskType::SingleTool),
            "parallel" => Self::Exact(TaskType::ParallelMultiTool),
            "sequential" => Self::Exact(TaskType::SequentialMultiTool),
            "mixed" => Self::Exact(TaskType::MixedMultiTool),
            "multi" => Self::Multi,
            "clarify" => Self::Exact(TaskType::Clarify),
            "chat" => Self::Exact(TaskType::Chat),
            _ => return None,
        })
    }

    fn name(self) -> &'static str {
        match self {
            Self::Exact(TaskType::SingleTool) => "single",
            Self::Exact(TaskType::ParallelMultiTool) => "parallel",
            Self::Exact(TaskType::SequentialMultiTool) => "sequential",
            Self::Exact(TaskType::MixedMultiTool) => "mixed",
            Self::Exact(TaskType::Clarify) => "clarify",
            Self::Exact(TaskType::Chat) => "chat",
            Self::Multi => "multi",
        }
    }
}

/// The exact type of a Multi-Tool task.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum MultiKind {
    /// Independent calls.
    Parallel,
    /// A chain.
    Sequential,
    /// Both.
    Mixed,
}

impl MultiKind {
    /// All kinds, in default-weight order.
    pub const ALL: [MultiKind; 3] = [Self::Parallel, Self::Sequential, Self::Mixed];

    /// The official task type.
    pub fn task_type(self) -> TaskType {
        match self {
            Self::Parallel => TaskType::ParallelMultiTool,
            Self::Sequential => TaskType::SequentialMultiTool,
            Self::Mixed => TaskType::MixedMultiTool,
        }
    }

    /// The factor value.
    pub fn name(self) -> &'static str {
        match self {
            Self::Parallel => "parallel",
            Self::Sequential => "sequential",
            Self::Mixed => "mixed",
        }
    }
}

/// The graph of a Mixed Multi-Tool task (tool calls only; the answer depends on the sinks).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum MixedShape {
    /// `a → b` and an independent `c` (3 calls).
    ChainSide,
    /// `a → b`, `a → c` (3 calls).
    FanOut,
    /// `a → c`, `b → c` (3 calls).
    FanIn,
    /// `a → b` and `c → d` (4 calls).
    TwoChains,
}

impl MixedShape {
    /// All shapes, in default-weight order.
    pub const ALL: [MixedShape; 4] = [Self::ChainSide, Self::FanOut, Self::FanIn, Self::TwoChains];

    /// The factor value.
    pub fn name(self) -> &'static str {
        match self {
            Self::ChainSide => "chain-side",
            Self::FanOut => "fan-out",
            Self::FanIn => "fan-in",
            Self::TwoChains => "two-chains",
        }
    }

    /// Parses a factor value.
    pub fn parse(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|x| x.name() == s.trim())
    }

    /// Number of tool calls.
    pub fn calls(self) -> usize {
        match self {
            Self::TwoChains => 4,
            _ => 3,
        }
    }
}

/// What kind of required parameter a clarification asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum MissingClass {
    /// A name, title, address or other free value (an entity or a text).
    Name,
    /// A date, time or period.
    Date,
    /// A number, amount or quantity with a unit.
    Number,
    /// One value of an enum.
    Choice,
}

impl MissingClass {
    /// All classes.
    pub const ALL: [MissingClass; 4] = [Self::Name, Self::Date, Self::Number, Self::Choice];

    /// The factor value.
    pub fn name(self) -> &'static str {
        match self {
            Self::Name => "name",
            Self::Date => "date",
            Self::Number => "number",
            Self::Choice => "choice",
        }
    }

    /// Parses a factor value.
    pub fn parse(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|x| x.name() == s.trim())
    }
}

/// How the user states dates, quantities with units and enum values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ArgStyle {
    /// Exactly as the argument needs them (`2025-03-18`, `90 minutes`, `metric`).
    Literal,
    /// In words the model must convert (`this coming Tuesday`, `1.5 hours`, `in Celsius`).
    Transformed,
    /// Each value literal or transformed with equal odds.
    Mixed,
}

impl ArgStyle {
    /// All styles.
    pub const ALL: [ArgStyle; 3] = [Self::Literal, Self::Transformed, Self::Mixed];

    /// The factor value.
    pub fn name(self) -> &'static str {
        match self {
            Self::Literal => "literal",
            Self::Transformed => "transformed",
            Self::Mixed => "mixed",
        }
    }

    /// Parses a factor value.
    pub fn parse(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|x| x.name() == s.trim())
    }
}

/// Which environment the sessions are made for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum EnvKind {
    /// The official format only (observations rendered from the pack's templates).
    None,
    /// Ledger sessions with a `ledger_env` scenario: observations computed by running the
    /// gold calls through the ledger environment.
    Ledger,
}

impl EnvKind {
    /// The factor value.
    pub fn name(self) -> &'static str {
        match self {
            Self::None => "none",
            Self::Ledger => "ledger",
        }
    }
}

/// What an `env=ledger` session tests (the ledger environment's challenges).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ChallengeLevel {
    /// A read beside a write in one request.
    Compositional,
    /// A write, then a correction of it (amend, not re-add).
    Correction,
    /// Writes each followed by a question about them (no write expected).
    Question,
    /// Writes that need a clarification first.
    Clarify,
    /// One of the four, drawn per session.
    Mixed,
}

impl ChallengeLevel {
    /// All levels.
    pub const ALL: [ChallengeLevel; 5] = [
        Self::Compositional,
        Self::Correction,
        Self::Question,
        Self::Clarify,
        Self::Mixed,
    ];

    /// The factor value.
    pub fn name(self) -> &'static str {
        match self {
            Self::Compositional => "compositional",
            Self::Correction => "correction",
            Self::Question => "question",
            Self::Clarify => "clarify",
            Self::Mixed => "mixed",
        }
    }

    /// Parses a factor value.
    pub fn parse(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|x| x.name() == s.trim())
    }
}

/// The factors of a generated suite.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Factor {
    /// Changes of coarse type between consecutive tasks, 0–3.
    Transitions,
    /// The four task types of every session.
    Types,
    /// The exact type of Multi-Tool tasks.
    Multi,
    /// Calls of a Parallel task, 2–8.
    Width,
    /// Calls of a Sequential task, 2–5.
    Depth,
    /// The graph of a Mixed task.
    Shape,
    /// Hidden-intent subtype of tasks 2–4.
    Subtypes,
    /// Distance of a long-range dependency in dialogue turns, 3–6.
    Distance,
    /// Clarification rounds of a Clarify task, 1–2.
    Rounds,
    /// Class of the parameter the first clarification asks for.
    Missing,
    /// Tools offered but never called, per session, 0–4.
    Distractors,
    /// How dates, quantities and enum values are stated.
    Args,
    /// Domains sessions are drawn from.
    Domains,
    /// The environment sessions are made for.
    Env,
    /// What ledger sessions test.
    Challenge,
}

/// A factor's name, accepted values and default, for help texts and the page.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FactorInfo {
    /// The factor.
    pub factor: Factor,
    /// Its name (`--name` on the command line, `name=` in a spec string).
    pub name: &'static str,
    /// Accepted values.
    pub values: &'static str,
    /// What happens when it is not set.
    pub default: &'static str,
}

/// Every factor, in documentation order.
pub const FACTORS: [FactorInfo; 15] = [
    FactorInfo {
        factor: Factor::Transitions,
        name: "transitions",
        values: "0-3",
        default: "drawn 14:15:17:18 (bundled suite)",
    },
    FactorInfo {
        factor: Factor::Types,
        name: "types",
        values:
            "four of single, parallel, sequential, mixed, multi, clarify, chat (joined by + or ,)",
        default: "drawn from the transitions",
    },
    FactorInfo {
        factor: Factor::Multi,
        name: "multi",
        values: "parallel, sequential, mixed",
        default: "drawn 32:12:20",
    },
    FactorInfo {
        factor: Factor::Width,
        name: "width",
        values: "2-8",
        default: "drawn 22:7:2:1:1:1:1",
    },
    FactorInfo {
        factor: Factor::Depth,
        name: "depth",
        values: "2-5",
        default: "drawn 10:3:1:1",
    },
    FactorInfo {
        factor: Factor::Shape,
        name: "shape",
        values: "chain-side, fan-out, fan-in, two-chains",
        default: "drawn 8:3:4:3",
    },
    FactorInfo {
        factor: Factor::Subtypes,
        name: "subtypes",
        values: "coref, partial, long: one for all, or three (tasks 2-4)",
        default: "drawn per position as in the bundled suite",
    },
    FactorInfo {
        factor: Factor::Distance,
        name: "distance",
        values: "3-6",
        default: "the nearest source at least 3 turns back",
    },
    FactorInfo {
        factor: Factor::Rounds,
        name: "rounds",
        values: "1-2",
        default: "drawn 9:1",
    },
    FactorInfo {
        factor: Factor::Missing,
        name: "missing",
        values: "name, date, number, choice",
        default: "drawn uniformly",
    },
    FactorInfo {
        factor: Factor::Distractors,
        name: "distractors",
        values: "0-4",
        default: "drawn 44:10:7:2:1",
    },
    FactorInfo {
        factor: Factor::Args,
        name: "args",
        values: "literal, transformed, mixed",
        default: "mixed",
    },
    FactorInfo {
        factor: Factor::Domains,
        name: "domains",
        values: "pack ids or domain names (joined by + or ,)",
        default: "all packs, by pack weight",
    },
    FactorInfo {
        factor: Factor::Env,
        name: "env",
        values: "none, ledger",
        default: "none (ledger when challenge is set)",
    },
    FactorInfo {
        factor: Factor::Challenge,
        name: "challenge",
        values: "compositional, correction, question, clarify, mixed",
        default: "mixed (with env=ledger)",
    },
];

impl Factor {
    /// The factor's name.
    pub fn name(self) -> &'static str {
        FACTORS
            .iter()
            .find(|f| f.factor == self)
            .map(|f| f.name)
            .unwrap_or("")
    }

    /// Parses a factor name.
    pub fn parse(name: &str) -> Option<Self> {
        FACTORS
            .iter()
            .find(|f| f.name == name.trim())
            .map(|f| f.factor)
    }
}

/// A subtype as the `subtypes` factor names it.
pub fn subtype_name(s: TurnSubtype) -> &'static str {
    match s {
        TurnSubtype::CoreferentialReference => "coref",
        TurnSubtype::PartialInformation => "partial",
        TurnSubtype::LongRangeDependency => "long",
    }
}

fn parse_subtype(s: &str) -> Option<TurnSubtype> {
    match s.trim().to_ascii_lowercase().as_str() {
        "coref" | "coreferential reference" => Some(TurnSubtype::CoreferentialReference),
        "partial" | "partial information" => Some(TurnSubtype::PartialInformation),
        "long" | "long-range dependency" => Some(TurnSubtype::LongRangeDependency),
        _ => None,
    }
}

/// Seed, size and factors of a suite. A factor left `None` is drawn per session from its
/// default distribution; a factor that is set is the same in every session.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct GenerateSpec {
    /// The seed.
    pub seed: u64,
    /// Number of sessions.
    pub sessions: usize,
    /// Changes of coarse type per session.
    pub transitions: Option<u8>,
    /// The task types of every session.
    pub types: Option<[TypeChoice; 4]>,
    /// The exact type of Multi-Tool tasks.
    pub multi: Option<MultiKind>,
    /// Calls of Parallel tasks.
    pub width: Option<u8>,
    /// Calls of Sequential tasks.
    pub depth: Option<u8>,
    /// Graph of Mixed tasks.
    pub shape: Option<MixedShape>,
    /// Subtypes of tasks 2–4.
    pub subtypes: Option<[TurnSubtype; 3]>,
    /// Distance of long-range dependencies in dialogue turns.
    pub distance: Option<u8>,
    /// Clarification rounds.
    pub rounds: Option<u8>,
    /// Class of the first missing parameter.
    pub missing: Option<MissingClass>,
    /// Distractor tools per session.
    pub distractors: Option<u8>,
    /// How values are stated.
    pub args: Option<ArgStyle>,
    /// Domains (pack ids), in the order given.
    pub domains: Option<Vec<String>>,
    /// The environment.
    pub env: Option<EnvKind>,
    /// What ledger sessions test.
    pub challenge: Option<ChallengeLevel>,
}

fn list(value: &str) -> Vec<&str> {
    value
        .split(['+', ','])
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .collect()
}

fn small(name: &str, value: &str, lo: u8, hi: u8) -> Result<u8, GenerateError> {
    match value.trim().parse::<u8>() {
        Ok(n) if (lo..=hi).contains(&n) => Ok(n),
        _ => Err(GenerateError::Spec(format!(
            "{name} must be an integer from {lo} to {hi}, not {value:?}"
        ))),
    }
}

fn bad(name: &str, value: &str, expected: &str) -> GenerateError {
    GenerateError::Spec(format!("{name}: {value:?} is not one of {expected}"))
}

impl GenerateSpec {
    /// A spec with every factor at its default.
    pub fn new(seed: u64, sessions: usize) -> Self {
        Self {
            seed,
            sessions,
            ..Self::default()
        }
    }

    /// Sets `name` (a factor, `seed` or `sessions`) from its text value.
    pub fn set(&mut self, name: &str, value: &str) -> Result<(), GenerateError> {
        match name.trim() {
            "seed" => {
                self.seed = value.trim().parse().map_err(|_| {
                    GenerateError::Spec(format!("seed must be an unsigned integer, not {value:?}"))
                })?;
                return Ok(());
            }
            "sessions" => {
                self.sessions = match value.trim().parse::<usize>() {
                    Ok(n) if (1..=MAX_SESSIONS).contains(&n) => n,
                    _ => {
                        return Err(GenerateError::Spec(format!(
                            "sessions must be an integer from 1 to {MAX_SESSIONS}, not {value:?}"
                        )))
                    }
                };
                return Ok(());
            }
            _ => {}
        }
        let factor = Factor::parse(name).ok_or_else(|| {
            let known: Vec<&str> = FACTORS.iter().map(|f| f.name).collect();
            GenerateError::Spec(format!(
                "unknown factor {name:?} (known: seed, sessions, {})",
                known.join(", ")
            ))
        })?;
        self.set_factor(factor, value)
    }

    /// Sets one factor from its text value.
    pub fn set_factor(&mut self, factor: Factor, value: &str) -> Result<(), GenerateError> {
        let name = factor.name();
        match factor {
            Factor::Transitions => self.transitions = Some(small(name, value, 0, 3)?),
            Factor::Types => {
                let items = list(value);
                let parsed: Option<Vec<TypeChoice>> =
                    items.iter().map(|s| TypeChoice::parse(s)).collect();
                let parsed = parsed.ok_or_else(|| {
                    bad(
                        name,
                        value,
                        "single, parallel, sequential, mixed, multi, clarify, chat",
                    )
                })?;
                let four: [TypeChoice; 4] = parsed.try_into().map_err(|_| {
                    GenerateError::Spec(format!(
                        "types needs exactly four task types, got {value:?}"
                    ))
                })?;
                if four.iter().all(|t| *t == TypeChoice::Exact(TaskType::Chat)) {
                    return Err(GenerateError::Spec(
                        "types: a session needs at least one task that calls a tool".into(),
                    ));
                }
                self.types = Some(four);
            }
            Factor::Multi => {
                self.multi = Some(
                    MultiKind::ALL
                        .into_iter()
                        .find(|m| m.name() == value.trim())
                        .ok_or_else(|| bad(name, value, "parallel, sequential, mixed"))?,
                )
            }
            Factor::Width => self.width = Some(small(name, value, 2, 8)?),
            Factor::Depth => self.depth = Some(small(name, value, 2, 5)?),
            Factor::Shape => {
                self.shape =
                    Some(MixedShape::parse(value).ok_or_else(|| {
                        bad(name, value, "chain-side, fan-out, fan-in, two-chains")
                    })?)
            }
            Factor::Subtypes => {
                let items = list(value);
                let parsed: Option<Vec<TurnSubtype>> =
                    items.iter().map(|s| parse_subtype(s)).collect();
                let parsed = parsed.ok_or_else(|| bad(name, value, "coref, partial, long"))?;
                self.subtypes = Some(match parsed.as_slice() {
                    [one] => [*one; 3],
                    [a, b, c] => [*a, *b, *c],
                    _ => {
                        return Err(GenerateError::Spec(format!(
                            "subtypes needs one subtype or three, got {value:?}"
                        )))
                    }
                });
            }
            Factor::Distance => self.distance = Some(small(name, value, 3, MAX_DISTANCE)?),
            Factor::Rounds => self.rounds = Some(small(name, value, 1, 2)?),
            Factor::Missing => {
                self.missing = Some(
                    MissingClass::parse(value)
                        .ok_or_else(|| bad(name, value, "name, date, number, choice"))?,
                )
            }
            Factor::Distractors => self.distractors = Some(small(name, value, 0, MAX_DISTRACTORS)?),
            Factor::Args => {
                self.args = Some(
                    ArgStyle::parse(value)
                        .ok_or_else(|| bad(name, value, "literal, transformed, mixed"))?,
                )
            }
            Factor::Domains => {
                let items: Vec<String> = list(value).into_iter().map(str::to_owned).collect();
                if items.is_empty() {
                    return Err(GenerateError::Spec("domains: name at least one".into()));
                }
                self.domains = Some(items);
            }
            Factor::Env => {
                self.env = Some(match value.trim() {
                    "none" => EnvKind::None,
                    "ledger" => EnvKind::Ledger,
                    _ => return Err(bad(name, value, "none, ledger")),
                })
            }
            Factor::Challenge => {
                self.challenge = Some(ChallengeLevel::parse(value).ok_or_else(|| {
                    bad(
                        name,
                        value,
                        "compositional, correction, question, clarify, mixed",
                    )
                })?)
            }
        }
        Ok(())
    }

    /// Parses `name=value` pairs joined by `,` (a list value may continue after a `,`:
    /// `types=single,chat,clarify,chat`). Unset factors stay at their defaults.
    pub fn parse(text: &str) -> Result<Self, GenerateError> {
        let mut pairs: Vec<(String, String)> = Vec::new();
        for token in text.split(',').map(str::trim).filter(|t| !t.is_empty()) {
            match token.split_once('=') {
                Some((k, v)) => pairs.push((k.trim().to_owned(), v.trim().to_owned())),
                None => match pairs.last_mut() {
                    Some((_, v)) => {
                        v.push('+');
                        v.push_str(token);
                    }
                    None => {
                        return Err(GenerateError::Spec(format!(
                            "expected name=value, found {token:?}"
                        )))
                    }
                },
            }
        }
        let mut spec = Self::new(0, 0);
        for (k, v) in &pairs {
            spec.set(k, v)?;
        }
        if spec.sessions == 0 {
            return Err(GenerateError::Spec("sessions=N is required".into()));
        }
        Ok(spec)
    }

    /// The canonical `name=value` text of this spec (every set factor, in
    /// documentation order); [`GenerateSpec::parse`] reads it back.
    pub fn to_text(&self) -> String {
        let mut out = format!("seed={},sessions={}", self.seed, self.sessions);
        for info in FACTORS {
            if let Some(v) = self.factor_value(info.factor) {
                let _ = write!(out, ",{}={v}", info.name);
            }
        }
        out
    }

    /// The seed and the set factors as `name=value` text, without the size: what every
    /// session of the suite records (so a longer suite of the same spec starts with the
    /// same lines).
    pub fn factors_text(&self) -> String {
        let mut out = format!("seed={}", self.seed);
        for info in FACTORS {
            if let Some(v) = self.factor_value(info.factor) {
                let _ = write!(out, ",{}={v}", info.name);
            }
        }
        out
    }

    /// The value of a set factor as text (`None` when it is left to its default).
    pub fn factor_value(&self, factor: Factor) -> Option<String> {
        let join = |v: Vec<&str>| v.join("+");
        match factor {
            Factor::Transitions => self.transitions.map(|v| v.to_string()),
            Factor::Types => self
                .types
                .map(|t| join(t.iter().map(|c| c.name()).collect())),
            Factor::Multi => self.multi.map(|m| m.name().to_owned()),
            Factor::Width => self.width.map(|v| v.to_string()),
            Factor::Depth => self.depth.map(|v| v.to_string()),
            Factor::Shape => self.shape.map(|s| s.name().to_owned()),
            Factor::Subtypes => self
                .subtypes
                .map(|s| join(s.iter().map(|&x| subtype_name(x)).collect())),
            Factor::Distance => self.distance.map(|v| v.to_string()),
            Factor::Rounds => self.rounds.map(|v| v.to_string()),
            Factor::Missing => self.missing.map(|m| m.name().to_owned()),
            Factor::Distractors => self.distractors.map(|v| v.to_string()),
            Factor::Args => self.args.map(|a| a.name().to_owned()),
            Factor::Domains => self
                .domains
                .as_ref()
                .map(|d| join(d.iter().map(String::as_str).collect())),
            Factor::Env => self.env.map(|e| e.name().to_owned()),
            Factor::Challenge => self.challenge.map(|c| c.name().to_owned()),
        }
    }

    /// True when the sessions are ledger-environment sessions (`env=ledger`, or a
    /// `challenge` without `env`).
    pub fn is_ledger(&self) -> bool {
        match self.env {
            Some(EnvKind::Ledger) => true,
            Some(EnvKind::None) => false,
            None => self.challenge.is_some(),
        }
    }

    /// Checks combinations that can never be generated.
    pub fn check(&self) -> Result<(), GenerateError> {
        if self.sessions == 0 || self.sessions > MAX_SESSIONS {
            return Err(GenerateError::Spec(format!(
                "sessions must be from 1 to {MAX_SESSIONS}"
            )));
        }
        if self.env == Some(EnvKind::None) && self.challenge.is_some() {
            return Err(GenerateError::Spec(
                "challenge applies to ledger sessions only (env=ledger)".into(),
            ));
        }
        if self.is_ledger() {
            // The structure of a ledger session follows its challenge.
            for info in FACTORS {
                let structural = !matches!(
                    info.factor,
                    Factor::Env | Factor::Challenge | Factor::Domains
                );
                if structural && self.factor_value(info.factor).is_some() {
                    return Err(GenerateError::Spec(format!(
                        "{} does not apply to env=ledger sessions (their task types, subtypes and tools follow the challenge)",
                        info.name
                    )));
                }
            }
            if let Some(d) = &self.domains {
                if d.iter().any(|x| x != "finance-ledger") {
                    return Err(GenerateError::Spec(
                        "env=ledger sessions are finance-ledger sessions (domains=finance-ledger or unset)".into(),
                    ));
                }
            }
        }
        if let (Some(types), Some(k)) = (self.types, self.transitions) {
            let coarse: Vec<u8> = types.iter().map(|t| coarse_code(*t)).collect();
            let n = coarse.windows(2).filter(|w| w[0] != w[1]).count() as u8;
            if n != k {
                return Err(GenerateError::Spec(format!(
                    "types has {n} transition(s), but transitions={k}"
                )));
            }
        }
        if let (Some(types), Some(m)) = (self.types, self.multi) {
            if types
                .iter()
                .any(|t| matches!(t, TypeChoice::Exact(x) if x.is_multi() && *x != m.task_type()))
            {
                return Err(GenerateError::Spec(
                    "types names a Multi-Tool type other than multi=…".into(),
                ));
            }
        }
        Ok(())
    }
}

/// Coarse type code (PROTOCOL §7.3) of a type choice: 0 Single, 1 Multi, 2 Clarify, 3 Chat.
pub fn coarse_code(t: TypeChoice) -> u8 {
    match t {
        TypeChoice::Exact(TaskType::SingleTool) => 0,
        TypeChoice::Multi => 1,
        TypeChoice::Exact(x) if x.is_multi() => 1,
        TypeChoice::Exact(TaskType::Clarify) => 2,
        TypeChoice::Exact(_) => 3,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_round_trip() {
        let mut s = GenerateSpec::new(9, 64);
        s.set("transitions", "2").unwrap_or_default();
        s.set("subtypes", "long").unwrap_or_default();
        s.set("domains", "weather+maps").unwrap_or_default();
        let text = s.to_text();
        assert_eq!(
            text,
            "seed=9,sessions=64,transitions=2,subtypes=long+long+long,domains=weather+maps"
        );
        assert_eq!(GenerateSpec::parse(&text).ok(), Some(s));
        let t = GenerateSpec::parse("seed=1,sessions=4,types=single,chat,clarify,chat,width=3");
        let t = t.unwrap_or_default();
        assert_eq!(t.width, Some(3));
        assert_eq!(
            t.factor_value(Factor::Types).as_deref(),
            Some("single+chat+clarify+chat")
        );
    }

    #[test]
    fn ledger_factors() {
        let s = GenerateSpec::parse("seed=2,sessions=8,challenge=question").unwrap_or_default();
        assert!(s.is_ledger());
        assert_eq!(s.to_text(), "seed=2,sessions=8,challenge=question");
        assert!(s.check().is_ok());
        let e = GenerateSpec::parse("seed=2,sessions=8,env=ledger").unwrap_or_default();
        assert!(e.is_ledger() && e.challenge.is_none());
        for bad in [
            "seed=2,sessions=8,env=none,challenge=clarify",
            "seed=2,sessions=8,env=ledger,distractors=1",
            "seed=2,sessions=8,challenge=mixed,domains=weather",
        ] {
            let spec = GenerateSpec::parse(bad).unwrap_or_default();
            assert!(spec.check().is_err(), "{bad}");
        }
        assert!(GenerateSpec::parse("seed=2,sessions=8,challenge=sometimes").is_err());
        assert!(!GenerateSpec::parse("seed=2,sessions=8,env=none")
            .unwrap_or_default()
            .is_ledger());
    }

    #[test]
    fn bad_values_are_rejected() {
        let mut s = GenerateSpec::new(1, 1);
        assert!(s.set("width", "9").is_err());
        assert!(s.set("types", "chat+chat+chat+chat").is_err());
        assert!(s.set("types", "single+chat").is_err());
        assert!(s.set("colour", "red").is_err());
        assert!(GenerateSpec::parse("seed=1").is_err());
        s.set("types", "single+single+chat+chat")
            .unwrap_or_default();
        s.set("transitions", "2").unwrap_or_default();
        assert!(s.check().is_err());
    }
}
