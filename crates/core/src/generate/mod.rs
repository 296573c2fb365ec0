//! The seeded scenario generator: fresh suites in the official format, drawn from domain
//! packs, with controlled factors.
//!
//! Sans-IO: [`generate`] takes the pack texts and a [`GenerateSpec`] and returns the JSON
//! Lines text. The output is a pure function of the seed, the factors, the packs and
//! [`GENERATOR_VERSION`]: every random decision comes from a SplitMix64 stream derived
//! from `(seed, session, decision)`, ordered containers only, integer arithmetic for
//! every number that is printed, and wildtool's own JSON writer, so native and WASM
//! builds write the same bytes.
//!
//! Pipeline per session: [`plan_session`] draws the structure (domain, date, task types,
//! topologies, subtypes, clarification rounds, distractors), then the session builder
//! realises it as text from the domain's pack, retrying with a fresh surface stream when
//! a draw cannot satisfy the plan or repeats an utterance or a tool list of the same
//! 256-session block. Each session carries a `generated` field (ignored by the official
//! code) recording what was drawn; [`card`] turns a generated suite back into its data
//! card.

pub mod calendar;
pub mod card;
pub mod ledger_pack;
pub mod pack;
pub mod plan;
pub mod rng;
pub mod session;
pub mod spec;
pub mod template;
pub mod value;

use std::collections::BTreeSet;

use crate::json::{dumps, Escape, Map, Value};
use crate::outcome::TurnSubtype;

pub use pack::{PackText, Packs};
pub use plan::{plan_session, SessionPlan, TaskPlan};
pub use spec::{
    ArgStyle, ChallengeLevel, EnvKind, Factor, FactorInfo, GenerateSpec, MissingClass, MixedShape,
    MultiKind, TypeChoice, FACTORS,
};

/// Identifies the generator's semantics; part of what the output is a function of.
pub const GENERATOR_VERSION: &str = "wildtool-generate/1";

/// Sessions within which no utterance and no tool list repeats.
pub const UNIQUE_BLOCK: usize = 256;

/// Surface attempts per plan before the plan is redrawn.
const SURFACE_ATTEMPTS: u64 = 12;
/// Plans tried per session before giving up.
const PLAN_REDRAWS: u64 = 24;

/// Why a suite could not be generated.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum GenerateError {
    /// A pack is malformed.
    #[error("pack {pack}: {message}")]
    Pack {
        /// The pack's name.
        pack: String,
        /// What is wrong.
        message: String,
    },
    /// A seed, size or factor value is invalid.
    #[error("{0}")]
    Spec(String),
    /// The fixed factors cannot all hold in some session.
    #[error("session {session}: the factors cannot all hold: {reason}")]
    Infeasible {
        /// The session index.
        session: usize,
        /// Why.
        reason: String,
    },
    /// No draw satisfied the plan and the uniqueness rules.
    #[error("session {session}: no draw of domain {domain} satisfies the plan ({reason})")]
    Exhausted {
        /// The session index.
        session: usize,
        /// The domain.
        domain: String,
        /// The last reason a draw failed.
        reason: String,
    },
}

/// Parses the packs and generates the suite: JSON Lines, one session per line.
pub fn generate(packs: &[PackText<'_>], spec: &GenerateSpec) -> Result<String, GenerateError> {
    Packs::parse(packs)?.generate(spec)
}

/// The suite for one level of a sweep: `spec` with `factor` set to `level`. Every other
/// decision draws from the same streams as at any other level, so the suites of a sweep
/// are paired session by session: same domains, dates, distractor counts and topology
/// draws, and the same types wherever the swept factor does not change them.
pub fn generate_level(
    packs: &[PackText<'_>],
    spec: &GenerateSpec,
    factor: Factor,
    level: &str,
) -> Result<String, GenerateError> {
    let mut s = spec.clone();
    s.set_factor(factor, level)?;
    generate(packs, &s)
}

impl Packs {
    /// Indexes of the domains the spec allows.
    pub fn allowed(&self, spec: &GenerateSpec) -> Result<Vec<usize>, GenerateError> {
        match &spec.domains {
            None => Ok((0..self.domains.len()).collect()),
            Some(names) => names
                .iter()
                .map(|n| {
                    self.find(n).ok_or_else(|| {
                        GenerateError::Spec(format!(
                            "unknown domain {n:?} (known: {})",
                            self.domains
                                .iter()
                                .map(|d| d.id.as_str())
                                .collect::<Vec<_>>()
                                .join(", ")
                        ))
                    })
                })
                .collect(),
        }
    }

    /// The plan of session `index` of the suite `spec` describes.
    pub fn plan(&self, spec: &GenerateSpec, index: usize) -> Result<SessionPlan, GenerateError> {
        spec.check()?;
        plan_session(self, spec, &self.allowed(spec)?, index, 0)
    }

    /// Generates the suite.
    pub fn generate(&self, spec: &GenerateSpec) -> Result<String, GenerateError> {
        spec.check()?;
        if spec.is_ledger() {
            return Err(GenerateError::Spec(
                "env=ledger suites are built by the ledger environment (wildtool_core::ledger::generated::generate)".into(),
            ));
        }
        let domains = self.allowed(spec)?;
        let spec_text = spec.factors_text();
        let mut out = String::new();
        let mut utterances: BTreeSet<String> = BTreeSet::new();
        let mut tool_lists: BTreeSet<String> = BTreeSet::new();
        for index in 0..spec.sessions {
            if index % UNIQUE_BLOCK == 0 {
                utterances.clear();
                tool_lists.clear();
            }
            let mut last = None;
            for redraw in 0..PLAN_REDRAWS {
                let plan = plan_session(self, spec, &domains, index, redraw)?;
                match self.session_line(spec, &spec_text, &plan, &mut utterances, &mut tool_lists) {
                    Ok(line) => {
                        out.push_str(&line);
                        out.push('\n');
                        last = None;
                        break;
                    }
                    Err(e @ GenerateError::Exhausted { .. }) => last = Some(e),
                    Err(e) => return Err(e),
                }
            }
            if let Some(e) = last {
                return Err(e);
            }
        }
        Ok(out)
    }

    fn session_line(
        &self,
        spec: &GenerateSpec,
        spec_text: &str,
        plan: &SessionPlan,
        utterances: &mut BTreeSet<String>,
        tool_lists: &mut BTreeSet<String>,
    ) -> Result<String, GenerateError> {
        let pack = self
            .domains
            .get(plan.domain)
            .ok_or_else(|| GenerateError::Spec("no such domain".into()))?;
        let mut reason = String::new();
        for attempt in 0..SURFACE_ATTEMPTS {
            let r = rng::Rng::stream(spec.seed, plan.index as u64, "surface", attempt);
            let (built, env) = match session::build_session(&self.common, pack, plan, r) {
                Ok(x) => x,
                Err(session::Fail::Retry(why)) => {
                    reason = why;
                    continue;
                }
                Err(session::Fail::Fatal(e)) => return Err(e),
            };
            let said: Vec<&str> = built.utterances().collect();
            let distinct: BTreeSet<&str> = said.iter().copied().collect();
            if distinct.len() != said.len() || said.iter().any(|u| utterances.contains(*u)) {
                reason = "an utterance repeats".into();
                continue;
            }
            let tools = Value::Array(built.tools.clone());
            let tools_text = dumps(&tools, Escape::Utf8);
            if tool_lists.contains(&tools_text) {
                reason = "the tool list repeats".into();
                continue;
            }
            utterances.extend(said.iter().map(|s| (*s).to_owned()));
            tool_lists.insert(tools_text);
            return Ok(session_json(spec_text, plan, pack, &built, &env, tools));
        }
        Err(GenerateError::Exhausted {
            session: plan.index,
            domain: pack.id.clone(),
            reason,
        })
    }
}

fn session_json(
    spec_text: &str,
    plan: &SessionPlan,
    pack: &pack::Pack,
    built: &session::BuiltSession,
    env: &str,
    tools: Value,
) -> String {
    let tasks = Value::Array(built.tasks.iter().map(|t| Value::str(&t.message)).collect());
    let answers = Value::Array(
        built
            .tasks
            .iter()
            .map(|t| Value::Array(t.nodes.clone()))
            .collect(),
    );
    let types = Value::Array(
        built
            .tasks
            .iter()
            .map(|t| Value::str(t.task_type.as_str()))
            .collect(),
    );
    let subtypes = Value::Array(
        built
            .tasks
            .iter()
            .filter_map(|t| t.subtype.map(TurnSubtype::as_str))
            .map(Value::str)
            .collect(),
    );
    let mut m = Map::new();
    m.insert("id", Value::Str(format!("wild_tool_bench_{}", plan.index)));
    for prefix in ["", "english_"] {
        m.insert(format!("{prefix}env_info"), Value::str(env));
        m.insert(format!("{prefix}tools"), tools.clone());
        m.insert(format!("{prefix}tasks"), tasks.clone());
        m.insert(format!("{prefix}answer_list"), answers.clone());
        m.insert(format!("{prefix}task_types"), types.clone());
        m.insert(format!("{prefix}turn_subtypes"), subtypes.clone());
    }
    m.insert("domain", Value::str(&pack.domain));
    let mut g = Map::new();
    g.insert("generator", Value::str(GENERATOR_VERSION));
    g.insert("spec", Value::str(spec_text));
    g.insert("session", Value::int(plan.index as i64));
    g.insert("distractors", Value::int(built.distractors as i64));
    g.insert("args", Value::str(plan.args.name()));
    g.insert(
        "tasks",
        Value::Array(built.tasks.iter().map(|t| t.meta.clone()).collect()),
    );
    m.insert("generated", Value::Object(g));
    dumps(&Value::Object(m), Escape::Utf8)
}
