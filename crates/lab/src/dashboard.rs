//! The dashboard's parts the app shell asks for: its charts (the movable view
//! `wildtool_views::dashboard`), a chart as a file, and the run's share link (made and
//! read with the core's `share`).

use wildtool_contract::inputs::{ChartFileInput, ChartsInput, ShareDecodeInput, ShareEncodeInput};
use wildtool_core::share::{self, ShareHeader, SharedRun};

use crate::{read, LabError};

/// The charts block (wire JSON of a `div`).
pub fn charts(input: &str) -> Result<String, LabError> {
    let input: ChartsInput = read(input)?;
    Ok(wildtool_views::dashboard::view(&input).to_json())
}

/// One chart as a file: `width height id`, a newline, the SVG.
pub fn chart_file(input: &str) -> Result<String, LabError> {
    let input: ChartFileInput = read(input)?;
    let c = wildtool_views::dashboard::chart_file(&input)
        .ok_or_else(|| LabError::Input(format!("no chart \"{}\"", input.id)))?;
    Ok(format!("{} {} {}\n{}", c.size.0, c.size.1, c.id, c.svg))
}

/// The history list (wire JSON of an `ol`, or a note).
pub fn history_list(input: &str) -> Result<String, LabError> {
    let input: wildtool_contract::inputs::HistoryInput = read(input)?;
    Ok(wildtool_views::history::view(&input).to_json())
}

/// A run's share link text (`v1.…`).
pub fn share_encode(input: &str) -> Result<String, LabError> {
    let input: ShareEncodeInput = read(input)?;
    share::encode(
        &SharedRun {
            header: ShareHeader {
                scorer_version: wildtool_core::SCORER_VERSION.to_owned(),
                model_label: input.label,
                dataset_fingerprint: input.fingerprint,
                task_count: u32::try_from(input.shapes.len()).unwrap_or(u32::MAX),
            },
            outcomes: input.outcomes,
        },
        &input.shapes,
    )
    .map_err(|e| LabError::Message(format!("No share link for this run: {e}")))
}

/// The outcomes a share link carries (a JSON list), read against the loaded dataset.
pub fn share_decode(input: &str) -> Result<String, LabError> {
    let input: ShareDecodeInput = read(input)?;
    let run = share::decode(&input.link, input.fingerprint, &input.shapes)
        .map_err(|e| LabError::Message(format!("This share link cannot be opened: {e}")))?;
    serde_json::to_string(&run.outcomes).map_err(|e| LabError::Input(e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_link_made_here_reads_back() {
        let shapes = vec![];
        let enc = ShareEncodeInput {
            label: "m".into(),
            fingerprint: 7,
            shapes,
            outcomes: vec![],
        };
        let link = share_encode(&serde_json::to_string(&enc).unwrap()).unwrap();
        let dec = ShareDecodeInput {
            link: link.clone(),
            fingerprint: 8,
            shapes: vec![],
        };
        let e = share_decode(&serde_json::to_string(&dec).unwrap()).unwrap_err();
        assert!(e.to_string().contains("cannot be opened"), "{e}");
        let dec = ShareDecodeInput {
            fingerprint: 7,
            ..dec
        };
        assert_eq!(
            share_decode(&serde_json::to_string(&dec).unwrap()).unwrap(),
            "[]"
        );
    }
}
