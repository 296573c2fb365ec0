//! The page's state and its one update function.
//!
//! [`AppState::update`] takes a [`Msg`] (a user action or an IO result) and the time, and
//! returns the [`Effect`]s the browser glue must carry out. Views read the state
//! (`views::frame`). Nothing here touches the browser, so the whole page — loading data,
//! runs through the engine, uploads, the history — is tested natively by feeding
//! messages (`crates/web/tests`, and the unit tests of each module).

use wildtool_core::chart::dashboard::{parse_leaderboard, LeaderboardModel};

use crate::dashboard::ShownRun;
use crate::data::{self, Dataset, DatasetSource};
use crate::field::Field;
use crate::history::History;
use crate::msg::{
    AuxPurpose, Effect, FetchPurpose, FilePurpose, FileRef, GetPurpose, ListPurpose, Msg,
};
use crate::route::{Location, Route, View};
use crate::run::LiveRun;
use crate::setup::{DatasetChoice, KeyStorage, SetupForm};
use crate::traces::TraceUi;
use crate::upload::Upload;
pub use crate::vocab::{Now, Status, Tone};

/// Published models shown in the comparison chart until the user picks others.
pub const DEFAULT_COMPARE: [&str; 3] = ["GPT-4o", "Claude-4-Sonnet", "Qwen3-8B"];

/// A dataset being fetched or read.
#[derive(Debug, Clone, PartialEq)]
pub struct PendingDataset {
    /// Where from.
    pub source: DatasetSource,
    /// Language.
    pub lang: String,
}

/// What the address asked for at start, done once the dataset is there.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Boot {
    /// `autorun=1`.
    pub autorun: bool,
    /// `results=URL`.
    pub results: Option<String>,
    /// A share link in the fragment.
    pub link: Option<String>,
    /// The dataset has been loaded (or failed) once.
    pub dataset_settled: bool,
    /// `dataset=generate:SPEC`: the suite to generate instead of fetching one.
    pub generate: Option<String>,
    /// The address names settings or a dataset (they win over the kept set-up).
    pub addressed: bool,
    /// A word for the user once the first dataset is ready (`keep`).
    pub note: Option<String>,
}

/// Automation hooks that are not derived from other state.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Flags {
    /// `scoreState` for `results=` (`scoring`, `done`, `error`).
    pub score_state: Option<&'static str>,
    /// `scoreError`.
    pub score_error: Option<String>,
    /// `share` (`opened`, `needs-dataset`, `error`).
    pub share: Option<&'static str>,
    /// `resume` (`offered`, `discarded`).
    pub resume: Option<&'static str>,
    /// jieba was installed.
    pub dictionary: bool,
    /// `datasetError`: why the last dataset was not loaded (`datasetState` is `error`).
    pub dataset_error: Option<String>,
    /// Uploads are scored in the lab module's Web Worker (the glue has one).
    pub worker: bool,
}

/// The narrow context of a feature's handler, from the state's members (borrowed apart
/// from the feature's own state).
macro_rules! cx {
    ($s:ident) => {
        crate::cx::Cx {
            dataset: $s.dataset,
            status: &mut $s.status,
            lab: &mut $s.lab,
        }
    };
}

/// The whole page.
pub struct AppState {
    /// Where the page is.
    pub route: Route,
    /// Query parameters carried into every address (`dataset`, `lang`).
    pub keep_query: Vec<(String, String)>,
    /// The page's address without query and fragment (share links).
    pub base: String,
    /// Status line.
    pub status: Option<Status>,
    /// Setup form.
    pub setup: SetupForm,
    /// The loaded dataset.
    pub dataset: Option<Dataset>,
    /// A dataset on its way.
    pub pending_dataset: Option<PendingDataset>,
    /// Work the address asked for.
    pub boot: Boot,
    /// Runs kept in this browser.
    pub history: History,
    /// Published models (when loaded).
    pub leaderboard: Option<Vec<LeaderboardModel>>,
    /// The official datasets the leaderboard was measured on (when loaded).
    pub official: Vec<wildtool_core::compare::leaderboard::OfficialDataset>,
    /// Published models picked for the comparison chart.
    pub compare_models: Vec<String>,
    /// The run on the dashboard.
    pub shown: Option<ShownRun>,
    /// The live run.
    pub run: Option<LiveRun>,
    /// Offline scoring.
    pub upload: Upload,
    /// The files dropped to verify.
    pub verify: crate::verify::VerifyFiles,
    /// Trace view state.
    pub traces: TraceUi,
    /// Disclosures the user opened.
    pub open: Vec<String>,
    /// Element to focus after the next render.
    pub focus: Option<String>,
    /// Automation flags.
    pub flags: Flags,
    /// jieba is being loaded.
    pub jieba_loading: bool,
    /// Last render time in milliseconds.
    pub render_ms: f64,
    /// The streaming probe of the setup form's endpoint, once started.
    pub probe: Option<crate::setup::probe::PageProbe>,
    /// Why the probe could not start.
    pub probe_error: Option<String>,
    /// Numbers probe requests (answers to an earlier probe are dropped).
    pub probe_seq: u64,
    /// The lab module's stream readers, once loaded (streamed runs need them).
    pub stream_call: Option<crate::run::readers::StreamCall>,
    /// The lab module's `cassette` call (installed with the stream readers).
    pub cassette_call: Option<crate::run::readers::StreamCall>,
    /// Cassettes: record the next run, or replay an uploaded one.
    pub cassette: crate::run::CassetteSetup,
    /// The compared runs' stored lines read for their cost.
    pub cost_reads: crate::budget::CostReads,
    /// A streamed run waiting for the stream readers: its resume entry and stored lines.
    pub awaiting_readers: Option<(Option<crate::history::HistoryEntry>, Vec<String>)>,
    /// Loading the scorer (the lab module).
    pub scorer: crate::scoring::ScorerLoad,
    /// A run waiting for the scorer: its resume entry and stored lines.
    pub awaiting_scorer: Option<(Option<crate::history::HistoryEntry>, Vec<String>)>,
    /// How charts are laid out for the page's width.
    pub layout: wildtool_core::chart::Layout,
    /// The time of the last message (ms since the epoch), for timestamps.
    pub now_ms: f64,
    /// A history entry to open once its dataset is loaded.
    pub pending_open: Option<String>,
    /// A history entry to resume once its dataset is loaded.
    pub pending_resume: Option<String>,
    /// A stored run being scored again for traces and exports.
    pub rescore: Option<crate::scoring::Rescore>,
    /// The Chinese segmenter, once loaded (installed into every dataset).
    pub cut: Option<data::SharedCut>,
    /// Calls into the lab module and their answers.
    pub lab: crate::lab::LabState,
    /// The planner's fields (and the page's other budget features).
    pub budget: crate::budget::BudgetState,
    /// Generated suites and sweeps.
    pub gen: crate::generate::GenState,
    /// The second run of traces side by side (the address's `vs=`).
    pub vs: Option<crate::traces::pair::VsRun>,
    /// The ledger environment (an extension): its runs, views and lab calls.
    pub env: crate::env::EnvState,
}

impl AppState {
    /// The state for a page opened at `href`, with the stored remembered key (JSON).
    pub fn new(href: &str, remembered_key: Option<&str>) -> AppState {
        let loc = Location::parse(href);
        let mut setup = SetupForm::default();
        let q = |k: &str| loc.get(k).map(str::to_owned);
        if let Some(p) = q("provider") {
            setup.provider = p;
        }
        for (name, field) in [
            ("base_url", Field::BaseUrl),
            ("model", Field::Model),
            ("concurrency", Field::Concurrency),
            ("temperature", Field::Temperature),
            ("timeout", Field::Timeout),
            ("retries", Field::Retries),
            ("backoff", Field::Backoff),
            ("trials", Field::Trials),
        ] {
            if let Some(v) = q(name) {
                let _ = setup.set(field, &v);
            }
        }
        if q("preflight").as_deref() == Some("0") {
            setup.preflight = false;
        }
        if q("stream").as_deref() == Some("1") {
            setup.stream = true;
        }
        setup.env = q("env").as_deref() == Some("ledger");
        if q("history").as_deref() == Some("own") {
            setup.history = "own".into();
        }
        if q("lang").as_deref() == Some("zh") {
            setup.lang = "zh".into();
        }
        let generate = q("dataset").and_then(|d| d.strip_prefix("generate:").map(str::to_owned));
        match q("dataset").as_deref() {
            None | Some("") | Some("bundled") | Some("suite") => {}
            Some(d) if d.starts_with("generate:") => {}
            Some(other) => {
                setup.dataset = DatasetChoice::Url;
                setup.dataset_url = if other == "official" {
                    data::OFFICIAL_DATA.to_owned()
                } else {
                    resolve_url(&loc.base, other)
                };
            }
        }
        setup.set_remembered(remembered_key);
        let keep_query = ["dataset", "lang"]
            .iter()
            .filter_map(|k| loc.get(k).map(|v| ((*k).to_owned(), v.to_owned())))
            .collect();
        let link = (!loc.fragment.is_empty()).then(|| loc.fragment.clone());
        AppState {
            route: loc.route(),
            keep_query,
            base: loc.base.clone(),
            status: Some(Status {
                text: "Loading the dataset…".into(),
                tone: Tone::Info,
            }),
            setup,
            dataset: None,
            pending_dataset: None,
            boot: Boot {
                autorun: q("autorun").as_deref() == Some("1"),
                results: q("results").filter(|r| !r.is_empty()),
                link,
                dataset_settled: false,
                generate,
                addressed: !loc.fragment.is_empty()
                    || crate::setup::keep::ADDRESSED
                        .iter()
                        .any(|k| loc.get(k).is_some()),
                note: None,
            },
            history: History::default(),
            leaderboard: None,
            official: Vec::new(),
            compare_models: DEFAULT_COMPARE.iter().map(|s| (*s).to_owned()).collect(),
            shown: None,
            run: None,
            upload: Upload::default(),
            verify: Default::default(),
            traces: TraceUi::default(),
            open: Vec::new(),
            focus: None,
            flags: Flags::default(),
            jieba_loading: false,
            render_ms: 0.0,
            probe: None,
            probe_error: None,
            probe_seq: 0,
            stream_call: None,
            cassette_call: None,
            cassette: Default::default(),
            cost_reads: Default::default(),
            awaiting_readers: None,
            scorer: Default::default(),
            awaiting_scorer: None,
            layout: wildtool_core::chart::Layout::STANDARD,
            now_ms: 0.0,
            pending_open: None,
            pending_resume: None,
            rescore: None,
            cut: None,
            lab: crate::lab::LabState::default(),
            budget: Default::default(),
            gen: crate::generate::GenState::default(),
            vs: None,
            env: Default::default(),
        }
    }

    /// The effects to run at start: the dataset, the leaderboard, the history and the
    /// comparison set, and a clean address (automation parameters are used once).
    pub fn start(&mut self) -> Vec<Effect> {
        let mut fx = vec![
            Effect::ReplaceUrl(self.address()),
            Effect::Fetch(data::LEADERBOARD_DATA.into(), FetchPurpose::Leaderboard),
            Effect::Fetch(data::OFFICIAL_DATASETS.into(), FetchPurpose::Official),
            Effect::KvList(crate::history::RUN_PREFIX.into(), ListPurpose::History),
            Effect::KvGet(crate::history::COMPARE_KEY.into(), GetPurpose::CompareSet),
            Effect::KvGet(crate::setup::keep::SWEEP_KEY.into(), GetPurpose::Sweep),
        ];
        match self.boot.generate.clone() {
            Some(spec) => fx.extend(self.generate_dataset(spec, Now::default())),
            None if !self.boot.addressed => fx.push(AppState::read_kept_setup()),
            None => fx.extend(self.load_dataset_from_setup()),
        }
        fx
    }

    /// True when the disclosure `name` is open.
    pub fn is_open(&self, name: &str) -> bool {
        self.open.iter().any(|n| n == name)
    }

    /// Shows `text` in the status line.
    pub fn say(&mut self, text: impl Into<String>, tone: Tone) {
        self.status = Some(Status {
            text: text.into(),
            tone,
        });
    }

    /// The address of the current route (query and fragment).
    pub fn address(&self) -> String {
        let mut q = self.route.to_query(&self.keep_query);
        if self.route.view == View::Dashboard {
            if let Some(link) = self.env.shown.as_ref().map(|s| s.link.as_str()) {
                q.push('#');
                q.push_str(link);
            } else if let Some(link) = self.shown.as_ref().and_then(|s| s.link_fragment()) {
                q.push('#');
                q.push_str(link);
            }
        }
        if self.route.view == View::Compare {
            if let Some(link) = &self.lab.compare_link {
                q.push('#');
                q.push_str(link);
            }
        }
        q
    }

    /// Moves to `route`, recording it in the browser's history.
    pub fn go(&mut self, route: Route) -> Vec<Effect> {
        if route == self.route {
            return Vec::new();
        }
        self.route = route;
        vec![Effect::PushUrl(self.address())]
    }

    /// Moves to `view` keeping what it shows.
    pub fn go_view(&mut self, view: View) -> Vec<Effect> {
        let mut r = self.route.clone();
        r.view = view;
        r.vs = None;
        if !matches!(view, View::Dashboard | View::Traces) {
            r.run = None;
            r.session = None;
            r.task = None;
            r.step = None;
        } else if r.run.is_none() {
            r.run = self.shown.as_ref().map(|s| s.id.clone());
        }
        self.go(r)
    }

    /// Handles one message.
    pub fn update(&mut self, msg: Msg, now: Now) -> Vec<Effect> {
        let before = self.route.clone();
        let mut fx = self.handle(msg, now);
        fx.extend(self.lab_refresh());
        fx.extend(self.env_refresh());
        fx.extend(self.search_refresh());
        fx.extend(self.pair_refresh());
        self.sweep_after(before, &mut fx, now);
        fx
    }

    fn handle(&mut self, msg: Msg, now: Now) -> Vec<Effect> {
        self.now_ms = now.unix_ms;
        match msg {
            Msg::Navigate(view) => {
                // A note or a success speaks of the view it was said on: once the user
                // goes elsewhere it steps aside (warnings and errors stay until the next
                // status replaces them). The readiness line is only hidden away from
                // Setup, so it is there again on return.
                if view != self.route.view
                    && self.status.as_ref().is_some_and(|s| {
                        matches!(s.tone, Tone::Info | Tone::Ok) && !s.is_readiness()
                    })
                {
                    self.status = None;
                }
                let fx = self.go_view(view);
                self.focus = Some(format!("{}-title", view.slug()));
                fx
            }
            Msg::PopState(href) => {
                let loc = Location::parse(&href);
                self.route = loc.route();
                let mut fx = Vec::new();
                if let Some(id) = self.route.run.clone() {
                    if self.shown.as_ref().map(|s| &s.id) != Some(&id) {
                        fx.extend(self.open_history(&id));
                    }
                }
                if fx.is_empty() && self.route.view == View::Traces {
                    fx = self.open_route_trace();
                }
                fx
            }
            Msg::Set(field, value) => {
                let mut fx = self.set_field(field, &value);
                if !matches!(field, Field::Key | Field::Remember) {
                    fx.extend(self.keep_setup());
                }
                fx
            }
            Msg::OfficialUrl => {
                self.setup.dataset = DatasetChoice::Url;
                self.setup.dataset_url = data::OFFICIAL_DATA.to_owned();
                Vec::new()
            }
            Msg::LoadDataset => self.load_dataset_from_setup(),
            Msg::ListModels => self.list_models(),
            Msg::AuxDone(AuxPurpose::Models(seq), reply) => {
                self.setup.models_arrived(seq, &reply);
                Vec::new()
            }
            Msg::AuxDone(AuxPurpose::Alias(run, host), reply) => {
                self.alias_probed(&run, &host, &reply, now)
            }
            Msg::DatasetFile(file) => {
                self.setup.dataset = DatasetChoice::Upload;
                self.pending_dataset = Some(PendingDataset {
                    source: DatasetSource::Upload {
                        name: file.name.clone(),
                    },
                    lang: self.setup.lang.clone(),
                });
                self.say(format!("Reading {}…", file.name), Tone::Info);
                vec![Effect::ReadFile {
                    len: file.size,
                    file,
                    offset: 0,
                    purpose: FilePurpose::Dataset,
                }]
            }
            Msg::Fetched(FetchPurpose::Dataset, result) => self.dataset_arrived(result, now),
            Msg::Fetched(FetchPurpose::Leaderboard, result) => {
                self.lab.board_text = result.as_ref().ok().cloned();
                self.leaderboard = Some(
                    result
                        .ok()
                        .and_then(|t| parse_leaderboard(&t).ok())
                        .unwrap_or_default(),
                );
                self.refresh_shown();
                Vec::new()
            }
            Msg::Fetched(FetchPurpose::Official, result) => {
                self.official = result
                    .ok()
                    .and_then(|t| wildtool_core::compare::leaderboard::parse_official(&t).ok())
                    .unwrap_or_default();
                self.refresh_shown();
                Vec::new()
            }
            Msg::Fetched(FetchPurpose::Results, result) => self.results_fetched(result, now),
            Msg::FileRead {
                purpose: FilePurpose::Dataset,
                file,
                bytes,
                ..
            } => {
                let mut fx = vec![Effect::ReleaseFile(file.id)];
                let text = bytes.map(|b| String::from_utf8_lossy(&b).into_owned());
                fx.extend(self.dataset_arrived(text, now));
                fx
            }
            Msg::FileRead {
                purpose: FilePurpose::Verify,
                file,
                bytes,
                ..
            } => crate::verify::update::read(&mut self.verify, file, bytes, &mut cx!(self)),
            Msg::FileRead {
                purpose: FilePurpose::Results,
                file,
                offset,
                bytes,
            } => self.upload_read(file, offset, bytes, now),
            Msg::WorkerProgress { file, read } => self.worker_progress(file, read),
            Msg::WorkerScored { file, result } => self.worker_scored(file, result),
            Msg::Viewport(width) => {
                self.layout = chart_layout(width);
                if let Some(s) = &mut self.shown {
                    s.set_layout(self.layout);
                }
                Vec::new()
            }
            Msg::Toggle(name, open) => {
                let glossary = open && name == crate::traces::GLOSSARY_ID;
                self.open.retain(|n| n != &name);
                if open {
                    self.open.push(name);
                }
                if glossary {
                    self.read_glossary()
                } else {
                    Vec::new()
                }
            }
            Msg::JiebaLoaded(result) => {
                self.jieba_loading = false;
                match result {
                    Ok(()) => {
                        self.flags.dictionary = true;
                        self.resume_scoring(now)
                    }
                    Err(e) => {
                        let why = format!("The Chinese dictionary could not be loaded: {e}");
                        self.say(why.clone(), Tone::Error);
                        self.rescore = None;
                        let mut fx = self.fail_scoring(&why);
                        fx.extend(self.run_scoring_failed(&why));
                        fx
                    }
                }
            }
            Msg::Continue => self.resume_scoring(now),
            Msg::StoreFailed(e) => {
                self.say(
                    format!("This browser could not store the run: {e}"),
                    Tone::Warn,
                );
                Vec::new()
            }
            Msg::Copied(ok) => {
                if std::mem::take(&mut self.lab.copying) {
                    self.compare_link_copied(ok);
                } else if let Some(s) = &mut self.shown {
                    s.copied = Some(ok);
                }
                Vec::new()
            }
            Msg::Start => self.start_run(now),
            Msg::Pause => self.pause_run(now),
            Msg::Cancel => self.cancel_run(now),
            Msg::Resume(id) => self.resume_stored(&id),
            Msg::Discard(id) => self.discard_stored(&id),
            Msg::Reply(id, reply) => self.run_reply(id, reply, now),
            Msg::Stream(id, part) => self.run_stream(id, part, now),
            Msg::ProbeStart => self.probe_start(),
            Msg::Probe(seq, input) => self.probe_input(seq, input),
            Msg::Tick => self.run_tick(now),
            Msg::AgentStep => self.run_agents(now),
            Msg::UploadFile(file) => self.upload_start(file),
            Msg::ImportFile(file) => self.upload_begin(file, true),
            Msg::VerifyFile(file) => {
                crate::verify::update::file(&mut self.verify, file, &mut cx!(self))
            }
            Msg::CassetteRecord(on) => self.cassette_record(on),
            Msg::CassetteFile(file) => self.cassette_file(file),
            Msg::CassetteDownload => self.cassette_download(),
            Msg::FileRead {
                purpose: FilePurpose::Cassette,
                file,
                bytes,
                ..
            } => self.cassette_read(file, bytes),
            Msg::Export(kind) => self.export(&kind),
            Msg::Chart(format, id) => self.chart_download(&format, &id),
            Msg::CopyLink => self.copy_link(),
            Msg::CompareAdd(id) => self.compare_add(&id),
            Msg::CompareRemove(id) => self.compare_remove(&id),
            Msg::CompareModel(model, on) => {
                self.compare_models.retain(|m| m != &model);
                if on {
                    self.compare_models.push(model);
                }
                self.refresh_shown();
                Vec::new()
            }
            Msg::ComparePick(id, on) => self.compare_pick(&id, on),
            Msg::LabDone {
                purpose: crate::msg::LabPurpose::StreamReaders,
                ..
            } => self.stream_readers_ready(Ok(()), now),
            Msg::LabFailed {
                purpose: crate::msg::LabPurpose::StreamReaders,
                error,
            } => self.stream_readers_ready(Err(error), now),
            Msg::LabDone {
                purpose: crate::msg::LabPurpose::Scorer,
                ..
            } => self.scorer_loaded(Ok(()), now),
            Msg::LabFailed {
                purpose: crate::msg::LabPurpose::Scorer,
                error,
            } => self.scorer_loaded(Err(error), now),
            Msg::LabDone {
                purpose: crate::msg::LabPurpose::Share,
                output,
            } => self.share_arrived(Ok(output)),
            Msg::LabFailed {
                purpose: crate::msg::LabPurpose::Share,
                error,
            } => self.share_arrived(Err(error)),
            Msg::LabDone {
                purpose: crate::msg::LabPurpose::ChartFile(png),
                output,
            } => self.chart_file_arrived(png, Ok(output)),
            Msg::LabFailed {
                purpose: crate::msg::LabPurpose::ChartFile(png),
                error,
            } => self.chart_file_arrived(png, Err(error)),
            Msg::LabDone {
                purpose: crate::msg::LabPurpose::LinkHeader,
                output,
            } => self.link_header_arrived(Ok(output)),
            Msg::LabFailed {
                purpose: crate::msg::LabPurpose::LinkHeader,
                error,
            } => self.link_header_arrived(Err(error)),
            Msg::LabDone {
                purpose: crate::msg::LabPurpose::ShareDecode,
                output,
            } => self.link_decoded(Ok(output)),
            Msg::LabFailed {
                purpose: crate::msg::LabPurpose::ShareDecode,
                error,
            } => self.link_decoded(Err(error)),
            Msg::LabDone { purpose, output } if crate::msg::env_owns(purpose) => {
                self.env_lab_done(purpose, Ok(output), now)
            }
            Msg::LabFailed { purpose, error } if crate::msg::env_owns(purpose) => {
                self.env_lab_done(purpose, Err(error), now)
            }
            Msg::Env(m) => self.env_msg(m),
            Msg::LabDone { purpose, output } if crate::setup::probe::owns(purpose) => {
                self.probe_lab(purpose, Ok(output))
            }
            Msg::LabFailed { purpose, error } if crate::setup::probe::owns(purpose) => {
                self.probe_lab(purpose, Err(error))
            }
            Msg::LabDone { purpose, output } if crate::generate::owns(purpose) => {
                self.gen_answered(purpose, Ok(output), now)
            }
            Msg::LabFailed { purpose, error } if crate::generate::owns(purpose) => {
                self.gen_answered(purpose, Err(error), now)
            }
            Msg::Fetched(FetchPurpose::Packs, result) => self.packs_fetched(result, now),
            Msg::GenSet(name, value) => self.gen_set(&name, &value),
            Msg::Generate => self.generate_from_form(now),
            Msg::GenerateDownload => self.generate_download(),
            Msg::GenerateRun => self.generate_run(now),
            Msg::SweepStart => self.sweep_start(),
            Msg::SweepStop => self.sweep_stop(now),
            Msg::SweepDownload(what) => self.sweep_download(&what),
            Msg::CompareDiff(pair, filter) => self.compare_diff(&pair, &filter),
            Msg::CompareMore(pair) => self.compare_more(&pair),
            Msg::Budget(what, value) => self.budget_action(&what, &value),
            Msg::CompareLinkClose => self.compare_link_close(),
            Msg::CopyCompareLink(url) => self.copy_compare_link(url),
            Msg::Go(address) => self.go_address(&address),
            Msg::LeaderboardSort(key) => self.leaderboard_sort(&key),
            Msg::ModelSearch(text) => {
                self.lab.model_filter = text;
                Vec::new()
            }
            Msg::LabDone { purpose, output } => {
                let fx = self.lab_answered(purpose, Ok(output));
                self.search_texts_arrived(purpose);
                fx
            }
            Msg::LabFailed { purpose, error } => self.lab_answered(purpose, Err(error)),
            Msg::HistoryOpen(id) => {
                let mut fx = self.open_history(&id);
                let mut r = Route::view(View::Dashboard);
                r.run = Some(id);
                fx.extend(self.go(r));
                self.focus = Some("dashboard-title".into());
                fx
            }
            Msg::HistoryRenameStart(id) => {
                let label = self.history.get(&id).map(|e| e.label.clone());
                self.history.renaming = label.map(|l| (id, l));
                self.focus = Some("history-label".into());
                Vec::new()
            }
            Msg::HistoryRenameDraft(text) => {
                if let Some((_, draft)) = &mut self.history.renaming {
                    *draft = text;
                }
                Vec::new()
            }
            Msg::HistoryRenameSave => self.rename_save(),
            Msg::HistoryDelete(id) => self.history_delete(&id),
            Msg::HistoryExport(id) => self.history_export(&id),
            Msg::HistoryCheckpoint(id) => vec![Effect::KvList(
                crate::history::checkpoint_prefix(&id),
                ListPurpose::ExportCheckpoint(id),
            )],
            Msg::Listed(purpose, entries) => self.listed(purpose, entries, now),
            Msg::Got(purpose, value) => self.got(purpose, value, now),
            Msg::TraceFilter(name, value) => {
                self.traces.set_filter(&name, &value);
                Vec::new()
            }
            Msg::TraceMore => {
                self.traces.more();
                Vec::new()
            }
            Msg::TraceTask(key, open) => self.trace_task(&key, open),
            Msg::TraceStep(key, open) => self.trace_step(&key, open),
            Msg::TraceClass(class) => self.trace_class(&class),
        }
    }

    fn set_field(&mut self, field: Field, value: &str) -> Vec<Effect> {
        let mut fx = match self.setup.set(field, value) {
            Ok(KeyStorage::Keep) => Vec::new(),
            Ok(KeyStorage::Save(json)) => vec![Effect::SaveKey(json)],
            Ok(KeyStorage::Forget) => vec![Effect::ForgetKey],
            Err(e) => {
                self.say(e, Tone::Error);
                Vec::new()
            }
        };
        if matches!(field, Field::Preset | Field::Provider) {
            fx.extend(self.list_models());
        }
        fx
    }

    /// Asks the endpoint in Setup for its model list (quietly: a failure offers none).
    pub fn list_models(&mut self) -> Vec<Effect> {
        self.setup
            .models_request()
            .map(Effect::Aux)
            .into_iter()
            .collect()
    }

    /// Loads the dataset the setup form names (bundled or URL; uploads come as files).
    pub fn load_dataset_from_setup(&mut self) -> Vec<Effect> {
        let lang = self.setup.lang.clone();
        let source = match self.setup.dataset {
            DatasetChoice::Bundled => DatasetSource::Bundled,
            DatasetChoice::Url => {
                let url = self.setup.dataset_url.trim().to_owned();
                if url.is_empty() {
                    self.say("Enter a dataset URL.", Tone::Error);
                    return Vec::new();
                }
                DatasetSource::Url {
                    url: resolve_url(&self.base, &url),
                }
            }
            DatasetChoice::Upload => {
                self.say("Choose a dataset file.", Tone::Error);
                return Vec::new();
            }
        };
        self.fetch_dataset(source, lang)
    }

    /// Fetches a dataset from where `source` says.
    pub fn fetch_dataset(&mut self, source: DatasetSource, lang: String) -> Vec<Effect> {
        let Some(url) = source.url().map(str::to_owned) else {
            return Vec::new();
        };
        self.say(format!("Loading {}…", source.display()), Tone::Info);
        self.pending_dataset = Some(PendingDataset { source, lang });
        vec![Effect::Fetch(url, FetchPurpose::Dataset)]
    }

    /// The pending dataset's text arrived (or could not be had): load it, then do what
    /// waited for it.
    pub(crate) fn dataset_arrived(
        &mut self,
        text: Result<String, String>,
        now: Now,
    ) -> Vec<Effect> {
        let Some(pending) = self.pending_dataset.take() else {
            return Vec::new();
        };
        let first = !self.boot.dataset_settled;
        self.boot.dataset_settled = true;
        let text = match text {
            Ok(t) => t,
            Err(e) => {
                let shown = pending.source.display();
                return self.dataset_refused(&shown, e, first, now);
            }
        };
        let shown = pending.source.display();
        let d = match crate::data::check::refusal(&text) {
            None => data::load(&text, pending.source, data::lang_of(&pending.lang)),
            Some(why) => return self.dataset_refused(&shown, why, first, now),
        };
        if let Some(why) = crate::data::check::unrunnable(d) {
            return self.dataset_refused(&shown, why, first, now);
        }
        self.flags.dataset_error = None;
        if let Some(cut) = self.cut.clone() {
            d.segmenter.install(Box::new(move |s| cut(s)));
        }
        self.dataset = Some(d);
        let errors = d.error_count();
        self.say(
            format!(
                "Ready: {} — {} sessions, {} tasks{}. Pick a model and start a run.",
                d.source.display(),
                d.dataset.sessions.len(),
                d.tasks,
                if errors > 0 {
                    format!(
                        ", {errors} error(s): invalid sessions are still run and scored with the documented fallbacks"
                    )
                } else {
                    String::new()
                }
            ),
            if errors > 0 { Tone::Warn } else { Tone::Ok },
        );
        self.kept_note();
        let mut fx = self.keep_setup();
        if let Some(link) = self.boot.link.clone() {
            fx.extend(self.open_link(&link, now));
        }
        if let Some(id) = self.pending_open.take() {
            fx.extend(self.open_history(&id));
        }
        if let Some(id) = self.pending_resume.take() {
            fx.extend(self.resume_stored(&id));
        }
        fx.extend(self.after_boot(first, now));
        fx
    }

    /// A dataset was not loaded: say why and what stays loaded (`datasetError`).
    fn dataset_refused(&mut self, name: &str, why: String, first: bool, now: Now) -> Vec<Effect> {
        let why = if why.is_empty() {
            "nothing could be read".to_owned()
        } else {
            why
        };
        let kept = match self.dataset {
            Some(d) => format!("Still loaded: {}.", d.source.display()),
            None => "No dataset is loaded.".to_owned(),
        };
        let text = format!("{name} was not loaded as the dataset: {why}. {kept}");
        self.flags.dataset_error = Some(text.clone());
        self.say(text, Tone::Error);
        self.after_boot(first, now)
    }

    /// Installs the Chinese segmenter (loaded by the glue) into this and later datasets.
    pub fn install_segmenter(&mut self, cut: data::SharedCut) {
        if let Some(d) = self.dataset {
            if !d.segmenter.ready() {
                let c = cut.clone();
                d.segmenter.install(Box::new(move |s| c(s)));
            }
        }
        self.cut = Some(cut);
    }

    /// Work the address asked for, once the first dataset has settled.
    fn after_boot(&mut self, first: bool, now: Now) -> Vec<Effect> {
        if !first {
            return Vec::new();
        }
        let mut fx = Vec::new();
        if self.boot.link.is_some() && self.dataset.is_none() {
            fx.extend(self.open_link(&self.boot.link.clone().unwrap_or_default(), now));
        }
        if let Some(url) = self.boot.results.take() {
            self.flags.score_state = Some("scoring");
            if self.dataset.is_none() {
                self.flags.score_state = Some("error");
                self.flags.score_error = Some("The dataset could not be loaded.".into());
            } else {
                let url = resolve_url(&self.base, &url);
                self.say(format!("Fetching {url}…"), Tone::Info);
                fx.push(Effect::Fetch(url, FetchPurpose::Results));
            }
        }
        if std::mem::take(&mut self.boot.autorun) && self.dataset.is_some() {
            fx.extend(self.start_run(now));
        }
        fx
    }

    /// Re-derives the shown run's charts after the comparison changed.
    pub fn refresh_shown(&mut self) {
        let rows = self.comparison_rows();
        if let Some(s) = &mut self.shown {
            s.set_comparison(rows);
        }
    }

    /// Whether the published leaderboard may be shown beside runs on the loaded dataset
    /// (only the official dataset: scores on other data are not comparable), and why.
    pub fn overlay(&self) -> Option<wildtool_core::compare::leaderboard::OverlayDecision> {
        let d = self.dataset?;
        Some(wildtool_core::compare::leaderboard::leaderboard_overlay(
            d.fingerprint_u64(),
            Some(&d.git_blob),
            &self.official,
        ))
    }

    /// The published models picked for comparison, as chart rows (none unless the
    /// dataset is the official one).
    pub fn leaderboard_rows(&self) -> Vec<wildtool_core::chart::dashboard::ComparisonRow> {
        let Some(models) = &self.leaderboard else {
            return Vec::new();
        };
        if !self.overlay().is_some_and(|o| o.shown) {
            return Vec::new();
        }
        self.compare_models
            .iter()
            .filter_map(|w| models.iter().find(|m| &m.model == w).map(|m| m.to_row()))
            .collect()
    }

    /// Rows of the comparison chart after the shown run: runs from the history, then
    /// published models.
    pub fn comparison_rows(&self) -> Vec<wildtool_core::chart::dashboard::ComparisonRow> {
        let mut rows = self
            .history
            .compare_rows(self.shown.as_ref().map(|s| s.id.as_str()));
        rows.extend(self.leaderboard_rows());
        rows
    }

    /// Loads what scoring `text` waits for: the lab module (which scores), then jieba when
    /// `text` needs it; true when scoring must wait.
    pub fn needs_jieba(&mut self, text: &str, fx: &mut Vec<Effect>) -> bool {
        if !crate::scoring::ready() {
            fx.extend(self.load_scorer());
            return true;
        }
        let Some(d) = self.dataset else { return false };
        if d.segmenter.ready() || !data::has_cjk(text) {
            return false;
        }
        if !self.jieba_loading {
            self.jieba_loading = true;
            fx.push(Effect::LoadJieba);
        }
        true
    }

    /// Continues whichever scoring job waits (upload, or the live run's sessions).
    fn resume_scoring(&mut self, now: Now) -> Vec<Effect> {
        let mut fx = self.upload_continue(now);
        fx.extend(self.run_continue_scoring(now));
        fx.extend(self.rescore_continue(now));
        fx.extend(self.vs_continue(now));
        // One wake-up continues every job.
        let mut woken = false;
        fx.retain(|e| !matches!(e, Effect::ContinueSoon) || !std::mem::replace(&mut woken, true));
        fx
    }

    /// The lab module loaded to score (or could not be loaded): a waiting run starts and
    /// waiting scoring continues, or both fail with the reason.
    fn scorer_loaded(&mut self, result: Result<(), String>, now: Now) -> Vec<Effect> {
        self.scorer.loading = false;
        let result = match result {
            Ok(()) if !crate::scoring::ready() => {
                Err("the module has no scorer (reload the page)".to_owned())
            }
            other => other,
        };
        let waiting = self.awaiting_scorer.take();
        match result {
            Ok(()) => {
                let mut fx = self.resume_scoring(now);
                if let Some((resume, stored)) = waiting {
                    fx.extend(self.start_again(resume, stored, now));
                }
                fx
            }
            Err(e) => {
                let why = format!("The page's scorer (its lab module) could not be loaded: {e}");
                if waiting.is_some() {
                    self.say(format!("Cannot start the run. {why}."), Tone::Error);
                    self.focus = Some("status".into());
                } else {
                    self.say(format!("{why}."), Tone::Error);
                }
                self.rescore = None;
                let mut fx = Vec::new();
                if self.upload.state == crate::upload::UploadState::Scoring {
                    fx.extend(self.upload_fail(&why));
                }
                fx.extend(self.run_scoring_failed(&why));
                fx
            }
        }
    }

    fn fail_scoring(&mut self, reason: &str) -> Vec<Effect> {
        self.upload_fail(reason);
        Vec::new()
    }

    fn listed(
        &mut self,
        purpose: ListPurpose,
        entries: Vec<(String, String)>,
        now: Now,
    ) -> Vec<Effect> {
        match purpose {
            ListPurpose::History => {
                self.history.load(&entries);
                self.refresh_shown();
                let mut fx = self.resume_offer();
                // An address naming a run of the history (a deep link) opens it.
                if let Some(id) = self.route.run.clone() {
                    if self.shown.is_none() && self.history.get(&id).is_some() {
                        fx.extend(self.open_history(&id));
                    }
                }
                fx
            }
            ListPurpose::Resume(id) => self.resume_with(&id, entries, now),
            ListPurpose::Open(id) => self.open_with_checkpoint(&id, entries, now),
            ListPurpose::ExportCheckpoint(id) => self.export_checkpoint(&id, entries),
            ListPurpose::Vs(id) => self.vs_records_arrived(&id, entries),
            ListPurpose::Cost(id) => self.cost_records_arrived(&id, entries),
        }
    }

    fn got(&mut self, purpose: GetPurpose, value: Option<String>, now: Now) -> Vec<Effect> {
        match purpose {
            GetPurpose::Setup => self.kept_setup_arrived(value, now),
            GetPurpose::Sweep => self.kept_sweep_arrived(value),
            GetPurpose::CompareSet => {
                self.history.set_compare_ids(value.as_deref());
                self.history_compare_fetch()
            }
            GetPurpose::Outcomes(id) => self.outcomes_arrived(&id, value, now),
            GetPurpose::ResultText(id) => self.result_text_arrived(&id, value, now),
            GetPurpose::Manifest(id) => self.manifest_arrived(&id, value),
            GetPurpose::LabOutcomes(id) => self.lab_outcomes_arrived(&id, value),
            GetPurpose::LabTrials(id) => self.lab_trials_arrived(&id, value),
            GetPurpose::VsOutcomes(id) => self.vs_outcomes_arrived(&id, value),
            GetPurpose::VsResultText(id) => self.vs_text_arrived(&id, value, None),
            GetPurpose::CostText(id) => self.cost_text_arrived(&id, value),
            GetPurpose::EnvResult(id) => self.env_result_arrived(&id, value),
            GetPurpose::EnvManifest(id) => self.env_manifest_arrived(&id, value),
            GetPurpose::EnvCompare(id) => self.env_compare_arrived(&id, value),
        }
    }

    /// The file reference for a dispatched file.
    pub fn file_ref(id: u32, name: &str, size: u64) -> FileRef {
        FileRef {
            id,
            name: name.to_owned(),
            size,
        }
    }
}

/// The chart layout for a page `width` CSS pixels wide: narrow charts that fit the
/// screen below 700 px (the chart box is the width less the page's and the figure's
/// padding, rounded down to 10 px), the standard layout above.
pub fn chart_layout(width: f64) -> wildtool_core::chart::Layout {
    if width.is_finite() && width < 700.0 {
        wildtool_core::chart::Layout::narrow(((width - 44.0) / 10.0).floor() * 10.0)
    } else {
        wildtool_core::chart::Layout::STANDARD
    }
}

/// Resolves `url` against the page's base address (relative dataset and results URLs).
pub fn resolve_url(base: &str, url: &str) -> String {
    let url = url.trim();
    if url.contains("://") {
        return url.to_owned();
    }
    let origin_end = base
        .find("://")
        .and_then(|i| base[i + 3..].find('/').map(|j| i + 3 + j))
        .unwrap_or(base.len());
    if let Some(rest) = url.strip_prefix('/') {
        return format!("{}/{}", &base[..origin_end], rest);
    }
    let dir = match base.rfind('/') {
        Some(i) if i >= origin_end => &base[..=i],
        _ => return format!("{base}/{}", url.trim_start_matches("./")),
    };
    format!("{dir}{}", url.trim_start_matches("./"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_urls_resolve_against_the_page() {
        assert_eq!(
            resolve_url("http://h:1/sub/index.html", "data/x.jsonl"),
            "http://h:1/sub/data/x.jsonl"
        );
        assert_eq!(
            resolve_url("http://h:1/sub/", "./data/x.jsonl"),
            "http://h:1/sub/data/x.jsonl"
        );
        assert_eq!(resolve_url("http://h:1/sub/", "/x"), "http://h:1/x");
        assert_eq!(resolve_url("http://h:1", "x"), "http://h:1/x");
        assert_eq!(resolve_url("http://h/", "https://o/x"), "https://o/x");
    }
}
