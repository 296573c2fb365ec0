//! Downloads of the shown run: the run file, the official `result.jsonl`, `score.jsonl`
//! and `metric.json`, the per-task CSV, the checkpoint (`wildtool run` resumes from it),
//! charts as SVG or PNG — and copying the share link.

use wildtool_core::outcome::TaskOutcome;
use wildtool_core::trace::Usage;

use wildtool_contract::inputs::ChartFileInput;
use wildtool_contract::Call;
use wildtool_core::report::RunStatus;

use crate::dashboard::ShownRun;
use crate::history::HistoryEntry;
use crate::msg::{Effect, LabPurpose};
use crate::placement::{Place, DASHBOARD_CHARTS};
use crate::state::{AppState, Tone};

/// A file-name-safe version of `s` (at most 60 characters).
pub fn safe_name(s: &str) -> String {
    let cleaned: String = s
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') {
                c
            } else {
                '_'
            }
        })
        .collect();
    let mut out = String::new();
    for c in cleaned.chars() {
        if c == '_' && out.ends_with('_') {
            continue;
        }
        out.push(c);
    }
    let out: String = out.chars().take(60).collect();
    if out.is_empty() {
        "run".into()
    } else {
        out
    }
}

/// One CSV cell: quoted when needed, with spreadsheet formulas defused.
pub fn csv_cell(s: &str) -> String {
    let safe = if s.starts_with(['=', '+', '-', '@', '\t', '\r']) {
        format!("'{s}")
    } else {
        s.to_owned()
    };
    if safe.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", safe.replace('"', "\"\""))
    } else {
        safe
    }
}

/// The per-task CSV: one row per dataset task, sessions and tasks numbered from 1; the
/// error class as the taxonomy chart titles it, and the task's recorded tokens and latency
/// when the run's logs are at hand (`usage`, empty cells otherwise).
pub fn per_task_csv(
    outcomes: &[TaskOutcome],
    session_id: impl Fn(u32) -> String,
    usage: impl Fn(&TaskOutcome) -> Option<Usage>,
) -> String {
    let mut out = String::from(
        "session,id,task,task_type,subtype,transitions,scored,correct,name_correct,optimal,steps_logged,nodes_done,nodes_total,error,error_class,input_tokens,output_tokens,latency_s\n",
    );
    for o in outcomes {
        let u = usage(o);
        let row = [
            (o.session + 1).to_string(),
            session_id(o.session),
            (u32::from(o.position) + 1).to_string(),
            o.task_type.as_str().to_owned(),
            o.subtype.map(|s| s.as_str().to_owned()).unwrap_or_default(),
            o.transitions.to_string(),
            (!o.incomplete).to_string(),
            o.correct.to_string(),
            o.name_correct.to_string(),
            o.optimal.to_string(),
            o.steps_logged.to_string(),
            o.nodes_done.to_string(),
            o.nodes_total.to_string(),
            o.error.map(|e| e.as_str().to_owned()).unwrap_or_default(),
            crate::traces::error_class(o)
                .map(|c| c.as_str().to_owned())
                .unwrap_or_default(),
            u.map(|u| u.input_tokens.to_string()).unwrap_or_default(),
            u.map(|u| u.output_tokens.to_string()).unwrap_or_default(),
            u.map(|u| format!("{:.3}", u.latency)).unwrap_or_default(),
        ];
        let cells: Vec<String> = row.iter().map(|c| csv_cell(c)).collect();
        out.push_str(&cells.join(","));
        out.push('\n');
    }
    out
}

/// The page's run file: the core's run export (version 2) with the run's metadata, the
/// checkpoint records (runs made in the page) or the result text, and one outcome per task.
pub fn run_file(shown: &ShownRun, entry: Option<&HistoryEntry>) -> String {
    use wildtool_core::formats::RunExport;
    let scored = shown.scored.as_ref();
    let meta = match entry {
        Some(e) => e.meta(),
        None => {
            let mut m = wildtool_core::formats::RunMeta::new(
                &shown.label,
                &shown.model,
                &shown.fingerprint,
            );
            m.status = Some(shown.headline.status);
            m
        }
    };
    let mut doc = RunExport::new(meta, entry.map(|e| e.export_settings()).unwrap_or_default());
    doc.records = scored
        .and_then(|s| s.records.as_ref())
        .map(|r| r.iter().skip(1).cloned().collect());
    if doc.records.is_none() {
        doc.result_jsonl = scored.and_then(|s| s.result_text.clone());
    }
    doc.outcomes = shown.outcomes.clone();
    doc.manifest = shown.manifest.clone();
    doc.to_json()
}

impl AppState {
    /// Downloads an export of the shown run.
    pub fn export(&mut self, kind: &str) -> Vec<Effect> {
        let Some(shown) = &self.shown else {
            return Vec::new();
        };
        let scored = shown.scored.as_ref();
        let file =
            |name: String, mime: &'static str, data: String| Effect::Download { name, mime, data };
        // Every file is named after the run's label and start, so two runs' files differ.
        let model = run_stem(
            &shown.label,
            self.history.get(&shown.id).map(|e| e.started_ms),
        );
        let effect = match kind {
            "run" => Some(file(
                format!("{model}.wildtool-run.json"),
                "application/json",
                run_file(shown, self.history.get(&shown.id)),
            )),
            "result" => scored
                .and_then(|s| s.result_text.clone())
                .map(|t| file(format!("{model}_result.jsonl"), "application/x-ndjson", t)),
            "score" => scored.map(|s| {
                let name = format!("{model}_score.jsonl");
                match s.score_kept {
                    Some(id) => Effect::DownloadKept { id, name },
                    None => file(name, "application/x-ndjson", s.score_jsonl()),
                }
            }),
            "metric" => scored.map(|s| {
                file(
                    format!("{model}_metric.json"),
                    "application/json",
                    s.metric.clone(),
                )
            }),
            "csv" => {
                let d = self.dataset;
                Some(file(
                    format!("{model}_tasks.csv"),
                    "text/csv",
                    per_task_csv(
                        &shown.outcomes,
                        |i| crate::traces::session_id(d, i),
                        |o| {
                            let digests = crate::traces::run_digests(shown)?;
                            digests.get(o.session, o.position).map(|x| x.usage)
                        },
                    ),
                ))
            }
            "checkpoint" => scored.and_then(|s| s.records.as_ref()).map(|r| {
                file(
                    format!("{model}_checkpoint.jsonl"),
                    "application/x-ndjson",
                    format!("{}\n", r.join("\n")),
                )
            }),
            _ => None,
        };
        match effect {
            Some(e) => vec![e],
            None => {
                self.say(
                    "That file is not available for this run (a run opened from a link has outcomes only).",
                    Tone::Warn,
                );
                Vec::new()
            }
        }
    }

    /// The dashboard's work after any message: its charts (when the lab module draws
    /// them) and the share link, asked for when what they are made from changed.
    pub fn dashboard_refresh(&mut self) -> Vec<Effect> {
        let Some(s) = &self.shown else {
            return Vec::new();
        };
        let charts = (s.headline.status != RunStatus::Failed).then(|| s.charts_input());
        let share = s.share.is_none().then(|| s.share_input());
        let mut fx = Vec::new();
        if let Some(input) = charts {
            fx.extend(self.movable_refresh(
                DASHBOARD_CHARTS,
                Call::DashboardCharts,
                LabPurpose::DashboardCharts,
                &input,
            ));
        }
        if let Some(input) = share {
            let text = serde_json::to_string(&input).unwrap_or_default();
            if self.lab.asked_with(LabPurpose::Share) != Some(text.as_str()) {
                self.lab.ask_with(LabPurpose::Share, text.clone());
                fx.extend(self.lab_call(Call::ShareEncode, text, LabPurpose::Share));
            } else if !self.lab.busy(LabPurpose::Share) {
                let answer = self.lab.answer(LabPurpose::Share).cloned();
                if let (Some(s), Some(a)) = (&mut self.shown, answer) {
                    s.share = Some(a);
                }
            }
        }
        fx
    }

    /// The lab module made (or refused) the shown run's share link.
    pub fn share_arrived(&mut self, answer: Result<String, String>) -> Vec<Effect> {
        if self.lab.settle(LabPurpose::Share, answer).is_some() {
            // Taken by `dashboard_refresh` when it is the shown run's.
            return self.dashboard_refresh();
        }
        Vec::new()
    }

    /// Downloads a chart as SVG or PNG (drawn where the dashboard's charts are).
    pub fn chart_download(&mut self, format: &str, id: &str) -> Vec<Effect> {
        let Some(s) = &self.shown else {
            return Vec::new();
        };
        let input = ChartFileInput {
            charts: s.charts_input(),
            id: id.to_owned(),
        };
        let png = format == "png";
        match DASHBOARD_CHARTS {
            Place::Shell => match wildtool_views::dashboard::chart_file(&input) {
                Some(c) => chart_effect(png, &c.id, c.size, c.svg),
                None => Vec::new(),
            },
            Place::Lab => {
                let text = serde_json::to_string(&input).unwrap_or_default();
                self.lab_call(Call::ChartFile, text, LabPurpose::ChartFile(png))
            }
        }
    }

    /// The lab module drew a chart to download (`width height id`, a newline, the SVG).
    pub fn chart_file_arrived(&mut self, png: bool, answer: Result<String, String>) -> Vec<Effect> {
        let p = LabPurpose::ChartFile(png);
        match self.lab.settle(p, answer) {
            Some(Ok(text)) => {
                self.lab.clear(p);
                let (head, svg) = text.split_once('\n').unwrap_or(("", ""));
                let mut f = head.splitn(3, ' ');
                let (Some(w), Some(h), Some(id)) = (f.next(), f.next(), f.next()) else {
                    return Vec::new();
                };
                let size = (w.parse().unwrap_or(640.0), h.parse().unwrap_or(400.0));
                chart_effect(png, id, size, svg.to_owned())
            }
            Some(Err(e)) => {
                self.lab.clear(p);
                self.say(e, Tone::Error);
                Vec::new()
            }
            None => Vec::new(),
        }
    }

    /// Copies the share link.
    pub fn copy_link(&mut self) -> Vec<Effect> {
        match self.shown.as_ref().and_then(|s| s.share.clone()) {
            Some(Ok(link)) => vec![Effect::Copy(self.share_url(&link))],
            _ => Vec::new(),
        }
    }

    /// The whole share URL for link text `link`.
    pub fn share_url(&self, link: &str) -> String {
        format!("{}#{link}", self.base)
    }

    /// Downloads the stored checkpoint of history entry `id`.
    pub fn export_checkpoint(&mut self, id: &str, entries: Vec<(String, String)>) -> Vec<Effect> {
        if entries.is_empty() {
            self.say("No checkpoint is stored for this run.", Tone::Warn);
            return Vec::new();
        }
        let stem = self
            .history
            .get(id)
            .map(|e| run_stem(&e.label, Some(e.started_ms)))
            .unwrap_or_default();
        let mut data = String::new();
        for (_, line) in entries {
            data.push_str(&line);
            data.push('\n');
        }
        vec![Effect::Download {
            name: format!("{stem}_checkpoint.jsonl"),
            mime: "application/x-ndjson",
            data,
        }]
    }
}

/// A run's files' common name: its label and, when known, its start (`gold_2026-12-02_2031`).
pub fn run_stem(label: &str, started_ms: Option<f64>) -> String {
    let when = started_ms.filter(|ms| *ms > 0.0).map(|ms| {
        let d = crate::widgets::when(ms);
        format!(
            "_{}",
            d.trim_end_matches(" UTC")
                .replace(' ', "_")
                .replace(':', "")
        )
    });
    safe_name(&format!("{label}{}", when.unwrap_or_default()))
}

/// The download of a chart.
fn chart_effect(png: bool, id: &str, size: (f64, f64), svg: String) -> Vec<Effect> {
    if png {
        vec![Effect::DownloadPng {
            svg,
            name: format!("{}.png", safe_name(id)),
            width: size.0,
            height: size.1,
        }]
    } else {
        vec![Effect::Download {
            name: format!("{}.svg", safe_name(id)),
            mime: "image/svg+xml",
            data: svg,
        }]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csv_cells_are_quoted_and_defused() {
        assert_eq!(csv_cell("a"), "a");
        assert_eq!(csv_cell("a,b"), "\"a,b\"");
        assert_eq!(csv_cell("say \"hi\""), "\"say \"\"hi\"\"\"");
        assert_eq!(csv_cell("=1+1"), "'=1+1");
        assert_eq!(csv_cell("-x,y"), "\"'-x,y\"");
    }

    #[test]
    fn names_are_safe() {
        assert_eq!(safe_name("org/model name:v1"), "org_model_name_v1");
        assert_eq!(safe_name("///"), "_");
        assert_eq!(safe_name(""), "run");
    }
}

#[cfg(test)]
mod stem_tests {
    #[test]
    fn a_runs_files_carry_its_label_and_start() {
        assert_eq!(
            super::run_stem("gold run", Some(1_764_602_400_000.0)),
            "gold_run_2025-12-01_152000"
        );
        assert_eq!(super::run_stem("gold", None), "gold");
    }
}
