//! The run on the dashboard: one outcome per dataset task, the report every number comes
//! from, the charts, the share link and (when the run was scored in this page) the
//! score files for traces and exports.

use wildtool_core::chart::dashboard::{self, ComparisonRow};
use wildtool_core::chart::{self, ChartSpec, ChartTable, Headline, Layout};
use wildtool_core::outcome::TaskOutcome;
use wildtool_core::report::{fill_outcomes, RunReport, RunStatus};
use wildtool_core::share::{self, ShareHeader, SharedRun};

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

/// A chart ready for the page.
#[derive(Debug, Clone, PartialEq)]
pub struct Chart {
    /// Stable id (`by-type` …).
    pub id: String,
    /// Title.
    pub title: String,
    /// SVG markup.
    pub svg: String,
    /// Data table.
    pub table: ChartTable,
    /// Natural size (CSS pixels).
    pub size: (f64, f64),
}

impl Chart {
    /// Renders `spec` with `layout`.
    pub fn of(spec: &ChartSpec, layout: Layout) -> Chart {
        let svg = chart::render_svg_with(spec, layout);
        Chart {
            id: spec.id.clone(),
            title: spec.title.clone(),
            size: svg_size(&svg),
            table: chart::table(spec),
            svg,
        }
    }
}

/// The `width`/`height` attributes of an `<svg>` start tag (640 × 400 when absent).
pub fn svg_size(svg: &str) -> (f64, f64) {
    let head = svg.split('>').next().unwrap_or("");
    let attr = |name: &str| {
        let key = format!(" {name}=\"");
        head.find(&key)
            .and_then(|i| head[i + key.len()..].split('"').next())
            .and_then(|v| v.parse::<f64>().ok())
    };
    (
        attr("width").unwrap_or(640.0),
        attr("height").unwrap_or(400.0),
    )
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
    /// The run's own charts.
    pub charts: Vec<Chart>,
    /// The comparison chart.
    pub comparison: Chart,
    /// What the charts are drawn from.
    specs: Vec<ChartSpec>,
    /// The comparison chart's rows after this run.
    others: Vec<ComparisonRow>,
    /// How the charts are laid out (narrow on phones).
    layout: Layout,
    /// The share link text (`v1.…`), or why there is none.
    pub share: Result<String, String>,
    /// The link was copied (`Some(false)`: the clipboard refused).
    pub copied: Option<bool>,
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
        let layout = Layout::STANDARD;
        let specs = dashboard::standard_charts(&label, &report);
        let charts = specs.iter().map(|s| Chart::of(s, layout)).collect();
        let share = if headline.status == RunStatus::Failed {
            Err("A failed run has no share link: nothing was scored.".to_owned())
        } else {
            share::encode(
                &SharedRun {
                    header: ShareHeader {
                        scorer_version: wildtool_core::SCORER_VERSION.to_owned(),
                        model_label: label.clone(),
                        dataset_fingerprint: dataset.fingerprint_u64(),
                        task_count: u32::try_from(dataset.shapes.len()).unwrap_or(u32::MAX),
                    },
                    outcomes: outcomes.clone(),
                },
                &dataset.shapes,
            )
            .map_err(|e| format!("No share link for this run: {e}"))
        };
        let comparison = Chart::of(
            &dashboard::comparison(&[dashboard::summarize(&label, &report)]),
            layout,
        );
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
            charts,
            comparison,
            specs,
            others: Vec::new(),
            layout,
            share,
            copied: None,
        }
    }

    /// This run as a comparison row.
    pub fn row(&self) -> ComparisonRow {
        dashboard::summarize(&self.label, &self.report)
    }

    /// Redraws the comparison chart with `others` after this run.
    pub fn set_comparison(&mut self, others: Vec<ComparisonRow>) {
        self.others = others;
        let mut rows = vec![self.row()];
        rows.extend(self.others.iter().cloned());
        self.comparison = Chart::of(&dashboard::comparison(&rows), self.layout);
    }

    /// Redraws every chart for `layout` (when the screen width class changes).
    pub fn set_layout(&mut self, layout: Layout) {
        if layout == self.layout {
            return;
        }
        self.layout = layout;
        self.charts = self.specs.iter().map(|s| Chart::of(s, layout)).collect();
        let others = std::mem::take(&mut self.others);
        self.set_comparison(others);
    }

    /// The share link's fragment, for runs opened from a link (their address).
    pub fn link_fragment(&self) -> Option<&str> {
        match (&self.kind, &self.share) {
            (RunKind::Link, Ok(link)) => Some(link),
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

    /// The chart with `id` (the comparison chart included).
    pub fn chart(&self, id: &str) -> Option<&Chart> {
        self.charts
            .iter()
            .chain(std::iter::once(&self.comparison))
            .find(|c| c.id == id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn svg_size_reads_the_start_tag() {
        assert_eq!(
            svg_size(r#"<svg xmlns="x" width="640" height="212.5"><rect width="3"/></svg>"#),
            (640.0, 212.5)
        );
        assert_eq!(svg_size("<svg>"), (640.0, 400.0));
    }
}
