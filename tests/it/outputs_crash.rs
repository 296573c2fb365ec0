//! Crash consistency of the one commit protocol (`src/cli/commit.rs`, docs/outputs.md):
//! for `score`, `compare`, `sweep` and `run`, two different runs A and B write into one
//! output directory and are killed (`kill -9`) at seeded random points; after each kill
//! the directory is settled as the next start settles it, and must then hold exactly
//! one complete set (A's or B's, every file byte for byte or of the same run) or the
//! previous complete set, never a mix, never a truncated file, and no temporary file.
//! Then a full disk (`ulimit -f`) and a failing rename (a directory in the way) each
//! leave the previous set as it was, with a non-zero exit.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::support::{fixture, tmp};
use wildtool_core::json::{loads, Value};

/// Kills per command (the four commands run in parallel tests).
const KILLS: usize = 60;

fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_wildtool")
}

/// How a file of a set is recognised as A's or B's.
#[derive(Clone, Copy)]
enum Kind {
    /// Byte for byte.
    Exact,
    /// A complete JSON document whose `model_name` names the run (it holds times).
    JsonModel,
}

struct Case {
    name: &'static str,
    /// The arguments of A and B, with `{OUT}` for the output directory.
    args: [Vec<String>; 2],
    /// The set's files (relative paths) and how each is recognised.
    files: Vec<(&'static str, Kind)>,
    /// Directories (relative) to settle as the command's next start does.
    dirs: Vec<&'static str>,
    /// Files removed before each start (a run's checkpoint, so that A and B alternate).
    reset: Vec<&'static str>,
}

fn expand(args: &[String], out: &Path) -> Vec<String> {
    args.iter()
        .map(|a| a.replace("{OUT}", &out.display().to_string()))
        .collect()
}

fn s(v: &[&str]) -> Vec<String> {
    v.iter().map(|x| x.to_string()).collect()
}

/// What identifies a file as one run's: its bytes, or its model name (and that it is a
/// complete JSON document).
fn identity(path: &Path, kind: Kind) -> Option<Vec<u8>> {
    let bytes = std::fs::read(path).ok()?;
    match kind {
        Kind::Exact => Some(bytes),
        Kind::JsonModel => {
            let v = loads(std::str::from_utf8(&bytes).ok()?).ok()?;
            let model = v.get("model_name").and_then(Value::as_str)?;
            Some(model.as_bytes().to_vec())
        }
    }
}

fn reset(case: &Case, out: &Path) {
    for r in &case.reset {
        let _ = std::fs::remove_file(out.join(r));
    }
}

fn start(case: &Case, which: usize, out: &Path, pause: bool) -> std::process::Child {
    reset(case, out);
    let mut cmd = Command::new(bin());
    if pause {
        // Widens the window between a commit's renames (the commit's own test hook).
        cmd.env("WILDTOOL_TEST_COMMIT_PAUSE_MS", "15");
    }
    cmd.args(expand(&case.args[which], out))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap_or_else(|e| panic!("spawn: {e}"))
}

/// Runs A and B to completion in their own directories: the reference sets and how long
/// a run takes.
fn references(case: &Case, base: &Path) -> ([Vec<Option<Vec<u8>>>; 2], Duration) {
    let mut longest = Duration::ZERO;
    let mut refs: [Vec<Option<Vec<u8>>>; 2] = [Vec::new(), Vec::new()];
    for (which, set) in refs.iter_mut().enumerate() {
        let dir = base.join(format!("ref-{which}"));
        let t = Instant::now();
        let o = Command::new(bin())
            .args(expand(&case.args[which], &dir))
            .output()
            .unwrap_or_else(|e| panic!("spawn: {e}"));
        longest = longest.max(t.elapsed());
        assert!(
            o.status.success(),
            "{} reference {which}: {}",
            case.name,
            String::from_utf8_lossy(&o.stderr)
        );
        *set = case
            .files
            .iter()
            .map(|(f, k)| identity(&dir.join(f), *k))
            .collect();
        assert!(
            set.iter().all(Option::is_some),
            "{}: reference {which}",
            case.name
        );
    }
    assert_ne!(refs[0], refs[1], "{}: A and B must differ", case.name);
    (refs, longest)
}

/// Settles the directory as the command's next start does.
fn settle(case: &Case, out: &Path) {
    for d in &case.dirs {
        wildtool::cli::commit::settle(&out.join(d))
            .unwrap_or_else(|e| panic!("{}: settle: {e}", case.name));
    }
}

/// Temporary files left anywhere below `dir`.
fn leftovers(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            if name.starts_with(".wildtool-stage-") || name.contains(".tmp") {
                found.push(e.path());
            } else if e.path().is_dir() {
                stack.push(e.path());
            }
        }
    }
    found
}

/// Which reference the directory's set is (`None`: no set yet); panics on a mix, a
/// truncated file or a leftover temporary.
fn which_set(
    case: &Case,
    out: &Path,
    refs: &[Vec<Option<Vec<u8>>>; 2],
    ctx: &str,
) -> Option<usize> {
    let left = leftovers(out);
    assert!(
        left.is_empty(),
        "{} {ctx}: temporaries left: {left:?}",
        case.name
    );
    let now: Vec<Option<Vec<u8>>> = case
        .files
        .iter()
        .map(|(f, k)| identity(&out.join(f), *k))
        .collect();
    if now.iter().all(Option::is_none) {
        return None;
    }
    for (i, r) in refs.iter().enumerate() {
        if &now == r {
            return Some(i);
        }
    }
    let detail: Vec<String> = case
        .files
        .iter()
        .enumerate()
        .map(|(i, (f, _))| {
            let n = now[i].as_ref();
            let tag = match n {
                None => "missing".to_owned(),
                Some(_) if n == refs[0][i].as_ref() => "A".to_owned(),
                Some(_) if n == refs[1][i].as_ref() => "B".to_owned(),
                Some(n) => format!("neither ({} bytes)", n.len()),
            };
            format!("{f}: {tag}")
        })
        .collect();
    panic!("{} {ctx}: a mixed or damaged set: {detail:?}", case.name);
}

/// A small seeded generator (xorshift).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

/// Runs A (0) or B (1) into `out` to its end, which must be a success.
fn run_to_end(case: &Case, which: usize, out: &Path) {
    reset(case, out);
    let o = Command::new(bin())
        .args(expand(&case.args[which], out))
        .output()
        .unwrap_or_else(|e| panic!("spawn: {e}"));
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

fn crash_series(case: &Case, seed: u64) {
    let base = tmp(case.name);
    let (refs, longest) = references(case, &base);
    let out = base.join("out");
    let mut rng = Rng(seed | 1);
    let mut last: Option<usize> = None;
    let mut completed = 0;
    let started = Instant::now();
    for i in 0..KILLS {
        let which = (rng.next() % 2) as usize;
        let pause = i % 2 == 1;
        // Anywhere in the run, with more weight on its end (where the set is committed).
        let span = longest.as_micros() as u64 + 1 + if pause { 60_000 } else { 0 };
        let at = if rng.next() % 2 == 0 {
            rng.next() % span
        } else {
            span / 2 + rng.next() % (span / 2 + 1)
        } * 3
            / 4;
        let mut child = start(case, which, &out, pause);
        std::thread::sleep(Duration::from_micros(at));
        let finished = child.try_wait().ok().flatten();
        let _ = child.kill();
        let status = child.wait().unwrap_or_else(|e| panic!("wait: {e}"));
        let ok = finished.is_some_and(|s| s.success()) || status.success();
        settle(case, &out);
        let now = which_set(case, &out, &refs, &format!("kill {i} (run {which})"));
        if ok {
            completed += 1;
            assert_eq!(
                now,
                Some(which),
                "{} kill {i}: a finished run's set",
                case.name
            );
        } else {
            assert!(
                now == last || now == Some(which),
                "{} kill {i}: neither the previous set ({last:?}) nor the new one ({which}): {now:?}",
                case.name
            );
        }
        last = now;
    }
    eprintln!(
        "{}: {KILLS} kills in {:.1}s ({completed} runs finished before their kill; one run takes up to {:.0} ms)",
        case.name,
        started.elapsed().as_secs_f64(),
        longest.as_secs_f64() * 1000.0
    );

    // A full disk: the previous set stays, whatever the limit.
    run_to_end(case, 0, &out);
    for blocks in [1, 8, 64, 200] {
        reset(case, &out);
        let line = format!("ulimit -f {blocks}; exec \"$0\" \"$@\"",);
        let o = Command::new("sh")
            .arg("-c")
            .arg(line)
            .arg(bin())
            .args(expand(&case.args[1], &out))
            .output()
            .unwrap_or_else(|e| panic!("spawn: {e}"));
        settle(case, &out);
        let now = which_set(case, &out, &refs, &format!("ulimit -f {blocks}"));
        if o.status.success() {
            assert_eq!(now, Some(1), "{} ulimit -f {blocks}", case.name);
        } else {
            assert_eq!(now, Some(0), "{} ulimit -f {blocks}", case.name);
        }
        // Back to A for the next limit.
        run_to_end(case, 0, &out);
    }

    // A failing rename: a directory where the last file of the set goes.
    let (victim, _) = case.files[case.files.len() - 1];
    let victim = out.join(victim);
    let _ = std::fs::remove_file(&victim);
    std::fs::create_dir_all(victim.join("in-the-way")).unwrap_or_else(|e| panic!("{e}"));
    reset(case, &out);
    let o = Command::new(bin())
        .args(expand(&case.args[1], &out))
        .output()
        .unwrap_or_else(|e| panic!("spawn: {e}"));
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{}: {err}", case.name);
    assert!(
        err.contains("a directory in the way"),
        "{}: {err}",
        case.name
    );
    settle(case, &out);
    assert!(leftovers(&out).is_empty(), "{}", case.name);
    for ((f, k), r) in case.files.iter().zip(&refs[0]).take(case.files.len() - 1) {
        assert_eq!(
            &identity(&out.join(f), *k),
            r,
            "{}: {f} after a failed rename",
            case.name
        );
    }
    let _ = std::fs::remove_dir_all(&base);
}

/// The files of a run's set and how each is recognised.
fn run_files() -> Vec<(&'static str, Kind)> {
    vec![
        ("result.jsonl", Kind::Exact),
        ("score.jsonl", Kind::Exact),
        ("metric.json", Kind::Exact),
        ("report.json", Kind::JsonModel),
        ("run.json", Kind::JsonModel),
    ]
}

/// The arguments of the sweep both sweep tests run (`out`: `{OUT}` or a directory).
fn sweep_args(provider: &str, out: &str) -> Vec<String> {
    s(&[
        "sweep",
        "--factor",
        "transitions=0,1",
        "--per-level",
        "4",
        "--seed",
        "3",
        "--provider",
        provider,
        "--out",
        out,
    ])
}

fn mini() -> String {
    fixture("mini.jsonl").display().to_string()
}

fn official(seed: u32) -> String {
    fixture(&format!("official-runs/mock-seed-{seed}/mini_result.jsonl"))
        .display()
        .to_string()
}

#[test]
fn score_sets_survive_kills_full_disks_and_failed_renames() {
    let score = |seed: u32| {
        s(&[
            "score",
            "--dataset",
            &mini(),
            "--results",
            &official(seed),
            "--out",
            "{OUT}",
        ])
    };
    crash_series(
        &Case {
            name: "score",
            args: [score(0), score(5)],
            files: vec![
                ("score.jsonl", Kind::Exact),
                ("metric.json", Kind::Exact),
                ("report.json", Kind::Exact),
            ],
            dirs: vec![""],
            reset: vec![],
        },
        17,
    );
}

#[test]
fn compare_sets_survive_kills_full_disks_and_failed_renames() {
    let compare = |a: u32, b: u32| {
        s(&[
            "compare",
            &official(a),
            &official(b),
            "--dataset",
            &mini(),
            "--out",
            "{OUT}",
        ])
    };
    crash_series(
        &Case {
            name: "compare",
            args: [compare(0, 5), compare(5, 0)],
            files: vec![("compare.json", Kind::Exact), ("compare.html", Kind::Exact)],
            dirs: vec![""],
            reset: vec![],
        },
        29,
    );
}

#[test]
fn run_sets_survive_kills_full_disks_and_failed_renames() {
    let run = |provider: &str| {
        s(&[
            "run",
            "--dataset",
            &mini(),
            "--provider",
            provider,
            "--out",
            "{OUT}",
        ])
    };
    crash_series(
        &Case {
            name: "run",
            args: [run("gold"), run("baseline")],
            files: run_files(),
            dirs: vec![""],
            reset: vec!["checkpoint.jsonl"],
        },
        41,
    );
}

#[test]
fn sweep_sets_survive_kills_full_disks_and_failed_renames() {
    let sweep = |provider: &str| sweep_args(provider, "{OUT}");
    // Each level's directory is a run's set of its own; the sweep's set is its two files.
    // Checked as one: the sweep's files are committed after its levels, so they are A's
    // or B's only with levels of the same run or of the run before.
    crash_series(
        &Case {
            name: "sweep",
            args: [sweep("gold"), sweep("baseline")],
            files: vec![("sweep.json", Kind::Exact), ("sweep.html", Kind::Exact)],
            dirs: vec!["", "level-0", "level-1"],
            reset: vec!["level-0/checkpoint.jsonl", "level-1/checkpoint.jsonl"],
        },
        53,
    );
}

#[test]
fn sweep_levels_are_whole_sets_after_kills() {
    let base = tmp("sweep-levels");
    let out = base.join("out");
    let sweep = |provider: &str| sweep_args(provider, &out.display().to_string());
    let level_case = |level: &'static str| Case {
        name: level,
        args: [Vec::new(), Vec::new()],
        files: run_files(),
        dirs: vec![""],
        reset: vec![],
    };
    // References: each level's files of a gold and of a baseline sweep.
    let mut refs = Vec::new();
    for (i, p) in ["gold", "baseline"].iter().enumerate() {
        let dir = base.join(format!("ref-{i}"));
        let args: Vec<String> = sweep(p)
            .into_iter()
            .map(|a| {
                if a == out.display().to_string() {
                    dir.display().to_string()
                } else {
                    a
                }
            })
            .collect();
        let o = Command::new(bin())
            .args(&args)
            .output()
            .unwrap_or_else(|e| panic!("{e}"));
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        refs.push(dir);
    }
    let mut rng = Rng(97);
    for i in 0..KILLS / 3 {
        let which = (rng.next() % 2) as usize;
        for l in ["level-0", "level-1"] {
            let _ = std::fs::remove_file(out.join(l).join("checkpoint.jsonl"));
        }
        let mut child = Command::new(bin())
            .args(sweep(["gold", "baseline"][which]))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("{e}"));
        std::thread::sleep(Duration::from_micros(rng.next() % 400_000));
        let _ = child.kill();
        let _ = child.wait();
        for level in ["level-0", "level-1"] {
            let case = level_case(level);
            let dir = out.join(level);
            settle(&case, &dir);
            let r: [Vec<Option<Vec<u8>>>; 2] = [0, 1].map(|k| {
                case.files
                    .iter()
                    .map(|(f, kind)| identity(&refs[k].join(level).join(f), *kind))
                    .collect()
            });
            which_set(&case, &dir, &r, &format!("kill {i}"));
        }
    }
    let _ = std::fs::remove_dir_all(&base);
}
