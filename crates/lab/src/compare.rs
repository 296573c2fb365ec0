//! The comparison view: two or more runs of one dataset compared pair by pair with the
//! core's [`compare_runs`] — the numbers of `wildtool compare`'s `compare.json` — with
//! the per-category difference charts, the per-task diff table (each row opening both
//! runs' traces of that task) and, for single-trial pairs, the comparison link.

use std::cell::RefCell;
use std::rc::Rc;
use wildtool_contract::Action;

use serde::{Deserialize, Serialize};
use wildtool_core::chart::delta::format_pp;
use wildtool_core::chart::format_percent;
use wildtool_core::compare::html::{format_p, overview_chart, pair_charts};
use wildtool_core::compare::paired::{DiffClass, Estimate, PairResult, TaskDiff};
use wildtool_core::compare::{compare_runs, BootstrapOptions, CompareDoc, DatasetRef, RunInput};
use wildtool_core::outcome::TaskOutcome;
use wildtool_core::share::pair::{
    decode_pair, encode_pair, PairHeader, SharedPair, MAX_PAIR_LINK_CHARS,
};
use wildtool_core::share::TaskShape;
use wildtool_ui::{el, el_text, Element, Node};

use crate::widgets::{button, delta_figure, metric, PageContext};
use crate::{read, LabError};

/// Rows of the per-task table shown at first (more on request).
pub const DIFF_ROWS: usize = 50;

/// Which rows of a pair's per-task table are shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DiffFilter {
    /// The tasks where the runs differ (A only and B only).
    #[default]
    Discordant,
    /// A passed, B failed (with trials: higher pass rate in A).
    AOnly,
    /// A failed, B passed.
    BOnly,
    /// Both passed.
    Both,
    /// Neither passed.
    Neither,
    /// Equal pass rates strictly between 0 and 1 (trials only).
    Tie,
    /// Every compared task.
    All,
}

impl DiffFilter {
    const ALL: [DiffFilter; 7] = [
        DiffFilter::Discordant,
        DiffFilter::AOnly,
        DiffFilter::BOnly,
        DiffFilter::Both,
        DiffFilter::Neither,
        DiffFilter::Tie,
        DiffFilter::All,
    ];

    /// The name in the page's actions.
    pub fn name(self) -> &'static str {
        match self {
            DiffFilter::Discordant => "discordant",
            DiffFilter::AOnly => "a_only",
            DiffFilter::BOnly => "b_only",
            DiffFilter::Both => "both",
            DiffFilter::Neither => "neither",
            DiffFilter::Tie => "tie",
            DiffFilter::All => "all",
        }
    }

    fn label(self, pair: &PairResult) -> String {
        match self {
            DiffFilter::Discordant => format!("Where they differ ({})", pair.a_only + pair.b_only),
            DiffFilter::AOnly => format!("{} passed, {} failed ({})", pair.a, pair.b, pair.a_only),
            DiffFilter::BOnly => format!("{} failed, {} passed ({})", pair.a, pair.b, pair.b_only),
            DiffFilter::Both => format!("Both passed ({})", pair.both_correct),
            DiffFilter::Neither => format!("Neither passed ({})", pair.neither),
            DiffFilter::Tie => format!("Equal pass rates between 0 and 1 ({})", pair.ties),
            DiffFilter::All => format!("All compared tasks ({})", pair.tasks),
        }
    }

    fn admits(self, class: DiffClass) -> bool {
        match self {
            DiffFilter::Discordant => matches!(class, DiffClass::AOnly | DiffClass::BOnly),
            DiffFilter::AOnly => class == DiffClass::AOnly,
            DiffFilter::BOnly => class == DiffClass::BOnly,
            DiffFilter::Both => class == DiffClass::Both,
            DiffFilter::Neither => class == DiffClass::Neither,
            DiffFilter::Tie => class == DiffClass::Tie,
            DiffFilter::All => true,
        }
    }
}

/// How one pair's per-task table is shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct DiffView {
    /// Which rows.
    pub filter: DiffFilter,
    /// How many rows at most.
    pub limit: usize,
}

impl Default for DiffView {
    fn default() -> Self {
        DiffView {
            filter: DiffFilter::Discordant,
            limit: DIFF_ROWS,
        }
    }
}

/// What the page sends: the loaded dataset's fingerprint and task shapes, the runs, and
/// how to show them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CompareInput {
    /// Fingerprint of the loaded dataset.
    pub fingerprint: u64,
    /// Every task of the dataset, in dataset order.
    pub shapes: Vec<TaskShape>,
    /// The runs, in the order chosen (each carries its own dataset fingerprint).
    pub runs: Vec<RunInput>,
    /// History ids of the runs (for trace links; `None` for runs from a link).
    #[serde(default)]
    pub ids: Vec<Option<String>>,
    /// The page.
    #[serde(default)]
    pub page: PageContext,
    /// Per pair (in document order), how its per-task table is shown.
    #[serde(default)]
    pub diff: Vec<DiffView>,
    /// The comparison link these runs came from, when they did.
    #[serde(default)]
    pub link: Option<String>,
    /// The planner's fields (the planner is drawn below the comparison when given).
    #[serde(default)]
    pub plan: Option<wildtool_contract::inputs::PlanFields>,
}

thread_local! {
    /// The last comparison computed, by a hash of what it was computed from: changing how
    /// it is shown (table filters, more rows) does not run the bootstrap again.
    static LAST: RefCell<Option<(u64, Rc<CompareDoc>)>> = const { RefCell::new(None) };
}

fn fnv(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in bytes {
        h ^= u64::from(*b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

/// The comparison document for `input` (the same as `wildtool compare` writes).
pub fn document(input: &CompareInput) -> Result<Rc<CompareDoc>, LabError> {
    let key = fnv(
        &serde_json::to_vec(&(input.fingerprint, &input.shapes, &input.runs)).unwrap_or_default(),
    );
    if let Some(doc) = LAST.with(|l| {
        l.borrow()
            .as_ref()
            .filter(|(k, _)| *k == key)
            .map(|(_, d)| d.clone())
    }) {
        return Ok(doc);
    }
    let dataset = DatasetRef {
        fingerprint: input.fingerprint,
        shapes: &input.shapes,
    };
    let doc = Rc::new(compare_runs(
        &input.runs,
        dataset,
        &BootstrapOptions::default(),
    )?);
    LAST.with(|l| *l.borrow_mut() = Some((key, doc.clone())));
    Ok(doc)
}

/// The comparison view (wire JSON of an element); a refusal (other datasets, fewer than
/// two runs, a run with nothing scored) is an error carrying the core's reason.
pub fn view(input: &str) -> Result<String, LabError> {
    let input: CompareInput = read(input)?;
    let doc = document(&input)?;
    Ok(with_plan(render(&doc, &input), &input).to_json())
}

/// `+3.1 pp (95% CI -1.0 pp to +7.2 pp)`.
pub(crate) fn estimate_text(e: &Estimate) -> String {
    format!(
        "{} (95% CI {} to {})",
        format_pp(e.estimate),
        format_pp(e.ci95.lo),
        format_pp(e.ci95.hi)
    )
}

/// `p = 0.0414`, or `p < 0.0001`.
pub fn p_text(p: f64) -> String {
    let text = format_p(p);
    if text.starts_with('<') {
        format!("p {text}")
    } else {
        format!("p = {text}")
    }
}

fn row(name: &str, value: String) -> Element {
    el("tr")
        .child(el_text("th", name).attr("scope", "row"))
        .child(el_text("td", value))
}

/// The comparison link of runs `a` and `b` (single-trial runs only): the fragment
/// without `#`.
pub fn pair_link(input: &CompareInput, a: usize, b: usize) -> Option<String> {
    let (ra, rb) = (input.runs.get(a)?, input.runs.get(b)?);
    let (ta, tb) = match (ra.trials.as_slice(), rb.trials.as_slice()) {
        ([ta], [tb]) => (ta, tb),
        _ => return None,
    };
    let pair = SharedPair {
        header: PairHeader {
            scorer_version: wildtool_core::SCORER_VERSION.to_owned(),
            label_a: ra.label.clone(),
            label_b: rb.label.clone(),
            dataset_fingerprint: input.fingerprint,
            task_count: u32::try_from(input.shapes.len()).ok()?,
        },
        detail: wildtool_core::share::pair::Detail::Full,
        a: wildtool_core::report::fill_outcomes(&input.shapes, ta),
        b: wildtool_core::report::fill_outcomes(&input.shapes, tb),
    };
    encode_pair(&pair, &input.shapes).ok()
}

fn link_block(input: &CompareInput, doc: &CompareDoc, pair_index: usize, n: usize) -> Element {
    let (a, b) = pair_runs(doc.runs.len(), pair_index);
    let block = el("div").class("row share").id(format!("pair-{n}-share"));
    match pair_link(input, a, b) {
        Some(link) => {
            let url = format!(
                "{}{}#{link}",
                input.page.base,
                input.page.address(&[("view", "compare".to_owned())])
            );
            let len = link.len();
            block
                .child(
                    el("label")
                        .attr("for", format!("pair-{n}-link"))
                        .class("visually-hidden")
                        .text("Comparison link"),
                )
                .child(
                    el("input")
                        .id(format!("pair-{n}-link"))
                        .class("share-link")
                        .attr("type", "text")
                        .attr("readonly", "")
                        .attr("value", url.clone()),
                )
                .child(
                    button("Copy comparison link", Action::CopyCompareLink.name(), &url)
                        .id(format!("pair-{n}-copy")),
                )
                .child(el_text(
                    "span",
                    format!(
                        "{len} characters in the fragment (at most {MAX_PAIR_LINK_CHARS}): both runs' outcomes on every task, never a key, an endpoint or a trace."
                    ),
                )
                .class("muted"))
        }
        None => block.child(
            el_text(
                "p",
                "No comparison link: a link carries two single-trial runs (share runs with repeated trials one trial at a time).",
            )
            .class("muted"),
        ),
    }
}

/// The runs (indices into the document's runs) of pair `index` (pairs are (0,1), (0,2)
/// …, (1,2) …).
fn pair_runs(runs: usize, index: usize) -> (usize, usize) {
    let mut k = 0;
    for i in 0..runs {
        for j in i + 1..runs {
            if k == index {
                return (i, j);
            }
            k += 1;
        }
    }
    (0, 1)
}

fn rate_text(rate: f64, trials: u32) -> String {
    if trials <= 1 {
        if rate >= 1.0 {
            "passed".to_owned()
        } else {
            "failed".to_owned()
        }
    } else {
        let passed = (rate * f64::from(trials)).round() as u32;
        format!("{passed} of {trials}")
    }
}

fn class_text(class: DiffClass, pair: &PairResult) -> String {
    match class {
        DiffClass::Both => "both passed".to_owned(),
        DiffClass::AOnly => format!("only {} passed", pair.a),
        DiffClass::BOnly => format!("only {} passed", pair.b),
        DiffClass::Neither => "neither passed".to_owned(),
        DiffClass::Tie => "equal pass rates".to_owned(),
    }
}

fn diff_table(input: &CompareInput, doc: &CompareDoc, pair: &PairResult, index: usize) -> Element {
    let n = index + 1;
    let view = input.diff.get(index).copied().unwrap_or_default();
    let (a, b) = pair_runs(doc.runs.len(), index);
    let ids = (
        input.ids.get(a).cloned().flatten(),
        input.ids.get(b).cloned().flatten(),
    );
    let rows: Vec<&TaskDiff> = pair
        .diff
        .iter()
        .filter(|d| view.filter.admits(d.class))
        .collect();
    let shown = rows.len().min(view.limit.max(1));
    let select = el("select")
        .id(format!("pair-{n}-filter"))
        .attr("data-action", Action::CompareDiff.name())
        .attr("data-arg", index.to_string())
        .attr("value", view.filter.name())
        .children(
            DiffFilter::ALL
                .iter()
                .filter(|f| **f != DiffFilter::Tie || pair.ties > 0)
                .map(|f| {
                    el("option")
                        .attr("value", f.name())
                        .flag("selected", *f == view.filter)
                        .text(f.label(pair))
                }),
        );
    let head = el("tr").children(
        [
            "Session",
            "Task",
            "Type",
            pair.a.as_str(),
            pair.b.as_str(),
            "Difference",
            "Traces",
        ]
        .iter()
        .map(|h| el_text("th", *h).attr("scope", "col")),
    );
    let body = rows.iter().take(shown).map(|d| {
        let (s, t) = (d.session + 1, u32::from(d.position) + 1);
        let traces = match &ids {
            (Some(ia), Some(ib)) => {
                // Both runs' traces of this task side by side (run A with vs= run B),
                // then one link per run to its own trace of the task.
                let link = |run: &str, other: Option<&str>, text: &str, label: String| {
                    let mut query = vec![("view", "traces".to_owned()), ("run", run.to_owned())];
                    if let Some(other) = other {
                        query.push(("vs", other.to_owned()));
                    }
                    query.push(("session", s.to_string()));
                    query.push(("task", t.to_string()));
                    let href = input.page.address(&query);
                    el("a")
                        .attr("href", href.clone())
                        .attr("data-action", Action::Go.name())
                        .attr("data-arg", href)
                        .attr("aria-label", label)
                        .text(text)
                };
                el("td")
                    .child(
                        link(
                            ia,
                            Some(ib),
                            "side by side",
                            format!("Both traces of session {s}, task {t} side by side"),
                        )
                        .class("pair-link"),
                    )
                    .text(" · ")
                    .child(link(
                        ia,
                        None,
                        "A",
                        format!("Run A's trace of session {s}, task {t}"),
                    ))
                    .text(" · ")
                    .child(link(
                        ib,
                        None,
                        "B",
                        format!("Run B's trace of session {s}, task {t}"),
                    ))
            }
            _ => el_text("td", "—"),
        };
        el("tr")
            .key(format!("{}:{}", d.session, d.position))
            .attr("data-class", format!("{:?}", d.class).to_lowercase())
            .child(el_text("td", s.to_string()))
            .child(el_text("td", t.to_string()))
            .child(el_text("td", d.task_type.as_str()))
            .child(el_text("td", rate_text(d.a, d.a_trials)))
            .child(el_text("td", rate_text(d.b, d.b_trials)))
            .child(el_text("td", class_text(d.class, pair)))
            .child(traces)
    });
    let more = (rows.len() > shown).then(|| {
        button(
            &format!("Show more ({} of {} shown)", shown, rows.len()),
            Action::CompareMore.name(),
            &index.to_string(),
        )
        .id(format!("pair-{n}-more"))
    });
    el("div")
        .class("diff")
        .id(format!("pair-{n}-diff"))
        .child(el_text("h3", "Tasks"))
        .child(
            el("div")
                .class("row")
                .child(
                    el("label")
                        .attr("for", format!("pair-{n}-filter"))
                        .text("Show"),
                )
                .child(select),
        )
        .child(
            wildtool_views::widgets::table_box().child(
                el("table")
                    .class("data-table diff-table")
                    .id(format!("pair-{n}-tasks"))
                    .attr("data-rows", rows.len().to_string())
                    .child(el_text(
                        "caption",
                        format!(
                            "{} − {}: {} task(s), {} shown (session and task numbers from 1)",
                            pair.a,
                            pair.b,
                            rows.len(),
                            shown
                        ),
                    ))
                    .child(el("thead").child(head))
                    .child(el("tbody").children(body)),
            ),
        )
        .child_opt(more)
        .child_opt((ids.0.is_none() || ids.1.is_none()).then(|| {
            el_text(
                "p",
                "Traces are not available here: runs opened from a link carry outcomes only.",
            )
            .class("muted")
        }))
}

fn pair_section(
    input: &CompareInput,
    doc: &CompareDoc,
    pair: &PairResult,
    index: usize,
) -> Element {
    let n = index + 1;
    let session = match (&pair.session_accuracy, &pair.session_accuracy_delta) {
        (Some(r), Some(d)) => format!(
            "{} vs {}: {}",
            format_percent(r.a),
            format_percent(r.b),
            estimate_text(d)
        ),
        _ => "no session scored in both runs".to_owned(),
    };
    let mut counts = vec![
        row(
            "Tasks compared",
            format!(
                "{} of {} ({} left out: unscored in one run or both)",
                pair.tasks, pair.tasks_total, pair.dropped
            ),
        ),
        row("Both correct", pair.both_correct.to_string()),
        row(&format!("Only {} correct", pair.a), pair.a_only.to_string())
            .id(format!("pair-{n}-a-only")),
        row(&format!("Only {} correct", pair.b), pair.b_only.to_string())
            .id(format!("pair-{n}-b-only")),
        row("Neither correct", pair.neither.to_string()),
    ];
    if pair.ties > 0 {
        counts.push(row(
            "Equal pass rates between 0 and 1",
            pair.ties.to_string(),
        ));
    }
    counts.push(row("Exact McNemar test", p_text(pair.mcnemar_p)).id(format!("pair-{n}-p")));
    counts.push(
        row(
            "Task accuracy",
            format!(
                "{} vs {}: {}",
                format_percent(pair.task_accuracy.a),
                format_percent(pair.task_accuracy.b),
                estimate_text(&pair.task_accuracy_delta)
            ),
        )
        .id(format!("pair-{n}-task-delta")),
    );
    counts.push(row("Session accuracy", session).id(format!("pair-{n}-session-delta")));
    let ci = |e: &Estimate| {
        format!(
            "95% CI {} to {}",
            format_pp(e.ci95.lo),
            format_pp(e.ci95.hi)
        )
    };
    let cards = el("div")
        .class("headline")
        .child(metric(
            &format!("pair-{n}-card-task"),
            &format!("Task accuracy, {} − {}", pair.a, pair.b),
            format_pp(pair.task_accuracy_delta.estimate),
            ci(&pair.task_accuracy_delta),
            format!("on the {} tasks both runs scored", pair.tasks),
        ))
        .child(metric(
            &format!("pair-{n}-card-session"),
            &format!("Session accuracy, {} − {}", pair.a, pair.b),
            pair.session_accuracy_delta
                .as_ref()
                .map(|e| format_pp(e.estimate))
                .unwrap_or_else(|| "—".to_owned()),
            pair.session_accuracy_delta
                .as_ref()
                .map(ci)
                .unwrap_or_default(),
            format!("on the {} sessions both runs scored", pair.sessions),
        ))
        .child(metric(
            &format!("pair-{n}-card-p"),
            "Exact McNemar test (two-sided)",
            p_text(pair.mcnemar_p),
            format!("{} vs {} tasks where they differ", pair.a_only, pair.b_only),
            "not corrected for several pairs".to_owned(),
        ));
    let layout = input.page.layout();
    let charts = pair_charts(pair, index);
    el("section")
        .id(format!("pair-{n}"))
        .class("panel pair")
        .attr("aria-labelledby", format!("pair-{n}-title"))
        .key(format!("pair-{n}"))
        .child(el_text("h2", format!("{} vs {}", pair.a, pair.b)).id(format!("pair-{n}-title")))
        .child(cards)
        .child(link_block(input, doc, index, n))
        .child(
            wildtool_views::widgets::table_box().child(
                el("table")
                    .class("data-table counts")
                    .child(el_text(
                        "caption",
                        format!("{} − {} on the tasks both scored", pair.a, pair.b),
                    ))
                    .child(el("tbody").children(counts)),
            ),
        )
        .child(el_text("h3", "Differences by category"))
        .child(
            el("div")
                .class("charts")
                .children(charts.iter().map(|c| delta_figure(c, layout))),
        )
        .child(diff_table(input, doc, pair, index))
}

/// What the page sends to open a comparison link.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LinkInput {
    /// The link text (the fragment without `#`).
    pub link: String,
    /// Fingerprint of the loaded dataset (the link's must be the same).
    pub fingerprint: u64,
    /// Every task of the dataset, in dataset order.
    pub shapes: Vec<TaskShape>,
    /// The page.
    #[serde(default)]
    pub page: PageContext,
    /// How the per-task table is shown.
    #[serde(default)]
    pub diff: Vec<DiffView>,
    /// The planner's fields.
    #[serde(default)]
    pub plan: Option<wildtool_contract::inputs::PlanFields>,
}

/// The comparison a link carries, as the runs [`view`] compares.
pub fn link_input(li: LinkInput) -> Result<CompareInput, LabError> {
    let pair = decode_pair(&li.link, li.fingerprint, &li.shapes)?;
    let run = |label: String, outcomes: Vec<TaskOutcome>| RunInput {
        label,
        fingerprint: li.fingerprint,
        trials: vec![outcomes],
    };
    Ok(CompareInput {
        fingerprint: li.fingerprint,
        runs: vec![
            run(pair.header.label_a, pair.a),
            run(pair.header.label_b, pair.b),
        ],
        shapes: li.shapes,
        ids: vec![None, None],
        page: li.page,
        diff: li.diff,
        link: Some(li.link),
        plan: li.plan,
    })
}

/// The comparison view of a comparison link (`#v2.…`), decoded against the loaded
/// dataset (a link made on another dataset, or damaged, is refused with the reason).
pub fn link_view(input: &str) -> Result<String, LabError> {
    let input = link_input(read(input)?)?;
    let doc = document(&input)?;
    Ok(with_plan(render(&doc, &input), &input).to_json())
}

/// The comparison view with the planner below it, when its fields are given.
fn with_plan(view: Node, input: &CompareInput) -> Node {
    let Some(fields) = &input.plan else {
        return view;
    };
    el("div")
        .child(view)
        .child(crate::plan::panel(&crate::plan::PlanInput {
            fingerprint: input.fingerprint,
            shapes: &input.shapes,
            runs: &input.runs,
            fields,
        }))
        .into()
}

/// The view of a comparison document.
pub fn render(doc: &CompareDoc, input: &CompareInput) -> Node {
    let runs = el("table")
        .class("data-table")
        .id("compared-runs")
        .child(el_text("caption", "Runs"))
        .child(
            el("thead").child(
                el("tr").children(
                    ["Run", "Trials", "Tasks scored", "Status"]
                        .iter()
                        .map(|h| el_text("th", *h).attr("scope", "col")),
                ),
            ),
        )
        .child(el("tbody").children(doc.runs.iter().map(|r| {
            el("tr")
                .child(el_text("th", r.label.clone()).attr("scope", "row"))
                .child(el_text("td", r.trials.to_string()))
                .child(el_text(
                    "td",
                    format!("{} of {}", r.tasks_scored, doc.dataset.tasks),
                ))
                .child(el_text("td", r.status.as_str()))
        })));
    let layout = input.page.layout();
    el("div")
        .id("compare-result")
        .class("compare-result")
        .attr("data-pairs", doc.pairs.len().to_string())
        .child(
            el_text(
                "p",
                format!(
                    "{} runs on dataset {} ({} tasks, {} sessions). Differences are A − B, over the tasks both runs scored; with repeated trials a task's value is its pass rate.",
                    doc.runs.len(),
                    doc.dataset.fingerprint,
                    doc.dataset.tasks,
                    doc.dataset.sessions
                ),
            )
            .class("note"),
        )
        .child(wildtool_views::widgets::table_box().child(runs))
        .child_opt((doc.pairs.len() > 1).then(|| {
            el("div")
                .class("charts")
                .child(delta_figure(&overview_chart(doc), layout))
        }))
        .children(
            doc.pairs
                .iter()
                .enumerate()
                .map(|(i, p)| pair_section(input, doc, p, i)),
        )
        .child(
            el_text(
                "p",
                format!(
                    "Test: {}. Intervals: paired {} bootstrap, {} resamples, seed {}, {} interval. {}",
                    doc.method.test,
                    doc.method.bootstrap.unit,
                    doc.method.bootstrap.resamples,
                    doc.method.bootstrap.seed,
                    doc.method.bootstrap.interval,
                    doc.method.trials
                ),
            )
            .class("note")
            .id("compare-method"),
        )
        .into()
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use wildtool_core::dataset::{fingerprint_hex, load_dataset, Lang};
    use wildtool_core::outcome::TaskOutcome;
    use wildtool_core::share::task_shapes;
    use wildtool_ui::wire;

    const SUITE: &str = include_str!("../../../data/suite.jsonl");

    fn outcomes(shapes: &[TaskShape], correct: impl Fn(usize) -> bool) -> Vec<TaskOutcome> {
        shapes
            .iter()
            .enumerate()
            .map(|(i, s)| TaskOutcome {
                session: s.session,
                position: s.position,
                task_type: s.task_type,
                subtype: s.subtype,
                transitions: s.transitions,
                correct: correct(i),
                name_correct: correct(i),
                optimal: correct(i),
                steps_logged: 1,
                nodes_total: s.nodes_total,
                nodes_done: if correct(i) { s.nodes_total } else { 0 },
                error: None,
                incomplete: false,
            })
            .collect()
    }

    pub(crate) fn suite_input() -> CompareInput {
        let d = load_dataset(SUITE, Lang::En);
        let shapes = task_shapes(&d);
        let fingerprint = u64::from_str_radix(&fingerprint_hex(SUITE), 16).unwrap();
        let run = |label: &str, c: &dyn Fn(usize) -> bool| RunInput {
            label: label.to_owned(),
            fingerprint,
            trials: vec![outcomes(&shapes, c)],
        };
        CompareInput {
            fingerprint,
            runs: vec![run("A", &|i| i % 3 != 0), run("B", &|i| i % 2 == 0)],
            shapes,
            ids: vec![Some("run-a".into()), Some("run-b".into())],
            page: PageContext::default(),
            diff: Vec::new(),
            link: None,
            plan: None,
        }
    }

    #[test]
    fn the_view_shows_the_cores_counts_and_test() {
        let input = suite_input();
        let n = input.shapes.len();
        let (mut a_only, mut b_only) = (0u64, 0u64);
        for i in 0..n {
            match (i % 3 != 0, i % 2 == 0) {
                (true, false) => a_only += 1,
                (false, true) => b_only += 1,
                _ => {}
            }
        }
        let json = view(&serde_json::to_string(&input).unwrap()).unwrap();
        let tree = wire::parse(&json).unwrap();
        let cell = |id: &str| tree.by_id(id).unwrap().text_content();
        assert_eq!(cell("pair-1-a-only"), format!("Only A correct{a_only}"));
        assert_eq!(cell("pair-1-b-only"), format!("Only B correct{b_only}"));
        let p = wildtool_core::compare::exact::mcnemar_exact(a_only, b_only);
        assert_eq!(cell("pair-1-p"), format!("Exact McNemar test{}", p_text(p)));
        let doc = document(&input).unwrap();
        assert_eq!(doc.pairs[0].a_only, a_only);
        assert!(
            cell("pair-1-task-delta").contains(&estimate_text(&doc.pairs[0].task_accuracy_delta))
        );
        assert_eq!(
            tree.by_id("compare-result").unwrap().get("data-pairs"),
            Some("1")
        );
    }

    #[test]
    fn runs_of_another_dataset_are_refused_with_the_cores_reason() {
        let mut input = suite_input();
        input.runs[1].fingerprint ^= 1;
        let e = view(&serde_json::to_string(&input).unwrap()).unwrap_err();
        assert!(matches!(e, LabError::Compare(_)));
        assert!(e.to_string().contains("different dataset"), "{e}");
        input.runs.truncate(1);
        let e = view(&serde_json::to_string(&input).unwrap()).unwrap_err();
        assert!(e.to_string().contains("at least two runs"), "{e}");
    }

    fn parse_view(input: &CompareInput) -> wire::Wire {
        wire::parse(&view(&serde_json::to_string(input).unwrap()).unwrap()).unwrap()
    }

    #[test]
    fn the_task_table_lists_the_chosen_class_and_links_both_traces() {
        let mut input = suite_input();
        let tree = parse_view(&input);
        let doc = document(&input).unwrap();
        let pair = &doc.pairs[0];
        let table = tree.by_id("pair-1-tasks").unwrap();
        let discordant = pair.a_only + pair.b_only;
        assert_eq!(
            table.get("data-rows"),
            Some(discordant.to_string().as_str())
        );
        let rows: Vec<_> = table
            .elements()
            .into_iter()
            .filter(|e| e.tag == "tr" && e.key.is_some())
            .collect();
        assert_eq!(rows.len() as u64, discordant.min(DIFF_ROWS as u64));
        assert!(rows
            .iter()
            .all(|r| matches!(r.get("data-class"), Some("aonly") | Some("bonly"))));
        // Numbering from 1; the first link opens both runs' traces of that task side by
        // side, the next ones each run's own.
        let first = rows[0];
        let d = pair
            .diff
            .iter()
            .find(|d| matches!(d.class, DiffClass::AOnly | DiffClass::BOnly))
            .unwrap();
        let link = first.elements().into_iter().find(|e| e.tag == "a").unwrap();
        assert_eq!(
            link.get("href"),
            Some(
                format!(
                    "?view=traces&run=run-a&vs=run-b&session={}&task={}",
                    d.session + 1,
                    d.position + 1
                )
                .as_str()
            )
        );
        assert_eq!(link.get("data-action"), Some("go"));
        let b_link = first
            .elements()
            .into_iter()
            .filter(|e| e.tag == "a")
            .nth(2)
            .unwrap();
        assert_eq!(
            b_link.get("href"),
            Some(
                format!(
                    "?view=traces&run=run-b&session={}&task={}",
                    d.session + 1,
                    d.position + 1
                )
                .as_str()
            )
        );
        let a_link = first
            .elements()
            .into_iter()
            .filter(|e| e.tag == "a")
            .nth(1)
            .unwrap();
        assert_eq!(
            a_link.get("href"),
            Some(
                format!(
                    "?view=traces&run=run-a&session={}&task={}",
                    d.session + 1,
                    d.position + 1
                )
                .as_str()
            )
        );
        assert!(tree.by_id("pair-1-more").is_some());
        // Every task, at most 300 rows.
        input.diff = vec![DiffView {
            filter: DiffFilter::All,
            limit: 300,
        }];
        let tree = parse_view(&input);
        let table = tree.by_id("pair-1-tasks").unwrap();
        assert_eq!(table.get("data-rows"), Some("256"));
        assert!(tree.by_id("pair-1-more").is_none());
        assert_eq!(
            tree.by_id("pair-1-filter").unwrap().get("value"),
            Some("all")
        );
        // One difference chart per category group plus the headline one, each with a table.
        assert_eq!(tree.svgs().len(), 6);
    }

    /// The suite's shapes four times over (sessions renumbered): 1,024 tasks.
    fn shapes_1024() -> Vec<TaskShape> {
        let one = suite_input().shapes;
        (0..4u32)
            .flat_map(|c| {
                one.iter().map(move |s| TaskShape {
                    session: s.session + 64 * c,
                    ..*s
                })
            })
            .collect()
    }

    #[test]
    fn a_comparison_link_rebuilds_the_same_view() {
        let input = suite_input();
        let tree = parse_view(&input);
        let url = tree
            .by_id("pair-1-link")
            .unwrap()
            .get("value")
            .unwrap()
            .to_owned();
        let (_, link) = url.split_once('#').unwrap();
        assert!(link.starts_with("v2."));
        let li = LinkInput {
            link: link.to_owned(),
            fingerprint: input.fingerprint,
            shapes: input.shapes.clone(),
            page: PageContext::default(),
            diff: Vec::new(),
            plan: None,
        };
        let json = link_view(&serde_json::to_string(&li).unwrap()).unwrap();
        let from_link = wire::parse(&json).unwrap();
        for id in [
            "pair-1-a-only",
            "pair-1-b-only",
            "pair-1-p",
            "pair-1-task-delta",
            "pair-1-session-delta",
            "pair-1-title",
        ] {
            assert_eq!(
                from_link.by_id(id).unwrap().text_content(),
                tree.by_id(id).unwrap().text_content(),
                "{id}"
            );
        }
        // The same link again; no trace links (a link carries no traces).
        assert_eq!(
            from_link.by_id("pair-1-link").unwrap().get("value"),
            Some(url.as_str())
        );
        assert!(from_link
            .elements()
            .iter()
            .all(|e| e.get("data-action") != Some("go")));
        // Another dataset's link is refused with the core's reason.
        let mut other = li.clone();
        other.fingerprint ^= 1;
        let e = link_view(&serde_json::to_string(&other).unwrap()).unwrap_err();
        assert!(matches!(e, LabError::Share(_)), "{e}");
        let mut damaged = li;
        damaged.link.replace_range(10..12, "zz");
        assert!(link_view(&serde_json::to_string(&damaged).unwrap()).is_err());
    }

    #[test]
    fn a_link_of_two_1024_task_runs_fits_in_3500_characters() {
        let shapes = shapes_1024();
        let run = |label: &str, k: usize| RunInput {
            label: label.to_owned(),
            fingerprint: 7,
            trials: vec![outcomes(&shapes, |i| (i * 7 + k) % 5 < 3)],
        };
        let input = CompareInput {
            fingerprint: 7,
            runs: vec![run("model A", 0), run("model B", 2)],
            shapes: shapes.clone(),
            ids: Vec::new(),
            page: PageContext::default(),
            diff: Vec::new(),
            link: None,
            plan: None,
        };
        let link = pair_link(&input, 0, 1).unwrap();
        assert!(link.len() <= MAX_PAIR_LINK_CHARS, "{}", link.len());
        // Runs with repeated trials have no link.
        let mut trials = input.clone();
        let again = trials.runs[0].trials[0].clone();
        trials.runs[0].trials.push(again);
        assert!(pair_link(&trials, 0, 1).is_none());
    }
}
