//! Opening share links (`#v1.…`): the header says which dataset the link needs; the
//! outcomes are decoded against the loaded dataset and shown like any run (and kept in
//! the history, once per link).

use wildtool_contract::inputs::ShareDecodeInput;
use wildtool_contract::Call;
use wildtool_core::share;

use crate::dashboard::{link_id, RunKind, ShownRun};
use crate::msg::{Effect, LabPurpose};
use crate::route::View;
use crate::state::{AppState, Now, Tone};

impl AppState {
    /// A link (`what`) made on the dataset of `fingerprint`, which is not the one loaded:
    /// says so and opens Setup (the link opens once that dataset is loaded).
    pub(crate) fn ask_for_dataset(&mut self, what: String, fingerprint: &str) -> Vec<Effect> {
        self.flags.share = Some("needs-dataset");
        self.say(
            format!("This {what} was made on another dataset (fingerprint {fingerprint}). Load that dataset in Setup (upload or URL) to open it."),
            Tone::Warn,
        );
        self.go_view(View::Setup)
    }

    /// Opens link text `link` (the fragment without `#`).
    pub fn open_link(&mut self, link: &str, _now: Now) -> Vec<Effect> {
        if link.starts_with("e1.") {
            return self.env_open_link(link);
        }
        if share::pair::link_kind(link) == Ok(share::pair::LinkKind::Comparison) {
            return self.open_pair_link(link);
        }
        let header = match share::read_header(link) {
            Ok(h) => h,
            Err(e) => {
                self.boot.link = None;
                self.flags.share = Some("error");
                self.say(
                    format!("This share link cannot be opened: {e}"),
                    Tone::Error,
                );
                return Vec::new();
            }
        };
        let fingerprint = format!("{:016x}", header.dataset_fingerprint);
        let Some(dataset) = self.dataset.filter(|d| d.fingerprint == fingerprint) else {
            if self.pending_dataset.is_some() {
                return Vec::new();
            }
            return self.ask_for_dataset(
                format!(
                    "share link ({}, {} tasks)",
                    header.model_label, header.task_count
                ),
                &fingerprint,
            );
        };
        // The outcomes are read by the lab module (the core's `share::decode`).
        if self.lab.link_opening.as_deref() == Some(link) {
            return Vec::new();
        }
        self.lab.link_opening = Some(link.to_owned());
        let input = ShareDecodeInput {
            link: link.to_owned(),
            fingerprint: dataset.fingerprint_u64(),
            shapes: dataset.shapes.to_vec(),
        };
        let text = serde_json::to_string(&input).unwrap_or_default();
        self.lab_call(Call::ShareDecode, text, LabPurpose::ShareDecode)
    }

    /// The lab module read (or refused) the outcomes of the link being opened.
    pub fn link_decoded(&mut self, answer: Result<String, String>) -> Vec<Effect> {
        let Some(answer) = self.lab.settle(LabPurpose::ShareDecode, answer) else {
            return Vec::new();
        };
        let Some(link) = self.lab.link_opening.take() else {
            return Vec::new();
        };
        self.boot.link = None;
        let header = share::read_header(&link);
        let outcomes = answer.and_then(|json| {
            wildtool_core::outcome::outcomes_from_json(&json)
                .ok_or_else(|| "This share link cannot be opened.".to_owned())
        });
        let (Some(dataset), Ok(header), Ok(outcomes)) = (self.dataset, header, outcomes.clone())
        else {
            self.flags.share = Some("error");
            if let Err(e) = outcomes {
                self.say(e, Tone::Error);
            }
            return Vec::new();
        };
        let mut shown = ShownRun::new(
            crate::dashboard::RunIdent {
                id: link_id(&link),
                label: header.model_label.clone(),
                model: header.model_label.clone(),
                kind: RunKind::Link,
            },
            dataset,
            &outcomes,
            None,
            None,
        );
        if shown.share.is_none() {
            shown.share = Some(Ok(link.clone()));
        }
        self.flags.share = Some("opened");
        self.say(
            format!(
                "Loaded from a share link: {}, {} (scorer {}).",
                header.model_label, shown.headline.scored, header.scorer_version
            ),
            Tone::Ok,
        );
        let mut fx = self.keep_in_history(&shown, false);
        fx.extend(self.show(shown));
        fx
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn link_ids_are_stable_and_distinct() {
        assert_eq!(link_id("v1.abc"), link_id("v1.abc"));
        assert_ne!(link_id("v1.abc"), link_id("v1.abd"));
        assert!(link_id("x").starts_with("link-"));
    }
}
