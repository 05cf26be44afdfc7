//! The README's training-job samples (`fixtures/nsys/gpu_metrics.sqlite`,
//! `fixtures/nsys/nccl_payload.sqlite`) are what `make_nsys_ml` writes and open as the README
//! says: 22 named GPU metric graphs, and NCCL ranges with their payload fields and an Analysis
//! Summary.

use std::process::Command;

use sightline::timeline::Timeline;
use sightline::timeline::nsys;

use crate::common::fixtures;

/// Runs the generator into a temporary folder; returns it.
fn generate() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let status = Command::new(env!("CARGO"))
        .args([
            "run",
            "--quiet",
            "-p",
            "sightline-test-support",
            "--bin",
            "make_nsys_ml",
            "--",
        ])
        .arg(dir.path())
        .status()
        .expect("run make_nsys_ml");
    assert!(status.success(), "make_nsys_ml failed");
    dir
}

#[test]
fn the_training_samples_are_what_the_generator_writes() {
    let dir = generate();
    for name in ["gpu_metrics.sqlite", "nccl_payload.sqlite"] {
        let ours = std::fs::read(dir.path().join(name)).unwrap();
        let committed = std::fs::read(fixtures().join("nsys").join(name)).unwrap();
        assert!(
            ours == committed,
            "fixtures/nsys/{name} differs from what make_nsys_ml writes"
        );
    }
}

#[test]
fn the_gpu_metrics_sample_opens_as_22_graphs() {
    let tl: Timeline = nsys::load(&fixtures().join("nsys/gpu_metrics.sqlite")).unwrap();
    let series = tl.all_counter_series();
    assert_eq!(series.len(), 22);
    assert!(series.iter().all(|(_, s)| s.len() == 600));
    assert!(series.iter().any(|(t, _)| {
        tl.track_path(*t)
            .ends_with("GPU Metrics/GPU Activity/SM Active")
    }));
}

#[test]
fn the_nccl_sample_has_payload_fields_and_a_summary() {
    let tl: Timeline = nsys::load(&fixtures().join("nsys/nccl_payload.sqlite")).unwrap();
    let reduce = crate::nvtx_payload::event_named(&tl, "ncclAllReduce");
    let fields = tl.event_fields(reduce);
    assert!(
        fields.iter().any(|f| f.name == "Message size [bytes]"),
        "{fields:?}"
    );
    // Its NCCL kernels carry their collective's fields.
    let kernel = crate::nvtx_payload::event_named(
        &tl,
        sightline_test_support::nsys_payload::NCCL_ALL_REDUCE_KERNEL,
    );
    assert_eq!(tl.launch_range(kernel), Some(reduce));
    let summary = &tl.session.summary;
    assert!(!summary.capture.is_empty() && !summary.launches.is_empty());
    assert!(!summary.cuda_devices.is_empty() && !summary.files.is_empty());
}
