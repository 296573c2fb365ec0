//! The live runner: evaluates a model endpoint or a built-in agent with the official
//! protocol. Everything here is sans-IO; the drivers (native threads and `ureq` in the
//! `wildtool` crate, `fetch` in `wildtool-web`) only send requests, wait and report back.
//!
//! Layers (a module imports only from its own layer or earlier ones, without cycles; a
//! test checks it):
//!
//! 1. Vocabulary and pure rules: [`provider`] (request/response mapping for
//!    OpenAI-compatible, Anthropic and Gemini APIs), [`http`] (requests and replies as
//!    drivers report them), [`policy`] (retry classification, backoff, `Retry-After`),
//!    [`endpoint_url`], [`select`], [`exec`] (executor plumbing), [`registry`] (the
//!    providers, agents, presets, defaults and limits every front end lists), [`stream`]
//!    (streamed requests and the reassembly of their event streams).
//! 2. [`retry`]: one attempt's outcome ([`retry::Attempt`]) and the future-based retry
//!    loop; [`checkpoint`]: the checkpoint format and result assembly; [`preflight`]: the
//!    one-request endpoint check; [`probe`]: the streaming probe (the same tool tasks
//!    streamed and not, compared);
//!    [`env_checkpoint`]: the checkpoint header of an
//!    environment run.
//! 3. [`driver`]: the per-task loop over a responder; [`agents`]: built-in agents.
//! 4. [`engine`]: the run engine — the dataset scheduler every front end drives.

pub mod agents;
pub mod checkpoint;
pub mod driver;
pub mod dry_run;
pub mod endpoint_url;
pub mod engine;
pub mod env_checkpoint;
pub mod exec;
pub mod http;
pub mod policy;
pub mod preflight;
pub mod probe;
pub mod provider;
pub mod redact;
pub mod registry;
pub mod retry;
pub mod select;
pub mod stream;
