//! `wildtool compare`: paired comparison of runs on one dataset. Writes `compare.json`
//! and a self-contained `compare.html`; the statistics are the core's (`compare`).

use std::fs;
use std::path::{Path, PathBuf};

use wildtool_core::checker;
use wildtool_core::compare::html::{compare_html, summary_text};
use wildtool_core::compare::{compare_runs, BootstrapOptions, DatasetRef, RunInput};
use wildtool_core::dataset::{fingerprint, Lang, LoadedDataset};
use wildtool_core::outcome::TaskOutcome;
use wildtool_core::score::{OfficialChecker, ScoreOptions, Scorer};
use wildtool_core::share::{task_shapes, TaskShape};

use wildtool_core::formats::{check_belongs, ReportDoc};

use super::files::{at, for_each_line, read_document, read_text, FileError, OutputSet};

/// Arguments of `wildtool compare`.
#[derive(Debug)]
pub struct CompareArgs {
    /// Runs: `run`/`score` output directories, directories of trials (`trial-1/` …),
    /// `report.json` files or official-format result files.
    pub runs: Vec<PathBuf>,
    /// The dataset every run was scored on.
    pub dataset: PathBuf,
    /// Output directory.
    pub out: PathBuf,
    /// Dataset language (for result files scored here).
    pub lang: Lang,
    /// Labels replacing the runs' model names, in run order.
    pub labels: Vec<String>,
    /// Candidate cap (for result files scored here).
    pub candidate_cap: usize,
    /// JUnit and Markdown outputs (`--junit`, `--summary-md`).
    pub ci: super::ci_out::CiOpts,
}

impl CompareArgs {
    /// Arguments that only read `runs` against `dataset` (for `gate` and `plan`).
    pub(crate) fn reading(
        runs: Vec<PathBuf>,
        dataset: &Path,
        lang: Lang,
        candidate_cap: usize,
    ) -> Self {
        CompareArgs {
            runs,
            dataset: dataset.to_path_buf(),
            out: PathBuf::new(),
            lang,
            labels: Vec::new(),
            candidate_cap,
            ci: super::ci_out::CiOpts::default(),
        }
    }
}

/// Why `wildtool compare` failed.
#[derive(Debug, thiserror::Error)]
pub enum CompareCmdError {
    /// Wrong arguments or inputs (exit code 2).
    #[error("{0}")]
    Usage(String),
    /// File IO (exit code 1).
    #[error(transparent)]
    File(#[from] FileError),
}

/// One trial of a run as read from disk.
struct LoadedTrial {
    label: Option<String>,
    fingerprint: u64,
    outcomes: Vec<TaskOutcome>,
    /// A ledger-environment run (outcomes are env_success).
    env: bool,
    /// An own-history run (official-style labels on the model's own history).
    own: bool,
    /// The cost its `report.json` records (runs priced with `--prices`).
    cost: Option<wildtool_core::cost::CostFigures>,
}

/// An own-history run's `own-result.jsonl`: official-style labels on traces in which each
/// task saw the model's own earlier turns (a wildtool extension).
fn from_own(
    path: &Path,
    loaded: &LoadedDataset,
    dataset_fp: u64,
    args: &CompareArgs,
    as_env: bool,
) -> Result<LoadedTrial, CompareCmdError> {
    let text = read_text(path)?;
    let segmenter = checker::default_segmenter();
    let check = OfficialChecker::new(segmenter.as_ref());
    let scored = wildtool_core::own::run_file::score_text(
        loaded,
        &format!("{dataset_fp:016x}"),
        &text,
        &check,
        ScoreOptions {
            candidate_cap: args.candidate_cap,
        },
    )
    .map_err(|e| usage(format!("{}: {e}", path.display())))?;
    for (no, problem) in &scored.problems {
        eprintln!("warning: {} line {no}: {problem}", path.display());
    }
    if as_env {
        // Compared with ledger-environment runs: its ledger sessions' own-history
        // env_success, never its official-style labels.
        if !scored.head.environment.contains("ledger") {
            return Err(usage(format!(
                "{}: an own-history run without the ledger environment cannot be compared with ledger-environment runs (run it with --env ledger)",
                path.display()
            )));
        }
        let mut envs = std::collections::BTreeMap::new();
        for s in &loaded.sessions {
            if let Ok(Some(env)) = wildtool_core::ledger::run_file::SessionEnv::of(s) {
                envs.insert(s.index, env);
            }
        }
        return Ok(LoadedTrial {
            label: Some(scored.head.model_name.clone()),
            fingerprint: dataset_fp,
            outcomes: wildtool_core::own::ledger_own::env_outcomes(loaded, &envs, &scored.traces),
            env: true,
            own: true,
            cost: None,
        });
    }
    Ok(LoadedTrial {
        label: Some(scored.head.model_name.clone()),
        fingerprint: dataset_fp,
        outcomes: scored.outcomes,
        env: false,
        own: true,
        cost: None,
    })
}

/// An env run's `env-result.jsonl`: its outcomes are `env_success` per task (a wildtool
/// extension), its other sessions unscored.
fn from_env(
    path: &Path,
    loaded: &LoadedDataset,
    dataset_fp: u64,
) -> Result<LoadedTrial, CompareCmdError> {
    let text = read_text(path)?;
    let scored = wildtool_core::ledger::run_file::score_file(
        &loaded.sessions,
        &format!("{dataset_fp:016x}"),
        &text,
        false,
    )
    .map_err(|e| usage(format!("{}: {e}", path.display())))?;
    for (_, problem) in &scored.problems {
        eprintln!("warning: {}: {problem}", path.display());
    }
    Ok(LoadedTrial {
        label: Some(scored.head.model_name.clone()),
        fingerprint: dataset_fp,
        outcomes: wildtool_core::ledger::outcomes::env_outcomes(loaded, &scored.sessions),
        env: true,
        own: false,
        cost: None,
    })
}

fn usage(msg: String) -> CompareCmdError {
    CompareCmdError::Usage(msg)
}

/// Reads the outcomes, model name and dataset fingerprint of a `report.json`.
fn from_report(path: &Path) -> Result<LoadedTrial, CompareCmdError> {
    let doc = ReportDoc::parse(&read_document(path)?)
        .map_err(|e| usage(format!("{}: {e}", path.display())))?;
    let fingerprint = u64::from_str_radix(&doc.dataset.fingerprint, 16).map_err(|_| {
        usage(format!(
            "{}: no dataset fingerprint, so it cannot be matched with the dataset",
            path.display()
        ))
    })?;
    Ok(LoadedTrial {
        label: Some(doc.model_name),
        fingerprint,
        outcomes: doc.tasks,
        env: false,
        own: false,
        cost: doc.cost,
    })
}

/// The task outcomes recorded in a `report.json` (for the trials statistics of
/// `wildtool run --trials`).
pub(crate) fn outcomes_from_report(path: &Path) -> Result<Vec<TaskOutcome>, CompareCmdError> {
    from_report(path).map(|t| t.outcomes)
}

/// Scores an official-format result file against the dataset (as `wildtool score`).
fn from_results(
    path: &Path,
    loaded: &LoadedDataset,
    dataset_fp: u64,
    args: &CompareArgs,
) -> Result<LoadedTrial, CompareCmdError> {
    let segmenter = checker::default_segmenter();
    let check = OfficialChecker::new(segmenter.as_ref());
    let mut scorer = Scorer::new(
        loaded,
        &check,
        ScoreOptions {
            candidate_cap: args.candidate_cap,
        },
    );
    let mut outcomes = Vec::new();
    let mut lines = 0usize;
    for_each_line(path, |span, text| {
        lines += 1;
        match text {
            Ok(text) => {
                if let Ok(line) = scorer.score_line(span.number, text) {
                    outcomes.extend(line.outcomes);
                }
            }
            Err(e) => scorer.skip(e.into()),
        }
    })?;
    if outcomes.is_empty() {
        return Err(usage(format!(
            "{}: none of its {lines} line(s) could be scored against {}; is it a result file of this dataset?",
            path.display(),
            args.dataset.display()
        )));
    }
    let stats = scorer.final_stats();
    if let Err(mismatch) = check_belongs(&stats) {
        return Err(usage(format!(
            "{}: {mismatch} (dataset given: {})",
            path.display(),
            args.dataset.display()
        )));
    }
    if !stats.skipped.is_empty() {
        eprintln!(
            "warning: {}: {} line(s) could not be scored; their tasks count as unscored",
            path.display(),
            stats.skipped.len()
        );
    }
    Ok(LoadedTrial {
        label: scorer.model_name().map(str::to_owned),
        fingerprint: dataset_fp,
        outcomes,
        env: false,
        own: false,
        cost: None,
    })
}

/// One trial from a directory (`report.json`, else `result.jsonl`) or a file.
fn load_trial(
    path: &Path,
    loaded: &LoadedDataset,
    dataset_fp: u64,
    args: &CompareArgs,
    as_env: bool,
) -> Result<LoadedTrial, CompareCmdError> {
    if path.is_dir() {
        let own = path.join("own-result.jsonl");
        if own.is_file() {
            return from_own(&own, loaded, dataset_fp, args, as_env);
        }
        let report = path.join("report.json");
        if report.is_file() {
            return from_report(&report);
        }
        let env = path.join("env-result.jsonl");
        if env.is_file() {
            return from_env(&env, loaded, dataset_fp);
        }
        let results = path.join("result.jsonl");
        if results.is_file() {
            return from_results(&results, loaded, dataset_fp, args);
        }
        return Err(usage(format!(
            "{}: neither report.json nor result.jsonl is in this directory; give a `wildtool run`/`score` output directory or a result file",
            path.display()
        )));
    }
    if !path.exists() {
        return Err(usage(format!(
            "{}: no such file or directory",
            path.display()
        )));
    }
    if path.extension().is_some_and(|e| e == "json") {
        from_report(path)
    } else {
        let (head, len) = super::files::read_head(path)?;
        match wildtool_core::formats::sniff(&head, len) {
            wildtool_core::formats::FileKind::EnvRun => return from_env(path, loaded, dataset_fp),
            wildtool_core::formats::FileKind::OwnRun => {
                return from_own(path, loaded, dataset_fp, args, as_env)
            }
            _ => {}
        }
        from_results(path, loaded, dataset_fp, args)
    }
}

/// The `trial-N` subdirectories of `dir`, ordered by N (empty when there are none).
pub(crate) fn trial_dirs(dir: &Path) -> Result<Vec<PathBuf>, CompareCmdError> {
    if !dir.is_dir() {
        return Ok(Vec::new());
    }
    let mut found: Vec<(u32, PathBuf)> = Vec::new();
    for entry in fs::read_dir(dir).map_err(at(dir))? {
        let entry = entry.map_err(at(dir))?;
        let name = entry.file_name().to_string_lossy().into_owned();
        if let Some(n) = name
            .strip_prefix("trial-")
            .and_then(|n| n.parse::<u32>().ok())
        {
            if entry.path().is_dir() {
                found.push((n, entry.path()));
            }
        }
    }
    found.sort();
    Ok(found.into_iter().map(|(_, p)| p).collect())
}

fn fallback_label(path: &Path) -> String {
    let name = |p: &Path| {
        p.file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| p.display().to_string())
    };
    if path.is_dir() {
        name(path)
    } else {
        path.parent().map(name).unwrap_or_else(|| name(path))
    }
}

/// Loads one run argument: a single run, or every trial of a trials directory.
fn load_run(
    path: &Path,
    loaded: &LoadedDataset,
    dataset_fp: u64,
    args: &CompareArgs,
    as_env: bool,
) -> Result<
    (
        RunInput,
        bool,
        bool,
        Option<wildtool_core::cost::CostFigures>,
    ),
    CompareCmdError,
> {
    super::commit::settle_input(path)?;
    let trials = trial_dirs(path)?;
    let parts: Vec<LoadedTrial> = if trials.is_empty() {
        vec![load_trial(path, loaded, dataset_fp, args, as_env)?]
    } else {
        trials
            .iter()
            .map(|t| load_trial(t, loaded, dataset_fp, args, as_env))
            .collect::<Result<_, _>>()?
    };
    for p in &parts {
        if p.fingerprint != dataset_fp {
            return Err(usage(format!(
                "{} was scored on a different dataset (fingerprint {:016x}) than {} (fingerprint {dataset_fp:016x}); runs can only be compared on the dataset they were scored on",
                path.display(),
                p.fingerprint,
                args.dataset.display()
            )));
        }
    }
    let env = parts.iter().any(|p| p.env);
    if env && parts.iter().any(|p| !p.env) {
        return Err(usage(format!(
            "{}: its trials mix ledger-environment and official runs",
            path.display()
        )));
    }
    let own = parts.iter().any(|p| p.own);
    if own && parts.iter().any(|p| !p.own) {
        return Err(usage(format!(
            "{}: its trials mix own-history and gold-history runs",
            path.display()
        )));
    }
    let label = parts
        .iter()
        .find_map(|p| p.label.clone())
        .unwrap_or_else(|| fallback_label(path));
    // A cost only when every trial was priced (with the same prices).
    let costs: Vec<_> = parts.iter().filter_map(|p| p.cost.clone()).collect();
    let cost = if costs.len() == parts.len() {
        wildtool_core::cost::CostFigures::combine(&costs)
    } else {
        None
    };
    Ok((
        RunInput {
            label,
            fingerprint: dataset_fp,
            trials: parts.into_iter().map(|p| p.outcomes).collect(),
        },
        env,
        own,
        cost,
    ))
}

/// Whether `path` is a gold-history ledger-environment run (a directory with an
/// `env-result.jsonl`, directly or in `trial-1/`, or such a file).
fn is_env_run(path: &Path) -> bool {
    if path.is_dir() {
        return !path.join("own-result.jsonl").is_file()
            && !path.join("report.json").is_file()
            && (path.join("env-result.jsonl").is_file()
                || path.join("trial-1/env-result.jsonl").is_file());
    }
    super::files::read_head(path).is_ok_and(|(head, len)| {
        wildtool_core::formats::sniff(&head, len) == wildtool_core::formats::FileKind::EnvRun
    })
}

/// The runs of a comparison read against their dataset.
pub(crate) struct LoadedRuns {
    /// The runs, labelled, in argument order.
    pub runs: Vec<RunInput>,
    /// Their costs, when every trial's `report.json` records one.
    pub costs: Vec<Option<wildtool_core::cost::CostFigures>>,
    /// The dataset's tasks.
    pub shapes: Vec<TaskShape>,
    /// The dataset's fingerprint.
    pub fingerprint: u64,
    /// Whether the runs are ledger-environment runs (paired on `env_success`).
    pub env: bool,
    /// Which runs are own-history runs (an extension), in run order.
    pub own: Vec<bool>,
}

impl LoadedRuns {
    /// The dataset reference the core's statistics take.
    pub fn dataset(&self) -> DatasetRef<'_> {
        DatasetRef {
            fingerprint: self.fingerprint,
            shapes: &self.shapes,
        }
    }
}

/// Reads the dataset and every run of `args` (labels applied).
pub(crate) fn load_runs(args: &CompareArgs) -> Result<LoadedRuns, CompareCmdError> {
    if args.labels.len() > args.runs.len() {
        return Err(usage(format!(
            "{} labels for {} runs",
            args.labels.len(),
            args.runs.len()
        )));
    }
    let dataset_text = read_text(&args.dataset)?;
    let dataset_fp = fingerprint(&dataset_text);
    let loaded = wildtool_core::protocol::load_checked(&dataset_text, args.lang);
    let shapes = task_shapes(&loaded);
    let mut runs = Vec::with_capacity(args.runs.len());
    let mut kinds = Vec::with_capacity(args.runs.len());
    let mut own = Vec::with_capacity(args.runs.len());
    let mut costs = Vec::with_capacity(args.runs.len());
    // With a ledger-environment run among them, own-history runs are read on their
    // ledger sessions' env_success (they need --env ledger), so env runs of both history
    // modes compare with each other and never with official-style labels.
    let as_env = args.runs.iter().any(|p| is_env_run(p));
    for (i, path) in args.runs.iter().enumerate() {
        let (mut run, env, is_own, cost) = load_run(path, &loaded, dataset_fp, args, as_env)?;
        costs.push(cost);
        if is_own {
            run.label = format!("{} (own history)", run.label);
        }
        own.push(is_own);
        if let Some(label) = args.labels.get(i) {
            run.label = label.clone();
        }
        kinds.push(env);
        runs.push(run);
    }
    let env = kinds.iter().all(|&e| e);
    if !env && kinds.iter().any(|&e| e) {
        return Err(usage(
            "a ledger-environment run (a wildtool extension) cannot be compared with an official run; compare env runs with env runs".to_owned(),
        ));
    }
    if env {
        for run in &mut runs {
            run.label = format!("{} (ledger env)", run.label);
        }
    }
    Ok(LoadedRuns {
        runs,
        costs,
        shapes,
        fingerprint: dataset_fp,
        env,
        own,
    })
}

/// Runs `wildtool compare`.
pub fn compare(args: &CompareArgs) -> Result<(), CompareCmdError> {
    if args.runs.len() < 2 {
        return Err(usage("give at least two runs to compare".to_owned()));
    }
    let loaded = load_runs(args)?;
    if loaded.env && (args.ci.junit.is_some() || args.ci.summary_md.is_some()) {
        return Err(usage(
            "--junit and --summary-md describe official runs; ledger-environment runs (a wildtool extension) are compared in compare.json and compare.html".to_owned(),
        ));
    }
    if loaded.env {
        println!(
            "{}: runs paired on env_success",
            wildtool_core::ledger::metrics::EXTENSION_LABEL
        );
    }
    let mut doc = compare_runs(&loaded.runs, loaded.dataset(), &BootstrapOptions::default())
        .map_err(|e| usage(e.to_string()))?;
    for (run, cost) in doc.runs.iter_mut().zip(&loaded.costs) {
        run.cost = cost.clone();
    }
    let mut inputs: Vec<&Path> = args.runs.iter().map(PathBuf::as_path).collect();
    inputs.push(&args.dataset);
    let mut set = OutputSet::begin(&args.out, &inputs)?;
    let dataset_label = args
        .dataset
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let figure = self_conditioning(&loaded)?;
    let mut html = compare_html(&doc, &dataset_label);
    set.write("compare.json", doc.to_json() + "\n")?;
    match &figure {
        Some(f) => {
            html = f.append_html(&html);
            set.write("self-conditioning.json", f.to_json())?;
        }
        // A figure of an earlier comparison in this directory does not stay beside this one.
        None => set.remove("self-conditioning.json")?,
    }
    set.write("compare.html", html)?;
    let written = set.commit()?;
    print!("{}", summary_text(&doc));
    if let Some(f) = &figure {
        print!("{}", f.text());
    }
    println!("wrote {}", super::commit::listed(&written));
    write_ci(args, &loaded, &doc)
}

/// With a gold-history run and an own-history run among the runs (the first of each):
/// the self-conditioning figure (written to `self-conditioning.json` and appended to
/// `compare.html`, in the comparison's output set).
fn self_conditioning(
    loaded: &LoadedRuns,
) -> Result<Option<wildtool_core::own::figure::SelfConditioning>, CompareCmdError> {
    let gold = loaded.own.iter().position(|o| !o);
    let own = loaded.own.iter().position(|o| *o);
    let (Some(g), Some(o)) = (gold, own) else {
        return Ok(None);
    };
    let (Some(gold), Some(own)) = (loaded.runs.get(g), loaded.runs.get(o)) else {
        return Ok(None);
    };
    wildtool_core::own::figure::self_conditioning(
        gold,
        own,
        loaded.dataset(),
        &BootstrapOptions::default(),
    )
    .map(|f| Some(if loaded.env { f.on_env_success() } else { f }))
    .map_err(|e| usage(e.to_string()))
}

/// `--junit`: one suite per run (a case per task, failures with the error class and the
/// first differing argument where the run's directory holds its `score.jsonl`);
/// `--summary-md`: every pair's Markdown summary, in the order of `compare.json`.
fn write_ci(
    args: &CompareArgs,
    loaded: &LoadedRuns,
    doc: &wildtool_core::compare::CompareDoc,
) -> Result<(), CompareCmdError> {
    use super::ci_out::{read_dirs, write_junit, write_md};
    if args.ci.junit.is_none() && args.ci.summary_md.is_none() {
        return Ok(());
    }
    let mut inputs: Vec<&Path> = args.runs.iter().map(PathBuf::as_path).collect();
    inputs.push(&args.dataset);
    let dirs: Vec<_> = args
        .runs
        .iter()
        .map(|p| read_dirs(std::slice::from_ref(p)))
        .collect();
    if let Some(path) = &args.ci.junit {
        let suites: Vec<_> = loaded
            .runs
            .iter()
            .zip(&dirs)
            .map(|(run, dir)| {
                let details = if dir.details.iter().any(|d| !d.is_empty()) {
                    dir.details.clone()
                } else {
                    Vec::new()
                };
                wildtool_core::ci::junit::run_suite(
                    &run.label,
                    &loaded.shapes,
                    &run.trials,
                    &details,
                    &Default::default(),
                )
            })
            .collect();
        write_junit(path, &suites, &inputs)?;
    }
    if let Some(path) = &args.ci.summary_md {
        let cost = |i: usize| {
            dirs.get(i)
                .and_then(|d| d.report.as_ref())
                .and_then(|r| r.cost.clone())
        };
        let mut md = String::new();
        for pair in &doc.pairs {
            let (a, b) = (
                pair_index(doc, &pair.a).and_then(cost),
                pair_index(doc, &pair.b).and_then(cost),
            );
            md.push_str(&wildtool_core::ci::summary::pair_markdown(
                pair,
                None,
                [a.as_ref(), b.as_ref()],
            ));
            md.push('\n');
        }
        write_md(path, &format!("{}\n", md.trim_end()), &inputs)?;
    }
    Ok(())
}

/// The position of the run labelled `label` in `doc.runs`.
fn pair_index(doc: &wildtool_core::compare::CompareDoc, label: &str) -> Option<usize> {
    doc.runs.iter().position(|r| r.label == label)
}
