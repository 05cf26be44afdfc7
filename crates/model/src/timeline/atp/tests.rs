//! Unit tests of the whole reader on small hand-written traces.

use super::*;

const OPENCL: &str = "TraceFileVersion=3.2\nProfilerVersion=5.2.6553\nApplication=/tmp/app\nEnvVar=A=B=C\n\
=====ocl API Trace Output=====\n7\n3\n\
CL_SUCCESS = clGetPlatformIDs ( 0;NULL;[1] )\n\
CL_SUCCESS = clEnqueueWriteBuffer ( 0x10;0x20;CL_TRUE;0;64;0x30;0;NULL;NULL )\n\
CL_SUCCESS = clEnqueueNDRangeKernel ( 0x10;0x40;1;NULL;[1024];NULL;0;NULL;NULL )\n\
=====ocl Timestamp Output=====\n7\n3\n\
4    clGetPlatformIDs                             100                  200\n\
58   clEnqueueWriteBuffer                         300   400   4562    CL_COMMAND_WRITE_BUFFER   310   320   330   340   1   0x10   1   0x50   Tahiti   64\n\
73   clEnqueueNDRangeKernel                       500   600   4592    CL_COMMAND_NDRANGE_KERNEL 510   520   700   900   1   0x10   1   0x50   Tahiti   0x40   vadd   {1024}   {NULL}\n";

#[test]
fn opencl_calls_commands_and_arguments() {
    let file = AtpFile::from_bytes("t.atp", OPENCL.as_bytes().to_vec());
    let t = &file.trace;
    assert!(t.warnings.is_empty(), "{:?}", t.warnings);
    assert_eq!(t.header.get("EnvVar"), Some("A=B=C"));
    assert_eq!(t.header.trace_file_version(), Some((3, 2)));
    assert_eq!(t.threads.len(), 1);
    let calls = t.thread_calls(&t.threads[0]);
    assert_eq!(calls.len(), 3);
    assert_eq!(t.call_name(&calls[1]), "clEnqueueWriteBuffer");
    assert_eq!((calls[2].start_ns, calls[2].end_ns), (500, 600));
    let line = file.api_line(&calls[1]).unwrap();
    assert_eq!(line.args.len(), 9);
    assert_eq!(t.enqueues.len(), 2);
    let write = &t.enqueues[0];
    assert_eq!(
        (
            write.queued_ns,
            write.submit_ns,
            write.start_ns,
            write.end_ns
        ),
        (310, 320, 330, 340)
    );
    assert_eq!(t.transfer_bytes(write), Some(64));
    assert_eq!(t.names.get(t.queues[write.queue as usize].device), "Tahiti");
    let kernel = t.launch(&t.enqueues[1]).unwrap();
    assert_eq!(t.names.get(kernel.kernel), "vadd");
    assert_eq!(kernel.global.as_slice(), &[1024]);
    assert_eq!(kernel.local, None);
    assert_eq!(t.enqueues[1].call, 2);
    assert_eq!(
        t.command_kinds[t.enqueues[1].kind as usize].name,
        "CL_COMMAND_NDRANGE_KERNEL"
    );
}

#[test]
fn crlf_gives_the_same_trace() {
    let lf = parse_atp(OPENCL.as_bytes());
    let crlf = parse_atp(OPENCL.replace('\n', "\r\n").as_bytes());
    assert!(crlf.warnings.is_empty(), "{:?}", crlf.warnings);
    assert_eq!(lf.enqueues, crlf.enqueues);
    assert_eq!(lf.calls.len(), crlf.calls.len());
}

#[test]
fn hsa_dispatches_copies_markers_and_sources() {
    let text = "TraceFileVersion=3.2\n\
=====CodeXL hsa API Trace Output=====\n9\n2\n\
HSA_STATUS_SUCCESS = hsa_amd_memory_async_copy ( 0x1;{handle=0x2};0x3;{handle=0x4};4096;0;NULL;{handle=0x5} )\n\
hsa_signal_store_relaxed ( {handle=0x5};0 )\n\
=====CodeXL hsa Timestamp Output=====\n9\n2\n\
120 hsa_amd_memory_async_copy 10 20 30 40\n\
77 hsa_signal_store_relaxed 50 60\n\
=====CodeXL hsa Kernel Timestamp Output=====\n2\n\
my&nbsp;kernel 0x99 1000 2000 gfx803 0xA 0 0xB\n\
Z3addPfS_ 0x98 3000 4000 gfx803 0xA 1 0xC\n\
=====Perfmarker Output=====\n9\n4\n\
clBeginPerfMarker outer 5 g\nclBeginPerfMarker inner 6 g\nclEndPerfMarker 7\nclEndPerfMarkerEx 8 outer&nbsp;x g2\n\
=====hsa Stack Trace Output=====\n9\n2\n\
hsa_amd_memory_async_copy main 12 /src/a.cpp\nhsa_signal_store_relaxed 0x401000 0\n";
    let t = parse_atp(text.as_bytes());
    assert!(t.warnings.is_empty(), "{:?}", t.warnings);
    assert_eq!(t.hsa_copies.len(), 1);
    assert_eq!(
        (
            t.hsa_copies[0].start_ns,
            t.hsa_copies[0].end_ns,
            t.hsa_copies[0].bytes
        ),
        (30, 40, Some(4096))
    );
    assert_eq!(t.hsa_dispatches.len(), 2);
    assert_eq!(t.names.get(t.hsa_dispatches[0].kernel), "my kernel");
    assert_eq!(
        mangled_symbol(t.names.get(t.hsa_dispatches[1].kernel)),
        "_Z3addPfS_"
    );
    assert_eq!(t.perfmarkers.len(), 2);
    assert_eq!(
        (
            t.names.get(t.perfmarkers[0].name),
            t.perfmarkers[0].depth,
            t.perfmarkers[0].end()
        ),
        ("outer x", 0, Some(8))
    );
    assert_eq!(
        (t.perfmarkers[1].depth, t.perfmarkers[1].end()),
        (1, Some(7))
    );
    assert_eq!(t.names.get(t.perfmarkers[0].group), "g2");
    let source = t.source_location(&t.threads[0], 0).unwrap();
    assert_eq!(
        (
            t.names.get(source.function),
            source.line,
            source.file.map(|f| t.names.get(f))
        ),
        ("main", 12, Some("/src/a.cpp"))
    );
}

#[test]
fn malformed_lines_warn_with_line_numbers_and_the_rest_loads() {
    let text = "TraceFileVersion=3.2\nbroken header\n\
=====ocl API Trace Output=====\n7\n3\n\
CL_SUCCESS = clA ( 1 )\nCL_SUCCESS = clB ( 2 )\nCL_SUCCESS = clC ( 3 )\n\
=====ocl Timestamp Output=====\n7\n3\n\
1 clA 1 2\nnot a timestamp\n3 clC 5 6\n\
=====Mystery Output=====\nwhatever\n";
    let file = AtpFile::from_bytes("bad.atp", text.as_bytes().to_vec());
    let t = &file.trace;
    let lines: Vec<usize> = t
        .warnings
        .iter()
        .filter_map(|w| w.location.line_number())
        .collect();
    assert_eq!(lines, vec![2, 13, 15], "{:?}", t.warnings);
    assert_eq!(t.calls.len(), 2);
    // The skipped position keeps the pairing: clC still gets its own trace line.
    assert_eq!(file.api_line(&t.calls[1]).unwrap().args, vec!["3"]);
    assert!(file.warning_texts()[0].starts_with("bad.atp:2: "));
}

#[test]
fn oldest_section_names_and_non_utf8() {
    let text = b"TraceFileVersion=1.1\nApplication=C:\\caf\xe9\\app.exe\n\
=====AMD APP Profiler Trace Output=====\n1\n1\nCL_SUCCESS = clFinish ( 0x1\xff )\n\
=====AMD APP Profiler Timestamp Output=====\n1\n1\n9 clFinish 1 2\n";
    let file = AtpFile::from_bytes("old.atp", text.to_vec());
    assert!(file.trace.warnings.is_empty(), "{:?}", file.trace.warnings);
    assert_eq!(
        file.trace.header.get("Application"),
        Some("C:\\café\\app.exe")
    );
    assert_eq!(
        file.api_line(&file.trace.calls[0]).unwrap().args,
        vec!["0x1ÿ"]
    );
}

#[test]
fn garbage_never_panics() {
    for input in [
        &b""[..],
        b"=",
        b"=====",
        b"=====ocl Timestamp Output=====\n1\n99999999999999\n",
        b"\xff\xfe==\n\n",
        b"=====hsa Kernel Timestamp Output=====\nx y z\n",
    ] {
        let _ = parse_atp(input);
    }
}

#[test]
fn records_stay_within_the_timeline_budget() {
    assert_eq!(std::mem::size_of::<ApiCall>(), 24);
    assert_eq!(std::mem::size_of::<EnqueueCommand>(), 48);
    assert_eq!(std::mem::size_of::<Perfmarker>(), 40);
    assert_eq!(std::mem::size_of::<SourceLocation>(), 20);
}

#[test]
fn cancel_stops_the_reader_mid_file() {
    use crate::core::{Cancelled, FnSink, Progress, Step};
    use std::sync::atomic::{AtomicBool, Ordering};

    let mut text = String::from("TraceFileVersion=3.2\n");
    while text.len() < (6 << 20) {
        text.push_str(&format!("EnvVar=VALUE_{}={}\n", text.len(), "x".repeat(80)));
    }
    text.push_str(
        OPENCL
            .split_once("EnvVar=A=B=C\n")
            .map_or("", |(_, rest)| rest),
    );
    let whole = parse_atp_with(text.as_bytes(), Progress::none()).unwrap();
    assert_eq!(whole.calls.len(), 3);
    let cancel = AtomicBool::new(false);
    let mut reports = Vec::new();
    let sink = FnSink::new(|s: &Step<'_>| {
        reports.push(s.done);
        cancel.store(reports.len() == 2, Ordering::Relaxed);
    })
    .with_cancel(&cancel);
    let result = parse_atp_with(text.as_bytes(), Progress::new(&sink));
    assert!(matches!(result, Err(Cancelled)));
    assert_eq!(reports.len(), 2, "{reports:?}");
    assert!(reports[1] >= crate::core::lines::REPORT_EVERY as u64);
    assert!(reports[1] < text.len() as u64, "stopped mid-file");
}
