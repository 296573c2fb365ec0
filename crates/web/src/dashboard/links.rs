//! Opening share links (`#v1.…`): the header (read by the lab module) says which dataset the link needs; the
//! outcomes are decoded against the loaded dataset and shown like any run (and kept in
//! the history, once per link).

use wildtool_contract::inputs::{LinkHeader, ShareDecodeInput};
use wildtool_contract::Call;

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

    /// Opens link text `link` (the fragment without `#`): its header is read by the lab
    /// module (the core's `share`), then [`AppState::link_header_arrived`] opens it.
    pub fn open_link(&mut self, link: &str, _now: Now) -> Vec<Effect> {
        if link.starts_with("e1.") {
            return self.env_open_link(link);
        }
        if self.lab.link_heading.as_deref() == Some(link) {
            return Vec::new();
        }
        self.lab.link_heading = Some(link.to_owned());
        let text = serde_json::to_string(link).unwrap_or_default();
        self.lab_call(Call::LinkHeader, text, LabPurpose::LinkHeader)
    }

    /// The lab module read (or refused) the header of the link being opened.
    pub fn link_header_arrived(&mut self, answer: Result<String, String>) -> Vec<Effect> {
        let Some(answer) = self.lab.settle(LabPurpose::LinkHeader, answer) else {
            return Vec::new();
        };
        let Some(link) = self.lab.link_heading.take() else {
            return Vec::new();
        };
        let header = answer.and_then(|json| {
            serde_json::from_str::<LinkHeader>(&json).map_err(|_| {
                "This share link cannot be opened: the lab module's answer is unreadable."
                    .to_owned()
            })
        });
        match header {
            Err(e) => {
                self.boot.link = None;
                self.flags.share = Some("error");
                self.say(e, Tone::Error);
                Vec::new()
            }
            Ok(h) if h.pair => self.open_pair_link(&link, &h),
            Ok(h) => self.open_run_link(&link, h),
        }
    }

    /// Opens one run's share link whose header is `header`.
    fn open_run_link(&mut self, link: &str, header: LinkHeader) -> Vec<Effect> {
        let fingerprint = format!("{:016x}", header.fingerprint);
        let Some(dataset) = self.dataset.filter(|d| d.fingerprint == fingerprint) else {
            if self.pending_dataset.is_some() {
                return Vec::new();
            }
            return self.ask_for_dataset(
                format!("share link ({}, {} tasks)", header.label, header.task_count),
                &fingerprint,
            );
        };
        // The outcomes are read by the lab module (the core's `share::decode`).
        if self
            .lab
            .link_opening
            .as_ref()
            .is_some_and(|(l, _)| l == link)
        {
            return Vec::new();
        }
        self.lab.link_opening = Some((link.to_owned(), header));
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
        let Some((link, header)) = self.lab.link_opening.take() else {
            return Vec::new();
        };
        self.boot.link = None;
        let outcomes = answer.and_then(|json| {
            wildtool_core::outcome::outcomes_from_json(&json)
                .ok_or_else(|| "This share link cannot be opened.".to_owned())
        });
        let (Some(dataset), Ok(outcomes)) = (self.dataset, outcomes.clone()) else {
            self.flags.share = Some("error");
            if let Err(e) = outcomes {
                self.say(e, Tone::Error);
            }
            return Vec::new();
        };
        let mut shown = ShownRun::new(
            crate::dashboard::RunIdent {
                id: link_id(&link),
                label: header.label.clone(),
                model: header.label.clone(),
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
                header.label, shown.headline.scored, header.scorer_version
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
