//! Dashboard: the headline and the charts first; below them the comparison choices,
//! exports and the share link. A partial run says so in a banner and in every count; a
//! failed run shows its reason and no rate.

use crate::state::AppState;
use crate::ui::{el, el_text, Element};
use wildtool_contract::Action;
use wildtool_core::report::RunStatus;

use super::headline::headline;
use crate::msg::LabPurpose;
use crate::placement::DASHBOARD_CHARTS;
use crate::widgets::{button, heading};

fn banner(state: &AppState) -> Option<Element> {
    let s = state.shown.as_ref()?;
    let damage = s.damage.clone().map(|d| el_text("p", d).id("dash-damage"));
    if s.headline.note.is_none() {
        return damage.map(|d| {
            el("div")
                .id("dash-banner")
                .class("banner banner-warn")
                .attr("role", "note")
                .child(d)
        });
    }
    let cancelled = s.end.as_ref().is_some_and(|e| e.outcome == "cancelled");
    // The banner's word ("Partial", "Failed") is not said twice.
    let note = s.headline.note.as_deref()?;
    let mut text = note
        .strip_prefix("Partial run: ")
        .or_else(|| note.strip_prefix("Failed run: "))
        .unwrap_or(note)
        .to_owned();
    if cancelled {
        text = format!("Cancelled. {text}");
    }
    let tone = if s.headline.status == RunStatus::Failed {
        "error"
    } else {
        "warn"
    };
    Some(
        el("div")
            .id("dash-banner")
            .class(format!("banner banner-{tone}"))
            .attr("role", "note")
            .child(el_text(
                "strong",
                if s.headline.status == RunStatus::Failed {
                    "Failed"
                } else {
                    "Partial"
                },
            ))
            .text(format!(" — {text}"))
            .child_opt(
                s.end
                    .as_ref()
                    .and_then(|e| e.reason.clone())
                    .map(|r| el_text("p", format!("Reason: {r}"))),
            )
            .child_opt(damage),
    )
}

fn compare_box(state: &AppState) -> Element {
    let mut models: Vec<String> = state
        .leaderboard
        .as_ref()
        .map(|m| m.iter().map(|x| x.model.clone()).collect())
        .unwrap_or_default();
    wildtool_core::order::sort_by_key(&mut models, |m| m.to_ascii_lowercase());
    let compared: Vec<Element> = state
        .history
        .compare
        .iter()
        .filter_map(|id| state.history.get(id))
        .map(|e| {
            el("li")
                .key(e.id.clone())
                .text(format!(
                    "{} ({}) ",
                    e.label,
                    e.task_accuracy.as_deref().unwrap_or("—")
                ))
                .child(button("Remove", Action::CompareRemove.name(), &e.id).attr(
                    "aria-label",
                    format!("Remove {} from the comparison", e.label),
                ))
        })
        .collect();
    el("div")
        .class("panel")
        .id("compare")
        .child(el_text("h2", "Compare"))
        .child(el_text(
            "p",
            "Runs from the History view (\"Add to comparison\") and published models are drawn in the comparison chart after this run.",
        ).class("muted"))
        .child(if compared.is_empty() {
            el_text("p", "No other run in the comparison.").class("muted")
        } else {
            el("ul").id("compare-runs").children(compared)
        })
        .child(match state.overlay() {
            Some(o) if o.shown => el("details")
                .id("compare-box")
                .action(Action::Toggle.name(), "compare-box")
                .flag("open", state.is_open("compare-box"))
                .child(el_text("summary", "Published leaderboard models"))
                .child(el_text("p", o.reason).class("muted"))
                .child(super::panels::model_search(state, &models))
                .child(el("div").class("compare-models").id("compare-models").children(models.iter().filter(|m| super::panels::model_matches(state, m)).map(|m| {
                    el("label")
                        .class("check")
                        .child(
                            el("input")
                                .attr("type", "checkbox")
                                .attr("value", m.clone())
                                .flag("checked", state.compare_models.contains(m))
                                .action(Action::CompareModel.name(), m.clone()),
                        )
                        .text(format!(" {m}"))
                }))),
            Some(o) => el_text("p", o.reason).id("leaderboard-hidden").class("muted"),
            None => el("p"),
        })
        .child_opt(super::panels::leaderboard_panel(state))
}

/// What every number means (the core's glossary, rendered by the lab module when it is
/// unfolded), folded under the headline.
fn glossary(state: &AppState) -> Element {
    use crate::traces::GLOSSARY_ID;
    let open = state.is_open(GLOSSARY_ID);
    let d = el("details")
        .id(GLOSSARY_ID)
        .class("glossary")
        .action(Action::Toggle.name(), GLOSSARY_ID)
        .flag("open", open)
        .child(el_text("summary", "What the numbers mean"));
    if !open {
        return d;
    }
    d.child(match state.lab.answer(LabPurpose::Glossary) {
        Some(Ok(json)) => el("div").child(crate::ui::Node::Raw(json.clone())),
        Some(Err(e)) => el_text("p", e.clone()).class("verdict error"),
        None => el_text("p", "Reading the glossary…").class("muted"),
    })
}

/// The dashboard view, with the run's cost in money (`cost`, the budget's section).
pub fn view(state: &AppState, cost: Element) -> Element {
    let mut section = el("section")
        .id("view-dashboard")
        .class("view")
        .attr("aria-labelledby", "dashboard-title");
    let head = el("div")
        .class("section-head")
        .child(heading("h1", "dashboard-title", "Dashboard"));
    let Some(s) = &state.shown else {
        return section.child(head).child(
            el("p")
                .id("dash-empty")
                .class("muted")
                .text("No run yet: start one in Setup, score a file in Offline scoring, open a share link or a run from the History."),
        );
    };
    let dataset = state
        .history
        .get(&s.id)
        .map(|e| e.dataset_name.clone())
        .or_else(|| state.dataset.map(|d| d.source.display()))
        .unwrap_or_default();
    section = section
        .child(
            head.child(el("p").id("dash-label").class("muted").text(format!(
                "{} · {} · {} · {} sessions",
                s.label, dataset, s.headline.scored, s.report.sessions
            ))),
        )
        .child_opt(banner(state))
        .child(headline("headline", s))
        .child(glossary(state));
    let failed = s.headline.status == RunStatus::Failed;
    if !failed {
        section = section.child(state.movable(
            DASHBOARD_CHARTS,
            LabPurpose::DashboardCharts,
            || s.charts_input(),
            wildtool_views::dashboard::view,
            "charts",
            "Drawing the charts…",
        ));
        section = section.child_opt(super::panels::trials_panel(state));
        section = section.child(cost);
    }
    let scored = s.scored.as_ref();
    let has = |b: bool| !b;
    let exports = el("div")
        .id("exports")
        .class("panel")
        .child(el_text("h2", "Export"))
        .child(
            el("div")
                .class("row")
                .child(button("Run file (JSON)", Action::Export.name(), "run").id("exp-run"))
                .child(
                    button("result.jsonl", Action::Export.name(), "result")
                        .id("exp-result")
                        .flag(
                            "disabled",
                            has(scored.and_then(|x| x.result_text.as_ref()).is_some()),
                        ),
                )
                .child(
                    button("score.jsonl", Action::Export.name(), "score")
                        .id("exp-score")
                        .flag("disabled", scored.is_none()),
                )
                .child(
                    button("metric.json", Action::Export.name(), "metric")
                        .id("exp-metric")
                        .flag("disabled", scored.is_none()),
                )
                .child(button("Per-task CSV", Action::Export.name(), "csv").id("exp-csv"))
                .child_opt(scored.and_then(|x| x.records.as_ref()).map(|_| {
                    button("checkpoint.jsonl", Action::Export.name(), "checkpoint")
                        .id("exp-checkpoint")
                }))
                .child_opt(state.cassette.recorded.as_ref().map(|_| {
                    button("cassette.jsonl", Action::CassetteDownload.name(), "").id("exp-cassette")
                }))
                .child({
                    let compared = state.history.compare.iter().any(|c| c == &s.id);
                    button(
                        if compared {
                            "In the comparison"
                        } else {
                            "Add to comparison"
                        },
                        Action::CompareAdd.name(),
                        &s.id,
                    )
                    .id("add-compare")
                    .flag("disabled", compared)
                }),
        );
    let share = match &s.share {
        None => el("div")
            .id("share")
            .class("panel")
            .child(el_text("h2", "Share"))
            .child(
                el("p")
                    .id("share-info")
                    .class("muted")
                    .attr("aria-busy", "true")
                    .attr("data-loading", "lab")
                    .text("Making the share link…"),
            ),
        Some(Ok(link)) => {
            let url = state.share_url(link);
            el("div")
                .id("share")
                .class("panel")
                .child(el_text("h2", "Share"))
                .child(el_text(
                    "p",
                    format!(
                        "The link rebuilds this dashboard ({}): model label, dataset fingerprint, scorer version and every task's outcome. Never a key, an endpoint or a trace.",
                        s.headline.scored
                    ),
                ).class("muted"))
                .child(
                    el("div")
                        .class("row")
                        .child(el("label").attr("for", "share-link").class("visually-hidden").text("Share link"))
                        .child(
                            el("input")
                                .id("share-link")
                                .attr("type", "text")
                                .attr("readonly", "")
                                .attr("spellcheck", "false")
                                .attr("value", url.clone()),
                        )
                        .child(button("Copy link", Action::CopyLink.name(), "").id("copy-link")),
                )
                .child(el("p").id("share-info").class("muted").text(match s.copied {
                    Some(true) => "Link copied.".to_owned(),
                    Some(false) => "The browser did not allow copying: select the link and copy it.".to_owned(),
                    None => format!("{} characters in the fragment ({} in the whole link).", link.len(), url.len()),
                }))
        }
        Some(Err(why)) => el("div")
            .id("share")
            .class("panel")
            .child(el_text("h2", "Share"))
            .child(el("p").id("share-info").class("muted").text(why.clone())),
    };
    if failed {
        return section.child(exports).child(share);
    }
    section
        .child(compare_box(state))
        .child(exports)
        .child(share)
}
