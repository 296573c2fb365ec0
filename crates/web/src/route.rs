//! Routing: every view has its own URL. The query names the view (`view=`) and what it
//! shows (`run=` a history entry, `session=`, `task=`, `step=` 1-based for traces); share
//! links stay in the fragment (`#v1.…`, `#v2.…`). The automation parameters of
//! `docs/page.md` (`dataset`, `provider`, `autorun` …) are read once at start.

/// The page's views. A new view is a variant here, a file in `views/` and a line in
/// [`View::ALL`]; the runtime needs no change.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum View {
    /// Dataset and model settings.
    Setup,
    /// The live run.
    Run,
    /// Headline, charts, exports and sharing of the shown run.
    Dashboard,
    /// Session → task → step traces of the shown run.
    Traces,
    /// Scoring a result file, checkpoint or run export.
    Upload,
    /// Every run kept in this browser.
    History,
    /// Runs of the history compared pair by pair.
    Compare,
    /// Generate a fresh suite.
    Generate,
    /// Sweep one factor of generated suites.
    Sweep,
}

impl View {
    /// The views in navigation order.
    pub const ALL: [View; 9] = [
        View::Setup,
        View::Run,
        View::Dashboard,
        View::Traces,
        View::Upload,
        View::History,
        View::Compare,
        View::Generate,
        View::Sweep,
    ];

    /// The name in URLs and `data-view` attributes.
    pub fn slug(self) -> &'static str {
        match self {
            View::Setup => "setup",
            View::Run => "run",
            View::Dashboard => "dashboard",
            View::Traces => "traces",
            View::Upload => "offline",
            View::History => "history",
            View::Compare => "compare",
            View::Generate => "generate",
            View::Sweep => "sweep",
        }
    }

    /// The name in the navigation.
    pub fn title(self) -> &'static str {
        match self {
            View::Setup => "Setup",
            View::Run => "Run",
            View::Dashboard => "Dashboard",
            View::Traces => "Traces",
            View::Upload => "Offline scoring",
            View::History => "History",
            View::Compare => "Compare",
            View::Generate => "Generate",
            View::Sweep => "Sweep",
        }
    }

    /// The view named `slug`.
    pub fn from_slug(slug: &str) -> Option<View> {
        View::ALL.into_iter().find(|v| v.slug() == slug)
    }
}

/// Where the page is: a view and what it shows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Route {
    /// The view.
    pub view: View,
    /// History entry shown (dashboard, traces).
    pub run: Option<String>,
    /// Session index, 0-based (1-based in the URL).
    pub session: Option<usize>,
    /// Task position, 0-based (1-based in the URL).
    pub task: Option<usize>,
    /// Step, 0-based (1-based in the URL).
    pub step: Option<usize>,
    /// Another history entry whose trace of the same task is shown beside `run`'s
    /// (traces side by side, from the comparison view).
    pub vs: Option<String>,
}

impl Default for Route {
    fn default() -> Self {
        Route::view(View::Setup)
    }
}

/// Percent-decodes a query component (`+` is a space); invalid escapes stay as they are.
pub fn decode_component(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'+' => out.push(b' '),
            b'%' if i + 2 < bytes.len() => {
                let hex = std::str::from_utf8(&bytes[i + 1..i + 3])
                    .ok()
                    .and_then(|h| u8::from_str_radix(h, 16).ok());
                match hex {
                    Some(b) => {
                        out.push(b);
                        i += 2;
                    }
                    None => out.push(b'%'),
                }
            }
            b => out.push(b),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

pub use crate::ui::encode_component;

/// A page address split into its parts.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Location {
    /// Everything before `?` or `#` (origin and path).
    pub base: String,
    /// Query parameters in order, decoded.
    pub query: Vec<(String, String)>,
    /// The fragment without `#`, percent-decoded when valid.
    pub fragment: String,
}

impl Location {
    /// Splits `href`.
    pub fn parse(href: &str) -> Location {
        let (rest, fragment) = match href.split_once('#') {
            Some((r, f)) => (r, f),
            None => (href, ""),
        };
        let (base, query) = match rest.split_once('?') {
            Some((b, q)) => (b, q),
            None => (rest, ""),
        };
        let query = query
            .split('&')
            .filter(|p| !p.is_empty())
            .map(|p| match p.split_once('=') {
                Some((k, v)) => (decode_component(k), decode_component(v)),
                None => (decode_component(p), String::new()),
            })
            .collect();
        let fragment = if fragment.contains('%') {
            percent_decode_strict(fragment).unwrap_or_else(|| fragment.to_owned())
        } else {
            fragment.to_owned()
        };
        Location {
            base: base.to_owned(),
            query,
            fragment,
        }
    }

    /// The first value of `name`.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.query
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    /// The route the query names (unknown views fall back to Setup).
    pub fn route(&self) -> Route {
        let index = |name: &str| {
            self.get(name)
                .and_then(|v| v.parse::<usize>().ok())
                .and_then(|n| n.checked_sub(1))
        };
        Route {
            view: self
                .get("view")
                .and_then(View::from_slug)
                .unwrap_or(View::Setup),
            run: self.get("run").filter(|r| !r.is_empty()).map(str::to_owned),
            session: index("session"),
            task: index("task"),
            step: index("step"),
            vs: self.get("vs").filter(|r| !r.is_empty()).map(str::to_owned),
        }
    }
}

/// Strict percent-decoding (None on a bad escape or invalid UTF-8).
fn percent_decode_strict(s: &str) -> Option<String> {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = bytes.get(i + 1..i + 3)?;
            let b = u8::from_str_radix(std::str::from_utf8(hex).ok()?, 16).ok()?;
            out.push(b);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

impl Route {
    /// A view with nothing selected.
    pub fn view(view: View) -> Route {
        Route {
            view,
            run: None,
            session: None,
            task: None,
            step: None,
            vs: None,
        }
    }

    /// The query string (with `?`) of this route; `keep` are parameters carried over
    /// (the dataset and language the page was opened with).
    pub fn to_query(&self, keep: &[(String, String)]) -> String {
        let mut parts: Vec<String> = keep
            .iter()
            .map(|(k, v)| format!("{}={}", encode_component(k), encode_component(v)))
            .collect();
        parts.push(format!("view={}", self.view.slug()));
        if let Some(r) = &self.run {
            parts.push(format!("run={}", encode_component(r)));
        }
        if let Some(r) = &self.vs {
            parts.push(format!("vs={}", encode_component(r)));
        }
        for (name, v) in [
            ("session", self.session),
            ("task", self.task),
            ("step", self.step),
        ] {
            if let Some(v) = v {
                parts.push(format!("{name}={}", v + 1));
            }
        }
        format!("?{}", parts.join("&"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn routes_round_trip_through_the_query() {
        let r = Route {
            view: View::Traces,
            run: Some("run 1/x".into()),
            session: Some(3),
            task: Some(0),
            step: Some(2),
            vs: None,
        };
        let q = r.to_query(&[("dataset".into(), "bundled".into())]);
        assert_eq!(
            q,
            "?dataset=bundled&view=traces&run=run%201/x&session=4&task=1&step=3"
        );
        let loc = Location::parse(&format!("http://h/p/{q}#v1.abc"));
        assert_eq!(loc.route(), r);
        assert_eq!(loc.base, "http://h/p/");
        assert_eq!(loc.fragment, "v1.abc");
        assert_eq!(loc.get("dataset"), Some("bundled"));
        // Traces side by side name the second run.
        let pair = Route {
            vs: Some("run-2".into()),
            step: None,
            ..r
        };
        let q = pair.to_query(&[]);
        assert_eq!(q, "?view=traces&run=run%201/x&vs=run-2&session=4&task=1");
        assert_eq!(Location::parse(&format!("http://h/{q}")).route(), pair);
    }

    #[test]
    fn bad_input_falls_back() {
        let loc = Location::parse("http://h/?view=nope&session=0&task=x&a%=%zz#%E0%A4%A");
        assert_eq!(loc.route(), Route::default());
        assert_eq!(loc.get("a%"), Some("%zz"));
        assert_eq!(loc.fragment, "%E0%A4%A");
        let loc =
            Location::parse("http://h/?base_url=http%3A%2F%2F127.0.0.1%3A8000%2Fv1&model=a+b");
        assert_eq!(loc.get("base_url"), Some("http://127.0.0.1:8000/v1"));
        assert_eq!(loc.get("model"), Some("a b"));
    }
}
