//! The contract between the page's two WebAssembly modules: the app shell (`wildtool-web`)
//! and the lab module (`wildtool-lab`, loaded the first time one of its calls is needed).
//!
//! - [`Call`]: every lab call, by name. The lab module dispatches with an exhaustive
//!   `match` over it and the shell names calls only through it, so a call added here is a
//!   compile error until the lab module answers it.
//! - [`inputs`]: one input type per call (serde on both sides: the shell serialises,
//!   the lab module deserialises).
//! - [`consts`]: the lists and numbers both modules use.
//! - [`actions`]: the page's `data-action` vocabulary ([`Action`], [`FileAction`]), which
//!   views name and the shell parses.
//!
//! Pure types only: no IO, no rendering (the views both modules can build are in
//! `wildtool-views`).
#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod actions;
pub mod consts;
pub mod env;
pub mod inputs;

pub use actions::{Action, FileAction};

/// Declares [`Call`] with its wire names, in one list.
macro_rules! calls {
    ($($(#[doc = $doc:literal])* $variant:ident => $name:literal,)*) => {
        /// A lab call: a pure function of the lab module from its JSON input to text
        /// (for a view, the wire JSON of a node the shell splices in as `Node::Raw`).
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum Call {
            $($(#[doc = $doc])* $variant,)*
        }

        impl Call {
            /// Every call, in declaration order.
            pub const ALL: &'static [Call] = &[$(Call::$variant),*];

            /// The call's name: the lab module's wasm-bindgen export.
            pub fn name(self) -> &'static str {
                match self {
                    $(Call::$variant => $name,)*
                }
            }

            /// The call named `name`.
            pub fn from_name(name: &str) -> Option<Call> {
                match name {
                    $($name => Some(Call::$variant),)*
                    _ => None,
                }
            }
        }
    };
}

calls! {
    /// The comparison view of two or more runs of one dataset .
    CompareView => "compare_view",
    /// A generated suite with its fingerprint and data card.
    Generate => "generate",
    /// A sweep's levels and their suites, checked.
    SweepPlan => "sweep_plan",
    /// A sweep's analysis: `sweep.json`, `sweep.html` and the view.
    SweepView => "sweep_view",
    /// The comparison view of a comparison link.
    CompareLinkView => "compare_link_view",
    /// The repeated-trials panel of a run.
    TrialsView => "trials_view",
    /// The ranked leaderboard with the page's runs.
    LeaderboardView => "leaderboard_view",
    /// An opened step of a trace.
    TraceStep => "trace_step",
    /// The search text of every task of a run.
    TraceSearchTexts => "trace_search_texts",
    /// The dashboard's glossary.
    GlossaryView => "glossary_view",
    /// One task's traces of two runs side by side.
    TracePair => "trace_pair",
    /// The streaming probe's requests.
    ProbeRequests => "probe_requests",
    /// The streaming probe's verdict and report.
    ProbeReport => "probe_report",
    /// The page's readers of streamed responses (a call that keeps state between calls).
    StreamRead => "stream_read",
    /// Scoring result lines with the core's scorer for the page's main thread (a call that
    /// keeps state between calls: datasets and jobs; `wildtool_lab::score`).
    Score => "score",
    /// The dashboard's charts ([`inputs::ChartsInput`]).
    DashboardCharts => "dashboard_charts",
    /// One dashboard chart as a file ([`inputs::ChartFileInput`]): `width height id`, a
    /// newline, the SVG.
    ChartFile => "chart_file",
    /// A run's share link text ([`inputs::ShareEncodeInput`]).
    ShareEncode => "share_encode",
    /// The outcomes a share link carries, as a JSON list ([`inputs::ShareDecodeInput`]).
    ShareDecode => "share_decode",
    /// What a share or comparison link's header says, readable before the dataset is
    /// loaded (the link text as a JSON string in, [`inputs::LinkHeader`] out).
    LinkHeader => "link_header",
    /// The history list ([`inputs::HistoryInput`]).
    HistoryList => "history_list",
    /// The generator's factors and their levels as a picker for the Generate or Sweep
    /// form (the input: `"generate"` or `"sweep"` as a JSON string).
    FactorPicker => "factor_picker",
    /// Runs' cost in money ([`inputs::CostInput`]).
    CostView => "cost_view",
    /// Setup's cost panel: the estimate and the price table editor
    /// ([`inputs::PriceEditorInput`]).
    PriceEditor => "price_editor",
    /// A price table checked (its JSON text in, the table as saved out, or the field
    /// that is wrong).
    PriceCheck => "price_check",
    /// The ledger environment's version (loads the lab module for an env run; the page
    /// then answers every step through [`Call::EnvStep`] synchronously).
    EnvInfo => "env_info",
    /// The ledger environment's answers to one step's tool calls (a step query in,
    /// `{"results": […]}` or `{"error"}` out).
    EnvStep => "env_step",
    /// An env run's end ([`env::EnvFinishInput`]): `env-result.jsonl`, `env-report.json` and
    /// the summary the page shows.
    EnvFinish => "env_finish",
    /// An `env-result.jsonl` scored ([`env::EnvScoreInput`]).
    EnvScore => "env_score",
    /// The dashboard's ledger environment section ([`env::EnvViewInput`]).
    EnvView => "env_view",
    /// One task of an env run: steps, violations and the ledger diff
    /// ([`env::EnvTaskInput`]).
    EnvTask => "env_task",
    /// One task's ledger as a `.beancount` file: actual, expected or the diff
    /// ([`env::EnvTaskInput`]).
    EnvExport => "env_export",
    /// The env summary a share link carries (its fragment in, the summary out).
    EnvShareDecode => "env_share_decode",
    /// Env runs compared on `env_success`, with the self-conditioning figure for a
    /// gold-history and an own-history run ([`env::EnvCompareInput`]).
    EnvCompareView => "env_compare_view",
    /// The item audit of runs of one dataset ([`inputs::AuditInput`]).
    AuditView => "audit_view",
    /// A bundle's claims verified against the dataset ([`inputs::VerifyInput`]).
    VerifyView => "verify_view",
    /// The page's cassette: a recorded exchange as a cassette line, an uploaded cassette
    /// loaded, a request answered from it (keeps the loaded cassette between calls).
    Cassette => "cassette",
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_round_trip() {
        for (i, c) in Call::ALL.iter().enumerate() {
            assert_eq!(Call::from_name(c.name()), Some(*c));
            assert!(Call::ALL[..i].iter().all(|d| d.name() != c.name()));
        }
        assert_eq!(Call::from_name("no_such_call"), None);
    }
}
