//! Evaluating on a budget, the page's part: the Compare view's planner (its fields, sent
//! with the comparison; the lab module draws the numbers of `wildtool plan` for the
//! compared runs below it), Setup's "What will this cost?" (`wildtool run --dry-run`'s
//! estimate) with the price table (bundled, or the user's, kept in `localStorage` once
//! saved). The shell keeps what is typed and asks the lab module; it computes nothing
//! itself.

mod update;
pub mod view;

pub mod costs;

use wildtool_contract::inputs::PlanFields;

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

/// The compared runs' stored lines, by history id: checkpoint lines (header first) or
/// the result text; `None` when the run has neither in this browser.
#[derive(Debug, Default)]
pub struct CostReads {
    read: Vec<(String, Option<Source>)>,
    asked: Vec<String>,
}

#[derive(Debug)]
enum Source {
    Records(Vec<String>),
    Text(String),
}
