//! The setup form's fields by name: the argument of the `set` action, so messages can
//! name a field without knowing the form.

/// A field of the setup form.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Field {
    /// Dataset source radio.
    DatasetChoice,
    /// Dataset URL.
    DatasetUrl,
    /// Language `en` / `zh`.
    Lang,
    /// Provider or built-in agent.
    Provider,
    /// Endpoint base URL.
    BaseUrl,
    /// Model name (also the run's label).
    Model,
    /// API key (memory only).
    Key,
    /// Remember the key on this device.
    Remember,
    /// Sampling temperature.
    Temperature,
    /// Maximum requests in flight.
    Concurrency,
    /// Per-request timeout, seconds.
    Timeout,
    /// Retries per request.
    Retries,
    /// Backoff base, seconds.
    Backoff,
    /// Check the endpoint with one request before the run.
    Preflight,
    /// A ready-made endpoint (fills provider and base URL).
    Preset,
    /// Repeated trials: every task run this many times.
    Trials,
    /// Stream the replies (the request's stream switch).
    Stream,
    /// Run in the ledger environment (an extension).
    Env,
    /// History mode of an env run: `gold` or `own`.
    History,
}

impl Field {
    /// Every field, for parsing.
    pub const ALL: [Field; 19] = [
        Field::DatasetChoice,
        Field::DatasetUrl,
        Field::Lang,
        Field::Provider,
        Field::BaseUrl,
        Field::Model,
        Field::Key,
        Field::Remember,
        Field::Temperature,
        Field::Concurrency,
        Field::Timeout,
        Field::Retries,
        Field::Backoff,
        Field::Preflight,
        Field::Preset,
        Field::Trials,
        Field::Stream,
        Field::Env,
        Field::History,
    ];

    /// The name in `data-arg` and element ids.
    pub fn name(self) -> &'static str {
        match self {
            Field::DatasetChoice => "ds-kind",
            Field::DatasetUrl => "ds-url",
            Field::Lang => "ds-lang",
            Field::Provider => "m-provider",
            Field::BaseUrl => "m-base",
            Field::Model => "m-model",
            Field::Key => "m-key",
            Field::Remember => "m-remember",
            Field::Temperature => "m-temp",
            Field::Concurrency => "m-conc",
            Field::Timeout => "m-timeout",
            Field::Retries => "m-retries",
            Field::Backoff => "m-backoff",
            Field::Preflight => "m-preflight",
            Field::Preset => "m-preset",
            Field::Trials => "m-trials",
            Field::Stream => "m-stream",
            Field::Env => "m-env",
            Field::History => "m-history",
        }
    }

    /// The field named `name`.
    pub fn from_name(name: &str) -> Option<Field> {
        Field::ALL.into_iter().find(|f| f.name() == name)
    }
}
