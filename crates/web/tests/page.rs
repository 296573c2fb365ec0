//! The page driven natively: messages in, effects carried out by an in-memory stand-in
//! for the browser (files, key-value store, fetches of the served data), views checked
//! as element trees. Every test goes through `AppState::update` and `views::frame`, as
//! the browser does.

use std::collections::{BTreeMap, HashMap, VecDeque};

use wildtool_contract::Call;
use wildtool_web::msg::{Effect, FileRef, Msg};
use wildtool_web::run::engine::{HttpReply as Reply, HttpResponse, NetworkFailure, NetworkKind};
use wildtool_web::state::{AppState, Now};
use wildtool_web::ui::Node;
use wildtool_web::views::{self, Frame, Hooks};

/// A rendered frame read back, lab-module subtrees included.
struct Shown {
    root: wildtool_web::ui::wire::Wire,
    hooks: Hooks,
    frame: Frame,
}

impl Shown {
    fn to_json(&self) -> String {
        self.frame.to_json()
    }

    /// The ids of the charts shown, in order.
    fn charts(&self) -> Vec<&str> {
        self.root
            .elements()
            .into_iter()
            .filter_map(|e| e.get("data-chart"))
            .collect()
    }
}

const SUITE: &str = include_str!("../../../data/suite.jsonl");
const LEADERBOARD: &str = include_str!("../../../data/paper-leaderboard.json");
const MINI: &str = include_str!("../../../tests/fixtures/mini.jsonl");
const OFFICIAL: &str = include_str!("../../../data/official-datasets.json");
const SEED0_RESULT: &str =
    include_str!("../../../tests/fixtures/official-runs/mock-seed-0/mini_result.jsonl");
const SEED0_METRIC: &str =
    include_str!("../../../tests/fixtures/official-runs/mock-seed-0/mini_metric.json");
const SEED0_SCORE: &str =
    include_str!("../../../tests/fixtures/official-runs/mock-seed-0/mini_score.jsonl");

/// A scripted endpoint: the reply to each request.
type Server = Box<dyn FnMut(&wildtool_web::msg::Outgoing) -> Reply>;

/// A scripted endpoint for requests beside the run (model lists, host-name probes).
type AuxServer = Box<dyn FnMut(&wildtool_web::msg::AuxRequest) -> Reply>;

/// A scripted endpoint for the streaming probe's requests.
type ProbeServer = Box<dyn FnMut(&wildtool_web::msg::ProbeSend) -> Reply>;

/// The browser, in memory.
struct Browser {
    server: Option<Server>,
    probe_server: Option<ProbeServer>,
    /// Bytes per chunk in which a streamed response is handed over.
    stream_chunk: usize,
    aux_server: Option<AuxServer>,
    aux_sent: Vec<wildtool_web::msg::AuxRequest>,
    timer: Option<f64>,
    sent: Vec<wildtool_web::msg::Outgoing>,
    aborted: Vec<u64>,
    state: AppState,
    kv: BTreeMap<String, String>,
    files: HashMap<u32, Vec<u8>>,
    next_file: u32,
    queue: VecDeque<Msg>,
    served: HashMap<String, String>,
    urls: Vec<String>,
    downloads: Vec<(String, String)>,
    jieba_loads: usize,
    jieba_fails: bool,
    /// Lab calls carried out (by name).
    lab_calls: Vec<&'static str>,
    /// Times the lab's stream readers were installed (once per page before its first run).
    reader_loads: usize,
    /// The lab module cannot be loaded (the reason).
    lab_fails: Option<String>,
    /// Uploads are scored by the upload scorer, as the page's worker does (natively here);
    /// `Some(true)`: its score lines come back kept (as the glue keeps a `Blob`).
    worker: Option<bool>,
    /// Score files kept by the glue, by id.
    kept: HashMap<u32, String>,
    now: f64,
}

impl Browser {
    fn open(href: &str, kv: BTreeMap<String, String>) -> Browser {
        let mut served = HashMap::new();
        served.insert("./data/suite.jsonl".to_owned(), SUITE.to_owned());
        served.insert(
            "./data/paper-leaderboard.json".to_owned(),
            LEADERBOARD.to_owned(),
        );
        served.insert("http://page/mini.jsonl".to_owned(), MINI.to_owned());
        served.insert(
            "./data/official-datasets.json".to_owned(),
            OFFICIAL.to_owned(),
        );
        served.insert(
            "http://page/seed0_result.jsonl".to_owned(),
            SEED0_RESULT.to_owned(),
        );
        // The packs bundle scripts/build-web.sh writes: `[{name, text}]`.
        let packs: Vec<serde_json::Value> = wildtool_core::generate::pack::PACK_FILES
            .iter()
            .map(|name| {
                let path = format!("{}/../../data/packs/{name}", env!("CARGO_MANIFEST_DIR"));
                let text = std::fs::read_to_string(&path).expect("pack file");
                serde_json::json!({ "name": name, "text": text })
            })
            .collect();
        served.insert(
            "./data/packs.json".to_owned(),
            serde_json::to_string(&packs).unwrap(),
        );
        let mut b = Browser {
            server: None,
            probe_server: None,
            stream_chunk: 13,
            aux_server: None,
            aux_sent: Vec::new(),
            timer: None,
            sent: Vec::new(),
            aborted: Vec::new(),
            state: AppState::new(href, None),
            kv,
            files: HashMap::new(),
            next_file: 1,
            queue: VecDeque::new(),
            served,
            urls: Vec::new(),
            downloads: Vec::new(),
            jieba_loads: 0,
            jieba_fails: false,
            lab_calls: Vec::new(),
            reader_loads: 0,
            lab_fails: None,
            worker: None,
            kept: HashMap::new(),
            now: 1000.0,
        };
        b.state.budget.prices = b.kv.get(PRICES_STORAGE).cloned();
        let fx = b.state.start();
        b.carry_out(fx);
        b.settle();
        b
    }

    fn now(&self) -> Now {
        Now {
            mono: self.now,
            unix_ms: 1_764_600_000_000.0 + self.now * 1000.0,
        }
    }

    fn carry_out(&mut self, effects: Vec<Effect>) {
        for e in effects {
            match e {
                Effect::Fetch(url, purpose) => {
                    let r = self
                        .served
                        .get(&url)
                        .cloned()
                        .ok_or_else(|| "HTTP 404".to_owned());
                    self.queue.push_back(Msg::Fetched(purpose, r));
                }
                Effect::ReadFile {
                    file,
                    offset,
                    len,
                    purpose,
                } => {
                    let bytes = self
                        .files
                        .get(&file.id)
                        .map(|b| {
                            let end = (offset + len).min(b.len() as u64) as usize;
                            b[offset as usize..end].to_vec()
                        })
                        .ok_or_else(|| "gone".to_owned());
                    self.queue.push_back(Msg::FileRead {
                        purpose,
                        file,
                        offset,
                        bytes,
                    });
                }
                // Without `worker` (`flags.worker` stays false) uploads are scored on the
                // main thread and this effect is never asked for.
                Effect::ScoreInWorker {
                    file,
                    text,
                    lang,
                    keep,
                } => {
                    let blob = self.worker.expect("a worker");
                    let bytes = self.files.get(&file.id).cloned().unwrap_or_default();
                    let (summary, lines, text) =
                        self.score_in_worker(&bytes, &text, lang, keep && !blob);
                    let lines = if blob {
                        let id = self.kept.len() as u32 + 1;
                        self.kept.insert(id, lines);
                        Err(id)
                    } else {
                        Ok(lines)
                    };
                    let result = Ok((summary, lines, text));
                    let id = file.id;
                    self.queue.push_back(Msg::WorkerProgress {
                        file: id,
                        read: bytes.len() as u64 / 2,
                    });
                    self.queue.push_back(Msg::WorkerScored { file: id, result });
                }
                Effect::DownloadKept { id, name } => {
                    let data = self.kept.get(&id).cloned().expect("a kept file");
                    self.downloads.push((name, data));
                }
                Effect::ReleaseFile(id) => {
                    self.files.remove(&id);
                }
                Effect::KvPut(entries) => self.kv.extend(entries),
                Effect::KvDelete(keys) => {
                    for k in keys {
                        self.kv.remove(&k);
                    }
                }
                Effect::KvDeletePrefix(p) => self.kv.retain(|k, _| !k.starts_with(&p)),
                Effect::KvList(p, purpose) => {
                    let entries = self
                        .kv
                        .iter()
                        .filter(|(k, _)| k.starts_with(&p))
                        .map(|(k, v)| (k.clone(), v.clone()))
                        .collect();
                    self.queue.push_back(Msg::Listed(purpose, entries));
                }
                Effect::KvGet(k, purpose) => self
                    .queue
                    .push_back(Msg::Got(purpose, self.kv.get(&k).cloned())),
                Effect::Download { name, data, .. } => self.downloads.push((name, data)),
                Effect::DownloadPng { name, .. } => self.downloads.push((name, String::new())),
                Effect::Copy(_) => self.queue.push_back(Msg::Copied(true)),
                Effect::PushUrl(u) | Effect::ReplaceUrl(u) => self.urls.push(u),
                Effect::SaveKey(_) | Effect::ForgetKey => {}
                // localStorage, kept with the store so a reopened browser has it.
                Effect::SavePrices(Some(t)) => {
                    self.kv.insert(PRICES_STORAGE.to_owned(), t);
                }
                Effect::SavePrices(None) => {
                    self.kv.remove(PRICES_STORAGE);
                }
                Effect::LoadJieba if self.jieba_fails => {
                    self.queue
                        .push_back(Msg::JiebaLoaded(Err("HTTP 404 for the dictionary".into())));
                }
                Effect::LoadJieba => {
                    let seg = wildtool_core::checker::default_segmenter();
                    let cut: wildtool_lab::score::Cut =
                        std::rc::Rc::new(move |s: &str| seg.cut(s).ok());
                    // The glue hands the lab module (which scores) the same segmenter.
                    wildtool_lab::score::install_cut(cut.clone());
                    self.state.install_segmenter(cut);
                    self.jieba_loads += 1;
                    self.queue.push_back(Msg::JiebaLoaded(Ok(())));
                }
                Effect::Send(out) => {
                    let id = out.transmit.id.0;
                    if let Some(server) = &mut self.server {
                        let reply = server(&out);
                        match (out.transmit.stream, reply) {
                            // A streamed response arrives as its head and chunks.
                            (true, Reply::Response(r)) => {
                                for part in stream_parts(&r, self.stream_chunk) {
                                    self.queue.push_back(Msg::Stream(id, part));
                                }
                            }
                            (_, reply) => self.queue.push_back(Msg::Reply(id, reply)),
                        }
                    }
                    self.sent.push(out);
                }
                Effect::Probe(send) => {
                    let reply = match &mut self.probe_server {
                        Some(server) => server(&send),
                        None => Reply::Network(NetworkFailure {
                            kind: NetworkKind::Unreachable,
                            message: "no server".into(),
                        }),
                    };
                    let seq = send.seq;
                    match (send.stream, reply) {
                        (true, Reply::Response(r)) => {
                            for part in stream_parts(&r, self.stream_chunk) {
                                self.queue.push_back(Msg::Probe(
                                    seq,
                                    wildtool_web::msg::ProbeIn::Stream(part),
                                ));
                            }
                        }
                        (_, reply) => self
                            .queue
                            .push_back(Msg::Probe(seq, wildtool_web::msg::ProbeIn::Reply(reply))),
                    }
                }
                // The lab module's pure functions, called directly (the page loads them
                // as a second WebAssembly module).
                Effect::Lab {
                    call,
                    input,
                    purpose,
                } => {
                    // The dashboard's own calls (its charts, share link, chart files, the
                    // run's cost) are made for every run shown, and every run installs the
                    // lab's stream readers (its exchange log and manifest); the tests count
                    // the others.
                    if !matches!(
                        call,
                        Call::DashboardCharts
                            | Call::CostView
                            | Call::ShareEncode
                            | Call::ChartFile
                            | Call::ShareDecode
                            | Call::LinkHeader
                            | Call::HistoryList
                            | Call::Score
                            | Call::StreamRead
                    ) {
                        self.lab_calls.push(call.name());
                    }
                    // The glue installs the lab module's scorer whenever the module loads.
                    if self.lab_fails.is_none() && !wildtool_web::scoring::ready() {
                        wildtool_web::scoring::install(std::rc::Rc::new(|input: &str| {
                            wildtool_lab::call("score", input).map_err(|e| e.to_string())
                        }));
                    }
                    if purpose == wildtool_web::msg::LabPurpose::StreamReaders {
                        self.reader_loads += 1;
                        let run: wildtool_web::run::readers::StreamCall =
                            std::rc::Rc::new(|input: &str| {
                                wildtool_lab::call("stream_read", input).map_err(|e| e.to_string())
                            });
                        self.state.install_stream_call(run);
                        let cassette: wildtool_web::run::readers::StreamCall =
                            std::rc::Rc::new(|input: &str| {
                                wildtool_lab::call("cassette", input).map_err(|e| e.to_string())
                            });
                        self.state.cassette_call = Some(cassette);
                    }
                    if purpose == wildtool_web::msg::LabPurpose::EnvReady {
                        let run: wildtool_web::env::SyncCall =
                            std::rc::Rc::new(|call: Call, input: &str| {
                                wildtool_lab::run(call, input).map_err(|e| e.to_string())
                            });
                        self.state.install_env_call(run);
                    }
                    let msg = match &self.lab_fails {
                        Some(why) => Msg::LabFailed {
                            purpose,
                            error: why.clone(),
                        },
                        None => match wildtool_lab::run(call, &input) {
                            Ok(output) => Msg::LabDone { purpose, output },
                            Err(e) => Msg::LabFailed {
                                purpose,
                                error: e.to_string(),
                            },
                        },
                    };
                    self.queue.push_back(msg);
                }
                Effect::Abort(id) => self.aborted.push(id),
                Effect::Aux(aux) => {
                    let reply = match &mut self.aux_server {
                        Some(server) => server(&aux),
                        None => Reply::Network(NetworkFailure {
                            kind: NetworkKind::Other,
                            message: "no server".into(),
                        }),
                    };
                    self.queue
                        .push_back(Msg::AuxDone(aux.purpose.clone(), reply));
                    self.aux_sent.push(aux);
                }
                Effect::WakeAt(at) => self.timer = Some(at),
                Effect::AgentsSoon => self.queue.push_back(Msg::AgentStep),
                Effect::ContinueSoon => self.queue.push_back(Msg::Continue),
            }
        }
    }

    fn deliver(&mut self, msg: Msg) {
        self.now += 0.01;
        let fx = self.state.update(msg, self.now());
        self.carry_out(fx);
    }

    fn settle(&mut self) {
        for _ in 0..100_000 {
            let Some(m) = self.queue.pop_front() else {
                return;
            };
            self.deliver(m);
        }
        panic!("the page did not settle");
    }

    /// Delivers at most `n` queued messages.
    fn step(&mut self, n: usize) {
        for _ in 0..n {
            let Some(m) = self.queue.pop_front() else {
                return;
            };
            self.deliver(m);
        }
    }

    fn act(&mut self, action: &str, arg: &str, value: &str) {
        let msg = Msg::from_action(action, arg, value)
            .unwrap_or_else(|| panic!("unknown action {action}"));
        self.deliver(msg);
        self.settle();
    }

    /// What the page's scoring worker answers: the upload scorer over `bytes` in slices.
    fn score_in_worker(
        &self,
        bytes: &[u8],
        dataset: &str,
        lang: &str,
        keep: bool,
    ) -> (String, String, Option<String>) {
        let mut s = wildtool_scorer::UploadScoring::new(dataset, lang, keep, bytes.len() as u64);
        let slices: Vec<&[u8]> = bytes.chunks(4096).collect();
        for (i, slice) in slices.iter().enumerate() {
            if s.push(slice, i + 1 == slices.len()) {
                // (The page tests run natively, where the dictionary is embedded; the
                // browser installs the served dictionary.)
                #[cfg(not(target_arch = "wasm32"))]
                s.set_jieba(wildtool_core::checker::JiebaSegmenter::with_default_dict());
                s.resume();
            }
        }
        if slices.is_empty() {
            s.push(&[], true);
        }
        let mut done = s.finish(None);
        let lines = done.score_jsonl();
        (done.summary, lines, done.result_text)
    }

    fn drop_file(&mut self, action: &str, name: &str, bytes: &[u8]) {
        let id = self.next_file;
        self.next_file += 1;
        self.files.insert(id, bytes.to_vec());
        let msg = Msg::from_file_action(
            action,
            FileRef {
                id,
                name: name.into(),
                size: bytes.len() as u64,
            },
        )
        .expect("file action");
        self.deliver(msg);
        self.settle();
    }

    /// The frame as the browser shows it: views the lab module rendered spliced in.
    fn frame(&self) -> Shown {
        let frame = views::frame(&self.state);
        Shown {
            root: frame.root.expand().expect("the frame is an element tree"),
            hooks: frame.hooks.clone(),
            frame,
        }
    }

    fn text(&self, id: &str) -> String {
        self.deep_text(id)
    }

    /// Text of the element `id`, looking inside views rendered by the lab module too.
    fn deep_text(&self, id: &str) -> String {
        let tree = self.frame().root;
        tree.by_id(id).map(|e| e.text_content()).unwrap_or_default()
    }

    fn hook(&self, name: &str) -> Option<String> {
        self.frame().hooks.get(name).cloned()
    }

    fn headline(&self) -> serde_json::Value {
        serde_json::from_str(&self.hook("headline").unwrap_or_default()).unwrap_or_default()
    }

    fn metric_values(&self, id: &str) -> Vec<String> {
        let f = self.frame();
        let Some(box_) = f.root.by_id(id) else {
            return Vec::new();
        };
        box_.elements()
            .into_iter()
            .filter(|e| e.has_class("metric-value"))
            .map(|e| e.text_content())
            .collect()
    }
}

/// Where the test browser keeps what the page puts in `localStorage` (the user's prices).
const PRICES_STORAGE: &str = "localStorage/wildtool.prices";

/// Delivers the timers until the run ends (its outcome is on the page).
fn finish(b: &mut Browser) {
    for _ in 0..200 {
        if b.hook("runOutcome").is_some() {
            break;
        }
        if let Some(t) = b.timer.take() {
            b.now = b.now.max(t);
            b.deliver(Msg::Tick);
            b.settle();
        }
    }
}

/// The text of an export of the shown run (`run`, `result`, `score`, `metric`, …).
fn export(b: &mut Browser, what: &str) -> String {
    b.act("export", what, "");
    b.downloads.last().map(|d| d.1.clone()).unwrap_or_default()
}

/// A chat server whose every reply is a text naming the request body's length (replies
/// differ per request) with usage (12 prompt, 3 completion tokens), after `members`.
fn chat_server(members: &'static str) -> Server {
    Box::new(move |out| {
        let n = out.transmit.request.body.len();
        Reply::Response(HttpResponse::new(
            200,
            format!(
                r#"{{{members}"choices": [{{"index": 0, "message": {{"role": "assistant", "content": "Done {n}."}}, "finish_reason": "stop"}}], "usage": {{"prompt_tokens": 12, "completion_tokens": 3}}}}"#
            ),
        ))
    })
}

/// The claims the Verify drop zone shows.
fn verify_claims(b: &Browser) -> Vec<String> {
    let f = b.frame();
    let Some(list) = f.root.by_id("verify-claims") else {
        return Vec::new();
    };
    list.elements()
        .into_iter()
        .filter(|e| e.tag == "li")
        .map(|e| e.text_content())
        .collect()
}

fn open(href: &str) -> Browser {
    Browser::open(href, BTreeMap::new())
}

/// A whole response as the parts a streamed `fetch` hands over: the head, the body in
/// `chunk`-byte pieces, the end.
fn stream_parts(r: &HttpResponse, chunk: usize) -> Vec<wildtool_web::msg::StreamIn> {
    use wildtool_web::msg::StreamIn;
    let mut parts = vec![StreamIn::Head(wildtool_core::runner::http::HttpHead::new(
        r.status,
    ))];
    parts.extend(
        r.body
            .as_bytes()
            .chunks(chunk.max(1))
            .map(|c| StreamIn::Bytes(c.to_vec())),
    );
    parts.push(StreamIn::End);
    parts
}

#[test]
fn the_page_opens_on_the_bundled_suite() {
    let b = open("http://page/");
    assert_eq!(b.hook("view").as_deref(), Some("setup"));
    assert!(
        b.text("status").contains("64 sessions, 256 tasks"),
        "{}",
        b.text("status")
    );
    assert!(b.text("ds-info").contains("fingerprint"));
    assert_eq!(b.hook("runState").as_deref(), Some("idle"));
    // The address was cleaned up once (automation parameters are used once).
    assert_eq!(b.urls.first().map(String::as_str), Some("?view=setup"));
}

#[test]
fn the_readiness_line_steps_aside_off_setup_and_is_there_again_on_return() {
    let mut b = open("http://page/");
    let ready = b.text("status");
    assert!(ready.starts_with("Ready: "), "{ready}");
    for view in ["traces", "history", "compare", "offline"] {
        b.act("nav", view, "");
        assert_eq!(b.text("status"), "", "{view}: the Setup line steps aside");
    }
    b.act("nav", "setup", "");
    assert_eq!(b.text("status"), ready);
}

#[test]
fn the_lab_hook_says_busy_while_an_answer_is_owed_and_idle_once_all_are_in() {
    let mut b = open("http://page/?provider=gold");
    b.act("start", "", "");
    b.deliver(Msg::from_action("nav", "history", "").expect("nav"));
    // Reading the history and drawing its list are asked; nothing answered yet.
    let mut seen_busy = b.hook("lab").as_deref() == Some("busy");
    for _ in 0..1_000 {
        if b.queue.is_empty() {
            break;
        }
        b.step(1);
        seen_busy |= b.hook("lab").as_deref() == Some("busy");
    }
    assert!(
        seen_busy,
        "the history list is drawn by the lab module: an answer was owed"
    );
    assert_eq!(b.hook("lab").as_deref(), Some("idle"));
    assert_eq!(b.hook("history").as_deref(), Some("1"));
}

#[test]
fn a_gold_run_scores_100_percent_and_is_kept() {
    let mut b = open("http://page/?provider=gold");
    b.act("start", "", "");
    assert_eq!(b.hook("runState").as_deref(), Some("done"));
    assert_eq!(b.hook("runOutcome").as_deref(), Some("done"));
    assert_eq!(b.hook("view").as_deref(), Some("dashboard"));
    assert_eq!(b.metric_values("headline")[..2], ["100.0%", "100.0%"]);
    let h = b.headline();
    assert_eq!(h["tasks_scored"], 256);
    assert_eq!(h["task_accuracy"], "100.0%");
    let f = b.frame();
    assert_eq!(
        f.charts(),
        [
            "by-type",
            "by-position",
            "by-subtype",
            "by-transitions",
            "errors",
            "comparison"
        ]
    );
    assert_eq!(f.root.svgs().len(), 6);
    assert!(b.text("share-info").contains("characters in the fragment"));
    // Exports: metric.json and the CSV (one row per task, 1-based numbering).
    b.act("export", "metric", "");
    let metric: serde_json::Value = serde_json::from_str(&b.downloads.last().unwrap().1).unwrap();
    assert_eq!(metric["total_info"]["task"]["accuracy"], 1.0);
    b.act("export", "csv", "");
    let csv = &b.downloads.last().unwrap().1;
    assert_eq!(csv.lines().count(), 257);
    assert!(csv.lines().nth(1).unwrap().starts_with("1,"), "{csv:.200}");
    // The checkpoint is the CLI's format: header, then one record per task.
    let stored: Vec<&String> =
        b.kv.iter()
            .filter(|(k, _)| k.starts_with("ck/"))
            .map(|(_, v)| v)
            .collect();
    assert_eq!(stored.len(), 257);
    assert!(
        stored[0].starts_with("{\"wildtool_checkpoint\": 1"),
        "{}",
        stored[0]
    );
}

#[test]
fn a_cancelled_run_is_partial_everywhere_and_its_link_shows_the_same_numbers() {
    let mut b = open("http://page/?provider=baseline");
    b.deliver(Msg::Start);
    b.step(40);
    b.act("cancel", "", "");
    assert_eq!(b.hook("runOutcome").as_deref(), Some("cancelled"));
    let h = b.headline();
    let scored = h["tasks_scored"].as_u64().unwrap();
    assert!(scored > 0 && scored < 256, "{h}");
    assert_eq!(h["tasks_total"], 256);
    let banner = b.text("dash-banner");
    assert!(
        banner.contains("Partial") && banner.contains(&format!("{scored} of 256 tasks scored")),
        "{banner}"
    );
    assert!(b
        .text("dash-label")
        .contains(&format!("{scored} of 256 tasks scored")));
    // The recipient of the share link sees exactly the author's numbers.
    let link = b
        .state
        .shown
        .as_ref()
        .unwrap()
        .share
        .clone()
        .expect("the link is made")
        .expect("a partial run has a link");
    let r = open(&format!("http://page/#{link}"));
    assert_eq!(r.hook("share").as_deref(), Some("opened"));
    assert_eq!(r.headline(), h);
    assert_eq!(r.metric_values("headline"), b.metric_values("headline"));
    assert!(r.text("dash-banner").contains("Partial"));
}

#[test]
fn uploads_say_what_they_are() {
    let cases: [(&str, &[u8], &str); 5] = [
        ("empty.jsonl", b"", "empty"),
        ("tasks.csv", b"session,id,task\n1,a,1\n", "CSV"),
        ("suite.jsonl", SUITE.as_bytes(), "dataset"),
        (
            "notes.txt",
            b"hello world\nthis is text\n",
            "not a result file",
        ),
        ("blob.bin", b"\x00\x01\x02garbage\xff", "not a text file"),
    ];
    let mut messages = Vec::new();
    for (name, bytes, needle) in cases {
        let mut b = open("http://page/");
        b.act("nav", "offline", "");
        b.drop_file("upload", name, bytes);
        assert_eq!(b.hook("offline").as_deref(), Some("error"), "{name}");
        let msg = b.text("offline-info");
        assert!(msg.contains(needle), "{name}: {msg}");
        assert!(b.state.shown.is_none(), "{name} was scored");
        messages.push(msg);
    }
    messages.dedup();
    assert_eq!(messages.len(), 5, "distinct messages: {messages:?}");
}

#[test]
fn a_result_file_of_another_dataset_is_refused() {
    let mut b = open("http://page/");
    b.act("nav", "offline", "");
    b.drop_file("upload", "mini_result.jsonl", SEED0_RESULT.as_bytes());
    assert_eq!(b.hook("offline").as_deref(), Some("error"));
    assert!(
        b.text("offline-info").contains("belong to another dataset"),
        "{}",
        b.text("offline-info")
    );
    assert!(b.state.shown.is_none());
}

/// Drops the seed-0 run's result file on Offline: it is scored, and its score and metric
/// downloads are the CLI's.
fn scores_seed0_like_the_cli(b: &mut Browser) {
    b.act("nav", "offline", "");
    b.drop_file("upload", "mini_result.jsonl", SEED0_RESULT.as_bytes());
    assert_eq!(
        b.hook("offline").as_deref(),
        Some("done"),
        "{}",
        b.text("offline-info")
    );
    b.act("export", "metric", "");
    assert_eq!(b.downloads.last().unwrap().1, SEED0_METRIC);
    b.act("export", "score", "");
    assert_eq!(
        b.downloads.last().unwrap().1.trim_end(),
        SEED0_SCORE.trim_end()
    );
}

#[test]
fn an_upload_scored_in_the_worker_gives_the_cli_files_with_its_score_lines_as_text_or_kept() {
    for kept in [false, true] {
        let mut b = open("http://page/?dataset=mini.jsonl");
        b.worker = Some(kept);
        b.state.flags.worker = true;
        scores_seed0_like_the_cli(&mut b);
        assert_eq!(b.jieba_loads, 0, "the worker segments, not the page");
        let scored = b
            .state
            .shown
            .as_ref()
            .and_then(|s| s.scored.as_ref())
            .unwrap();
        assert_eq!(scored.score_kept.is_some(), kept);
        assert_eq!(
            scored.score_jsonl.is_empty(),
            kept,
            "kept lines are not text"
        );
        // The dashboard counts the dataset's 32 tasks, as the main thread's scorer does.
        assert_eq!(b.state.shown.as_ref().unwrap().outcomes.len(), 32);
    }
}

#[test]
fn an_upload_repeating_its_sessions_and_a_damaged_line_score_in_the_worker_as_on_the_page() {
    let cut = &SEED0_RESULT[..SEED0_RESULT.find('\n').unwrap() / 2];
    let file = format!("{SEED0_RESULT}{SEED0_RESULT}{cut}\n");
    let mut shown = Vec::new();
    for worker in [false, true] {
        let mut b = open("http://page/?dataset=mini.jsonl");
        if worker {
            b.worker = Some(true);
            b.state.flags.worker = true;
        }
        b.act("nav", "offline", "");
        b.drop_file("upload", "twice_result.jsonl", file.as_bytes());
        assert_eq!(b.hook("offline").as_deref(), Some("done"));
        b.act("export", "metric", "");
        b.act("export", "score", "");
        let s = b.state.shown.as_ref().unwrap();
        shown.push((
            b.downloads.clone(),
            s.outcomes.clone(),
            s.damage.clone(),
            b.text("offline-info"),
        ));
    }
    assert!(
        shown[0]
            .2
            .as_deref()
            .unwrap_or("")
            .contains("result line 17"),
        "{:?}",
        shown[0].2
    );
    assert_eq!(shown[0], shown[1]);
}

#[test]
fn an_official_result_file_scores_byte_for_byte_like_the_cli() {
    let mut b = open("http://page/?dataset=mini.jsonl");
    assert!(
        b.text("ds-info").contains("8 sessions"),
        "{}",
        b.text("ds-info")
    );
    scores_seed0_like_the_cli(&mut b);
    assert_eq!(
        b.jieba_loads, 1,
        "jieba is loaded once, for the Chinese text"
    );
    assert_eq!(b.hook("dictionary").as_deref(), Some("loaded"));
    // Traces open down to the steps.
    b.act("nav", "traces", "");
    b.act("trace-task", "0:0", "true");
    b.act("trace-step", "0:0:0", "true");
    let list = b.deep_text("trace-list");
    assert!(
        list.contains("Verdict:") && list.contains("Gold candidates"),
        "{list:.400}"
    );
}

#[test]
fn results_parameter_scores_on_load() {
    let b = open("http://page/?dataset=mini.jsonl&results=seed0_result.jsonl");
    assert_eq!(b.hook("scoreState").as_deref(), Some("done"));
    assert_eq!(b.headline()["task_accuracy"], "56.2%");
    let bad = open("http://page/?dataset=mini.jsonl&results=missing.jsonl");
    assert_eq!(bad.hook("scoreState").as_deref(), Some("error"));
    assert!(bad.hook("scoreError").unwrap_or_default().contains("404"));
}

#[test]
fn a_finished_run_survives_a_reload_and_the_comparison_has_no_duplicates() {
    let mut b = open("http://page/?provider=gold");
    b.act("start", "", "");
    let id = b.state.shown.as_ref().unwrap().id.clone();
    b.act("compare-add", &id, "");
    b.act("compare-add", &id, "");
    assert_eq!(b.state.history.compare, vec![id.clone()]);
    let kv = b.kv.clone();
    let mut r = Browser::open("http://page/", kv);
    assert_eq!(r.state.history.entries.len(), 1);
    assert_eq!(r.state.history.compare, vec![id.clone()]);
    r.act("nav", "history", "");
    assert!(r.text("history-list").contains("256 of 256 tasks scored"));
    r.act("history-open", &id, "");
    assert_eq!(r.hook("view").as_deref(), Some("dashboard"));
    assert_eq!(r.metric_values("headline")[..2], ["100.0%", "100.0%"]);
    // The run's files were scored again from the stored checkpoint.
    r.act("export", "metric", "");
    assert!(r.downloads.last().unwrap().1.contains("\"accuracy\": 1.0"));
    // Rename and delete.
    r.act("history-rename", &id, "");
    r.act("history-label", "", "gold, renamed");
    r.act("history-rename-save", "", "");
    assert_eq!(r.state.history.get(&id).unwrap().label, "gold, renamed");
    r.act("history-delete", &id, "");
    assert!(r.state.history.entries.is_empty());
    assert!(
        !r.kv.keys().any(|k| k.contains(&id)),
        "{:?}",
        r.kv.keys().collect::<Vec<_>>()
    );
}

#[test]
fn back_and_forward_move_between_views() {
    let mut b = open("http://page/");
    b.act("nav", "history", "");
    b.act("nav", "offline", "");
    assert_eq!(b.urls.last().map(String::as_str), Some("?view=offline"));
    b.act("popstate", "", "http://page/?view=history");
    assert_eq!(b.hook("view").as_deref(), Some("history"));
    let f = b.frame();
    let current: Vec<String> = f
        .root
        .elements()
        .into_iter()
        .filter(|e| e.get("aria-current") == Some("page"))
        .map(|e| e.text_content())
        .collect();
    assert_eq!(current, ["History"]);
    assert_eq!(f.frame.title, "wildtool — History");
}

#[test]
fn hostile_text_stays_text() {
    let payload = "<img src=x onerror=alert(1)>";
    let link = format!("v1.{payload}");
    let b = open(&format!("http://page/#{link}"));
    assert_eq!(b.hook("share").as_deref(), Some("error"));
    let f = b.frame();
    fn no_markup(n: &Node) {
        if let Node::Element(e) = n {
            assert!(!matches!(e.tag, "img" | "script" | "iframe"));
            for (k, _) in &e.attrs {
                assert!(!k.starts_with("on"), "{k}");
            }
            e.children.iter().for_each(no_markup);
        }
    }
    no_markup(&f.frame.root);
}

fn endpoint(href_extra: &str) -> String {
    format!(
        "http://page/?provider=openai&base_url=http%3A%2F%2F127.0.0.1%3A9%2Fv1&model=m{href_extra}"
    )
}

#[test]
fn a_refused_key_fails_the_run_with_the_reason_and_no_score() {
    let mut b = open(&endpoint(""));
    b.server = Some(Box::new(|_| {
        Reply::Response(HttpResponse::new(
            401,
            r#"{"error": {"message": "Incorrect API key provided"}}"#,
        ))
    }));
    b.act("start", "", "");
    assert_eq!(b.hook("runState").as_deref(), Some("done"));
    assert_eq!(b.hook("runOutcome").as_deref(), Some("failed"));
    let reason = b.hook("runError").unwrap_or_default();
    assert!(
        reason.contains("401") || reason.to_lowercase().contains("key"),
        "{reason}"
    );
    // The reason is where the user is looking: the run view, focused.
    assert_eq!(b.hook("view").as_deref(), Some("run"));
    assert!(b.text("run-error").contains(&reason));
    assert_eq!(b.sent.len(), 1, "only the preflight request was sent");
    // No accuracy anywhere, no share link.
    let h = b.headline();
    assert_eq!(h["tasks_scored"], 0);
    assert!(
        h["task_accuracy"].is_null() && h["session_accuracy"].is_null(),
        "{h}"
    );
    b.act("nav", "dashboard", "");
    assert!(b.metric_values("headline").iter().all(|v| v == "—"));
    assert!(b.text("dash-banner").contains("Failed"));
    assert!(b.frame().root.by_id("share-link").is_none());
    assert!(b.frame().root.by_id("charts").is_none());
    // Setup shows it next to the endpoint settings.
    b.act("nav", "setup", "");
    assert!(b.text("setup-error").contains(&reason));
    // The fix is said in the page's words, not the CLI's flag.
    let fix = b.text("setup-error");
    assert!(fix.contains("type it in Setup's API key field"), "{fix}");
    assert!(!fix.contains("--api-key-env"), "{fix}");
}

#[test]
fn a_key_the_server_echoes_is_never_shown_or_stored() {
    const KEY: &str = "sk-page-echo-0a1b2c3d4e5f6789";
    for body in [
        format!("invalid key {KEY}"),
        format!(r#"{{"error": {{"message": "key {KEY} revoked"}}}}"#),
        format!("Authorization: Bearer {KEY}"),
        format!("<html><body><p>{KEY}</p></body></html>"),
    ] {
        let mut b = open(&endpoint(""));
        b.act("set", "m-key", KEY);
        let echo = body.clone();
        b.server = Some(Box::new(move |_| {
            Reply::Response(HttpResponse::new(401, &echo))
        }));
        b.act("start", "", "");
        assert_eq!(b.hook("runOutcome").as_deref(), Some("failed"), "{body}");
        let reason = b.hook("runError").unwrap_or_default();
        assert!(!reason.contains(&KEY[3..15]), "{reason}");
        if reason.contains("revoked") {
            assert!(reason.contains("key <redacted> revoked"), "{reason}");
        }
        let shown = b.frame().root.text_content();
        assert!(!shown.contains(&KEY[3..15]), "{shown}");
        let hooks = format!("{:?}", b.frame().hooks);
        assert!(!hooks.contains(&KEY[3..15]), "{hooks}");
    }
}

#[test]
fn an_unreachable_endpoint_fails_and_counters_move() {
    let mut b = open(&endpoint("&preflight=0&retries=1&backoff=0.01"));
    b.server = Some(Box::new(|_| {
        Reply::Network(NetworkFailure {
            kind: NetworkKind::Unreachable,
            message: "Failed to fetch: nothing answered at this address".into(),
        })
    }));
    b.act("start", "", "");
    assert_eq!(b.hook("runOutcome").as_deref(), Some("failed"));
    assert!(b
        .hook("runError")
        .unwrap_or_default()
        .contains("nothing answered"));
    let p = &b.state.run.as_ref().unwrap().progress;
    assert!(p.requests > 0 && p.retries > 0 && p.incomplete > 0, "{p:?}");
    // A failed run's view drops the progress grid (its counters stay in the state).
    assert!(b.frame().root.by_id("run-stats").is_none());
}

#[test]
fn cancel_during_a_retry_wait_ends_the_run_at_once() {
    let mut b = open(&endpoint("&preflight=0&backoff=60&retries=5"));
    b.server = Some(Box::new(|_| {
        let mut r = HttpResponse::new(503, "busy");
        r.retry_after = Some("60".into());
        Reply::Response(r)
    }));
    b.deliver(Msg::Start);
    b.step(50);
    assert!(b.timer.is_some(), "a retry wait is scheduled");
    let waiting = b.state.run.as_ref().unwrap().progress.waiting;
    assert!(waiting > 0, "tasks wait to retry");
    let t0 = b.now;
    b.deliver(Msg::Cancel);
    b.step(10_000);
    assert_eq!(b.hook("runState").as_deref(), Some("done"));
    assert!(b.now - t0 < 1.0, "the run ended without waiting");
    assert!(
        ["cancelled", "failed"].contains(&b.hook("runOutcome").as_deref().unwrap_or("")),
        "{:?}",
        b.hook("runOutcome")
    );
}

#[test]
fn a_run_interrupted_by_a_reload_is_offered_and_resumes() {
    let mut b = open("http://page/?provider=baseline");
    b.deliver(Msg::Start);
    b.step(30);
    let saved = b.hook("tasksSaved").unwrap().parse::<usize>().unwrap();
    assert!(saved > 0 && saved < 256, "{saved}");
    // Reload: the stored checkpoint is all that is left.
    let mut r = Browser::open("http://page/", b.kv.clone());
    assert_eq!(r.hook("resume").as_deref(), Some("offered"));
    let offer = r.text("resume-text");
    assert!(
        offer.starts_with(&format!(
            "baseline on the bundled suite: {saved} of 256 tasks saved (interrupted)."
        )),
        "{offer}"
    );
    let id = r.state.resume_candidate().unwrap().id.clone();
    r.act("resume", &id, "");
    assert_eq!(
        r.hook("runOutcome").as_deref(),
        Some("done"),
        "{}",
        r.text("status")
    );
    assert_eq!(r.headline()["tasks_scored"], 256);
    // Same numbers as an uninterrupted run.
    let mut u = open("http://page/?provider=baseline");
    u.act("start", "", "");
    assert_eq!(r.headline(), u.headline());
}

#[test]
fn a_cli_checkpoint_scores_and_resumes_in_the_page() {
    // A checkpoint of the first sessions, written by a baseline run in another page.
    let mut b = open("http://page/?provider=baseline");
    b.deliver(Msg::Start);
    b.step(30);
    let lines: Vec<String> =
        b.kv.iter()
            .filter(|(k, _)| k.starts_with("ck/"))
            .map(|(_, v)| v.clone())
            .collect();
    let checkpoint = format!("{}\n", lines.join("\n"));
    let mut r = open("http://page/?provider=baseline");
    r.act("nav", "offline", "");
    r.drop_file("upload", "checkpoint.jsonl", checkpoint.as_bytes());
    assert_eq!(
        r.hook("offline").as_deref(),
        Some("done"),
        "{}",
        r.text("offline-info")
    );
    assert!(r.text("dash-banner").contains("Partial"));
    let id = r.state.shown.as_ref().unwrap().id.clone();
    assert!(r.state.history.get(&id).unwrap().resumable);
    r.act("resume", &id, "");
    assert_eq!(
        r.hook("runOutcome").as_deref(),
        Some("done"),
        "{}",
        r.text("status")
    );
    assert_eq!(r.headline()["tasks_scored"], 256);
}

#[test]
fn a_run_whose_dictionary_does_not_load_says_so_and_keeps_its_checkpoint() {
    let mut b = open("http://page/?dataset=mini.jsonl&provider=baseline");
    b.jieba_fails = true;
    b.act("start", "", "");
    assert_eq!(b.hook("runState").as_deref(), Some("done"));
    assert_eq!(b.hook("runOutcome").as_deref(), Some("failed"));
    assert!(b
        .hook("runError")
        .unwrap_or_default()
        .contains("dictionary"));
    assert_eq!(b.kv.keys().filter(|k| k.starts_with("ck/")).count(), 33);
}

#[test]
fn the_leaderboard_is_shown_only_beside_runs_on_the_official_dataset() {
    let mut b = open("http://page/?provider=gold");
    b.act("start", "", "");
    let legend = |b: &Browser| {
        b.state
            .shown
            .as_ref()
            .map(|_| {
                let tree = b.frame().root;
                let figure = tree
                    .elements()
                    .into_iter()
                    .find(|e| e.get("data-chart") == Some("comparison"))
                    .cloned();
                figure.map_or(0, |f| {
                    wildtool_ui::wire::Wire::Element(f)
                        .svgs()
                        .iter()
                        .map(|s| s.matches("GPT-4o").count())
                        .sum()
                })
            })
            .unwrap_or(0)
    };
    assert_eq!(
        legend(&b),
        0,
        "no published model beside a bundled-suite run"
    );
    assert!(
        b.text("leaderboard-hidden").contains("hidden"),
        "{}",
        b.text("compare")
    );
    // A list naming this dataset as official shows them.
    let fp = b.state.dataset.unwrap().fingerprint.clone();
    let mut served = Browser::open("http://page/?provider=gold", BTreeMap::new());
    let list = format!(
        r#"{{"datasets": [{{"name": "test official", "file": "suite.jsonl", "fingerprint": "{fp}", "sessions": 64, "tasks": 256, "source": {{"repository": "r", "path": "suite.jsonl", "commit": "0123456789abcdef"}}}}]}}"#
    );
    served.deliver(Msg::Fetched(
        wildtool_web::msg::FetchPurpose::Official,
        Ok(list),
    ));
    served.act("start", "", "");
    assert!(
        legend(&served) > 0,
        "published models beside a run on the official data"
    );
}

#[test]
fn a_run_file_from_the_page_is_the_core_export_and_scores_the_same_elsewhere() {
    let mut b = open("http://page/?provider=baseline");
    b.act("start", "", "");
    b.act("export", "run", "");
    let (name, file) = b.downloads.last().cloned().unwrap();
    assert!(name.ends_with(".wildtool-run.json"), "{name}");
    let doc = wildtool_core::formats::RunExport::parse(file.as_bytes()).expect("a core run export");
    assert_eq!(doc.wildtool_run, 2);
    assert_eq!(doc.meta.model, "baseline");
    assert_eq!(doc.meta.provider.as_deref(), Some("baseline"));
    assert_eq!(doc.records.as_ref().map(Vec::len), Some(256));
    assert_eq!(doc.outcomes.len(), 256);
    let mut other = open("http://page/");
    other.act("nav", "history", "");
    other.drop_file("history-import", &name, file.as_bytes());
    assert_eq!(other.hook("view").as_deref(), Some("history"));
    assert_eq!(other.state.history.entries.len(), 1);
    let e = &other.state.history.entries[0];
    assert_eq!(e.tasks_scored, 256);
    assert_eq!(
        e.task_accuracy.as_deref(),
        b.headline()["task_accuracy"].as_str()
    );
    let id = e.id.clone();
    other.act("history-open", &id, "");
    assert_eq!(other.headline(), b.headline());
}

#[test]
fn a_deep_link_opens_the_named_task_and_step_of_a_stored_run() {
    let mut b = open("http://page/?dataset=mini.jsonl");
    b.act("nav", "offline", "");
    b.drop_file("upload", "mini_result.jsonl", SEED0_RESULT.as_bytes());
    let id = b.state.shown.as_ref().unwrap().id.clone();
    let kv = b.kv.clone();
    let link =
        format!("http://page/?dataset=mini.jsonl&view=traces&run={id}&session=2&task=1&step=1");
    let r = Browser::open(&link, kv);
    assert_eq!(r.hook("view").as_deref(), Some("traces"));
    assert_eq!(
        r.state.shown.as_ref().map(|s| s.id.as_str()),
        Some(id.as_str())
    );
    assert!(
        r.state.traces.open_tasks.contains(&(1, 0)),
        "{:?}",
        r.state.traces.open_tasks
    );
    let list = r.deep_text("trace-list");
    assert!(
        list.contains("Verdict:"),
        "the named step is open: {list:.300}"
    );
}

fn attr(f: &Shown, id: &str, name: &str) -> Option<String> {
    f.root
        .by_id(id)
        .and_then(|e| e.get(name))
        .map(str::to_owned)
}

#[test]
fn presets_fill_the_endpoint_and_the_model_field_offers_the_servers_list() {
    let mut b = open("http://page/");
    b.aux_server = Some(Box::new(|aux| {
        assert!(aux.auth.is_none(), "no key was typed");
        Reply::Response(HttpResponse::new(
            200,
            r#"{"object": "list", "data": [{"id": "qwen3:8b"}, {"id": "llama3.1:8b"}]}"#,
        ))
    }));
    b.act("set", "m-preset", "ollama");
    let f = b.frame();
    assert_eq!(attr(&f, "m-provider", "value").as_deref(), Some("openai"));
    assert_eq!(
        attr(&f, "m-base", "value").as_deref(),
        Some("http://127.0.0.1:11434/v1")
    );
    assert!(b.text("preset-note").contains("OLLAMA_ORIGINS"));
    assert!(b
        .text("view-setup")
        .contains("API key (not needed for Ollama"));
    // The list was asked for at once, from the preset's endpoint, and is offered.
    assert_eq!(b.aux_sent.len(), 1);
    assert_eq!(
        b.aux_sent[0].request.url,
        "http://127.0.0.1:11434/v1/models"
    );
    let f = b.frame();
    let options: Vec<String> = f
        .root
        .by_id("m-models")
        .map(|d| {
            d.elements()
                .into_iter()
                .filter_map(|e| e.get("value").map(str::to_owned))
                .collect()
        })
        .unwrap_or_default();
    assert_eq!(options, ["qwen3:8b", "llama3.1:8b"]);
    assert_eq!(attr(&f, "m-model", "list").as_deref(), Some("m-models"));
    assert!(b.text("m-models-note").contains("2 models"));
    // A hosted service: the key is needed; its list is asked for with the typed key, in
    // the service's own header; a refusal is quiet.
    b.aux_server = Some(Box::new(|_| {
        Reply::Response(HttpResponse::new(
            401,
            r#"{"error": {"message": "no key"}}"#,
        ))
    }));
    b.act("set", "m-preset", "gemini");
    assert!(b
        .text("view-setup")
        .contains("API key (needed for Google Gemini"));
    assert_eq!(
        attr(&b.frame(), "m-provider", "value").as_deref(),
        Some("gemini")
    );
    assert!(b.frame().root.by_id("m-models-note").is_none());
    let status = b.text("status");
    b.act("set", "m-key", "g-secret");
    b.act("list-models", "", "");
    let last = b.aux_sent.last().unwrap();
    assert!(last
        .request
        .url
        .starts_with("https://generativelanguage.googleapis.com/v1beta/models"));
    assert_eq!(
        last.auth,
        Some(("x-goog-api-key".into(), "g-secret".into()))
    );
    assert_eq!(b.text("status"), status, "a failed list says nothing");
    // Every preset of the registry is offered, with its CORS note in the help.
    let f = b.frame();
    let presets = f
        .root
        .by_id("m-preset")
        .map(|s| s.elements().len())
        .unwrap_or(0);
    assert_eq!(
        presets,
        1 + 1 + wildtool_core::runner::registry::PRESETS.len()
    );
    assert!(b.text("cors-help").contains("lms server start --cors"));
}

#[test]
fn a_failed_endpoint_check_is_shown_beside_the_endpoint_with_its_fix() {
    let mut b = open(&endpoint(""));
    b.server = Some(Box::new(|_| {
        Reply::Response(HttpResponse::new(
            400,
            r#"{"object": "error", "message": "\"auto\" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set", "type": "BadRequestError", "code": 400}"#,
        ))
    }));
    b.act("start", "", "");
    assert_eq!(b.hook("runState").as_deref(), Some("done"));
    assert_eq!(b.hook("runOutcome").as_deref(), Some("failed"));
    assert!(b.hook("runError").unwrap_or_default().contains("tool"));
    assert_eq!(b.sent.len(), 1, "only the preflight");
    b.act("nav", "setup", "");
    let note = b.text("setup-error");
    assert!(
        note.contains("The endpoint check failed (the server cannot do tool calls)"),
        "{note}"
    );
    assert!(
        note.contains("Fix:") && note.contains("--enable-auto-tool-choice"),
        "{note}"
    );
    // Skipping the check: the tasks' own requests go out at once.
    b.act("set", "m-preflight", "false");
    b.server = None;
    b.act("start", "", "");
    assert!(b.sent.len() > 2, "tasks were sent without a check");
    assert!(b.sent[1..]
        .iter()
        .all(|o| o.transmit.request.body.contains("\"role\": \"system\"")));
}

#[test]
fn a_local_server_is_spread_over_host_names_that_answer_and_the_cap_is_shown() {
    let href = "http://page/?provider=openai&base_url=http%3A%2F%2F127.0.0.1%3A9%2Fv1&model=m&preflight=0&concurrency=24";
    // Every name answers but wt2.localhost: 18 in flight over three names.
    let mut b = open(href);
    b.aux_server = Some(Box::new(|aux| {
        let status = if aux.request.url.contains("wt2.") {
            403
        } else {
            200
        };
        Reply::Response(HttpResponse::new(status, r#"{"data": []}"#))
    }));
    b.act("start", "", "");
    let hosts: Vec<&str> = b.aux_sent.iter().map(|a| a.request.url.as_str()).collect();
    assert_eq!(
        hosts,
        [
            "http://localhost:9/v1/models",
            "http://wt1.localhost:9/v1/models",
            "http://wt2.localhost:9/v1/models"
        ]
    );
    assert_eq!(b.sent.len(), 24, "the engine's 24 requests are out");
    let count = |b: &Browser, host: &str| {
        b.sent
            .iter()
            .filter(|o| {
                o.transmit
                    .request
                    .url
                    .starts_with(&format!("http://{host}:9/"))
            })
            .count()
    };
    assert_eq!(
        (
            count(&b, "127.0.0.1"),
            count(&b, "localhost"),
            count(&b, "wt1.localhost")
        ),
        (8, 8, 8)
    );
    let stats = b.text("run-stats");
    assert!(
        stats.contains("the browser's per-host limit is 18"),
        "{stats}"
    );
    assert!(stats.contains("3 names of the server"), "{stats}");
    b.act("cancel", "", "");
    // Nothing answers under other names: six in flight, and the view says why.
    let mut b = open(href);
    b.act("start", "", "");
    assert_eq!(b.aux_sent.len(), 3);
    assert!(b
        .sent
        .iter()
        .all(|o| o.transmit.request.url.starts_with("http://127.0.0.1:9/")));
    let stats = b.text("run-stats");
    assert!(
        stats.contains("24 (6 in flight: the browser's per-host limit is 6 (6 connections per host name over HTTP/1.1))"),
        "{stats}"
    );
    b.act("cancel", "", "");
    let entry = &b.state.run.as_ref().unwrap().entry;
    let c = entry.concurrency.expect("recorded");
    assert_eq!((c.max, c.browser_cap), (24, Some(6)));
    assert_eq!(entry.meta().concurrency, Some(c));
    // With a key, requests stay on the name it was typed for.
    let mut b = open(href);
    b.act("set", "m-key", "sk-local");
    b.act("start", "", "");
    assert!(b.aux_sent.is_empty());
    assert!(!b.sent.is_empty());
    assert!(b.sent.iter().all(
        |o| o.transmit.request.url.starts_with("http://127.0.0.1:9/")
            && o.auth == Some(("authorization".into(), "Bearer sk-local".into()))
    ));
    b.act("cancel", "", "");
    // A key remembered for another name of the same server (localhost) is not this base
    // URL's: the run is keyless and spreads, and no request carries the key — not even
    // those that go to localhost.
    let mut b = open(href);
    b.state
        .setup
        .set_remembered(Some(r#"{"origin": "http://localhost:9", "key": "sk-lh"}"#));
    b.aux_server = Some(Box::new(|_| {
        Reply::Response(HttpResponse::new(200, r#"{"data": []}"#))
    }));
    b.act("start", "", "");
    assert!(b.aux_sent.iter().all(|a| a.auth.is_none()));
    assert!(b
        .sent
        .iter()
        .any(|o| o.transmit.request.url.starts_with("http://localhost:9/")));
    assert!(b.sent.iter().all(|o| o.auth.is_none()));
}

/// Two finished runs of the bundled suite in one browser: gold, then baseline.
/// History run `id` as the statistics read it, from its stored outcomes.
fn stored_run(b: &Browser, id: &str) -> wildtool_core::compare::RunInput {
    wildtool_core::compare::RunInput {
        label: b.state.history.get(id).unwrap().label.clone(),
        fingerprint: b.state.dataset.unwrap().fingerprint_u64(),
        trials: vec![serde_json::from_str(&b.kv[&format!("out/{id}")]).unwrap()],
    }
}

fn gold_and_baseline() -> (Browser, String, String) {
    let mut b = open("http://page/?provider=gold");
    b.act("start", "", "");
    let gold = b.state.shown.as_ref().unwrap().id.clone();
    b.act("nav", "setup", "");
    b.act("set", "m-provider", "baseline");
    b.act("start", "", "");
    assert_eq!(b.hook("runOutcome").as_deref(), Some("done"));
    let baseline = b.state.shown.as_ref().unwrap().id.clone();
    assert_ne!(gold, baseline);
    (b, gold, baseline)
}

#[test]
fn the_comparison_view_asks_the_lab_module_once_per_selection() {
    let (mut b, gold, baseline) = gold_and_baseline();
    b.act("nav", "compare", "");
    assert_eq!(b.hook("compare").as_deref(), Some("waiting"));
    assert!(
        b.text("compare-wait").contains("(0 chosen)"),
        "{}",
        b.text("compare-wait")
    );
    b.act("compare-pick", &gold, "true");
    assert!(b.text("compare-wait").contains("(1 chosen)"));
    assert!(b.lab_calls.is_empty());
    b.act("compare-pick", &baseline, "true");
    assert_eq!(b.lab_calls, ["compare_view", "audit_view"]);
    assert_eq!(b.hook("compare").as_deref(), Some("ready"));
    // The numbers are the core's comparison of the two stored runs.
    let d = b.state.dataset.unwrap();
    let run = |id: &str| stored_run(&b, id);
    let doc = wildtool_core::compare::compare_runs(
        &[run(&gold), run(&baseline)],
        wildtool_core::compare::DatasetRef {
            fingerprint: d.fingerprint_u64(),
            shapes: &d.shapes,
        },
        &Default::default(),
    )
    .unwrap();
    let pair = &doc.pairs[0];
    assert_eq!(pair.b_only, 0, "gold passes every task");
    assert!(pair.a_only > 0);
    assert!(
        b.deep_text("pair-1-a-only")
            .ends_with(&pair.a_only.to_string()),
        "{}",
        b.deep_text("pair-1-a-only")
    );
    assert!(b
        .deep_text("pair-1-p")
        .contains(&wildtool_core::compare::html::format_p(pair.mcnemar_p)));
    // The answer is spliced in as it came, not rebuilt.
    let json = b.frame().to_json();
    let answer = match b.state.lab.answer(wildtool_web::msg::LabPurpose::Compare) {
        Some(Ok(a)) => a.clone(),
        other => panic!("{other:?}"),
    };
    assert!(json.contains(&answer));
    // Moving away and back, or any other message, does not compute it again.
    b.act("nav", "history", "");
    b.act("nav", "compare", "");
    assert_eq!(b.lab_calls.len(), 2, "{:?}", b.lab_calls);
    // Renaming a run changes the comparison.
    b.act("history-rename", &gold, "");
    b.act("history-label", "", "the gold agent");
    b.act("history-rename-save", "", "");
    b.act("nav", "compare", "");
    assert_eq!(b.lab_calls.len(), 4);
    assert!(b.deep_text("pair-1-title").starts_with("the gold agent vs"));
    // After a reload the chosen runs are read back and compared again.
    let r = Browser::open("http://page/?view=compare", b.kv.clone());
    assert_eq!(r.hook("view").as_deref(), Some("compare"));
    assert_eq!(r.lab_calls, ["compare_view", "audit_view"]);
    assert_eq!(r.deep_text("pair-1-p"), b.deep_text("pair-1-p"));
}

#[test]
fn a_lab_module_that_cannot_load_or_refuses_says_why() {
    let (mut b, gold, baseline) = gold_and_baseline();
    b.lab_fails = Some("the lab module could not be loaded: HTTP 404".into());
    b.act("nav", "compare", "");
    b.act("compare-pick", &gold, "true");
    b.act("compare-pick", &baseline, "true");
    assert_eq!(b.hook("compare").as_deref(), Some("error"));
    assert!(b.text("compare-error").contains("HTTP 404"));
    assert!(b.text("status").contains("HTTP 404"));
    // A refusal by the core (here: a run of another dataset) is shown with its reason.
    b.lab_fails = None;
    let mut entry = b.state.history.get(&baseline).unwrap().clone();
    entry.dataset_fingerprint = "0123456789abcdef".into();
    entry.label = "elsewhere".into();
    b.state.history.put(entry);
    b.act("nav", "history", "");
    b.act("nav", "compare", "");
    assert!(
        b.text("compare-error")
            .contains("scored on a different dataset"),
        "{}",
        b.text("compare-error")
    );
    assert!(b.text("compare-picker").contains("elsewhere"));
    assert!(b.text("compare-picker").contains("(another dataset)"));
}

/// The core's suite for `spec` over the pack files (what `wildtool generate` writes).
fn core_suite(spec: &str) -> String {
    let files: Vec<(String, String)> = wildtool_core::generate::pack::PACK_FILES
        .iter()
        .map(|n| {
            let path = format!("{}/../../data/packs/{n}", env!("CARGO_MANIFEST_DIR"));
            ((*n).to_owned(), std::fs::read_to_string(path).unwrap())
        })
        .collect();
    let texts: Vec<wildtool_core::generate::PackText<'_>> = files
        .iter()
        .map(|(name, text)| wildtool_core::generate::PackText { name, text })
        .collect();
    let spec = wildtool_core::generate::GenerateSpec::parse(spec).unwrap();
    if spec.is_ledger() {
        return wildtool_core::ledger::generated::generate(&texts, &spec).unwrap();
    }
    wildtool_core::generate::generate(&texts, &spec).unwrap()
}

#[test]
fn a_generated_suite_is_the_cores_and_runs_at_once() {
    let mut b = open("http://page/?provider=gold&view=generate");
    assert_eq!(b.hook("view").as_deref(), Some("generate"));
    b.act("gen-set", "gen-seed", "5");
    b.act("gen-set", "gen-sessions", "12");
    b.act("gen-set", "gen-factors", "transitions=2,distractors=1");
    // The factor picker is drawn by the lab module; nothing is generated before asked.
    assert_eq!(b.lab_calls, ["factor_picker"]);
    b.act("generate", "", "");
    assert_eq!(b.hook("generate").as_deref(), Some("done"));
    assert_eq!(b.lab_calls, ["factor_picker", "generate"]);
    let expected = core_suite("seed=5,sessions=12,transitions=2,distractors=1");
    let fp = wildtool_core::dataset::fingerprint_hex(&expected);
    assert_eq!(b.deep_text("generated-fingerprint"), fp);
    assert_eq!(b.hook("dataset").as_deref(), Some(fp.as_str()));
    assert_eq!(
        b.deep_text("generated-spec"),
        "seed=5,sessions=12,transitions=2,distractors=1"
    );
    assert!(b
        .deep_text("generated-card")
        .contains(&format!("fingerprint                 {fp}")));
    b.act("gen-download", "", "");
    assert_eq!(b.downloads.last().unwrap().1, expected);
    // The packs were fetched once; generating again does not fetch them again.
    b.act("gen-set", "gen-seed", "6");
    b.act("generate", "", "");
    assert_eq!(b.lab_calls, ["factor_picker", "generate", "generate"]);
    assert_ne!(b.deep_text("generated-fingerprint"), fp);
    // Run it at once: gold scores everything; the run is kept with its generated source.
    b.act("gen-run", "", "");
    assert_eq!(b.hook("runOutcome").as_deref(), Some("done"));
    assert_eq!(b.headline()["task_accuracy"], "100.0%");
    assert_eq!(b.headline()["tasks_total"], 48);
    let id = b.state.shown.as_ref().unwrap().id.clone();
    let meta: serde_json::Value = serde_json::from_str(&b.kv[&format!("run/{id}")]).unwrap();
    assert_eq!(meta["dataset_source"]["kind"], "generated");
    assert_eq!(
        meta["dataset_source"]["spec"],
        "seed=6,sessions=12,transitions=2,distractors=1"
    );
    // Opened after a reload, the run's suite is generated again.
    let r = Browser::open(
        &format!("http://page/?view=dashboard&run={id}"),
        b.kv.clone(),
    );
    assert_eq!(r.headline()["task_accuracy"], "100.0%");
    assert_eq!(
        r.state.dataset.map(|d| d.fingerprint.clone()),
        b.state.dataset.map(|d| d.fingerprint.clone())
    );
}

#[test]
fn bad_factors_and_missing_packs_say_why() {
    let mut b = open("http://page/?view=generate");
    b.act(
        "gen-set",
        "gen-factors",
        "types=single+single+chat+chat,transitions=0",
    );
    b.act("generate", "", "");
    assert_eq!(b.hook("generate").as_deref(), Some("error"));
    assert!(
        b.text("generated-info").contains("transitions=0"),
        "{}",
        b.text("generated-info")
    );
    // The bundled suite stays loaded.
    assert!(
        b.text("status").contains("types has 1 transition"),
        "{}",
        b.text("status")
    );
    let mut m = open("http://page/?view=generate");
    m.served.remove("./data/packs.json");
    m.act("generate", "", "");
    assert_eq!(m.hook("generate").as_deref(), Some("error"));
    assert!(m.text("generated-info").contains("packs.json"));
    // Nothing was generated: the only lab call is the view's factor picker.
    assert!(
        m.lab_calls.iter().all(|c| *c == "factor_picker"),
        "{:?}",
        m.lab_calls
    );
}

#[test]
fn dataset_generate_in_the_address_generates_and_autoruns() {
    let b = open(
        "http://page/?dataset=generate:seed=3,sessions=8,transitions=1&provider=gold&autorun=1",
    );
    let fp =
        wildtool_core::dataset::fingerprint_hex(&core_suite("seed=3,sessions=8,transitions=1"));
    assert_eq!(b.hook("dataset").as_deref(), Some(fp.as_str()));
    assert_eq!(b.hook("runOutcome").as_deref(), Some("done"));
    assert_eq!(b.headline()["tasks_scored"], 32);
    assert_eq!(b.headline()["task_accuracy"], "100.0%");
    // The address keeps the dataset (a reload generates the same suite).
    assert!(
        b.urls.iter().all(|u| u.contains("dataset=generate")),
        "{:?}",
        b.urls
    );
    let bad = open("http://page/?dataset=generate:seed=3&provider=gold&autorun=1");
    assert_eq!(bad.hook("runState").as_deref(), Some("idle"));
    assert!(bad.text("status").contains("sessions=N is required"));
}

#[test]
fn a_sweep_runs_every_level_and_shows_the_cores_analysis() {
    let mut b = open("http://page/?provider=baseline&view=sweep");
    b.act("gen-set", "sweep-factor", "transitions");
    b.act("gen-set", "sweep-levels", "0,3");
    b.act("gen-set", "sweep-per-level", "6");
    b.act("gen-set", "sweep-seed", "4");
    b.act("sweep-start", "", "");
    assert_eq!(b.hook("sweep").as_deref(), Some("done"));
    assert_eq!(
        b.hook("view").as_deref(),
        Some("sweep"),
        "the page stays on the Sweep view"
    );
    assert_eq!(
        b.lab_calls,
        [
            "factor_picker",
            "sweep_plan",
            "generate",
            "generate",
            "sweep_view"
        ]
    );
    let sweep = b.state.gen.sweep.clone().unwrap();
    // Each level ran as a history run of its own generated suite, named after the level.
    let mut levels = Vec::new();
    for (i, value) in ["0", "3"].iter().enumerate() {
        let id = sweep.runs[i].run.clone().unwrap();
        let entry = b.state.history.get(&id).unwrap();
        assert_eq!(entry.label, format!("baseline · transitions = {value}"));
        let suite = core_suite(&format!("seed=4,sessions=6,transitions={value}"));
        assert_eq!(
            entry.dataset_fingerprint,
            wildtool_core::dataset::fingerprint_hex(&suite)
        );
        let outcomes: Vec<wildtool_core::outcome::TaskOutcome> =
            serde_json::from_str(&b.kv[&format!("out/{id}")]).unwrap();
        assert_eq!(outcomes.len(), 24);
        levels.push(wildtool_core::sweep::LevelInput {
            value: (*value).to_owned(),
            dir: format!("level-{value}"),
            fingerprint: entry.dataset_fingerprint.clone(),
            trials: vec![outcomes],
            env_metrics: Vec::new(),
        });
    }
    // sweep.json is the core's analysis of the stored runs.
    let plan =
        wildtool_core::sweep::SweepPlan::from_options("transitions=0,3", "4", "6", "").unwrap();
    let doc = wildtool_core::sweep::analyse(
        &wildtool_core::sweep::SweepInput {
            plan: &plan,
            model: "baseline".into(),
            levels,
        },
        Default::default(),
    );
    b.act("sweep-download", "json", "");
    assert_eq!(b.downloads.last().unwrap().0, "sweep.json");
    assert_eq!(b.downloads.last().unwrap().1, doc.to_json() + "\n");
    b.act("sweep-download", "html", "");
    assert_eq!(
        b.downloads.last().unwrap().1,
        wildtool_core::sweep::html::sweep_html(&doc)
    );
    let lines = wildtool_core::sweep::html::trend_lines(&doc);
    assert_eq!(b.deep_text("sweep-slope"), lines[0]);
    // The dataset before the sweep is loaded again, and the status line says so.
    assert!(
        b.text("status")
            .starts_with("Sweep finished. Loaded again: the bundled suite"),
        "{}",
        b.text("status")
    );
    // A reload shows the analysis again, with its downloads.
    let mut r = Browser::open("http://page/?view=sweep", b.kv.clone());
    assert_eq!(r.hook("sweep").as_deref(), Some("done"));
    assert_eq!(r.deep_text("sweep-slope"), lines[0]);
    r.act("sweep-download", "json", "");
    assert_eq!(r.downloads.last().unwrap().1, doc.to_json() + "\n");
    // A refused plan says why.
    b.act("gen-set", "sweep-levels", "0,9");
    b.act("sweep-start", "", "");
    assert_eq!(b.hook("sweep").as_deref(), Some("failed"));
    assert!(
        b.text("sweep-error").contains("transitions must be"),
        "{}",
        b.text("sweep-error")
    );
}

#[test]
fn stopping_a_sweep_analyses_the_levels_that_ran() {
    let mut b = open("http://page/?provider=baseline&view=sweep");
    b.act("gen-set", "sweep-levels", "0,1,2");
    b.act("gen-set", "sweep-per-level", "20");
    b.deliver(Msg::SweepStart);
    // Run until the second level is under way, then stop.
    for _ in 0..10_000 {
        if matches!(
            b.state.gen.sweep.as_ref().map(|s| s.phase.clone()),
            Some(wildtool_web::generate::SweepPhase::Running(1))
        ) {
            break;
        }
        b.step(1);
    }
    b.step(5);
    b.act("sweep-stop", "", "");
    assert_eq!(b.hook("sweep").as_deref(), Some("stopped"));
    let sweep = b.state.gen.sweep.clone().unwrap();
    assert_eq!(sweep.runs[0].outcome.as_deref(), Some("done"));
    assert_eq!(sweep.runs[1].outcome.as_deref(), Some("cancelled"));
    assert!(sweep.runs[2].run.is_none());
    let doc = wildtool_core::sweep::SweepDoc::parse(&sweep.result.unwrap().doc).unwrap();
    assert_eq!(doc.status, "partial");
    assert_eq!(doc.levels[0].status, "done");
    assert_eq!(doc.levels[2].status, "not run");
    assert!(b.text("sweep-error").contains("stopped early"));
}

/// The value of attribute `name` of element `id`, looking inside lab views too.
fn deep_attr(b: &Browser, id: &str, name: &str) -> Option<String> {
    let tree = b.frame().root;
    tree.by_id(id).and_then(|e| e.get(name)).map(str::to_owned)
}

#[test]
fn a_comparison_link_rebuilds_the_view_in_a_fresh_browser() {
    let (mut b, gold, baseline) = gold_and_baseline();
    b.act("nav", "compare", "");
    b.act("compare-pick", &gold, "true");
    b.act("compare-pick", &baseline, "true");
    let url = deep_attr(&b, "pair-1-link", "value").expect("a comparison link");
    assert!(url.starts_with("http://page/?view=compare#v2."), "{url}");
    let fragment = url.split_once('#').unwrap().1;
    assert!(fragment.len() <= 3_500);
    // Copying it.
    b.act("copy-compare-link", &url, "");
    assert!(b.text("status").contains("Comparison link copied"));
    // A fresh browser (nothing stored) opens it on the bundled suite.
    let r = Browser::open(&url, BTreeMap::new());
    assert_eq!(r.hook("share").as_deref(), Some("opened"));
    assert_eq!(r.hook("view").as_deref(), Some("compare"));
    assert_eq!(r.hook("compare").as_deref(), Some("ready"));
    assert_eq!(r.lab_calls, ["compare_link_view"]);
    for id in [
        "pair-1-title",
        "pair-1-a-only",
        "pair-1-b-only",
        "pair-1-p",
        "pair-1-task-delta",
        "pair-1-session-delta",
    ] {
        assert_eq!(r.deep_text(id), b.deep_text(id), "{id}");
    }
    assert!(r.text("compare-from-link").contains("comparison link"));
    assert_eq!(
        r.urls.last().map(String::as_str),
        Some(&url["http://page/".len()..])
    );
    // The per-task table: another class, then more rows (the comparison is not recomputed
    // by the core — the lab module keeps it — but the view is asked for again).
    let mut r = r;
    let rows = |r: &Browser| deep_attr(r, "pair-1-tasks", "data-rows").unwrap();
    let discordant = rows(&r);
    r.act("compare-diff", "0", "all");
    assert_eq!(rows(&r), "256");
    assert!(r
        .deep_text("pair-1-more")
        .contains("Show more (50 of 256 shown)"));
    r.act("compare-more", "0", "");
    assert!(r.deep_text("pair-1-more").contains("(100 of 256 shown)"));
    r.act("compare-diff", "0", "nonsense");
    assert_eq!(rows(&r), "256");
    r.act("compare-diff", "0", "discordant");
    assert_eq!(rows(&r), discordant);
    // Leaving the link's comparison for the (empty) history.
    r.act("compare-link-close", "", "");
    assert!(r.text("compare-wait").contains("(0 chosen)"));
    // A damaged link says why.
    let broken = url.replace("#v2.", "#v2.AAAA");
    let r = Browser::open(&broken, BTreeMap::new());
    assert_eq!(r.hook("share").as_deref(), Some("error"));
    assert!(
        r.text("status").contains("cannot be opened"),
        "{}",
        r.text("status")
    );
}

#[test]
fn a_comparison_link_of_another_dataset_asks_for_it() {
    let (mut b, gold, baseline) = gold_and_baseline();
    b.act("nav", "compare", "");
    b.act("compare-pick", &gold, "true");
    b.act("compare-pick", &baseline, "true");
    let url = deep_attr(&b, "pair-1-link", "value").unwrap();
    let fragment = url.split_once('#').unwrap().1;
    // Opened where the page loads another dataset first (the mini fixture).
    let r = Browser::open(
        &format!("http://page/?dataset=http://page/mini.jsonl#{fragment}"),
        BTreeMap::new(),
    );
    assert_eq!(r.hook("share").as_deref(), Some("needs-dataset"));
    assert!(
        r.text("status").contains("another dataset"),
        "{}",
        r.text("status")
    );
    assert!(r.lab_calls.is_empty());
}

#[test]
fn a_run_with_trials_shows_pass_hat_k_from_the_lab_module() {
    let mut b = open("http://page/?provider=gold&trials=3");
    b.act("start", "", "");
    assert_eq!(b.hook("runOutcome").as_deref(), Some("done"));
    // The headline is trial 1; the panel covers the three trials.
    assert_eq!(b.metric_values("headline")[..2], ["100.0%", "100.0%"]);
    assert_eq!(b.hook("trials").as_deref(), Some("ready"));
    assert_eq!(b.lab_calls, ["trials_view"]);
    assert!(
        b.deep_text("trials-passk").starts_with("100.0%pass^3"),
        "{}",
        b.deep_text("trials-passk")
    );
    assert!(b.deep_text("trials-note").contains("trial 1"));
    let id = b.state.shown.as_ref().unwrap().id.clone();
    let stored: Vec<Vec<wildtool_core::outcome::TaskOutcome>> =
        serde_json::from_str(&b.kv[&format!("trials/{id}")]).unwrap();
    assert_eq!(stored.len(), 3);
    assert!(stored
        .iter()
        .all(|t| t.len() == 256 && t.iter().all(|o| o.correct)));
    // The checkpoint holds every trial (records of trials 2 and 3 say so).
    let trial3 =
        b.kv.iter()
            .filter(|(k, v)| k.starts_with(&format!("ck/{id}/")) && v.contains("\"trial\": 3"))
            .count();
    assert_eq!(trial3, 256);
    // After a reload, the panel is read back from the store.
    let mut r = Browser::open("http://page/", b.kv.clone());
    r.act("history-open", &id, "");
    assert_eq!(r.hook("trials").as_deref(), Some("ready"));
    assert_eq!(r.deep_text("trials-passk"), b.deep_text("trials-passk"));
    // A run without trials has no panel.
    let mut c = open("http://page/?provider=gold");
    c.act("start", "", "");
    assert_eq!(c.hook("trials"), None);
    assert!(c.lab_calls.is_empty());
}

#[test]
fn on_the_official_dataset_runs_are_ranked_among_the_published_models() {
    // Hidden on the bundled suite, with the reason, and no lab call.
    let (mut b, gold, _baseline) = gold_and_baseline();
    assert_eq!(b.hook("leaderboard").as_deref(), Some("hidden"));
    assert!(b.text("leaderboard-hidden").contains("hidden"));
    assert!(b.lab_calls.is_empty());
    // A list naming this dataset as official: the ranked table, with both runs.
    let fp = b.state.dataset.unwrap().fingerprint.clone();
    let list = format!(
        r#"{{"datasets": [{{"name": "test official", "file": "suite.jsonl", "fingerprint": "{fp}", "sessions": 64, "tasks": 256, "source": {{"repository": "r", "path": "suite.jsonl", "commit": "0123456789abcdef"}}}}]}}"#
    );
    b.deliver(Msg::Fetched(
        wildtool_web::msg::FetchPurpose::Official,
        Ok(list),
    ));
    b.settle();
    b.act("compare-add", &gold, "");
    assert_eq!(b.hook("leaderboard").as_deref(), Some("shown"));
    // Once for the run shown, once more when another run joined the comparison.
    assert_eq!(b.lab_calls, ["leaderboard_view", "leaderboard_view"]);
    let runs = deep_attr(&b, "leaderboard", "data-runs").unwrap();
    assert_eq!(runs, "2");
    let table = b.deep_text("leaderboard-table");
    assert!(
        table.contains("gold (your run)") && table.contains("baseline (your run)"),
        "{table}"
    );
    // gold (100%) ranks first by task accuracy; sorting by the label puts it elsewhere.
    let first_row = |b: &Browser| {
        let tree = b.frame().root;
        tree.by_id("leaderboard-table")
            .unwrap()
            .elements()
            .into_iter()
            .find(|e| e.tag == "th" && e.get("scope") == Some("row"))
            .map(|e| e.text_content())
            .unwrap()
    };
    assert_eq!(first_row(&b), "gold (your run)");
    b.act("leaderboard-sort", "task", "");
    assert_ne!(first_row(&b), "gold (your run)", "ascending: lowest first");
    b.act("leaderboard-sort", "label", "");
    let label_first = first_row(&b);
    let models = b.state.leaderboard.clone().unwrap();
    let mut names: Vec<String> = models.iter().map(|m| m.model.clone()).collect();
    names.extend([
        "gold (your run)".to_owned(),
        "baseline (your run)".to_owned(),
    ]);
    names.sort_by_key(|n| n.to_lowercase());
    assert_eq!(label_first, names[0]);
    b.act("leaderboard-sort", "nonsense", "");
    assert_eq!(first_row(&b), label_first);
    // The model picker is sorted and searchable.
    b.act("toggle", "compare-box", "true");
    let picker = |b: &Browser| -> Vec<String> {
        b.frame()
            .root
            .by_id("compare-models")
            .map(|e| {
                e.elements()
                    .into_iter()
                    .filter(|x| x.tag == "label")
                    .map(|x| x.text_content().trim().to_owned())
                    .collect()
            })
            .unwrap_or_default()
    };
    let all = picker(&b);
    assert_eq!(all.len(), models.len());
    let mut sorted = all.clone();
    sorted.sort_by_key(|m| m.to_lowercase());
    assert_eq!(all, sorted);
    b.act("model-search", "", "qwen3-8");
    let found = picker(&b);
    // The three models picked by default always show; the search adds matches.
    assert!(found.iter().any(|m| m == "Qwen3-8B"));
    assert!(found.len() < all.len());
    assert!(found.iter().all(|m| m.to_lowercase().contains("qwen3-8")
        || wildtool_web::state::DEFAULT_COMPARE.contains(&m.as_str())));
    assert!(b
        .text("model-count")
        .contains(&format!("of {} models", models.len())));
}

#[path = "page/audit.rs"]
mod audit;
#[path = "page/budget.rs"]
mod budget;
#[path = "page/cassette.rs"]
mod cassette;
#[path = "page/cost.rs"]
mod cost;
#[path = "page/env.rs"]
mod env;
#[path = "page/env_compare.rs"]
mod env_compare;
#[path = "page/env_sweep.rs"]
mod env_sweep;
#[path = "page/manifest.rs"]
mod manifest;
#[path = "page/scorer.rs"]
mod scorer;
#[path = "page/streaming.rs"]
mod streaming;
#[path = "page/traces.rs"]
mod traces;
#[path = "page/verify.rs"]
mod verify;

#[test]
fn a_built_in_agent_run_is_named_after_the_agent_not_the_hidden_model_field() {
    let mut b = open("http://page/?provider=openai&model=mock");
    assert_eq!(b.state.setup.model, "mock");
    b.act("set", "m-provider", "baseline");
    b.act("start", "", "");
    assert_eq!(b.hook("runOutcome").as_deref(), Some("done"));
    let id = b.state.shown.as_ref().unwrap().id.clone();
    let entry = b.state.history.get(&id).unwrap();
    assert_eq!(entry.label, "baseline");
    assert_eq!(entry.model, "baseline");
    // Nothing to price: the agent asked no model (not "no price for baseline").
    let cost = b.text("dash-cost");
    assert!(
        cost.contains("no cost: a built-in agent answers without asking a model"),
        "{cost}"
    );
}

#[test]
fn the_status_banner_steps_aside_on_another_view_but_errors_stay() {
    let mut b = open("http://page/?provider=gold");
    b.act("start", "", "");
    assert_eq!(b.hook("runOutcome").as_deref(), Some("done"));
    assert!(
        b.text("status").starts_with("Run finished"),
        "{}",
        b.text("status")
    );
    b.act("nav", "history", "");
    assert_eq!(
        b.text("status"),
        "",
        "the run's note is not the History view's"
    );
    // An error is kept until something replaces it.
    let mut e = open("http://page/?provider=gold");
    e.act("set", "m-conc", "many");
    e.act("start", "", "");
    let said = e.text("status");
    assert!(said.starts_with("Cannot start"), "{said}");
    e.act("nav", "history", "");
    assert_eq!(e.text("status"), said);
}
