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
use sightline::ncu::dump::{DumpOptions, write_dump};
use sightline::ncu::{Action, MAGIC, Metric, MetricValue, NameBase, ReadError, Report};
use sightline::problem::Location;
use sightline::proto::nv::nvtx::{NvtxDomainInfo, NvtxState};
use sightline::proto::nv::profiler::messages as pb;
use sightline::proto::nv::rule_system::{
    RuleResult, RuleResultBody, RuleResultBodyItem, RuleResultFocusMetric, RuleResultMessage,
};

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

// ---------------------------------------------------------------------------------------------
// Lengths that claim 4 GB: an error naming the byte, and no allocation of the claimed size.

/// Opens `bytes` (and decodes and dumps whatever opens), returning the first error and the
/// largest single allocation made.
fn open_and_decode(bytes: &[u8]) -> (Result<(), ReadError>, usize) {
    let bytes = Bytes::copy_from_slice(bytes);
    largest_allocation_of(move || {
        let report = Report::from_bytes("test.ncu-rep", bytes)?;
        for index in 0..report.num_actions() {
            report.action(index)?;
        }
        Ok(())
    })
}

#[test]
fn four_gigabyte_lengths_are_errors_without_huge_allocations() {
    let max = u32::MAX.to_le_bytes();
    let c = one_kernel();

    // The file header's length.
    let mut bytes = c.bytes.clone();
    bytes[4..8].copy_from_slice(&max);
    let (result, largest) = open_and_decode(&bytes);
    let (offset, message) =
        format_error(&result.expect_err("4 GB header"), "test.ncu-rep".as_ref());
    assert_eq!(offset, 4);
    assert!(
        message.starts_with("truncated file header: length 4294967295 but only "),
        "{message}"
    );
    assert!(largest < MIB, "largest allocation {largest} bytes");

    // The block header's length.
    let mut bytes = c.bytes.clone();
    let block = c.blocks[0];
    bytes[block..block + 4].copy_from_slice(&max);
    let (result, largest) = open_and_decode(&bytes);
    let (offset, message) = format_error(&result.expect_err("4 GB block"), "test.ncu-rep".as_ref());
    assert_eq!(offset, block as u64);
    assert!(
        message.starts_with("truncated block header: length 4294967295 but only "),
        "{message}"
    );
    assert!(largest < MIB, "largest allocation {largest} bytes");

    // PayloadSize = 4 GB - 1 in the block header.
    let header = pb::BlockHeader {
        num_results: Some(1),
        payload_size: Some(u32::MAX),
        ..Default::default()
    };
    let mut bytes = Container::new().bytes;
    let block = bytes.len();
    bytes.extend(framed(&header.encode_to_vec()));
    let payload = bytes.len();
    bytes.extend(framed(&kernel("k", 1)));
    let (result, largest) = open_and_decode(&bytes);
    let (offset, message) =
        format_error(&result.expect_err("4 GB payload"), "test.ncu-rep".as_ref());
    assert!(block < payload);
    assert_eq!(offset, payload as u64);
    assert_eq!(
        message,
        format!(
            "truncated block: payload of 4294967295 bytes but only {} remain",
            bytes.len() - payload
        )
    );
    assert!(largest < MIB, "largest allocation {largest} bytes");

    // A result's length prefix (the block's PayloadSize is right).
    let mut bytes = c.bytes.clone();
    let prefix = c.results[0] - 4;
    bytes[prefix..prefix + 4].copy_from_slice(&max);
    let (result, largest) = open_and_decode(&bytes);
    let (offset, message) =
        format_error(&result.expect_err("4 GB result"), "test.ncu-rep".as_ref());
    assert_eq!(offset, prefix as u64);
    assert!(
        message.starts_with("truncated profile result: length 4294967295 but only "),
        "{message}"
    );
    assert!(largest < MIB, "largest allocation {largest} bytes");

    // NumResults = 4 G - 1 with one result in the payload.
    let header = pb::BlockHeader {
        num_results: Some(u32::MAX),
        payload_size: Some(4 + kernel("k", 1).len() as u32),
        ..Default::default()
    };
    let mut bytes = Container::new().bytes;
    bytes.extend(framed(&header.encode_to_vec()));
    bytes.extend(framed(&kernel("k", 1)));
    let end = bytes.len();
    let (result, largest) = open_and_decode(&bytes);
    assert_eq!(
        format_error(&result.expect_err("4 G results"), "test.ncu-rep".as_ref()),
        (
            end as u64,
            "truncated profile result: 0 byte(s) left, need a 4-byte length".to_owned()
        )
    );
    assert!(largest < MIB, "largest allocation {largest} bytes");

    // A protobuf length of 4 GB inside a result: MetricResults (13), length 2^32 as a varint.
    let valid = kernel("k", 1);
    let mut result = valid.clone();
    result.extend([0x6a, 0x80, 0x80, 0x80, 0x80, 0x10]);
    let c = with_result(result);
    let (result, largest) = open_and_decode(&c.bytes);
    assert_eq!(
        format_error(&result.expect_err("4 GB field"), "test.ncu-rep".as_ref()),
        (
            (c.results[0] + valid.len() + 1) as u64,
            "length-delimited field longer than its message".to_owned()
        )
    );
    assert!(largest < MIB, "largest allocation {largest} bytes");

    // The same inside a string table, which prost decodes while indexing.
    let mut header = vec![0x10, 0x00, 0x28, 0x00]; // NumResults 0, PayloadSize 0
    header.extend([0x22, 0x06, 0x0a, 0x80, 0x80, 0x80, 0x80, 0x10]); // StringTable.Strings[0]
    let mut bytes = Container::new().bytes;
    let block = bytes.len();
    bytes.extend(framed(&header));
    let (result, largest) = open_and_decode(&bytes);
    let (offset, message) =
        format_error(&result.expect_err("4 GB string"), "test.ncu-rep".as_ref());
    assert_eq!(offset, block as u64 + 4);
    assert!(message.starts_with("corrupt block header: "), "{message}");
    assert!(largest < MIB, "largest allocation {largest} bytes");
}

// ---------------------------------------------------------------------------------------------
// `.ncu-repz`.

#[test]
fn garbage_ncu_repz_is_an_error() {
    let mut junk = ZSTD_MAGIC.to_vec();
    junk.extend(b"\x00\x58\x01\x00this is not a zstd frame at all");
    let (offset, message) = file_error("bad.ncu-repz", &junk);
    assert_eq!(offset, 0);
    assert!(
        message.starts_with("corrupt zstd stream (.ncu-repz): "),
        "{message}"
    );
    let (offset, message) = bytes_error(&junk);
    assert_eq!(offset, 0);
    assert!(message.starts_with("corrupt zstd stream"), "{message}");
    // The magic alone.
    let (offset, message) = bytes_error(&ZSTD_MAGIC);
    assert_eq!(offset, 0);
    assert!(message.starts_with("corrupt zstd stream"), "{message}");
}

#[test]
fn ncu_repz_truncated_or_holding_damage() {
    let c = two_kernels();
    let compressed = zstd::encode_all(&c.bytes[..], 3).expect("compress");
    // A good one opens.
    let (_dir, path) = temp_file("good.ncu-repz", &compressed);
    let report = Report::open(&path).expect("a valid .ncu-repz opens");
    assert_eq!(report.num_actions(), 2);
    assert_eq!(metric_value(&report, 1), 5678);

    // A cut zstd frame.
    let (offset, message) = file_error("cut.ncu-repz", &compressed[..compressed.len() - 3]);
    assert_eq!(offset, 0);
    assert!(message.starts_with("corrupt zstd stream"), "{message}");

    // A valid frame of a damaged report: offsets are in the decompressed bytes.
    let cut = c.results[0] + 3;
    let compressed = zstd::encode_all(&c.bytes[..cut], 3).expect("compress");
    assert_eq!(
        file_error("damaged.ncu-repz", &compressed),
        bytes_error(&c.bytes[..cut])
    );
    assert_eq!(
        file_error("damaged.ncu-repz", &compressed).0,
        c.payloads[0] as u64
    );
}

// ---------------------------------------------------------------------------------------------
// The command line: exit code 2 and `sightline: error: PATH: byte N: MESSAGE` on stderr, or
// exit code 0 with `sightline: warning: ...` for a partially readable report.

#[test]
fn cli_reports_unreadable_files_with_exit_code_2() {
    let dir = tempfile::tempdir().expect("temporary folder");
    let cases: [(&str, Vec<u8>, String); 5] = {
        let c = one_kernel();
        let mut junk = ZSTD_MAGIC.to_vec();
        junk.extend(b"junk junk junk");
        [
            (
                "empty.ncu-rep",
                Vec::new(),
                "byte 0: empty file, not an Nsight Compute report".to_owned(),
            ),
            (
                "notes.ncu-rep",
                b"just some notes\n".to_vec(),
                "byte 0: a text file, not an Nsight Compute report (no \"NVR\\0\" magic)"
                    .to_owned(),
            ),
            (
                "header.ncu-rep",
                c.bytes[..9].to_vec(),
                "byte 4: truncated file header: length 2 but only 1 byte(s) left".to_owned(),
            ),
            (
                "first.ncu-rep",
                c.bytes[..c.results[0] + 3].to_vec(),
                format!(
                    "byte {}: truncated block: payload of {} bytes but only 7 remain",
                    c.payloads[0],
                    c.bytes.len() - c.payloads[0]
                ),
            ),
            (
                "bad.ncu-repz",
                junk,
                "byte 0: corrupt zstd stream".to_owned(),
            ),
        ]
    };
    for (name, contents, expected) in cases {
        let path = dir.path().join(name);
        std::fs::write(&path, &contents).expect("write");
        let output = sightline_dump(&path);
        let library = Report::open(&path).expect_err("unreadable").to_string();
        assert!(
            library.starts_with(&format!("{}: {expected}", path.display())),
            "{library}"
        );
        assert_cli_error(&output, &library);
    }

    // Not a file: exit code 2 and the path (the exact text is checked by
    // `cli_prints_io_errors_once`).
    for path in [dir.path().to_path_buf(), dir.path().join("missing.ncu-rep")] {
        let output = sightline_dump(&path);
        assert_eq!(output.status.code(), Some(2));
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(
            stderr.starts_with(&format!("sightline: error: {}: ", path.display())),
            "{stderr}"
        );
    }
}

#[test]
fn cli_reports_a_corrupt_result_with_its_offset() {
    let valid = kernel("k", 1);
    let mut result = valid.clone();
    result.push(0x0f);
    let c = with_result(result);
    let (_dir, path) = temp_file("corrupt.ncu-rep", &c.bytes);
    let output = sightline_dump(&path);
    assert_cli_error(
        &output,
        &format!(
            "{}: byte {}: unsupported wire type",
            path.display(),
            c.results[0] + valid.len()
        ),
    );
}

#[test]
fn cli_dumps_the_readable_part_of_a_truncated_report_with_a_warning() {
    let c = two_kernels();
    let cut = c.results[1] + 5;
    let (_dir, path) = temp_file("partial.ncu-rep", &c.bytes[..cut]);
    let output = sightline_dump(&path);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "stderr: {stderr}");
    let report = Report::open(&path).expect("partially readable");
    let warning = &report.warnings()[0];
    assert_eq!(
        stderr,
        format!(
            "sightline: warning: {}: byte {}: {}\n",
            path.display(),
            c.payloads[1],
            warning.message
        )
    );
    assert!(stderr.contains("truncated block"), "{stderr}");
    let json: serde_json::Value = serde_json::from_slice(&output.stdout).expect("dump is JSON");
    let actions = json["ranges"][0]["actions"].as_array().expect("actions");
    assert_eq!(actions.len(), 1);
    assert_eq!(actions[0]["name"], "first_kernel");
    assert_eq!(actions[0]["metrics"][METRIC]["value"], 1234);
}

// ---------------------------------------------------------------------------------------------
// Real reports, truncated and with flipped bytes: errors are fine, panics are not.

const CORPUS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/corpus/ncu/reports");

/// Whether two decodings of an action hold the same data.
fn same_action(a: &Action, b: &Action) -> bool {
    a.name(NameBase::Function) == b.name(NameBase::Function)
        && a.name(NameBase::Demangled) == b.name(NameBase::Demangled)
        && a.metrics().len() == b.metrics().len()
        && a.metrics()
            .iter()
            .zip(b.metrics())
            .all(|(x, y)| same_metric(x, y))
        && a.section_bytes() == b.section_bytes()
        && a.rule_results() == b.rule_results()
        && a.nvtx() == b.nvtx()
}

/// The offsets at which the blocks of an intact report start, and its end.
fn block_boundaries(data: &[u8]) -> Vec<usize> {
    let frame = |at: usize| -> Option<(usize, usize)> {
        let len = u32::from_le_bytes(data.get(at..at + 4)?.try_into().ok()?) as usize;
        Some((at + 4, at + 4 + len))
    };
    let mut out = Vec::new();
    let Some((_, mut pos)) = frame(4) else {
        return out;
    };
    while let Some((start, end)) = frame(pos) {
        let Some(header) = data
            .get(start..end)
            .and_then(|b| pb::BlockHeader::decode(b).ok())
        else {
            break;
        };
        out.push(pos);
        pos = end + header.payload_size.unwrap_or(0) as usize;
    }
    out.push(pos);
    out
}

/// The same metric, value for value: floating-point values compare by their bits, so that a
/// NaN read twice is the same NaN (`==` says NaN differs from itself; a real H800 report stores
/// ~5,000 NaN values).
fn same_metric(a: &Metric, b: &Metric) -> bool {
    fn same(x: &MetricValue, y: &MetricValue) -> bool {
        match (x, y) {
            (MetricValue::Double(x), MetricValue::Double(y)) => x.to_bits() == y.to_bits(),
            (MetricValue::Float(x), MetricValue::Float(y)) => x.to_bits() == y.to_bits(),
            (x, y) => x == y,
        }
    }
    a.name_id == b.name_id
        && a.category == b.category
        && same(&a.stored, &b.stored)
        && a.instances.len() == b.instances.len()
        && a.instances.iter().zip(&b.instances).all(|(x, y)| {
            same(&x.value, &y.value)
                && match (&x.correlation_id, &y.correlation_id) {
                    (Some(x), Some(y)) => same(x, y),
                    (x, y) => x == y,
                }
        })
}

/// Decodes every action of `report`; each one that decodes to something other than the intact
/// report's action of the same index also goes through its sections and the dump. Errors are
/// fine, panics are not.
fn exercise(report: &Report, intact: &[Action]) {
    for index in 0..report.num_actions() {
        let Ok(action) = report.action(index) else {
            continue;
        };
        if intact.get(index).is_some_and(|a| same_action(a, &action)) {
            continue;
        }
        let _ = action.metrics_by_name().count();
        let _ = action.section_identifiers();
        let _ = action.sections();
        let options = DumpOptions {
            units: true,
            kernel: Some(index),
        };
        if let Err(error) = write_dump(report, &options, std::io::sink()) {
            assert!(error.to_string().contains(": byte "), "{error}");
        }
    }
}

/// A small deterministic generator (SplitMix64).
struct SplitMix(u64);

impl SplitMix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// Skips a test that needs `../shared`, or fails it under `SIGHTLINE_REQUIRE_SHARED=1` (as the
/// integration tests' `common::skip_shared`; this binary stands alone for its allocator).
fn skip_shared(reason: String) {
    let required = std::env::var_os("SIGHTLINE_REQUIRE_SHARED").is_some_and(|v| v == "1");
    assert!(
        !required,
        "{reason}: SIGHTLINE_REQUIRE_SHARED=1 requires ../shared beside the repository"
    );
    eprintln!("skipped: {reason}");
}

#[test]
fn corpus_reports_survive_truncation_and_byte_flips() {
    let Ok(entries) = std::fs::read_dir(CORPUS) else {
        skip_shared(format!("the shared report corpus ({CORPUS}) is absent"));
        return;
    };
    let mut paths: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "ncu-rep"))
        .collect();
    paths.sort();
    if paths.is_empty() {
        skip_shared(format!(
            "no .ncu-rep in the shared report corpus ({CORPUS})"
        ));
        return;
    }
    for path in paths {
        let data = Bytes::from(std::fs::read(&path).expect("read a corpus report"));
        let full = Report::from_bytes(&path, data.clone()).expect("corpus reports open");
        let intact: Vec<Action> = (0..full.num_actions())
            .map(|i| full.action(i).expect("corpus actions decode"))
            .collect();
        write_dump(&full, &DumpOptions::default(), std::io::sink()).expect("corpus dumps");
        let len = data.len();
        let mut rng = SplitMix(len as u64);
        let boundaries = block_boundaries(&data);

        // ~50 truncations. The blocks before the cut are intact, so every action that is
        // indexed decodes to the intact report's action; lost actions come with a warning.
        let mut cuts: Vec<usize> = (0..40).map(|i| i * len / 40).collect();
        cuts.extend((0..10).map(|_| rng.below(len)));
        for (round, cut) in cuts.into_iter().enumerate() {
            let report = match Report::from_bytes(&path, data.slice(..cut)) {
                Ok(report) => report,
                Err(error) => {
                    let text = error.to_string();
                    assert!(
                        text.starts_with(&format!("{}: byte ", path.display())),
                        "{text}"
                    );
                    continue;
                }
            };
            let context = format!("{}: cut at {cut}", path.display());
            assert!(report.num_actions() <= intact.len(), "{context}");
            // A cut inside the first block of results leaves no action but the session
            // details: the report opens, and the check below requires a warning for the
            // lost actions (a report is refused only when not even its first block reads).
            for (index, expected) in intact.iter().enumerate().take(report.num_actions()) {
                let action = report
                    .action(index)
                    .unwrap_or_else(|e| panic!("{context}: action {index}: {e}"));
                assert!(
                    same_action(&action, expected),
                    "{context}: action {index} differs"
                );
            }
            if report.num_actions() < intact.len() {
                // A cut exactly between two blocks leaves a well-formed shorter report: nothing
                // tells it from a complete one unless no result is left at all, which is
                // always warned about (a real 2025.2 report cut at byte 18,638).
                let undetectable = boundaries.contains(&cut) && report.num_actions() > 0;
                assert!(
                    !report.warnings().is_empty() || undetectable,
                    "{context}: lost actions, no warning"
                );
            }
            if round % 10 == 0 {
                write_dump(&report, &DumpOptions::default(), std::io::sink())
                    .unwrap_or_else(|e| panic!("{context}: the readable part dumps: {e}"));
            }
        }

        // ~50 flipped bits, one at a time; every fifth round also overwrites 8 random bytes.
        for round in 0..50 {
            let mut bytes = data.to_vec();
            let at = rng.below(len);
            bytes[at] ^= 1 << (rng.next() % 8);
            if round % 5 == 0 {
                for _ in 0..8 {
                    let at = rng.below(len);
                    bytes[at] = rng.next() as u8;
                }
            }
            match Report::from_bytes(&path, Bytes::from(bytes)) {
                Ok(report) => exercise(&report, &intact),
                Err(error) => assert!(error.to_string().contains(": byte "), "{error}"),
            }
        }
    }
}

/// A kernel whose metric is NaN, in a report cut inside its second block: the first kernel
/// stays exactly as it was, NaN included (the corpus check compared with `==`, under which NaN
/// differs from itself, and failed on a real H800 report cut at byte 1,044,146).
#[test]
fn a_truncated_report_keeps_a_nan_metric_exactly() {
    let nan_kernel = pb::ProfileResult {
        kernel_function_name: "nan_kernel".to_owned(),
        metric_results: vec![pb::ProfileMetricResult {
            name_id: 0,
            metric_value: Some(pb::ProfileMetricValue {
                double_value: Some(f64::NAN),
                ..Default::default()
            }),
            ..Default::default()
        }],
        ..Default::default()
    };
    let container = Container::new()
        .block(&[METRIC], &[nan_kernel.encode_to_vec()])
        .block(&[], &[kernel("second_kernel", 5678)]);
    let path = Path::new("nan.ncu-rep");
    let full = Report::from_bytes(path, Bytes::from(container.bytes.clone())).unwrap();
    let cut_at = container.payloads[1] + 2;
    let cut = Report::from_bytes(path, Bytes::from(container.bytes[..cut_at].to_vec())).unwrap();
    assert_eq!((full.num_actions(), cut.num_actions()), (2, 1));
    assert!(!cut.warnings().is_empty());
    let (intact, kept) = (full.action(0).unwrap(), cut.action(0).unwrap());
    assert!(matches!(kept.metrics()[0].stored, MetricValue::Double(v) if v.is_nan()));
    assert!(same_action(&kept, &intact));
    // A cut between two blocks that leaves no result at all is warned about: Nsight Compute
    // writes no report without results.
    let late = Container::new()
        .block(&[METRIC], &[])
        .block(&[], &[kernel("late_kernel", 1)]);
    let between = late.blocks[1];
    let cut = Report::from_bytes(path, Bytes::from(late.bytes[..between].to_vec())).unwrap();
    assert_eq!(cut.num_actions(), 0);
    let warning = &cut.warnings()[0];
    assert_eq!(warning.location, Location::Byte(between as u64));
    assert!(
        warning.message.contains("no profile results"),
        "{warning:?}"
    );
    // A different value is still a difference.
    let mut other = kept.metrics()[0].clone();
    other.stored = MetricValue::Double(1.0);
    assert!(!same_metric(&other, &intact.metrics()[0]));
}

// ---------------------------------------------------------------------------------------------
// Regressions: reader bugs found while writing this suite (the fuzzer found none), with their
// inputs in `fuzz/regressions/`. A test of a bug not fixed yet is ignored (the reason says what
// is wrong); remove the `ignore` with the fix.

/// An input of `fuzz/regressions/`.
fn regression(name: &str) -> Vec<u8> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fuzz/regressions")
        .join(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// A report whose only kernel carries `nvtx` and `rule_results`.
fn with_nvtx_and_rules(nvtx: Option<NvtxState>, rule_results: Vec<RuleResult>) -> Container {
    let mut message = kernel_message("k", 0, 1);
    message.nvtx = nvtx;
    message.rule_results = rule_results;
    with_result(message.encode_to_vec())
}

/// A writer that counts bytes and fails past `limit` (so an output explosion fails fast).
struct Bounded {
    written: usize,
    limit: usize,
}

impl std::io::Write for Bounded {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.written += buf.len();
        if self.written > self.limit {
            return Err(std::io::Error::other("output limit exceeded"));
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[test]
fn nvtx_and_rule_builders_dump_as_expected() {
    let nvtx = NvtxState {
        domains: vec![NvtxDomainInfo {
            id: 3,
            name: "mine".to_owned(),
            ..Default::default()
        }],
        ..Default::default()
    };
    let report = open_bytes(&with_nvtx_and_rules(Some(nvtx), vec![rule(1, 1)]).bytes);
    let mut out = Vec::new();
    write_dump(&report, &DumpOptions::default(), &mut out).expect("dump");
    let json: serde_json::Value = serde_json::from_slice(&out).expect("JSON");
    let action = &json["ranges"][0]["actions"][0];
    assert_eq!(action["nvtx"]["3"]["name"], "mine");
    assert_eq!(
        action["rule_results"][0]["rule_message"]["message"],
        "message"
    );
    assert_eq!(
        action["rule_results"][0]["focus_metrics"][0]["name"],
        METRIC
    );
}

/// A rule result with `messages` messages and `focus` focus metrics, all with message id 0.
fn rule(messages: usize, focus: usize) -> RuleResult {
    let message = RuleResultBodyItem {
        message: Some(RuleResultMessage {
            message: "message".to_owned(),
            id: Some(0),
            ..Default::default()
        }),
        ..Default::default()
    };
    let focus_metric = RuleResultBodyItem {
        focus_metrics: vec![RuleResultFocusMetric {
            message_id: Some(0),
            metric_name: Some(METRIC.to_owned()),
            ..Default::default()
        }],
        ..Default::default()
    };
    let mut items = vec![message; messages];
    items.extend(std::iter::repeat_n(focus_metric, focus));
    RuleResult {
        identifier: "Rule".to_owned(),
        display_name: "A rule".to_owned(),
        body: Some(RuleResultBody { items }),
        ..Default::default()
    }
}

/// Was: `Report::from_bytes` decompressed nested zstd frames recursively, so 90 KB of nested
/// frames overflowed the stack (fixed: one level of compression only).
#[test]
fn nested_zstd_frames_are_not_decompressed_recursively() {
    // A zstd frame holding a zstd frame holding a report: only one level is a .ncu-repz.
    let mut bytes = one_kernel().bytes;
    for _ in 0..3 {
        bytes = zstd::encode_all(&bytes[..], 1).expect("compress");
    }
    let (offset, message) = bytes_error(&bytes);
    assert_eq!(offset, 0);
    assert!(message.contains("NVR"), "{message}");
    // 10,000 nested frames (raw blocks): must fail, not overflow the stack.
    let bytes = regression("nested-zstd-stack-overflow.ncu-repz");
    let (offset, _) = std::thread::Builder::new()
        .stack_size(8 * MIB)
        .spawn(move || bytes_error(&bytes))
        .expect("spawn")
        .join()
        .expect("no panic");
    assert_eq!(offset, 0);
}

#[test]
fn nested_zstd_file_is_refused_like_nested_zstd_bytes() {
    let twice = zstd::encode_all(
        &zstd::encode_all(&one_kernel().bytes[..], 1).expect("compress")[..],
        1,
    )
    .expect("compress");
    let (offset, message) = bytes_error(&twice);
    assert_eq!(offset, 0);
    assert_eq!(file_error("twice.ncu-repz", &twice), (offset, message));
}

/// Was: `.ncu-repz` decompression was unbounded, so 33 KB allocated 2 GiB (fixed: ratio limit).
#[test]
fn ncu_repz_decompression_is_bounded() {
    // 33 KB of zstd that expand to 1 GiB (a report header and zeros): a decompression bomb.
    let bytes = regression("zstd-bomb-1gib.ncu-repz");
    let (result, largest) = largest_allocation_of(|| {
        Report::from_bytes("bomb.ncu-repz", Bytes::from(bytes)).map(|r| r.num_actions())
    });
    let (offset, message) = format_error(
        &result.expect_err("a 30,000x expansion is refused"),
        "bomb.ncu-repz".as_ref(),
    );
    assert_eq!(offset, 0);
    assert!(message.contains("zstd"), "{message}");
    assert!(largest < 1 << 30, "largest allocation {largest} bytes");
}

#[test]
fn many_nvtx_domains_dump_in_linear_time() {
    const DOMAINS: u64 = 40_000;
    let nvtx = NvtxState {
        domains: (0..DOMAINS)
            .map(|id| NvtxDomainInfo {
                id,
                ..Default::default()
            })
            .collect(),
        ..Default::default()
    };
    let report = open_bytes(&with_nvtx_and_rules(Some(nvtx), Vec::new()).bytes);
    let mut out = Vec::new();
    write_dump(&report, &DumpOptions::default(), &mut out).expect("dump");
    let json: serde_json::Value = serde_json::from_slice(&out).expect("JSON");
    let domains = json["ranges"][0]["actions"][0]["nvtx"]
        .as_object()
        .expect("nvtx object");
    assert_eq!(domains.len() as u64, DOMAINS);
    // The saved input dumps too.
    let report = open_bytes(&regression("nvtx-quadratic-domains.ncu-rep"));
    write_dump(&report, &DumpOptions::default(), std::io::sink()).expect("dump");
}

#[test]
fn focus_metrics_shared_by_message_ids_do_not_multiply() {
    const N: usize = 3_000;
    let report = open_bytes(&with_nvtx_and_rules(None, vec![rule(N, N)]).bytes);
    let action = report.action(0).expect("action");
    let messages = sightline::ncu::rule_result::rule_messages(action.rule_results());
    assert_eq!(messages.len(), N);
    let focus: usize = messages.iter().map(|m| m.focus_metrics.len()).sum();
    assert_eq!(focus, N, "each focus metric is listed once");
    let mut out = Bounded {
        written: 0,
        limit: 64 * MIB,
    };
    write_dump(&report, &DumpOptions::default(), &mut out).expect("the dump stays small");
    let report = open_bytes(&regression("rule-focus-metrics-amplification.ncu-rep"));
    let mut out = Bounded {
        written: 0,
        limit: 64 * MIB,
    };
    write_dump(&report, &DumpOptions::default(), &mut out).expect("the dump stays small");
}

/// Regression (fixed): `Action::decode` sorted metrics by comparing their full name strings,
/// O(n log n) comparisons of up to 120 KB each for these 60,000 metrics named by two 120 KB
/// strings sharing a prefix. Names are now ranked once per string id; the test pins the order.
#[test]
fn metrics_with_long_shared_names_sort_by_name() {
    let report = open_bytes(&regression("metric-name-sort-long-names.ncu-rep"));
    let action = report.action(0).expect("action");
    assert_eq!(action.metrics().len(), 60_000);
    let names: Vec<&str> = action.metric_names().collect();
    assert_eq!(names.len(), 2);
    assert_eq!(names[0], "m".repeat(120_000));
    assert_eq!(names[1], format!("{}x", "m".repeat(120_000)));
    // For a name given several times, the last metric in file order wins.
    let last = action
        .metrics()
        .iter()
        .rposition(|m| m.name_id == 1)
        .expect("a metric of name 1");
    assert!(std::ptr::eq(
        action.metric(names[1]).expect("metric"),
        &action.metrics()[last]
    ));
}

/// Was: the CLI printed an io error twice (`PATH: is a directory...: is a directory...`), as
/// `{:#}` appended the `source` that `ReadError::Io` already displays (fixed).
#[test]
fn cli_prints_io_errors_once() {
    let dir = tempfile::tempdir().expect("temporary folder");
    let output = sightline_dump(dir.path());
    assert_cli_error(
        &output,
        &format!(
            "{}: is a directory, not a report file",
            dir.path().display()
        ),
    );
    let missing = dir.path().join("missing.ncu-rep");
    let output = sightline_dump(&missing);
    let expected = Report::open(&missing).expect_err("missing").to_string();
    assert!(expected.starts_with(&format!("{}: ", missing.display())));
    assert_cli_error(&output, &expected);
}
