//! `wildtool score`: offline scoring of a result file (an official `result.jsonl`, a
//! `wildtool run` checkpoint or a run exported by the page).

use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

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
use wildtool_core::score::{OfficialChecker, ScoreOptions, Scorer};
use wildtool_core::share::task_shapes;

use super::files::{
    at, for_each_line, read_document, read_head, read_text, FileError, LineReader, LineSpan,
    OutputSet,
};

/// Exit code of a refused input (not a result file, another dataset's results).
const EXIT_REFUSED: u8 = 2;

/// Result files up to this size are read into memory once; larger ones are read twice
/// by line span (sort keys first, then each line in score-file order), so that a huge
/// file is never held in memory.
const IN_MEMORY_BYTES: u64 = 64 << 20;

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
    /// The dataset's bytes as the caller read them (`wildtool run` scores the bytes it
    /// ran on); `None`: read `ScoreArgs::dataset`.
    pub dataset_text: Option<std::sync::Arc<String>>,
}

/// Where the result lines come from.
enum Source {
    /// A result file read by span.
    File(LineReader),
    /// Result text assembled in memory (from a checkpoint or a run export).
    Memory(Vec<u8>),
}

impl Source {
    fn read(&mut self, span: LineSpan) -> Result<Result<String, LineError>, FileError> {
        match self {
            Source::File(reader) => reader.read(span),
            Source::Memory(bytes) => {
                let start = usize::try_from(span.offset).unwrap_or(usize::MAX);
                let end = start.saturating_add(usize::try_from(span.len).unwrap_or(0));
                let slice = bytes.get(start..end).unwrap_or(&[]);
                Ok(lines::decode(&span, slice).map(|t| t.unwrap_or_default().to_owned()))
            }
        }
    }
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
        FileKind::Results if len <= IN_MEMORY_BYTES => {
            let bytes = std::fs::read(&args.results).map_err(at(&args.results))?;
            Ok(Ok(memory(bytes)))
        }
        FileKind::Results => {
            // Pass 1: spans and sort keys only, so a huge file is never held in memory.
            let mut order = ScoreOrder::new();
            let mut damaged = Vec::new();
            for_each_line(&args.results, |span, text| match text {
                Ok(t) => order.push(score_file::sort_key(t), span.number, span),
                Err(e) => damaged.push(e),
            })?;
            let reader = LineReader::open(&args.results)?;
            Ok(Ok((Source::File(reader), order.into_sorted(), damaged)))
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
    let (mut source, spans, damaged) =
        match open_results(args, &loaded, &fingerprint, &mut cached_in_file)? {
            Ok(parts) => parts,
            Err(message) => return Ok(Err(message)),
        };

    let segmenter = checker::default_segmenter();
    let check = OfficialChecker::new(segmenter.as_ref());
    let mut scorer = Scorer::new(
        &loaded,
        &check,
        ScoreOptions {
            candidate_cap: args.candidate_cap,
        },
    );
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
    let mut writer = BufWriter::new(file);
    let mut outcomes = Vec::new();
    let mut usage = Vec::new();
    let cached = extras.cached.clone().or(cached_in_file);
    let cached_of =
        |line: usize, task: usize| cached.as_ref().and_then(|c| c.get(&(line, task)).cloned());
    // Pass 2: score in score-file order (the official score file is sorted by id).
    let mut first = true;
    for span in spans {
        let text = match source.read(span)? {
            Ok(text) => text,
            Err(e) => {
                let e = wildtool_core::score::LineError::from(e);
                eprintln!("warning: {e} (skipped)");
                scorer.skip(e);
                continue;
            }
        };
        match scorer.score_line(span.number, &text) {
            Ok(line) => {
                if extras.prices.is_some() {
                    usage.extend(wildtool_core::cost::usage::line_usage(&text, &cached_of));
                }
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
    }
    writer.flush().map_err(at(&score_temp))?;
    drop(writer);

    let stats = scorer.final_stats();
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
    Ok(Ok(Staged {
        table: summary_table(&model, &doc.report),
        model,
        shapes,
        notes,
    }))
}

fn file_name(path: &Path) -> Option<String> {
    path.file_name().map(|n| n.to_string_lossy().into_owned())
}
