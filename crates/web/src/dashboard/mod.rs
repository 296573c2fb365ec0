//! The run on the dashboard: one outcome per dataset task, the report every number comes
//! from, the charts, the share link and (when the run was scored in this page) the
//! score files for traces and exports.

pub mod exports;
pub mod headline;
pub mod links;
pub mod panels;
pub mod view;

use wildtool_contract::inputs::{ChartsInput, ShareEncodeInput};
use wildtool_core::chart::dashboard::{self, ComparisonRow};
use wildtool_core::chart::{Headline, Layout};
use wildtool_core::outcome::TaskOutcome;
use wildtool_core::report::{fill_outcomes, RunReport, RunStatus};

use crate::data::Dataset;
use crate::scoring::Scored;

/// How a run came to the page.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RunKind {
    /// Run in this page.
    Live,
    /// A result file, checkpoint or run export scored in this page.
    Upload,
    /// Opened from a share link.
    Link,
}

impl RunKind {
    /// Name in storage and the history list.
    pub fn as_str(self) -> &'static str {
        match self {
            RunKind::Live => "live",
            RunKind::Upload => "upload",
            RunKind::Link => "link",
        }
    }

    /// The kind named `s`.
    pub fn parse(s: &str) -> RunKind {
        match s {
            "live" => RunKind::Live,
            "link" => RunKind::Link,
            _ => RunKind::Upload,
        }
    }
}

/// Why a run ended without every task scored, as the user must read it.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct EndNote {
    /// `done`, `incomplete`, `cancelled`, `failed` (the automation vocabulary).
    pub outcome: String,
    /// The reason (a failed run's endpoint message).
    pub reason: Option<String>,
    /// How to fix it, when known.
    pub fix: Option<String>,
}

/// What names a run: its history id, label, model name and origin.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunIdent {
    /// History id.
    pub id: String,
    /// Label.
    pub label: String,
    /// Model name.
    pub model: String,
    /// Where it came from.
    pub kind: RunKind,
}

/// The run on the dashboard.
#[derive(Debug, Clone)]
pub struct ShownRun {
    /// History id.
    pub id: String,
    /// Label (model name unless renamed).
    pub label: String,
    /// Model name of the result file.
    pub model: String,
    /// Where it came from.
    pub kind: RunKind,
    /// Dataset fingerprint.
    pub fingerprint: String,
    /// One outcome per dataset task (unscored tasks are `incomplete`).
    pub outcomes: Vec<TaskOutcome>,
    /// The report every number comes from.
    pub report: RunReport,
    /// Headline strings.
    pub headline: Headline,
    /// How the run ended (live runs).
    pub end: Option<EndNote>,
    /// Score files, when scored in this page.
    pub scored: Option<Scored>,
    /// The comparison chart's rows after this run.
    others: Vec<ComparisonRow>,
    /// How the charts are laid out (narrow on phones).
    layout: Layout,
    /// The dataset's tasks (for the share link).
    shapes: &'static [wildtool_core::share::TaskShape],
    /// The share link text (`v1.…`), or why there is none; `None` while the lab module
    /// makes it.
    pub share: Option<Result<String, String>>,
    /// The link was copied (`Some(false)`: the clipboard refused).
    pub copied: Option<bool>,
    /// Lines of an uploaded file that could not be read, as the banner names them.
    pub damage: Option<String>,
    /// The run's manifest (`manifest.json`), for a run made in this page.
    pub manifest: Option<String>,
}

impl ShownRun {
    /// Builds the shown run from outcomes of `dataset` (any subset; missing tasks are
    /// unscored).
    pub fn new(
        ident: RunIdent,
        dataset: Dataset,
        outcomes: &[TaskOutcome],
        scored: Option<Scored>,
        end: Option<EndNote>,
    ) -> ShownRun {
        let RunIdent {
            id,
            label,
            model,
            kind,
        } = ident;
        let outcomes = fill_outcomes(&dataset.shapes, outcomes);
        let report = RunReport::from_outcomes(&outcomes);
        let headline = Headline::of(&report);
        let share = (headline.status == RunStatus::Failed)
            .then(|| Err("A failed run has no share link: nothing was scored.".to_owned()));
        ShownRun {
            id,
            label,
            model,
            kind,
            fingerprint: dataset.fingerprint.clone(),
            outcomes,
            report,
            headline,
            end,
            scored,
            others: Vec::new(),
            layout: Layout::STANDARD,
            shapes: &dataset.shapes,
            share,
            copied: None,
            damage: None,
            manifest: None,
        }
    }

    /// This run as a comparison row.
    pub fn row(&self) -> ComparisonRow {
        dashboard::summarize(&self.label, &self.report)
    }

    /// The comparison chart's rows after this run.
    pub fn set_comparison(&mut self, others: Vec<ComparisonRow>) {
        self.others = others;
    }

    /// How the charts are laid out (when the screen width class changes).
    pub fn set_layout(&mut self, layout: Layout) {
        self.layout = layout;
    }

    /// What the dashboard's charts are drawn from (the movable view
    /// `wildtool_views::dashboard`).
    pub fn charts_input(&self) -> ChartsInput {
        ChartsInput {
            label: self.label.clone(),
            outcomes: self.outcomes.clone(),
            others: self.others.clone(),
            width: self.layout.width,
            min_font: self.layout.min_font,
        }
    }

    /// What the share link is made from.
    pub fn share_input(&self) -> ShareEncodeInput {
        ShareEncodeInput {
            label: self.label.clone(),
            fingerprint: u64::from_str_radix(&self.fingerprint, 16).unwrap_or(0),
            shapes: self.shapes.to_vec(),
            outcomes: self.outcomes.clone(),
        }
    }

    /// The share link's fragment, for runs opened from a link (their address).
    pub fn link_fragment(&self) -> Option<&str> {
        match (&self.kind, &self.share) {
            (RunKind::Link, Some(Ok(link))) => Some(link),
            _ => None,
        }
    }

    /// The automation hook `headline`: the strings exactly as displayed.
    pub fn headline_json(&self) -> String {
        let text = |v: &Option<String>| serde_json::to_string(v).unwrap_or_else(|_| "null".into());
        format!(
            "{{\"tasks_scored\":{},\"tasks_total\":{},\"task_accuracy\":{},\"session_accuracy\":{}}}",
            self.headline.tasks_scored,
            self.headline.tasks_total,
            text(&self.headline.task_accuracy),
            text(&self.headline.session_accuracy)
        )
    }
}

/// A stable id for the run a link carries (opening the same link twice keeps one entry).
pub fn link_id(link: &str) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in link.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    format!("link-{h:016x}")
}
