//! A stored run scored again in the background for traces and exports (its handlers).

use super::*;

impl crate::state::AppState {
    /// Starts re-scoring `text` (the result file of history entry `id`).
    pub fn rescore_start(
        &mut self,
        id: &str,
        model: Option<String>,
        text: String,
        records: Option<Vec<String>>,
        now: crate::state::Now,
    ) -> Vec<crate::msg::Effect> {
        let Some(dataset) = self.dataset else {
            return Vec::new();
        };
        let mut job = ScoreJob::new(dataset);
        for (i, line) in text.lines().enumerate() {
            job.push(i + 1, line.to_owned());
        }
        self.rescore = Some(Rescore {
            id: id.to_owned(),
            job,
            model,
            text,
            records,
        });
        self.rescore_continue(now)
    }

    /// Scores the next slice of the background job.
    pub fn rescore_continue(&mut self, _now: crate::state::Now) -> Vec<crate::msg::Effect> {
        use crate::msg::Effect;
        let Some(r) = &mut self.rescore else {
            return Vec::new();
        };
        let mut fx = Vec::new();
        match r.job.run(64) {
            JobStep::NeedsJieba => {
                let text = r.job.next_text().unwrap_or("").to_owned();
                self.needs_jieba(&text, &mut fx);
                return fx;
            }
            JobStep::More => {
                fx.push(Effect::ContinueSoon);
                return fx;
            }
            JobStep::Idle => {}
        }
        let Some(r) = self.rescore.take() else {
            return fx;
        };
        let mut scored = r.job.finish(r.model.as_deref());
        scored.result_text = Some(r.text);
        scored.records = r.records;
        if let Some(s) = &mut self.shown {
            if s.id == r.id {
                s.scored = Some(scored);
                fx.extend(self.trace_lines_arrived());
            }
        }
        if self.history.export_when_open.as_deref() == Some(r.id.as_str()) {
            self.history.export_when_open = None;
            fx.extend(self.export("run"));
        }
        fx
    }
}
