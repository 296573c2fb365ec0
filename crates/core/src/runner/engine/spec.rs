//! What defines a run, validated once: [`RunSettings`] holds the raw values a front end
//! collected (flags, form fields), [`RunSpec::new`] checks every range (the registry's
//! [`LIMITS`], plus trials and the breaker threshold) and the URL, and returns the
//! [`RunSpec`] the engine runs, or a [`SpecError`] naming the setting and what it accepts.
//! Both front doors build their runs through it.

use std::time::Duration;

use super::super::agents::{BaselineAgent, GoldAgent, ReplayAgent};
use super::super::driver::Responder;
use super::super::endpoint_url::{EndpointUrl, UrlError};
use super::super::policy::RetryPolicy;
use super::super::provider::{Endpoint, ProviderKind};
use super::super::registry::{DEFAULTS, LIMITS};

/// Default number of consecutive tasks failing with the same non-retryable error that
/// stops a run (the circuit breaker).
pub const DEFAULT_BREAKER_THRESHOLD: u64 = 5;
/// Largest number of trials.
pub const MAX_TRIALS: u64 = 100;
/// Largest circuit-breaker threshold.
pub const MAX_BREAKER_THRESHOLD: u64 = 10_000;
/// Longest computed backoff delay, seconds (the doubling stops there).
pub const MAX_BACKOFF_DELAY: f64 = 120.0;
/// Longest server-requested wait ever honoured, seconds (the user's settings usually cap
/// it further, see [`RetryPolicy::retry_after_cap`]).
pub const MAX_RETRY_AFTER: f64 = 300.0;
/// Fraction of each backoff delay that is randomised.
pub const JITTER: f64 = 0.5;
/// Default longest silence between two chunks of a streamed response, seconds.
pub const DEFAULT_STREAM_IDLE_TIMEOUT: f64 = 60.0;

/// A setting of a run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Setting {
    /// Repetitions of every task.
    Trials,
    /// Tasks in flight at most.
    Concurrency,
    /// Per-request timeout.
    Timeout,
    /// Retries per request.
    Retries,
    /// First backoff delay.
    Backoff,
    /// Sampling temperature.
    Temperature,
    /// Circuit-breaker threshold.
    BreakerThreshold,
    /// Longest silence between two chunks of a streamed response.
    StreamIdleTimeout,
}

impl Setting {
    /// The setting's name (also the CLI flag without `--`).
    pub fn name(self) -> &'static str {
        match self {
            Setting::Trials => "trials",
            Setting::Concurrency => "concurrency",
            Setting::Timeout => "timeout",
            Setting::Retries => "retries",
            Setting::Backoff => "backoff",
            Setting::Temperature => "temperature",
            Setting::BreakerThreshold => "breaker-threshold",
            Setting::StreamIdleTimeout => "stream-idle-timeout",
        }
    }

    /// What the setting accepts, for messages.
    pub fn accepted(self) -> String {
        let (c, t, r, b, temp) = (
            LIMITS.concurrency,
            LIMITS.timeout_secs,
            LIMITS.retries,
            LIMITS.backoff_secs,
            LIMITS.temperature,
        );
        match self {
            Setting::Trials => format!("a whole number from 1 to {MAX_TRIALS}"),
            Setting::Concurrency => format!("a whole number from {} to {}", c.0, c.1),
            Setting::Timeout | Setting::StreamIdleTimeout => {
                format!("a number of seconds from {} to {}", t.0, t.1)
            }
            Setting::Retries => format!("a whole number from {} to {}", r.0, r.1),
            Setting::Backoff => format!("a number of seconds from {} to {}", b.0, b.1),
            Setting::Temperature => format!("a number from {} to {}", temp.0, temp.1),
            Setting::BreakerThreshold => {
                format!("a whole number from 0 (off) to {MAX_BREAKER_THRESHOLD}")
            }
        }
    }
}

/// A run that cannot be started as configured.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SpecError {
    /// A number outside its range (or not a number: NaN, infinity).
    #[error("invalid {} {value}: expected {}", .setting.name(), .setting.accepted())]
    OutOfRange {
        /// Which setting.
        setting: Setting,
        /// The value given, as text.
        value: String,
    },
    /// The endpoint's base URL is not usable.
    #[error("invalid base URL: {0}")]
    BaseUrl(#[from] UrlError),
    /// A remote endpoint needs a model name.
    #[error("the model name is empty; name the model the endpoint should run")]
    EmptyModel,
    /// A cost limit that is not a positive amount, or one without prices.
    #[error("{0}")]
    MaxCost(String),
}

/// A built-in agent (no endpoint, answered in-process).
#[derive(Debug, Clone)]
pub enum AgentKind {
    /// Answers along the first optimal gold path.
    Gold,
    /// The word-overlap heuristic.
    Baseline,
    /// Re-feeds the outputs of an earlier result file.
    Replay(ReplayAgent),
}

impl AgentKind {
    /// The agent as a per-step responder.
    pub fn responder(&self) -> &dyn Responder {
        match self {
            AgentKind::Gold => &GoldAgent,
            AgentKind::Baseline => &BaselineAgent,
            AgentKind::Replay(r) => r,
        }
    }
}

/// Where the answers come from, as the front end collected it.
#[derive(Debug, Clone)]
pub enum BackendSettings {
    /// A model endpoint.
    Http {
        /// API dialect.
        provider: ProviderKind,
        /// Base URL as typed (checked by [`RunSpec::new`]).
        base_url: String,
        /// Sampling temperature sent with every request.
        temperature: f64,
        /// Requests are sent from a browser (adds provider-specific browser headers).
        browser: bool,
    },
    /// A built-in agent.
    Agent(AgentKind),
}

/// Where the answers come from, validated.
#[derive(Debug, Clone)]
pub enum Backend {
    /// A model endpoint.
    Http {
        /// API dialect.
        provider: ProviderKind,
        /// The checked base URL.
        base_url: EndpointUrl,
        /// Sampling temperature.
        temperature: f64,
        /// Requests are sent from a browser.
        browser: bool,
    },
    /// A built-in agent.
    Agent(AgentKind),
}

/// The raw settings of a run, before validation. [`RunSettings::new`] fills the defaults.
#[derive(Debug, Clone)]
pub struct RunSettings {
    /// Model name: sent to the endpoint and written to the checkpoint and result files.
    pub model: String,
    /// Fingerprint of the dataset (written to the checkpoint header, checked on resume).
    pub dataset: String,
    /// Where the answers come from.
    pub backend: BackendSettings,
    /// Repetitions of every task (1..=100).
    pub trials: u64,
    /// Tasks in flight at most (1..=256); adaptive concurrency may run below it.
    pub concurrency: u64,
    /// Per-request timeout, seconds (0.1..=3600).
    pub timeout: f64,
    /// Retries per request (0..=20).
    pub retries: u64,
    /// First backoff delay, seconds (0..=600); it doubles per retry, with jitter.
    pub backoff: f64,
    /// Send the preflight request before any task (endpoints only).
    pub preflight: bool,
    /// Consecutive tasks failing with the same non-retryable error that stop the run
    /// (0 = never stop; at most 10000).
    pub breaker_threshold: u64,
    /// Lower the concurrency on rate limiting and raise it again (AIMD).
    pub adaptive: bool,
    /// The model's prices: the engine counts the run's spend from the replies' usage.
    pub pricing: Option<crate::cost::ModelPrice>,
    /// Stop starting requests when the spend would pass this amount (needs `pricing`).
    pub max_cost: Option<f64>,
    /// Send every request streamed (the dialect's stream switch) and read the reply as an
    /// event stream.
    pub stream: bool,
    /// Longest silence between two chunks of a streamed response, seconds (0.1..=3600);
    /// the per-request timeout still bounds the whole response.
    pub stream_idle_timeout: f64,
}

impl RunSettings {
    /// Settings with the registry's defaults (concurrency, timeout, retries, backoff), 1
    /// trial, preflight on, breaker threshold 5, adaptive concurrency on, not streamed
    /// (60 s between chunks when streamed).
    pub fn new(
        model: impl Into<String>,
        dataset: impl Into<String>,
        backend: BackendSettings,
    ) -> Self {
        Self {
            model: model.into(),
            dataset: dataset.into(),
            backend,
            trials: 1,
            concurrency: DEFAULTS.concurrency as u64,
            timeout: DEFAULTS.timeout_secs,
            retries: u64::from(DEFAULTS.retries),
            backoff: DEFAULTS.backoff_secs,
            preflight: true,
            breaker_threshold: DEFAULT_BREAKER_THRESHOLD,
            adaptive: true,
            pricing: None,
            max_cost: None,
            stream: false,
            stream_idle_timeout: DEFAULT_STREAM_IDLE_TIMEOUT,
        }
    }
}

/// A validated run definition (see [`RunSpec::new`]).
#[derive(Debug, Clone)]
pub struct RunSpec {
    model: String,
    dataset: String,
    backend: Backend,
    trials: u32,
    concurrency: usize,
    timeout: f64,
    retries: u32,
    backoff: f64,
    preflight: bool,
    breaker_threshold: u32,
    adaptive: bool,
    pricing: Option<crate::cost::ModelPrice>,
    max_cost: Option<f64>,
    stream: bool,
    stream_idle_timeout: f64,
}

fn whole(setting: Setting, value: u64, lo: u64, hi: u64) -> Result<u64, SpecError> {
    if (lo..=hi).contains(&value) {
        Ok(value)
    } else {
        Err(SpecError::OutOfRange {
            setting,
            value: value.to_string(),
        })
    }
}

fn real(setting: Setting, value: f64, lo: f64, hi: f64) -> Result<f64, SpecError> {
    if value.is_finite() && (lo..=hi).contains(&value) {
        Ok(value)
    } else {
        Err(SpecError::OutOfRange {
            setting,
            value: format!("{value:?}"),
        })
    }
}

impl RunSpec {
    /// Checks every setting: numbers in their ranges (NaN and infinities refused), the base
    /// URL an absolute `http(s)://` URL with a host, a non-empty model name for endpoints.
    pub fn new(s: RunSettings) -> Result<Self, SpecError> {
        let (c, t, r, b) = (
            LIMITS.concurrency,
            LIMITS.timeout_secs,
            LIMITS.retries,
            LIMITS.backoff_secs,
        );
        let trials = whole(Setting::Trials, s.trials, 1, MAX_TRIALS)? as u32;
        let concurrency =
            whole(Setting::Concurrency, s.concurrency, c.0 as u64, c.1 as u64)? as usize;
        let timeout = real(Setting::Timeout, s.timeout, t.0, t.1)?;
        let retries = whole(Setting::Retries, s.retries, r.0.into(), r.1.into())? as u32;
        let backoff = real(Setting::Backoff, s.backoff, b.0, b.1)?;
        let stream_idle_timeout =
            real(Setting::StreamIdleTimeout, s.stream_idle_timeout, t.0, t.1)?;
        let breaker_threshold = whole(
            Setting::BreakerThreshold,
            s.breaker_threshold,
            0,
            MAX_BREAKER_THRESHOLD,
        )? as u32;
        let backend = match s.backend {
            BackendSettings::Http {
                provider,
                base_url,
                temperature,
                browser,
            } => {
                let (lo, hi) = LIMITS.temperature;
                let temperature = real(Setting::Temperature, temperature, lo, hi)?;
                let base_url = EndpointUrl::parse(&base_url)?;
                if s.model.trim().is_empty() {
                    return Err(SpecError::EmptyModel);
                }
                Backend::Http {
                    provider,
                    base_url,
                    temperature,
                    browser,
                }
            }
            BackendSettings::Agent(a) => Backend::Agent(a),
        };
        if let Some(limit) = s.max_cost {
            if !(limit.is_finite() && limit > 0.0) {
                return Err(SpecError::MaxCost(format!(
                    "the cost limit must be a positive amount, not {limit}"
                )));
            }
            if s.pricing.is_none() && matches!(backend, Backend::Http { .. }) {
                return Err(SpecError::MaxCost(format!(
                    "a cost limit needs prices for model {:?}; give a price table that has it (or name its entry)",
                    s.model
                )));
            }
        }
        Ok(Self {
            model: s.model,
            dataset: s.dataset,
            backend,
            trials,
            concurrency,
            timeout,
            retries,
            backoff,
            preflight: s.preflight,
            breaker_threshold,
            adaptive: s.adaptive,
            pricing: s.pricing,
            max_cost: s.max_cost,
            stream: s.stream,
            stream_idle_timeout,
        })
    }

    /// The model's prices, when known.
    pub fn pricing(&self) -> Option<&crate::cost::ModelPrice> {
        self.pricing.as_ref()
    }

    /// The cost limit, when set.
    pub fn max_cost(&self) -> Option<f64> {
        self.max_cost
    }

    /// Model name.
    pub fn model(&self) -> &str {
        &self.model
    }
    /// Dataset fingerprint.
    pub fn dataset(&self) -> &str {
        &self.dataset
    }
    /// Where the answers come from.
    pub fn backend(&self) -> &Backend {
        &self.backend
    }
    /// Repetitions of every task.
    pub fn trials(&self) -> u32 {
        self.trials
    }
    /// Tasks in flight at most.
    pub fn concurrency(&self) -> usize {
        self.concurrency
    }
    /// Per-request timeout, seconds.
    pub fn timeout(&self) -> f64 {
        self.timeout
    }
    /// Retries per request.
    pub fn retries(&self) -> u32 {
        self.retries
    }
    /// First backoff delay, seconds.
    pub fn backoff(&self) -> f64 {
        self.backoff
    }
    /// Whether the preflight is sent (endpoints only).
    pub fn preflight(&self) -> bool {
        self.preflight && matches!(self.backend, Backend::Http { .. })
    }
    /// Circuit-breaker threshold (0 = off).
    pub fn breaker_threshold(&self) -> u32 {
        self.breaker_threshold
    }
    /// Whether the concurrency adapts to rate limiting.
    pub fn adaptive(&self) -> bool {
        self.adaptive
    }
    /// Whether requests are streamed (endpoints only).
    pub fn stream(&self) -> bool {
        self.stream && matches!(self.backend, Backend::Http { .. })
    }
    /// Longest silence between two chunks of a streamed response, seconds.
    pub fn stream_idle_timeout(&self) -> f64 {
        self.stream_idle_timeout
    }

    /// The retry policy these settings define.
    pub fn policy(&self) -> RetryPolicy {
        RetryPolicy {
            max_retries: self.retries,
            base_delay: Duration::from_secs_f64(self.backoff),
            max_delay: Duration::from_secs_f64(MAX_BACKOFF_DELAY),
            max_retry_after: Duration::from_secs_f64(MAX_RETRY_AFTER),
            jitter: JITTER,
            timeout: Duration::from_secs_f64(self.timeout),
        }
    }

    /// The endpoint requests go to (`None` for agents).
    pub fn endpoint(&self) -> Option<(ProviderKind, Endpoint)> {
        match &self.backend {
            Backend::Http {
                provider,
                base_url,
                browser,
                ..
            } => Some((
                *provider,
                Endpoint {
                    base_url: base_url.to_string(),
                    browser: *browser,
                },
            )),
            Backend::Agent(_) => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn http(base_url: &str) -> RunSettings {
        RunSettings::new(
            "m",
            "fp",
            BackendSettings::Http {
                provider: ProviderKind::OpenAi,
                base_url: base_url.to_owned(),
                temperature: 0.0,
                browser: false,
            },
        )
    }

    fn err(s: RunSettings) -> String {
        RunSpec::new(s)
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default()
    }

    #[test]
    fn out_of_range_numbers_name_the_setting_and_the_range() {
        let base = || http("http://127.0.0.1:8000/v1");
        for (timeout, shown) in [
            (f64::INFINITY, "inf"),
            (1e300, "1e300"),
            (f64::NAN, "NaN"),
            (-1.0, "-1.0"),
            (0.0, "0.0"),
        ] {
            let e = err(RunSettings { timeout, ..base() });
            assert_eq!(
                e,
                format!("invalid timeout {shown}: expected a number of seconds from 0.1 to 3600")
            );
        }
        for backoff in [f64::INFINITY, 1e300, f64::NAN, -0.5, 601.0] {
            let e = err(RunSettings { backoff, ..base() });
            assert!(e.starts_with("invalid backoff "), "{e}");
            assert!(e.ends_with("from 0 to 600"), "{e}");
        }
        assert_eq!(
            err(RunSettings {
                concurrency: 0,
                ..base()
            }),
            "invalid concurrency 0: expected a whole number from 1 to 256"
        );
        assert!(err(RunSettings {
            trials: 0,
            ..base()
        })
        .starts_with("invalid trials 0"));
        assert!(err(RunSettings {
            retries: 21,
            ..base()
        })
        .starts_with("invalid retries 21"));
        let ok = RunSpec::new(RunSettings {
            timeout: 0.5,
            backoff: 0.0,
            concurrency: 256,
            ..base()
        });
        assert!(ok.is_ok());
    }

    #[test]
    fn base_urls_and_model_names_are_checked() {
        for bad in ["not a url", "file:///x", "ftp://x", ""] {
            let e = RunSpec::new(http(bad)).err();
            assert!(matches!(e, Some(SpecError::BaseUrl(_))), "{bad}: {e:?}");
        }
        let e = RunSpec::new(RunSettings {
            model: "  ".to_owned(),
            ..http("https://api.example.com/v1")
        })
        .err();
        assert_eq!(e, Some(SpecError::EmptyModel));
        let agent = RunSpec::new(RunSettings::new(
            "",
            "fp",
            BackendSettings::Agent(AgentKind::Gold),
        ));
        assert!(agent.is_ok(), "agents need no model name");
        assert!(agent.is_ok_and(|s| !s.preflight()), "and send no preflight");
    }
}
