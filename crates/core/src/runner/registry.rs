//! One registry of what a run can talk to, shared by the command line and the page: the
//! API dialects (providers), the built-in agents, the endpoint presets and the run
//! settings' defaults and accepted ranges. The CLI's help and the page's choices are
//! generated from these tables; nothing else lists provider names, default URLs or
//! default settings.

use serde::Serialize;

use super::provider::ProviderKind;

/// An API dialect a model endpoint speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Provider {
    /// The dialect (serialised as its name: `openai`, `anthropic`, `gemini`).
    pub kind: ProviderKind,
    /// Name shown to people.
    pub label: &'static str,
    /// Base URL used when none is given (`None`: a base URL is required).
    pub default_base_url: Option<&'static str>,
    /// Environment variable the CLI reads the key from unless `--api-key-env` says
    /// otherwise.
    pub key_env: &'static str,
    /// The request header that carries the key.
    pub auth_header: &'static str,
    /// Whether the API can be called from a web page, and what it takes.
    pub cors: &'static str,
}

/// The dialects, in the order front ends list them.
pub static PROVIDERS: &[Provider] = &[
    Provider {
        kind: ProviderKind::OpenAi,
        label: "OpenAI-compatible (Chat Completions)",
        default_base_url: None,
        key_env: "OPENAI_API_KEY",
        auth_header: "Authorization: Bearer <key>",
        cors: "Depends on the server: see the presets.",
    },
    Provider {
        kind: ProviderKind::Anthropic,
        label: "Anthropic (Messages)",
        default_base_url: Some(ANTHROPIC_BASE_URL),
        key_env: "ANTHROPIC_API_KEY",
        auth_header: "x-api-key: <key>",
        cors:
            "Allowed when the request carries `anthropic-dangerous-direct-browser-access: true`, \
               which the page sends.",
    },
    Provider {
        kind: ProviderKind::Gemini,
        label: "Google Gemini (generateContent)",
        default_base_url: Some(GEMINI_BASE_URL),
        key_env: "GEMINI_API_KEY",
        auth_header: "x-goog-api-key: <key>",
        cors: "Google documents browser JavaScript calling the Gemini API with an API key \
               (for prototyping); the key goes in the `x-goog-api-key` header, never the URL.",
    },
];

/// Anthropic's API.
pub const ANTHROPIC_BASE_URL: &str = "https://api.anthropic.com";
/// The Gemini API (`generateContent` lives under `{base}/models/{model}`).
pub const GEMINI_BASE_URL: &str = "https://generativelanguage.googleapis.com/v1beta";

/// The registry entry of a dialect.
pub fn provider(kind: ProviderKind) -> &'static Provider {
    // Every kind has an entry (checked by a test); the first entry is a safe fallback.
    PROVIDERS
        .iter()
        .find(|p| p.kind == kind)
        .unwrap_or(&PROVIDERS[0])
}

/// The dialect called `name`, if any.
pub fn provider_named(name: &str) -> Option<&'static Provider> {
    PROVIDERS.iter().find(|p| p.kind.name() == name)
}

/// Which built-in agent an entry is (front ends map it to the engine's agent).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum BuiltIn {
    /// The gold agent.
    Gold,
    /// The baseline agent.
    Baseline,
    /// The replay agent.
    Replay,
}

/// A built-in agent: answers in-process, no endpoint, no key.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Agent {
    /// Which agent.
    pub kind: BuiltIn,
    /// Name used on the command line and in settings.
    pub name: &'static str,
    /// Name shown to people.
    pub label: &'static str,
    /// What it does.
    pub description: &'static str,
    /// Whether it needs a recorded result file (`--replay-file`).
    pub needs_results: bool,
}

/// The built-in agents.
pub static AGENTS: &[Agent] = &[
    Agent {
        kind: BuiltIn::Gold,
        name: "gold",
        label: "Built-in: gold agent",
        description: "Answers with the first optimal gold path: a scorer sanity check (100%).",
        needs_results: false,
    },
    Agent {
        kind: BuiltIn::Baseline,
        name: "baseline",
        label: "Built-in: baseline agent",
        description: "A word-overlap heuristic: a floor any model should beat.",
        needs_results: false,
    },
    Agent {
        kind: BuiltIn::Replay,
        name: "replay",
        label: "Built-in: replay",
        description: "Re-feeds the outputs recorded in an official-format result file.",
        needs_results: true,
    },
];

/// What the page's setup starts with: the gold agent, which needs no endpoint.
pub const PAGE_BACKEND: &str = "gold";

/// The built-in agent called `name`, if any.
pub fn agent(name: &str) -> Option<&'static Agent> {
    AGENTS.iter().find(|a| a.name == name)
}

/// A ready-made endpoint: fills base URL, dialect and key field.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Preset {
    /// Stable identifier (settings, query parameters).
    pub id: &'static str,
    /// Name shown to people.
    pub label: &'static str,
    /// The dialect it speaks.
    pub provider: ProviderKind,
    /// Its base URL.
    pub base_url: &'static str,
    /// Whether requests need an API key.
    pub needs_key: bool,
    /// Conventional environment variable for the key (for `--api-key-env`).
    pub key_env: Option<&'static str>,
    /// A model name to show as a placeholder.
    pub example_model: &'static str,
    /// Calling it from the page: what the server allows and the exact flag or variable
    /// that changes it.
    pub cors: &'static str,
    /// What the server needs to answer with tool calls, if anything.
    pub tools: Option<&'static str>,
}

/// The presets, hosted services first, then local servers.
pub static PRESETS: &[Preset] = &[
    Preset {
        id: "openai",
        label: "OpenAI",
        provider: ProviderKind::OpenAi,
        base_url: "https://api.openai.com/v1",
        needs_key: true,
        key_env: Some("OPENAI_API_KEY"),
        example_model: "gpt-4o",
        cors: "Answers browser requests; the key is visible to this browser.",
        tools: None,
    },
    Preset {
        id: "anthropic",
        label: "Anthropic",
        provider: ProviderKind::Anthropic,
        base_url: ANTHROPIC_BASE_URL,
        needs_key: true,
        key_env: Some("ANTHROPIC_API_KEY"),
        example_model: "claude-sonnet-4-5",
        cors: "Needs the `anthropic-dangerous-direct-browser-access: true` header, which the \
               page sends.",
        tools: None,
    },
    Preset {
        id: "gemini",
        label: "Google Gemini",
        provider: ProviderKind::Gemini,
        base_url: GEMINI_BASE_URL,
        needs_key: true,
        key_env: Some("GEMINI_API_KEY"),
        example_model: "gemini-2.5-flash",
        cors: "Documented for browser use with an API key (prototyping); not tested from this \
               page here.",
        tools: None,
    },
    Preset {
        id: "openrouter",
        label: "OpenRouter",
        provider: ProviderKind::OpenAi,
        base_url: "https://openrouter.ai/api/v1",
        needs_key: true,
        key_env: Some("OPENROUTER_API_KEY"),
        example_model: "openai/gpt-4o",
        cors: "Answers browser requests.",
        tools: Some(
            "Pick a model whose endpoints support tools (OpenRouter answers 404 \
                     \"No endpoints found that support tool use\" otherwise).",
        ),
    },
    Preset {
        id: "groq",
        label: "Groq",
        provider: ProviderKind::OpenAi,
        base_url: "https://api.groq.com/openai/v1",
        needs_key: true,
        key_env: Some("GROQ_API_KEY"),
        example_model: "llama-3.3-70b-versatile",
        cors: "Not verified from a browser; if the page reports a CORS failure, run with the CLI.",
        tools: None,
    },
    Preset {
        id: "together",
        label: "Together AI",
        provider: ProviderKind::OpenAi,
        base_url: "https://api.together.xyz/v1",
        needs_key: true,
        key_env: Some("TOGETHER_API_KEY"),
        example_model: "meta-llama/Llama-3.3-70B-Instruct-Turbo",
        cors: "Not verified from a browser; if the page reports a CORS failure, run with the CLI.",
        tools: None,
    },
    Preset {
        id: "deepseek",
        label: "DeepSeek",
        provider: ProviderKind::OpenAi,
        base_url: "https://api.deepseek.com",
        needs_key: true,
        key_env: Some("DEEPSEEK_API_KEY"),
        example_model: "deepseek-chat",
        cors: "Not verified from a browser; if the page reports a CORS failure, run with the CLI.",
        tools: None,
    },
    Preset {
        id: "mistral",
        label: "Mistral AI",
        provider: ProviderKind::OpenAi,
        base_url: "https://api.mistral.ai/v1",
        needs_key: true,
        key_env: Some("MISTRAL_API_KEY"),
        example_model: "mistral-large-latest",
        cors: "Not verified from a browser; if the page reports a CORS failure, run with the CLI.",
        tools: None,
    },
    Preset {
        id: "ollama",
        label: "Ollama (local)",
        provider: ProviderKind::OpenAi,
        base_url: "http://127.0.0.1:11434/v1",
        needs_key: false,
        key_env: None,
        example_model: "qwen3:8b",
        cors: "Allows pages on localhost / 127.0.0.1 (any port) by default; for a page on \
               another origin start it with that origin allowed, e.g. \
               `OLLAMA_ORIGINS=https://example.org ollama serve`.",
        tools: Some(
            "Use a model whose template supports tools (tagged \"tools\" on ollama.com, \
                     e.g. qwen3, llama3.1); others answer 400 \"… does not support tools\".",
        ),
    },
    Preset {
        id: "lmstudio",
        label: "LM Studio (local)",
        provider: ProviderKind::OpenAi,
        base_url: "http://127.0.0.1:1234/v1",
        needs_key: false,
        key_env: None,
        example_model: "qwen3-8b",
        cors: "CORS is off by default: start the server with `lms server start --cors` (or \
               turn on \"Enable CORS\" in the server settings).",
        tools: None,
    },
    Preset {
        id: "vllm",
        label: "vLLM (local)",
        provider: ProviderKind::OpenAi,
        base_url: "http://127.0.0.1:8000/v1",
        needs_key: false,
        key_env: None,
        example_model: "Qwen/Qwen3-8B",
        cors: "Allows any origin unless restricted (`--allowed-origins` defaults to [\"*\"]); \
               to restrict it: `vllm serve MODEL --allowed-origins '[\"http://127.0.0.1:8080\"]'`.",
        tools: Some(
            "Start it with `--enable-auto-tool-choice --tool-call-parser PARSER` (the \
                     parser for the model family, e.g. hermes for Qwen, llama3_json for Llama \
                     3.1+, mistral for Mistral).",
        ),
    },
    Preset {
        id: "llamacpp",
        label: "llama.cpp server (local)",
        provider: ProviderKind::OpenAi,
        base_url: "http://127.0.0.1:8080/v1",
        needs_key: false,
        key_env: None,
        example_model: "local",
        cors: "llama-server answers browser requests from any origin by default. Its default \
               port 8080 is also where scripts/serve.sh serves the page: start one of them on \
               another port (`llama-server --port 8081`) and change the URL.",
        tools: Some(
            "Start llama-server with `--jinja` (the default in recent builds); \
                     without it tool requests fail with \"tools param requires --jinja flag\".",
        ),
    },
];

/// The preset with identifier `id`, if any.
pub fn preset(id: &str) -> Option<&'static Preset> {
    PRESETS.iter().find(|p| p.id == id)
}

/// Default run settings (the CLI's flag defaults and the page's initial values).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Defaults {
    /// Per-request timeout, seconds.
    pub timeout_secs: f64,
    /// Retries of a failed request before its task is left incomplete.
    pub retries: u32,
    /// First backoff delay, seconds (doubles per retry).
    pub backoff_secs: f64,
    /// Requests in flight at once.
    pub concurrency: usize,
    /// Sampling temperature (the official default).
    pub temperature: f64,
}

/// The defaults.
pub const DEFAULTS: Defaults = Defaults {
    timeout_secs: 600.0,
    retries: 6,
    backoff_secs: 2.0,
    concurrency: 8,
    temperature: 0.0,
};

/// Accepted ranges of the run settings (inclusive), for validation (`RunSpec::new` in
/// `runner::engine`) and input limits.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Limits {
    /// Requests in flight at once.
    pub concurrency: (usize, usize),
    /// Per-request timeout, seconds.
    pub timeout_secs: (f64, f64),
    /// Retries per request.
    pub retries: (u32, u32),
    /// First backoff delay, seconds.
    pub backoff_secs: (f64, f64),
    /// Sampling temperature.
    pub temperature: (f64, f64),
}

/// The accepted ranges.
pub const LIMITS: Limits = Limits {
    concurrency: (1, 256),
    // Sub-second timeouts are for tests against local mocks.
    timeout_secs: (0.1, 3600.0),
    retries: (0, 20),
    backoff_secs: (0.0, 600.0),
    temperature: (0.0, 2.0),
};

/// What `--provider` accepts: the dialects, then the built-in agents.
pub fn backend_names() -> Vec<&'static str> {
    PROVIDERS
        .iter()
        .map(|p| p.kind.name())
        .chain(AGENTS.iter().map(|a| a.name))
        .collect()
}

/// The CLI's help text for `--provider`: one line per dialect and agent.
pub fn provider_help() -> String {
    let mut out = format!("What answers the tasks: {}.", backend_names().join(" | "));
    for p in PROVIDERS {
        out.push_str(&format!(
            "\n  {:<10} {}; key from ${}; {}",
            p.kind.name(),
            p.label,
            p.key_env,
            p.default_base_url
                .map(|u| format!("default base URL {u}"))
                .unwrap_or_else(|| "--base-url required".to_owned())
        ));
    }
    for a in AGENTS {
        out.push_str(&format!("\n  {:<10} {}", a.name, a.description));
    }
    out
}

/// Everything above as one JSON document for the page:
/// `{"providers", "agents", "presets", "defaults", "limits"}`.
pub fn to_json() -> String {
    #[derive(Serialize)]
    struct All {
        providers: &'static [Provider],
        agents: &'static [Agent],
        presets: &'static [Preset],
        defaults: Defaults,
        limits: Limits,
    }
    serde_json::to_string(&All {
        providers: PROVIDERS,
        agents: AGENTS,
        presets: PRESETS,
        defaults: DEFAULTS,
        limits: LIMITS,
    })
    .unwrap_or_else(|_| "{}".to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_dialect_has_exactly_one_entry() {
        for kind in ProviderKind::ALL {
            assert_eq!(PROVIDERS.iter().filter(|p| p.kind == kind).count(), 1);
            assert_eq!(provider(kind).kind, kind);
            assert_eq!(provider_named(kind.name()).map(|p| p.kind), Some(kind));
        }
        assert_eq!(provider_named("gold"), None);
        assert_eq!(agent(PAGE_BACKEND).map(|a| a.kind), Some(BuiltIn::Gold));
    }

    #[test]
    fn names_are_unique_and_agents_are_not_providers() {
        let names = backend_names();
        for (i, n) in names.iter().enumerate() {
            assert!(!names[i + 1..].contains(n), "{n} twice");
        }
        assert_eq!(
            names,
            [
                "openai",
                "anthropic",
                "gemini",
                "gold",
                "baseline",
                "replay"
            ]
        );
        let ids: Vec<&str> = PRESETS.iter().map(|p| p.id).collect();
        for (i, id) in ids.iter().enumerate() {
            assert!(!ids[i + 1..].contains(id), "preset {id} twice");
        }
        assert_eq!(ids.len(), 12);
    }

    #[test]
    fn presets_are_valid_endpoints() {
        use super::super::endpoint_url::EndpointUrl;
        for p in PRESETS {
            let url = EndpointUrl::parse(p.base_url).unwrap_or_else(|e| panic!("{}: {e}", p.id));
            let local = url.is_loopback();
            assert_eq!(local, !p.needs_key, "{}: keyless exactly when local", p.id);
            assert!(p.base_url.starts_with("https://") || local, "{}", p.id);
        }
        // The dialect presets agree with the dialects' defaults.
        for kind in [ProviderKind::Anthropic, ProviderKind::Gemini] {
            let preset = PRESETS.iter().find(|p| p.provider == kind);
            assert_eq!(
                preset.map(|p| Some(p.base_url)),
                Some(provider(kind).default_base_url)
            );
        }
    }

    #[test]
    fn defaults_lie_within_the_limits() {
        let (d, l) = (DEFAULTS, LIMITS);
        assert!((l.concurrency.0..=l.concurrency.1).contains(&d.concurrency));
        assert!((l.timeout_secs.0..=l.timeout_secs.1).contains(&d.timeout_secs));
        assert!((l.retries.0..=l.retries.1).contains(&d.retries));
        assert!((l.backoff_secs.0..=l.backoff_secs.1).contains(&d.backoff_secs));
        assert!((l.temperature.0..=l.temperature.1).contains(&d.temperature));
    }

    #[test]
    fn the_page_document_names_dialects_by_name() {
        let v: serde_json::Value =
            serde_json::from_str(&to_json()).unwrap_or(serde_json::Value::Null);
        assert_eq!(v["providers"][2]["kind"], "gemini");
        assert_eq!(v["presets"][8]["id"], "ollama");
        assert_eq!(v["presets"][8]["provider"], "openai");
        assert_eq!(v["presets"][8]["needs_key"], false);
        assert_eq!(v["defaults"]["timeout_secs"], 600.0);
        assert_eq!(v["limits"]["concurrency"][1], 256);
        assert_eq!(v["agents"][2]["needs_results"], true);
        let help = provider_help();
        assert!(help.contains("\n  gemini     Google Gemini"), "{help}");
        assert!(help.contains("$GEMINI_API_KEY"), "{help}");
    }
}
