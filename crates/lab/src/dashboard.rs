//! The dashboard's parts the app shell asks for: its charts (the movable view
//! `wildtool_views::dashboard`), a chart as a file, and the run's share link (made and
//! read with the core's `share`).

use wildtool_contract::inputs::{
    ChartFileInput, ChartsInput, LinkHeader, ShareDecodeInput, ShareEncodeInput,
};
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

/// What a share link (`v1.…`) or comparison link (`v2.…`) says before its dataset is
/// loaded; a damaged link is refused with the message the page shows.
pub fn link_header(input: &str) -> Result<String, LabError> {
    let link: String = read(input)?;
    let header = if share::pair::link_kind(&link) == Ok(share::pair::LinkKind::Comparison) {
        let h = share::pair::read_pair_header(&link).map_err(|e| {
            LabError::Message(format!("This comparison link cannot be opened: {e}"))
        })?;
        LinkHeader {
            pair: true,
            scorer_version: h.scorer_version,
            label: h.label_a,
            label_b: h.label_b,
            fingerprint: h.dataset_fingerprint,
            task_count: h.task_count,
        }
    } else {
        let h = share::read_header(&link)
            .map_err(|e| LabError::Message(format!("This share link cannot be opened: {e}")))?;
        LinkHeader {
            pair: false,
            scorer_version: h.scorer_version,
            label: h.model_label,
            label_b: String::new(),
            fingerprint: h.dataset_fingerprint,
            task_count: h.task_count,
        }
    };
    serde_json::to_string(&header).map_err(|e| LabError::Input(e.to_string()))
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
        let h: LinkHeader =
            serde_json::from_str(&link_header(&serde_json::to_string(&link).unwrap()).unwrap())
                .unwrap();
        assert!(!h.pair);
        assert_eq!((h.label.as_str(), h.fingerprint, h.task_count), ("m", 7, 0));
        let e = link_header("\"v1.!!\"").unwrap_err();
        assert!(
            e.to_string()
                .starts_with("This share link cannot be opened: "),
            "{e}"
        );
        let e = link_header("\"v2.!!\"").unwrap_err();
        assert!(
            e.to_string()
                .starts_with("This comparison link cannot be opened: "),
            "{e}"
        );
    }
}
