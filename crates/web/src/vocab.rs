//! The page's shared vocabulary, on its ground floor: the time as the glue passes it in,
//! the status line and its tones. Every feature may use it; it uses none.

/// How a status message looks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tone {
    /// Neutral.
    Info,
    /// Something worked.
    Ok,
    /// Needs attention.
    Warn,
    /// Something failed.
    Error,
}

impl Tone {
    /// The name in the `data-kind` attribute.
    pub fn name(self) -> &'static str {
        match self {
            Tone::Info => "info",
            Tone::Ok => "ok",
            Tone::Warn => "warn",
            Tone::Error => "error",
        }
    }
}

/// The page-wide status line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Status {
    /// Text.
    pub text: String,
    /// Tone.
    pub tone: Tone,
}

impl Status {
    /// Whether this is the "Ready: … start a run" line a loaded dataset says. It speaks
    /// of Setup: it is hidden elsewhere and shown again on return, not dropped.
    pub fn is_readiness(&self) -> bool {
        self.text.starts_with("Ready: ")
    }
}

/// The time as the glue passes it in.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Now {
    /// Seconds on a monotonic clock (`performance.now() / 1000`).
    pub mono: f64,
    /// Milliseconds since the Unix epoch (`Date.now()`), for timestamps and HTTP dates.
    pub unix_ms: f64,
}
