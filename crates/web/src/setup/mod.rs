//! The setup form: dataset source and model settings exactly as the user typed them, and
//! the remembered API key.
//!
//! The key is held in memory only. When the user ticks "remember", it is stored (by the
//! `localStorage` adapter) together with the origin of the endpoint it was typed for, and
//! it is only ever offered again — and sent — to that origin
//! ([`key_allowed_for`](wildtool_core::runner::endpoint_url::key_allowed_for)): a link
//! that names another endpoint gets no key.

pub mod keep;
pub mod probe;
pub mod view;

use serde::{Deserialize, Serialize};

use wildtool_core::runner::endpoint_url::{key_allowed_for, EndpointUrl};
use wildtool_core::runner::http::HttpReply;
use wildtool_core::runner::provider::{models, Endpoint, ProviderKind};

use crate::field::Field;
use crate::msg::{AuxPurpose, AuxRequest};

/// Most model names offered in the model field.
const MAX_MODELS: usize = 1000;

/// Where the dataset comes from in the setup form.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DatasetChoice {
    /// The bundled suite.
    Bundled,
    /// A file.
    Upload,
    /// A URL.
    Url,
}

impl DatasetChoice {
    /// The form value.
    pub fn value(self) -> &'static str {
        match self {
            DatasetChoice::Bundled => "bundled",
            DatasetChoice::Upload => "upload",
            DatasetChoice::Url => "url",
        }
    }
}

/// A key remembered on this device, bound to the origin it was saved for.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RememberedKey {
    /// `scheme://host[:port]` of the endpoint.
    pub origin: String,
    /// The key.
    pub key: String,
}

impl RememberedKey {
    /// Reads the stored JSON (anything else is ignored).
    pub fn parse(stored: &str) -> Option<RememberedKey> {
        let v: serde_json::Value = serde_json::from_str(stored).ok()?;
        let text = |k: &str| v.get(k)?.as_str().map(str::to_owned);
        Some(RememberedKey {
            origin: text("origin")?,
            key: text("key")?,
        })
    }
}

/// What the caller must do with the stored key after a change.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KeyStorage {
    /// Nothing.
    Keep,
    /// Store this (JSON of [`RememberedKey`]).
    Save(String),
    /// Forget the stored key.
    Forget,
}

/// The setup form's values, as typed.
#[derive(Debug, Clone, PartialEq)]
pub struct SetupForm {
    /// Dataset source.
    pub dataset: DatasetChoice,
    /// Dataset URL field.
    pub dataset_url: String,
    /// Language field (`en`, `zh`).
    pub lang: String,
    /// Provider or agent name.
    pub provider: String,
    /// Base URL field.
    pub base_url: String,
    /// Model field.
    pub model: String,
    /// API key field (memory only).
    pub key: String,
    /// The user typed into the key field (so a remembered key is not put back).
    pub key_typed: bool,
    /// "Remember the key" box.
    pub remember: bool,
    /// Temperature field.
    pub temperature: String,
    /// Concurrency field.
    pub concurrency: String,
    /// Timeout field (seconds).
    pub timeout: String,
    /// Retries field.
    pub retries: String,
    /// Backoff field (seconds).
    pub backoff: String,
    /// Preflight box.
    pub preflight: bool,
    /// The preset chosen last (empty: none).
    pub preset: String,
    /// Trials field (every task is run this many times).
    pub trials: String,
    /// "Stream the replies" box.
    pub stream: bool,
    /// Run in the ledger environment (an extension, never official numbers).
    pub env: bool,
    /// History mode of an env run: `gold` (the default) or `own`.
    pub history: String,
    /// The key stored on this device.
    pub remembered: Option<RememberedKey>,
    /// Model names the endpoint offered (its model list), for the model field.
    pub models: Vec<String>,
    /// Number of the last model-list request (answers to older ones are dropped).
    pub models_seq: u64,
}

impl Default for SetupForm {
    fn default() -> Self {
        let d = wildtool_core::runner::registry::DEFAULTS;
        SetupForm {
            dataset: DatasetChoice::Bundled,
            dataset_url: String::new(),
            lang: "en".into(),
            provider: wildtool_core::runner::registry::PAGE_BACKEND.into(),
            base_url: String::new(),
            model: String::new(),
            key: String::new(),
            key_typed: false,
            remember: false,
            temperature: d.temperature.to_string(),
            concurrency: d.concurrency.to_string(),
            timeout: d.timeout_secs.to_string(),
            retries: d.retries.to_string(),
            backoff: d.backoff_secs.to_string(),
            preflight: true,
            preset: String::new(),
            trials: "1".into(),
            stream: false,
            env: false,
            history: "gold".into(),
            remembered: None,
            models: Vec::new(),
            models_seq: 0,
        }
    }
}

impl SetupForm {
    /// True when the provider is a built-in agent (no endpoint).
    pub fn is_builtin(&self) -> bool {
        wildtool_core::runner::registry::agent(&self.provider).is_some()
    }

    /// The base URL to use: as typed, else the provider's default (Anthropic, Gemini).
    pub fn effective_base_url(&self) -> String {
        let typed = self.base_url.trim();
        if !typed.is_empty() {
            return typed.to_owned();
        }
        wildtool_core::runner::registry::provider_named(&self.provider)
            .and_then(|p| p.default_base_url)
            .unwrap_or("")
            .to_owned()
    }

    /// Installs the key stored on this device (JSON) and shows it if it belongs to the
    /// current base URL.
    pub fn set_remembered(&mut self, stored: Option<&str>) {
        self.remembered = stored.and_then(RememberedKey::parse);
        self.sync_remembered();
    }

    /// Shows the remembered key only while the base URL is its origin.
    pub fn sync_remembered(&mut self) {
        let Some(rem) = &self.remembered else { return };
        if self.key_typed {
            return;
        }
        let allowed = key_allowed_for(&rem.origin, &self.base_url);
        self.key = if allowed {
            rem.key.clone()
        } else {
            String::new()
        };
        self.remember = allowed;
    }

    /// The key to send to `base_url`: the typed one, or the remembered one for its own
    /// origin only.
    pub fn key_for(&self, base_url: &str) -> String {
        match &self.remembered {
            Some(rem) if !self.key_typed && self.key == rem.key => {
                if key_allowed_for(&rem.origin, base_url) {
                    rem.key.clone()
                } else {
                    String::new()
                }
            }
            _ => self.key.clone(),
        }
    }

    /// Sets a field from the form; returns what to do with the stored key, or an error
    /// to show (the key could not be remembered).
    pub fn set(&mut self, field: Field, value: &str) -> Result<KeyStorage, String> {
        let flag = value == "true";
        match field {
            Field::DatasetChoice => {
                self.dataset = match value {
                    "upload" => DatasetChoice::Upload,
                    "url" => DatasetChoice::Url,
                    _ => DatasetChoice::Bundled,
                }
            }
            Field::DatasetUrl => self.dataset_url = value.to_owned(),
            Field::Lang => self.lang = if value == "zh" { "zh" } else { "en" }.to_owned(),
            Field::Provider => self.provider = value.to_owned(),
            Field::BaseUrl => {
                self.base_url = value.to_owned();
                self.sync_remembered();
            }
            Field::Model => self.model = value.to_owned(),
            Field::Key => {
                self.key = value.to_owned();
                self.key_typed = true;
                if self.remember {
                    return self.save_key();
                }
            }
            Field::Remember => {
                self.remember = flag;
                return if flag {
                    self.save_key()
                } else {
                    self.remembered = None;
                    Ok(KeyStorage::Forget)
                };
            }
            Field::Temperature => self.temperature = value.to_owned(),
            Field::Concurrency => self.concurrency = value.to_owned(),
            Field::Timeout => self.timeout = value.to_owned(),
            Field::Retries => self.retries = value.to_owned(),
            Field::Backoff => self.backoff = value.to_owned(),
            Field::Preflight => self.preflight = flag,
            Field::Trials => self.trials = value.to_owned(),
            Field::Stream => self.stream = flag,
            Field::Env => self.env = flag,
            Field::History => {
                self.history = if value == "own" { "own" } else { "gold" }.into();
            }
            Field::Preset => {
                self.preset = value.to_owned();
                if let Some(p) = wildtool_core::runner::registry::preset(value) {
                    let origin = |u: &str| EndpointUrl::parse(u).ok().map(|u| u.origin());
                    // A key typed for another endpoint is not carried over to this one.
                    if self.key_typed && origin(&self.effective_base_url()) != origin(p.base_url) {
                        self.key.clear();
                        self.key_typed = false;
                    }
                    self.provider = p.provider.name().to_owned();
                    self.base_url = p.base_url.to_owned();
                    self.sync_remembered();
                }
            }
        }
        Ok(KeyStorage::Keep)
    }

    /// The preset chosen, if any.
    pub fn preset(&self) -> Option<&'static wildtool_core::runner::registry::Preset> {
        wildtool_core::runner::registry::preset(&self.preset)
    }

    /// The request for the endpoint's model list (under a new request number), with the
    /// key for the endpoint's own origin; `None` for built-in agents and base URLs that
    /// are not endpoints. The list offered so far is dropped.
    pub fn models_request(&mut self) -> Option<AuxRequest> {
        let kind = ProviderKind::from_name(&self.provider)?;
        let base = self.effective_base_url();
        let url = EndpointUrl::parse(&base).ok()?;
        self.models_seq += 1;
        self.models.clear();
        let request = models::request(
            kind,
            &Endpoint {
                base_url: url.to_string(),
                browser: true,
            },
        );
        let key = self.key_for(&base);
        let auth = (!key.is_empty()).then(|| {
            let (name, value) = kind.auth().header(&key);
            (name.to_owned(), value)
        });
        Some(AuxRequest {
            purpose: AuxPurpose::Models(self.models_seq),
            request,
            auth,
        })
    }

    /// The answer to model-list request `seq`: the names it lists, or nothing (a failure
    /// is quiet: the model field stays a plain text field).
    pub fn models_arrived(&mut self, seq: u64, reply: &HttpReply) {
        if seq != self.models_seq {
            return;
        }
        self.models = match reply {
            HttpReply::Response(r) => models::parse(r.status, &r.body).unwrap_or_default(),
            _ => Vec::new(),
        };
        self.models.truncate(MAX_MODELS);
    }

    fn save_key(&mut self) -> Result<KeyStorage, String> {
        match EndpointUrl::parse(self.base_url.trim()) {
            Ok(url) => {
                let rem = RememberedKey {
                    origin: url.origin(),
                    key: self.key.clone(),
                };
                let json = serde_json::to_string(&rem).map_err(|e| e.to_string())?;
                self.remembered = Some(rem);
                Ok(KeyStorage::Save(json))
            }
            Err(e) => {
                self.remember = false;
                Err(format!(
                    "The key cannot be remembered without a valid base URL: {e}"
                ))
            }
        }
    }

    /// The model a run would use, as a button names it (`the gold agent`, `qwen3-8b (openai)`).
    pub fn display_model(&self) -> String {
        if self.is_builtin() || self.model.trim().is_empty() {
            format!("the {} agent", self.provider)
        } else {
            format!("{} ({})", self.model.trim(), self.provider)
        }
    }

    /// The value of `field` as the form shows it.
    pub fn value(&self, field: Field) -> String {
        match field {
            Field::DatasetChoice => self.dataset.value().to_owned(),
            Field::DatasetUrl => self.dataset_url.clone(),
            Field::Lang => self.lang.clone(),
            Field::Provider => self.provider.clone(),
            Field::BaseUrl => self.base_url.clone(),
            Field::Model => self.model.clone(),
            Field::Key => self.key.clone(),
            Field::Remember => self.remember.to_string(),
            Field::Temperature => self.temperature.clone(),
            Field::Concurrency => self.concurrency.clone(),
            Field::Timeout => self.timeout.clone(),
            Field::Retries => self.retries.clone(),
            Field::Backoff => self.backoff.clone(),
            Field::Preflight => self.preflight.to_string(),
            Field::Preset => self.preset.clone(),
            Field::Trials => self.trials.clone(),
            Field::Stream => self.stream.to_string(),
            Field::Env => self.env.to_string(),
            Field::History => self.history.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_remembered_key_follows_its_origin_only() {
        let mut f = SetupForm::default();
        f.set(Field::BaseUrl, "http://127.0.0.1:9000/v1").unwrap();
        f.set(Field::Key, "sk-1").unwrap();
        let saved = f.set(Field::Remember, "true").unwrap();
        let KeyStorage::Save(json) = saved else {
            panic!("not saved: {saved:?}")
        };
        assert_eq!(json, r#"{"origin":"http://127.0.0.1:9000","key":"sk-1"}"#);

        // A fresh page with the stored key and a link naming another host.
        let mut g = SetupForm::default();
        g.set(Field::BaseUrl, "https://evil.example/v1").unwrap();
        g.set_remembered(Some(&json));
        assert_eq!(g.key, "");
        assert!(!g.remember);
        assert_eq!(g.key_for("https://evil.example/v1"), "");
        g.set(Field::BaseUrl, "http://127.0.0.1:9000/v1").unwrap();
        assert_eq!(g.key, "sk-1");
        assert_eq!(g.key_for("http://127.0.0.1:9000/v1"), "sk-1");
        assert_eq!(g.key_for("https://evil.example/v1"), "");
        assert_eq!(g.set(Field::Remember, "false").unwrap(), KeyStorage::Forget);
        assert!(g.remembered.is_none());
    }

    #[test]
    fn the_model_list_is_asked_of_the_endpoint_with_its_own_key_only() {
        use wildtool_core::runner::http::HttpResponse;
        let mut f = SetupForm::default();
        assert!(f.models_request().is_none(), "a built-in agent has no list");
        f.set(Field::Preset, "vllm").unwrap();
        let r = f.models_request().unwrap();
        assert_eq!(r.request.url, "http://127.0.0.1:8000/v1/models");
        assert_eq!(r.request.method, "GET");
        assert_eq!(r.auth, None);
        let AuxPurpose::Models(seq) = r.purpose else {
            panic!("{:?}", r.purpose)
        };
        // An older answer is dropped; failures leave no list.
        let list = r#"{"data": [{"id": "Qwen/Qwen3-8B"}, {"id": "other"}]}"#;
        let answer = HttpReply::Response(HttpResponse::new(200, list));
        f.models_arrived(seq - 1, &answer);
        assert!(f.models.is_empty());
        f.models_arrived(seq, &answer);
        assert_eq!(f.models, ["Qwen/Qwen3-8B", "other"]);
        f.models_arrived(seq, &HttpReply::Response(HttpResponse::new(401, "no")));
        assert!(f.models.is_empty());
        // Gemini: the key in its header, for its own endpoint.
        f.set(Field::Preset, "gemini").unwrap();
        f.set(Field::Key, "g-key").unwrap();
        let r = f.models_request().unwrap();
        assert!(r
            .request
            .url
            .starts_with("https://generativelanguage.googleapis.com/v1beta/models?"));
        assert_eq!(r.auth, Some(("x-goog-api-key".into(), "g-key".into())));
        // Choosing another service drops a key typed for this one.
        f.set(Field::Preset, "openai").unwrap();
        assert_eq!(f.key, "");
        assert_eq!(f.models_request().unwrap().auth, None);
    }

    #[test]
    fn remembering_needs_a_valid_endpoint() {
        let mut f = SetupForm::default();
        f.set(Field::Key, "k").unwrap();
        assert!(f.set(Field::Remember, "true").is_err());
        assert!(!f.remember);
    }
}
