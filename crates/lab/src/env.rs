//! The ledger environment in the page (an extension, never an official number): the
//! step answers of an env run, its end (`env-result.jsonl` and `env-report.json`, by the
//! functions `wildtool run --env ledger` and `wildtool env-score` use), the dashboard's
//! "Extension: ledger environment" section, one task's trace with its ledger diff, the
//! `.beancount` downloads and the env share link. All of it lives here, in the lab
//! module: the app shell only carries the engine's tool calls to [`step`] and the text
//! back.
//!
//! The **summary** is what the page shows of an env run: the report's metrics, the
//! headline strings (`envHeadline`), and the counts the charts draw (outcome segments per
//! challenge, excess writes, one row per task). The section is a function of the summary
//! alone, and a share link carries the summary, so a recipient sees the same numbers.

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;
use wildtool_contract::env::{
    EnvFinishInput, EnvScoreInput, EnvSession, EnvTaskInput, EnvViewInput,
};
use wildtool_contract::Action;
use wildtool_core::chart::{
    self, format_percent, ChartKind, ChartSpec, Orientation, Point, Series,
};
use wildtool_core::dataset::{parse_session, Lang, Session};
use wildtool_core::json::{dumps, loads, Escape, Value};
use wildtool_core::ledger::metrics::{ReportHead, EXTENSION_LABEL};
use wildtool_core::ledger::run_file::{header_line, score_file, session_line, Scored, SessionEnv};
use wildtool_core::ledger::scenario::Challenge;
use wildtool_core::ledger::score::{Correction, TaskScore};
use wildtool_core::ledger::text::{unified_diff, write_ledger};
use wildtool_core::ledger::trace::TaskTrace;
use wildtool_core::ledger::ENV_VERSION;
use wildtool_core::own::ledger_own::{metrics_json, score_session};
use wildtool_core::own::run_file::{
    header_line as own_header_line, parse_header as own_header, session_line as own_session_line,
    OwnHead, OWN_RUN_FORMAT,
};
use wildtool_core::own::OWN_VERSION;
use wildtool_core::runner::checkpoint::line_traces;
use wildtool_ui::{el, el_text, Element, Node};
use wildtool_views::widgets::{layout, table, Chart};

use crate::{read, LabError};

/// The summary's format marker.
pub const SUMMARY_FORMAT: &str = "wildtool-env-summary/1";

/// The prefix of an env share link's fragment.
pub const LINK_PREFIX: &str = "e1.";

/// The longest env share link fragment read.
const MAX_LINK: usize = 64 * 1024;

/// The outcome segments of the challenge chart, in order.
const SEGMENTS: [&str; 5] = [
    "success",
    "state right, another check failed",
    "double booking",
    "unexpected write",
    "wrong state",
];

fn msg(m: impl Into<String>) -> LabError {
    LabError::Message(m.into())
}

/// `{"env_version", "own_version"}`: loads the module for an env run (the versions the
/// engine's checkpoint header names, as the CLI's).
pub fn info(_input: &str) -> Result<String, LabError> {
    Ok(serde_json::json!({
        "env_version": ENV_VERSION,
        "own_version": format!("{OWN_VERSION} {ENV_VERSION}"),
    })
    .to_string())
}

/// One step's answers: the core's pure step function over JSON.
pub fn step(input: &str) -> Result<String, LabError> {
    Ok(wildtool_core::ledger::answer::step_json(input))
}

pub(crate) fn sessions_of(list: &[EnvSession]) -> Result<Vec<Session>, LabError> {
    list.iter()
        .map(|s| {
            parse_session(s.line, &s.text, Lang::En)
                .session
                .ok_or_else(|| msg(format!("session {} cannot be read", s.line + 1)))
        })
        .collect()
}

/// The segment of a task in the challenge chart.
fn segment(t: &TaskScore) -> usize {
    let c = &t.components;
    if t.env_success {
        0
    } else if !c.no_double_booking {
        2
    } else if !c.no_unexpected_write {
        3
    } else if c.state_correct {
        1
    } else {
        4
    }
}

fn rate_text(v: Option<&Value>) -> String {
    match v.and_then(|r| r.get("value")) {
        Some(Value::Float(f)) => format_percent(*f),
        _ => "–".to_owned(),
    }
}

/// The summary of a scored env-result (JSON text).
fn summary(scored: &Scored, verdicts: Option<(u64, u64)>, sessions: &[Session]) -> String {
    let own = verdicts.is_some();
    let metrics = if own {
        scored.metrics.to_value()
    } else {
        let report = loads(&scored.report).unwrap_or(Value::Null);
        report.get("ledger_env").cloned().unwrap_or(Value::Null)
    };
    let session_success = if own {
        let (k, n) = verdicts.unwrap_or_default();
        if n == 0 {
            "–".to_owned()
        } else {
            format_percent(k as f64 / n as f64)
        }
    } else {
        rate_text(metrics.get("env_session_success"))
    };
    let mut segments = vec![[0u64; 5]; Challenge::ALL.len()];
    let mut excess = [0u64; 4];
    let mut tasks = Vec::new();
    for (index, list) in &scored.sessions {
        let id = sessions
            .iter()
            .find(|s| s.index == *index)
            .map(|s| s.id.clone())
            .unwrap_or_default();
        for t in list {
            let ch = Challenge::ALL
                .iter()
                .position(|c| *c == t.challenge)
                .unwrap_or(0);
            segments[ch][segment(t)] += 1;
            if t.optimal_writes > 0 {
                excess[(t.excess_writes.max(0) as usize).min(3)] += 1;
            }
            tasks.push(serde_json::json!({
                "id": id,
                "line": index,
                "task": t.task,
                "challenge": t.challenge.as_str(),
                "ok": t.env_success,
                "end": t.end.as_str(),
            }));
        }
    }
    let seg: serde_json::Map<String, serde_json::Value> = Challenge::ALL
        .iter()
        .zip(&segments)
        .map(|(c, s)| (c.as_str().to_owned(), serde_json::json!(s)))
        .collect();
    let doc = serde_json::json!({
        "format": SUMMARY_FORMAT,
        "extension": EXTENSION_LABEL,
        "model": scored.head.model_name,
        "history": scored.head.history_mode,
        "status": scored.head.status,
        "fingerprint": scored.head.dataset_fingerprint,
        "env_version": scored.head.env_version,
        "tasks_total": scored.head.tasks_total,
        "tasks_scored": scored.metrics.env_task_success.n,
        "sessions_scored": scored.sessions.len(),
        "sessions_without_env": scored.head.sessions_without_env,
        "headline": {
            "env_task_success": rate_text(metrics.get("env_task_success")),
            "env_session_success": session_success,
        },
        "ledger_env": serde_json::from_str::<serde_json::Value>(&dumps(&metrics, Escape::Utf8)).unwrap_or_default(),
        "segments": seg,
        "excess": excess,
        "tasks": tasks,
    });
    doc.to_string()
}

/// Own-history traces of ledger sessions scored (the CLI's `--history own --env ledger`):
/// the per-task scores through the id mapping, the session verdicts on the final ledger,
/// and the `ledger_env` member of `own-report.json`.
fn score_own(sessions: &[Session], fingerprint: &str, text: &str) -> Result<OwnScored, LabError> {
    let mut lines = text.lines().filter(|l| !l.trim().is_empty());
    let head_line = lines.next().ok_or_else(|| msg("the file is empty"))?;
    let head = own_header(head_line).map_err(|e| msg(format!("line 1: {e}")))?;
    if head.dataset_fingerprint != fingerprint {
        return Err(msg(format!(
            "these results were produced on dataset {}, not {fingerprint}; nothing was scored",
            head.dataset_fingerprint
        )));
    }
    let mut scored = std::collections::BTreeMap::new();
    let mut traces = std::collections::BTreeMap::new();
    let mut envs = std::collections::BTreeMap::new();
    let mut problems = Vec::new();
    let mut verdicts = (0u64, 0u64);
    let mut metrics = wildtool_core::ledger::metrics::EnvMetrics::default();
    for (no, line) in lines.enumerate() {
        let v = match loads(line) {
            Ok(v) => v,
            Err(e) => {
                problems.push((no + 2, format!("line {}: not JSON: {e}", no + 2)));
                continue;
            }
        };
        let id = v.get("id").and_then(Value::as_str).unwrap_or("");
        let Some(session) = sessions.iter().find(|s| s.id == id) else {
            continue;
        };
        let Some(env) = SessionEnv::of(session).map_err(|e| msg(e.to_string()))? else {
            continue;
        };
        let tr = v
            .get("tasks")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        match score_session(session, &env, &tr) {
            Ok(o) => {
                metrics.add_session(&o.tasks);
                verdicts.0 += u64::from(o.session_correct);
                verdicts.1 += 1;
                scored.insert(session.index, o.tasks);
                traces.insert(session.index, tr);
                envs.insert(session.index, env);
            }
            Err(e) => problems.push((no + 2, format!("{}: {e}", session.id))),
        }
    }
    let loaded = wildtool_core::dataset::LoadedDataset {
        sessions: sessions.to_vec(),
        ..Default::default()
    };
    let ledger_env = metrics_json(&loaded, &envs, &traces).unwrap_or_default();
    let mut report = serde_json::to_string_pretty(&ledger_env).unwrap_or_default();
    report.push('\n');
    let scored = Scored {
        report,
        metrics,
        head: ReportHead {
            model_name: head.model_name,
            dataset_fingerprint: head.dataset_fingerprint,
            history_mode: "own".to_owned(),
            env_version: format!("{OWN_VERSION} {ENV_VERSION}"),
            status: head.status,
            tasks_total: head.tasks_total,
            trial: head.trial,
            sessions_without_env: 0,
        },
        sessions: scored,
        problems,
    };
    Ok((scored, Some(verdicts)))
}

/// A scored env result and, in own history, the session verdicts (final ledger
/// correct, sessions).
pub(crate) type OwnScored = (Scored, Option<(u64, u64)>);

fn is_own(text: &str) -> bool {
    text.lines()
        .next()
        .is_some_and(|l| l.contains(OWN_RUN_FORMAT))
}

/// Scores an env result of either history mode.
pub(crate) fn score_any(
    sessions: &[Session],
    fingerprint: &str,
    text: &str,
) -> Result<OwnScored, LabError> {
    if is_own(text) {
        score_own(sessions, fingerprint, text)
    } else {
        score_file(sessions, fingerprint, text, false)
            .map(|s| (s, None))
            .map_err(|e| msg(e.to_string()))
    }
}

/// `{"result", "report", "summary", "link"}` for a scored text.
fn scored_answer(result: &str, (scored, verdicts): &OwnScored, sessions: &[Session]) -> String {
    let summary = summary(scored, *verdicts, sessions);
    let link = format!(
        "{LINK_PREFIX}{}",
        URL_SAFE_NO_PAD.encode(summary.as_bytes())
    );
    serde_json::json!({
        "result": result,
        "report": scored.report,
        "summary": summary,
        "link": link,
        "problems": scored.problems.iter().map(|(_, p)| p.clone()).collect::<Vec<_>>(),
    })
    .to_string()
}

/// An env run's end: the engine's assembled session lines as `env-result.jsonl` (header
/// first, one scored line per complete session), scored into `env-report.json`.
pub fn finish(input: &str) -> Result<String, LabError> {
    let input: EnvFinishInput = read(input)?;
    let sessions = sessions_of(&input.sessions)?;
    let head = ReportHead {
        model_name: input.model.clone(),
        dataset_fingerprint: input.fingerprint.clone(),
        history_mode: input.history.clone(),
        env_version: ENV_VERSION.to_owned(),
        status: input.status.clone(),
        tasks_total: input.tasks_total,
        trial: 1,
        sessions_without_env: input.sessions_without_env,
    };
    let own = input.history == "own";
    let mut text = if own {
        own_header_line(&OwnHead {
            model_name: input.model.clone(),
            dataset_fingerprint: input.fingerprint.clone(),
            environment: "ledger".to_owned(),
            status: input.status.clone(),
            trial: 1,
            tasks_total: input.tasks_total,
        })
    } else {
        header_line(&head)
    };
    text.push('\n');
    for line in input.assembled.lines() {
        let (id, traces) = line_traces(line).map_err(msg)?;
        let Some(session) = sessions.iter().find(|s| s.id == id) else {
            continue;
        };
        let Some(env) = SessionEnv::of(session).map_err(|e| msg(e.to_string()))? else {
            continue;
        };
        let line = if own {
            own_session_line(session, &input.model, "ledger", &traces)
        } else {
            session_line(session, &env, &input.model, &input.history, &traces)
                .map_err(|e| msg(format!("{}: {e}", session.id)))?
                .0
        };
        text.push_str(&line);
        text.push('\n');
    }
    let mut scored = score_any(&sessions, &input.fingerprint, &text)?;
    scored.0.head.sessions_without_env = input.sessions_without_env;
    Ok(scored_answer(&text, &scored, &sessions))
}

/// An `env-result.jsonl` scored (an upload, a stored run): the same answer as [`finish`].
pub fn score(input: &str) -> Result<String, LabError> {
    let input: EnvScoreInput = read(input)?;
    let sessions = sessions_of(&input.sessions)?;
    let scored = score_any(&sessions, &input.fingerprint, &input.result)?;
    Ok(scored_answer(&input.result, &scored, &sessions))
}

/// The summary an env share link carries (`e1.…`), checked.
pub fn share_decode(input: &str) -> Result<String, LabError> {
    let bad = || msg("This ledger environment link cannot be opened: it is damaged.");
    let body = input.trim().strip_prefix(LINK_PREFIX).ok_or_else(bad)?;
    if body.len() > MAX_LINK {
        return Err(bad());
    }
    let bytes = URL_SAFE_NO_PAD.decode(body).map_err(|_| bad())?;
    let text = String::from_utf8(bytes).map_err(|_| bad())?;
    let v: serde_json::Value = serde_json::from_str(&text).map_err(|_| bad())?;
    if v.get("format").and_then(|f| f.as_str()) != Some(SUMMARY_FORMAT) {
        return Err(bad());
    }
    Ok(text)
}

// ---- the section ---------------------------------------------------------------------

fn s_str<'a>(v: &'a serde_json::Value, k: &str) -> &'a str {
    v.get(k).and_then(|x| x.as_str()).unwrap_or("")
}

fn s_u64(v: &serde_json::Value, k: &str) -> u64 {
    v.get(k).and_then(|x| x.as_u64()).unwrap_or(0)
}

fn share(k: u64, n: u64) -> Point {
    if n == 0 {
        Point::missing()
    } else {
        Point::new(k as f64 / n as f64)
    }
}

/// A figure: the chart, its description (in the SVG) and its data table, without file
/// downloads (the official charts' downloads name official charts only).
fn figure(spec: &ChartSpec, lay: chart::Layout, note: &str) -> Element {
    let c = Chart::of(spec, lay);
    el("figure")
        .class("chart")
        .attr("data-chart", c.id.clone())
        .key(c.id.clone())
        .child(el("div").class("chart-box").child(Node::Svg(c.svg.clone())))
        .child(el_text("figcaption", note))
        .child(
            el("div").class("chart-tools").child(
                el("details")
                    .child(el_text("summary", "Data table"))
                    .child(wildtool_views::widgets::table_box().child(table(&c.table))),
            ),
        )
}

fn metric_rows(m: &serde_json::Value) -> Vec<Vec<String>> {
    let mut rows = Vec::new();
    let Some(obj) = m.as_object() else {
        return rows;
    };
    for (name, v) in obj {
        if v.get("numerator").is_none() {
            continue;
        }
        let value = v
            .get("value")
            .and_then(|x| x.as_f64())
            .map(format_percent)
            .unwrap_or_else(|| "–".to_owned());
        let ci = match v.get("ci95").and_then(|x| x.as_array()) {
            Some(a) if a.len() == 2 => format!(
                "{} – {}",
                format_percent(a[0].as_f64().unwrap_or(0.0)),
                format_percent(a[1].as_f64().unwrap_or(0.0))
            ),
            _ => "–".to_owned(),
        };
        rows.push(vec![
            name.clone(),
            value,
            format!("{} / {}", s_u64(v, "numerator"), s_u64(v, "denominator")),
            ci,
        ]);
    }
    if let Some(ex) = obj.get("mean_excess_writes") {
        rows.push(vec![
            "mean_excess_writes".to_owned(),
            ex.get("value")
                .and_then(|x| x.as_f64())
                .map(|f| format!("{f:.3}"))
                .unwrap_or_else(|| "–".to_owned()),
            format!(
                "{} over {} tasks",
                s_u64(ex, "sum"),
                s_u64(ex, "denominator")
            ),
            "–".to_owned(),
        ]);
    }
    rows
}

/// The charts of the section, from the summary.
fn charts(v: &serde_json::Value, lay: chart::Layout) -> Vec<Element> {
    let label = s_str(v, "model").to_owned();
    let m = v.get("ledger_env").cloned().unwrap_or_default();
    // 1. Outcomes by challenge.
    let seg = v.get("segments").cloned().unwrap_or_default();
    let rows: Vec<(String, [u64; 5])> = Challenge::ALL
        .iter()
        .filter_map(|c| {
            let a = seg.get(c.as_str())?.as_array()?;
            let mut out = [0u64; 5];
            for (i, x) in a.iter().take(5).enumerate() {
                out[i] = x.as_u64().unwrap_or(0);
            }
            (out.iter().sum::<u64>() > 0).then(|| (c.as_str().replace('_', " "), out))
        })
        .collect();
    let by_challenge = ChartSpec {
        id: "env-challenge".into(),
        title: "Ledger environment: outcomes by challenge".into(),
        summary: Some("Each bar is one challenge type's tasks, split by how they ended: success (every component held), state right but another check failed (a dirty trajectory, a missing answer item, a premature write), a double booking, a write where none was expected, or a wrong final state.".into()),
        categories: rows.iter().map(|(c, _)| c.clone()).collect(),
        series: SEGMENTS
            .iter()
            .enumerate()
            .map(|(i, name)| Series {
                name: (*name).to_owned(),
                points: rows
                    .iter()
                    .map(|(_, r)| share(r[i], r.iter().sum()))
                    .collect(),
            })
            .collect(),
        kind: ChartKind::Stacked100,
        orientation: Orientation::Horizontal,
        value_axis: "Share of the challenge's tasks".into(),
    };
    // 2. Path label × env success.
    let ag = m.get("agreement").cloned().unwrap_or_default();
    let cell = |k: &str| s_u64(&ag, k);
    let (cs, cf, es, ef) = (
        cell("correct_success"),
        cell("correct_failure"),
        cell("error_success"),
        cell("error_failure"),
    );
    let agreement = ChartSpec {
        id: "env-agreement".into(),
        title: "Ledger environment: path label × env success".into(),
        summary: Some(format!("The official loop's name decision on the same replies (a diagnostic, not an official label) against the environment's verdict. Path label correct: {cs} env success, {cf} env failure; path label error: {es} env success, {ef} env failure.")),
        categories: vec!["path label correct".into(), "path label error".into()],
        series: vec![
            Series {
                name: "env success".into(),
                points: vec![share(cs, cs + cf), share(es, es + ef)],
            },
            Series {
                name: "env failure".into(),
                points: vec![share(cf, cs + cf), share(ef, es + ef)],
            },
        ],
        kind: ChartKind::Stacked100,
        orientation: Orientation::Horizontal,
        value_axis: "Share of the label's tasks".into(),
    };
    // 3. Excess writes.
    let ex: Vec<u64> = v
        .get("excess")
        .and_then(|x| x.as_array())
        .map(|a| a.iter().map(|x| x.as_u64().unwrap_or(0)).collect())
        .unwrap_or_default();
    let ex_total: u64 = ex.iter().sum();
    let excess = ChartSpec {
        id: "env-excess".into(),
        title: "Ledger environment: excess writes".into(),
        summary: Some(format!("Tasks with gold writes ({ex_total}) by accepted writes beyond the optimal number: 0 is optimal; more means repeated or unneeded writes.")),
        categories: vec!["0".into(), "1".into(), "2".into(), "3 or more".into()],
        series: vec![Series {
            name: label.clone(),
            points: (0..4)
                .map(|i| share(ex.get(i).copied().unwrap_or(0), ex_total))
                .collect(),
        }],
        kind: ChartKind::Bars,
        orientation: Orientation::Vertical,
        value_axis: "Share of tasks with gold writes".into(),
    };
    // 4. Correction outcomes.
    let co = m.get("correction_outcomes").cloned().unwrap_or_default();
    let co_total: u64 = Correction::ALL.iter().map(|c| s_u64(&co, c.as_str())).sum();
    let corrections = ChartSpec {
        id: "env-corrections".into(),
        title: "Ledger environment: correction outcomes".into(),
        summary: Some(format!("What the model did on the {co_total} correction task(s): amended in place (the expected way), replaced, re-added (a double booking), left untouched, changed the wrong transaction, or deleted.")),
        categories: Correction::ALL.iter().map(|c| c.as_str().replace('_', " ")).collect(),
        series: vec![Series {
            name: label,
            points: Correction::ALL
                .iter()
                .map(|c| share(s_u64(&co, c.as_str()), co_total))
                .collect(),
        }],
        kind: ChartKind::Bars,
        orientation: Orientation::Horizontal,
        value_axis: "Share of correction tasks".into(),
    };
    vec![
        figure(&by_challenge, lay, "Outcomes by challenge (shares of each challenge's tasks)."),
        figure(&agreement, lay, "Path label × state verdict (2×2, shares of each label's tasks; counts in the description)."),
        figure(&excess, lay, "Excess writes (histogram over tasks with gold writes)."),
        figure(&corrections, lay, "Correction outcomes (shares of correction tasks)."),
    ]
}

/// The dashboard's "Extension: ledger environment" section (wire JSON of a `section`).
pub fn view(input: &str) -> Result<String, LabError> {
    let input: EnvViewInput = read(input)?;
    let v: serde_json::Value =
        serde_json::from_str(&input.summary).map_err(|e| LabError::Input(e.to_string()))?;
    let lay = layout(input.width, input.min_font);
    let head = v.get("headline").cloned().unwrap_or_default();
    let m = v.get("ledger_env").cloned().unwrap_or_default();
    let headers: Vec<String> = ["metric", "value", "count", "95% interval"]
        .iter()
        .map(|s| (*s).to_owned())
        .collect();
    let mut section = el("section")
        .id("env-section")
        .class("panel extension")
        .attr("aria-labelledby", "env-title")
        .child(el_text("h2", "Extension: ledger environment").id("env-title"))
        .child(
            el("p")
                .class("banner")
                .attr("role", "note")
                .child(el_text("strong", "Extension, not a WildToolBench metric. "))
                .text(EXTENSION_LABEL),
        )
        .child(el("p").id("env-meta").class("muted").text(format!(
            "{} · {} history · {} · status {} · {} of {} env tasks scored · {} session(s) without ledger_env skipped",
            s_str(&v, "model"),
            s_str(&v, "history"),
            s_str(&v, "env_version"),
            s_str(&v, "status"),
            s_u64(&v, "tasks_scored"),
            s_u64(&v, "tasks_total"),
            s_u64(&v, "sessions_without_env"),
        )))
        .child(
            el("dl")
                .id("env-headline")
                .class("headline")
                .child(el_text("dt", "Env task success"))
                .child(el_text("dd", s_str(&head, "env_task_success")).id("env-task-success"))
                .child(el_text("dt", "Env session success"))
                .child(
                    el_text("dd", s_str(&head, "env_session_success")).id("env-session-success"),
                ),
        );
    section = section.child(
        wildtool_views::widgets::table_box().child(wildtool_ui::data_table(
            "Ledger environment metrics",
            &headers,
            &metric_rows(&m),
        )),
    );
    section = section.child(
        el("div")
            .id("env-charts")
            .class("charts")
            .children(charts(&v, lay)),
    );
    Ok(section.to_json())
}

// ---- one task ------------------------------------------------------------------------

fn task_scored(input: &EnvTaskInput) -> Result<(Session, Scored), LabError> {
    let sessions = sessions_of(std::slice::from_ref(&input.session))?;
    let (scored, _) = score_any(&sessions, &input.fingerprint, &input.result)?;
    let session = sessions
        .into_iter()
        .next()
        .ok_or_else(|| msg("no session"))?;
    Ok((session, scored))
}

fn the_task<'a>(
    scored: &'a Scored,
    session: &Session,
    task: usize,
) -> Result<&'a TaskScore, LabError> {
    scored
        .sessions
        .get(&session.index)
        .and_then(|t| t.get(task))
        .ok_or_else(|| msg(format!("task {} of {} is not scored", task + 1, session.id)))
}

/// One task's ledger as text: `actual`, `expected` (canonical Beancount with the
/// provenance header `wildtool env-export` writes) or `diff` (unified, expected → actual).
pub fn export(input: &str) -> Result<String, LabError> {
    let input: EnvTaskInput = read(input)?;
    let (session, scored) = task_scored(&input)?;
    let t = input.task;
    let score = the_task(&scored, &session, t)?;
    let id = session.id.clone();
    let header = |what: &str| {
        vec![
            format!(
                "{what} ledger of {id} (session {}), task {t}, model {}",
                session.index, scored.head.model_name
            ),
            format!(
                "dataset {}, {ENV_VERSION}, {} history",
                scored.head.dataset_fingerprint, scored.head.history_mode
            ),
            "generated by wildtool's ledger environment; not part of WildToolBench".to_owned(),
        ]
    };
    Ok(match input.which.as_str() {
        "actual" => write_ledger(&score.actual, &header("actual")),
        "expected" => write_ledger(&score.expected, &header("expected")),
        "diff" => unified_diff(
            &write_ledger(&score.expected, &[]),
            &write_ledger(&score.actual, &[]),
            &format!("expected/{id}/task-{t}.beancount"),
            &format!("actual/{id}/task-{t}.beancount"),
        ),
        other => return Err(LabError::Input(format!("no ledger \"{other}\""))),
    })
}

fn pretty(v: &Value) -> String {
    match v {
        Value::Str(s) => s.clone(),
        other => dumps(other, Escape::Utf8),
    }
}

/// The diff as lines, each marked by text (`added:`/`removed:`, visually hidden beside
/// the `+`/`-`) as well as by colour.
fn diff_view(expected: &str, actual: &str) -> Element {
    let diff = unified_diff(expected, actual, "expected", "actual");
    let mut pre = el("pre").id("env-diff").class("card ledger-diff");
    let mut changed = 0usize;
    for line in diff.lines() {
        let (class, label) = if line.starts_with("+++") || line.starts_with("---") {
            ("diff-file", "")
        } else if line.starts_with('+') {
            changed += 1;
            ("diff-add", "added: ")
        } else if line.starts_with('-') {
            changed += 1;
            ("diff-del", "removed: ")
        } else if line.starts_with("@@") {
            ("diff-hunk", "")
        } else {
            ("diff-same", "")
        };
        let mut span = el("span").class(class);
        if !label.is_empty() {
            span = span.child(el_text("span", label).class("visually-hidden"));
        }
        pre = pre.child(span.text(format!("{line}\n")));
    }
    let note = if changed == 0 {
        "The actual ledger equals the expected one (canonical text, ids included): no line differs."
            .to_owned()
    } else {
        format!("{changed} line(s) differ: lines marked + (added) are in the actual ledger only, lines marked − (removed) in the expected one only.")
    };
    el("div")
        .child(el_text("p", note).id("env-diff-note"))
        .child_opt((changed > 0 || !diff.is_empty()).then_some(pre))
}

/// One task of an env run: its verdict and components, every step with its calls, each
/// violation at the step that introduced it, the ledger diff and the downloads.
pub fn task_view(input: &str) -> Result<String, LabError> {
    let input: EnvTaskInput = read(input)?;
    let (session, scored) = task_scored(&input)?;
    let score = the_task(&scored, &session, input.task)?;
    let line: Value = input
        .result
        .lines()
        .nth(1)
        .and_then(|l| loads(l).ok())
        .unwrap_or(Value::Null);
    let tv = line
        .get("tasks")
        .and_then(Value::as_array)
        .and_then(|a| a.get(input.task))
        .cloned()
        .unwrap_or(Value::Null);
    let trace = TaskTrace::from_value(&tv, "task").map_err(|e| msg(e.to_string()))?;
    let verdict = if score.env_success {
        "env success"
    } else {
        "env failure"
    };
    let mut comps = el("ul").id("env-components").class("components");
    for (name, ok) in score.components.pairs() {
        comps = comps.child(
            el("li")
                .class(if ok { "ok" } else { "bad" })
                .text(format!("{name}: {}", if ok { "yes" } else { "no" })),
        );
    }
    let mut steps = el("ol").id("env-steps").class("env-steps");
    let mut k = 0usize;
    for (i, st) in trace.steps.iter().enumerate() {
        let mut li = el("li")
            .key(format!("step-{i}"))
            .child(el_text("h4", format!("Step {}", i + 1)));
        if let Some(text) = st.reply.content.as_str().filter(|s| !s.is_empty()) {
            li = li.child(
                el("p")
                    .child(el_text("strong", "Reply: "))
                    .text(text.to_owned()),
            );
        }
        for c in &st.calls {
            let cs = score.calls.get(k);
            k += 1;
            let status = match cs {
                Some(c) if c.write && c.accepted => " · write accepted",
                Some(c) if c.write => " · write rejected",
                _ => "",
            };
            let mut call = el("div")
                .class("env-call")
                .child(el_text("p", format!("{}({})", c.tool, pretty(&c.args))).class("msg-call"))
                .child(el_text("span", status).class("muted"))
                .child(el("pre").class("args env-result").text(pretty(&c.result)));
            for v in cs.map(|c| c.new_violations.as_slice()).unwrap_or(&[]) {
                call = call.child(
                    el("p")
                        .class("verdict error env-violation")
                        .attr("data-step", (i + 1).to_string())
                        .text(format!("Violation introduced at step {}: {v}", i + 1)),
                );
            }
            li = li.child(call);
        }
        if let Some(u) = &st.user_input {
            li = li.child(
                el("p")
                    .child(el_text("strong", "User's answer: "))
                    .text(u.clone()),
            );
        }
        steps = steps.child(li);
    }
    let which = |w: &str, label: &str| {
        el("button")
            .attr("type", "button")
            .id(format!("env-dl-{w}"))
            .action(
                Action::EnvExport.name(),
                format!("{w} {} {}", session.index, input.task),
            )
            .text(label)
    };
    let expected = write_ledger(&score.expected, &[]);
    let actual = write_ledger(&score.actual, &[]);
    let out = el("section")
        .id("env-task")
        .class("panel extension")
        .attr("aria-labelledby", "env-task-title")
        .child(
            el_text(
                "h3",
                format!(
                    "Extension: ledger environment — {} task {} ({})",
                    session.id,
                    input.task + 1,
                    score.challenge.as_str().replace('_', " ")
                ),
            )
            .id("env-task-title"),
        )
        .child(
            el("p")
                .id("env-task-verdict")
                .class(if score.env_success {
                    "verdict correct"
                } else {
                    "verdict error"
                })
                .text(format!(
                    "{verdict} · ended: {} · writes accepted {}, rejected {}, optimal {}",
                    score.end.as_str(),
                    score.accepted_writes,
                    score.rejected_writes,
                    score.optimal_writes
                )),
        )
        .child(comps)
        .child(el_text("h4", "Steps"))
        .child(steps)
        .child(el_text(
            "h4",
            "Ledger diff (expected → actual, canonical Beancount)",
        ))
        .child(diff_view(&expected, &actual))
        .child(
            el("div")
                .class("row")
                .attr("role", "group")
                .attr("aria-label", "Download ledger (.beancount)")
                .child(el_text("span", "Download ledger (.beancount):"))
                .child(which("actual", "Actual"))
                .child(which("expected", "Expected"))
                .child(which("diff", "Diff")),
        );
    Ok(out.to_json())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_damaged_link_is_refused_with_a_message() {
        for bad in ["", "e1.", "e1.!!!", "v1.abc", "e1.e30"] {
            let e = share_decode(bad).unwrap_err().to_string();
            assert!(e.contains("cannot be opened"), "{bad}: {e}");
        }
        let ok = format!(
            "{LINK_PREFIX}{}",
            URL_SAFE_NO_PAD.encode(format!("{{\"format\": \"{SUMMARY_FORMAT}\"}}"))
        );
        assert!(share_decode(&ok).is_ok());
    }

    #[test]
    fn info_names_the_environment() {
        assert!(info("").unwrap().contains(ENV_VERSION));
    }
}
