//! The budget feature's handlers: the planner's fields and Setup's price table, asked of
//! the lab module.

use super::*;
use crate::msg::{Effect, LabPurpose};
use crate::state::AppState;
use wildtool_contract::Call;

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
