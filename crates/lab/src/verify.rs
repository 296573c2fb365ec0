//! The page's Verify drop zone: the files of a bundle (a manifest, a result file, the
//! claimed `metric.json` / `score.jsonl` / `report.json`, a cassette; a dataset among them
//! replaces the loaded one) checked by the core's [`verify`], the function behind
//! `wildtool verify`, and shown as the same `✓`/`✗` lines the command prints.
//!
//! Files are sorted by what they are: a dataset by its content (`formats::sniff`), a
//! manifest and a cassette by their first member, every other file by its name into the
//! run's directory (`.`; the official harness's `*_result.jsonl` and `*_metric.json` are
//! found by their suffix, as in the CLI). A run file exported by the page
//! (`*.wildtool-run.json`) with its manifest is the manifest and the result file its
//! records assemble to (the core's `run_export_parts`, which `wildtool verify` reads run
//! files with too): one directory per trial (`trial-1`, …) for repeated trials.
//! Chinese text is compared without jieba's
//! segmentation here (the page's lab module does not carry it), so a run of a Chinese
//! dataset is verified by the CLI.

use wildtool_contract::inputs::VerifyInput;
use wildtool_core::checker::NoSegmenter;
use wildtool_core::dataset::Lang;
use wildtool_core::formats::{sniff, FileKind};
use wildtool_core::provenance::verify::{
    is_run_export, run_export_parts, verify, Bundle, BundleDir, Verification,
};
use wildtool_ui::{el, el_text, Element};

use crate::{read, LabError};

/// The bundle of the dropped files, or what is missing.
pub fn bundle(input: &VerifyInput<'_>) -> Result<Bundle, String> {
    let mut bundle = Bundle::default();
    let mut dir = BundleDir {
        dir: ".".to_owned(),
        ..BundleDir::default()
    };
    let mut dataset = input.dataset.as_deref().map(str::to_owned);
    let mut export = None;
    for (name, text) in input.files.iter() {
        let head = text.trim_start();
        if is_run_export(text) {
            export = Some((name, text));
        } else if head.starts_with("{\"wildtool_manifest\"") || name == "manifest.json" {
            bundle.manifest = Some(text.clone());
        } else if head.starts_with("{\"wildtool_cassette\"") {
            bundle.cassette = Some(text.clone());
        } else if sniff(text.as_bytes(), text.len() as u64) == FileKind::Dataset {
            dataset = Some(text.clone());
        } else {
            dir.files.insert(name.clone(), text.clone());
        }
    }
    bundle.dataset = dataset.ok_or_else(|| {
        "Load the run's dataset in Setup, or drop it here too, to verify against it.".to_owned()
    })?;
    if let Some((name, text)) = export {
        let lang = if input.lang == "zh" {
            Lang::Zh
        } else {
            Lang::En
        };
        let (manifest, dirs) = run_export_parts(name, text, &bundle.dataset, lang)?;
        bundle.manifest = Some(manifest);
        match dirs.as_slice() {
            [one] if one.dir == "." => dir.files.extend(one.files.clone()),
            _ => bundle.dirs.extend(dirs),
        }
    }
    if !dir.files.is_empty() || bundle.dirs.is_empty() {
        bundle.dirs.push(dir);
    }
    Ok(bundle)
}

/// The verdicts for `input` (the claims `wildtool verify` prints for the same files).
pub fn verdicts(input: &VerifyInput<'_>) -> Result<Verification, String> {
    let bundle = bundle(input)?;
    let lang = if input.lang == "zh" {
        Lang::Zh
    } else {
        Lang::En
    };
    verify(
        &bundle,
        lang,
        wildtool_core::protocol::DEFAULT_CANDIDATE_CAP,
        &NoSegmenter,
    )
    .map_err(|e| e.to_string())
}

/// The verdicts' section (wire JSON of a `div`).
pub fn view(input: &str) -> Result<String, LabError> {
    let input: VerifyInput = read(input)?;
    Ok(section(&input).to_json())
}

fn section(input: &VerifyInput<'_>) -> Element {
    let names: Vec<&str> = input.files.iter().map(|(n, _)| n.as_str()).collect();
    let head = el_text("p", format!("Files: {}.", names.join(", "))).class("muted");
    let out = el("div").id("verify-result").child(head);
    match verdicts(input) {
        Err(why) => out.child(el_text("p", why).id("verify-why")),
        Ok(v) => {
            let failed = v.claims.iter().filter(|c| !c.holds).count();
            let verdict = if v.all_hold() {
                format!("Every claim holds ({} checked).", v.claims.len())
            } else {
                format!(
                    "{failed} of {} claims fail; the first ✗ is the cause, later ones can be its consequences.",
                    v.claims.len()
                )
            };
            out.child(
                el_text("p", verdict)
                    .id("verify-verdict")
                    .class(if v.all_hold() { "ok" } else { "error" }),
            )
            .child(
                el("ul")
                    .id("verify-claims")
                    .children(v.lines().lines().map(|line| el_text("li", line.to_owned()))),
            )
        }
    }
}
