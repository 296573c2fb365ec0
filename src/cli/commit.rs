//! The one commit protocol for every output set the CLI writes (see `docs/outputs.md`).
//!
//! A set is written into a fresh staging directory beside its files,
//! `DIR/.wildtool-stage-<pid>-<n>/`, whose open handle the writer holds an exclusive
//! `flock` on for as long as it lives. Once every file is written and fsync'd, the
//! commit record `.commit` (the set's relative names and the names it removes) is
//! written, fsync'd and renamed into the staging directory: that rename is the commit
//! point. The files are then renamed into place, the directory fsync'd and the staging
//! directory removed. Every start of a writer (and every reader of an output directory)
//! first takes the directory's own `flock` and settles it: a staging directory whose
//! writer is dead (its lock can be taken) is rolled forward when it holds a commit
//! record and removed otherwise. A kill, a full disk or a failed rename therefore leaves
//! either the previous set or, after the next start, the new one — never a mix — and no
//! temporary file survives the next start. Readers (`score`, `compare`, `report`, the
//! run's resume) settle a directory before they read it.
//!
//! Outputs are never written through a symbolic link planted in the output directory,
//! onto a directory in the way, or onto one of the command's inputs: each is refused
//! before anything is renamed (exit 2).

use std::fs::{self, File};
use std::io::Write;
use std::path::{Component, Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use rustix::fs::{flock, FlockOperation};

use super::files::{at, FileError};

/// Prefix of staging directories.
pub const STAGE_PREFIX: &str = ".wildtool-stage-";
/// The commit record inside a staging directory.
const RECORD: &str = ".commit";
/// The commit record while it is written.
const RECORD_TEMP: &str = ".commit.tmp";

static COUNTER: AtomicU64 = AtomicU64::new(0);

/// An output refused before anything was written (a symlink, a directory in the way, an
/// input): exit 2.
#[derive(Debug)]
pub struct Refusal(pub String);

impl std::fmt::Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Refusal {}

/// A refusal about `path`.
pub fn refuse(path: &Path, message: impl Into<String>) -> FileError {
    FileError {
        path: path.to_path_buf(),
        source: std::io::Error::new(std::io::ErrorKind::InvalidInput, Refusal(message.into())),
    }
}

/// Whether `e` is a refusal (exit 2) rather than an IO failure (exit 1).
pub fn is_refusal(e: &FileError) -> bool {
    e.source
        .get_ref()
        .is_some_and(|inner| inner.is::<Refusal>())
}

/// The directory's own lock (an `flock` on its handle), held while settling and
/// committing.
struct DirLock(#[allow(dead_code)] File);

fn lock_dir(dir: &Path, exclusive: bool) -> Result<DirLock, FileError> {
    let file = File::open(dir).map_err(at(dir))?;
    let op = if exclusive {
        FlockOperation::LockExclusive
    } else {
        FlockOperation::LockShared
    };
    flock(&file, op).map_err(|e| at(dir)(e.into()))?;
    Ok(DirLock(file))
}

fn sync_dir(dir: &Path) -> Result<(), FileError> {
    File::open(dir).and_then(|f| f.sync_all()).map_err(at(dir))
}

fn sync_file(path: &Path) -> Result<(), FileError> {
    File::open(path)
        .and_then(|f| f.sync_all())
        .map_err(at(path))
}

/// A relative name inside the set: plain components only.
fn check_name(dir: &Path, name: &str) -> Result<(), FileError> {
    let path = Path::new(name);
    let plain = !name.is_empty()
        && path.components().all(|c| matches!(c, Component::Normal(_)))
        && !name.starts_with(STAGE_PREFIX);
    if plain {
        Ok(())
    } else {
        Err(refuse(&dir.join(name), "is not a plain output name"))
    }
}

/// Whether `pid` names a live process (`/proc`; `true` where it cannot be told).
fn alive(pid: u32) -> bool {
    if !Path::new("/proc/self").exists() {
        return true;
    }
    Path::new(&format!("/proc/{pid}")).exists()
}

/// The commit record: names to place, names to remove.
fn record_text(files: &[String], removes: &[String]) -> String {
    serde_json::json!({"wildtool_commit": 1, "files": files, "remove": removes}).to_string()
}

fn parse_record(text: &str) -> Option<(Vec<String>, Vec<String>)> {
    let v: serde_json::Value = serde_json::from_str(text).ok()?;
    let list = |key: &str| -> Option<Vec<String>> {
        v.get(key)?
            .as_array()?
            .iter()
            .map(|s| s.as_str().map(str::to_owned))
            .collect()
    };
    Some((list("files")?, list("remove")?))
}

/// The crash tests widen the window between two renames of a commit
/// (`WILDTOOL_TEST_COMMIT_PAUSE_MS`), so that their kills land inside it often.
fn pause_for_tests() {
    static PAUSE: std::sync::OnceLock<Option<std::time::Duration>> = std::sync::OnceLock::new();
    let pause = PAUSE.get_or_init(|| {
        std::env::var("WILDTOOL_TEST_COMMIT_PAUSE_MS")
            .ok()
            .and_then(|v| v.parse().ok())
            .map(std::time::Duration::from_millis)
    });
    if let Some(p) = pause {
        std::thread::sleep(*p);
    }
}

/// Renames the staged files of a committed set into place and removes what it removes.
fn apply(dir: &Path, stage: &Path, files: &[String], removes: &[String]) -> Result<(), FileError> {
    let mut dirs = vec![dir.to_path_buf()];
    for name in files {
        let from = stage.join(name);
        let to = dir.join(name);
        if fs::symlink_metadata(&from).is_err() {
            continue; // already in place
        }
        if let Some(parent) = to.parent() {
            fs::create_dir_all(parent).map_err(at(parent))?;
            if !dirs.iter().any(|d| d == parent) {
                dirs.push(parent.to_path_buf());
            }
        }
        fs::rename(&from, &to).map_err(at(&to))?;
        pause_for_tests();
    }
    for name in removes {
        let path = dir.join(name);
        match fs::remove_file(&path) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(at(&path)(e)),
        }
    }
    for d in dirs {
        sync_dir(&d)?;
    }
    Ok(())
}

/// Settles one staging directory whose writer is dead: rolled forward when it holds a
/// commit record, removed otherwise. `Ok(false)`: its writer is alive.
fn settle_stage(dir: &Path, stage: &Path) -> Result<bool, FileError> {
    let handle = match File::open(stage) {
        Ok(h) => h,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(true),
        Err(e) => return Err(at(stage)(e)),
    };
    match flock(&handle, FlockOperation::NonBlockingLockExclusive) {
        Ok(()) => {}
        Err(e) if e == rustix::io::Errno::WOULDBLOCK => return Ok(false),
        Err(e) => return Err(at(stage)(e.into())),
    }
    if let Ok(text) = fs::read_to_string(stage.join(RECORD)) {
        if let Some((files, removes)) = parse_record(&text) {
            apply(dir, stage, &files, &removes)?;
        }
    }
    fs::remove_dir_all(stage).map_err(at(stage))?;
    sync_dir(dir)?;
    Ok(true)
}

/// Settles `dir` under its lock (held by the caller): every dead writer's staging
/// directory is rolled forward or removed, and temporaries of older versions
/// (`.NAME.tmp-PID`) of dead processes are removed. Returns the staging directories of
/// live writers still holding a commit record.
fn settle_locked(dir: &Path) -> Result<Vec<PathBuf>, FileError> {
    let mut busy = Vec::new();
    let entries = match fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(busy),
        Err(e) => return Err(at(dir)(e)),
    };
    for entry in entries {
        let entry = entry.map_err(at(dir))?;
        let name = entry.file_name().to_string_lossy().into_owned();
        let path = entry.path();
        if name.starts_with(STAGE_PREFIX) {
            if !settle_stage(dir, &path)? && path.join(RECORD).exists() {
                busy.push(path);
            }
        } else if let Some(pid) = legacy_temp_pid(&name) {
            if !alive(pid) {
                let _ = fs::remove_file(&path);
            }
        }
    }
    Ok(busy)
}

/// The pid of an older version's temporary output (`.NAME.tmp-PID`).
fn legacy_temp_pid(name: &str) -> Option<u32> {
    let rest = name.strip_prefix('.')?;
    let (_, pid) = rest.rsplit_once(".tmp-")?;
    pid.parse().ok()
}

/// Settles an output directory before it is read or written (the "next start"): a
/// set interrupted after its commit point is completed, one interrupted before it is
/// removed, stale temporaries are removed. A missing directory is fine.
pub fn settle(dir: &Path) -> Result<(), FileError> {
    if !dir.is_dir() {
        return Ok(());
    }
    let _lock = lock_dir(dir, true)?;
    settle_locked(dir).map(|_| ())
}

/// Settles an output directory before it is read (a reader is a "next start" too). A
/// directory that cannot be settled (read-only, say) is read as it is when it holds no
/// staging directory, and refused otherwise: it may hold half of a committed set.
pub fn settle_for_reading(dir: &Path) -> Result<(), FileError> {
    if !dir.is_dir() {
        return Ok(());
    }
    let pending = fs::read_dir(dir)
        .map_err(at(dir))?
        .filter_map(Result::ok)
        .any(|e| e.file_name().to_string_lossy().starts_with(STAGE_PREFIX));
    if pending {
        if let Err(e) = settle(dir) {
            return Err(refuse(
                dir,
                format!("holds an unfinished output set that cannot be settled ({}); run wildtool with write access to it first", e.source),
            ));
        }
    }
    Ok(())
}

/// Settles the output directory an input lives in: the directory itself, or a file's
/// parent (see [`settle_for_reading`]).
pub fn settle_input(input: &Path) -> Result<(), FileError> {
    if input.is_dir() {
        return settle_for_reading(input);
    }
    match input.parent().filter(|p| !p.as_os_str().is_empty()) {
        Some(parent) => settle_for_reading(parent),
        None => settle_for_reading(Path::new(".")),
    }
}

/// The canonical form of an existing path (symlinks resolved), or of its parent joined
/// with its name.
fn resolve(path: &Path) -> Option<PathBuf> {
    if let Ok(p) = fs::canonicalize(path) {
        return Some(p);
    }
    let parent = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    Some(fs::canonicalize(parent).ok()?.join(path.file_name()?))
}

/// An output set being written (see the module docs).
pub struct OutputSet {
    dir: PathBuf,
    stage: PathBuf,
    handle: Option<File>,
    files: Vec<String>,
    removes: Vec<String>,
    inputs: Vec<PathBuf>,
}

impl std::fmt::Debug for OutputSet {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OutputSet")
            .field("dir", &self.dir)
            .field("files", &self.files)
            .finish()
    }
}

impl OutputSet {
    /// Starts a set in `dir` (created if missing, then settled). `inputs` are the files
    /// and directories the command reads: no output may be one of them, and `dir` may not
    /// be an input file.
    pub fn begin(dir: &Path, inputs: &[&Path]) -> Result<Self, FileError> {
        let dir = if dir.as_os_str().is_empty() {
            Path::new(".")
        } else {
            dir
        };
        let inputs: Vec<PathBuf> = inputs.iter().filter_map(|p| resolve(p)).collect();
        if let Some(resolved) = resolve(dir) {
            if inputs.contains(&resolved) && !resolved.is_dir() {
                return Err(refuse(
                    dir,
                    "is one of the command's inputs; choose another output",
                ));
            }
        }
        if fs::symlink_metadata(dir).is_ok_and(|m| m.is_file()) {
            return Err(refuse(dir, "is a file, not an output directory"));
        }
        fs::create_dir_all(dir).map_err(at(dir))?;
        let lock = lock_dir(dir, true)?;
        settle_locked(dir)?;
        let stage = dir.join(format!(
            "{STAGE_PREFIX}{}-{}",
            std::process::id(),
            COUNTER.fetch_add(1, Ordering::Relaxed)
        ));
        fs::create_dir(&stage).map_err(at(&stage))?;
        let handle = File::open(&stage).map_err(at(&stage))?;
        flock(&handle, FlockOperation::LockExclusive).map_err(|e| at(&stage)(e.into()))?;
        drop(lock);
        Ok(Self {
            dir: dir.to_path_buf(),
            stage,
            handle: Some(handle),
            files: Vec::new(),
            removes: Vec::new(),
            inputs,
        })
    }

    /// The directory the set is committed to.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Refuses a target that is a symlink, a directory, lies below a symlink or
    /// directory-in-the-way inside the output directory, or is one of the inputs.
    fn check_target(&self, name: &str) -> Result<(), FileError> {
        check_name(&self.dir, name)?;
        let mut path = self.dir.clone();
        let parts: Vec<_> = Path::new(name).components().collect();
        for (i, part) in parts.iter().enumerate() {
            path.push(part);
            let last = i + 1 == parts.len();
            match fs::symlink_metadata(&path) {
                Err(_) => break,
                Ok(m) if m.file_type().is_symlink() => {
                    return Err(refuse(
                        &path,
                        "is a symbolic link; outputs are never written through links (remove it)",
                    ))
                }
                Ok(m) if last && m.is_dir() => {
                    return Err(refuse(
                        &path,
                        "is a directory in the way of an output file (remove it)",
                    ))
                }
                Ok(m) if !last && !m.is_dir() => {
                    return Err(refuse(&path, "is in the way of an output directory"))
                }
                Ok(_) => {}
            }
        }
        let target = self.dir.join(name);
        if let Some(resolved) = resolve(&target) {
            if self.inputs.contains(&resolved) {
                return Err(refuse(
                    &target,
                    "is one of the command's inputs; outputs never overwrite inputs (choose another --out)",
                ));
            }
        }
        Ok(())
    }

    /// Where `name` is staged.
    pub fn staged(&self, name: &str) -> PathBuf {
        self.stage.join(name)
    }

    /// A staged file that becomes `DIR/name` on [`OutputSet::commit`]; its staged path.
    pub fn create(&mut self, name: &str) -> Result<(File, PathBuf), FileError> {
        self.check_target(name)?;
        let path = self.stage.join(name);
        if let Some(parent) = path.parent() {
            fs::create_dir_all(parent).map_err(at(parent))?;
        }
        let file = File::create(&path).map_err(at(&path))?;
        self.removes.retain(|r| r != name);
        if !self.files.iter().any(|f| f == name) {
            self.files.push(name.to_owned());
        }
        Ok((file, path))
    }

    /// Stages `bytes` as `name`.
    pub fn write(&mut self, name: &str, bytes: impl AsRef<[u8]>) -> Result<(), FileError> {
        let (mut file, path) = self.create(name)?;
        file.write_all(bytes.as_ref()).map_err(at(&path))
    }

    /// `DIR/name` is removed on commit (a file of an earlier set this one does not have).
    pub fn remove(&mut self, name: &str) -> Result<(), FileError> {
        self.check_target(name)?;
        if !self.files.iter().any(|f| f == name) && !self.removes.iter().any(|r| r == name) {
            self.removes.push(name.to_owned());
        }
        Ok(())
    }

    /// Makes the whole set visible (see the module docs); the final paths.
    pub fn commit(mut self) -> Result<Vec<PathBuf>, FileError> {
        let mut dirs = vec![self.stage.clone()];
        for name in &self.files {
            let path = self.stage.join(name);
            sync_file(&path)?;
            if let Some(parent) = path.parent() {
                if !dirs.iter().any(|d| d == parent) {
                    dirs.push(parent.to_path_buf());
                }
            }
        }
        for d in dirs.iter().rev() {
            sync_dir(d)?;
        }
        let lock = lock_dir(&self.dir, true)?;
        // Dead writers' sets first, so that none is rolled forward over this one later.
        settle_locked(&self.dir)?;
        for name in self.files.iter().chain(&self.removes) {
            self.check_target(name)?;
        }
        let temp = self.stage.join(RECORD_TEMP);
        let mut record = File::create(&temp).map_err(at(&temp))?;
        record
            .write_all(record_text(&self.files, &self.removes).as_bytes())
            .and_then(|_| record.sync_all())
            .map_err(at(&temp))?;
        drop(record);
        fs::rename(&temp, self.stage.join(RECORD)).map_err(at(&temp))?;
        sync_dir(&self.stage)?;
        // Committed: from here a failure is completed at the next start.
        if let Err(e) = apply(&self.dir, &self.stage, &self.files, &self.removes) {
            // Keep the staging directory (and its lock until exit) for the roll-forward.
            self.handle = None;
            self.files.clear();
            self.stage = PathBuf::new();
            return Err(FileError {
                path: e.path,
                source: std::io::Error::other(format!(
                    "{} (the set is committed; the next wildtool start in this directory completes it)",
                    e.source
                )),
            });
        }
        let stage = std::mem::take(&mut self.stage);
        fs::remove_dir_all(&stage).map_err(at(&stage))?;
        sync_dir(&self.dir)?;
        drop(lock);
        Ok(self.files.iter().map(|n| self.dir.join(n)).collect())
    }
}

impl Drop for OutputSet {
    fn drop(&mut self) {
        if !self.stage.as_os_str().is_empty() {
            let _ = fs::remove_dir_all(&self.stage);
        }
    }
}

/// Refuses, before any work, an output path that is (or resolves through symlinks to) one
/// of `inputs`; the commit checks again, this is only to fail early.
pub fn check_not_input(out: &Path, inputs: &[&Path]) -> Result<(), FileError> {
    let Some(target) = resolve(out) else {
        return Ok(());
    };
    if inputs
        .iter()
        .filter_map(|i| resolve(i))
        .any(|i| i == target)
    {
        return Err(refuse(
            out,
            "is one of the command's inputs; outputs never overwrite inputs (choose another --out)",
        ));
    }
    Ok(())
}

/// The committed paths as one line (for "wrote …" notes).
pub fn listed(paths: &[PathBuf]) -> String {
    paths
        .iter()
        .map(|p| p.display().to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

/// Writes one output file as a set of one in its directory (created if missing).
pub fn write_file(path: &Path, bytes: impl AsRef<[u8]>, inputs: &[&Path]) -> Result<(), FileError> {
    let (dir, name) = split_file(path)?;
    let mut set = OutputSet::begin(dir, inputs)?;
    set.write(&name, bytes)?;
    set.commit().map(|_| ())
}

/// The directory and file name of an output file path.
pub fn split_file(path: &Path) -> Result<(&Path, String), FileError> {
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .ok_or_else(|| refuse(path, "does not name a file"))?;
    Ok((dir, name))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tmp(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("wt-commit-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&d);
        fs::create_dir_all(&d).unwrap();
        d
    }

    fn entries(d: &Path) -> usize {
        fs::read_dir(d).unwrap().count()
    }

    #[test]
    fn a_set_appears_whole_and_leaves_nothing() {
        let d = tmp("whole");
        let mut set = OutputSet::begin(&d, &[]).unwrap();
        set.write("a.json", "1").unwrap();
        set.write("sub/b.json", "2").unwrap();
        set.commit().unwrap();
        assert_eq!(fs::read_to_string(d.join("a.json")).unwrap(), "1");
        assert_eq!(fs::read_to_string(d.join("sub/b.json")).unwrap(), "2");
        assert_eq!(entries(&d), 2);
    }

    #[test]
    fn a_dead_writers_committed_set_is_rolled_forward_and_an_uncommitted_one_dropped() {
        let d = tmp("roll");
        fs::write(d.join("a.json"), "old").unwrap();
        let stage = d.join(format!("{STAGE_PREFIX}999999-0"));
        fs::create_dir(&stage).unwrap();
        fs::write(stage.join("a.json"), "new").unwrap();
        fs::write(stage.join(RECORD), record_text(&["a.json".into()], &[])).unwrap();
        let stage2 = d.join(format!("{STAGE_PREFIX}999999-1"));
        fs::create_dir(&stage2).unwrap();
        fs::write(stage2.join("a.json"), "half").unwrap();
        fs::write(d.join(".a.json.tmp-999999"), "x").unwrap();
        settle(&d).unwrap();
        assert_eq!(fs::read_to_string(d.join("a.json")).unwrap(), "new");
        assert_eq!(entries(&d), 1);
    }

    #[test]
    fn symlinks_directories_and_inputs_are_refused() {
        let d = tmp("refuse");
        let input = d.join("in.jsonl");
        fs::write(&input, "data").unwrap();
        std::os::unix::fs::symlink(&input, d.join("link.json")).unwrap();
        fs::create_dir(d.join("dir.json")).unwrap();
        let mut set = OutputSet::begin(&d, &[&input]).unwrap();
        for name in ["link.json", "dir.json", "in.jsonl", "../x"] {
            let e = set.write(name, "x").unwrap_err();
            assert!(is_refusal(&e), "{name}: {e}");
        }
        drop(set);
        assert_eq!(fs::read_to_string(&input).unwrap(), "data");
    }
}
