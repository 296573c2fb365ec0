//! Evaluating on a budget, the page's part: the Compare view's planner (its fields, sent
//! with the comparison; the lab module draws the numbers of `wildtool plan` for the
//! compared runs below it), Setup's "What will this cost?" (`wildtool run --dry-run`'s
//! estimate) with the price table (bundled, or the user's, kept in `localStorage` once
//! saved). The shell keeps what is typed and asks the lab module; it computes nothing
//! itself.

use wildtool_contract::inputs::PlanFields;
use wildtool_contract::Call;

use crate::msg::{Effect, LabPurpose};
use crate::state::{AppState, Tone};
use crate::ui::{el, Element, Node};
use crate::views::widgets::note;

/// A JSON object from members whose values are JSON already: the inputs of the lab's
/// budget calls (`wildtool_contract::inputs::PriceEditorInput`).
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

/// A JSON string (the core's writer, which the shell carries anyway).
fn q(s: &str) -> String {
    wildtool_core::json::dumps(
        &wildtool_core::json::Value::str(s),
        wildtool_core::json::Escape::Utf8,
    )
}

/// A JSON string or `null`.
fn qo(s: Option<&str>) -> String {
    s.map_or_else(|| "null".to_owned(), q)
}

/// What the page's budget features keep.
#[derive(Debug, Clone, PartialEq)]
pub struct BudgetState {
    /// The Compare view's planner fields as typed.
    pub plan: PlanFields,
    /// The price table the user saved (its JSON text); `None`: the bundled one.
    pub prices: Option<String>,
    /// The price table's text being edited.
    pub draft: Option<String>,
    /// Why the last save was refused (naming the field).
    pub error: Option<String>,
    /// What Setup's panel shown was asked for.
    setup_key: Option<String>,
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
            draft: None,
            error: None,
            setup_key: None,
        }
    }
}

/// The `details` element of Setup's cost panel (its name in [`AppState::open`]).
pub const PRICES_ID: &str = "prices";

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

    /// A price table action of Setup (`prices-draft`, `prices-save`, `prices-reset`).
    pub fn budget_action(&mut self, what: &str, value: &str) -> Vec<Effect> {
        let b = &mut self.budget;
        if let Some(field) = what.strip_prefix("plan-") {
            return self.plan_set(field, value);
        }
        match what {
            "prices-draft" => b.draft = Some(value.to_owned()),
            "prices-save" => {
                if let Some(text) = b.draft.clone().or_else(|| b.prices.clone()) {
                    return self.lab_call(Call::PriceCheck, q(&text), LabPurpose::PriceCheck);
                }
            }
            "prices-reset" => {
                (b.prices, b.draft, b.error) = (None, None, None);
                return vec![Effect::SavePrices(None)];
            }
            _ => {}
        }
        Vec::new()
    }

    /// Setup's cost panel, while it is open: the estimate of the form's run and the price
    /// table, asked of the lab module when the form, the prices or the refusal changed.
    pub fn setup_refresh(&mut self) -> Vec<Effect> {
        let mut fx = Vec::new();
        // A checked table is saved (in this browser only); a refusal names the field.
        if let Some(answer) = self.lab.answer(LabPurpose::PriceCheck).cloned() {
            self.lab.clear(LabPurpose::PriceCheck);
            let b = &mut self.budget;
            b.error = answer.as_ref().err().cloned();
            if let Ok(text) = answer {
                (b.prices, b.draft) = (Some(text.clone()), None);
                fx.push(Effect::SavePrices(Some(text)));
            }
        }
        if !self.open.iter().any(|n| n == PRICES_ID) {
            return fx;
        }
        let (b, f) = (&self.budget, &self.setup);
        let mut members = vec![
            ("saved", qo(b.prices.as_deref())),
            ("error", qo(b.error.as_deref())),
            ("provider", q(&f.provider)),
            ("base_url", q(&f.effective_base_url())),
            ("model", q(&f.model)),
            ("temperature", q(&f.temperature)),
            ("trials", q(&f.trials)),
            (
                "fingerprint",
                qo(self.dataset.map(|d| d.fingerprint.as_str())),
            ),
            (
                "lang",
                qo(self.dataset.map(|d| crate::data::lang_name(d.lang))),
            ),
        ];
        let key = object(&members);
        if self.budget.setup_key.as_deref() == Some(key.as_str()) {
            return fx;
        }
        self.budget.setup_key = Some(key);
        members.push(("draft", qo(self.budget.draft.as_deref())));
        if let Some(d) = self.dataset {
            members.push(("dataset", q(&d.text)));
        }
        fx.extend(self.lab_call(Call::PriceEditor, object(&members), LabPurpose::PriceEditor));
        fx
    }
}

/// A lab answer in a holder, or a note while it is computed (a refusal is said as the
/// page's message).
fn holder(state: &AppState, id: &str, purpose: LabPurpose) -> Element {
    let holder = el("div").id(id);
    match state.lab.answer(purpose) {
        Some(Ok(json)) => holder.child(Node::Raw(json.clone())),
        _ => holder.attr("aria-busy", "true").child(note(
            &[id, "-note"].concat(),
            "Computing…",
            Tone::Info,
        )),
    }
}

/// Setup's "What will this cost?" with the price table (a disclosure, computed when
/// opened).
pub fn setup_panel(state: &AppState) -> Element {
    let open = state.open.iter().any(|n| n == PRICES_ID);
    el("details")
        .id("prices-details")
        .flag("open", open)
        .action("toggle", PRICES_ID)
        .child(el("summary").text("What will this cost? (estimate and prices)"))
        .child_opt(open.then(|| holder(state, "prices-area", LabPurpose::PriceEditor)))
}
