//! Traces side by side: the address names a second run (`vs=`) beside the shown one
//! (`run=`) and a task; the traces view then shows both runs' traces of that task in two
//! columns. The second run is read from the history like the shown run is (its outcomes,
//! then its checkpoint lines or result text, scored again for its score lines); a run this
//! browser has no records of, or one made on another dataset, says so in its column. The columns are rendered by the lab
//! module (`trace_pair`) from each run's score line of the session.

mod update;

use std::borrow::Cow;

use wildtool_contract::inputs::{PairColumn, PairInput};
use wildtool_core::outcome::TaskOutcome;

use crate::scoring::{ScoreJob, Scored};
use crate::traces::{error_class, verdict};

/// The lab module's call that renders traces side by side.
pub const TRACE_PAIR: wildtool_contract::Call = wildtool_contract::Call::TracePair;

/// The second run of traces side by side, as read from the history.
#[derive(Default)]
pub struct VsRun {
    /// History id (the address's `vs=`).
    pub id: String,
    /// Its outcomes, once read.
    pub outcomes: Option<Vec<TaskOutcome>>,
    /// Its score files, once scored.
    pub scored: Option<Scored>,
    /// Scoring its records (and the model name to score them under).
    job: Option<(ScoreJob, Option<String>)>,
    /// Nothing more will be read: no record of it in this browser, or no trace stored.
    pub done: bool,
    /// Why its column shows nothing of it, when that is not the lack of a trace.
    pub note: Option<String>,
    /// What the lab module was last asked to render.
    key: Option<String>,
    /// A column of that rendering was still being read (its trace not final yet).
    pub reading: bool,
}

fn column<'a>(
    id: &'a str,
    label: &'a str,
    outcomes: Option<&[TaskOutcome]>,
    scored: Option<&'a Scored>,
    reading: bool,
    (s, t): (usize, usize),
) -> PairColumn<'a> {
    let o = outcomes.and_then(|os| {
        os.iter()
            .find(|o| o.session as usize == s && usize::from(o.position) == t)
    });
    let line = scored.and_then(|sc| sc.line_of(s));
    let note = if reading {
        "Reading the trace…".to_owned()
    } else {
        format!("No trace recorded in this browser for run {id}.")
    };
    PairColumn {
        label: Cow::Borrowed(if label.is_empty() { id } else { label }),
        verdict: Cow::Borrowed(o.map_or("", verdict)),
        class: Cow::Borrowed(o.and_then(error_class).map_or("", |c| c.as_str())),
        line: line.map(Cow::Borrowed),
        note: Cow::Owned(note),
    }
}
