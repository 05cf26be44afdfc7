//! One way to read many files on every core: each file is handed to the next free worker
//! thread (named), its result comes back with its index, progress counts files done, and a
//! cancel stops the workers before their next file.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc;

use super::{Cancelled, Progress};

/// `work` on every file of `files` on up to `threads` worker threads; the results in the
/// files' order. Reports `("files", done, total)` on `progress`; `Err(Cancelled)` when it is
/// cancelled (files under way finish, no new one starts).
pub fn map_files<R: Send>(
    files: &[PathBuf],
    threads: usize,
    progress: Progress<'_>,
    work: impl Fn(&Path) -> R + Sync,
) -> Result<Vec<R>, Cancelled> {
    let n = files.len();
    let mut results: Vec<Option<R>> = (0..n).map(|_| None).collect();
    let next = AtomicUsize::new(0);
    let stop = AtomicBool::new(false);
    let (send, receive) = mpsc::channel();
    std::thread::scope(|scope| {
        let mut started = 0;
        for t in 0..threads.clamp(1, n.max(1)) {
            let send = send.clone();
            let (next, stop, work) = (&next, &stop, &work);
            let spawned = std::thread::Builder::new()
                .name(format!("sightline-files-{t}"))
                .spawn_scoped(scope, move || {
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        if i >= files.len() || stop.load(Ordering::Relaxed) {
                            break;
                        }
                        if send.send((i, work(&files[i]))).is_err() {
                            break;
                        }
                    }
                });
            started += usize::from(spawned.is_ok());
        }
        drop(send);
        if started == 0 {
            // No thread could be started: the files are read here, one after the other.
            for (i, file) in files.iter().enumerate() {
                if progress.is_cancelled() {
                    stop.store(true, Ordering::Relaxed);
                    break;
                }
                results[i] = Some(work(file));
                progress.report("files", i as u64 + 1, n as u64);
            }
            return;
        }
        for (done, (i, result)) in receive.iter().enumerate() {
            results[i] = Some(result);
            progress.report("files", done as u64 + 1, n as u64);
            if progress.is_cancelled() {
                stop.store(true, Ordering::Relaxed);
            }
        }
    });
    if stop.load(Ordering::Relaxed) || results.iter().any(Option::is_none) {
        return Err(Cancelled);
    }
    Ok(results.into_iter().flatten().collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::{CancelFlag, FnSink, Step};

    #[test]
    fn results_come_in_the_files_order_on_any_number_of_threads() {
        let files: Vec<PathBuf> = (0..23).map(|i| PathBuf::from(format!("f{i}"))).collect();
        for threads in [0, 1, 2, 7, 64] {
            let out = map_files(&files, threads, Progress::default(), |p| p.to_path_buf());
            assert_eq!(out.ok().as_deref(), Some(files.as_slice()));
        }
        let none = map_files(&[], 4, Progress::default(), |p| p.to_path_buf());
        assert_eq!(none.ok(), Some(Vec::new()));
    }

    #[test]
    fn progress_counts_files_and_a_cancel_stops() {
        let files: Vec<PathBuf> = (0..10).map(|i| PathBuf::from(format!("f{i}"))).collect();
        let seen = std::sync::Mutex::new(Vec::new());
        let sink =
            FnSink::new(|s: &Step<'_>| seen.lock().map(|mut v| v.push(s.done)).unwrap_or(()));
        let out = map_files(&files, 1, Progress::new(&sink), |_| ());
        assert!(out.is_ok());
        assert_eq!(seen.lock().map(|v| v.len()).unwrap_or(0), 10);
        let cancel = CancelFlag::new();
        cancel.cancel();
        let out = map_files(&files, 2, cancel.progress(), |_| ());
        assert!(out.is_err());
    }
}
