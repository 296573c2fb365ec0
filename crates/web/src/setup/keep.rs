//! What a reload keeps of the set-up: the Setup form's settings (never the key, which
//! follows its own rule, `settings::RememberedKey`) and where the loaded dataset came
//! from, in the key-value store under [`SETUP_KEY`]. An address that names settings or a
//! dataset wins over what was kept (automation links stay exact).

use serde_json::Value;

use crate::data::DatasetSource;
use crate::field::Field;
use crate::generate::{field, json_object, SweepForm, SweepResult, SweepRun};
use crate::msg::{Effect, GetPurpose};
use crate::state::{AppState, Now, Tone};

/// The key-value store's key of the kept set-up.
pub const SETUP_KEY: &str = "setup";

/// The settings a reload keeps (not the key, not "remember the key").
const KEPT: [Field; 13] = [
    Field::Preset,
    Field::Provider,
    Field::BaseUrl,
    Field::Model,
    Field::Temperature,
    Field::Concurrency,
    Field::Timeout,
    Field::Retries,
    Field::Backoff,
    Field::Preflight,
    Field::Trials,
    Field::Stream,
    Field::Lang,
];

/// The query parameters that, in an address, decide the set-up instead.
pub const ADDRESSED: [&str; 14] = [
    "provider",
    "base_url",
    "model",
    "concurrency",
    "temperature",
    "timeout",
    "retries",
    "backoff",
    "trials",
    "preflight",
    "stream",
    "lang",
    "dataset",
    "results",
];

impl AppState {
    /// Stores the set-up as it is now (after a setting changed or a dataset loaded).
    pub fn keep_setup(&self) -> Vec<Effect> {
        // Written as text (the page's module carries no JSON value serializer for this).
        let mut out = String::from("{");
        for f in KEPT {
            out.push_str(&serde_json::to_string(f.name()).unwrap_or_default());
            out.push(':');
            out.push_str(&serde_json::to_string(&self.setup.value(f)).unwrap_or_default());
            out.push(',');
        }
        out.push_str("\"dataset\":");
        match self.dataset {
            Some(d) => out.push_str(&serde_json::to_string(&d.source).unwrap_or_default()),
            None => out.push_str("null"),
        }
        out.push('}');
        vec![Effect::KvPut(vec![(SETUP_KEY.into(), out)])]
    }

    /// The effect that reads the kept set-up at start (the dataset is loaded once it
    /// arrived, from where it was kept or the bundled suite).
    pub fn read_kept_setup() -> Effect {
        Effect::KvGet(SETUP_KEY.into(), GetPurpose::Setup)
    }

    /// The kept set-up arrived at start: the settings come back, then the dataset.
    pub fn kept_setup_arrived(&mut self, stored: Option<String>, now: Now) -> Vec<Effect> {
        let v: Value = stored
            .and_then(|s| serde_json::from_str(&s).ok())
            .unwrap_or(Value::Null);
        for f in KEPT {
            if let Some(x) = v.get(f.name()).and_then(Value::as_str) {
                let _ = self.setup.set(f, x);
            }
        }
        self.setup.sync_remembered();
        let mut fx = self.list_models();
        match v.get("dataset").and_then(DatasetSource::from_value) {
            Some(DatasetSource::Generated { spec }) => fx.extend(self.generate_dataset(spec, now)),
            Some(source @ DatasetSource::Url { .. }) => {
                if let Some(url) = source.url() {
                    self.setup.dataset = crate::setup::DatasetChoice::Url;
                    self.setup.dataset_url = url.to_owned();
                }
                let lang = self.setup.lang.clone();
                fx.extend(self.fetch_dataset(source, lang));
            }
            Some(DatasetSource::Upload { name }) => {
                fx.extend(self.load_dataset_from_setup());
                self.boot.note = Some(format!(
                    "Before the reload {name} was loaded: a file is not kept, choose it again under Dataset → Upload."
                ));
            }
            _ => fx.extend(self.load_dataset_from_setup()),
        }
        fx
    }

    /// Says, once the bundled suite is ready, that an uploaded dataset must be chosen again.
    pub fn kept_note(&mut self) {
        if let Some(n) = self.boot.note.take() {
            self.say(n, Tone::Warn);
        }
    }
}

/// The key-value store's key of the last sweep's analysis.
pub const SWEEP_KEY: &str = "sweep";

impl AppState {
    /// Stores the finished sweep's options, model and analysis (its views and files), so a
    /// reload shows it again.
    pub fn keep_sweep(&self) -> Vec<Effect> {
        let Some(s) = &self.gen.sweep else {
            return Vec::new();
        };
        let Some(r) = &s.result else {
            return Vec::new();
        };
        let f = &s.form;
        let text = json_object(&[
            ("factor", &f.factor),
            ("levels", &f.levels),
            ("seed", &f.seed),
            ("per_level", &f.per_level),
            ("hold", &f.hold),
            ("model", &s.model),
            ("doc", &r.doc),
            ("html", &r.html),
            ("view", &r.view),
        ]);
        vec![Effect::KvPut(vec![(SWEEP_KEY.into(), text)])]
    }

    /// The kept sweep arrived at start: its analysis is shown on the Sweep view again.
    pub fn kept_sweep_arrived(&mut self, stored: Option<String>) -> Vec<Effect> {
        let v: Value = match stored.and_then(|s| serde_json::from_str(&s).ok()) {
            Some(v) => v,
            None => return Vec::new(),
        };
        if self.gen.sweep.is_some() || field(&v, "view").is_empty() {
            return Vec::new();
        }
        let form = SweepForm {
            factor: field(&v, "factor"),
            levels: field(&v, "levels"),
            seed: field(&v, "seed"),
            per_level: field(&v, "per_level"),
            hold: field(&v, "hold"),
        };
        let result = SweepResult {
            doc: field(&v, "doc"),
            html: field(&v, "html"),
            view: field(&v, "view"),
        };
        self.gen.sweep_form = form.clone();
        self.gen.sweep = Some(SweepRun::kept(form, field(&v, "model"), result));
        Vec::new()
    }
}
