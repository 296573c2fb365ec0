//! Evaluating on a budget, the page's part: the Compare view's planner (the lab module's
//! `plan_view`, the numbers of `wildtool plan` for the compared runs), the price table
//! (bundled, or the user's, kept in `localStorage` once saved), the "What will this
//! cost?" line of Setup (`wildtool run --dry-run`'s estimate) and the cost of the run on
//! the dashboard (`report.json`'s `cost`). The shell keeps what is typed and asks the lab
//! module; it computes nothing itself.

use wildtool_contract::inputs::{CostInput, CostRun, EstimateInput, PlanInput, PriceEditorInput};
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
    /// The price table the user saved (its JSON text); `None`: the bundled one.
    pub prices: Option<String>,
    /// The price table's text being edited.
    pub prices_draft: Option<String>,
    /// Why the last save was refused (naming the field).
    pub prices_error: Option<String>,
    /// What the editor, the estimate and the dashboard's cost shown were asked for.
    editor_key: Option<String>,
    estimate_key: Option<String>,
    cost_key: Option<String>,
    /// The estimate was asked for (it is then kept up to date).
    pub estimate_on: bool,
    /// The loaded dataset's sessions as JSON Lines, by fingerprint (for the estimate).
    dataset_text: Option<(String, std::rc::Rc<String>)>,
}

impl Default for BudgetState {
    fn default() -> Self {
        BudgetState {
            plan: Default::default(),
            plan_pair: true,
            plan_key: None,
            prices: None,
            prices_draft: None,
            prices_error: None,
            editor_key: None,
            estimate_key: None,
            cost_key: None,
            estimate_on: false,
            dataset_text: None,
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

/// The `details` element of the price table editor (its name in [`AppState::open`]).
pub const PRICES_ID: &str = "prices";

/// Whether a lab answer for `purpose` is the budget's to take.
pub fn owns(purpose: LabPurpose) -> bool {
    purpose == LabPurpose::PriceCheck
}

impl AppState {
    /// A budget action of Setup or the dashboard (`prices-draft`, `prices-save`,
    /// `prices-reset`, `estimate`).
    pub fn budget_action(&mut self, what: &str, value: &str) -> Vec<Effect> {
        match what {
            "prices-draft" => {
                self.budget.prices_draft = Some(value.to_owned());
                Vec::new()
            }
            "prices-save" => {
                let text = self
                    .budget
                    .prices_draft
                    .clone()
                    .or_else(|| self.budget.prices.clone());
                let Some(text) = text else {
                    self.say(
                        "The bundled prices are in use; edit them to save your own.",
                        Tone::Info,
                    );
                    return Vec::new();
                };
                let input = serde_json::to_string(&text).unwrap_or_default();
                self.lab_call(Call::PriceCheck, input, LabPurpose::PriceCheck)
            }
            "prices-reset" => {
                self.budget.prices = None;
                self.budget.prices_draft = None;
                self.budget.prices_error = None;
                self.say("The bundled prices are in use again.", Tone::Ok);
                vec![Effect::SavePrices(None)]
            }
            "estimate" => {
                self.budget.estimate_on = true;
                Vec::new()
            }
            _ => Vec::new(),
        }
    }

    /// The lab module checked a price table to save: saved (in this browser only), or
    /// refused with the field named.
    pub fn budget_answered(
        &mut self,
        purpose: LabPurpose,
        answer: Result<String, String>,
    ) -> Vec<Effect> {
        let Some(answer) = self.lab.settle(purpose, answer) else {
            return Vec::new();
        };
        match answer {
            Ok(text) => {
                self.budget.prices = Some(text.clone());
                self.budget.prices_draft = None;
                self.budget.prices_error = None;
                self.say("Prices saved in this browser.", Tone::Ok);
                vec![Effect::SavePrices(Some(text))]
            }
            Err(e) => {
                self.say(format!("The prices were not saved: {e}"), Tone::Error);
                self.budget.prices_error = Some(e);
                Vec::new()
            }
        }
    }

    /// Setup's lab work: the price editor when open, the estimate once asked for.
    pub fn setup_refresh(&mut self) -> Vec<Effect> {
        let mut fx = Vec::new();
        if self.open.iter().any(|n| n == PRICES_ID) {
            let key = format!("{:?}|{:?}", self.budget.prices, self.budget.prices_error);
            if self.budget.editor_key.as_deref() != Some(key.as_str()) {
                self.budget.editor_key = Some(key);
                let input = serde_json::to_string(&PriceEditorInput {
                    saved: self.budget.prices.clone(),
                    draft: self.budget.prices_draft.clone(),
                    error: self.budget.prices_error.clone(),
                })
                .unwrap_or_default();
                fx.extend(self.lab_call(Call::PriceEditor, input, LabPurpose::PriceEditor));
            }
        }
        fx.extend(self.estimate_refresh());
        fx
    }

    /// The estimate's input for the form as it is, or why there is none.
    fn estimate_input(&mut self) -> Result<EstimateInput, String> {
        let Some(d) = self.dataset else {
            return Err("What will this cost? Load a dataset first.".to_owned());
        };
        let spec = crate::engine::spec_from_form(&self.setup, &d.fingerprint, None)
            .map_err(|e| format!("What will this cost? Complete the settings first: {e}"))?;
        let text = match &self.budget.dataset_text {
            Some((fp, t)) if *fp == d.fingerprint => t.clone(),
            _ => {
                let lines: Vec<String> = d
                    .dataset
                    .sessions
                    .iter()
                    .map(|s| wildtool_core::json::dumps(&s.raw, wildtool_core::json::Escape::Utf8))
                    .collect();
                let t = std::rc::Rc::new(lines.join("\n"));
                self.budget.dataset_text = Some((d.fingerprint.clone(), t.clone()));
                t
            }
        };
        let (provider, base_url, temperature) = match spec.backend() {
            wildtool_core::runner::engine::Backend::Http {
                provider,
                base_url,
                temperature,
                ..
            } => (
                Some(provider.name().to_owned()),
                base_url.to_string(),
                *temperature,
            ),
            wildtool_core::runner::engine::Backend::Agent(_) => (None, String::new(), 0.0),
        };
        Ok(EstimateInput {
            fingerprint: d.fingerprint.clone(),
            dataset: text.to_string(),
            lang: crate::data::lang_name(d.lang).to_owned(),
            provider,
            base_url,
            model: spec.model().to_owned(),
            temperature,
            trials: spec.trials(),
            prices: self.budget.prices.clone(),
        })
    }

    fn estimate_refresh(&mut self) -> Vec<Effect> {
        if !self.budget.estimate_on {
            return Vec::new();
        }
        let input = self.estimate_input();
        let key = match &input {
            Ok(i) => format!(
                "{}|{:?}|{}|{}|{}|{}|{:?}",
                i.fingerprint, i.provider, i.base_url, i.model, i.temperature, i.trials, i.prices
            ),
            Err(e) => e.clone(),
        };
        if self.budget.estimate_key.as_deref() == Some(key.as_str()) {
            return Vec::new();
        }
        self.budget.estimate_key = Some(key);
        match input {
            Ok(i) => {
                let input = serde_json::to_string(&i).unwrap_or_default();
                self.lab_call(Call::CostEstimate, input, LabPurpose::Estimate)
            }
            Err(e) => {
                self.lab.clear(LabPurpose::Estimate);
                self.budget.estimate_key = Some(e);
                Vec::new()
            }
        }
    }

    /// The dashboard's cost of the run shown, once its score files (and trials) are read.
    pub fn cost_refresh(&mut self) -> Vec<Effect> {
        let Some(s) = self.shown.as_ref() else {
            return Vec::new();
        };
        let trials = match self.shown_trials() {
            Some(_) => match self.lab.trials(&s.id) {
                Some(t) => t.to_vec(),
                None => return Vec::new(),
            },
            None => vec![s.outcomes.clone()],
        };
        let (records, text) = match &s.scored {
            Some(sc) => (
                sc.records.clone(),
                sc.records
                    .is_none()
                    .then(|| sc.result_text.clone().unwrap_or_else(|| sc.score_jsonl())),
            ),
            None if self.rescore.as_ref().is_some_and(|r| r.id == s.id) => return Vec::new(),
            None => (None, None),
        };
        let key = format!(
            "{}|{}|{}|{}|{:?}",
            s.id,
            s.label,
            trials.len(),
            records.as_ref().map_or(0, Vec::len) + text.as_ref().map_or(0, String::len),
            self.budget.prices
        );
        if self.budget.cost_key.as_deref() == Some(key.as_str()) {
            return Vec::new();
        }
        self.budget.cost_key = Some(key);
        let input = serde_json::to_string(&CostInput {
            prices: self.budget.prices.clone(),
            runs: vec![CostRun {
                label: s.label.clone(),
                model: s.model.clone(),
                trials,
                records,
                text,
            }],
            id: "cost".to_owned(),
        })
        .unwrap_or_default();
        self.lab_call(Call::CostView, input, LabPurpose::Cost)
    }
}

/// A lab answer in a holder: the answer, its error, or a note while it is computed.
fn holder(state: &AppState, id: &str, purpose: LabPurpose, wait: &str) -> Element {
    let busy = state.lab.busy(purpose);
    let holder = el("div")
        .id(id)
        .attr_opt("aria-busy", busy.then_some("true"));
    match state.lab.answer(purpose) {
        Some(Ok(json)) => holder.child(Node::Raw(json.clone())),
        Some(Err(e)) if !busy => holder.child(note(&format!("{id}-error"), e, Tone::Error)),
        _ => holder.child(note(&format!("{id}-wait"), wait, Tone::Info)),
    }
}

/// Setup's "What will this cost?" line and the price table (a disclosure).
pub fn setup_panel(state: &AppState) -> Element {
    let estimate = if !state.budget.estimate_on {
        el("p")
            .id("cost-estimate")
            .text("What will this cost? ")
            .child(crate::views::widgets::button(
                "Estimate", "budget", "estimate",
            ))
    } else {
        match state.budget.estimate_key.as_deref() {
            Some(k) if k.starts_with("What will this cost?") => {
                el("p").id("cost-estimate").text(k.to_owned())
            }
            _ => holder(state, "estimate-area", LabPurpose::Estimate, "Estimating…"),
        }
    };
    let open = state.open.iter().any(|n| n == PRICES_ID);
    let editor = el("details")
        .id("prices-details")
        .flag("open", open)
        .action("toggle", PRICES_ID)
        .child(el("summary").text(if state.budget.prices.is_some() {
            "Prices (your table, saved in this browser)"
        } else {
            "Prices (the bundled table)"
        }))
        .child_opt(open.then(|| {
            holder(
                state,
                "prices-area",
                LabPurpose::PriceEditor,
                "Reading the prices…",
            )
        }));
    el("div").id("budget-setup").child(estimate).child(editor)
}

/// The dashboard's cost of the run shown.
pub fn cost_panel(state: &AppState) -> Option<Element> {
    state.shown.as_ref()?;
    Some(
        el("section")
            .id("cost-panel")
            .attr("aria-labelledby", "cost-title")
            .child(el("h3").id("cost-title").text("Cost in money"))
            .child(holder(state, "cost-area", LabPurpose::Cost, "Pricing…")),
    )
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
