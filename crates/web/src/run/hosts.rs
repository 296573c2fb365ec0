//! How many requests the page can really keep in flight, and how it keeps more of them in
//! flight against a local server.
//!
//! Browsers open at most [`PER_HOST_CONNECTIONS`] HTTP/1.1 connections per host name and
//! port, and queue the rest. Local servers (vLLM, Ollama, llama.cpp, LM Studio) speak
//! plain-HTTP HTTP/1.1, so however high the concurrency setting, six requests are in
//! flight at once; HTTPS providers speak HTTP/2, which carries every request over one
//! connection and is not capped.
//!
//! For a loopback endpoint the page spreads its requests over several names of the same
//! server — `127.0.0.1`, `localhost` and `wtN.localhost` (browsers resolve every
//! `*.localhost` name to the loopback address) — each with its own six connections. A name
//! is used only once a probe has shown that the server answers under it and allows this
//! page's origin (a `GET` of its model list answered 2xx and readable). Names are only
//! used for runs that send no key, so a key is never sent to a name it was not typed for.

use wildtool_core::runner::endpoint_url::EndpointUrl;
use wildtool_core::runner::http::HttpReply;
use wildtool_core::runner::provider::{models, Endpoint, ProviderKind};

use crate::msg::{AuxPurpose, AuxRequest};

/// Connections a browser opens per host name and port over HTTP/1.1 (Chromium, Firefox
/// and Safari alike).
pub const PER_HOST_CONNECTIONS: usize = 6;

/// The other names a loopback server is tried under, in order (before the numbered
/// `wtN.localhost` names).
const LOOPBACK_NAMES: [&str; 2] = ["127.0.0.1", "localhost"];

/// The host names a run's requests go to, and how many each has in flight.
#[derive(Debug, Clone, PartialEq)]
pub struct HostPool {
    /// `http://` (HTTP/1.1: capped per host name).
    http1: bool,
    /// The base URL's origin, as request URLs start.
    origin: String,
    /// `:port` of the origin (empty for the default port).
    port: String,
    /// Names in use, the base URL's own first, with their requests in flight.
    hosts: Vec<(String, usize)>,
    /// Names being probed.
    probing: Vec<String>,
    /// Which name each request in flight went to.
    assigned: Vec<(u64, usize)>,
}

impl HostPool {
    /// The pool for a run against `base` with at most `concurrency` requests in flight;
    /// `keyless` when the run sends no key (the only runs spread over other names).
    pub fn new(base: &EndpointUrl, concurrency: usize, keyless: bool) -> HostPool {
        let origin = base.origin();
        let host = base.host().to_owned();
        let port = base.port().map(|p| format!(":{p}")).unwrap_or_default();
        let http1 = !base.is_https();
        let aliases = http1
            && keyless
            && (host == "localhost" || host.ends_with(".localhost") || host == "127.0.0.1");
        // ⌈concurrency / 6⌉ names in all: the base URL's and the others wanted.
        let wanted = if aliases {
            concurrency.div_ceil(PER_HOST_CONNECTIONS).saturating_sub(1)
        } else {
            0
        };
        let mut probing = Vec::with_capacity(wanted);
        let mut i = 0;
        while probing.len() < wanted {
            let name = match LOOPBACK_NAMES.get(i) {
                Some(n) => (*n).to_owned(),
                None => format!("wt{}.localhost", i + 1 - LOOPBACK_NAMES.len()),
            };
            i += 1;
            if name != host {
                probing.push(name);
            }
        }
        HostPool {
            http1,
            origin,
            port,
            hosts: vec![(host, 0)],
            probing,
            assigned: Vec::new(),
        }
    }

    /// A pool that keeps every request on the base URL's host (built-in agents, tests).
    pub fn single(base: &EndpointUrl) -> HostPool {
        HostPool::new(base, 1, false)
    }

    /// The probes to send for run `run`: one `GET` of the model list under each other
    /// name, without a key.
    pub fn probes(
        &self,
        run: &str,
        provider: ProviderKind,
        base_url: &EndpointUrl,
    ) -> Vec<AuxRequest> {
        let base = base_url.to_string();
        self.probing
            .iter()
            .filter_map(|name| {
                let url = self.rewrite(&base, name)?;
                Some(AuxRequest {
                    purpose: AuxPurpose::Alias(run.to_owned(), name.clone()),
                    request: models::request(
                        provider,
                        &Endpoint {
                            base_url: url,
                            browser: true,
                        },
                    ),
                    auth: None,
                })
            })
            .collect()
    }

    /// The answer to the probe of `name`: a readable 2xx answer adds the name.
    pub fn probed(&mut self, name: &str, reply: &HttpReply) {
        let Some(i) = self.probing.iter().position(|n| n == name) else {
            return;
        };
        self.probing.remove(i);
        if matches!(reply, HttpReply::Response(r) if (200..300).contains(&r.status)) {
            self.hosts.push((name.to_owned(), 0));
        }
    }

    /// `url` with the host name `name` in place of the base URL's (`None` when `url` is
    /// not under the base URL's origin).
    fn rewrite(&self, url: &str, name: &str) -> Option<String> {
        let rest = url.strip_prefix(&self.origin)?;
        let scheme = if self.http1 { "http" } else { "https" };
        Some(format!("{scheme}://{name}{}{rest}", self.port))
    }

    /// Sends request `id` (for `url`) under the name with the fewest requests in flight
    /// (the base URL's own on ties) and returns the URL to fetch.
    pub fn assign(&mut self, id: u64, url: &str) -> String {
        let Some(i) = (0..self.hosts.len()).min_by_key(|&i| (self.hosts[i].1, i)) else {
            return url.to_owned();
        };
        let rewritten = if i == 0 {
            url.to_owned()
        } else {
            match self.rewrite(url, &self.hosts[i].0) {
                Some(u) => u,
                None => return url.to_owned(),
            }
        };
        self.hosts[i].1 += 1;
        self.assigned.push((id, i));
        rewritten
    }

    /// Request `id` is over (answered or aborted).
    pub fn release(&mut self, id: u64) {
        if let Some(p) = self.assigned.iter().position(|(r, _)| *r == id) {
            let (_, i) = self.assigned.swap_remove(p);
            if let Some(h) = self.hosts.get_mut(i) {
                h.1 = h.1.saturating_sub(1);
            }
        }
    }

    /// The most requests the browser keeps in flight: `None` over HTTPS (HTTP/2, not
    /// capped), else six per name in use.
    pub fn cap(&self) -> Option<usize> {
        self.http1.then(|| self.hosts.len() * PER_HOST_CONNECTIONS)
    }

    /// The names in use, the base URL's first.
    pub fn names(&self) -> Vec<&str> {
        self.hosts.iter().map(|(n, _)| n.as_str()).collect()
    }

    /// True while probes are out.
    pub fn probing(&self) -> bool {
        !self.probing.is_empty()
    }

    /// True while probes are out and the names known so far have as many requests in
    /// flight as the browser carries at once: more would wait behind them.
    pub fn saturated(&self) -> bool {
        self.probing() && self.assigned.len() >= self.hosts.len() * PER_HOST_CONNECTIONS
    }

    /// Requests in flight per name, in the order of [`HostPool::names`].
    pub fn loads(&self) -> Vec<usize> {
        self.hosts.iter().map(|(_, n)| *n).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use wildtool_core::runner::http::{HttpResponse, NetworkFailure, NetworkKind};

    fn url(s: &str) -> EndpointUrl {
        EndpointUrl::parse(s).unwrap()
    }

    fn ok() -> HttpReply {
        HttpReply::Response(HttpResponse::new(200, r#"{"data": []}"#))
    }

    #[test]
    fn a_loopback_server_is_spread_over_the_names_that_answer() {
        let base = url("http://127.0.0.1:8000/v1");
        let mut pool = HostPool::new(&base, 24, true);
        assert_eq!(pool.cap(), Some(6), "capped until a probe answers");
        let probes = pool.probes("run-1", ProviderKind::OpenAi, &base);
        let urls: Vec<&str> = probes.iter().map(|p| p.request.url.as_str()).collect();
        assert_eq!(
            urls,
            [
                "http://localhost:8000/v1/models",
                "http://wt1.localhost:8000/v1/models",
                "http://wt2.localhost:8000/v1/models",
            ]
        );
        assert!(probes
            .iter()
            .all(|p| p.auth.is_none() && p.request.method == "GET"));
        assert_eq!(
            probes[0].purpose,
            AuxPurpose::Alias("run-1".into(), "localhost".into())
        );
        // localhost answers, wt1 is refused by the server, wt2 cannot be reached.
        pool.probed("localhost", &ok());
        pool.probed(
            "wt1.localhost",
            &HttpReply::Response(HttpResponse::new(403, "host not allowed")),
        );
        assert!(pool.probing());
        pool.probed(
            "wt2.localhost",
            &HttpReply::Network(NetworkFailure {
                kind: NetworkKind::Cors,
                message: "blocked".into(),
            }),
        );
        assert!(!pool.probing());
        pool.probed("localhost", &ok());
        assert_eq!(pool.names(), ["127.0.0.1", "localhost"]);
        assert_eq!(pool.cap(), Some(12));
        // Requests go to the least loaded name, the base URL's first.
        let u = "http://127.0.0.1:8000/v1/chat/completions";
        let sent: Vec<String> = (0..4).map(|id| pool.assign(id, u)).collect();
        assert_eq!(
            sent,
            [
                u,
                "http://localhost:8000/v1/chat/completions",
                u,
                "http://localhost:8000/v1/chat/completions"
            ]
        );
        pool.release(1);
        pool.release(1);
        assert_eq!(pool.loads(), [2, 1]);
        assert_eq!(
            pool.assign(9, u),
            "http://localhost:8000/v1/chat/completions"
        );
    }

    #[test]
    fn keyed_https_and_remote_endpoints_keep_their_one_name() {
        // A key is never sent to another name.
        let keyed = HostPool::new(&url("http://127.0.0.1:8000/v1"), 24, false);
        assert!(!keyed.probing());
        assert_eq!(keyed.cap(), Some(6));
        // HTTPS is HTTP/2: one name, no cap.
        let https = HostPool::new(&url("https://api.openai.com/v1"), 64, true);
        assert!(!https.probing());
        assert_eq!(https.cap(), None);
        // Another machine on the network: capped, nothing to spread over.
        let lan = HostPool::new(&url("http://192.168.1.9:8000/v1"), 24, true);
        assert!(!lan.probing());
        assert_eq!(lan.cap(), Some(6));
        // Six or fewer requests need no other name; a localhost base tries 127.0.0.1.
        assert!(!HostPool::new(&url("http://localhost:1234/v1"), 6, true).probing());
        let local = HostPool::new(&url("http://localhost:1234/v1"), 7, true);
        let base = url("http://localhost:1234/v1");
        let probes = local.probes("r", ProviderKind::OpenAi, &base);
        assert_eq!(probes.len(), 1);
        assert_eq!(probes[0].request.url, "http://127.0.0.1:1234/v1/models");
        // The most a run asks for: 256 in flight over 43 names.
        let wide = HostPool::new(&url("http://127.0.0.1/v1"), 256, true);
        let probes = wide.probes("r", ProviderKind::OpenAi, &url("http://127.0.0.1/v1"));
        assert_eq!(probes.len(), 42);
        assert_eq!(probes[41].request.url, "http://wt41.localhost/v1/models");
    }
}
