//! A minimal scripted HTTP/1.1 server on 127.0.0.1 for runner tests (OpenAI-compatible
//! responses are produced by the per-test handler). Keep-alive is supported; each
//! connection runs on its own thread; the server stops when dropped.

#![allow(dead_code)]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// One received request.
#[derive(Debug, Clone)]
pub struct Request {
    /// Request line path.
    pub path: String,
    /// Lower-cased header names with values.
    pub headers: Vec<(String, String)>,
    /// Body text.
    pub body: String,
    /// 0-based arrival index.
    pub index: usize,
    /// When the request arrived.
    pub at: Instant,
}

impl Request {
    /// A header value.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }
}

/// What the server does with a request.
#[derive(Debug, Clone)]
pub enum Action {
    /// Answer with status, extra headers and body.
    Respond {
        status: u16,
        headers: Vec<(String, String)>,
        body: String,
    },
    /// Answer with status and body in chunked transfer encoding (no `Content-Length`).
    Chunked { status: u16, body: String },
    /// An event stream (`text/event-stream`, chunked): `chunks` written one by one, each
    /// after `gap`, then `end`.
    Stream {
        status: u16,
        chunks: Vec<Vec<u8>>,
        gap: Duration,
        end: StreamEnd,
    },
    /// Wait this long, then close without answering.
    Hang(Duration),
    /// Close the connection at once.
    Drop,
}

impl Action {
    /// 200 with a JSON body.
    pub fn ok(body: impl Into<String>) -> Self {
        Action::Respond {
            status: 200,
            headers: Vec::new(),
            body: body.into(),
        }
    }
    /// A status with a body.
    pub fn status(status: u16, body: impl Into<String>) -> Self {
        Action::Respond {
            status,
            headers: Vec::new(),
            body: body.into(),
        }
    }
    /// 429 with `Retry-After: secs`.
    pub fn rate_limited(secs: &str) -> Self {
        Action::Respond {
            status: 429,
            headers: vec![("Retry-After".to_owned(), secs.to_owned())],
            body: "{\"error\": {\"message\": \"rate limited\"}}".to_owned(),
        }
    }
}

/// How a scripted event stream ends.
#[derive(Debug, Clone, Copy)]
pub enum StreamEnd {
    /// The body ends properly (the terminating chunk).
    Complete,
    /// The connection closes where the chunks stop.
    Drop,
    /// Keep-alive comments every `every`, for at most `for_at_most`, then close.
    KeepAlive {
        every: Duration,
        for_at_most: Duration,
    },
}

impl Action {
    /// The event stream `text`, cut into one chunk per event, sent without delay.
    pub fn events(text: &str) -> Self {
        Action::Stream {
            status: 200,
            chunks: text
                .split_inclusive("\n\n")
                .map(|e| e.as_bytes().to_vec())
                .collect(),
            gap: Duration::ZERO,
            end: StreamEnd::Complete,
        }
    }
}

/// Writes one chunk of a chunked body.
fn write_chunk(w: &mut TcpStream, bytes: &[u8]) -> bool {
    w.write_all(format!("{:x}\r\n", bytes.len()).as_bytes())
        .and_then(|_| w.write_all(bytes))
        .and_then(|_| w.write_all(b"\r\n"))
        .and_then(|_| w.flush())
        .is_ok()
}

/// CORS headers on every response, so a page on another origin can call the mock.
const CORS: &str = "access-control-allow-origin: *\r\naccess-control-allow-headers: *\r\naccess-control-allow-methods: POST, OPTIONS\r\naccess-control-expose-headers: retry-after\r\n";

type Handler = dyn Fn(&Request) -> Action + Send + Sync;

/// A running mock server.
pub struct MockServer {
    addr: SocketAddr,
    stop: Arc<AtomicBool>,
    /// Every request received.
    pub log: Arc<Mutex<Vec<Request>>>,
}

impl MockServer {
    /// Starts a server answering with `handler`.
    pub fn start(handler: impl Fn(&Request) -> Action + Send + Sync + 'static) -> Self {
        Self::start_at(("127.0.0.1", 0), handler)
    }

    fn start_at(
        addr: (&str, u16),
        handler: impl Fn(&Request) -> Action + Send + Sync + 'static,
    ) -> Self {
        let listener = TcpListener::bind(addr).expect("bind on 127.0.0.1");
        let addr = listener.local_addr().expect("local addr");
        listener.set_nonblocking(true).expect("nonblocking");
        let stop = Arc::new(AtomicBool::new(false));
        let log = Arc::new(Mutex::new(Vec::new()));
        let handler: Arc<Handler> = Arc::new(handler);
        let counter = Arc::new(AtomicUsize::new(0));
        {
            let stop = stop.clone();
            let log = log.clone();
            std::thread::spawn(move || {
                while !stop.load(Ordering::Relaxed) {
                    match listener.accept() {
                        Ok((stream, _)) => {
                            let handler = handler.clone();
                            let log = log.clone();
                            let stop = stop.clone();
                            let counter = counter.clone();
                            std::thread::spawn(move || {
                                serve(stream, &*handler, &log, &stop, &counter)
                            });
                        }
                        Err(_) => std::thread::sleep(Duration::from_millis(2)),
                    }
                }
            });
        }
        Self { addr, stop, log }
    }

    /// Starts a server on a fixed port (browser tests need a known address).
    pub fn start_on(
        port: u16,
        handler: impl Fn(&Request) -> Action + Send + Sync + 'static,
    ) -> std::io::Result<Self> {
        let probe = TcpListener::bind(("127.0.0.1", port))?;
        drop(probe);
        Ok(Self::start_at(("127.0.0.1", port), handler))
    }

    /// `http://127.0.0.1:PORT/v1`.
    pub fn base_url(&self) -> String {
        format!("http://{}/v1", self.addr)
    }

    /// Requests received so far.
    pub fn requests(&self) -> Vec<Request> {
        self.log.lock().map(|l| l.clone()).unwrap_or_default()
    }
}

impl Drop for MockServer {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
    }
}

fn serve(
    stream: TcpStream,
    handler: &Handler,
    log: &Mutex<Vec<Request>>,
    stop: &AtomicBool,
    counter: &AtomicUsize,
) {
    let _ = stream.set_nonblocking(false);
    let _ = stream.set_read_timeout(Some(Duration::from_secs(10)));
    let Ok(mut writer) = stream.try_clone() else {
        return;
    };
    let mut reader = BufReader::new(stream);
    while !stop.load(Ordering::Relaxed) {
        let mut line = String::new();
        if reader.read_line(&mut line).map(|n| n == 0).unwrap_or(true) {
            return;
        }
        let path = line.split_whitespace().nth(1).unwrap_or("").to_owned();
        let mut headers = Vec::new();
        loop {
            let mut h = String::new();
            if reader.read_line(&mut h).map(|n| n == 0).unwrap_or(true) {
                return;
            }
            let h = h.trim_end();
            if h.is_empty() {
                break;
            }
            if let Some((k, v)) = h.split_once(':') {
                headers.push((k.trim().to_lowercase(), v.trim().to_owned()));
            }
        }
        let len: usize = headers
            .iter()
            .find(|(k, _)| k == "content-length")
            .and_then(|(_, v)| v.parse().ok())
            .unwrap_or(0);
        let mut body = vec![0u8; len];
        if reader.read_exact(&mut body).is_err() {
            return;
        }
        if line.starts_with("OPTIONS ") {
            // CORS preflight (browser tests): allow everything, never logged or scripted.
            let out = format!("HTTP/1.1 204 No Content\r\n{CORS}content-length: 0\r\n\r\n");
            if writer
                .write_all(out.as_bytes())
                .and_then(|_| writer.flush())
                .is_err()
            {
                return;
            }
            continue;
        }
        let req = Request {
            path,
            headers,
            body: String::from_utf8_lossy(&body).into_owned(),
            index: counter.fetch_add(1, Ordering::SeqCst),
            at: Instant::now(),
        };
        if let Ok(mut l) = log.lock() {
            l.push(req.clone());
        }
        match handler(&req) {
            Action::Respond {
                status,
                headers,
                body,
            } => {
                let mut out = format!("HTTP/1.1 {status} X\r\n{CORS}content-type: application/json\r\ncontent-length: {}\r\n", body.len());
                for (k, v) in headers {
                    out.push_str(&format!("{k}: {v}\r\n"));
                }
                out.push_str("\r\n");
                out.push_str(&body);
                if writer
                    .write_all(out.as_bytes())
                    .and_then(|_| writer.flush())
                    .is_err()
                {
                    return;
                }
            }
            Action::Chunked { status, body } => {
                let head = format!("HTTP/1.1 {status} X\r\n{CORS}content-type: application/json\r\ntransfer-encoding: chunked\r\n\r\n");
                let mut ok = writer.write_all(head.as_bytes()).is_ok();
                for chunk in body.as_bytes().chunks(64 * 1024) {
                    if !ok {
                        break;
                    }
                    ok = writer
                        .write_all(format!("{:x}\r\n", chunk.len()).as_bytes())
                        .and_then(|_| writer.write_all(chunk))
                        .and_then(|_| writer.write_all(b"\r\n"))
                        .is_ok();
                }
                if !ok
                    || writer
                        .write_all(b"0\r\n\r\n")
                        .and_then(|_| writer.flush())
                        .is_err()
                {
                    return;
                }
            }
            Action::Stream {
                status,
                chunks,
                gap,
                end,
            } => {
                let head = format!("HTTP/1.1 {status} X\r\n{CORS}content-type: text/event-stream\r\ncache-control: no-cache\r\ntransfer-encoding: chunked\r\n\r\n");
                if writer.write_all(head.as_bytes()).is_err() {
                    return;
                }
                for chunk in chunks.iter().filter(|c| !c.is_empty()) {
                    if !gap.is_zero() {
                        std::thread::sleep(gap);
                    }
                    if !write_chunk(&mut writer, chunk) {
                        return;
                    }
                }
                match end {
                    StreamEnd::Complete => {
                        if writer
                            .write_all(b"0\r\n\r\n")
                            .and_then(|_| writer.flush())
                            .is_err()
                        {
                            return;
                        }
                    }
                    StreamEnd::Drop => return,
                    StreamEnd::KeepAlive { every, for_at_most } => {
                        let start = Instant::now();
                        while start.elapsed() < for_at_most && !stop.load(Ordering::Relaxed) {
                            std::thread::sleep(every);
                            if !write_chunk(&mut writer, b": keep-alive\n\n") {
                                return;
                            }
                        }
                        return;
                    }
                }
            }
            Action::Hang(d) => {
                std::thread::sleep(d);
                return;
            }
            Action::Drop => return,
        }
    }
}
