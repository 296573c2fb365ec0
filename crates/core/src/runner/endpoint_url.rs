//! Endpoint base URLs: what a run may send requests to, and the origin a remembered API
//! key is bound to.
//!
//! Only absolute `http://` and `https://` URLs with a host are endpoints; everything else
//! (`not a url`, `file:///x`, `ftp://x`, a URL with credentials in it) is refused before any
//! request is sent. The *origin* (`scheme://host[:port]`, lower-case, default port dropped)
//! is the unit of trust for keys: a key remembered for one origin is never attached to a
//! request for another.

use std::fmt;

/// A parsed endpoint base URL.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EndpointUrl {
    scheme: &'static str,
    host: String,
    port: Option<u16>,
    /// Path and query as given (may be empty).
    rest: String,
}

/// Why a base URL is not usable.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum UrlError {
    /// Nothing was given.
    #[error("the base URL is empty")]
    Empty,
    /// No `scheme://`.
    #[error("{0:?} is not an absolute URL (expected e.g. http://127.0.0.1:8000/v1)")]
    NotAbsolute(String),
    /// A scheme other than http/https.
    #[error("{0:?}: only http:// and https:// endpoints are supported")]
    Scheme(String),
    /// `scheme://` without a host.
    #[error("{0:?} has no host name")]
    NoHost(String),
    /// `user:password@` in the URL (the key belongs in the key setting).
    #[error("{0:?} contains credentials; put the API key in the key setting instead")]
    Credentials(String),
    /// Whitespace, control characters or an unparseable port.
    #[error("{0:?} is not a valid URL: {1}")]
    Malformed(String, &'static str),
}

impl EndpointUrl {
    /// Parses and checks a base URL (surrounding whitespace is ignored).
    pub fn parse(input: &str) -> Result<Self, UrlError> {
        let text = input.trim();
        if text.is_empty() {
            return Err(UrlError::Empty);
        }
        let shown = || text.chars().take(200).collect::<String>();
        if text.chars().any(|c| c.is_whitespace() || c.is_control()) {
            return Err(UrlError::Malformed(
                shown(),
                "it contains spaces or control characters",
            ));
        }
        let Some((scheme, after)) = text.split_once("://") else {
            return Err(UrlError::NotAbsolute(shown()));
        };
        let scheme = match scheme.to_ascii_lowercase().as_str() {
            "http" => "http",
            "https" => "https",
            "" => return Err(UrlError::NotAbsolute(shown())),
            _ => return Err(UrlError::Scheme(shown())),
        };
        let end = after.find(['/', '?', '#']).unwrap_or(after.len());
        let (authority, rest) = after.split_at(end);
        if authority.contains('@') {
            return Err(UrlError::Credentials(shown()));
        }
        let (host, port) = split_port(authority).ok_or_else(|| {
            UrlError::Malformed(shown(), "the port is not a number from 1 to 65535")
        })?;
        if host.is_empty() {
            return Err(UrlError::NoHost(shown()));
        }
        let host_ok = if host.starts_with('[') {
            host.ends_with(']')
                && host.len() > 2
                && host[1..host.len() - 1]
                    .chars()
                    .all(|c| c.is_ascii_hexdigit() || c == ':' || c == '.')
        } else {
            host.chars()
                .all(|c| c.is_alphanumeric() || matches!(c, '-' | '.' | '_'))
        };
        if !host_ok {
            return Err(UrlError::Malformed(
                shown(),
                "the host name has invalid characters",
            ));
        }
        let default_port = if scheme == "http" { 80 } else { 443 };
        Ok(Self {
            scheme,
            host: host.to_lowercase(),
            port: port.filter(|&p| p != default_port),
            rest: rest.to_owned(),
        })
    }

    /// `scheme://host[:port]`, lower-case, without a default port.
    pub fn origin(&self) -> String {
        match self.port {
            Some(p) => format!("{}://{}:{p}", self.scheme, self.host),
            None => format!("{}://{}", self.scheme, self.host),
        }
    }

    /// The host name (lower-case; IPv6 addresses keep their brackets).
    pub fn host(&self) -> &str {
        &self.host
    }

    /// The port, when the URL names one other than the scheme's default.
    pub fn port(&self) -> Option<u16> {
        self.port
    }

    /// True for `https`.
    pub fn is_https(&self) -> bool {
        self.scheme == "https"
    }

    /// True when the host is this machine (`localhost`, `127.0.0.0/8`, `[::1]`).
    pub fn is_loopback(&self) -> bool {
        self.host == "localhost"
            || self.host.ends_with(".localhost")
            || self.host == "[::1]"
            || self.host.strip_prefix("127.").is_some_and(|r| {
                r.split('.').count() == 3 && r.split('.').all(|p| p.parse::<u8>().is_ok())
            })
    }
}

impl fmt::Display for EndpointUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.origin(), self.rest)
    }
}

/// The ports browsers refuse to connect to (the Fetch standard's "bad ports").
const BROWSER_BLOCKED_PORTS: [u16; 81] = [
    1, 7, 9, 11, 13, 15, 17, 19, 20, 21, 22, 23, 25, 37, 42, 43, 53, 69, 77, 79, 87, 95, 101, 102,
    103, 104, 109, 110, 111, 113, 115, 117, 119, 123, 135, 137, 139, 143, 161, 179, 389, 427, 465,
    512, 513, 514, 515, 526, 530, 531, 532, 540, 548, 554, 556, 563, 587, 601, 636, 989, 990, 993,
    995, 1719, 1720, 1723, 2049, 3659, 4045, 4190, 5060, 5061, 6000, 6566, 6665, 6666, 6667, 6668,
    6669, 6697, 10080,
];

/// The port of `url` when browsers refuse to connect to it as unsafe (a `fetch` to it fails
/// before anything is sent, so nothing can answer there from a page).
pub fn browser_blocked_port(url: &str) -> Option<u16> {
    let port = EndpointUrl::parse(url).ok()?.port?;
    BROWSER_BLOCKED_PORTS.contains(&port).then_some(port)
}

/// Splits `host[:port]` (IPv6 in brackets); `None` when the port is not 1..=65535.
fn split_port(authority: &str) -> Option<(&str, Option<u16>)> {
    let (host, port) = if authority.starts_with('[') {
        match authority.find(']') {
            Some(i) => {
                let (h, rest) = authority.split_at(i + 1);
                match rest.strip_prefix(':') {
                    Some(p) => (h, Some(p)),
                    None if rest.is_empty() => (h, None),
                    None => return None,
                }
            }
            None => (authority, None),
        }
    } else {
        match authority.rsplit_once(':') {
            Some((h, p)) => (h, Some(p)),
            None => (authority, None),
        }
    };
    match port {
        None => Some((host, None)),
        Some("") => Some((host, None)),
        Some(p) => match p.parse::<u16>() {
            Ok(n) if n > 0 && p.chars().all(|c| c.is_ascii_digit()) => Some((host, Some(n))),
            _ => None,
        },
    }
}

/// Whether a key remembered for `saved_origin` may be sent to `endpoint`: only when the
/// endpoint parses and its origin is exactly the saved one.
pub fn key_allowed_for(saved_origin: &str, endpoint: &str) -> bool {
    EndpointUrl::parse(endpoint)
        .is_ok_and(|u| !saved_origin.is_empty() && u.origin() == saved_origin)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ports_browsers_block() {
        assert_eq!(browser_blocked_port("http://127.0.0.1:9/v1"), Some(9));
        assert_eq!(browser_blocked_port("http://localhost:6000"), Some(6000));
        assert_eq!(browser_blocked_port("http://127.0.0.1:8000/v1"), None);
        assert_eq!(browser_blocked_port("https://api.example.com/v1"), None);
        assert_eq!(browser_blocked_port("not a url"), None);
    }

    #[test]
    fn origins_are_normalised() {
        let o = |s: &str| EndpointUrl::parse(s).map(|u| u.origin());
        assert_eq!(
            o("HTTP://LocalHost:80/v1"),
            Ok("http://localhost".to_owned())
        );
        assert_eq!(
            o(" https://api.openai.com/v1 "),
            Ok("https://api.openai.com".to_owned())
        );
        assert_eq!(o("https://h:8443"), Ok("https://h:8443".to_owned()));
        assert_eq!(
            o("http://[::1]:8000/v1"),
            Ok("http://[::1]:8000".to_owned())
        );
        assert_eq!(
            o("http://127.0.0.1:11434/v1?x=1"),
            Ok("http://127.0.0.1:11434".to_owned())
        );
    }

    #[test]
    fn non_endpoints_are_refused_with_a_reason() {
        assert_eq!(EndpointUrl::parse("  "), Err(UrlError::Empty));
        assert!(matches!(
            EndpointUrl::parse("not a url"),
            Err(UrlError::Malformed(..))
        ));
        assert!(matches!(
            EndpointUrl::parse("localhost:8000"),
            Err(UrlError::NotAbsolute(_))
        ));
        assert!(matches!(
            EndpointUrl::parse("file:///x"),
            Err(UrlError::Scheme(_))
        ));
        assert!(matches!(
            EndpointUrl::parse("ftp://x"),
            Err(UrlError::Scheme(_))
        ));
        assert!(matches!(
            EndpointUrl::parse("http://"),
            Err(UrlError::NoHost(_))
        ));
        assert!(matches!(
            EndpointUrl::parse("http:///v1"),
            Err(UrlError::NoHost(_))
        ));
        assert!(matches!(
            EndpointUrl::parse("https://u:p@h/v1"),
            Err(UrlError::Credentials(_))
        ));
        assert!(matches!(
            EndpointUrl::parse("http://h:99999/"),
            Err(UrlError::Malformed(..))
        ));
        assert!(matches!(
            EndpointUrl::parse("http://h:-1/"),
            Err(UrlError::Malformed(..))
        ));
        assert!(matches!(
            EndpointUrl::parse("http://a<b/"),
            Err(UrlError::Malformed(..))
        ));
    }

    #[test]
    fn keys_stay_with_their_origin() {
        let saved = "https://api.openai.com";
        assert!(key_allowed_for(saved, "https://api.openai.com/v1"));
        assert!(key_allowed_for(saved, "HTTPS://API.OPENAI.COM:443/v2"));
        assert!(!key_allowed_for(saved, "https://any-host.example/v1"));
        assert!(!key_allowed_for(saved, "http://api.openai.com/v1"));
        assert!(!key_allowed_for(
            saved,
            "https://api.openai.com.evil.example/v1"
        ));
        assert!(!key_allowed_for(saved, "https://api.openai.com:444/v1"));
        assert!(!key_allowed_for("", "https://api.openai.com/v1"));
        assert!(!key_allowed_for(saved, "garbage"));
    }

    #[test]
    fn loopback_hosts() {
        let l = |s: &str| {
            EndpointUrl::parse(s)
                .map(|u| u.is_loopback())
                .unwrap_or(false)
        };
        assert!(l("http://127.0.0.1:8000"));
        assert!(l("http://127.1.2.3:8000"));
        assert!(l("http://localhost:8000"));
        assert!(l("http://a.localhost:8000"));
        assert!(l("http://[::1]:8000"));
        assert!(!l("http://127.0.0.1.evil.example"));
        assert!(!l("http://10.0.0.1"));
    }
}
