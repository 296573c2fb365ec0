//! Evaluating on a budget, the page's part: the Compare view's planner (its fields, sent
//! with the comparison; the lab module draws the numbers of `wildtool plan` for the
//! compared runs below it), the price table
//! (bundled, or the user's, kept in `localStorage` once saved), the "What will this
//! cost?" line of Setup (`wildtool run --dry-run`'s estimate) and the cost of the run on
//! the dashboard (`report.json`'s `cost`). The shell keeps what is typed and asks the lab
//! module; it computes nothing itself.

use wildtool_contract::inputs::PlanFields;
use wildtool_contract::Call;

use crate::msg::{Effect, LabPurpose};
use crate::state::{AppState, Tone};
use crate::ui::{el, Element, Node};
use crate::views::widgets::note;

/// A JSON object from members whose values are JSON already: the inputs of the lab's
/// budget calls (`wildtool_contract::inputs::{PlanInput, CostInput, EstimateInput,
/// PriceEditorInput}`) are written this way, so the app shell carries no serializer of
/// its own for each of them.
fn object(members: &[(&str, String)]) -> String {
    let mut out = String::from("{");
    for (i, (k, v)) in members.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push('"');
        out.push_str(k);
        out.push_str("\":");
        out.push_str(v);
    }
    out.push('}');
    out
}

/// A JSON value of `v`.
fn js<T: serde::Serialize + ?Sized>(v: &T) -> String {
    serde_json::to_string(v).unwrap_or_else(|_| "null".to_owned())
}

/// What the page's budget features keep.
#[derive(Debug, Clone, PartialEq)]
pub struct BudgetState {
    /// The Compare view's planner fields as typed.
    pub plan: PlanFields,
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
            plan: PlanFields {
                pair: true,
                sessions: String::new(),
                trials: String::new(),
                difference: String::new(),
            },
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
    /// A planner field changed (`sessions`, `trials`, `difference`, `pair`); the
    /// comparison's input carries the fields, so the comparison view is asked again.
    pub fn plan_set(&mut self, field: &str, value: &str) -> Vec<Effect> {
        let p = &mut self.budget.plan;
        let v: String = value.chars().take(24).collect();
        match field {
            "sessions" => p.sessions = v,
            "trials" => p.trials = v,
            "difference" => p.difference = v,
            "pair" => p.pair = value == "true",
            _ => {}
        }
        Vec::new()
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
                let input = js(&text);
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
            let saved = ("saved", js(&self.budget.prices));
            let error = ("error", js(&self.budget.prices_error));
            let key = saved.1.clone() + &error.1;
            if self.budget.editor_key.as_deref() != Some(key.as_str()) {
                self.budget.editor_key = Some(key);
                let input = object(&[saved, ("draft", js(&self.budget.prices_draft)), error]);
                fx.extend(self.lab_call(Call::PriceEditor, input, LabPurpose::PriceEditor));
            }
        }
        fx.extend(self.estimate_refresh());
        fx
    }

    /// The estimate's input for the form as it is (without and with the dataset's
    /// text), or why there is none.
    fn estimate_input(&mut self) -> Result<(String, String), String> {
        let Some(d) = self.dataset else {
            return Err("What will this cost? Load a dataset first.".to_owned());
        };
        let spec = crate::engine::spec_from_form(&self.setup, &d.fingerprint, None)
            .map_err(|e| format!("What will this cost? Complete the settings first: {e}"))?;
        let (provider, base_url, temperature) = match spec.backend() {
            wildtool_core::runner::engine::Backend::Http {
                provider,
                base_url,
                temperature,
                ..
            } => (js(provider.name()), js(&base_url.to_string()), *temperature),
            wildtool_core::runner::engine::Backend::Agent(_) => ("null".to_owned(), js(""), 0.0),
        };
        let mut members = vec![
            ("fingerprint", js(&d.fingerprint)),
            ("lang", js(crate::data::lang_name(d.lang))),
            ("provider", provider),
            ("base_url", base_url),
            ("model", js(spec.model())),
            ("temperature", js(&temperature)),
            ("trials", spec.trials().to_string()),
            ("prices", js(&self.budget.prices)),
        ];
        let key = object(&members);
        let text = match &self.budget.dataset_text {
            Some((fp, t)) if *fp == d.fingerprint => t.clone(),
            _ => {
                let lines: Vec<String> = d
                    .dataset
                    .sessions
                    .iter()
                    .map(|s| wildtool_core::json::dumps(&s.raw, wildtool_core::json::Escape::Utf8))
                    .collect();
                let t = std::rc::Rc::new(js(&lines.join("\n")));
                self.budget.dataset_text = Some((d.fingerprint.clone(), t.clone()));
                t
            }
        };
        members.push(("dataset", text.to_string()));
        Ok((key, object(&members)))
    }

    fn estimate_refresh(&mut self) -> Vec<Effect> {
        if !self.budget.estimate_on {
            return Vec::new();
        }
        let (key, input) = match self.estimate_input() {
            Ok(k) => k,
            Err(e) => (e, String::new()),
        };
        if self.budget.estimate_key.as_deref() == Some(key.as_str()) {
            return Vec::new();
        }
        self.budget.estimate_key = Some(key);
        if input.is_empty() {
            self.lab.clear(LabPurpose::Estimate);
            return Vec::new();
        }
        self.lab_call(Call::CostEstimate, input, LabPurpose::Estimate)
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
            "{}|{}|{}|{}|{}",
            s.id,
            s.label,
            trials.len(),
            records.as_ref().map_or(0, Vec::len) + text.as_ref().map_or(0, String::len),
            js(&self.budget.prices)
        );
        if self.budget.cost_key.as_deref() == Some(key.as_str()) {
            return Vec::new();
        }
        self.budget.cost_key = Some(key);
        let run = object(&[
            ("label", js(&s.label)),
            ("model", js(&s.model)),
            ("trials", js(&trials)),
            ("records", js(&records)),
            ("text", js(&text)),
        ]);
        let input = object(&[
            ("prices", js(&self.budget.prices)),
            ("runs", format!("[{run}]")),
            ("id", js("cost")),
        ]);
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
