//! The item audit in the page: the runs of the comparison read by the core's
//! [`wildtool_core::audit::audit`] (the numbers of `wildtool audit`'s `audit.json`), shown
//! as the counts, the items to check in rank order and the Markdown report to copy. The
//! page holds the runs' outcomes only, so the signs that need failure details (a shared
//! argument value, runs agreeing against the gold) are the CLI's.

use wildtool_contract::inputs::AuditInput;
use wildtool_core::audit::{audit, AuditRun, ALWAYS_PASSED};
use wildtool_ui::{data_table, el, el_text, Element};

use crate::{read, LabError};

/// The audit's section (wire JSON of a `section`).
pub fn view(input: &str) -> Result<String, LabError> {
    let input: AuditInput = read(input)?;
    Ok(section(&input)?.to_json())
}

fn section(input: &AuditInput) -> Result<Element, LabError> {
    let runs: Vec<AuditRun> = input
        .runs
        .iter()
        .map(|r| AuditRun {
            label: r.label.clone(),
            trials: r.trials.clone(),
            failures: Vec::new(),
        })
        .collect();
    let doc = audit(&runs, &input.shapes, input.fingerprint)
        .map_err(|e| LabError::Message(e.to_string()))?;
    let s = &doc.summary;
    let headers: Vec<String> = [
        "rank",
        "session",
        "task",
        "type",
        "passed",
        "signs",
        "difficulty",
        "discrimination",
    ]
    .iter()
    .map(|h| (*h).to_owned())
    .collect();
    let rows: Vec<Vec<String>> = doc
        .suspicious()
        .take(50)
        .enumerate()
        .map(|(k, i)| {
            vec![
                (k + 1).to_string(),
                i.session.to_string(),
                i.task.to_string(),
                i.task_type.clone(),
                format!("{}/{}", i.passes, i.responses),
                i.flags
                    .iter()
                    .filter(|f| **f != ALWAYS_PASSED)
                    .map(|f| f.replace('_', " "))
                    .collect::<Vec<_>>()
                    .join(", "),
                format!("{:.2}", i.difficulty),
                format!("{:.2}", i.discrimination),
            ]
        })
        .collect();
    let found = rows.len();
    Ok(el("section")
        .id("audit")
        .class("panel")
        .child(el_text("h2", "Item audit").id("audit-title"))
        .child(el_text(
            "p",
            format!(
                "{} items over {} runs: {} never passed, {} passed by every run, {} whose failures share one error class. Difficulty from a Rasch fit; discrimination is the correlation with the fitted abilities.",
                s.items,
                doc.runs.len(),
                s.never_passed,
                s.always_passed,
                s.shared_error
            ),
        ).id("audit-summary"))
        .child(if found == 0 {
            el_text("p", "No item shows a sign of a broken item.").class("muted")
        } else {
            wildtool_views::widgets::table_box()
                .child(data_table("Items to check, most suspicious first", &headers, &rows))
        })
        .child(
            el("details")
                .child(el_text("summary", "Markdown report (to file against the dataset)"))
                .child(el_text("pre", doc.markdown("the loaded dataset")).id("audit-md")),
        ))
}
