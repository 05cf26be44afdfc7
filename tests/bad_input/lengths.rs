//! Lengths that claim 4 GB, compressed reports, and the command line on bad input.

use super::*;

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
    file_header_length();
    block_header_length();
    payload_size();
    result_length_prefix();
    num_results();
    protobuf_field_length();
    string_table_length();
}

/// 4 GB in the file header's length.
fn file_header_length() {
    let max = u32::MAX.to_le_bytes();
    let c = one_kernel();
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
}

/// 4 GB in the block header's length.
fn block_header_length() {
    let max = u32::MAX.to_le_bytes();
    let c = one_kernel();
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
}

/// PayloadSize = 4 GB - 1 in the block header.
fn payload_size() {
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
}

/// 4 GB in a result's length prefix (the block's PayloadSize is right).
fn result_length_prefix() {
    let max = u32::MAX.to_le_bytes();
    let c = one_kernel();
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
}

/// NumResults = 4 G - 1 with one result in the payload.
fn num_results() {
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
}

/// A protobuf length of 4 GB inside a result: MetricResults (13), length 2^32 as a varint.
fn protobuf_field_length() {
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
}

/// A protobuf length of 4 GB inside a string table, which prost decodes while indexing.
fn string_table_length() {
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
