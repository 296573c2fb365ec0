//! The page's lab module: views and computations the page needs only on demand —
//! comparisons of runs, opened trace steps, the glossary, repeated-trial statistics, the ranked
//! leaderboard, the generator and sweeps, and the streaming probe's plan and report — in a second WebAssembly module that is
//! loaded the first time one of them is asked for, so the app shell stays small.
//!
//! Every call is a pure function from JSON text to text, `fn(input: &str) ->
//! Result<String, LabError>` (except `stream_read`, which keeps the page's stream readers
//! between calls): a view call returns the wire JSON of a `wildtool_ui` node,
//! which the main module splices into its frame as `Node::Raw` without parsing it again.
//! The main module reaches a call by name (its `Effect::Lab`); [`call`] dispatches by
//! name natively (the page's tests), and on wasm32 each call is also exported under its
//! name through wasm-bindgen. Calls are listed once, in [`CALLS`].
#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod compare;
pub mod generate;
pub mod leaderboard;
pub mod probe;
pub mod stream;
pub mod sweep;
pub mod trace;
pub mod trials;
pub mod widgets;

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
    /// A comparison link cannot be read (the core's reason).
    #[error("this comparison link cannot be opened: {0}")]
    Share(#[from] wildtool_core::share::ShareError),
}

/// Reads a call's JSON input.
pub(crate) fn read<T: serde::de::DeserializeOwned>(input: &str) -> Result<T, LabError> {
    serde_json::from_str(input).map_err(|e| LabError::Input(e.to_string()))
}

/// Declares the calls: the name → function table [`call`] and [`CALLS`] use, and the
/// wasm-bindgen exports under the same names.
macro_rules! calls {
    ($($(#[doc = $doc:literal])* $name:ident => $($path:ident)::+;)*) => {
        /// Names of every call, in declaration order.
        pub const CALLS: &[&str] = &[$(stringify!($name)),*];

        /// Runs call `name` on `input` (what the page's `Effect::Lab` asks for).
        pub fn call(name: &str, input: &str) -> Result<String, LabError> {
            match name {
                $(stringify!($name) => $($path)::+(input),)*
                _ => Err(LabError::UnknownCall(name.to_owned())),
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
    };
}

calls! {
    /// The comparison view of two or more runs of one dataset (see [`compare`]).
    compare_view => crate::compare::view;
    /// A generated suite with its fingerprint and data card (see [`generate`]).
    generate => crate::generate::generate;
    /// A sweep's levels and their suites, checked (see [`sweep`]).
    sweep_plan => crate::sweep::plan;
    /// A sweep's analysis: `sweep.json`, `sweep.html` and the view (see [`sweep`]).
    sweep_view => crate::sweep::view;
    /// The comparison view of a comparison link (see [`compare::link_view`]).
    compare_link_view => crate::compare::link_view;
    /// The repeated-trials panel of a run (see [`trials`]).
    trials_view => crate::trials::view;
    /// The ranked leaderboard with the page's runs (see [`leaderboard`]).
    leaderboard_view => crate::leaderboard::view;
    /// An opened step of a trace (see [`trace`]).
    trace_step => crate::trace::step_view;
    /// The search text of every task of a run (see [`trace::search_texts`]).
    trace_search_texts => crate::trace::search_texts;
    /// The dashboard's glossary (see [`trace::glossary_view`]).
    glossary_view => crate::trace::glossary_view;
    /// One task's traces of two runs side by side (see [`trace::pair_view`]).
    trace_pair => crate::trace::pair_view;
    /// The streaming probe's requests (see [`probe`]).
    probe_requests => crate::probe::requests;
    /// The streaming probe's verdict and report (see [`probe`]).
    probe_report => crate::probe::report;
    /// The page's readers of streamed responses (see [`stream`]; the one call that keeps
    /// state between calls).
    stream_read => crate::stream::read_stream;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn calls_dispatch_by_name_and_refuse_unknown_names() {
        assert_eq!(
            CALLS,
            &[
                "compare_view",
                "generate",
                "sweep_plan",
                "sweep_view",
                "compare_link_view",
                "trials_view",
                "leaderboard_view",
                "trace_step",
                "trace_search_texts",
                "glossary_view",
                "trace_pair",
                "probe_requests",
                "probe_report",
                "stream_read"
            ]
        );
        let e = call("no_such_call", "{}").unwrap_err();
        assert!(matches!(e, LabError::UnknownCall(ref n) if n == "no_such_call"));
        assert!(e.to_string().contains("no call named \"no_such_call\""));
        let e = call("compare_view", "not json").unwrap_err();
        assert!(matches!(e, LabError::Input(_)), "{e}");
    }
}
