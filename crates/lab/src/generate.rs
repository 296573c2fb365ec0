//! Generating a suite in the page: the core's generator over the domain packs the page
//! fetched, with the same bytes as `wildtool generate`, and the suite's data card (what
//! `wildtool stats` prints, fingerprint included).

use serde::{Deserialize, Serialize};
use wildtool_contract::Action;
use wildtool_core::dataset::{fingerprint_hex, Lang};
use wildtool_core::generate::spec::FACTORS;
use wildtool_core::generate::{card::FactorCounts, GenerateSpec, PackText, Packs};
use wildtool_core::protocol::load_checked;

use wildtool_ui::{el, el_text, Element, Node};

use crate::{read, LabError};

/// One domain pack as the page fetched it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PackInput {
    /// The file name (for messages).
    pub name: String,
    /// Its text.
    pub text: String,
}

/// What the page sends: the spec text (`seed=S,sessions=N,name=value,…`) and the packs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GenerateInput {
    /// The spec, as `GenerateSpec::parse` reads it.
    pub spec: String,
    /// Every pack file.
    pub packs: Vec<PackInput>,
}

/// A generated suite.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GenerateOutput {
    /// The canonical spec (`GenerateSpec::to_text`).
    pub spec: String,
    /// The suite: JSON Lines, one session per line.
    pub text: String,
    /// Sessions.
    pub sessions: usize,
    /// The dataset fingerprint (as `wildtool stats` prints it).
    pub fingerprint: String,
    /// The data card: the distribution table, the factor tables and the fingerprint, as
    /// `wildtool stats` prints them.
    pub card: String,
    /// The page's view of the suite (wire JSON of a node): spec, size, fingerprint, the
    /// buttons to run or download it, the data card.
    pub view: String,
}

/// Generates the suite `input.spec` describes (errors carry the core's message: an
/// invalid factor, an impossible combination, a broken pack).
pub fn generate(input: &str) -> Result<String, LabError> {
    let input: GenerateInput = read(input)?;
    let out = run(&input)?;
    serde_json::to_string(&out).map_err(|e| LabError::Input(e.to_string()))
}

/// [`generate`] on a parsed input.
pub fn run(input: &GenerateInput) -> Result<GenerateOutput, LabError> {
    let spec = GenerateSpec::parse(&input.spec)?;
    let texts: Vec<PackText<'_>> = input
        .packs
        .iter()
        .map(|p| PackText {
            name: &p.name,
            text: &p.text,
        })
        .collect();
    let text = wildtool_core::ledger::generated::generate_parsed(&Packs::parse(&texts)?, &spec)?;
    let fingerprint = fingerprint_hex(&text);
    let sessions = spec.sessions;
    let spec = spec.to_text();
    let card = card(&text, &fingerprint);
    Ok(GenerateOutput {
        view: view(&spec, sessions, &fingerprint, &card).to_json(),
        spec,
        sessions,
        card,
        fingerprint,
        text,
    })
}

/// A button dispatching `action` with `arg`.
pub(crate) fn button(label: &str, action: &str, arg: &str) -> Element {
    el("button")
        .attr("type", "button")
        .action(action, arg)
        .text(label)
}

/// The levels a factor's accepted values name one by one (`0-3` → 0, 1, 2, 3; `none,
/// ledger` → none, ledger); none for values described in words (types, subtypes, domains).
pub fn factor_levels(values: &str) -> Vec<String> {
    if let Some((a, b)) = values.split_once('-') {
        if let (Ok(a), Ok(b)) = (a.trim().parse::<u32>(), b.trim().parse::<u32>()) {
            return (a..=b).map(|n| n.to_string()).collect();
        }
    }
    let items: Vec<&str> = values.split(',').map(str::trim).collect();
    if items
        .iter()
        .all(|i| !i.is_empty() && i.chars().all(|c| c.is_ascii_lowercase() || c == '-'))
    {
        items.into_iter().map(str::to_owned).collect()
    } else {
        Vec::new()
    }
}

/// The factors and their levels from the core's factor table, as a picker for the
/// Generate form (`"generate"`: each level a button adding `name=level` to the factors
/// set) or the Sweep form (`"sweep"`: each factor a button filling the factor and all its
/// levels). The free-text fields stay as they are.
pub fn factor_picker(input: &str) -> Result<String, LabError> {
    let form: String = read(input)?;
    let sweep = form == "sweep";
    let rows = FACTORS.iter().map(|f| {
        let levels = factor_levels(f.values);
        let pick = if levels.is_empty() || (sweep && matches!(f.name, "env" | "challenge")) {
            el_text("span", f.values)
        } else if sweep {
            let all = format!("{}={}", f.name, levels.join(","));
            el("span").text(format!("{} ", f.values)).child(
                button(&format!("Sweep {all}"), Action::GenSet.name(), "sweep-pick")
                    .attr("data-value", all.clone())
                    .class("pick"),
            )
        } else {
            el("span").children(levels.iter().map(|l| {
                let pair = format!("{}={l}", f.name);
                button(l, Action::GenSet.name(), "gen-add")
                    .attr("data-value", pair.clone())
                    .attr("aria-label", format!("Add {pair}"))
                    .class("pick")
            }))
        };
        el("tr")
            .child(el_text("th", f.name).attr("scope", "row"))
            .child(el("td").child(pick))
            .child(el_text("td", f.default))
    });
    let table = el("table")
        .class("data-table picker-table")
        .child(el_text(
            "caption",
            if sweep {
                "Pick a factor to sweep over all its levels (or type any levels above)"
            } else {
                "Pick levels to add to the factors set (or type them above)"
            },
        ))
        .child(
            el("thead").child(
                el("tr")
                    .child(el_text("th", "factor").attr("scope", "col"))
                    .child(el_text("th", "levels").attr("scope", "col"))
                    .child(el_text("th", "when not set").attr("scope", "col")),
            ),
        )
        .child(el("tbody").children(rows));
    Ok(el("details")
        .id("factor-picker")
        .class("panel")
        .child(el_text("summary", "Factors and their levels"))
        .child(
            el("div")
                .class("table-box")
                .attr("tabindex", "0")
                .attr("role", "region")
                .attr(
                    "aria-label",
                    "Factors and their levels (scrolls sideways on narrow screens)",
                )
                .child(table),
        )
        .to_json())
}

/// The view of a generated suite.
pub fn view(spec: &str, sessions: usize, fingerprint: &str, card: &str) -> Node {
    el("div")
        .id("generated-view")
        .child(
            el("p")
                .text("Spec: ")
                .child(el_text("code", spec).id("generated-spec")),
        )
        .child(
            el("dl")
                .class("stats")
                .child(el_text("dt", "Sessions"))
                .child(el_text("dd", sessions.to_string()))
                .child(el_text("dt", "Fingerprint"))
                .child(el_text("dd", fingerprint).id("generated-fingerprint")),
        )
        .child(
            el_text(
                "p",
                "wildtool stats prints the same fingerprint for the same suite made with wildtool generate.",
            )
            .class("muted"),
        )
        .child(
            el("div")
                .class("row")
                .child(
                    button("Download the suite (.jsonl)", Action::GenDownload.name(), "")
                        .id("generated-download"),
                )
                .child(button("Open Setup", Action::Nav.name(), "setup")),
        )
        .child(
            el("details")
                .child(el_text("summary", "Data card (as wildtool stats prints it)"))
                .child(
                    el_text("pre", card)
                        .id("generated-card")
                        .class("card")
                        .attr("tabindex", "0")
                        .attr("aria-label", "Data card"),
                ),
        )
        .into()
}

/// The data card of a suite: the lines `wildtool stats` prints for it.
pub fn card(text: &str, fingerprint: &str) -> String {
    let loaded = load_checked(text, Lang::En);
    let mut out = wildtool_core::dataset::Stats::from_sessions(&loaded.sessions).render_table();
    if let Some(factors) = FactorCounts::from_sessions(&loaded.sessions) {
        out.push_str(&factors.render());
    }
    out.push('\n');
    out.push_str(&format!("fingerprint                 {fingerprint}\n"));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use wildtool_core::generate::pack::PACK_FILES;

    fn packs() -> Vec<PackInput> {
        PACK_FILES
            .iter()
            .map(|name| PackInput {
                name: (*name).to_owned(),
                text: std::fs::read_to_string(format!(
                    "{}/../../data/packs/{name}",
                    env!("CARGO_MANIFEST_DIR")
                ))
                .unwrap(),
            })
            .collect()
    }

    fn generated(input: &GenerateInput) -> GenerateOutput {
        serde_json::from_str(&generate(&serde_json::to_string(input).unwrap()).unwrap()).unwrap()
    }

    fn pack_texts(input: &GenerateInput) -> Vec<PackText<'_>> {
        input
            .packs
            .iter()
            .map(|p| PackText {
                name: &p.name,
                text: &p.text,
            })
            .collect()
    }

    #[test]
    fn the_suite_is_the_cores_with_its_card() {
        let input = GenerateInput {
            spec: "seed=9,sessions=5,width=3,types=single,parallel,chat,clarify".into(),
            packs: packs(),
        };
        let out = generated(&input);
        let texts = pack_texts(&input);
        let spec = GenerateSpec::parse(&input.spec).unwrap();
        let core = wildtool_core::generate::generate(&texts, &spec).unwrap();
        assert_eq!(out.text, core);
        assert_eq!(out.fingerprint, fingerprint_hex(&core));
        assert_eq!(out.sessions, 5);
        assert_eq!(
            out.spec,
            "seed=9,sessions=5,types=single+parallel+chat+clarify,width=3"
        );
        assert!(out.card.contains("generated suite"), "{}", out.card);
        let tree = wildtool_ui::wire::parse(&out.view).unwrap();
        assert_eq!(
            tree.by_id("generated-fingerprint").unwrap().text_content(),
            out.fingerprint
        );
        assert_eq!(
            tree.by_id("generated-card").unwrap().text_content(),
            out.card
        );
        assert!(out.card.ends_with(&format!(
            "fingerprint                 {}\n",
            out.fingerprint
        )));
    }

    #[test]
    fn ledger_suites_are_the_cores_too() {
        let input = GenerateInput {
            spec: "seed=4,sessions=6,challenge=question".into(),
            packs: packs(),
        };
        let out = generated(&input);
        let texts = pack_texts(&input);
        let spec = GenerateSpec::parse(&input.spec).unwrap();
        let core = wildtool_core::ledger::generated::generate(&texts, &spec).unwrap();
        assert_eq!(out.text, core);
        assert_eq!(out.text.lines().count(), 6);
        assert!(out.text.lines().all(|l| l.contains("\"ledger_env\"")));
        assert_eq!(out.spec, "seed=4,sessions=6,challenge=question");
        let e = generate(
            &serde_json::to_string(&GenerateInput {
                spec: "seed=4,sessions=6,env=ledger,transitions=1".into(),
                packs: packs(),
            })
            .unwrap(),
        )
        .unwrap_err();
        assert!(
            e.to_string().contains("does not apply to env=ledger"),
            "{e}"
        );
    }

    #[test]
    fn the_factor_picker_offers_the_cores_factors_and_levels() {
        assert_eq!(factor_levels("0-3"), ["0", "1", "2", "3"]);
        assert_eq!(factor_levels("none, ledger"), ["none", "ledger"]);
        assert_eq!(
            factor_levels("chain-side, fan-out"),
            ["chain-side", "fan-out"]
        );
        assert!(factor_levels("pack ids or domain names (joined by + or ,)").is_empty());
        let generate = factor_picker("\"generate\"").unwrap();
        for f in FACTORS {
            assert!(generate.contains(f.name), "{}", f.name);
        }
        assert!(generate.contains("\"transitions=2\""), "{generate}");
        let sweep = factor_picker("\"sweep\"").unwrap();
        assert!(sweep.contains("Sweep transitions=0,1,2,3"), "{sweep}");
        assert!(!sweep.contains("Sweep env="));
        assert!(factor_picker("3").is_err());
    }

    #[test]
    fn bad_specs_and_packs_are_errors_with_the_cores_message() {
        let call = |spec: &str, packs: Vec<PackInput>| {
            generate(
                &serde_json::to_string(&GenerateInput {
                    spec: spec.into(),
                    packs,
                })
                .unwrap(),
            )
        };
        let e = call("seed=1,sessions=2,width=9", packs()).unwrap_err();
        assert!(
            e.to_string()
                .contains("width must be an integer from 2 to 8"),
            "{e}"
        );
        let mut broken = packs();
        broken[13].text.truncate(100);
        let e = call("seed=1,sessions=2", broken).unwrap_err();
        assert!(e.to_string().contains("weather.json"), "{e}");
        assert!(matches!(generate("[]"), Err(LabError::Input(_))));
    }
}
