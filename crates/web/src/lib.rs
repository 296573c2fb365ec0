//! wasm-bindgen exports for the static page: datasets ([`Workspace`]), built-in and live
//! runs ([`LiveClient`]), scoring ([`WebScorer`]), reports, charts and the share-link codec.
//!
//! Everything crosses the boundary as strings (JSON in, SVG/JSON/text out); errors are
//! `JsError`s carrying the typed error's message. Fingerprints travel as 16-digit hex
//! strings because JavaScript numbers cannot hold every `u64`.
//!
//! The crate is empty on other targets (so `cargo build --workspace` works natively).
#![cfg(target_arch = "wasm32")]
#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod fetch;
pub mod live;
pub mod scoring;
pub mod workspace;

pub use live::LiveClient;
pub use scoring::{run_headline, run_report, summary_text, LineFeed, WebScorer};
pub use workspace::{has_cjk, Workspace};

use serde::{Deserialize, Serialize};
use wasm_bindgen::prelude::*;
use wildtool_core::chart::{self, dashboard, ChartSpec, ChartTable};
use wildtool_core::formats::sniff;
use wildtool_core::outcome::TaskOutcome;
use wildtool_core::report::RunReport;
use wildtool_core::share::{self, ShareHeader, SharedRun, TaskShape};

fn json_err(what: &str, e: serde_json::Error) -> JsError {
    JsError::new(&format!("invalid {what} JSON: {e}"))
}

pub(crate) fn to_json<T: Serialize + ?Sized>(value: &T) -> Result<String, JsError> {
    serde_json::to_string(value).map_err(|e| JsError::new(&format!("cannot serialise result: {e}")))
}

fn parse_fingerprint(hex: &str) -> Result<u64, JsError> {
    u64::from_str_radix(hex.trim(), 16).map_err(|_| {
        JsError::new("dataset fingerprint must be a hexadecimal string of up to 16 digits")
    })
}

/// Header as exchanged with JavaScript.
#[derive(Serialize, Deserialize)]
struct WebHeader {
    scorer_version: String,
    model_label: String,
    dataset_fingerprint: String,
    task_count: u32,
}

impl From<&ShareHeader> for WebHeader {
    fn from(h: &ShareHeader) -> Self {
        WebHeader {
            scorer_version: h.scorer_version.clone(),
            model_label: h.model_label.clone(),
            dataset_fingerprint: format!("{:016x}", h.dataset_fingerprint),
            task_count: h.task_count,
        }
    }
}

/// Run as exchanged with JavaScript.
#[derive(Serialize, Deserialize)]
struct WebRun {
    header: WebHeader,
    outcomes: Vec<TaskOutcome>,
}

/// A rendered chart for the page: SVG plus its data table.
#[derive(Serialize)]
struct RenderedChart {
    id: String,
    title: String,
    svg: String,
    table: ChartTable,
}

fn rendered(spec: &ChartSpec) -> RenderedChart {
    RenderedChart {
        id: spec.id.clone(),
        title: spec.title.clone(),
        svg: chart::render_svg(spec),
        table: chart::table(spec),
    }
}

/// Renders a `ChartSpec` (JSON) to an SVG string.
#[wasm_bindgen(js_name = renderChart)]
pub fn render_chart(spec_json: &str) -> Result<String, JsError> {
    let spec: ChartSpec = serde_json::from_str(spec_json).map_err(|e| json_err("chart spec", e))?;
    Ok(chart::render_svg(&spec))
}

/// The data table (`{caption, headers, rows}` JSON) of a `ChartSpec` (JSON).
#[wasm_bindgen(js_name = chartTable)]
pub fn chart_table(spec_json: &str) -> Result<String, JsError> {
    let spec: ChartSpec = serde_json::from_str(spec_json).map_err(|e| json_err("chart spec", e))?;
    to_json(&chart::table(&spec))
}

/// The dashboard's charts for a run: JSON array of `{id, title, svg, table}`.
///
/// `outcomes_json` is an array of task outcomes; `comparison_json` an array of
/// `{label, values}` rows (published models, other runs) drawn after this run.
#[wasm_bindgen(js_name = dashboardCharts)]
pub fn dashboard_charts(
    label: &str,
    outcomes_json: &str,
    comparison_json: &str,
) -> Result<String, JsError> {
    let outcomes: Vec<TaskOutcome> =
        serde_json::from_str(outcomes_json).map_err(|e| json_err("outcomes", e))?;
    let others: Vec<dashboard::ComparisonRow> =
        serde_json::from_str(comparison_json).map_err(|e| json_err("comparison rows", e))?;
    let report = RunReport::from_outcomes(&outcomes);
    let mut specs = dashboard::standard_charts(label, &report);
    let mut rows = vec![dashboard::summarize(label, &report)];
    rows.extend(others);
    specs.push(dashboard::comparison(&rows));
    to_json(&specs.iter().map(rendered).collect::<Vec<_>>())
}

/// Headline numbers of a run: `{label, values}` JSON with values aligned with
/// `["Task", "Session", "Single-Tool", "Multi-Tool", "Clarify", "Chat"]`.
#[wasm_bindgen(js_name = runSummary)]
pub fn run_summary(label: &str, outcomes_json: &str) -> Result<String, JsError> {
    let outcomes: Vec<TaskOutcome> =
        serde_json::from_str(outcomes_json).map_err(|e| json_err("outcomes", e))?;
    to_json(&dashboard::summarize(
        label,
        &RunReport::from_outcomes(&outcomes),
    ))
}

/// Comparison rows (`[{label, values}]` JSON) for the named models of the published
/// leaderboard JSON; unknown names are skipped.
#[wasm_bindgen(js_name = leaderboardRows)]
pub fn leaderboard_rows(leaderboard_json: &str, models_json: &str) -> Result<String, JsError> {
    let models =
        dashboard::parse_leaderboard(leaderboard_json).map_err(|e| json_err("leaderboard", e))?;
    let wanted: Vec<String> =
        serde_json::from_str(models_json).map_err(|e| json_err("model list", e))?;
    let rows: Vec<dashboard::ComparisonRow> = wanted
        .iter()
        .filter_map(|w| models.iter().find(|m| &m.model == w).map(|m| m.to_row()))
        .collect();
    to_json(&rows)
}

/// Encodes a run (`{header, outcomes}` JSON) against the dataset's task shapes (JSON
/// array) into share-link text (`v1.…`, to put after `#`).
#[wasm_bindgen(js_name = shareEncode)]
pub fn share_encode(run_json: &str, shapes_json: &str) -> Result<String, JsError> {
    let run: WebRun = serde_json::from_str(run_json).map_err(|e| json_err("run", e))?;
    let shapes: Vec<TaskShape> =
        serde_json::from_str(shapes_json).map_err(|e| json_err("task shapes", e))?;
    let header = ShareHeader {
        scorer_version: run.header.scorer_version,
        model_label: run.header.model_label,
        dataset_fingerprint: parse_fingerprint(&run.header.dataset_fingerprint)?,
        task_count: run.header.task_count,
    };
    share::encode(
        &SharedRun {
            header,
            outcomes: run.outcomes,
        },
        &shapes,
    )
    .map_err(|e| JsError::new(&e.to_string()))
}

/// Reads a link's header (JSON `{scorer_version, model_label, dataset_fingerprint, task_count}`).
#[wasm_bindgen(js_name = shareReadHeader)]
pub fn share_read_header(link: &str) -> Result<String, JsError> {
    let h = share::read_header(link).map_err(|e| JsError::new(&e.to_string()))?;
    to_json(&WebHeader::from(&h))
}

/// Decodes a link against the loaded dataset (hex fingerprint, shapes JSON) into run JSON.
#[wasm_bindgen(js_name = shareDecode)]
pub fn share_decode(
    link: &str,
    fingerprint_hex: &str,
    shapes_json: &str,
) -> Result<String, JsError> {
    let shapes: Vec<TaskShape> =
        serde_json::from_str(shapes_json).map_err(|e| json_err("task shapes", e))?;
    let fp = parse_fingerprint(fingerprint_hex)?;
    let run = share::decode(link, fp, &shapes).map_err(|e| JsError::new(&e.to_string()))?;
    to_json(&WebRun {
        header: WebHeader::from(&run.header),
        outcomes: run.outcomes,
    })
}

/// A proportion as the charts print it (`0.5625` → `56.2%`, Rust's rounding), so the
/// page's headline numbers agree with its charts and with `wildtool report`.
#[wasm_bindgen(js_name = formatPercent)]
pub fn format_percent(value: f64) -> String {
    chart::format_percent(value)
}

/// The origin (`scheme://host[:port]`) of an endpoint base URL; fails with the reason when
/// the URL is not a usable http(s) endpoint.
#[wasm_bindgen(js_name = endpointOrigin)]
pub fn endpoint_origin(base_url: &str) -> Result<String, JsError> {
    wildtool_core::runner::endpoint_url::EndpointUrl::parse(base_url)
        .map(|u| u.origin())
        .map_err(|e| JsError::new(&e.to_string()))
}

/// Whether a key remembered for `saved_origin` may be sent to `base_url` (same origin only).
#[wasm_bindgen(js_name = keyAllowedFor)]
pub fn key_allowed_for(saved_origin: &str, base_url: &str) -> bool {
    wildtool_core::runner::endpoint_url::key_allowed_for(saved_origin, base_url)
}

/// The scorer version string written into share links and reports.
#[wasm_bindgen(js_name = scorerVersion)]
pub fn scorer_version() -> String {
    wildtool_core::SCORER_VERSION.to_owned()
}

/// The crate version, shown in the page footer.
#[wasm_bindgen(js_name = version)]
pub fn version() -> String {
    env!("CARGO_PKG_VERSION").to_owned()
}

/// What an uploaded file is, from its first bytes (64 KiB suffice) and its size:
/// `{kind, name, message, scorable}` JSON.
#[wasm_bindgen(js_name = sniffFile)]
pub fn sniff_file(head: &[u8], total_len: f64) -> Result<String, JsError> {
    #[derive(Serialize)]
    struct Sniffed {
        kind: sniff::FileKind,
        name: &'static str,
        message: String,
        scorable: bool,
    }
    let total = if total_len.is_finite() && total_len >= 0.0 {
        total_len as u64
    } else {
        head.len() as u64
    };
    let kind = sniff::sniff(head, total);
    to_json(&Sniffed {
        name: kind.name(),
        message: kind.message(),
        scorable: kind.is_scorable(),
        kind,
    })
}
