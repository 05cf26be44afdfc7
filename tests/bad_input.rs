//! Damaged, hostile and foreign input: every failure class of the report reader, checked
//! through the library (`Report::open`, `Report::from_bytes`, `Report::action`, `write_dump`)
//! and through the `sightline` binary (exit code and stderr format).
//!
//! The bad inputs are built here, byte by byte, from a minimal valid container; only
//! `corpus_reports_survive_truncation_and_byte_flips` reads the shared corpus, and it skips with
//! a message when `../shared` is absent.
#![allow(clippy::unwrap_used, clippy::expect_used)] // Test code: a failed unwrap is a failed test.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use bytes::Bytes;
use prost::Message;
use sightline::ncu::{
    Action, DumpOptions, MAGIC, Metric, MetricValue, NameBase, ReadError, Report, write_dump,
};
use sightline::problem::Location;
use sightline::proto::nv::nvtx::{NvtxDomainInfo, NvtxState};
use sightline::proto::nv::profiler::messages as pb;
use sightline::proto::nv::rule_system::{
    RuleResult, RuleResultBody, RuleResultBodyItem, RuleResultFocusMetric, RuleResultMessage,
};
use sightline_test_support::par::map_all_on_every_core;

// ---------------------------------------------------------------------------------------------
// Largest single allocation, per thread (tests run on parallel threads).

/// The system allocator, recording the largest single request of the current thread.
struct LargestAllocation;

thread_local! {
    static LARGEST: Cell<usize> = const { Cell::new(0) };
}

fn note_allocation(size: usize) {
    let _ = LARGEST.try_with(|largest| largest.set(largest.get().max(size)));
}

// SAFETY: every call is forwarded unchanged to `System`; the bookkeeping touches only a
// `const`-initialised thread-local `Cell`, which never allocates.
unsafe impl GlobalAlloc for LargestAllocation {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        note_allocation(layout.size());
        // SAFETY: forwarded with the caller's guarantees.
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        note_allocation(layout.size());
        // SAFETY: forwarded with the caller's guarantees.
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        note_allocation(new_size);
        // SAFETY: forwarded with the caller's guarantees.
        unsafe { System.realloc(ptr, layout, new_size) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: forwarded with the caller's guarantees.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static ALLOCATOR: LargestAllocation = LargestAllocation;

/// Runs `f` and returns its result with the largest single allocation it made on this thread.
fn largest_allocation_of<T>(f: impl FnOnce() -> T) -> (T, usize) {
    LARGEST.with(|largest| largest.set(0));
    let result = f();
    (result, LARGEST.with(Cell::get))
}

const MIB: usize = 1 << 20;

// ---------------------------------------------------------------------------------------------
// A minimal container, built by hand.

/// `FileHeader { Version: 7 }` as protobuf.
const FILE_HEADER: [u8; 2] = [0x08, 0x07];
/// The first bytes of a zstd frame.
const ZSTD_MAGIC: [u8; 4] = [0x28, 0xb5, 0x2f, 0xfd];
/// The name of string 0 in every container built here.
const METRIC: &str = "gpu__time_duration.sum";

/// `u32 little-endian length | message`.
fn framed(message: &[u8]) -> Vec<u8> {
    let mut out = u32::try_from(message.len())
        .expect("test message under 4 GiB")
        .to_le_bytes()
        .to_vec();
    out.extend_from_slice(message);
    out
}

/// A `ProfileResult` named `name` with one UINT64 metric (string `name_id`).
fn kernel_message(name: &str, name_id: u32, value: u64) -> pb::ProfileResult {
    pb::ProfileResult {
        kernel_function_name: name.to_owned(),
        kernel_mangled_name: format!("_Z{}{name}v", name.len()),
        kernel_demangled_name: format!("{name}()"),
        metric_results: vec![pb::ProfileMetricResult {
            name_id,
            metric_value: Some(pb::ProfileMetricValue {
                uint64_value: Some(value),
                ..Default::default()
            }),
            ..Default::default()
        }],
        ..Default::default()
    }
}

fn kernel(name: &str, value: u64) -> Vec<u8> {
    kernel_message(name, 0, value).encode_to_vec()
}

/// A report being built, with the offsets of its parts.
struct Container {
    bytes: Vec<u8>,
    /// Offset of each block's header length prefix.
    blocks: Vec<usize>,
    /// Offset of each block's payload.
    payloads: Vec<usize>,
    /// Offset of each result's first byte (after its length prefix).
    results: Vec<usize>,
}

impl Container {
    fn new() -> Container {
        let mut bytes = MAGIC.to_vec();
        bytes.extend(framed(&FILE_HEADER));
        Container {
            bytes,
            blocks: Vec::new(),
            payloads: Vec::new(),
            results: Vec::new(),
        }
    }

    /// Appends a block defining `strings` and holding `results` (encoded `ProfileResult`s).
    fn block(mut self, strings: &[&str], results: &[Vec<u8>]) -> Container {
        let payload: Vec<u8> = results.iter().flat_map(|r| framed(r)).collect();
        let header = pb::BlockHeader {
            num_results: Some(results.len() as u32),
            payload_size: Some(payload.len() as u32),
            string_table: (!strings.is_empty()).then(|| pb::ProfilerStringTable {
                strings: strings.iter().map(|s| (*s).to_owned()).collect(),
            }),
            ..Default::default()
        };
        self.blocks.push(self.bytes.len());
        self.bytes.extend(framed(&header.encode_to_vec()));
        let mut pos = self.bytes.len();
        self.payloads.push(pos);
        for result in results {
            self.results.push(pos + 4);
            pos += 4 + result.len();
        }
        self.bytes.extend(payload);
        self
    }
}

/// One block with one kernel (`first_kernel`, metric = 1234).
fn one_kernel() -> Container {
    Container::new().block(&[METRIC], &[kernel("first_kernel", 1234)])
}

/// Two blocks with one kernel each (`first_kernel` = 1234, `second_kernel` = 5678).
fn two_kernels() -> Container {
    one_kernel().block(&[], &[kernel("second_kernel", 5678)])
}

/// One block whose only result is `result`.
fn with_result(result: Vec<u8>) -> Container {
    Container::new().block(&[METRIC], &[result])
}

// ---------------------------------------------------------------------------------------------
// Helpers.

/// A temporary folder holding one file; keep the folder alive while the path is used.
fn temp_file(name: &str, contents: &[u8]) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().expect("temporary folder");
    let path = dir.path().join(name);
    std::fs::write(&path, contents).expect("write the test input");
    (dir, path)
}

/// The offset and message of a format error, after checking that its text names the file and
/// the byte as `PATH: byte OFFSET: MESSAGE`.
fn format_error(error: &ReadError, path: &Path) -> (u64, String) {
    match error {
        ReadError::Format {
            path: error_path,
            offset,
            message,
        } => {
            assert_eq!(error_path, path, "the error names the file");
            assert_eq!(
                error.to_string(),
                format!("{}: byte {offset}: {message}", path.display())
            );
            (*offset, message.clone())
        }
        ReadError::Io { .. } => panic!("expected a format error, got {error}"),
    }
}

/// `Report::from_bytes` on `bytes`, expecting a format error.
fn bytes_error(bytes: &[u8]) -> (u64, String) {
    let path = Path::new("test.ncu-rep");
    match Report::from_bytes(path, Bytes::copy_from_slice(bytes)) {
        Ok(report) => panic!(
            "expected an error, opened {} action(s)",
            report.num_actions()
        ),
        Err(error) => format_error(&error, path),
    }
}

/// `Report::open` on a file holding `bytes`, expecting a format error.
fn file_error(name: &str, bytes: &[u8]) -> (u64, String) {
    let (_dir, path) = temp_file(name, bytes);
    match Report::open(&path) {
        Ok(report) => panic!(
            "expected an error, opened {} action(s)",
            report.num_actions()
        ),
        Err(error) => format_error(&error, &path),
    }
}

/// Opens `bytes`, expecting success.
fn open_bytes(bytes: &[u8]) -> Report {
    Report::from_bytes("test.ncu-rep", Bytes::copy_from_slice(bytes))
        .unwrap_or_else(|e| panic!("expected the report to open: {e}"))
}

/// The UINT64 value of the only metric of `report`'s action `index`.
fn metric_value(report: &Report, index: usize) -> u64 {
    let action = report.action(index).expect("action decodes");
    match action.metric(METRIC).map(|m| m.value()) {
        Some(MetricValue::Uint64(v)) => v,
        other => panic!("unexpected metric value {other:?}"),
    }
}

/// Runs `sightline dump ARGS...`.
fn sightline_dump(path: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_sightline"))
        .arg("dump")
        .arg(path)
        .output()
        .expect("run the sightline binary")
}

/// Checks that the CLI failed with exit code 2 and exactly `sightline: error: EXPECTED`.
fn assert_cli_error(output: &Output, expected: &str) {
    assert_eq!(
        output.status.code(),
        Some(2),
        "exit code; stderr: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert_eq!(
        String::from_utf8_lossy(&output.stderr),
        format!("sightline: error: {expected}\n")
    );
}

// ---------------------------------------------------------------------------------------------
// Not a report at all.

#[test]
fn empty_file_is_an_error_at_byte_0() {
    let message = "empty file, not an Nsight Compute report";
    assert_eq!(file_error("empty.ncu-rep", b""), (0, message.to_owned()));
    assert_eq!(bytes_error(b""), (0, message.to_owned()));
}

#[test]
fn binary_file_without_the_magic_is_rejected() {
    let message = "not an Nsight Compute report (no \"NVR\\0\" magic)";
    let elf = b"\x7fELF\x02\x01\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x03\x00\x3e\x00";
    assert_eq!(file_error("a.out.ncu-rep", elf), (0, message.to_owned()));
    // Almost the magic: the fourth byte is wrong.
    assert_eq!(
        bytes_error(b"NVR\x01\x02\x00\x00\x00\x08\x07"),
        (0, message.to_owned())
    );
    // A PNG, and random-looking bytes.
    assert_eq!(
        bytes_error(b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR"),
        (0, message.to_owned())
    );
    assert_eq!(bytes_error(&[0xff; 3]), (0, message.to_owned()));
}

#[test]
fn text_file_is_named_as_text() {
    let message = "a text file, not an Nsight Compute report (no \"NVR\\0\" magic)";
    let csv =
        b"\"ID\",\"Kernel Name\",\"Metric Name\",\"Metric Value\"\n\"0\",\"vec_add\",\"x\",\"1\"\n";
    assert_eq!(file_error("export.ncu-rep", csv), (0, message.to_owned()));
    // The magic's first three bytes without the NUL are still text.
    assert_eq!(bytes_error(b"NVR"), (0, message.to_owned()));
}

#[test]
fn directory_is_an_io_error() {
    let dir = tempfile::tempdir().expect("temporary folder");
    let error = Report::open(dir.path()).expect_err("a directory is not a report");
    match &error {
        ReadError::Io { path, .. } => assert_eq!(path, dir.path()),
        ReadError::Format { .. } => panic!("expected an io error, got {error}"),
    }
    assert_eq!(
        error.to_string(),
        format!(
            "{}: is a directory, not a report file",
            dir.path().display()
        )
    );
}

#[test]
fn nonexistent_path_is_an_io_error() {
    let dir = tempfile::tempdir().expect("temporary folder");
    let path = dir.path().join("missing.ncu-rep");
    let error = Report::open(&path).expect_err("no such file");
    match &error {
        ReadError::Io {
            path: p,
            error: source,
        } => {
            assert_eq!(p, &path);
            assert_eq!(source.kind(), std::io::ErrorKind::NotFound);
        }
        ReadError::Format { .. } => panic!("expected an io error, got {error}"),
    }
    let text = error.to_string();
    assert!(text.starts_with(&format!("{}: ", path.display())), "{text}");
    assert!(!text.contains("byte "), "{text}");
}

// ---------------------------------------------------------------------------------------------
// Truncated files.

#[test]
fn the_minimal_container_is_valid() {
    let c = two_kernels();
    let report = open_bytes(&c.bytes);
    assert_eq!(report.version(), 7);
    assert_eq!(report.num_actions(), 2);
    assert!(report.warnings().is_empty(), "{:?}", report.warnings());
    assert_eq!(report.strings(), [METRIC]);
    let first = report.action(0).expect("action 0");
    assert_eq!(first.name(NameBase::Function), "first_kernel");
    assert_eq!(first.name(NameBase::Demangled), "first_kernel()");
    assert_eq!(metric_value(&report, 0), 1234);
    assert_eq!(metric_value(&report, 1), 5678);
    let mut out = Vec::new();
    write_dump(&report, &DumpOptions::default(), &mut out).expect("dump");
    let json: serde_json::Value = serde_json::from_slice(&out).expect("dump is JSON");
    assert_eq!(json["ranges"][0]["actions"][1]["name"], "second_kernel");
}

#[test]
fn truncated_inside_the_file_header() {
    let c = one_kernel();
    // Inside the magic: what is left is not a report (the first three bytes are text).
    for cut in 1..4 {
        let (offset, message) = bytes_error(&c.bytes[..cut]);
        assert_eq!(offset, 0);
        assert!(
            message.contains("no \"NVR\\0\" magic"),
            "cut {cut}: {message}"
        );
    }
    // Inside the header's length prefix.
    for cut in 4..8 {
        assert_eq!(
            bytes_error(&c.bytes[..cut]),
            (
                4,
                format!(
                    "truncated file header: {} byte(s) left, need a 4-byte length",
                    cut - 4
                )
            )
        );
    }
    // Inside the header message.
    assert_eq!(
        bytes_error(&c.bytes[..9]),
        (
            4,
            "truncated file header: length 2 but only 1 byte(s) left".to_owned()
        )
    );
    let (offset, message) = file_error("cut.ncu-rep", &c.bytes[..9]);
    assert_eq!(offset, 4);
    assert!(message.starts_with("truncated file header"), "{message}");
}

#[test]
fn truncated_inside_the_first_result_is_an_error() {
    let c = one_kernel();
    let payload = c.payloads[0];
    let result = c.results[0];
    let payload_size = c.bytes.len() - payload;
    for cut in [result - 2, result, result + 3, c.bytes.len() - 1] {
        assert_eq!(
            bytes_error(&c.bytes[..cut]),
            (
                payload as u64,
                format!(
                    "truncated block: payload of {payload_size} bytes but only {} remain",
                    cut - payload
                )
            ),
            "cut at {cut}"
        );
    }
    // Inside the first block's header.
    let block = c.blocks[0];
    let (offset, message) = bytes_error(&c.bytes[..block + 6]);
    assert_eq!(offset, block as u64);
    assert!(
        message.starts_with("truncated block header: length "),
        "{message}"
    );
    // Through a file, too.
    let (offset, _) = file_error("cut.ncu-rep", &c.bytes[..result + 3]);
    assert_eq!(offset, payload as u64);
}

#[test]
fn truncated_in_a_later_block_keeps_the_complete_results() {
    let c = two_kernels();
    let second_block = c.blocks[1];
    let second_payload = c.payloads[1];
    let cases = [
        // (cut, offset of the warning, start of its message)
        (
            c.results[1] + 5,
            second_payload,
            "truncated block: payload of ",
        ),
        (
            second_payload + 1,
            second_payload,
            "truncated block: payload of ",
        ),
        (
            second_block + 6,
            second_block,
            "truncated block header: length ",
        ),
        (
            second_block + 2,
            second_block,
            "truncated block header: 2 byte(s) left, need a 4-byte length",
        ),
    ];
    for (cut, offset, start) in cases {
        let (_dir, path) = temp_file("partial.ncu-rep", &c.bytes[..cut]);
        let report = Report::open(&path).unwrap_or_else(|e| panic!("cut {cut}: {e}"));
        assert_eq!(report.num_actions(), 1, "cut {cut}");
        assert_eq!(
            report.action(0).expect("action 0").name(NameBase::Function),
            "first_kernel"
        );
        assert_eq!(metric_value(&report, 0), 1234);
        assert!(report.action(1).is_err(), "only one action is readable");
        let warnings = report.warnings();
        assert_eq!(warnings.len(), 1, "cut {cut}: {warnings:?}");
        assert_eq!(
            warnings[0].location,
            Location::Byte(offset as u64),
            "cut {cut}"
        );
        let message = &warnings[0].message;
        assert!(message.starts_with(start), "cut {cut}: {message}");
        assert!(
            message.ends_with(&format!(
                "; block 1 (from byte {second_block}) and the rest of the file were skipped, \
                 1 result(s) before it are readable"
            )),
            "cut {cut}: {message}"
        );
        // The dump holds the readable kernel.
        let mut out = Vec::new();
        write_dump(&report, &DumpOptions::default(), &mut out).expect("dump");
        let json: serde_json::Value = serde_json::from_slice(&out).expect("dump is JSON");
        let actions = json["ranges"][0]["actions"].as_array().expect("actions");
        assert_eq!(actions.len(), 1);
        assert_eq!(actions[0]["name"], "first_kernel");
    }
}

// ---------------------------------------------------------------------------------------------
// Corrupt protobuf inside a result: the report opens (results are decoded on demand) and the
// action fails with the absolute byte offset of the damage.

/// Opens `c`, checks that action 0 fails with `(offset, message)` through `action` and through
/// `write_dump`, and returns the report.
fn assert_action_error(c: &Container, offset: usize, message: &str) -> Report {
    let report = open_bytes(&c.bytes);
    assert_eq!(report.num_actions(), 1);
    let error = report.action(0).expect_err("corrupt result");
    assert_eq!(
        format_error(&error, Path::new("test.ncu-rep")),
        (offset as u64, message.to_owned())
    );
    let dump_error = write_dump(&report, &DumpOptions::default(), std::io::sink())
        .expect_err("dumping a corrupt result fails");
    assert_eq!(dump_error.to_string(), error.to_string());
    report
}

#[test]
fn invalid_wire_type_in_a_result() {
    let valid = kernel("k", 1);
    let mut result = valid.clone();
    result.push(0x0b); // field 1, wire type 3 (groups are not supported)
    let c = with_result(result);
    assert_action_error(&c, c.results[0] + valid.len(), "unsupported wire type");
    // Wire types 6 and 7 do not exist.
    for key in [0x0e, 0x0f] {
        let mut result = valid.clone();
        result.push(key);
        let c = with_result(result);
        assert_action_error(&c, c.results[0] + valid.len(), "unsupported wire type");
    }
}

#[test]
fn length_past_the_end_of_a_result() {
    let valid = kernel("k", 1);
    let mut result = valid.clone();
    result.extend([0x6a, 0x7f, 0x01]); // MetricResults (field 13), length 127, 1 byte follows
    let c = with_result(result);
    assert_action_error(
        &c,
        c.results[0] + valid.len() + 1,
        "length-delimited field longer than its message",
    );
    // A varint that never ends.
    let mut result = valid.clone();
    result.extend([0x08, 0xff, 0xff]);
    let c = with_result(result);
    assert_action_error(&c, c.results[0] + valid.len() + 1, "truncated varint");
}

#[test]
fn damage_inside_a_metric_is_reported_at_its_absolute_offset() {
    let valid = kernel("k", 1);
    // MetricResults (13) = { NameID (1) = 0, MetricValue (2) = { <wire type 3> } }
    let metric = [0x08, 0x00, 0x12, 0x01, 0x0b];
    let mut result = valid.clone();
    result.extend([0x6a, metric.len() as u8]);
    result.extend(metric);
    let c = with_result(result);
    let metric_offset = c.results[0] + valid.len() + 2;
    assert_action_error(&c, metric_offset + 4, "unsupported wire type");
}

#[test]
fn a_metric_naming_a_string_beyond_the_whole_table_is_skipped_with_a_warning() {
    // A metric naming string 5 of a one-string table: the action decodes without it, and a
    // warning points at the metric.
    let mut message = kernel_message("k", 5, 1);
    message
        .metric_results
        .push(kernel_message("k", 0, 77).metric_results[0].clone());
    let metric = message.metric_results[0].encode_to_vec();
    let result = message.encode_to_vec();
    let mut field = vec![0x6a, metric.len() as u8];
    field.extend(&metric);
    let at = result
        .windows(field.len())
        .position(|w| w == field)
        .expect("the metric field");
    let c = with_result(result);
    let report = open_bytes(&c.bytes);
    let action = report.action(0).expect("the action decodes");
    assert_eq!(action.metrics().len(), 1, "only the named metric is kept");
    assert_eq!(metric_value(&report, 0), 77);
    let warnings = action.warnings();
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert_eq!(
        warnings[0].location,
        Location::Byte((c.results[0] + at + 2) as u64)
    );
    assert_eq!(
        warnings[0].message,
        "metric name id 5 outside the string table (1 strings); the metric was skipped"
    );
    // The dump holds the kernel and returns the warning.
    let mut out = Vec::new();
    let dumped = write_dump(&report, &DumpOptions::default(), &mut out).expect("dump");
    assert_eq!(dumped, warnings);
}

#[test]
fn corrupt_result_header_fields_and_sections() {
    // ThreadID (field 1) sent as a string: the wire scan passes, prost rejects the type. That
    // field alone is skipped with a warning at its byte; the other fields are kept.
    let mut result = vec![0x0a, 0x01, b'x'];
    result.extend(kernel("k", 1));
    let c = with_result(result);
    let report = open_bytes(&c.bytes);
    let action = report.action(0).expect("the other fields decode");
    assert_eq!(action.name(NameBase::Function), "k");
    assert_eq!(
        action.thread_id(),
        Some(0),
        "the valid ThreadID after it is read"
    );
    assert_eq!(metric_value(&report, 0), 1);
    let warnings = action.warnings();
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert_eq!(warnings[0].location, Location::Byte(c.results[0] as u64));
    assert!(
        warnings[0]
            .message
            .starts_with("result field 1 does not decode as this reader expects"),
        "{}",
        warnings[0].message
    );

    // A section (field 17) that is not a ProfilerSection: the action decodes (sections are
    // kept encoded), and decoding the sections fails without a panic.
    let mut result = kernel("k", 1);
    result.extend([0x8a, 0x01, 0x02, 0x0a, 0x7f]); // Identifier with length 127 in 2 bytes
    let report = open_bytes(&with_result(result).bytes);
    let action = report.action(0).expect("sections are decoded lazily");
    assert_eq!(action.num_sections(), 1);
    assert!(action.section_identifiers().is_err());
    assert!(action.sections().is_err());
    let error = write_dump(&report, &DumpOptions::default(), std::io::sink())
        .expect_err("the dump lists section identifiers");
    let text = error.to_string();
    assert!(text.starts_with("test.ncu-rep: byte "), "{text}");
    assert!(text.contains("corrupt embedded section"), "{text}");
}

#[path = "bad_input/corpus.rs"]
mod corpus;
#[path = "bad_input/lengths.rs"]
mod lengths;
