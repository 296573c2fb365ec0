//! Opening share links (`#v1.…`): the header says which dataset the link needs; the
//! outcomes are decoded against the loaded dataset and shown like any run (and kept in
//! the history, once per link).

use wildtool_core::share;

use crate::msg::Effect;
use crate::route::View;
use crate::shown::{RunKind, ShownRun};
use crate::state::{AppState, Now, Tone};

/// A stable id for the run a link carries (opening the same link twice keeps one entry).
pub fn link_id(link: &str) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in link.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    format!("link-{h:016x}")
}

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
        match share::decode(link, dataset.fingerprint_u64(), &dataset.shapes) {
            Ok(run) => {
                self.boot.link = None;
                let shown = ShownRun::new(
                    crate::shown::RunIdent {
                        id: link_id(link),
                        label: run.header.model_label.clone(),
                        model: run.header.model_label.clone(),
                        kind: RunKind::Link,
                    },
                    dataset,
                    &run.outcomes,
                    None,
                    None,
                );
                self.flags.share = Some("opened");
                self.say(
                    format!(
                        "Loaded from a share link: {}, {} (scorer {}).",
                        run.header.model_label, shown.headline.scored, run.header.scorer_version
                    ),
                    Tone::Ok,
                );
                let mut fx = self.keep_in_history(&shown, false);
                fx.extend(self.show(shown));
                fx
            }
            Err(e) => {
                self.boot.link = None;
                self.flags.share = Some("error");
                self.say(
                    format!("This share link cannot be opened: {e}"),
                    Tone::Error,
                );
                Vec::new()
            }
        }
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
