//! `wildtool score`: offline scoring of a result file (an official `result.jsonl`, a
//! `wildtool run` checkpoint or a run exported by the page).

use std::collections::BTreeMap;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc;

use wildtool_core::checker;
use wildtool_core::dataset::{fingerprint_hex, Lang, LoadedDataset};
use wildtool_core::formats::report_doc::{ReportDataset, ReportDoc, ReportInput};
use wildtool_core::formats::score_file::{self, ScoreOrder, SEPARATOR};
use wildtool_core::formats::upload::{checkpoint_results, run_export_results};
use wildtool_core::formats::{check_belongs, sniff, FileKind, RunExport, RunMeta};
use wildtool_core::input::lines::{self, LineError};
use wildtool_core::report::fill_outcomes;
use wildtool_core::report::summary::summary_table;
use wildtool_core::runner::checkpoint::CheckpointFile;
use wildtool_core::score::{
    ArgChecker, LineScorer, LineWork, OfficialChecker, ScoreOptions, Scorer,
};
use wildtool_core::share::task_shapes;

use super::files::{
    at, for_each_line, read_document, read_head, read_text, FileError, LineReader, LineSpan,
    OutputSet,
};

/// Exit code of a refused input (not a result file, another dataset's results).
const EXIT_REFUSED: u8 = 2;

/// Turns transparent huge pages off for the rest of this process (Linux; elsewhere, or
/// when the kernel refuses, nothing happens).
///
/// The allocator asks for huge pages (`madvise(MADV_HUGEPAGE)` on its arena). For
/// `score` that is a gamble: a 2 MiB page is cheap when the kernel has one at hand, but
/// right after a big process exits (the official scorer, a compiler) the kernel's free
/// 2 MiB blocks are often ones it has handed back to the hypervisor, and each first touch
/// then costs milliseconds (measured: 3–135 ms of system time for the same ~30 huge-page
/// faults). Ordinary 4 KiB pages cost the same every run. Called only by `score`: the
/// other commands keep huge pages (`validate` measured faster with them).
pub fn without_huge_pages() {
    #[cfg(any(target_os = "linux", target_os = "android"))]
    {
        let _ = rustix::thread::disable_transparent_huge_pages(true);
    }
}

/// Arguments of `wildtool score`.
#[derive(Debug)]
pub struct ScoreArgs {
    /// Dataset path.
    pub dataset: PathBuf,
    /// Result file path.
    pub results: PathBuf,
    /// Output directory.
    pub out: PathBuf,
    /// Dataset language.
    pub lang: Lang,
    /// metric.json model name override.
    pub model_name: Option<String>,
    /// Candidate cap.
    pub candidate_cap: usize,
}

/// What scoring knows beyond the command-line arguments of `wildtool score`.
#[derive(Debug, Clone, Default)]
pub struct ScoreExtras {
    /// Score results that do not match the dataset anyway (recorded in `report.json`).
    pub force: bool,
    /// Run metadata for `report.json` (`wildtool run` knows it).
    pub run: Option<RunMeta>,
    /// The sessions (0-based indices) the run covered; `None`: the whole dataset. Tasks
    /// of other sessions are not counted as unscored.
    pub sessions: Option<Vec<usize>>,
    /// Leave the summary table out of stdout (notes go to stderr): for callers that print
    /// their own summary.
    pub quiet: bool,
    /// JUnit and Markdown outputs (`score` only; `run` writes its own over all trials).
    pub ci: super::ci_out::CiOpts,
    /// Prices to cost the run with (`None`: no cost section).
    pub prices: Option<super::prices::PriceChoice>,
    /// Cached prompt tokens by `(line, task)` (from a checkpoint's usage extension).
    pub cached: Option<std::collections::BTreeMap<(usize, usize), Vec<wildtool_core::json::Value>>>,
    /// Scoring threads (`--jobs`); `None`: one.
    pub jobs: Option<u32>,
    /// The dataset's bytes as the caller read them (`wildtool run` scores the bytes it
    /// ran on); `None`: read `ScoreArgs::dataset`.
    pub dataset_text: Option<std::sync::Arc<String>>,
    /// The process ends once scoring is written (`wildtool score`): the dataset and the
    /// scorer's values are left to the exit instead of being freed one by one (about 5%
    /// of a 12 MB scoring run's CPU went to freeing the dataset's trees).
    pub exits_after: bool,
}

/// Where the result lines come from.
enum Source {
    /// A result file read by span.
    File(PathBuf),
    /// Result text in memory (the file read once, or assembled from a checkpoint or a
    /// run export).
    Memory(Vec<u8>),
}

/// Reads lines of a [`Source`]; each scoring thread has its own.
enum Reader<'a> {
    File(LineReader),
    Memory(&'a [u8]),
}

impl Source {
    fn reader(&self) -> Result<Reader<'_>, FileError> {
        Ok(match self {
            Source::File(path) => Reader::File(LineReader::open(path)?),
            Source::Memory(bytes) => Reader::Memory(bytes),
        })
    }
}

impl Reader<'_> {
    /// The text of one line: borrowed from memory, or from the reader's buffer (the line
    /// read from the file into it), until the next read.
    fn read(&mut self, span: LineSpan) -> Result<Result<&str, LineError>, FileError> {
        match self {
            Reader::File(reader) => reader.read(span),
            Reader::Memory(bytes) => {
                let start = usize::try_from(span.offset).unwrap_or(usize::MAX);
                let end = start.saturating_add(usize::try_from(span.len).unwrap_or(0));
                let slice = bytes.get(start..end).unwrap_or(&[]);
                Ok(lines::decode(&span, slice).map(Option::unwrap_or_default))
            }
        }
    }
}

/// One line's token usage by task (`cost::usage::line_usage`).
type LineUsage = (usize, usize, Vec<wildtool_core::cost::usage::StepTokens>);

/// One line as scoring read it: unreadable, or scored (not counted yet) with its token
/// usage when prices were asked for.
type LineItem = Result<(LineWork, Vec<LineUsage>), LineError>;

/// Stack of a scoring thread: as the main thread's, so nesting the parser accepts
/// there is accepted on every thread.
const THREAD_STACK: usize = 8 << 20;

/// Lines a scoring thread takes at a time.
const BLOCK: usize = 4;

/// The threads `--jobs` asks for; one by default. On the 2-core machine the figures are
/// measured on, a second thread saved a tenth of the wall time on a 200 MB file and cost
/// about 45% more CPU (two heaps, the lines handed over), and on the 12 MB file it saved
/// no wall time at all: the dataset load, the counting and the writing are serial.
/// Never more threads than lines.
pub fn effective_jobs(asked: Option<u32>, lines: usize) -> usize {
    let n = asked.map_or(1, |n| n as usize);
    n.min(lines).max(1)
}

/// Reads and scores `spans` with `jobs` threads and hands every line to `each` in span
/// order, as one thread would; the checkers' crash counts of the other threads are added
/// to `scorer`.
#[allow(clippy::too_many_arguments)]
fn score_lines(
    source: &Source,
    spans: &[LineSpan],
    jobs: usize,
    loaded: &LoadedDataset,
    segmenter: &(dyn checker::Segmenter + Send + Sync),
    options: &ScoreOptions,
    usage_of: &(dyn Fn(&str) -> Vec<LineUsage> + Sync),
    scorer: &mut Scorer<'_>,
    each: &mut dyn FnMut(&mut Scorer<'_>, LineSpan, LineItem) -> Result<(), FileError>,
) -> Result<(), FileError> {
    if jobs <= 1 {
        let mut reader = source.reader()?;
        let check = OfficialChecker::new(segmenter);
        let mut lines = LineScorer::new(loaded, &check, options.clone());
        for &span in spans {
            let item = reader.read(span)?.map(|text| {
                let work = lines.work(span.number, text);
                (work, usage_of(text))
            });
            each(scorer, span, item)?;
        }
        scorer.add_checker_crashes(check.official_crashes());
        return Ok(());
    }
    let next = AtomicUsize::new(0);
    let stop = AtomicBool::new(false);
    let (tx, rx) = mpsc::channel::<(usize, Result<LineItem, FileError>)>();
    std::thread::scope(|scope| {
        let mut handles = Vec::new();
        for _ in 0..jobs {
            let tx = tx.clone();
            let (next, stop) = (&next, &stop);
            let worker = move || -> BTreeMap<String, u64> {
                let check = OfficialChecker::new(segmenter);
                let mut lines = LineScorer::new(loaded, &check, options.clone());
                let mut reader = match source.reader() {
                    Ok(r) => r,
                    Err(e) => {
                        let _ = tx.send((next.fetch_add(BLOCK, Ordering::Relaxed), Err(e)));
                        return check.official_crashes();
                    }
                };
                'blocks: while !stop.load(Ordering::Relaxed) {
                    let first = next.fetch_add(BLOCK, Ordering::Relaxed);
                    if first >= spans.len() {
                        break;
                    }
                    for (i, &span) in spans.iter().enumerate().skip(first).take(BLOCK) {
                        let item = reader.read(span).map(|text| {
                            text.map(|text| {
                                let work = lines.work(span.number, text);
                                (work, usage_of(text))
                            })
                        });
                        let failed = item.is_err();
                        if tx.send((i, item)).is_err() || failed {
                            break 'blocks;
                        }
                    }
                }
                check.official_crashes()
            };
            let handle = std::thread::Builder::new()
                .stack_size(THREAD_STACK)
                .spawn_scoped(scope, worker);
            match handle {
                Ok(h) => handles.push(h),
                Err(e) => {
                    stop.store(true, Ordering::Relaxed);
                    return Err(FileError {
                        path: PathBuf::from("(scoring thread)"),
                        source: e,
                    });
                }
            }
        }
        drop(tx);
        // Lines arrive in any order; each is handed on in span order.
        let mut waiting: BTreeMap<usize, Result<LineItem, FileError>> = BTreeMap::new();
        let mut want = 0;
        let mut outcome = Ok(());
        'recv: for (i, item) in rx.iter() {
            waiting.insert(i, item);
            while let Some(item) = waiting.remove(&want) {
                let span = spans[want];
                want += 1;
                let done = item.and_then(|item| each(scorer, span, item));
                if let Err(e) = done {
                    outcome = Err(e);
                    stop.store(true, Ordering::Relaxed);
                    break 'recv;
                }
            }
        }
        for h in handles {
            match h.join() {
                Ok(crashes) => scorer.add_checker_crashes(crashes),
                Err(panic) => std::panic::resume_unwind(panic),
            }
        }
        outcome
    })
}

/// Reads the results: the lines in score-file order, plus the lines that could not be
/// read. `Ok(Err(code))` when the file was refused (message printed).
#[allow(clippy::type_complexity)]
fn open_results(
    args: &ScoreArgs,
    loaded: &LoadedDataset,
    fingerprint: &str,
    cached: &mut Option<
        std::collections::BTreeMap<(usize, usize), Vec<wildtool_core::json::Value>>,
    >,
) -> Result<Result<(Source, Vec<LineSpan>, Vec<LineError>), String>, FileError> {
    let (head, len) = read_head(&args.results)?;
    let kind = sniff(&head, len);
    let refuse = |message: String| Ok(Err(format!("{}: {message}", args.results.display())));
    let memory = |bytes: Vec<u8>| {
        let mut order = ScoreOrder::new();
        let mut damaged = Vec::new();
        for (span, line) in lines::split(&bytes) {
            match line {
                Ok(Some(t)) => order.push(score_file::sort_key(t), span.number, span),
                Ok(None) => {}
                Err(e) => damaged.push(e),
            }
        }
        (Source::Memory(bytes), order.into_sorted(), damaged)
    };
    match kind {
        FileKind::Results => {
            // A result file is read twice by line span, never held whole: pass 1 finds
            // the spans and sort keys, pass 2 reads each line in score-file order into a
            // reused buffer. A second read of the file from the page cache costs less
            // than the fresh memory (page faults, zeroing) of holding it: measured on the
            // 12 MB file, 2,500 fewer page faults and about 4 ms less CPU.
            let mut order = ScoreOrder::new();
            let mut damaged = Vec::new();
            for_each_line(&args.results, |span, text| match text {
                Ok(t) => order.push(score_file::sort_key(t), span.number, span),
                Err(e) => damaged.push(e),
            })?;
            // Opened here so that a file that cannot be opened fails before scoring.
            drop(LineReader::open(&args.results)?);
            Ok(Ok((
                Source::File(args.results.clone()),
                order.into_sorted(),
                damaged,
            )))
        }
        FileKind::Checkpoint => {
            // JSON Lines: bounded per line, not as a whole document.
            let bytes = std::fs::read(&args.results).map_err(at(&args.results))?;
            let file = match CheckpointFile::parse(&bytes) {
                Ok(f) => f,
                Err(e) => return refuse(e.to_string()),
            };
            *cached = Some(
                wildtool_core::cost::usage::cached_from_records(&file.records)
                    .into_iter()
                    .filter(|((trial, _, _), _)| *trial == 1)
                    .map(|((_, l, t), c)| ((l, t), c))
                    .collect(),
            );
            for (_, problem) in &file.problems {
                eprintln!("warning: {}: {problem}", args.results.display());
            }
            match checkpoint_results(&file, loaded, fingerprint) {
                Ok(assembled) => {
                    if !assembled.missing.is_empty() {
                        eprintln!(
                            "note: {} task(s) of the checkpoint's sessions are not finished; those sessions are not scored",
                            assembled.missing.len()
                        );
                    }
                    Ok(Ok(memory(assembled.text.into_bytes())))
                }
                Err(e) => refuse(e.to_string()),
            }
        }
        FileKind::RunExport { .. } if kind.is_scorable() => {
            let bytes = read_document(&args.results)?;
            let doc = match RunExport::parse(&bytes) {
                Ok(d) => d,
                Err(e) => return refuse(e.to_string()),
            };
            match run_export_results(&doc, loaded, fingerprint) {
                Ok(text) => Ok(Ok(memory(text.into_bytes()))),
                Err(e) => refuse(e.to_string()),
            }
        }
        other => refuse(other.message()),
    }
}

/// What scoring staged into an output set: what to print once the set is committed.
#[derive(Debug)]
pub struct Staged {
    /// The model name of `metric.json`.
    pub model: String,
    /// The tasks counted.
    pub shapes: Vec<wildtool_core::share::TaskShape>,
    /// The summary table.
    pub table: String,
    /// Notes for the user.
    pub notes: Vec<String>,
}

/// Runs `wildtool score`: scores into one output set and commits it.
pub fn score_with(args: &ScoreArgs, extras: &ScoreExtras) -> Result<ExitCode, FileError> {
    if let Some(parent) = args.results.parent().filter(|p| !p.as_os_str().is_empty()) {
        super::commit::settle_for_reading(parent)?;
    }
    let mut set = OutputSet::begin(&args.out, &[&args.dataset, &args.results])?;
    let staged = match score_into(args, extras, &mut set, "")? {
        Ok(staged) => staged,
        Err(refusal) => {
            eprintln!("wildtool: {refusal}");
            return Ok(ExitCode::from(EXIT_REFUSED));
        }
    };
    let written = set.commit()?;
    let mut notes = staged.notes;
    notes.push(format!("wrote {}", super::commit::listed(&written)));
    super::ci_out::write_run_outputs(
        &extras.ci,
        &staged.model,
        &staged.shapes,
        std::slice::from_ref(&args.out),
        &Default::default(),
        &[&args.dataset, &args.results],
    )?;
    if extras.quiet {
        // The caller prints its own summary on stdout; the notes still reach the user.
        for n in notes {
            eprintln!("{n}");
        }
    } else {
        print!("{}", staged.table);
        for n in notes {
            println!("{n}");
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// Scores `args.results` into `set` under `prefix` (`""` or `trial-N/`): `score.jsonl`,
/// `metric.json`, `report.json`. `Ok(Err(message))` when the results were refused
/// (nothing staged is committed by the callers then).
pub fn score_into(
    args: &ScoreArgs,
    extras: &ScoreExtras,
    set: &mut OutputSet,
    prefix: &str,
) -> Result<Result<Staged, String>, FileError> {
    let dataset_text = match &extras.dataset_text {
        Some(text) => text.clone(),
        None => std::sync::Arc::new(read_text(&args.dataset)?),
    };
    let loaded = wildtool_core::protocol::load_checked(&dataset_text, args.lang);
    let fingerprint = fingerprint_hex(&dataset_text);
    let errors = loaded.errors().count();
    if errors > 0 {
        eprintln!(
            "warning: dataset {} has {errors} error(s) (run `wildtool validate`); scoring applies the PROTOCOL §6 fallbacks",
            args.dataset.display()
        );
    }
    let mut cached_in_file = None;
    let (source, spans, damaged) =
        match open_results(args, &loaded, &fingerprint, &mut cached_in_file)? {
            Ok(parts) => parts,
            Err(message) => return Ok(Err(message)),
        };

    let segmenter = checker::default_segmenter();
    let check = OfficialChecker::new(segmenter.as_ref());
    let options = ScoreOptions {
        candidate_cap: args.candidate_cap,
    };
    let mut scorer = Scorer::new(&loaded, &check, options.clone());
    for e in damaged {
        let e = wildtool_core::score::LineError::from(e);
        eprintln!("warning: {e} (skipped)");
        scorer.skip(e);
    }
    let names: Vec<String> = ["score.jsonl", "metric.json", "report.json"]
        .iter()
        .map(|n| format!("{prefix}{n}"))
        .collect();
    let (file, score_temp) = set.create(&names[0])?;
    // Score lines are about 12 KB each: a buffer of many lines writes them in a few
    // system calls instead of two per line.
    let mut writer = BufWriter::with_capacity(256 << 10, file);
    let mut outcomes = Vec::new();
    let mut usage = Vec::new();
    let cached = extras.cached.clone().or(cached_in_file);
    let cached_of =
        |line: usize, task: usize| cached.as_ref().and_then(|c| c.get(&(line, task)).cloned());
    let priced = extras.prices.is_some();
    let usage_of = |text: &str| {
        if priced {
            wildtool_core::cost::usage::line_usage(text, &cached_of)
        } else {
            Vec::new()
        }
    };
    // Score in score-file order (the official score file is sorted by id).
    let mut first = true;
    let jobs = effective_jobs(extras.jobs, spans.len());
    score_lines(
        &source,
        &spans,
        jobs,
        &loaded,
        segmenter.as_ref(),
        &options,
        &usage_of,
        &mut scorer,
        &mut |scorer, _span, item| {
            let (work, line_usage) = match item {
                Ok(item) => item,
                Err(e) => {
                    let e = wildtool_core::score::LineError::from(e);
                    eprintln!("warning: {e} (skipped)");
                    scorer.skip(e);
                    return Ok(());
                }
            };
            match scorer.count(work) {
                Ok(line) => {
                    usage.extend(line_usage);
                    outcomes.extend(line.outcomes);
                    if !first {
                        writer
                            .write_all(SEPARATOR.as_bytes())
                            .map_err(at(&score_temp))?;
                    }
                    writer
                        .write_all(line.score_line.as_bytes())
                        .map_err(at(&score_temp))?;
                    first = false;
                }
                Err(e) => eprintln!("warning: {e} (skipped)"),
            }
            Ok(())
        },
    )?;
    writer.flush().map_err(at(&score_temp))?;
    drop(writer);

    let stats = scorer.final_stats();
    if let Some(w) = stats.duplicate_warning() {
        eprintln!("warning: {}: {w}", args.results.display());
    }
    let forced = match check_belongs(&stats) {
        Ok(()) => None,
        Err(mismatch) if extras.force => {
            eprintln!("warning: {mismatch} Scored anyway (--force); report.json records it.");
            Some(mismatch.message)
        }
        Err(mismatch) => {
            return Ok(Err(format!(
                "{}: {mismatch} Nothing was written; --force scores them anyway.",
                args.results.display()
            )));
        }
    };

    if stats.lines == 0 {
        return Ok(Err(format!(
            "{}: no result line could be scored ({} line(s) skipped; see the warnings above); nothing was written",
            args.results.display(),
            stats.skipped.len()
        )));
    }
    let model = score_file::model_name(args.model_name.as_deref(), &scorer);
    let model_for_prices = extras
        .run
        .as_ref()
        .map(|r| r.model.clone())
        .unwrap_or_else(|| model.clone());
    let mut shapes = task_shapes(&loaded);
    if let Some(selected) = &extras.sessions {
        shapes.retain(|s| selected.contains(&(s.session as usize)));
    }
    let mut doc = ReportDoc::build(ReportInput {
        model_name: &model,
        dataset: ReportDataset {
            file: file_name(&args.dataset),
            fingerprint,
            sessions: loaded.line_count as u64,
            problems: loaded.problems.len() as u64,
        },
        tasks: fill_outcomes(&shapes, &outcomes),
        scoring: stats.clone(),
        run: extras.run.clone(),
        forced,
    });
    let mut notes = Vec::new();
    if let Some(choice) = &extras.prices {
        match choice.pricing(&model_for_prices) {
            Some(pricing) => {
                doc.cost = Some(wildtool_core::cost::figures::run_figures(
                    &pricing, &doc.tasks, &usage,
                ));
            }
            None => notes.push(format!(
                "  note: no price for {:?} in the price table; no cost computed (--prices FILE, --price-model NAME)",
                choice.entry_name(&model_for_prices)
            )),
        }
    }
    set.write(&names[1], scorer.metric_json(&model))?;
    set.write(&names[2], doc.to_json())?;

    if stats.label_disagreements > 0 {
        notes.push(format!("  note: {} task(s) had recorded labels that differ from the official decision; the official decision was used", stats.label_disagreements));
    }
    if !stats.official_crashes.is_empty() {
        notes.push(format!(
            "  note: the official code would have crashed on: {:?}",
            stats.official_crashes
        ));
    }
    if !stats.skipped.is_empty() {
        notes.push(format!(
            "  note: {} result line(s) could not be scored (see warnings above)",
            stats.skipped.len()
        ));
    }
    if let Some(cost) = &doc.cost {
        notes.push(format!("  {}", cost.line()));
    }
    if doc.forced.is_some() {
        notes.push(
            "  note: scored with --force although the results do not match the dataset".into(),
        );
    }
    let staged = Staged {
        table: summary_table(&model, &doc.report),
        model,
        shapes,
        notes,
    };
    if extras.exits_after {
        std::mem::forget(doc);
        std::mem::forget(outcomes);
        std::mem::forget(scorer);
        std::mem::forget(loaded);
    }
    Ok(Ok(staged))
}

fn file_name(path: &Path) -> Option<String> {
    path.file_name().map(|n| n.to_string_lossy().into_owned())
}
