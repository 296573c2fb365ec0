//! Bounded concurrency over independent jobs with std threads. Results come back to the
//! calling thread in completion order, so persistence and progress need no locks.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc;

/// Runs `work` over `jobs` on `concurrency` threads; `on_done(index, result)` is called on
/// the calling thread as each job finishes. Jobs not yet started when `cancel` is set are
/// skipped (jobs in flight finish or observe `cancel` themselves).
pub fn run_pool<J, R, W, D>(
    jobs: &[J],
    concurrency: usize,
    cancel: &AtomicBool,
    work: W,
    mut on_done: D,
) where
    J: Sync,
    R: Send,
    W: Fn(&J) -> R + Sync,
    D: FnMut(usize, R),
{
    let next = AtomicUsize::new(0);
    let threads = concurrency.clamp(1, jobs.len().max(1));
    std::thread::scope(|scope| {
        let (tx, rx) = mpsc::channel::<(usize, R)>();
        for _ in 0..threads {
            let tx = tx.clone();
            let next = &next;
            let work = &work;
            scope.spawn(move || loop {
                if cancel.load(Ordering::Relaxed) {
                    break;
                }
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(job) = jobs.get(i) else { break };
                if tx.send((i, work(job))).is_err() {
                    break;
                }
            });
        }
        drop(tx);
        for (i, r) in rx {
            on_done(i, r);
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicUsize;
    use std::time::Duration;

    #[test]
    fn concurrency_is_bounded_and_every_job_runs_once() {
        let jobs: Vec<usize> = (0..40).collect();
        let active = AtomicUsize::new(0);
        let peak = AtomicUsize::new(0);
        let mut seen = Vec::new();
        run_pool(
            &jobs,
            4,
            &AtomicBool::new(false),
            |j| {
                let now = active.fetch_add(1, Ordering::SeqCst) + 1;
                peak.fetch_max(now, Ordering::SeqCst);
                std::thread::sleep(Duration::from_millis(2));
                active.fetch_sub(1, Ordering::SeqCst);
                *j * 2
            },
            |i, r| seen.push((i, r)),
        );
        seen.sort();
        assert_eq!(seen, (0..40).map(|i| (i, i * 2)).collect::<Vec<_>>());
        let p = peak.load(Ordering::SeqCst);
        assert!((2..=4).contains(&p), "peak concurrency {p}");
    }

    #[test]
    fn cancel_skips_jobs_not_started() {
        let cancel = AtomicBool::new(false);
        let mut n = 0;
        run_pool(
            &[1, 2, 3, 4, 5, 6],
            1,
            &cancel,
            |j| {
                if *j == 2 {
                    cancel.store(true, Ordering::SeqCst);
                }
                *j
            },
            |_, _| n += 1,
        );
        assert_eq!(n, 2);
    }
}
