//! Large text files (NVTXT, CodeXL traces) report their progress while they are read, and
//! Cancel stops the reader where it is: nothing of the file is kept.

use std::sync::atomic::{AtomicBool, Ordering};

use sightline::timeline::atp::AtpFile;
use sightline::timeline::nsys::{LoadOptions, Progress};
use sightline::timeline::open::{OpenError, TimelineFileKind, load_timeline};
use sightline::timeline::{WATCH_STEP, nvtxt};
use sightline_test_support::codexl::atp::{AtpSpec, write_atp};

/// An NVTXT file of about `bytes` bytes: markers on one thread.
fn nvtxt_text(bytes: usize) -> String {
    let mut text =
        String::from("TimeBase = Relative\n@Marker, Time, ProcessId, ThreadId, Message\n");
    let mut t = 0u64;
    while text.len() < bytes {
        t += 10;
        text.push_str(&format!("Marker, {t}, 1, 2, \"step {t}\"\n"));
    }
    text
}

#[test]
fn an_nvtxt_file_reports_progress_and_stops_when_cancelled() {
    let text = nvtxt_text(WATCH_STEP * 2 + 1000);
    let total = text.len() as u64;
    let mut seen = Vec::new();
    let mut watch = |done: u64, all: u64| {
        seen.push((done, all));
        true
    };
    let doc = nvtxt::parse_watched("big.nvtxt", text.as_bytes(), &mut watch).expect("read");
    assert_eq!(
        doc.events.len(),
        nvtxt::parse("big.nvtxt", text.as_bytes()).events.len()
    );
    assert_eq!(seen.len(), 3, "{seen:?}");
    assert!(seen.iter().all(|&(_, all)| all == total));
    assert!(
        seen.windows(2)
            .all(|w| w[1].0 >= w[0].0 + WATCH_STEP as u64)
    );
    // Cancelled after the first step: no document.
    let mut calls = 0;
    let mut cancel_second = |_: u64, _: u64| {
        calls += 1;
        calls < 2
    };
    assert!(nvtxt::parse_watched("big.nvtxt", text.as_bytes(), &mut cancel_second).is_none());
    assert_eq!(calls, 2);
}

#[test]
fn a_cancelled_load_of_a_text_timeline_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let nvtxt_path = dir.path().join("big.nvtxt");
    std::fs::write(&nvtxt_path, nvtxt_text(WATCH_STEP + 10)).unwrap();
    let atp_path = dir.path().join("s.atp");
    let mut bytes = Vec::new();
    write_atp(&AtpSpec::default(), &mut bytes).unwrap();
    std::fs::write(&atp_path, &bytes).unwrap();
    for (path, kind) in [
        (&nvtxt_path, TimelineFileKind::Nvtxt),
        (&atp_path, TimelineFileKind::Atp),
    ] {
        let cancel = AtomicBool::new(true);
        let mut reported: Vec<Progress> = Vec::new();
        let mut on_progress = |p: Progress| reported.push(p);
        let options = LoadOptions {
            progress: Some(&mut on_progress),
            cancel: Some(&cancel),
            preview: None,
            first_preview: None,
            read_ahead: None,
        };
        match load_timeline(path, kind, path, options, false) {
            Err(OpenError::Cancelled(p)) => assert_eq!(&p, path),
            other => panic!(
                "{}: {:?}",
                path.display(),
                other.map(|l| l.timeline.event_count())
            ),
        }
        assert_eq!(
            reported.len(),
            1,
            "{}: the first report, then stopped",
            path.display()
        );
        assert_eq!(reported[0].rows_done, 0);
        cancel.store(false, Ordering::Relaxed);
        let options = LoadOptions {
            cancel: Some(&cancel),
            ..LoadOptions::default()
        };
        let loaded = load_timeline(path, kind, path, options, false).unwrap();
        assert!(loaded.timeline.event_count() > 0);
    }
    // The trace reader alone: stopped at once, nothing kept.
    let mut stop = |_: u64, _: u64| false;
    assert!(
        AtpFile::open_watched(&atp_path, &mut stop)
            .unwrap()
            .is_none()
    );
}
