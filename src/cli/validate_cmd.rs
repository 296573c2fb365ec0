//! `wildtool validate` and `wildtool stats`.

use std::path::Path;
use std::process::ExitCode;

use wildtool::checker;
use wildtool::dataset::{Lang, Stats};

use super::files::{read_text, FileError};

/// `wildtool validate FILE`: exit 0 with a summary when valid, 2 with every problem when not.
pub fn validate(path: &Path, lang: Lang, semantic: bool) -> Result<ExitCode, FileError> {
    let text = read_text(path)?;
    let mut loaded = wildtool::protocol::load_checked(&text, lang);
    if semantic {
        let segmenter = checker::default_segmenter();
        let extra = wildtool::protocol::semantic_problems_checked(&loaded, segmenter.as_ref());
        loaded.problems.extend(extra);
        loaded.problems.sort_by_key(|p| p.line);
    }
    let errors = loaded.errors().count();
    for p in &loaded.problems {
        println!("{p}");
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
    let text = read_text(path)?;
    let loaded = wildtool::protocol::load_checked(&text, lang);
    let errors = loaded.errors().count();
    if errors > 0 {
        eprintln!(
            "warning: {} has {errors} error(s); run `wildtool validate` for details",
            path.display()
        );
    }
    print!("{}", Stats::from_sessions(&loaded.sessions).render_table());
    if let Some(card) = wildtool::generate::card::FactorCounts::from_sessions(&loaded.sessions) {
        print!("{}", card.render());
    }
    println!();
    println!(
        "fingerprint                 {}",
        wildtool::dataset::fingerprint_hex(&text)
    );
    Ok(ExitCode::SUCCESS)
}
