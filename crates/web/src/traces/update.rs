//! The traces view's handlers: filters, sort, opened sessions and steps, deep links.

use super::*;
use crate::msg::{Effect, LabPurpose};
use crate::route::View;
use crate::state::AppState;
use wildtool_core::outcome::ErrorColumn;
use wildtool_core::trace::step_text;

impl AppState {
    /// Opens or closes a task's trace (`session:task`); the address names the open task.
    pub fn trace_task(&mut self, key: &str, open: bool) -> Vec<Effect> {
        let Some(&[s, t]) = parse_key(key).as_deref() else {
            return Vec::new();
        };
        let (Ok(s32), Ok(t8)) = (u32::try_from(s), u8::try_from(t)) else {
            return Vec::new();
        };
        let k = (s32, t8);
        // The browser reports a disclosure the page itself opened or closed too: nothing
        // changes then (the address keeps its step).
        if self.traces.open_tasks.contains(&k) == open {
            return Vec::new();
        }
        self.traces.open_tasks.retain(|x| *x != k);
        if open {
            self.traces.open_tasks.push(k);
        }
        if self.route.view != View::Traces {
            return Vec::new();
        }
        if open {
            self.route.session = Some(s);
            self.route.task = Some(t);
            self.route.step = None;
        } else if self.route.session == Some(s) && self.route.task == Some(t) {
            self.route.session = None;
            self.route.task = None;
            self.route.step = None;
        }
        vec![Effect::ReplaceUrl(self.address())]
    }

    /// Opens or closes a step (`session:task:step`); the address names the open step.
    pub fn trace_step(&mut self, key: &str, open: bool) -> Vec<Effect> {
        let Some(&[s, t, k]) = parse_key(key).as_deref() else {
            return Vec::new();
        };
        let (Ok(s32), Ok(t8)) = (u32::try_from(s), u8::try_from(t)) else {
            return Vec::new();
        };
        if self.traces.open_steps.contains(&(s32, t8, k)) == open {
            return Vec::new();
        }
        self.traces.toggle_step((s32, t8, k), open);
        let mut fx = if open {
            self.read_step(s32, t8, k)
        } else {
            Vec::new()
        };
        if self.route.view != View::Traces {
            return fx;
        }
        let here = self.route.session == Some(s) && self.route.task == Some(t);
        if open {
            self.route.session = Some(s);
            self.route.task = Some(t);
            self.route.step = Some(k);
        } else if here && self.route.step == Some(k) {
            self.route.step = None;
        } else {
            return fx;
        }
        fx.push(Effect::ReplaceUrl(self.address()));
        fx
    }

    /// The traces are shown: asks the lab module (once per run) for the search texts of
    /// the shown run's tasks.
    pub fn search_refresh(&mut self) -> Vec<Effect> {
        if self.route.view != View::Traces {
            return Vec::new();
        }
        let Some(shown) = &mut self.shown else {
            return Vec::new();
        };
        if run_digests(shown).is_none_or(|d| d.asked) {
            return Vec::new();
        }
        let hash = run_hash(&shown.id);
        let Some(scored) = shown.scored.as_mut() else {
            return Vec::new();
        };
        let mut input = String::new();
        for (session, line) in scored.lines() {
            input.push_str(&format!("{session}\t{line}\n"));
        }
        if let Some(d) = scored.digests.get_mut() {
            d.asked = true;
        }
        self.lab_call(SEARCH_TEXTS, input, LabPurpose::SearchTexts(hash))
    }

    /// The lab module answered: search texts of the shown run are kept with its digests.
    pub fn search_texts_arrived(&mut self, purpose: LabPurpose) {
        let LabPurpose::SearchTexts(hash) = purpose else {
            return;
        };
        let Some(Ok(records)) = self.lab.answer(purpose).cloned() else {
            return;
        };
        self.lab.clear(purpose);
        if let Some(shown) = self.shown.as_mut().filter(|s| run_hash(&s.id) == hash) {
            if let Some(d) = shown.scored.as_mut().and_then(|s| s.digests.get_mut()) {
                d.set_texts(&records);
            }
        }
    }

    /// The glossary was unfolded: asks the lab module for it (once).
    pub fn read_glossary(&mut self) -> Vec<Effect> {
        let p = LabPurpose::Glossary;
        if self.lab.busy(p) || matches!(self.lab.answer(p), Some(Ok(_))) {
            return Vec::new();
        }
        self.lab_call(GLOSSARY_VIEW, "{}".to_owned(), p)
    }

    /// Asks the lab module to render an opened step of the shown run (when its score
    /// files are there; [`AppState::trace_lines_arrived`] asks again once they are).
    fn read_step(&mut self, s: u32, t: u8, k: usize) -> Vec<Effect> {
        let text = self
            .shown
            .as_ref()
            .and_then(|r| r.scored.as_ref())
            .and_then(|sc| sc.line_of(s as usize))
            .and_then(|line| step_text(line, usize::from(t), k));
        let Ok(k) = u16::try_from(k) else {
            return Vec::new();
        };
        // An answer kept from another run (or an earlier reading) is not shown meanwhile.
        self.lab.clear(LabPurpose::TraceStep(s, t, k));
        match text {
            Some(text) => {
                let input = format!(
                    "{{\"step\":{}}}",
                    serde_json::to_string(&text).unwrap_or_default()
                );
                self.lab_call(TRACE_STEP, input, LabPurpose::TraceStep(s, t, k))
            }
            None => Vec::new(),
        }
    }

    /// Opens the traces of the shown run filtered to one error class (a column title of
    /// the error-taxonomy chart), from the dashboard.
    pub fn trace_class(&mut self, class: &str) -> Vec<Effect> {
        let Some(column) = ErrorColumn::parse(class) else {
            return Vec::new();
        };
        let open_tasks = std::mem::take(&mut self.traces.open_tasks);
        let open_steps = std::mem::take(&mut self.traces.open_steps);
        self.traces = TraceUi {
            error: column.as_str().to_owned(),
            open_tasks,
            open_steps,
            ..TraceUi::default()
        };
        let fx = self.go_view(View::Traces);
        self.focus = Some("traces-title".into());
        fx
    }

    /// Opens the task and step the address names (deep links, Back and Forward): filters
    /// that would hide the task are lifted (the view shows it after the first rows when it
    /// is further down), and it (or its step, once the run's score files are there) takes
    /// the focus, which scrolls to it.
    pub fn open_route_trace(&mut self) -> Vec<Effect> {
        let (Some(s), Some(t)) = (self.route.session, self.route.task) else {
            return Vec::new();
        };
        let (Ok(s), Ok(t)) = (u32::try_from(s), u8::try_from(t)) else {
            return Vec::new();
        };
        let Some(shown) = &self.shown else {
            return Vec::new();
        };
        let Some(hidden) = shown
            .outcomes
            .iter()
            .find(|o| o.session == s && o.position == t)
            .map(|o| !self.traces.matches(o) || !self.traces.search.trim().is_empty())
        else {
            return Vec::new();
        };
        let has_lines = shown.scored.is_some();
        if hidden {
            let ui = std::mem::take(&mut self.traces);
            self.traces = TraceUi {
                sort: ui.sort,
                open_tasks: ui.open_tasks,
                open_steps: ui.open_steps,
                ..TraceUi::default()
            };
        }
        if !self.traces.open_tasks.contains(&(s, t)) {
            self.traces.open_tasks.push((s, t));
        }
        let Some(k) = self.route.step else {
            self.focus = Some(task_anchor(s, t));
            return Vec::new();
        };
        let newly = !self.traces.open_steps.contains(&(s, t, k));
        self.traces.toggle_step((s, t, k), true);
        if !has_lines {
            self.focus = Some(task_anchor(s, t));
            return Vec::new();
        }
        self.focus = Some(step_anchor(s, t, k));
        if newly
            || self
                .lab
                .answer(LabPurpose::TraceStep(s, t, k as u16))
                .is_none()
        {
            self.read_step(s, t, k)
        } else {
            Vec::new()
        }
    }

    /// The shown run's score files arrived: steps already open are read now, and a step
    /// named by the address takes the focus.
    pub fn trace_lines_arrived(&mut self) -> Vec<Effect> {
        let mut fx = Vec::new();
        for (s, t, k) in self.traces.open_steps.clone() {
            fx.extend(self.read_step(s, t, k));
        }
        if self.route.view == View::Traces && self.route.step.is_some() {
            if let (Some(s), Some(t), Some(k)) =
                (self.route.session, self.route.task, self.route.step)
            {
                if let (Ok(s), Ok(t)) = (u32::try_from(s), u8::try_from(t)) {
                    self.focus = Some(step_anchor(s, t, k));
                }
            }
        }
        fx
    }
}
