//! What the integration tests share, in the command line's suite (`tests/it`) and the
//! core's (`crates/core/tests/it`) alike: the repository's files (fixtures, the bundled
//! data), the `wildtool` binary, and scratch directories. Each suite uses part of it.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use wildtool_core::dataset::{load_dataset, Lang, LoadedDataset};

/// The repository's root, whichever crate's tests run.
pub fn root() -> PathBuf {
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    here.ancestors()
        .find(|d| d.join("Cargo.lock").is_file())
        .unwrap_or(here)
        .to_path_buf()
}

/// A file of the repository by its path from the root (`data/suite.jsonl`).
pub fn path(rel: &str) -> PathBuf {
    root().join(rel)
}

/// A test fixture (`tests/fixtures/<rel>`).
pub fn fixture(rel: &str) -> PathBuf {
    root().join("tests/fixtures").join(rel)
}

/// The text of a repository file (path from the root); a missing file fails the test
/// with its name.
#[track_caller]
pub fn read(rel: &str) -> String {
    let p = path(rel);
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// The bytes of a repository file (path from the root).
#[track_caller]
pub fn bytes(rel: &str) -> Vec<u8> {
    let p = path(rel);
    std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// The text of a test fixture (`tests/fixtures/<rel>`).
#[track_caller]
pub fn read_fixture(rel: &str) -> String {
    read(&format!("tests/fixtures/{rel}"))
}

/// The official mini fixture (`tests/fixtures/mini.jsonl`), loaded.
pub fn mini() -> LoadedDataset {
    load_dataset(&read_fixture("mini.jsonl"), Lang::En)
}

/// A command that runs the `wildtool` binary (built for the command line's suite).
// `env!` would not compile in the core's suite, which has no binary and never calls this.
#[allow(clippy::option_env_unwrap)]
pub fn bin() -> Command {
    Command::new(
        option_env!("CARGO_BIN_EXE_wildtool")
            .expect("the wildtool binary is built for the command line's suite"),
    )
}

/// Runs the `wildtool` binary with `args` and waits for it.
#[track_caller]
pub fn wildtool(args: &[&str]) -> Output {
    bin()
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("spawn wildtool: {e}"))
}

/// A fresh, empty scratch directory for one test, named after the calling test file and
/// `name` (so tests running in parallel never share one).
#[track_caller]
pub fn tmp(name: &str) -> PathBuf {
    let file = Path::new(std::panic::Location::caller().file())
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let dir = std::env::temp_dir().join(format!("wildtool-{file}-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    dir
}
