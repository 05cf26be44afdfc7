//! Large text files (NVTXT, CodeXL traces) report their progress while they are read, and
//! Cancel stops the reader where it is: nothing of the file is kept.

use std::sync::atomic::{AtomicBool, Ordering};

use sightline::core::{Cancelled, FnSink, Progress, REPORT_EVERY as WATCH_STEP, Step};
use sightline::timeline::atp::{AtpError, AtpFile};
use sightline::timeline::nsys::LoadOptions;
use sightline::timeline::{OpenError, TimelineFileKind, load_timeline, nvtxt};
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
    let watch = FnSink::new(|step: &Step<'_>| seen.push((step.done, step.total)));
    let doc = nvtxt::parse_with("big.nvtxt", text.as_bytes(), Progress::new(&watch)).expect("read");
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
    let cancel = AtomicBool::new(false);
    let cancel_second = FnSink::new(|_: &Step<'_>| {
        calls += 1;
        cancel.store(calls >= 2, Ordering::Relaxed);
    })
    .with_cancel(&cancel);
    assert!(matches!(
        nvtxt::parse_with("big.nvtxt", text.as_bytes(), Progress::new(&cancel_second)),
        Err(Cancelled)
    ));
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
        let mut reported: Vec<u64> = Vec::new();
        let on_progress =
            FnSink::new(|step: &Step<'_>| reported.push(step.done)).with_cancel(&cancel);
        let options = LoadOptions {
            progress: Progress::new(&on_progress),
            preview: None,
            first_preview: None,
            read_ahead: None,
        };
        let result = load_timeline(path, kind, path, options, false);
        match result {
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
        assert_eq!(reported[0], 0);
        cancel.store(false, Ordering::Relaxed);
        let options = LoadOptions {
            progress: Progress::new(&cancel),
            ..LoadOptions::default()
        };
        let loaded = load_timeline(path, kind, path, options, false).unwrap();
        assert!(loaded.timeline.event_count() > 0);
    }
    // The trace reader alone: stopped at once, nothing kept.
    let stop = AtomicBool::new(true);
    assert!(matches!(
        AtpFile::open_with(&atp_path, Progress::new(&stop)),
        Err(AtpError::Cancelled(Cancelled))
    ));
}
