//! The Generate and Sweep views' handlers: the packs fetch, lab calls, a sweep's levels run
//! one after another.

use super::*;
use crate::data::{self, DatasetSource};
use crate::history::meta_key;
use crate::msg::{Effect, FetchPurpose, LabPurpose};
use crate::route::{Route, View};
use crate::run::Phase;
use crate::state::{AppState, Now, PendingDataset, Tone};
use crate::ui::push_json_string;
use serde_json::Value;

impl AppState {
    /// A field of the Generate or Sweep form changed.
    pub fn gen_set(&mut self, name: &str, value: &str) -> Vec<Effect> {
        let g = &mut self.gen;
        match name {
            "gen-seed" => g.form.seed = value.to_owned(),
            "gen-sessions" => g.form.sessions = value.to_owned(),
            "sweep-factor" => g.sweep_form.factor = value.to_owned(),
            "sweep-levels" => g.sweep_form.levels = value.to_owned(),
            "sweep-seed" => g.sweep_form.seed = value.to_owned(),
            "sweep-per-level" => g.sweep_form.per_level = value.to_owned(),
            "sweep-hold" => g.sweep_form.hold = value.to_owned(),
            "gen-factors" => g.form.factors = value.to_owned(),
            // The factor picker: a level added to the factors set, a factor with its levels.
            "gen-add" => {
                let f = &mut g.form.factors;
                if !f.trim().is_empty() {
                    f.push(',');
                }
                f.push_str(value);
            }
            "sweep-pick" => {
                if let Some((factor, levels)) = value.split_once('=') {
                    g.sweep_form.factor = factor.to_owned();
                    g.sweep_form.levels = levels.to_owned();
                }
            }
            _ => {}
        }
        Vec::new()
    }

    /// Generates the suite of the Generate form.
    pub fn generate_from_form(&mut self, now: Now) -> Vec<Effect> {
        let spec = self.gen.form.spec();
        self.generate_dataset(spec, now)
    }

    /// Generates the suite `spec` and loads it as the page's dataset (the Generate view,
    /// `dataset=generate:…`, opening or resuming a stored run of a generated suite).
    pub fn generate_dataset(&mut self, spec: String, now: Now) -> Vec<Effect> {
        self.gen.busy = true;
        self.gen.error = None;
        self.pending_dataset = Some(PendingDataset {
            source: DatasetSource::Generated { spec: spec.clone() },
            lang: "en".into(),
        });
        self.say("Generating the suite…", Tone::Info);
        self.request_generate(spec, LabPurpose::Generate, now)
    }

    /// Asks the lab module for a suite, once the domain packs are here.
    fn request_generate(&mut self, spec: String, purpose: LabPurpose, _now: Now) -> Vec<Effect> {
        let g = &mut self.gen;
        if let Some(packs) = &g.packs {
            // The generate call's input (the lab module's `GenerateInput`; the bundle is
            // its `packs` array, as scripts/build-web.sh writes it).
            let mut input = String::from("{\"spec\":");
            push_json_string(&mut input, &spec);
            input.push_str(",\"packs\":");
            input.push_str(packs);
            input.push('}');
            return vec![Effect::Lab {
                call: GENERATE,
                input,
                purpose,
            }];
        }
        g.waiting.push((spec, purpose));
        if g.waiting.len() > 1 {
            return Vec::new();
        }
        vec![Effect::Fetch(PACKS.into(), FetchPurpose::Packs)]
    }

    /// The domain packs arrived (or could not be fetched).
    pub fn packs_fetched(&mut self, result: Result<String, String>, now: Now) -> Vec<Effect> {
        let waiting = std::mem::take(&mut self.gen.waiting);
        let mut fx = Vec::new();
        match result {
            Ok(text) => {
                self.gen.packs = Some(text);
                for (spec, purpose) in waiting {
                    fx.extend(self.request_generate(spec, purpose, now));
                }
            }
            Err(e) => {
                let why = format!("The domain packs could not be loaded ({PACKS}): {e}");
                for (_, purpose) in waiting {
                    fx.extend(self.gen_answered(purpose, Err(why.clone()), now));
                }
            }
        }
        fx
    }

    /// The lab module answered one of this module's calls.
    pub fn gen_answered(
        &mut self,
        purpose: LabPurpose,
        answer: Result<String, String>,
        now: Now,
    ) -> Vec<Effect> {
        match purpose {
            LabPurpose::Generate => self.suite_arrived(answer, now),
            LabPurpose::SweepPlan => self.sweep_planned(answer, now),
            LabPurpose::SweepLevel => self.sweep_level_generated(answer, now),
            LabPurpose::SweepView => self.sweep_analysed(answer),
            _ => Vec::new(),
        }
    }

    fn suite_arrived(&mut self, answer: Result<String, String>, now: Now) -> Vec<Effect> {
        self.gen.busy = false;
        match answer_json(answer) {
            Ok(v) => {
                let suite = Suite::from_answer(&v);
                if let Some(p) = &mut self.pending_dataset {
                    p.source = DatasetSource::Generated {
                        spec: suite.spec.clone(),
                    };
                }
                let fx = self.dataset_arrived(Ok(suite.text.clone()), now);
                self.gen.suite = Some(suite);
                if self.route.view == View::Generate {
                    self.focus = Some("generated-title".into());
                }
                fx
            }
            Err(e) => {
                self.gen.error = Some(e.clone());
                self.dataset_arrived(Err(e), now)
            }
        }
    }

    /// Runs the generated suite with the Setup model (loading it again if another dataset
    /// was loaded since).
    pub fn generate_run(&mut self, now: Now) -> Vec<Effect> {
        let Some(suite) = &self.gen.suite else {
            return Vec::new();
        };
        if self.dataset.map(|d| d.fingerprint.as_str()) != Some(suite.fingerprint.as_str()) {
            self.dataset = Some(data::load(
                &suite.text,
                DatasetSource::Generated {
                    spec: suite.spec.clone(),
                },
                wildtool_core::dataset::Lang::En,
            ));
        }
        self.start_run(now)
    }

    /// Offers the generated suite as a download.
    pub fn generate_download(&self) -> Vec<Effect> {
        let Some(suite) = &self.gen.suite else {
            return Vec::new();
        };
        vec![Effect::Download {
            name: format!("generated-{}.jsonl", suite.fingerprint),
            mime: "application/jsonl",
            data: suite.text.clone(),
        }]
    }

    // ---- sweeps

    /// Starts a sweep with the Sweep form and the Setup model.
    pub fn sweep_start(&mut self) -> Vec<Effect> {
        if self.gen.sweep.as_ref().is_some_and(|s| s.phase.active())
            || self.run.as_ref().is_some_and(|r| r.phase != Phase::Ended)
        {
            self.say("A run is already in progress.", Tone::Warn);
            return Vec::new();
        }
        let model = if self.setup.model.trim().is_empty() {
            self.setup.provider.clone()
        } else {
            self.setup.model.trim().to_owned()
        };
        let form = self.gen.sweep_form.clone();
        let input = form.to_json();
        self.gen.sweep = Some(SweepRun {
            form,
            model,
            factor: String::new(),
            levels: Vec::new(),
            runs: Vec::new(),
            phase: SweepPhase::Planning,
            result: None,
            env: false,
            env_saved: None,
            before: Before(self.dataset),
            stop: false,
        });
        self.say("Checking the sweep…", Tone::Info);
        vec![Effect::Lab {
            call: SWEEP_PLAN,
            input,
            purpose: LabPurpose::SweepPlan,
        }]
    }

    /// Stops the sweep: the running level is cancelled, what ran is analysed.
    pub fn sweep_stop(&mut self, now: Now) -> Vec<Effect> {
        let Some(sweep) = &mut self.gen.sweep else {
            return Vec::new();
        };
        if !sweep.phase.active() {
            return Vec::new();
        }
        sweep.stop = true;
        match sweep.phase {
            SweepPhase::Running(_) => self.cancel_run(now),
            SweepPhase::Planning => {
                sweep.phase = SweepPhase::Failed("stopped".into());
                Vec::new()
            }
            _ => Vec::new(),
        }
    }

    fn sweep_planned(&mut self, answer: Result<String, String>, now: Now) -> Vec<Effect> {
        let Some(sweep) = &mut self.gen.sweep else {
            return Vec::new();
        };
        match answer_json(answer) {
            Ok(_) if sweep.stop => Vec::new(),
            Ok(v) => {
                sweep.factor = field(&v, "factor");
                sweep.env = v.get("env").and_then(Value::as_bool).unwrap_or(false);
                sweep.levels = v
                    .get("levels")
                    .and_then(Value::as_array)
                    .map(|levels| {
                        levels
                            .iter()
                            .map(|l| PlannedLevel {
                                value: field(l, "value"),
                                spec: field(l, "spec"),
                            })
                            .collect()
                    })
                    .unwrap_or_default();
                sweep.runs = vec![LevelRun::default(); sweep.levels.len()];
                self.sweep_level(0, now)
            }
            Err(e) => {
                sweep.phase = SweepPhase::Failed(e.clone());
                self.say(format!("The sweep cannot start: {e}"), Tone::Error);
                self.focus = Some("status".into());
                Vec::new()
            }
        }
    }

    /// Generates level `i`'s suite (then runs it), or analyses when every level ran.
    fn sweep_level(&mut self, i: usize, now: Now) -> Vec<Effect> {
        let Some(sweep) = &mut self.gen.sweep else {
            return Vec::new();
        };
        let Some(level) = sweep.levels.get(i) else {
            return self.sweep_analyse(None);
        };
        let spec = level.spec.clone();
        let text = format!("Sweep: {} = {}…", sweep.factor, level.value);
        sweep.phase = SweepPhase::Generating(i);
        self.say(text, Tone::Info);
        self.request_generate(spec, LabPurpose::SweepLevel, now)
    }

    fn sweep_level_generated(&mut self, answer: Result<String, String>, now: Now) -> Vec<Effect> {
        let Some(sweep) = &mut self.gen.sweep else {
            return Vec::new();
        };
        let SweepPhase::Generating(i) = sweep.phase else {
            return Vec::new();
        };
        let suite = match answer_json(answer) {
            Ok(v) if !sweep.stop => Suite::from_answer(&v),
            Ok(_) => return self.sweep_analyse(Some("stopped before this level ran".into())),
            Err(e) => return self.sweep_analyse(Some(e)),
        };
        if let Some(r) = sweep.runs.get_mut(i) {
            r.fingerprint = suite.fingerprint.clone();
            if sweep.env {
                r.env = Some(crate::env::EnvLevel {
                    dataset: suite.text.clone(),
                    result: String::new(),
                });
            }
        }
        if sweep.env {
            let mut saved = sweep.env_saved.take();
            self.env_sweep_choose(&mut saved);
            if let Some(sweep) = &mut self.gen.sweep {
                sweep.env_saved = saved;
            }
        }
        let d = data::load(
            &suite.text,
            DatasetSource::Generated {
                spec: suite.spec.clone(),
            },
            wildtool_core::dataset::Lang::En,
        );
        self.dataset = Some(d);
        let route = self.route.clone();
        let mut fx = self.start_run(now);
        let started = self
            .run
            .as_ref()
            .filter(|r| r.phase != Phase::Ended)
            .map(|r| r.id.clone());
        // The page stays on the Sweep view while the levels run.
        self.stay_on(route, &mut fx);
        if started.is_none() && self.run_start_pending() {
            // A module the run needs (the scorer, the ledger environment) is loading;
            // the run starts once it has.
            if let Some(sweep) = &mut self.gen.sweep {
                sweep.phase = SweepPhase::Running(i);
            }
            return fx;
        }
        let Some(id) = started else {
            fx.extend(self.sweep_not_started());
            return fx;
        };
        if let Some(sweep) = &mut self.gen.sweep {
            sweep.phase = SweepPhase::Running(i);
            if let Some(r) = sweep.runs.get_mut(i) {
                r.run = Some(id);
            }
        }

        fx
    }

    /// A level's run did not start: what ran is analysed, with the status line's reason.
    fn sweep_not_started(&mut self) -> Vec<Effect> {
        let why = self
            .status
            .as_ref()
            .map(|s| s.text.clone())
            .unwrap_or_else(|| "the run could not start".into());
        self.sweep_analyse(Some(why))
    }

    /// Back to `route` if a run's start or end moved the page (without its address change).
    fn stay_on(&mut self, route: Route, fx: &mut Vec<Effect>) {
        if self.route.view != route.view {
            self.route = route;
            if let Some(i) = fx.iter().position(|e| matches!(e, Effect::PushUrl(_))) {
                fx.remove(i);
            }
            self.focus = None;
        }
    }

    /// After every message: when the running level's run is over, keep its outcomes,
    /// name its history entry after the level, stay on the Sweep view and go on with the
    /// next level (or stop, or analyse).
    pub fn sweep_after(&mut self, before: Route, fx: &mut Vec<Effect>, now: Now) {
        let Some(sweep) = &self.gen.sweep else {
            return;
        };
        let SweepPhase::Running(i) = sweep.phase else {
            return;
        };
        let Some(id) = sweep.runs.get(i).and_then(|r| r.run.clone()) else {
            // A level whose run waits for a module to load (the scorer, the ledger
            // environment).
            if self.run_start_pending() {
                return;
            }
            let earlier: Vec<Option<String>> = sweep.runs.iter().map(|r| r.run.clone()).collect();
            match self
                .run
                .as_ref()
                .filter(|r| !earlier.contains(&Some(r.id.clone())))
            {
                Some(run) => {
                    let id = run.id.clone();
                    if let Some(r) = self.gen.sweep.as_mut().and_then(|s| s.runs.get_mut(i)) {
                        r.run = Some(id);
                    }
                    // Its start moved the page to the run view: stay on the Sweep view.
                    if before.view == View::Sweep {
                        self.stay_on(before.clone(), fx);
                    }
                    return self.sweep_after(before, fx, now);
                }
                None => {
                    fx.extend(self.sweep_not_started());
                    return;
                }
            }
        };
        let Some(run) = self.run.as_ref().filter(|r| r.id == id) else {
            return;
        };
        if run.phase != Phase::Ended {
            return;
        }
        let outcome = run
            .end
            .as_ref()
            .map(|e| e.outcome.clone())
            .unwrap_or_else(|| "done".into());
        let reason = run.end.as_ref().and_then(|e| e.reason.clone());
        let (outcomes, accuracy) = match self.shown.as_ref().filter(|s| s.id == id) {
            Some(s) => (s.outcomes.clone(), s.headline.task_accuracy.clone()),
            None => (Vec::new(), None),
        };
        let env_result = self.env_level_result(&id);
        // The run's end moved the page to its dashboard: come back.
        if before.view == View::Sweep {
            self.stay_on(before, fx);
        }
        let Some(sweep) = &mut self.gen.sweep else {
            return;
        };
        let label = format!(
            "{} · {} = {}",
            sweep.model,
            sweep.factor,
            sweep.levels.get(i).map(|l| l.value.as_str()).unwrap_or("")
        );
        let mut scored = outcomes.iter().any(|o| !o.incomplete);
        if let Some(r) = sweep.runs.get_mut(i) {
            r.outcomes = outcomes;
            r.outcome = Some(outcome.clone());
            r.accuracy = accuracy;
            if let (Some(level), Some((result, shown))) = (r.env.as_mut(), env_result) {
                level.result = result;
                r.accuracy = shown;
                scored = true;
            }
        }
        let stop = sweep.stop;
        if let Some(mut entry) = self.history.get(&id).cloned() {
            entry.label = label;
            fx.push(Effect::KvPut(vec![(
                meta_key(&id),
                serde_json::to_string(&entry).unwrap_or_default(),
            )]));
            self.history.put(entry);
        }
        let stopped = if stop || outcome == "cancelled" {
            Some("the sweep was stopped".to_owned())
        } else if outcome == "failed" && !scored {
            Some(reason.unwrap_or_else(|| "the level's run failed".into()))
        } else {
            None
        };
        match stopped {
            Some(why) => fx.extend(self.sweep_analyse(Some(why))),
            None => fx.extend(self.sweep_level(i + 1, now)),
        }
    }

    /// Asks the lab module for the analysis of what ran (`stopped`: why the sweep ended
    /// early).
    fn sweep_analyse(&mut self, stopped: Option<String>) -> Vec<Effect> {
        let width = if self.layout.min_font > 0.0 {
            self.layout.width
        } else {
            0.0
        };
        let mut saved = self.gen.sweep.as_mut().and_then(|s| s.env_saved.take());
        self.env_sweep_restore(&mut saved);
        let Some(sweep) = &mut self.gen.sweep else {
            return Vec::new();
        };
        // The levels' suites were loaded one after another: the one before comes back.
        if let Some(d) = sweep.before.0.take() {
            self.dataset = Some(d);
        }
        if let Some(why) = &stopped {
            self.status = Some(crate::state::Status {
                text: format!("The sweep stopped: {why}."),
                tone: Tone::Warn,
            });
        }
        if sweep
            .runs
            .iter()
            .all(|r| r.outcomes.is_empty() && r.env.as_ref().is_none_or(|e| e.result.is_empty()))
        {
            let why = stopped.unwrap_or_else(|| "no level ran".into());
            sweep.phase = SweepPhase::Failed(why);
            self.focus = Some("sweep-title".into());
            return Vec::new();
        }
        sweep.phase = match stopped {
            Some(why) => SweepPhase::Stopped(why),
            None => SweepPhase::Analysing,
        };
        // The view call's input (the lab module's `ViewInput`).
        let mut input = format!("{{\"plan\":{},\"model\":", sweep.form.to_json());
        push_json_string(&mut input, &sweep.model);
        input.push_str(",\"levels\":[");
        for (i, r) in sweep.runs.iter().enumerate() {
            if i > 0 {
                input.push(',');
            }
            input.push_str("{\"fingerprint\":");
            push_json_string(&mut input, &r.fingerprint);
            input.push_str(",\"outcomes\":");
            input.push_str(&serde_json::to_string(&r.outcomes).unwrap_or_else(|_| "[]".into()));
            // A ledger level that ran: its dataset and env-result.jsonl.
            if let Some(e) = r.env.as_ref().filter(|e| !e.result.is_empty()) {
                input.push_str(",\"env\":{\"dataset\":");
                push_json_string(&mut input, &e.dataset);
                input.push_str(",\"result\":");
                push_json_string(&mut input, &e.result);
                input.push('}');
            }
            input.push('}');
        }
        input.push_str(&format!("],\"width\":{width}}}"));
        vec![Effect::Lab {
            call: SWEEP_VIEW,
            input,
            purpose: LabPurpose::SweepView,
        }]
    }

    fn sweep_analysed(&mut self, answer: Result<String, String>) -> Vec<Effect> {
        let Some(sweep) = &mut self.gen.sweep else {
            return Vec::new();
        };
        match answer_json(answer) {
            Ok(v) => {
                sweep.result = Some(SweepResult {
                    doc: field(&v, "doc"),
                    html: field(&v, "html"),
                    view: field(&v, "view"),
                });
                if sweep.phase == SweepPhase::Analysing {
                    sweep.phase = SweepPhase::Done;
                    let loaded = self.dataset.map(|d| d.source.display());
                    self.status = Some(crate::state::Status {
                        text: format!(
                            "Sweep finished. Loaded again: {}.",
                            loaded.as_deref().unwrap_or("no dataset")
                        ),
                        tone: Tone::Ok,
                    });
                }
                let fx = self.keep_sweep();
                self.focus = Some("sweep-title".into());
                return fx;
            }
            Err(e) => {
                sweep.phase = SweepPhase::Failed(e.clone());
                self.say(format!("The sweep could not be analysed: {e}"), Tone::Error);
            }
        }
        self.focus = Some("sweep-title".into());
        Vec::new()
    }

    /// Offers the sweep's `sweep.json` or `sweep.html`.
    pub fn sweep_download(&self, what: &str) -> Vec<Effect> {
        let Some(r) = self.gen.sweep.as_ref().and_then(|s| s.result.as_ref()) else {
            return Vec::new();
        };
        let (name, mime, data) = match what {
            "html" => ("sweep.html", "text/html", r.html.clone()),
            _ => ("sweep.json", "application/json", r.doc.clone()),
        };
        vec![Effect::Download {
            name: name.into(),
            mime,
            data,
        }]
    }
}
