//! Setup: the dataset (bundled, file or URL; validation problems with line, session and
//! field) and the model (built-in agent or endpoint, key, sampling and transport settings).

use crate::field::Field;
use crate::setup::DatasetChoice;
use crate::state::AppState;
use crate::ui::{el, el_text, Element};
use wildtool_contract::{Action, FileAction};

use crate::widgets::{button, field, heading};

use wildtool_core::runner::registry::{self, AGENTS, LIMITS, PRESETS, PROVIDERS};

/// Providers and built-in agents offered in the form, from the core's registry:
/// `(value, label)`. The replay agent needs a recorded result file and stays a CLI
/// feature.
pub fn provider_options() -> Vec<(&'static str, String)> {
    AGENTS
        .iter()
        .filter(|a| !a.needs_results)
        .map(|a| (a.name, format!("{} — {}", a.label, a.description)))
        .chain(
            PROVIDERS
                .iter()
                .map(|p| (p.kind.name(), p.label.to_owned())),
        )
        .collect()
}

fn dataset_panel(state: &AppState) -> Element {
    let f = &state.setup;
    let radio = |value: &str, label: &str| {
        el("label")
            .class("check")
            .child(
                el("input")
                    .attr("type", "radio")
                    .attr("name", "ds-kind")
                    .attr("value", value)
                    .flag("checked", f.dataset.value() == value)
                    .action(Action::Set.name(), Field::DatasetChoice.name()),
            )
            .text(format!(" {label}"))
    };
    let mut panel = el("fieldset")
        .class("panel")
        .child(el_text("legend", "Dataset"))
        .child(
            el("div")
                .class("choices")
                .attr("role", "radiogroup")
                .attr("aria-label", "Dataset source")
                .child(radio("bundled", "Bundled suite"))
                .child(radio("upload", "Upload"))
                .child(radio("url", "URL")),
        );
    match f.dataset {
        DatasetChoice::Upload => {
            panel = panel.child(
                el("div")
                    .class("drop sub")
                    .on_drop(FileAction::DatasetFile.name())
                    .child(
                        el("label")
                            .attr("for", "ds-file")
                            .text("Dataset file (.jsonl) — or drop it here"),
                    )
                    .child(
                        el("input")
                            .id("ds-file")
                            .attr("type", "file")
                            .attr("accept", ".jsonl,.json,.txt")
                            .action(FileAction::DatasetFile.name(), ""),
                    ),
            );
        }
        DatasetChoice::Url => {
            panel = panel.child(
                el("div")
                    .class("sub")
                    .children(field(
                        "Dataset URL",
                        Field::DatasetUrl.name(),
                        "url",
                        &f.dataset_url,
                    ))
                    .child(
                        button("Official data", Action::OfficialUrl.name(), "").id("ds-official"),
                    ),
            );
        }
        DatasetChoice::Bundled => {}
    }
    let mut row = el("div")
        .class("row")
        .child(el("label").attr("for", "ds-lang").text("Language"))
        .child(
            el("select")
                .id("ds-lang")
                .action(Action::Set.name(), Field::Lang.name())
                .attr("value", f.lang.clone())
                .child(el("option").attr("value", "en").text("English (en)"))
                .child(el("option").attr("value", "zh").text("Chinese (zh)")),
        );
    if f.dataset != DatasetChoice::Upload {
        row = row.child(
            button("Load dataset", Action::LoadDataset.name(), "")
                .id("ds-load")
                .class("primary"),
        );
    }
    panel = panel.child(row);
    let info = match state.dataset {
        Some(d) => format!(
            "{}: {} sessions, {} tasks, fingerprint {}{}",
            d.source.display(),
            d.dataset.sessions.len(),
            d.tasks,
            d.fingerprint,
            if d.error_count() > 0 {
                format!(
                    " — {} error(s): invalid sessions are still run and scored with the documented fallbacks.",
                    d.error_count()
                )
            } else {
                String::new()
            }
        ),
        None => match &state.pending_dataset {
            Some(p) => format!("Loading {}…", p.source.display()),
            None => "No dataset loaded.".into(),
        },
    };
    panel = panel.child(
        el("p")
            .id("ds-info")
            .class("muted")
            .attr("aria-live", "polite")
            .text(info),
    );
    if let Some(d) = state.dataset {
        let problems = &d.dataset.problems;
        if !problems.is_empty() {
            let shown = problems.len().min(200);
            panel = panel.child(
                el("div")
                    .id("ds-problems")
                    .class("problems")
                    .attr("tabindex", "0")
                    .attr("role", "region")
                    .attr("aria-label", "Validation problems")
                    .child(
                        el("table")
                            .class("data-table problems-table")
                            .child(el_text(
                                "caption",
                                format!(
                                    "{} error(s), {} warning(s){}",
                                    d.error_count(),
                                    d.warning_count(),
                                    if shown < problems.len() {
                                        format!(" (first {shown} shown)")
                                    } else {
                                        String::new()
                                    }
                                ),
                            ))
                            .child(
                                el("thead").child(
                                    el("tr").children(
                                        ["Line", "Session", "Field", "Severity", "Problem"]
                                            .iter()
                                            .map(|h| el_text("th", *h).attr("scope", "col")),
                                    ),
                                ),
                            )
                            .child(el("tbody").children(problems.iter().take(200).map(|p| {
                                el("tr").class(p.severity.as_str()).children([
                                    el_text("td", p.line.to_string()),
                                    el_text("td", p.session_id.clone().unwrap_or_default()),
                                    el_text(
                                        "td",
                                        if p.path.is_empty() {
                                            "(line)".to_owned()
                                        } else {
                                            p.path.clone()
                                        },
                                    ),
                                    el_text("td", p.severity.as_str()),
                                    el_text("td", p.message.clone()),
                                ])
                            }))),
                    ),
            );
        }
    }
    panel
}

fn number(label: &str, f: Field, value: &str, min: &str, max: &str, step: &str) -> Element {
    el("label").attr("for", f.name()).text(label).child(
        el("input")
            .id(f.name())
            .attr("type", "number")
            .attr("min", min)
            .attr("max", max)
            .attr("step", step)
            .attr("value", value)
            .action(Action::Set.name(), f.name()),
    )
}

fn model_panel(state: &AppState, cost: Element, env: Option<Element>) -> Element {
    let f = &state.setup;
    let mut select = el("select")
        .id("m-provider")
        .action(Action::Set.name(), Field::Provider.name())
        .attr("value", f.provider.clone());
    for (v, label) in provider_options() {
        select = select.child(el("option").attr("value", v).text(label));
    }
    let mut presets = el("select")
        .id("m-preset")
        .action(Action::Set.name(), Field::Preset.name())
        .attr("value", f.preset.clone())
        .child(
            el("option")
                .attr("value", "")
                .text("— choose a service or local server —"),
        );
    for p in PRESETS {
        presets = presets.child(el("option").attr("value", p.id).text(p.label));
    }
    let mut panel = el("fieldset")
        .class("panel")
        .child(el_text("legend", "Model"))
        .child(
            el("div")
                .class("row")
                .child(el("label").attr("for", "m-preset").text("Preset"))
                .child(presets),
        )
        .child(
            el("div")
                .class("row")
                .child(el("label").attr("for", "m-provider").text("Provider"))
                .child(select),
        );
    if let Some(p) = registry::preset(&f.preset) {
        panel = panel.child(el("p").id("preset-note").class("muted").text(format!(
            "{}: {}{}",
            p.label,
            p.cors,
            p.tools.map(|t| format!(" Tools: {t}")).unwrap_or_default()
        )));
    }
    if !f.is_builtin() {
        let preset = f.preset();
        let example_model = preset
            .or_else(|| PRESETS.iter().find(|p| !p.needs_key))
            .map(|p| p.example_model)
            .unwrap_or_default();
        let mut sub = el("div").class("sub");
        sub = sub
            .children(field("Base URL", Field::BaseUrl.name(), "url", &f.base_url))
            .child(el("label").attr("for", "m-model").text("Model name"))
            .child(
                el("div")
                    .class("row")
                    .child(
                        el("input")
                            .id("m-model")
                            .attr("type", "text")
                            .attr("list", "m-models")
                            .attr("autocomplete", "off")
                            .attr("placeholder", example_model)
                            .attr("value", f.model.clone())
                            .action(Action::Set.name(), Field::Model.name()),
                    )
                    .child(
                        button("List the server's models", Action::ListModels.name(), "")
                            .id("m-list"),
                    ),
            )
            .child(
                el("datalist").id("m-models").children(
                    f.models
                        .iter()
                        .map(|m| el("option").attr("value", m.clone())),
                ),
            );
        if !f.models.is_empty() {
            sub = sub.child(el("p").id("m-models-note").class("muted").text(format!(
                "The server offers {} model{}: pick one in the model field or type a name.",
                f.models.len(),
                if f.models.len() == 1 { "" } else { "s" }
            )));
        }
        let key_label = match preset {
            Some(p) if !p.needs_key => format!("API key (not needed for {})", p.label),
            Some(p) => format!(
                "API key (needed for {}; kept in memory{})",
                p.label,
                p.key_env
                    .map(|v| format!(", the CLI reads ${v}"))
                    .unwrap_or_default()
            ),
            None => "API key (kept in memory)".to_owned(),
        };
        sub = sub
            .child(el("label").attr("for", "m-key").text(key_label))
            .child(
                el("input")
                    .id("m-key")
                    .attr("type", "password")
                    .attr("autocomplete", "off")
                    .attr("spellcheck", "false")
                    .attr("value", f.key.clone())
                    .action(Action::Set.name(), Field::Key.name()),
            )
            .child(
                el("label")
                    .class("check")
                    .child(
                        el("input")
                            .id("m-remember")
                            .attr("type", "checkbox")
                            .flag("checked", f.remember)
                            .action(Action::Set.name(), Field::Remember.name()),
                    )
                    .text(
                        " Remember the key on this device, for this endpoint only (localStorage)",
                    ),
            );
        let default_base = registry::provider_named(&f.provider).and_then(|p| p.default_base_url);
        let local = PRESETS.iter().find(|p| !p.needs_key);
        sub = sub.child(el("p").class("muted").text(match (default_base, local) {
            (Some(url), _) => format!(
                "Empty base URL: {url}. Model name for example {example_model}; it is also the run's label."
            ),
            (None, Some(p)) => format!(
                "For example {} ({}). Model name for example {example_model}; it is also the run's label.",
                p.base_url, p.label
            ),
            (None, None) => "The model name is also the run's label.".to_owned(),
        }));
        panel = panel.child(sub);
    }
    if let Some(run) = &state.run {
        if let Some(end) = run.end.as_ref().filter(|e| e.outcome == "failed") {
            let what = match &run.check {
                Some(class) => format!("The endpoint check failed ({class}): "),
                None => "The last run failed: ".to_owned(),
            };
            panel = panel.child(
                el("div")
                    .id("setup-error")
                    .class("note note-error")
                    .attr("role", "alert")
                    .child(el_text("strong", what))
                    .text(end.reason.clone().unwrap_or_default())
                    .child_opt(
                        end.fix
                            .as_ref()
                            .map(|fix| el_text("p", format!("Fix: {fix}"))),
                    ),
            );
        }
    }
    let l = LIMITS;
    let range = |lo: f64, hi: f64| (lo.to_string(), hi.to_string());
    type NumberField<'a> = (&'a str, Field, &'a String, (String, String), &'a str);
    let numbers: [NumberField<'_>; 6] = [
        (
            "Temperature",
            Field::Temperature,
            &f.temperature,
            range(l.temperature.0, l.temperature.1),
            "0.1",
        ),
        (
            "Concurrency",
            Field::Concurrency,
            &f.concurrency,
            range(l.concurrency.0 as f64, l.concurrency.1 as f64),
            "1",
        ),
        (
            "Timeout (s)",
            Field::Timeout,
            &f.timeout,
            range(l.timeout_secs.0, l.timeout_secs.1),
            "1",
        ),
        (
            "Retries",
            Field::Retries,
            &f.retries,
            range(f64::from(l.retries.0), f64::from(l.retries.1)),
            "1",
        ),
        (
            "Backoff (s)",
            Field::Backoff,
            &f.backoff,
            range(l.backoff_secs.0, l.backoff_secs.1),
            "1",
        ),
        (
            "Trials (pass^k)",
            Field::Trials,
            &f.trials,
            range(1.0, wildtool_core::runner::engine::MAX_TRIALS as f64),
            "1",
        ),
    ];
    panel =
        panel.child(el("div").class("grid3").children(numbers.iter().map(
            |(label, field, value, (lo, hi), step)| number(label, *field, value, lo, hi, step),
        )));
    if !f.is_builtin() {
        panel = panel.child(
            el("label")
                .class("check")
                .child(
                    el("input")
                        .id("m-preflight")
                        .attr("type", "checkbox")
                        .flag("checked", f.preflight)
                        .action(Action::Set.name(), Field::Preflight.name()),
                )
                .text(" Check the endpoint with one request before the run (untick to skip the check, like --no-preflight)"),
        );
        panel = panel
            .child(
                el("label")
                    .class("check")
                    .child(
                        el("input")
                            .id("m-stream")
                            .attr("type", "checkbox")
                            .flag("checked", f.stream)
                            .action(Action::Set.name(), Field::Stream.name()),
                    )
                    .text(" Stream the replies (like --stream; scored exactly as without streaming, with first-token latency)"),
            )
            .child(probe_block(state))
            .child(cassette_block(state));
    }
    panel.child(cost).child_opt(env).child(
        el("div").class("row").child(
            button("Start run", Action::Start.name(), "")
                .id("start-run")
                .class("primary")
                .flag(
                    "disabled",
                    state.pending_dataset.is_some() || state.dataset.is_none_or(|d| d.tasks == 0),
                ),
        ),
    )
}

/// The streaming probe: its button, where it stands, and the core's report as text.
fn probe_block(state: &AppState) -> Element {
    let running = state.probe.as_ref().is_some_and(|p| p.result.is_none());
    let mut block = el("div").id("probe").child(
        el("div").class("row").child(
            button("Check streaming", Action::ProbeStream.name(), "")
                .id("probe-stream")
                .flag("disabled", running),
        ),
    );
    block = block.child(
        el_text(
            "p",
            "Sends four small tool tasks once streamed and once not, and compares the calls: a server that loses or changes calls only when streaming is named here, with what to look for.",
        )
        .class("muted"),
    );
    if let Some(e) = &state.probe_error {
        block = block.child(
            el_text("p", e.clone())
                .id("probe-error")
                .class("error-text"),
        );
    }
    if let Some(p) = &state.probe {
        block = match &p.result {
            None => block.child(
                el("p")
                    .id("probe-status")
                    .attr("role", "status")
                    .text(format!("Checking streaming: {}", p.progress())),
            ),
            Some(r) => block.child(
                el_text("pre", r.text.clone())
                    .id("probe-report")
                    .attr("role", "status"),
            ),
        };
    }
    block
}

fn cors_help(state: &AppState) -> Element {
    el("details")
        .id("cors-help")
        .class("panel help")
        .action(Action::Toggle.name(), "cors-help")
        .flag("open", state.is_open("cors-help"))
        .child(el_text("summary", "Connecting to a local or hosted model from this page (CORS, network)"))
        .child(el_text("p", "The page calls the endpoint straight from your browser, so the server must allow this page's origin (CORS). What each server needs:"))
        .child(el("ul").children(PRESETS.iter().map(|p| {
            el("li")
                .child(el_text("strong", p.label))
                .text(format!(
                    " ({}): {}{}",
                    p.base_url,
                    p.cors,
                    p.tools.map(|t| format!(" Tools: {t}")).unwrap_or_default()
                ))
        })))
        .child(el_text("p", "A page served over https can only call https endpoints or localhost; other plain-http hosts are blocked by the browser (and by this page's Content-Security-Policy)."))
}

/// The setup view, with the cost panel and the ledger environment's block the frame
/// gives it.
pub fn view(state: &AppState, cost: Element, env: Option<Element>) -> Element {
    el("section")
        .id("view-setup")
        .class("view")
        .attr("aria-labelledby", "setup-title")
        .child(heading("h1", "setup-title", "Setup"))
        .child(
            el("div")
                .class("grid2")
                .child(dataset_panel(state))
                .child(model_panel(state, cost, env)),
        )
        .child(cors_help(state))
}

/// Record a cassette of the run, or answer it from an uploaded one (`run --cassette`,
/// `--offline`).
fn cassette_block(state: &AppState) -> Element {
    let c = &state.cassette;
    let block = el("div").id("cassette").child(
        el("label").class("check").child(
            el("input")
                .id("cassette-record")
                .attr("type", "checkbox")
                .flag("checked", c.record)
                .action(Action::CassetteRecord.name(), ""),
        )
        .text(" Record a cassette (like --cassette: every reply, to download as cassette.jsonl after the run)"),
    );
    match &c.replay {
        Some((name, _)) => block.child(
            el("div")
                .class("row")
                .child(el_text("span", format!("Replaying {name}: nothing is sent; a request not in it ends its task incomplete (like --offline).")).id("cassette-replaying"))
                .child(button("Stop replaying", Action::CassetteForget.name(), "").id("cassette-forget")),
        ),
        None => block
            .child(el("label").attr("for", "cassette-input").text(" Replay a cassette (like --cassette FILE --offline): "))
            .child(
                el("input")
                    .id("cassette-input")
                    .attr("type", "file")
                    .action(FileAction::CassetteFile.name(), ""),
            ),
    }
}
