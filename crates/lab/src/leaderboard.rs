//! The ranked leaderboard: your runs among the published models, for the official
//! dataset only (the page decides with the core's overlay rule before asking), sortable
//! by any column, ranked by the core's [`ranked_table`].

use serde::{Deserialize, Serialize};
use wildtool_contract::Action;
use wildtool_core::chart::dashboard::{parse_leaderboard, LeaderboardModel};
use wildtool_core::chart::format_percent;
use wildtool_core::compare::leaderboard::{
    published_row, ranked_table, run_row, RowSource, SortKey, TableRow,
};
use wildtool_core::compare::{DatasetRef, RunInput};
use wildtool_core::share::TaskShape;
use wildtool_ui::{el, el_text, Element, Node};

use crate::{read, LabError};

/// What the page sends: the dataset, the published models and the runs to rank among
/// them, and the order.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LeaderboardInput {
    /// Fingerprint of the loaded (official) dataset.
    pub fingerprint: u64,
    /// Every task of the dataset, in dataset order.
    pub shapes: Vec<TaskShape>,
    /// The published models (or, when empty, those of `leaderboard`).
    #[serde(default)]
    pub models: Vec<LeaderboardModel>,
    /// The published leaderboard file's text (`paper-leaderboard.json`), as the page
    /// fetched it.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub leaderboard: String,
    /// Runs of this dataset.
    pub runs: Vec<RunInput>,
    /// The column the table is sorted by.
    pub sort: SortKey,
    /// Lowest first (else best first).
    #[serde(default)]
    pub ascending: bool,
}

/// The columns, in order: sort key, header, and the value of a row.
const COLUMNS: [(SortKey, &str); 6] = [
    (SortKey::Task, "Task accuracy"),
    (SortKey::Session, "Session accuracy"),
    (SortKey::Single, "Single-Tool"),
    (SortKey::Multi, "Multi-Tool"),
    (SortKey::Clarify, "Clarify"),
    (SortKey::Chat, "Chat"),
];

/// The name of a sort key in the page's actions.
pub fn key_name(k: SortKey) -> &'static str {
    match k {
        SortKey::Task => "task",
        SortKey::Session => "session",
        SortKey::Single => "single",
        SortKey::Multi => "multi",
        SortKey::Clarify => "clarify",
        SortKey::Chat => "chat",
        SortKey::Label => "label",
    }
}

fn value(r: &TableRow, k: SortKey) -> Option<f64> {
    match k {
        SortKey::Task => r.task,
        SortKey::Session => r.session,
        SortKey::Single => r.single,
        SortKey::Multi => r.multi,
        SortKey::Clarify => r.clarify,
        SortKey::Chat => r.chat,
        SortKey::Label => None,
    }
}

/// The rows of the table, ranked (runs that cannot be placed are left out with the
/// reason).
pub fn rows(input: &LeaderboardInput) -> (Vec<TableRow>, Vec<String>) {
    let dataset = DatasetRef {
        fingerprint: input.fingerprint,
        shapes: &input.shapes,
    };
    let mut rows: Vec<TableRow> = input.models.iter().map(published_row).collect();
    let mut left_out = Vec::new();
    let mut seen: Vec<String> = Vec::new();
    for r in &input.runs {
        // Runs with repeated trials say so, and runs of the same label are told apart
        // (the label is also the row's key).
        let mut label = if r.trials.len() > 1 {
            format!("{} × {} trials", r.label, r.trials.len())
        } else {
            r.label.clone()
        };
        let base = label.clone();
        let mut n = 1;
        while seen.contains(&label) {
            n += 1;
            label = format!("{base} ({n})");
        }
        seen.push(label.clone());
        let r = &RunInput {
            label,
            fingerprint: r.fingerprint,
            trials: r.trials.clone(),
        };
        match run_row(r, dataset) {
            Ok(row) if row.tasks_scored.unwrap_or(0) > 0 => rows.push(row),
            Ok(_) => left_out.push(format!("{}: no task scored", r.label)),
            Err(e) => left_out.push(e.to_string()),
        }
    }
    (ranked_table(rows, input.sort, input.ascending), left_out)
}

/// The ranked table (wire JSON of a `div`).
pub fn view(input: &str) -> Result<String, LabError> {
    let mut input: LeaderboardInput = read(input)?;
    if input.models.is_empty() && !input.leaderboard.is_empty() {
        input.models = parse_leaderboard(&input.leaderboard)
            .map_err(|e| LabError::Input(format!("the published leaderboard: {e}")))?;
    }
    Ok(render(&input).to_json())
}

fn sort_button(k: SortKey, label: &str, input: &LeaderboardInput) -> Element {
    let active = input.sort == k;
    let arrow = match (active, input.ascending) {
        (true, false) => " ▼",
        (true, true) => " ▲",
        _ => "",
    };
    el("th")
        .attr("scope", "col")
        .attr_opt(
            "aria-sort",
            active.then_some(if input.ascending {
                "ascending"
            } else {
                "descending"
            }),
        )
        .child(
            el("button")
                .attr("type", "button")
                .class("sort")
                .attr("data-action", Action::LeaderboardSort.name())
                .attr("data-arg", key_name(k))
                .text(format!("{label}{arrow}")),
        )
}

/// The view.
pub fn render(input: &LeaderboardInput) -> Node {
    let (rows, left_out) = rows(input);
    let head = el("tr")
        .child(el_text("th", "Rank").attr("scope", "col"))
        .child(sort_button(SortKey::Label, "Model or run", input))
        .children(COLUMNS.iter().map(|(k, h)| sort_button(*k, h, input)))
        .child(el_text("th", "Tasks scored").attr("scope", "col"));
    let body = rows.iter().map(|r| {
        let mine = r.source == RowSource::Run;
        let task = match (r.task, r.task_ci95) {
            (Some(v), Some(ci)) => format!(
                "{} ({}–{})",
                format_percent(v),
                format_percent(ci.lo),
                format_percent(ci.hi)
            ),
            (v, _) => v.map(format_percent).unwrap_or_else(|| "—".to_owned()),
        };
        let cell = |v: Option<f64>| {
            el_text(
                "td",
                v.map(format_percent).unwrap_or_else(|| "—".to_owned()),
            )
        };
        el("tr")
            .key(format!("{}:{}", if mine { "run" } else { "pub" }, r.label))
            .class(if mine { "mine" } else { "published" })
            .child(el_text(
                "td",
                r.rank
                    .map(|n| n.to_string())
                    .unwrap_or_else(|| "—".to_owned()),
            ))
            .child(
                el("th")
                    .attr("scope", "row")
                    .text(r.label.clone())
                    .child_opt(mine.then(|| el_text("span", " (your run)").class("tag"))),
            )
            .child(el_text("td", task))
            .children(COLUMNS.iter().skip(1).map(|(k, _)| cell(value(r, *k))))
            .child(el_text(
                "td",
                match (r.tasks_scored, r.tasks_total) {
                    (Some(n), Some(t)) => format!("{n} of {t}"),
                    _ => "published".to_owned(),
                },
            ))
    });
    let n_runs = rows.iter().filter(|r| r.source == RowSource::Run).count();
    el("div")
        .id("leaderboard")
        .attr("data-rows", rows.len().to_string())
        .attr("data-runs", n_runs.to_string())
        .child(
            wildtool_views::widgets::table_box().child(
                el("table")
                    .class("data-table leaderboard")
                    .id("leaderboard-table")
                    .child(el_text(
                        "caption",
                        format!(
                            "Your runs ({n_runs}) among the {} published models, ranked by {} (ties share a rank). Run rows are over their scored tasks; the interval is Wilson's 95% for single-trial runs.",
                            input.models.len(),
                            COLUMNS
                                .iter()
                                .find(|(k, _)| *k == input.sort)
                                .map(|(_, h)| h.to_lowercase())
                                .unwrap_or_else(|| "name".to_owned())
                        ),
                    ))
                    .child(el("thead").child(head))
                    .child(el("tbody").children(body)),
            ),
        )
        .children(
            left_out
                .iter()
                .map(|why| el_text("p", format!("Not ranked: {why}")).class("muted")),
        )
        .into()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compare::tests::suite_input;
    use wildtool_ui::wire;

    const LEADERBOARD: &str = include_str!("../../../data/paper-leaderboard.json");

    fn input(sort: SortKey, ascending: bool) -> LeaderboardInput {
        let c = suite_input();
        LeaderboardInput {
            fingerprint: c.fingerprint,
            shapes: c.shapes,
            models: parse_leaderboard(LEADERBOARD).unwrap(),
            leaderboard: String::new(),
            runs: c.runs,
            sort,
            ascending,
        }
    }

    fn labels(tree: &wire::Wire) -> Vec<String> {
        tree.by_id("leaderboard-table")
            .unwrap()
            .elements()
            .into_iter()
            .filter(|e| e.tag == "th" && e.get("scope") == Some("row"))
            .map(|e| e.text_content())
            .collect()
    }

    #[test]
    fn runs_are_ranked_among_the_published_models_and_any_column_sorts() {
        let i = input(SortKey::Task, false);
        let tree = wire::parse(&view(&serde_json::to_string(&i).unwrap()).unwrap()).unwrap();
        let t = tree.by_id("leaderboard").unwrap();
        assert_eq!(t.get("data-runs"), Some("2"));
        assert_eq!(
            t.get("data-rows"),
            Some((i.models.len() + 2).to_string().as_str())
        );
        // Best first, by the core's ranking.
        let (expected, _) = rows(&i);
        assert_eq!(
            labels(&tree),
            expected
                .iter()
                .map(|r| if r.source == RowSource::Run {
                    format!("{} (your run)", r.label)
                } else {
                    r.label.clone()
                })
                .collect::<Vec<_>>()
        );
        let tasks: Vec<f64> = expected.iter().filter_map(|r| r.task).collect();
        assert!(tasks.windows(2).all(|w| w[0] >= w[1]));
        let sorted = tree
            .elements()
            .into_iter()
            .find(|e| e.get("aria-sort").is_some())
            .unwrap();
        assert_eq!(sorted.get("aria-sort"), Some("descending"));
        assert!(sorted.text_content().starts_with("Task accuracy"));
        // By label, ascending: alphabetical.
        let i = input(SortKey::Label, true);
        let tree = wire::parse(&view(&serde_json::to_string(&i).unwrap()).unwrap()).unwrap();
        let l = labels(&tree);
        let mut s = l.clone();
        s.sort_by_key(|x| x.to_lowercase());
        assert_eq!(l, s);
        // A run of another dataset is not ranked, and says why.
        let mut i = input(SortKey::Chat, false);
        i.runs[1].fingerprint ^= 1;
        let tree = wire::parse(&view(&serde_json::to_string(&i).unwrap()).unwrap()).unwrap();
        assert_eq!(
            tree.by_id("leaderboard").unwrap().get("data-runs"),
            Some("1")
        );
        assert!(tree
            .text_content()
            .contains("Not ranked: run \"B\" was scored on a different dataset"));
    }

    #[test]
    fn the_page_sends_the_leaderboard_file_and_runs_of_one_label_are_told_apart() {
        // The page passes the published file's text; the table is the same.
        let i = input(SortKey::Task, false);
        let mut from_text = input(SortKey::Task, false);
        from_text.models.clear();
        from_text.leaderboard = LEADERBOARD.to_owned();
        assert_eq!(
            view(&serde_json::to_string(&from_text).unwrap()).unwrap(),
            view(&serde_json::to_string(&i).unwrap()).unwrap()
        );
        from_text.leaderboard = "not json".to_owned();
        assert!(view(&serde_json::to_string(&from_text).unwrap()).is_err());
        // Two runs labelled alike, one with three trials: distinct rows (and keys).
        let mut i = input(SortKey::Task, false);
        i.runs[1].label = i.runs[0].label.clone();
        let mut twice = i.runs[0].clone();
        twice.trials = vec![twice.trials[0].clone(); 3];
        i.runs.push(twice);
        let (rows, _) = rows(&i);
        let mut runs: Vec<&str> = rows
            .iter()
            .filter(|r| r.source == RowSource::Run)
            .map(|r| r.label.as_str())
            .collect();
        runs.sort_unstable();
        let a = &i.runs[0].label;
        assert_eq!(
            runs,
            [a.clone(), format!("{a} (2)"), format!("{a} × 3 trials")]
        );
    }
}
