//! `wildtool verify BUNDLE…`: gathers a bundle's files (a run directory, or single files)
//! and prints the core's verdict on every claim (`provenance::verify`).

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use wildtool_core::dataset::Lang;
use wildtool_core::provenance::cassette::HEADER;
use wildtool_core::provenance::manifest::Manifest;
use wildtool_core::provenance::verify::{
    is_run_export, run_export_parts, verify, Bundle, BundleDir,
};

use super::files::read_text;
use super::EXIT_USAGE;

/// The files of an output directory a bundle reads.
const DIR_FILES: [&str; 8] = [
    "result.jsonl",
    "score.jsonl",
    "metric.json",
    "report.json",
    "env-result.jsonl",
    "env-report.json",
    "own-result.jsonl",
    "own-report.json",
];

/// Arguments of `wildtool verify`.
#[derive(Debug)]
pub struct VerifyArgs {
    /// A run directory, or files.
    pub bundle: Vec<PathBuf>,
    /// The dataset.
    pub dataset: PathBuf,
    /// The cassette (default: the one the manifest names, in the run directory).
    pub cassette: Option<PathBuf>,
    /// Dataset language.
    pub lang: Lang,
    /// Candidate cap for re-scoring.
    pub candidate_cap: usize,
}

fn unreadable(message: String) -> ExitCode {
    eprintln!("wildtool verify: {message}");
    ExitCode::from(EXIT_USAGE)
}

fn is_cassette(text: &str) -> bool {
    text.lines()
        .next()
        .and_then(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .zip(serde_json::from_str::<serde_json::Value>(HEADER).ok())
        .is_some_and(|(a, b)| a == b)
}

/// Reads the bundle's files into the core's [`Bundle`].
pub(crate) fn gather(args: &VerifyArgs) -> Result<Bundle, String> {
    let read = |p: &Path| read_text(p).map_err(|e| e.to_string());
    let mut bundle = Bundle {
        dataset: read(&args.dataset)?,
        ..Bundle::default()
    };
    let mut cassette_path = args.cassette.clone();
    match args.bundle.as_slice() {
        [dir] if dir.is_dir() => {
            let manifest_path = dir.join("manifest.json");
            let mut dirs = vec![".".to_owned()];
            if manifest_path.is_file() {
                let text = read(&manifest_path)?;
                if let Ok(m) = Manifest::parse(&text) {
                    dirs = m.outputs.iter().map(|o| o.dir.clone()).collect();
                    if cassette_path.is_none() {
                        cassette_path = m
                            .cassette
                            .as_ref()
                            .map(|c| dir.join(&c.file))
                            .filter(|p| p.is_file());
                    }
                }
                bundle.manifest = Some(text);
            } else if dir.join("trial-1").is_dir() {
                dirs = (1..)
                    .map(|t| format!("trial-{t}"))
                    .take_while(|d| dir.join(d).is_dir())
                    .collect();
            }
            for d in dirs {
                let path = dir.join(&d);
                let mut files = std::collections::BTreeMap::new();
                for name in DIR_FILES {
                    let p = path.join(name);
                    if p.is_file() {
                        files.insert(name.to_owned(), read(&p)?);
                    }
                }
                bundle.dirs.push(BundleDir { dir: d, files });
            }
        }
        paths => {
            let mut files = std::collections::BTreeMap::new();
            let mut trial_dirs = Vec::new();
            for p in paths {
                let text = read(p)?;
                let name = p
                    .file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_default();
                if is_run_export(&text) {
                    // A run file exported by the page: its manifest and result file(s).
                    let (manifest, dirs) =
                        run_export_parts(&name, &text, &bundle.dataset, args.lang)?;
                    bundle.manifest = Some(manifest);
                    match dirs.as_slice() {
                        [one] if one.dir == "." => files.extend(one.files.clone()),
                        _ => trial_dirs.extend(dirs),
                    }
                } else if name == "manifest.json"
                    || text.contains("\"wildtool_manifest\"")
                        && name.ends_with(".json")
                        && Manifest::parse(&text).is_ok()
                {
                    bundle.manifest = Some(text);
                } else if is_cassette(&text) {
                    bundle.cassette = Some(text);
                } else {
                    files.insert(name, text);
                }
            }
            if !files.is_empty() || trial_dirs.is_empty() {
                bundle.dirs.push(BundleDir {
                    dir: ".".to_owned(),
                    files,
                });
            }
            bundle.dirs.extend(trial_dirs);
        }
    }
    if let Some(p) = cassette_path {
        bundle.cassette = Some(read(&p)?);
    }
    Ok(bundle)
}

/// Runs `wildtool verify`: 0 when every claim holds, 1 when one fails, 2 when the bundle
/// cannot be read.
pub fn verify_cmd(args: &VerifyArgs) -> ExitCode {
    let started = Instant::now();
    let bundle = match gather(args) {
        Ok(b) => b,
        Err(e) => return unreadable(e),
    };
    let segmenter = wildtool_core::checker::default_segmenter();
    let verdict = match verify(&bundle, args.lang, args.candidate_cap, segmenter.as_ref()) {
        Ok(v) => v,
        Err(e) => return unreadable(e.to_string()),
    };
    print!("{}", verdict.lines());
    let failed = verdict.claims.iter().filter(|c| !c.holds).count();
    eprintln!(
        "{} claim(s) checked, {failed} failed, in {:.2}s",
        verdict.claims.len(),
        started.elapsed().as_secs_f64()
    );
    if verdict.all_hold() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}

/// Arguments of `wildtool export`.
#[derive(Debug)]
pub struct ExportArgs {
    /// The run directory.
    pub run: PathBuf,
    /// The dataset.
    pub dataset: PathBuf,
    /// Where the `data/…` tree goes.
    pub out: PathBuf,
    /// Dataset language.
    pub lang: Lang,
}

/// Runs `wildtool export --format eee`: 0 when written, 2 when the run cannot be read or
/// exported.
pub fn export_cmd(args: &ExportArgs) -> Result<ExitCode, super::files::FileError> {
    let bundle = match gather(&VerifyArgs {
        bundle: vec![args.run.clone()],
        dataset: args.dataset.clone(),
        cassette: None,
        lang: args.lang,
        candidate_cap: 0,
    }) {
        Ok(b) => b,
        Err(e) => return Ok(unreadable(e)),
    };
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    let files = match wildtool_core::provenance::eee::export(&bundle, args.lang, now) {
        Ok(f) => f,
        Err(e) => return Ok(unreadable(format!("{}: {e}", args.run.display()))),
    };
    for f in &files {
        let path = args.out.join(&f.path);
        super::files::write_file(
            &path,
            &f.text,
            &[args.run.as_path(), args.dataset.as_path()],
        )?;
        eprintln!("wrote {}", path.display());
    }
    Ok(ExitCode::SUCCESS)
}
