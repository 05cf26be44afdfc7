//! The `.atp` reader on the generated traces (`fixtures/codexl/*.atp`, written by
//! `src/codexl/synth`; no real `.atp` file is public): every section-name generation, both
//! APIs, several threads, CRLF, escapes, bytes that are not UTF-8; the reader's counts against
//! the generator's ground truth; malformed lines reported with their line, the rest loaded.

use std::path::{Path, PathBuf};

use sightline::timeline::atp::{
    Api, AtpFile, AtpTrace, CommandPayload, SectionKind, mangled_symbol, parse_atp,
};
use sightline_test_support::codexl::atp::{AtpSpec, AtpTruth, SectionStyle, atp_bytes};
use sightline_test_support::codexl::{LineEnding, atp_fixture_specs, fixture_files};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/codexl")
        .join(name)
}

fn check_against_truth(name: &str, t: &AtpTrace, truth: &AtpTruth) {
    assert!(t.warnings.is_empty(), "{name}: {:?}", t.warnings);
    let calls = |api| {
        t.threads
            .iter()
            .filter(|th| th.api == api)
            .map(|th| th.calls.len() as u64)
            .sum::<u64>()
    };
    assert_eq!(calls(Api::OpenCl), truth.opencl_calls, "{name}");
    assert_eq!(calls(Api::Hsa), truth.hsa_calls, "{name}");
    assert_eq!(t.threads.len() as u64, truth.threads, "{name}");
    assert_eq!(t.enqueues.len() as u64, truth.enqueues, "{name}");
    let kernels = t
        .enqueues
        .iter()
        .filter(|e| matches!(e.payload(), CommandPayload::Kernel(_)))
        .count() as u64;
    assert_eq!(kernels, truth.kernel_enqueues, "{name}");
    let transfers: Vec<u64> = t
        .enqueues
        .iter()
        .filter_map(|e| t.transfer_bytes(e))
        .collect();
    assert_eq!(transfers.len() as u64, truth.transfers, "{name}");
    assert_eq!(
        transfers.iter().sum::<u64>(),
        truth.transfer_bytes,
        "{name}"
    );
    assert_eq!(
        t.hsa_dispatches.len() as u64,
        truth.hsa_dispatches,
        "{name}"
    );
    assert_eq!(t.skipped_packets, truth.skipped_packets, "{name}");
    assert_eq!(t.hsa_copies.len() as u64, truth.hsa_copies, "{name}");
    assert_eq!(t.perfmarkers.len() as u64, truth.perfmarkers, "{name}");
    assert_eq!(
        t.sources
            .iter()
            .map(|s| s.locations.len() as u64)
            .sum::<u64>(),
        truth.source_lines,
        "{name}"
    );
    assert!(
        t.calls.iter().all(|c| c.trace_offset().is_some()),
        "{name}: every call has its trace line"
    );
    assert!(t.calls.iter().all(|c| c.start_ns <= c.end_ns), "{name}");
    assert!(
        t.enqueues.iter().all(|e| e.queued_ns <= e.submit_ns
            && e.submit_ns <= e.start_ns
            && e.start_ns <= e.end_ns),
        "{name}"
    );
}

#[test]
fn committed_fixtures_are_the_generators_output() {
    for (name, bytes) in fixture_files() {
        let committed = std::fs::read(fixture(name)).unwrap_or_else(|e| {
            panic!("{name}: {e} (run `cargo run --example make_codexl -- fixtures`)")
        });
        assert!(
            committed == bytes,
            "{name} differs from the generator: regenerate with `cargo run --example make_codexl -- fixtures`"
        );
    }
}

#[test]
fn every_fixture_loads_with_the_generators_counts() {
    for (name, spec) in atp_fixture_specs() {
        let file = AtpFile::open(&fixture(name)).unwrap();
        let (_, truth) = atp_bytes(&spec);
        check_against_truth(name, &file.trace, &truth);
    }
}

#[test]
fn every_section_generation_and_line_ending() {
    for style in [
        SectionStyle::Current,
        SectionStyle::CodeXlPrefix,
        SectionStyle::AmdAppProfiler,
    ] {
        for line_ending in [LineEnding::Lf, LineEnding::CrLf] {
            for rcp5_kernel_rows in [false, true] {
                let spec = AtpSpec {
                    style,
                    line_ending,
                    opencl_threads: 3,
                    hsa_threads: 2,
                    iterations: 5,
                    rcp5_kernel_rows,
                    ..AtpSpec::default()
                };
                let (bytes, truth) = atp_bytes(&spec);
                let trace = parse_atp(&bytes);
                check_against_truth(
                    &format!("{style:?} {line_ending:?} rcp5={rcp5_kernel_rows}"),
                    &trace,
                    &truth,
                );
                assert!(
                    trace
                        .sections
                        .iter()
                        .all(|s| s.kind != SectionKind::Unknown)
                );
                let prefixed = trace
                    .sections
                    .iter()
                    .filter(|s| s.name.starts_with("CodeXL "))
                    .count();
                assert_eq!(prefixed > 0, style == SectionStyle::CodeXlPrefix);
                let oldest = trace
                    .sections
                    .iter()
                    .any(|s| s.name.starts_with("AMD APP Profiler"));
                assert_eq!(oldest, style == SectionStyle::AmdAppProfiler);
            }
        }
    }
}

#[test]
fn session_trace_field_by_field() {
    let file = AtpFile::open(&fixture("session1.atp")).unwrap();
    let t = &file.trace;
    check_header(t);
    check_sections(t);
    check_first_launch(&file);
    check_markers_and_latin1(&file);
    check_hsa_calls(&file);
    check_kernel_timestamps(t);
    check_perfmarkers(t);
    check_source_code(t);
}

/// The header: versions, a Latin-1 application path, repeated environment variables.
fn check_header(t: &AtpTrace) {
    assert_eq!(t.header.get("TraceFileVersion"), Some("3.2"));
    assert_eq!(
        t.header.get("Application"),
        Some("C:\\Users\\René\\app.exe"),
        "Latin-1 byte kept readable"
    );
    assert_eq!(
        t.header
            .entries
            .iter()
            .filter(|(k, _)| k == "EnvVar")
            .count(),
        2
    );
    assert_eq!(t.header.get("EnvVar"), Some("GPU_MAX_HEAP_SIZE=100"));
}

/// The sections, in file order.
fn check_sections(t: &AtpTrace) {
    let kinds: Vec<SectionKind> = t.sections.iter().map(|s| s.kind).collect();
    assert_eq!(
        kinds,
        vec![
            SectionKind::ApiTrace(Api::OpenCl),
            SectionKind::Timestamp(Api::OpenCl),
            SectionKind::ApiTrace(Api::Hsa),
            SectionKind::Timestamp(Api::Hsa),
            SectionKind::KernelTimestamp,
            SectionKind::Perfmarker,
            SectionKind::SourceCode(Api::OpenCl),
            SectionKind::SourceCode(Api::Hsa),
        ]
    );
}

/// The first OpenCL thread's first kernel launch: its call, command, launch sizes and queue,
/// and the sizes of the next launches.
fn check_first_launch(file: &AtpFile) {
    let t = &file.trace;
    let thread = &t.threads[0];
    assert_eq!((thread.api, thread.thread_id), (Api::OpenCl, 4100));
    let calls = t.thread_calls(thread);
    // Call 11: the first clEnqueueNDRangeKernel (8 set-up calls, then SetKernelArg ×2, write).
    let ndrange = &calls[11];
    assert_eq!(t.call_name(ndrange), "clEnqueueNDRangeKernel");
    assert_eq!(t.api_type_ids[&ndrange.name()], 73);
    let line = file.api_line(ndrange).unwrap();
    assert_eq!(line.return_value.as_deref(), Some("CL_SUCCESS"));
    assert_eq!(line.args.len(), 9);
    assert_eq!(line.args[4], "[1024]");
    let command = t
        .enqueues
        .iter()
        .find(|e| e.call == thread.calls.start + 11)
        .unwrap();
    assert_eq!(
        t.command_kinds[command.kind as usize].name,
        "CL_COMMAND_NDRANGE_KERNEL"
    );
    assert_eq!(t.command_kinds[command.kind as usize].type_id, 4592);
    let launch = t.launch(command).unwrap();
    assert_eq!(t.names.get(launch.kernel), "vadd");
    assert_eq!(launch.kernel_handle, 0x1C60000);
    assert_eq!(launch.global.as_slice(), &[1024]);
    assert_eq!(launch.local.map(|l| l.sizes), Some([64, 1, 1]));
    let queue = &t.queues[command.queue as usize];
    assert_eq!(
        (
            queue.queue_id,
            queue.queue_handle,
            queue.context_id,
            queue.context_handle
        ),
        (1, 0x1C30010, 1, 0x1C2E0A0)
    );
    assert_eq!(t.names.get(queue.device), "Tahiti");
    assert_eq!(command.queued_ns, ndrange.start_ns + 300);
    assert_eq!(command.submit_ns, ndrange.end_ns + 200);
    // The third iteration's launch has a NULL local size, the second is two-dimensional.
    let launches: Vec<_> = t
        .enqueues
        .iter()
        .filter(|e| e.call >= thread.calls.start && e.call < thread.calls.end)
        .filter_map(|e| t.launch(e))
        .collect();
    assert_eq!(launches[1].global.as_slice(), &[2048, 16]);
    assert_eq!(
        launches[1].local.map(|l| l.as_slice().to_vec()),
        Some(vec![64, 4])
    );
    assert_eq!(launches[2].local, None);
}

/// Markers carry no payload; the non-UTF-8 argument reads as Latin-1.
fn check_markers_and_latin1(file: &AtpFile) {
    let t = &file.trace;
    let calls = t.thread_calls(&t.threads[0]);
    assert!(
        t.enqueues.iter().any(
            |e| t.command_kinds[e.kind as usize].name == "CL_COMMAND_MARKER"
                && e.payload() == CommandPayload::None
        )
    );
    assert!(file.api_line(&calls[5]).unwrap().args[2].contains("café"));
}

/// HSA: void calls have no return value; async copies carry their transfer times and size.
fn check_hsa_calls(file: &AtpFile) {
    let t = &file.trace;
    let hsa = t.threads.iter().find(|th| th.api == Api::Hsa).unwrap();
    let hsa_calls = t.thread_calls(hsa);
    let store = hsa_calls
        .iter()
        .find(|c| t.call_name(c) == "hsa_signal_store_relaxed")
        .unwrap();
    assert_eq!(file.api_line(store).unwrap().return_value, None);
    let copy = &t.hsa_copies[0];
    assert_eq!(
        t.call_name(&t.calls[copy.call as usize]),
        "hsa_amd_memory_async_copy"
    );
    // The first copy is call 4 of the thread: 65536 << ((4 / 4) % 3) bytes.
    assert_eq!(copy.bytes, Some(131072));
    assert_eq!(copy.end_ns - copy.start_ns, 131072 / 8);
}

/// Kernel timestamps: escapes undone, HIP symbols restorable, packets located by type.
fn check_kernel_timestamps(t: &AtpTrace) {
    let d = &t.hsa_dispatches[0];
    assert_eq!(t.names.get(d.kernel), "vector add,v2");
    assert_eq!(
        (
            t.names.get(d.agent),
            d.agent_handle,
            d.queue_index,
            d.agent_index,
            d.packet_id
        ),
        ("gfx803", Some(0xA1B2C3), Some(0), Some(1), Some(0))
    );
    assert_eq!(
        mangled_symbol(t.names.get(t.hsa_dispatches[1].kernel)),
        "_Z9transposePfS_ii"
    );
    assert_eq!(t.skipped_packets, 1);
}

/// Perfmarkers: nested per thread, clEndPerfMarkerEx naming the range.
fn check_perfmarkers(t: &AtpTrace) {
    let markers: Vec<_> = t
        .perfmarkers
        .iter()
        .filter(|m| m.thread_id == 4100)
        .collect();
    assert_eq!(
        (
            t.names.get(markers[0].name),
            t.names.get(markers[0].group),
            markers[0].depth
        ),
        ("frame 0", "render loop", 0)
    );
    assert_eq!(
        (t.names.get(markers[1].name), markers[1].depth),
        ("upload", 1)
    );
    assert!(markers[0].start_ns < markers[1].start_ns && markers[1].end_ns < markers[0].end_ns);
    assert_eq!(t.names.get(markers[2].name), "frame 1");
    assert!(t.perfmarkers.iter().all(|m| m.end().is_some()));
}

/// Source code: a path with a space; a thread without debug information.
fn check_source_code(t: &AtpTrace) {
    let thread = &t.threads[0];
    let at = t.source_location(thread, 11).unwrap();
    assert_eq!(
        (
            t.names.get(at.api_name),
            t.names.get(at.function),
            at.line,
            at.file.map(|f| t.names.get(f))
        ),
        (
            "clEnqueueNDRangeKernel",
            "RunBenchmark",
            111,
            Some("/home/user/my project/main.cpp")
        )
    );
    let other = t.source_location(&t.threads[1], 0).unwrap();
    assert_eq!(
        (t.names.get(other.function), other.line, other.file),
        ("0x00401000", 0, None)
    );
}

/// Replaces line `n` (1-based) of a text.
fn replace_line(text: &str, n: usize, with: &str) -> String {
    text.lines()
        .enumerate()
        .map(|(i, l)| if i + 1 == n { with } else { l })
        .collect::<Vec<_>>()
        .join("\n")
        + "\n"
}

#[test]
fn malformed_lines_warn_with_their_line_and_the_rest_loads() {
    let spec = AtpSpec {
        opencl_threads: 2,
        hsa_threads: 1,
        iterations: 3,
        non_utf8: false,
        ..AtpSpec::default()
    };
    let (bytes, truth) = atp_bytes(&spec);
    let text = String::from_utf8(bytes).unwrap();
    let line_of = |needle: &str| text.lines().position(|l| l.starts_with(needle)).unwrap() + 1;
    // A broken timestamp line, a broken enqueue tail, a broken kernel row, an orphan marker end.
    let ts = line_of("=====ocl Timestamp Output=====") + 3;
    let enqueue = text
        .lines()
        .position(|l| l.contains("CL_COMMAND_READ_BUFFER"))
        .unwrap()
        + 1;
    let kernel_row = line_of("=====hsa Kernel Timestamp Output=====") + 2;
    let marker = line_of("=====Perfmarker Output=====") + 3;
    let mut broken = replace_line(&text, ts, " 4  clGetPlatformIDs  notanumber  5");
    let read_line = broken.lines().nth(enqueue - 1).unwrap().to_string();
    let cut: String = read_line
        .split_whitespace()
        .take(8)
        .collect::<Vec<_>>()
        .join(" ");
    broken = replace_line(&broken, enqueue, &cut);
    broken = replace_line(&broken, kernel_row, "kernel 0xZZ 1 2");
    broken = replace_line(&broken, marker, "clFrobnicate 12");
    let file = AtpFile::from_bytes("broken.atp", broken.into_bytes());
    let t = &file.trace;
    let mut lines: Vec<u64> = t
        .warnings
        .iter()
        .map(|w| w.location.line_number().unwrap_or(0) as u64)
        .collect();
    lines.sort();
    // The begin replaced by garbage leaves its end orphaned three lines later.
    assert_eq!(
        lines,
        vec![
            ts as u64,
            enqueue as u64,
            kernel_row as u64,
            marker as u64,
            marker as u64 + 3
        ],
        "{:?}",
        t.warnings
    );
    let texts = file.warning_texts();
    assert!(
        texts
            .iter()
            .any(|w| w.starts_with(&format!("broken.atp:{ts}: "))),
        "{texts:?}"
    );
    // Everything else loaded: one call, one command, one dispatch fewer; pairing kept.
    assert_eq!(
        t.calls.len() as u64,
        truth.opencl_calls + truth.hsa_calls - 1
    );
    assert_eq!(t.enqueues.len() as u64, truth.enqueues - 1);
    assert_eq!(t.hsa_dispatches.len() as u64, truth.hsa_dispatches - 1);
    assert!(t.calls.iter().all(|c| c.trace_offset().is_some()));
    assert!(
        t.calls
            .iter()
            .all(|c| file.api_line(c).unwrap().name == t.call_name(c))
    );
}

#[test]
fn counts_that_lie_and_mismatched_blocks() {
    let text = "TraceFileVersion=3.2\n\
=====ocl API Trace Output=====\n1\n3\nCL_SUCCESS = clA ( )\nCL_SUCCESS = clB ( )\n\
=====ocl Timestamp Output=====\n1\n2\n1 clA 1 2\n2 clX 3 4\n2\n1\n5 clC 7 8\n";
    let t = parse_atp(text.as_bytes());
    assert_eq!(t.calls.len(), 3);
    let messages: Vec<String> = t.warnings.iter().map(ToString::to_string).collect();
    assert!(
        messages.iter().any(|m| m.contains("ended 1 entries short")),
        "{messages:?}"
    );
    assert!(
        messages
            .iter()
            .any(|m| m.contains("\"clB\" in the API trace but \"clX\"")),
        "{messages:?}"
    );
    assert!(
        messages
            .iter()
            .any(|m| m.contains("thread 2: no API trace block")),
        "{messages:?}"
    );
    assert_eq!(
        t.calls[1].trace_offset(),
        None,
        "a mismatched call keeps no arguments"
    );
}

#[test]
fn arbitrary_bytes_never_panic() {
    let (bytes, _) = atp_bytes(&AtpSpec {
        iterations: 2,
        ..AtpSpec::default()
    });
    // Every prefix of a real-looking trace, and byte flips.
    for cut in (0..bytes.len()).step_by(97) {
        let _ = parse_atp(&bytes[..cut]);
    }
    let mut flipped = bytes.clone();
    for i in (0..flipped.len()).step_by(13) {
        flipped[i] = flipped[i].wrapping_add(17);
    }
    let t = parse_atp(&flipped);
    assert!(!t.warnings.is_empty());
}
