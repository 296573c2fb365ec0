//! What happens to the page ([`Msg`]: user actions and IO results) and what the page
//! asks the outside world to do ([`Effect`]). [`AppState::update`](crate::state::AppState)
//! turns one into the other; the browser glue executes effects and feeds results back as
//! messages, so every decision can be tested natively by feeding messages.
//!
//! The action vocabulary (`data-action` / `data-arg` on elements, dispatched by the JS
//! runtime as `(action, arg, value)`) is parsed here by [`Msg::from_action`].

use crate::field::Field;
use crate::route::View;
#[cfg(doc)]
use wildtool_contract::{Action, FileAction};
use wildtool_core::runner::engine::Transmit;
use wildtool_core::runner::http::HttpReply;
use wildtool_core::runner::provider::HttpRequest;

/// The answer to a request of the live run or one beside it: a response or a failure.
pub type Reply = HttpReply;

/// A file the user chose or dropped, held by the browser glue.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileRef {
    /// Handle for [`Effect::ReadFile`].
    pub id: u32,
    /// File name.
    pub name: String,
    /// Size in bytes.
    pub size: u64,
}

/// What a file is read for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FilePurpose {
    /// A dataset for Setup.
    Dataset,
    /// A result file, checkpoint or run export for Offline scoring (or an import).
    Results,
    /// A file of a bundle to verify.
    Verify,
    /// A cassette to replay.
    Cassette,
}

/// What a fetched text is for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FetchPurpose {
    /// The dataset (source and language are in the state's pending load).
    Dataset,
    /// The published leaderboard.
    Leaderboard,
    /// The list of official datasets.
    Official,
    /// A result file named by `results=` (scored on load).
    Results,
    /// The generator's domain packs (one bundle).
    Packs,
}

/// What a key-value listing is for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ListPurpose {
    /// Every run's metadata (history), at start.
    History,
    /// A run's stored checkpoint lines, to resume it (history id).
    Resume(String),
    /// A run's stored checkpoint lines, to open it (history id).
    Open(String),
    /// A run's stored checkpoint lines, to export them (history id).
    ExportCheckpoint(String),
    /// The second run's stored checkpoint lines, for traces side by side (history id).
    Vs(String),
    /// A compared run's stored checkpoint lines, for its cost (history id).
    Cost(String),
}

/// What a key-value read is for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GetPurpose {
    /// The comparison set, at start.
    CompareSet,
    /// The set-up kept from before a reload (`keep`), at start.
    Setup,
    /// The last sweep's analysis kept from before a reload (`keep`), at start.
    Sweep,
    /// A run's outcomes (history id), to open it or compare with it.
    Outcomes(String),
    /// A run's stored result text (history id), to open its traces.
    ResultText(String),
    /// A run's outcomes (history id), for the comparison view.
    LabOutcomes(String),
    /// A run's outcomes of every trial (history id), for its repeated-trials panel.
    LabTrials(String),
    /// The second run's outcomes (history id), for traces side by side.
    VsOutcomes(String),
    /// The second run's stored result text (history id), for traces side by side.
    VsResultText(String),
    /// An env run's stored `env-result.jsonl` (history id), to open it.
    EnvResult(String),
    /// A stored env run's manifest, once the run is shown (history id).
    EnvManifest(String),
    /// A compared run's stored result text (history id), for its cost.
    CostText(String),
    /// An env run's stored result file (history id), for the comparison view.
    EnvCompare(String),
    /// A run's stored manifest (history id), when it is opened.
    Manifest(String),
}

/// What the scoring worker answers for an upload: the summary JSON, `score.jsonl` (its
/// text, or the id of the `Blob` the glue keeps), the result text when kept.
pub type WorkerAnswer = (String, Result<String, u32>, Option<String>);

/// What a call into the lab module is for; its answer is kept under this name (see
/// [`crate::lab`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum LabPurpose {
    /// The comparison view.
    Compare,
    /// An opened step of a trace (session, task, step; 0-based).
    TraceStep(u32, u8, u16),
    /// The dashboard's glossary.
    Glossary,
    /// The search texts of the shown run's tasks (a hash of the run's id).
    SearchTexts(u32),
    /// A suite generated on the Generate view (or for `dataset=generate:…`).
    Generate,
    /// A sweep's plan.
    SweepPlan,
    /// The suite of a sweep's level.
    SweepLevel,
    /// A sweep's analysis.
    SweepView,
    /// The repeated-trials panel of the run on the dashboard.
    Trials,
    /// The ranked leaderboard on the dashboard.
    Leaderboard,
    /// One task's traces of two runs side by side.
    TracePair,
    /// The streaming probe's requests.
    ProbePlan,
    /// The streaming probe's verdict and report.
    ProbeReport,
    /// The lab module's stream readers, loaded for a streamed run (the glue installs them
    /// before answering).
    StreamReaders,
    /// The dashboard's charts.
    DashboardCharts,
    /// A dashboard chart as a file to download (as PNG when true).
    ChartFile(bool),
    /// The shown run's share link.
    Share,
    /// The outcomes of a share link being opened.
    ShareDecode,
    /// The header of a link being opened.
    LinkHeader,
    /// The history list.
    HistoryList,
    /// The Generate or Sweep form's factor picker.
    FactorPicker,
    /// Setup's cost panel (the estimate and the price table editor).
    PriceEditor,
    /// A price table checked before it is saved.
    PriceCheck,
    /// The lab module loaded to score (the glue installs its `score` call before
    /// answering).
    Scorer,
    /// The lab module loaded for an env run (the glue installs its synchronous calls).
    EnvReady,
    /// The dashboard's ledger environment section.
    EnvView,
    /// One task of an env run.
    EnvTask,
    /// A ledger to download.
    EnvExport,
    /// An env result scored (an upload, a stored run).
    EnvScore,
    /// An env share link read.
    EnvShare,
    /// The item audit of the runs compared.
    Audit,
    /// The verdicts of the files dropped to verify.
    Verify,
    /// The shown run's cost in money.
    DashCost,
    /// The compared runs' costs in money.
    CompareCost,
}

/// True for the ledger environment's lab calls.
pub fn env_owns(p: LabPurpose) -> bool {
    matches!(
        p,
        LabPurpose::EnvReady
            | LabPurpose::EnvView
            | LabPurpose::EnvTask
            | LabPurpose::EnvExport
            | LabPurpose::EnvScore
            | LabPurpose::EnvShare
    )
}

/// The ledger environment's actions (an extension).
#[derive(Debug, Clone, PartialEq)]
pub enum EnvMsg {
    /// Open a task (`line task`, 0-based).
    Open(String),
    /// Download a ledger (`which line task`).
    Export(String),
    /// Copy the env share link.
    CopyLink,
    /// Download `result` or `report`.
    File(String),
}

/// What a request beside the run's own is for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AuxPurpose {
    /// The server's model list for the setup form (the form's request number).
    Models(u64),
    /// Whether the live run's server answers under another host name (run id, host).
    Alias(String, String),
}

/// A request beside the run's own (model list, host-name probes): sent like a run's
/// request (no cookies, redirects not followed), the key attached only when given, and
/// given up after a few seconds.
#[derive(Debug, Clone, PartialEq)]
pub struct AuxRequest {
    /// What for.
    pub purpose: AuxPurpose,
    /// The request (key-free).
    pub request: wildtool_core::runner::http::HttpRequest,
    /// `(header, value)` carrying the key for the request's own endpoint, if any.
    pub auth: Option<(String, String)>,
}

/// A request to send with its authentication header (the key stays in the transport's
/// memory; it is attached only to requests of the run it was typed for).
#[derive(Debug, Clone, PartialEq)]
pub struct Outgoing {
    /// The request.
    pub transmit: Transmit,
    /// `(header, value)` carrying the key, when there is one.
    pub auth: Option<(String, String)>,
}

/// One part of a streamed response of the live run, as the transport reads it.
#[derive(Debug, Clone, PartialEq)]
pub enum StreamIn {
    /// The status and headers.
    Head(wildtool_core::runner::http::HttpHead),
    /// The next chunk of the body.
    Bytes(Vec<u8>),
    /// The body ended.
    End,
}

/// A probe request to send (the key attached only for the probed endpoint).
#[derive(Debug, Clone, PartialEq)]
pub struct ProbeSend {
    /// Answer with this number ([`crate::msg::Msg::Probe`]).
    pub seq: u64,
    /// The request.
    pub request: HttpRequest,
    /// Read the response as a stream.
    pub stream: bool,
    /// `(header, value)` carrying the key, when there is one.
    pub auth: Option<(String, String)>,
    /// Give up after this long.
    pub timeout_ms: u32,
}

/// What came back for a probe request.
#[derive(Debug, Clone, PartialEq)]
pub enum ProbeIn {
    /// A part of a streamed response.
    Stream(StreamIn),
    /// A whole response, or a failure (streamed or not).
    Reply(HttpReply),
}

/// Everything that can happen to the page.
#[derive(Debug, Clone, PartialEq)]
pub enum Msg {
    // ---- user actions
    /// Show a view.
    Navigate(View),
    /// Back/Forward: the page's new address.
    PopState(String),
    /// A setup field changed.
    Set(Field, String),
    /// Load the dataset chosen in Setup.
    LoadDataset,
    /// Ask the endpoint in Setup for its model list.
    ListModels,
    /// Fill the dataset URL with the official data file.
    OfficialUrl,
    /// A dataset file was chosen.
    DatasetFile(FileRef),
    /// Start a run with the Setup settings.
    Start,
    /// Pause or resume the live run.
    Pause,
    /// Cancel the live run.
    Cancel,
    /// Resume a stored run (history id).
    Resume(String),
    /// Forget an unfinished run's offer (history id).
    Discard(String),
    /// Download an export of the shown run (`run`, `result`, `score`, `metric`, `csv`,
    /// `checkpoint`).
    Export(String),
    /// Download a chart (`svg` or `png`, chart id).
    Chart(String, String),
    /// Copy the share link.
    CopyLink,
    /// Add a history entry to the comparison set.
    CompareAdd(String),
    /// Remove a history entry from the comparison set.
    CompareRemove(String),
    /// Show or hide a published model in the comparison chart.
    CompareModel(String, bool),
    /// A history entry was ticked (or unticked) for the comparison.
    ComparePick(String, bool),
    /// Which rows a pair's per-task table shows (pair index, class name).
    CompareDiff(String, String),
    /// A budget action (what, value): the price table editor, the estimate.
    Budget(String, String),
    /// More rows of a pair's per-task table (pair index).
    CompareMore(String),
    /// Leave the comparison a link opened (compare runs of the history instead).
    CompareLinkClose,
    /// Copy a comparison link (the address the comparison view shows).
    CopyCompareLink(String),
    /// Go to an address of this page (a query, as links in views carry it).
    Go(String),
    /// Sort the ranked leaderboard by a column (again: the other way round).
    LeaderboardSort(String),
    /// The text filtering the published-model picker.
    ModelSearch(String),
    /// Open a history entry on the dashboard.
    HistoryOpen(String),
    /// Start renaming a history entry.
    HistoryRenameStart(String),
    /// The new label being typed.
    HistoryRenameDraft(String),
    /// Save the new label.
    HistoryRenameSave,
    /// Delete a history entry.
    HistoryDelete(String),
    /// Export a history entry as a run file.
    HistoryExport(String),
    /// Export a history entry's checkpoint (`checkpoint.jsonl`, for `wildtool run`).
    HistoryCheckpoint(String),
    /// A file to score (result, checkpoint, run export).
    UploadFile(FileRef),
    /// A run file to import into the history.
    ImportFile(FileRef),
    /// A file of a bundle to verify (`None`: start again).
    VerifyFile(Option<FileRef>),
    /// "Record a cassette" ticked or not.
    CassetteRecord(bool),
    /// A cassette to replay chosen (`None`: forget it).
    CassetteFile(Option<FileRef>),
    /// Download the recorded cassette.
    CassetteDownload,
    /// A trace filter changed (`failed`, `type`, `subtype`, `error`, `search`, `sort`).
    TraceFilter(String, String),
    /// Show more trace rows.
    TraceMore,
    /// A task's trace was opened or closed (`session:task`).
    TraceTask(String, bool),
    /// A step was opened or closed (`session:task:step`).
    TraceStep(String, bool),
    /// Open the traces filtered to an error class (a column title of the taxonomy chart).
    TraceClass(String),
    /// A disclosure was opened or closed (its name).
    Toggle(String, bool),
    /// The page's width in CSS pixels (at start and after a resize).
    Viewport(f64),

    /// A field of the Generate or Sweep form changed (`gen-…`/`sweep-…` name, value).
    GenSet(String, String),
    /// Generate the suite the Generate form describes.
    Generate,
    /// Download the generated suite.
    GenerateDownload,
    /// Run the generated suite with the Setup model.
    GenerateRun,
    /// Start a sweep with the Sweep form and the Setup model.
    SweepStart,
    /// Stop the sweep (the running level is cancelled; what ran is analysed).
    SweepStop,
    /// Download the sweep's `sweep.json` (`json`) or `sweep.html` (`html`).
    SweepDownload(String),

    // ---- IO results
    /// A fetch finished.
    Fetched(FetchPurpose, Result<String, String>),
    /// Part of a file was read.
    FileRead {
        /// What for.
        purpose: FilePurpose,
        /// The file.
        file: FileRef,
        /// Offset of `bytes`.
        offset: u64,
        /// The bytes (empty on error).
        bytes: Result<Vec<u8>, String>,
    },
    /// The worker scoring upload `file` has read `read` bytes.
    WorkerProgress {
        /// The file's id.
        file: u32,
        /// Bytes read.
        read: u64,
    },
    /// The worker scored upload `file`: summary JSON, `score.jsonl` (its text, or the id
    /// of the `Blob` the glue keeps), the result text.
    WorkerScored {
        /// The file's id.
        file: u32,
        /// What it gave, or why it failed.
        result: Result<WorkerAnswer, String>,
    },
    /// A key-value listing.
    Listed(ListPurpose, Vec<(String, String)>),
    /// A key-value read.
    Got(GetPurpose, Option<String>),
    /// The store failed.
    StoreFailed(String),
    /// The clipboard write finished.
    Copied(bool),
    /// jieba is installed (or could not be loaded).
    JiebaLoaded(Result<(), String>),
    /// A request of the live run finished.
    Reply(u64, Reply),
    /// A part of a streamed response of the live run.
    Stream(u64, StreamIn),
    /// Check the setup form's endpoint for streaming faults.
    ProbeStart,
    /// An answer (or a part of one) to a probe request.
    Probe(u64, ProbeIn),
    /// A request beside the run finished.
    AuxDone(AuxPurpose, Reply),
    /// The live run's timer fired.
    Tick,
    /// Time for the built-in agents to take their next steps.
    AgentStep,
    /// Time to score the next piece of a long job.
    Continue,
    /// The lab module answered a call.
    LabDone {
        /// What the call was for.
        purpose: LabPurpose,
        /// Its output (for a view, the wire JSON of a node).
        output: String,
    },
    /// A ledger environment action.
    Env(EnvMsg),
    /// A call into the lab module failed (the module did not load, or the call refused
    /// its input, with the reason to show).
    LabFailed {
        /// What the call was for.
        purpose: LabPurpose,
        /// Why.
        error: String,
    },
}

impl Msg {
    /// Parses a dispatched action (the vocabulary of `data-action`, the contract's
    /// [`Action`]: a test below holds every one of them handled). Unknown actions are
    /// `None` (ignored).
    pub fn from_action(action: &str, arg: &str, value: &str) -> Option<Msg> {
        let flag = value == "true";
        Some(match action {
            "nav" => Msg::Navigate(View::from_slug(arg)?),
            "popstate" => Msg::PopState(value.to_owned()),
            "set" => Msg::Set(Field::from_name(arg)?, value.to_owned()),
            "load-dataset" => Msg::LoadDataset,
            "list-models" => Msg::ListModels,
            "probe-stream" => Msg::ProbeStart,
            "official-url" => Msg::OfficialUrl,
            "start" => Msg::Start,
            "pause" => Msg::Pause,
            "cancel" => Msg::Cancel,
            "resume" => Msg::Resume(arg.to_owned()),
            "discard" => Msg::Discard(arg.to_owned()),
            "export" => Msg::Export(arg.to_owned()),
            "verify-clear" => Msg::VerifyFile(None),
            "cassette-record" => Msg::CassetteRecord(flag),
            "cassette-forget" => Msg::CassetteFile(None),
            "cassette-download" => Msg::CassetteDownload,
            "chart-svg" => Msg::Chart("svg".into(), arg.to_owned()),
            "chart-png" => Msg::Chart("png".into(), arg.to_owned()),
            "copy-link" => Msg::CopyLink,
            "compare-add" => Msg::CompareAdd(arg.to_owned()),
            "compare-remove" => Msg::CompareRemove(arg.to_owned()),
            "compare-model" => Msg::CompareModel(arg.to_owned(), flag),
            "compare-pick" => Msg::ComparePick(arg.to_owned(), flag),
            "gen-set" => Msg::GenSet(arg.to_owned(), value.to_owned()),
            "generate" => Msg::Generate,
            "gen-download" => Msg::GenerateDownload,
            "gen-run" => Msg::GenerateRun,
            "sweep-start" => Msg::SweepStart,
            "sweep-stop" => Msg::SweepStop,
            "sweep-download" => Msg::SweepDownload(arg.to_owned()),
            "compare-diff" => Msg::CompareDiff(arg.to_owned(), value.to_owned()),
            "budget" => Msg::Budget(arg.to_owned(), value.to_owned()),
            "compare-more" => Msg::CompareMore(arg.to_owned()),
            "compare-link-close" => Msg::CompareLinkClose,
            "copy-compare-link" => Msg::CopyCompareLink(arg.to_owned()),
            "go" => Msg::Go(arg.to_owned()),
            "leaderboard-sort" => Msg::LeaderboardSort(arg.to_owned()),
            "model-search" => Msg::ModelSearch(value.to_owned()),
            "history-open" => Msg::HistoryOpen(arg.to_owned()),
            "env-open" => Msg::Env(EnvMsg::Open(arg.to_owned())),
            "env-export" => Msg::Env(EnvMsg::Export(arg.to_owned())),
            "env-copy-link" => Msg::Env(EnvMsg::CopyLink),
            "env-file" => Msg::Env(EnvMsg::File(arg.to_owned())),
            "history-rename" => Msg::HistoryRenameStart(arg.to_owned()),
            "history-label" => Msg::HistoryRenameDraft(value.to_owned()),
            "history-rename-save" => Msg::HistoryRenameSave,
            "history-delete" => Msg::HistoryDelete(arg.to_owned()),
            "history-export" => Msg::HistoryExport(arg.to_owned()),
            "history-checkpoint" => Msg::HistoryCheckpoint(arg.to_owned()),
            "trace-filter" => Msg::TraceFilter(arg.to_owned(), value.to_owned()),
            "trace-more" => Msg::TraceMore,
            "trace-task" => Msg::TraceTask(arg.to_owned(), flag),
            "trace-step" => Msg::TraceStep(arg.to_owned(), flag),
            "trace-class" => Msg::TraceClass(arg.to_owned()),
            "toggle" => Msg::Toggle(arg.to_owned(), flag),
            "viewport" => Msg::Viewport(value.parse().ok().filter(|w: &f64| w.is_finite())?),
            _ => return None,
        })
    }

    /// Parses a dispatched file action (the contract's [`FileAction`]).
    pub fn from_file_action(action: &str, file: FileRef) -> Option<Msg> {
        Some(match action {
            "dataset-file" => Msg::DatasetFile(file),
            "cassette-file" => Msg::CassetteFile(Some(file)),
            "upload" => Msg::UploadFile(file),
            "history-import" => Msg::ImportFile(file),
            "verify-file" => Msg::VerifyFile(Some(file)),
            _ => return None,
        })
    }
}

/// What the page asks the outside world to do.
#[derive(Debug, Clone, PartialEq)]
pub enum Effect {
    /// GET `url` as text; answer with [`Msg::Fetched`].
    Fetch(String, FetchPurpose),
    /// Score result file `file` against the dataset `text` in `lang` in the lab module's
    /// worker (`keep`: send the result text back too); answer with
    /// [`Msg::WorkerProgress`] and [`Msg::WorkerScored`].
    ScoreInWorker {
        /// The file.
        file: FileRef,
        /// The dataset's text.
        text: std::rc::Rc<str>,
        /// `en` or `zh`.
        lang: &'static str,
        /// Keep the result text.
        keep: bool,
    },
    /// Read `len` bytes of `file` from `offset`; answer with [`Msg::FileRead`].
    ReadFile {
        /// The file.
        file: FileRef,
        /// From.
        offset: u64,
        /// How many bytes.
        len: u64,
        /// What for.
        purpose: FilePurpose,
    },
    /// The glue may drop the file handle.
    ReleaseFile(u32),
    /// Store entries in one transaction.
    KvPut(Vec<(String, String)>),
    /// Delete keys.
    KvDelete(Vec<String>),
    /// Delete every key with this prefix.
    KvDeletePrefix(String),
    /// List keys with a prefix; answer with [`Msg::Listed`].
    KvList(String, ListPurpose),
    /// Read a key; answer with [`Msg::Got`].
    KvGet(String, GetPurpose),
    /// Offer the glue's kept `Blob` `id` (a big upload's `score.jsonl`) as download `name`.
    DownloadKept {
        /// The kept file's id.
        id: u32,
        /// File name.
        name: String,
    },
    /// Offer a download.
    Download {
        /// File name.
        name: String,
        /// MIME type.
        mime: &'static str,
        /// Content.
        data: String,
    },
    /// Offer a chart as PNG (rasterised by the browser).
    DownloadPng {
        /// SVG markup.
        svg: String,
        /// File name.
        name: String,
        /// Width in CSS pixels.
        width: f64,
        /// Height in CSS pixels.
        height: f64,
    },
    /// Write text to the clipboard; answer with [`Msg::Copied`].
    Copy(String),
    /// A new history entry (`pushState`) with this address (query and fragment).
    PushUrl(String),
    /// Replace the current address (`replaceState`).
    ReplaceUrl(String),
    /// Store the remembered key (JSON of [`RememberedKey`](crate::setup::RememberedKey)).
    SaveKey(String),
    /// Forget the remembered key.
    ForgetKey,
    /// Keep the user's price table in `localStorage` (`None`: remove it, the bundled one
    /// is used).
    SavePrices(Option<String>),
    /// Load jieba; answer with [`Msg::JiebaLoaded`].
    LoadJieba,
    /// Send a request of the live run with this key attached; answer with [`Msg::Reply`].
    Send(Outgoing),
    /// Abort a request of the live run at once.
    Abort(u64),
    /// Send a request beside the run; answer with [`Msg::AuxDone`].
    Aux(AuxRequest),
    /// Send a request of the streaming probe; answer with [`Msg::Probe`].
    Probe(ProbeSend),
    /// Wake the live run at this time (seconds on the page's clock) with [`Msg::Tick`].
    WakeAt(f64),
    /// Yield to the browser, then [`Msg::AgentStep`].
    AgentsSoon,
    /// Yield to the browser, then [`Msg::Continue`].
    ContinueSoon,
    /// Load the lab module (once) and run its call `call` on `input`; answer with
    /// [`Msg::LabDone`] or [`Msg::LabFailed`].
    Lab {
        /// The call (its name is an export of the lab module).
        call: wildtool_contract::Call,
        /// Its input (JSON).
        input: String,
        /// What it is for.
        purpose: LabPurpose,
    },
}

#[cfg(test)]
mod tests {
    use super::*;
    use wildtool_contract::{Action, FileAction};

    /// Every action of the contract's vocabulary is parsed into a message (an action added
    /// there fails here until `from_action` handles it).
    #[test]
    fn every_action_of_the_vocabulary_is_handled() {
        for a in Action::ALL {
            let (arg, value) = match a {
                Action::Nav => ("setup", ""),
                Action::Set => ("m-model", "gpt"),
                Action::Viewport => ("", "800"),
                _ => ("0:0", "true"),
            };
            assert!(
                Msg::from_action(a.name(), arg, value).is_some(),
                "{a:?} is not handled"
            );
        }
        let file = FileRef {
            id: 1,
            name: "f".into(),
            size: 1,
        };
        for a in FileAction::ALL {
            assert!(
                Msg::from_file_action(a.name(), file.clone()).is_some(),
                "{a:?}"
            );
            assert!(Msg::from_action(a.name(), "", "").is_none(), "{a:?}");
        }
        assert!(Msg::from_action("no-such-action", "", "").is_none());
    }

    #[test]
    fn actions_parse() {
        assert_eq!(
            Msg::from_action("nav", "dashboard", ""),
            Some(Msg::Navigate(View::Dashboard))
        );
        assert_eq!(
            Msg::from_action("set", "m-model", "qwen"),
            Some(Msg::Set(Field::Model, "qwen".into()))
        );
        assert_eq!(
            Msg::from_action("compare-model", "GPT-4o", "true"),
            Some(Msg::CompareModel("GPT-4o".into(), true))
        );
        assert_eq!(Msg::from_action("nav", "nowhere", ""), None);
        assert_eq!(Msg::from_action("set", "m-nothing", "x"), None);
        assert_eq!(Msg::from_action("explode", "", ""), None);
    }
}
