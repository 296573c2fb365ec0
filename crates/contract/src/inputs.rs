//! One input type per lab call ([`crate::Call`]). The shell serialises them, the lab
//! module deserialises them: both sides use these types, so they cannot drift apart.

use serde::{Deserialize, Serialize};
use wildtool_core::chart::dashboard::ComparisonRow;
use wildtool_core::outcome::TaskOutcome;
use wildtool_core::share::TaskShape;

/// The dashboard's charts ([`crate::Call::DashboardCharts`]): the run's own charts from
/// its report, the comparison chart (this run, then `others`) and the error classes'
/// trace links.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChartsInput {
    /// The run's label.
    pub label: String,
    /// One outcome per dataset task (unscored tasks `incomplete`).
    pub outcomes: Vec<TaskOutcome>,
    /// The comparison chart's rows after this run.
    pub others: Vec<ComparisonRow>,
    /// Chart width in CSS pixels.
    pub width: f64,
    /// Smallest chart text in pixels (0: the standard sizes).
    pub min_font: f64,
}

/// One chart of the dashboard as a file ([`crate::Call::ChartFile`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChartFileInput {
    /// The charts.
    pub charts: ChartsInput,
    /// The chart's id (`by-type` …, `comparison`).
    pub id: String,
}

/// A run's share link ([`crate::Call::ShareEncode`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ShareEncodeInput {
    /// The run's label.
    pub label: String,
    /// The dataset's fingerprint.
    pub fingerprint: u64,
    /// Every task of the dataset, in dataset order.
    pub shapes: Vec<TaskShape>,
    /// One outcome per dataset task.
    pub outcomes: Vec<TaskOutcome>,
}

/// The outcomes of a share link ([`crate::Call::ShareDecode`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ShareDecodeInput {
    /// The link text (the fragment without `#`).
    pub link: String,
    /// The loaded dataset's fingerprint (the link's must be the same).
    pub fingerprint: u64,
    /// Every task of the dataset, in dataset order.
    pub shapes: Vec<TaskShape>,
}
