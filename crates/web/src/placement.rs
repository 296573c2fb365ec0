//! Where each movable view is built: here, in the app shell, or by the lab module.
//!
//! A movable view is a pure function of `wildtool-views` from its contract input to an
//! element tree. Placed in the [`Place::Shell`], the page builds it while rendering a
//! frame; placed in the [`Place::Lab`], the page asks the lab module for it as a lab call
//! whenever its input changes and shows the answer (a short loading state until the first
//! one). Moving a view between the two modules is one line here: its code, its input and
//! its behaviour stay the same, and only the app shell's size changes (see
//! `docs/page-modules.md`).

use crate::ui::{el, el_text, Node};

/// Where a movable view is built.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Place {
    /// In the app shell, while the frame is rendered.
    Shell,
    /// In the lab module, as a lab call.
    Lab,
}

/// The dashboard's charts (`wildtool_views::dashboard`).
pub const DASHBOARD_CHARTS: Place = Place::Lab;

/// The history list (`wildtool_views::history`).
pub const HISTORY_LIST: Place = Place::Lab;

/// A lab module's answer as a node: the view it drew, its error, or (until it answers) a
/// loading note `{id}-loading` marked `data-loading`.
pub fn lab_answer(answer: Option<&Result<String, String>>, id: &str, loading: &str) -> Node {
    match answer {
        Some(Ok(json)) => Node::Raw(json.clone()),
        Some(Err(e)) => el_text("p", e.clone())
            .id(format!("{id}-error"))
            .class("verdict error")
            .into(),
        None => el("p")
            .id(format!("{id}-loading"))
            .class("muted")
            .attr("aria-busy", "true")
            .attr("data-loading", "lab")
            .text(loading)
            .into(),
    }
}
