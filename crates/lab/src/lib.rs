//! The page's lab module: views and computations the page needs only on demand —
//! comparisons of runs, opened trace steps, the glossary, repeated-trial statistics, the ranked
//! leaderboard, the generator and sweeps, and the streaming probe's plan and report — in a second WebAssembly module that is
//! loaded the first time one of them is asked for, so the app shell stays small.
//!
//! Every call is a pure function from JSON text to text, `fn(input: &str) ->
//! Result<String, LabError>` (except `stream_read`, which keeps the page's stream readers
//! between calls, and `score`, which keeps datasets and scoring jobs): a view call returns the wire JSON of a `wildtool_ui` node,
//! which the main module splices into its frame as `Node::Raw` without parsing it again.
//! The main module reaches a call by name (its `Effect::Lab`); [`call`] dispatches by
//! name natively (the page's tests), and on wasm32 each call is also exported under its
//! name through wasm-bindgen. Calls are listed once, in [`calls!`] over the contract's `Call`.
#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod audit;
pub mod cassette;
pub mod compare;
pub mod cost;
pub mod dashboard;
pub mod env;
pub mod env_compare;
pub mod generate;
pub mod leaderboard;
pub mod plan;
pub mod probe;
pub mod score;
pub mod stream;
pub mod sweep;
pub mod trace;
pub mod trials;
pub mod verify;
pub mod widgets;

pub use wildtool_contract::Call;

/// Why a call failed; the message is shown to the user as it is.
#[derive(Debug, thiserror::Error)]
pub enum LabError {
    /// The input is not what the call reads (a bug in the caller, never the user's data).
    #[error("the lab module could not read its input: {0}")]
    Input(String),
    /// No call has this name (the page and the lab module are of different versions).
    #[error("the lab module has no call named \"{0}\" (reload the page)")]
    UnknownCall(String),
    /// The runs cannot be compared or summarised (the core's reason).
    #[error("{0}")]
    Compare(#[from] wildtool_core::compare::CompareError),
    /// The suite cannot be generated (an invalid or impossible factor, a broken pack).
    #[error("{0}")]
    Generate(#[from] wildtool_core::generate::GenerateError),
    /// The sweep's options are unusable (the core's reason).
    #[error("{0}")]
    Sweep(#[from] wildtool_core::sweep::SweepError),
    /// A message to show as it is.
    #[error("{0}")]
    Message(String),
    /// A comparison link cannot be read (the core's reason).
    #[error("this comparison link cannot be opened: {0}")]
    Share(#[from] wildtool_core::share::ShareError),
}

/// A scored task's outcome for the tests.
#[cfg(test)]
pub(crate) fn test_outcome(
    session: u32,
    position: u8,
    task_type: wildtool_core::outcome::TaskType,
    correct: bool,
) -> wildtool_core::outcome::TaskOutcome {
    wildtool_core::outcome::TaskOutcome {
        session,
        position,
        task_type,
        subtype: None,
        transitions: 0,
        correct,
        name_correct: correct,
        optimal: false,
        steps_logged: 1,
        nodes_total: 1,
        nodes_done: u16::from(correct),
        error: None,
        incomplete: false,
    }
}

/// Reads a call's JSON input.
pub(crate) fn read<T: serde::de::DeserializeOwned>(input: &str) -> Result<T, LabError> {
    serde_json::from_str(input).map_err(|e| LabError::Input(e.to_string()))
}

/// Declares the calls: the exhaustive [`Call`] → function table [`call`] uses, and the
/// wasm-bindgen exports under the calls' names. A [`Call`] without a line here is a
/// compile error (the `match` in [`run`] is exhaustive).
macro_rules! calls {
    ($($(#[doc = $doc:literal])* $variant:ident, $name:ident => $($path:ident)::+;)*) => {
        /// Runs `call` on `input`.
        pub fn run(call: Call, input: &str) -> Result<String, LabError> {
            match call {
                $(Call::$variant => $($path)::+(input),)*
            }
        }

        /// The wasm-bindgen exports: each call under its own name; a failure becomes a
        /// JS `Error` with the message.
        #[cfg(target_arch = "wasm32")]
        mod exports {
            use wasm_bindgen::prelude::*;
            $(
                $(#[doc = $doc])*
                #[wasm_bindgen]
                pub fn $name(input: &str) -> Result<String, JsError> {
                    $($path)::+(input).map_err(|e| JsError::new(&e.to_string()))
                }
            )*
        }

        #[cfg(test)]
        const EXPORTED: &[(Call, &str)] = &[$((Call::$variant, stringify!($name))),*];
    };
}

/// Names of every call, in declaration order.
pub fn calls() -> impl Iterator<Item = &'static str> {
    Call::ALL.iter().map(|c| c.name())
}

/// Runs call `name` on `input` (what the page's `Effect::Lab` asks for).
pub fn call(name: &str, input: &str) -> Result<String, LabError> {
    match Call::from_name(name) {
        Some(c) => run(c, input),
        None => Err(LabError::UnknownCall(name.to_owned())),
    }
}

calls! {
    /// The comparison view of two or more runs of one dataset (see [`compare`]).
    CompareView, compare_view => crate::compare::view;
    /// A generated suite with its fingerprint and data card (see [`generate`]).
    Generate, generate => crate::generate::generate;
    /// A sweep's levels and their suites, checked (see [`sweep`]).
    SweepPlan, sweep_plan => crate::sweep::plan;
    /// A sweep's analysis: `sweep.json`, `sweep.html` and the view (see [`sweep`]).
    SweepView, sweep_view => crate::sweep::view;
    /// The comparison view of a comparison link (see [`compare::link_view`]).
    CompareLinkView, compare_link_view => crate::compare::link_view;
    /// The repeated-trials panel of a run (see [`trials`]).
    TrialsView, trials_view => crate::trials::view;
    /// The ranked leaderboard with the page's runs (see [`leaderboard`]).
    LeaderboardView, leaderboard_view => crate::leaderboard::view;
    /// An opened step of a trace (see [`trace`]).
    TraceStep, trace_step => crate::trace::step_view;
    /// The search text of every task of a run (see [`trace::search_texts`]).
    TraceSearchTexts, trace_search_texts => crate::trace::search_texts;
    /// The dashboard's glossary (see [`trace::glossary_view`]).
    GlossaryView, glossary_view => crate::trace::glossary_view;
    /// One task's traces of two runs side by side (see [`trace::pair_view`]).
    TracePair, trace_pair => crate::trace::pair_view;
    /// The streaming probe's requests (see [`probe`]).
    ProbeRequests, probe_requests => crate::probe::requests;
    /// The streaming probe's verdict and report (see [`probe`]).
    ProbeReport, probe_report => crate::probe::report;
    /// The page's readers of streamed responses (see [`stream`]; the one call that keeps
    /// state between calls).
    StreamRead, stream_read => crate::stream::read_stream;
    /// Scoring result lines for the page's main thread (see [`score`]; it keeps its
    /// datasets and jobs between calls).
    Score, score => crate::score::score;
    /// The dashboard's charts (see [`dashboard::charts`]).
    DashboardCharts, dashboard_charts => crate::dashboard::charts;
    /// One dashboard chart as a file (see [`dashboard::chart_file`]).
    ChartFile, chart_file => crate::dashboard::chart_file;
    /// A run's share link (see [`dashboard::share_encode`]).
    ShareEncode, share_encode => crate::dashboard::share_encode;
    /// The outcomes of a share link (see [`dashboard::share_decode`]).
    ShareDecode, share_decode => crate::dashboard::share_decode;
    /// What a link's header says (see [`dashboard::link_header`]).
    LinkHeader, link_header => crate::dashboard::link_header;
    /// The history list (see [`dashboard::history_list`]).
    HistoryList, history_list => crate::dashboard::history_list;
    /// The factors and their levels as a picker (see [`generate::factor_picker`]).
    FactorPicker, factor_picker => crate::generate::factor_picker;
    /// Runs' cost in money (see [`cost::view`]).
    CostView, cost_view => crate::cost::view;
    /// Setup's cost panel: the estimate and the price table editor (see [`cost::editor`]).
    PriceEditor, price_editor => crate::cost::editor;
    /// A price table checked (see [`cost::check`]).
    PriceCheck, price_check => crate::cost::check;
    /// The ledger environment's version (see [`env::info`]).
    EnvInfo, env_info => crate::env::info;
    /// One step's tool answers (see [`env::step`]).
    EnvStep, env_step => crate::env::step;
    /// An env run's end (see [`env::finish`]).
    EnvFinish, env_finish => crate::env::finish;
    /// An `env-result.jsonl` scored (see [`env::score`]).
    EnvScore, env_score => crate::env::score;
    /// The dashboard's ledger environment section (see [`env::view`]).
    EnvView, env_view => crate::env::view;
    /// One task of an env run (see [`env::task_view`]).
    EnvTask, env_task => crate::env::task_view;
    /// One task's ledger as a file (see [`env::export`]).
    EnvExport, env_export => crate::env::export;
    /// The summary of an env share link (see [`env::share_decode`]).
    EnvShareDecode, env_share_decode => crate::env::share_decode;
    /// Env runs compared on `env_success` (see [`env_compare::view`]).
    EnvCompareView, env_compare_view => crate::env_compare::view;
    /// The item audit of runs of one dataset (see [`audit`]).
    AuditView, audit_view => crate::audit::view;
    /// A dropped bundle verified against the dataset (see [`verify`]).
    VerifyView, verify_view => crate::verify::view;
    /// The page's cassette: record, load, answer (see [`cassette`]; keeps the loaded
    /// cassette between calls).
    Cassette, cassette => crate::cassette::cassette;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn calls_dispatch_by_name_and_refuse_unknown_names() {
        // Every call of the contract is exported under its own name.
        assert_eq!(EXPORTED.len(), Call::ALL.len());
        for (c, name) in EXPORTED {
            assert_eq!(c.name(), *name);
        }
        assert_eq!(calls().count(), Call::ALL.len());
        let e = call("no_such_call", "{}").unwrap_err();
        assert!(matches!(e, LabError::UnknownCall(ref n) if n == "no_such_call"));
        assert!(e.to_string().contains("no call named \"no_such_call\""));
        let e = call("compare_view", "not json").unwrap_err();
        assert!(matches!(e, LabError::Input(_)), "{e}");
    }
}
