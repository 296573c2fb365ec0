//! `wildtool validate` and `wildtool stats`.

use std::path::Path;
use std::process::ExitCode;

use wildtool_core::checker;
use wildtool_core::dataset::{Lang, Stats};

use wildtool_core::formats::{sniff, FileKind};

use super::files::{read_head, read_text, FileError};

/// `Some(exit code)` when `path` is clearly not a dataset (a result file, a CSV, an empty
/// file …): the file kind's message is printed.
fn not_a_dataset(path: &Path) -> Result<Option<ExitCode>, FileError> {
    let (head, len) = read_head(path)?;
    let kind = sniff(&head, len);
    if matches!(kind, FileKind::Dataset | FileKind::Other { .. }) {
        return Ok(None);
    }
    println!("{}: not a dataset. {}", path.display(), kind.message());
    Ok(Some(ExitCode::from(2)))
}

/// `wildtool validate FILE`: exit 0 with a summary when valid, 2 with every problem when not.
pub fn validate(path: &Path, lang: Lang, semantic: bool, env: bool) -> Result<ExitCode, FileError> {
    if let Some(code) = not_a_dataset(path)? {
        return Ok(code);
    }
    let text = read_text(path)?;
    let mut loaded = wildtool_core::protocol::load_checked(&text, lang);
    if semantic {
        let segmenter = checker::default_segmenter();
        let extra = wildtool_core::protocol::semantic_problems_checked(&loaded, segmenter.as_ref());
        loaded.problems.extend(extra);
        loaded.problems.sort_by_key(|p| p.line);
    }
    let mut errors = loaded.errors().count();
    for p in &loaded.problems {
        println!("{p}");
    }
    if env {
        errors += super::env_cmd::validate_env(&text, lang);
    }
    if errors > 0 || !loaded.is_valid() {
        println!(
            "{}: INVALID — {errors} error(s), {} warning(s)",
            path.display(),
            loaded.warnings().count()
        );
        return Ok(ExitCode::from(2));
    }
    let stats = Stats::from_sessions(&loaded.sessions);
    println!(
        "{}: valid ({} warning(s))",
        path.display(),
        loaded.warnings().count()
    );
    print!("{}", stats.render_summary());
    Ok(ExitCode::SUCCESS)
}

/// `wildtool stats FILE`: the distribution table.
pub fn stats(path: &Path, lang: Lang) -> Result<ExitCode, FileError> {
    if let Some(code) = not_a_dataset(path)? {
        return Ok(code);
    }
    let text = read_text(path)?;
    let loaded = wildtool_core::protocol::load_checked(&text, lang);
    let errors = loaded.errors().count();
    if errors > 0 {
        eprintln!(
            "warning: {} has {errors} error(s); run `wildtool validate` for details",
            path.display()
        );
    }
    print!("{}", Stats::from_sessions(&loaded.sessions).render_table());
    if let Some(card) = wildtool_core::generate::card::FactorCounts::from_sessions(&loaded.sessions)
    {
        print!("{}", card.render());
    }
    println!();
    println!(
        "fingerprint                 {}",
        wildtool_core::dataset::fingerprint_hex(&text)
    );
    Ok(ExitCode::SUCCESS)
}
