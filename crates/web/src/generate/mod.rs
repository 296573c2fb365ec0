//! Generated suites and sweeps in the page.
//!
//! **Generate**: the form's seed, size and factors become a spec text; the domain packs
//! are fetched once (`data/packs/`, not part of the app shell) and the lab module's
//! `generate` call — the core's generator, the same bytes as `wildtool generate` —
//! returns the suite, its fingerprint and its data card. The suite becomes the page's
//! dataset (source `generated`, so a stored run of it can generate it again), ready to
//! run or download. `dataset=generate:seed=S,sessions=N,…` does the same at start.
//!
//! **Sweep**: the lab module checks the options and lists the levels (`sweep_plan`);
//! each level's suite is generated, loaded and run through the page's run driver with the
//! Setup model, one level after another, each run kept in the history; then the lab
//! module analyses the levels' outcomes (`sweep_view`: the core's sweep analysis, the same
//! `sweep.json` and `sweep.html` as `wildtool sweep`). The page stays on the Sweep view
//! while the levels run.

pub mod sweep;
mod update;
pub mod view;

use serde_json::Value;
use wildtool_core::outcome::TaskOutcome;

use crate::msg::LabPurpose;
use crate::ui::push_json_string;

/// Where the page serves the domain packs: every pack file, bundled by
/// scripts/build-web.sh as a JSON array of `{name, text}` (the lab module's `packs`).
pub const PACKS: &str = "./data/packs.json";

/// The lab calls used here.
use wildtool_contract::Call;
const GENERATE: Call = Call::Generate;
const SWEEP_PLAN: Call = Call::SweepPlan;
const SWEEP_VIEW: Call = Call::SweepView;

/// True for the lab purposes this module answers.
pub fn owns(purpose: LabPurpose) -> bool {
    matches!(
        purpose,
        LabPurpose::Generate
            | LabPurpose::SweepPlan
            | LabPurpose::SweepLevel
            | LabPurpose::SweepView
    )
}

/// The Generate form: every value as typed (checked by the core when generating).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GenForm {
    /// Seed.
    pub seed: String,
    /// Sessions.
    pub sessions: String,
    /// Factors set, `name=value` joined by commas (the others are drawn per session).
    pub factors: String,
}

impl Default for GenForm {
    fn default() -> Self {
        Self {
            seed: "1".into(),
            sessions: "64".into(),
            factors: String::new(),
        }
    }
}

impl GenForm {
    /// The spec text: `seed=…,sessions=…,` and the factors given (the core skips the
    /// empty item a trailing comma leaves).
    pub fn spec(&self) -> String {
        format!(
            "seed={},sessions={},{}",
            self.seed.trim(),
            self.sessions.trim(),
            self.factors.trim()
        )
    }
}

/// The Sweep form.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SweepForm {
    /// The swept factor's name.
    pub factor: String,
    /// Its levels, joined by commas.
    pub levels: String,
    /// Seed.
    pub seed: String,
    /// Sessions per level.
    pub per_level: String,
    /// Factors held fixed.
    pub hold: String,
}

impl Default for SweepForm {
    fn default() -> Self {
        Self {
            factor: "transitions".into(),
            levels: "0,1,2,3".into(),
            seed: "1".into(),
            per_level: "16".into(),
            hold: String::new(),
        }
    }
}

impl SweepForm {
    /// `factor=levels`, as the CLI's `--factor` takes it.
    pub fn factor_levels(&self) -> String {
        format!("{}={}", self.factor.trim(), self.levels.trim())
    }

    /// The options as the lab module reads them (its `PlanInput`).
    pub fn to_json(&self) -> String {
        json_object(&[
            ("factor", &self.factor_levels()),
            ("seed", &self.seed),
            ("per_level", &self.per_level),
            ("hold", &self.hold),
        ])
    }
}

/// A JSON object of string fields.
pub(crate) fn json_object(fields: &[(&str, &str)]) -> String {
    let mut out = String::from("{");
    for (i, (k, v)) in fields.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        push_json_string(&mut out, k);
        out.push(':');
        push_json_string(&mut out, v);
    }
    out.push('}');
    out
}

/// A string field of a lab answer.
pub(crate) fn field(v: &Value, name: &str) -> String {
    v.get(name).and_then(Value::as_str).unwrap_or("").to_owned()
}

/// A lab answer's JSON.
fn answer_json(answer: Result<String, String>) -> Result<Value, String> {
    answer.and_then(|out| serde_json::from_str(&out).map_err(|e| format!("unreadable answer: {e}")))
}

/// A generated suite, as the Generate view shows it.
#[derive(Debug, Clone, PartialEq)]
pub struct Suite {
    /// The canonical spec.
    pub spec: String,
    /// The suite's text.
    pub text: String,
    /// Fingerprint.
    pub fingerprint: String,
    /// The lab module's view of it (spec, fingerprint, data card, buttons).
    pub view: String,
}

impl Suite {
    fn from_answer(v: &Value) -> Suite {
        Suite {
            spec: field(v, "spec"),
            text: field(v, "text"),
            fingerprint: field(v, "fingerprint"),
            view: field(v, "view"),
        }
    }
}

/// One level of a sweep, as planned by the lab module.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlannedLevel {
    /// The level's value.
    pub value: String,
    /// Its suite's spec.
    pub spec: String,
}

/// Where a sweep stands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SweepPhase {
    /// The options are being checked.
    Planning,
    /// Level `i`'s suite is being generated.
    Generating(usize),
    /// Level `i` is running.
    Running(usize),
    /// The levels are being analysed.
    Analysing,
    /// Every level ran and the analysis is shown.
    Done,
    /// Stopped early (cancelled, or a level could not run), with the reason; what ran is
    /// analysed.
    Stopped(String),
    /// Nothing to show (the options were refused, the analysis failed).
    Failed(String),
}

impl SweepPhase {
    /// The automation hook `sweep`.
    pub fn hook(&self) -> &'static str {
        match self {
            SweepPhase::Planning => "planning",
            SweepPhase::Generating(_) => "generating",
            SweepPhase::Running(_) => "running",
            SweepPhase::Analysing => "analysing",
            SweepPhase::Done => "done",
            SweepPhase::Stopped(_) => "stopped",
            SweepPhase::Failed(_) => "failed",
        }
    }

    /// True while levels are generated or run.
    pub fn active(&self) -> bool {
        matches!(
            self,
            SweepPhase::Planning | SweepPhase::Generating(_) | SweepPhase::Running(_)
        )
    }
}

/// A level's run in the page.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct LevelRun {
    /// History id of its run.
    pub run: Option<String>,
    /// Its suite's fingerprint.
    pub fingerprint: String,
    /// One outcome per task (after the run).
    pub outcomes: Vec<TaskOutcome>,
    /// The run's end (`done`, `incomplete`, `cancelled`, `failed`), once over.
    pub outcome: Option<String>,
    /// Task accuracy as displayed, once over.
    pub accuracy: Option<String>,
    /// A ledger level: its suite, then (once over) its `env-result.jsonl`.
    pub env: Option<crate::env::EnvLevel>,
}

/// The analysis the lab module returned.
#[derive(Debug, Clone, PartialEq)]
pub struct SweepResult {
    /// `sweep.json`.
    pub doc: String,
    /// `sweep.html`.
    pub html: String,
    /// The view's wire JSON.
    pub view: String,
}

/// A sweep in the page.
#[derive(Debug, Clone, PartialEq)]
pub struct SweepRun {
    /// The options it was started with.
    pub form: SweepForm,
    /// The model (or agent) label of its runs.
    pub model: String,
    /// The swept factor (once planned).
    pub factor: String,
    /// The levels (once planned).
    pub levels: Vec<PlannedLevel>,
    /// Their runs.
    pub runs: Vec<LevelRun>,
    /// Where it stands.
    pub phase: SweepPhase,
    /// The analysis.
    pub result: Option<SweepResult>,
    /// The levels are ledger-environment suites (each runs in the ledger environment).
    pub env: bool,
    /// The setup's env choice before a ledger sweep.
    env_saved: Option<crate::env::SavedEnvChoice>,
    /// The dataset loaded before the sweep (loaded again once the levels ran).
    pub before: Before,
    stop: bool,
}

/// The dataset loaded before a sweep (compared by identity, shown by fingerprint).
#[derive(Clone, Copy, Default)]
pub struct Before(pub Option<crate::data::Dataset>);

impl PartialEq for Before {
    fn eq(&self, other: &Self) -> bool {
        self.0.map(std::ptr::from_ref) == other.0.map(std::ptr::from_ref)
    }
}

impl std::fmt::Debug for Before {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.0.map_or("none", |d| d.fingerprint.as_str()))
    }
}

impl SweepRun {
    /// A finished sweep's analysis as it was kept (`setup::keep`), without its levels' rows.
    pub fn kept(form: SweepForm, model: String, result: SweepResult) -> SweepRun {
        SweepRun {
            form,
            model,
            factor: String::new(),
            levels: Vec::new(),
            runs: Vec::new(),
            phase: SweepPhase::Done,
            result: Some(result),
            env: false,
            env_saved: None,
            before: Before(None),
            stop: false,
        }
    }
}

/// Generated suites and sweeps.
#[derive(Debug, Default)]
pub struct GenState {
    /// The Generate form.
    pub form: GenForm,
    /// The Sweep form.
    pub sweep_form: SweepForm,
    /// The last generated suite.
    pub suite: Option<Suite>,
    /// A suite is being generated for the Generate view or `dataset=generate:`.
    pub busy: bool,
    /// Why the last generation failed.
    pub error: Option<String>,
    /// The sweep.
    pub sweep: Option<SweepRun>,
    packs: Option<String>,
    waiting: Vec<(String, LabPurpose)>,
}
