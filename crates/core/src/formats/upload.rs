//! Turning an upload into the official result text to score: a result file is scored as
//! it is; a checkpoint or a run export is first checked against the loaded dataset's
//! fingerprint and assembled into result lines (complete sessions only), exactly as
//! `wildtool run` assembles its `result.jsonl`.

use super::run_export::RunExport;
use crate::dataset::LoadedDataset;
use crate::input::FormatError;
use crate::runner::checkpoint::{
    assemble, recover, recover_trials, Assembled, CheckpointFile, SessionSlot,
};

/// One slot per loaded session (what the result assembly needs).
pub fn session_slots(dataset: &LoadedDataset) -> Vec<SessionSlot> {
    dataset
        .sessions
        .iter()
        .map(|s| SessionSlot {
            line: s.index,
            id: s.id.clone(),
            tasks: s.tasks.len(),
        })
        .collect()
}

fn same_dataset(what: &'static str, found: &str, expected: &str) -> Result<(), FormatError> {
    if !found.is_empty() && !found.eq_ignore_ascii_case(expected) {
        return Err(FormatError::OtherDataset {
            what,
            found: found.to_owned(),
            expected: expected.to_owned(),
        });
    }
    Ok(())
}

fn assemble_records(
    model: &str,
    records: &[String],
    dataset: &LoadedDataset,
    fingerprint: &str,
) -> Assembled {
    // The header was checked by the caller; recover() only sees records here.
    let done = recover(records, model, fingerprint).unwrap_or_default();
    assemble(model, &session_slots(dataset), &done)
}

/// The result file assembled from a checkpoint made on the dataset with `fingerprint`.
pub fn checkpoint_results(
    file: &CheckpointFile,
    dataset: &LoadedDataset,
    fingerprint: &str,
) -> Result<Assembled, FormatError> {
    same_dataset("checkpoint", &file.header.dataset, fingerprint)?;
    Ok(assemble_records(
        &file.header.model_name,
        &file.records,
        dataset,
        fingerprint,
    ))
}

/// The result text of a run export made on the dataset with `fingerprint`: its records
/// assembled, else its stored result file.
pub fn run_export_results(
    doc: &RunExport,
    dataset: &LoadedDataset,
    fingerprint: &str,
) -> Result<String, FormatError> {
    same_dataset("run export", &doc.meta.dataset.fingerprint, fingerprint)?;
    match (&doc.records, &doc.result_jsonl) {
        (Some(records), _) => {
            Ok(assemble_records(&doc.meta.model, records, dataset, fingerprint).text)
        }
        (None, Some(text)) => Ok(text.clone()),
        (None, None) => Err(FormatError::Kind(
            "this run export holds no results (neither \"records\" nor \"result_jsonl\")"
                .to_owned(),
        )),
    }
}

/// The result text of every trial of a run export made on the dataset with
/// `fingerprint`, trial 1 first: its records assembled trial by trial (as `wildtool run`
/// writes `trial-K/result.jsonl`), else its one stored result file.
pub fn run_export_trial_results(
    doc: &RunExport,
    dataset: &LoadedDataset,
    fingerprint: &str,
) -> Result<Vec<String>, FormatError> {
    let Some(records) = &doc.records else {
        return run_export_results(doc, dataset, fingerprint).map(|t| vec![t]);
    };
    same_dataset("run export", &doc.meta.dataset.fingerprint, fingerprint)?;
    let done = recover_trials(records, &doc.meta.model, fingerprint).unwrap_or_default();
    let last = done.keys().map(|(t, _, _)| *t).max().unwrap_or(1).max(1);
    let slots = session_slots(dataset);
    Ok((1..=last)
        .map(|trial| {
            let of_trial = crate::order::map_from(
                done.iter()
                    .filter(|((t, _, _), _)| *t == trial)
                    .map(|((_, line, task), rec)| ((*line, *task), rec.clone())),
            );
            assemble(&doc.meta.model, &slots, &of_trial).text
        })
        .collect())
}
