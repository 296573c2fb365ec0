//! Evaluating on a budget, the page's part: the Compare view's planner (the lab module's
//! `plan_view`, the numbers of `wildtool plan` for the compared runs). The shell keeps
//! what is typed and asks the lab module; it computes nothing itself.

use wildtool_contract::inputs::PlanInput;
use wildtool_contract::Call;

use crate::msg::{Effect, LabPurpose};
use crate::state::{AppState, Tone};
use crate::ui::{el, Element, Node};
use crate::views::widgets::note;

/// What the page's budget features keep.
#[derive(Debug, Clone, PartialEq)]
pub struct BudgetState {
    /// The planner's fields as typed: sessions, trials, drop in points.
    pub plan: [String; 3],
    /// The second compared run is a second pilot.
    pub plan_pair: bool,
    /// What the planner shown was asked for.
    plan_key: Option<String>,
}

impl Default for BudgetState {
    fn default() -> Self {
        BudgetState {
            plan: Default::default(),
            plan_pair: true,
            plan_key: None,
        }
    }
}

impl AppState {
    /// A planner field changed (`sessions`, `trials`, `difference`, `pair`).
    pub fn plan_set(&mut self, field: &str, value: &str) -> Vec<Effect> {
        let slot = match field {
            "sessions" => 0,
            "trials" => 1,
            "difference" => 2,
            "pair" => {
                self.budget.plan_pair = value == "true";
                return Vec::new();
            }
            _ => return Vec::new(),
        };
        self.budget.plan[slot] = value.chars().take(24).collect();
        Vec::new()
    }

    /// The planner's work after any message on the Compare view: ask the lab module when
    /// the runs or the fields changed.
    pub fn plan_refresh(&mut self) -> Vec<Effect> {
        if self.lab.compare_link.is_some() || self.compare_wait().is_some() {
            return Vec::new();
        }
        let Some(dataset) = self.dataset else {
            return Vec::new();
        };
        let ids: Vec<String> = self.compare_chosen().iter().map(|e| e.id.clone()).collect();
        let key = format!(
            "{}|{}|{:?}|{}",
            dataset.fingerprint,
            ids.join("|"),
            self.budget.plan,
            self.budget.plan_pair
        );
        if self.budget.plan_key.as_deref() == Some(key.as_str()) {
            return Vec::new();
        }
        let [sessions, trials, difference] = self.budget.plan.clone();
        let input = PlanInput {
            fingerprint: dataset.fingerprint_u64(),
            shapes: dataset.shapes.clone(),
            runs: ids.iter().filter_map(|id| self.run_input(id)).collect(),
            pair: self.budget.plan_pair,
            sessions,
            trials,
            difference,
        };
        self.budget.plan_key = Some(key);
        let input = serde_json::to_string(&input).unwrap_or_default();
        self.lab_call(Call::PlanView, input, LabPurpose::Plan)
    }
}

/// The planner on the Compare view (rendered by the lab module), once runs are compared.
pub fn plan_panel(state: &AppState) -> Option<Element> {
    if state.lab.compare_link.is_some() || state.compare_wait().is_some() {
        return None;
    }
    let busy = state.lab.busy(LabPurpose::Plan);
    let holder = el("div")
        .id("plan-area")
        .attr_opt("aria-busy", busy.then_some("true"));
    Some(match state.lab.answer(LabPurpose::Plan) {
        Some(Ok(json)) => holder.child(Node::Raw(json.clone())),
        Some(Err(e)) if !busy => holder.child(note("plan-error", e, Tone::Error)),
        _ => holder.child(note("plan-wait", "Planning…", Tone::Info)),
    })
}
