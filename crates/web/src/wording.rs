//! The page's words for what the shared core says in the CLI's terms, and for what only
//! a browser does (ports it refuses to connect to).

/// The ports browsers refuse to fetch from (the Fetch standard's "bad ports").
const BAD_PORTS: [u16; 80] = [
    1, 7, 9, 11, 13, 15, 17, 19, 20, 21, 22, 23, 25, 37, 42, 43, 53, 69, 77, 79, 87, 95, 101, 102,
    103, 104, 109, 110, 111, 113, 115, 117, 119, 123, 135, 137, 139, 143, 161, 179, 389, 427, 465,
    512, 513, 514, 515, 526, 530, 531, 532, 540, 548, 554, 556, 563, 587, 601, 636, 989, 990, 993,
    995, 1719, 1720, 1723, 2049, 3659, 4045, 4190, 5060, 5061, 6000, 6566, 6665, 6666, 6667, 6668,
    6669, 10080,
];

/// The port of `url` when a browser refuses it as unsafe.
pub fn bad_port(url: &str) -> Option<u16> {
    let rest = url.split_once("://")?.1;
    let host = rest.split(['/', '?', '#']).next()?;
    let port: u16 = host.rsplit_once(':')?.1.parse().ok()?;
    (BAD_PORTS.contains(&port) || port == 6697).then_some(port)
}

/// Why a request to `url` failed when the browser refused its port.
pub fn bad_port_reason(url: &str) -> Option<String> {
    bad_port(url).map(|p| {
        format!("this browser refuses to connect to port {p} (browsers block it as unsafe); serve the endpoint on another port, such as 8000")
    })
}

/// A fix as the page must say it: the key is typed in Setup, not given by a CLI flag.
pub fn page_fix(fix: &str) -> String {
    match fix.split_once(" (the CLI reads") {
        Some((head, rest)) => {
            let after = rest.split_once(')').map_or("", |(_, b)| b);
            format!("{head} (type it in Setup's API key field){after}")
        }
        None => fix.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unsafe_ports_and_page_words() {
        assert_eq!(bad_port("http://127.0.0.1:9/v1"), Some(9));
        assert_eq!(bad_port("http://127.0.0.1:8000/v1"), None);
        assert_eq!(bad_port("https://api.example.com/v1"), None);
        assert!(bad_port_reason("http://localhost:6000")
            .unwrap()
            .contains("port 6000"));
        assert_eq!(
            page_fix("check the API key (the CLI reads $OPENAI_API_KEY unless --api-key-env names another variable; the page uses its key field)"),
            "check the API key (type it in Setup's API key field)"
        );
        assert_eq!(page_fix("start the server"), "start the server");
    }
}
