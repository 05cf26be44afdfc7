//! NCCL-like NVTX payloads (the schemas NCCL registers, registered by two processes): their
//! fields decoded, searchable and printed by `sightline timeline --events`, and carried by the
//! kernels launched in each collective's range; the scalar payload
//! union members of `NVTX_EVENTS`; payloads that do not decode (no schema, unknown type, too few
//! bytes, a schema that contains itself...) shown as raw bytes with a warning, never a panic.

use std::ffi::OsStr;

use crate::nvtx_payload::{event_named, load};
use sightline::timeline::nsys::payload::{Field, Value, flatten};
use sightline::timeline::{EventId, Timeline};
use sightline_test_support::nsys_payload::{
    Bytes, NCCL_ALL_REDUCE_KERNEL, NCCL_COMM, NCCL_SEND_KERNEL, PayloadExport, PayloadRow,
    SchemaSpec, blob, entry, nccl_export, write_payload_export,
};

const S: u64 = 1 << 24;

fn named(tl: &Timeline, name: &str) -> Vec<EventId> {
    let mut ids: Vec<EventId> = (0..tl.event_count() as u32)
        .map(EventId)
        .filter(|&id| tl.event(id).is_some_and(|e| tl.name(e.name) == name))
        .collect();
    ids.sort_by_key(|&id| tl.event(id).map(|e| e.start));
    ids
}

fn pairs(fields: &[Field]) -> Vec<(String, Value)> {
    fields
        .iter()
        .map(|f| (f.name.clone(), f.value.clone()))
        .collect()
}

fn nccl_fields(rest: &[(&str, Value)]) -> Vec<(String, Value)> {
    let mut out = vec![(
        "NCCL communicator ID".to_string(),
        Value::Unsigned(u128::from(NCCL_COMM)),
    )];
    out.extend(rest.iter().map(|(n, v)| ((*n).to_string(), v.clone())));
    out
}

#[test]
fn nccl_ranges_carry_communicator_rank_size_and_reduction() {
    let (_dir, tl) = load(&nccl_export());
    assert!(tl.warnings.is_empty(), "{:?}", tl.warnings);
    let init = event_named(&tl, "ncclCommInitRank");
    assert_eq!(
        pairs(&tl.event_fields(init)),
        nccl_fields(&[
            ("No. of ranks", Value::Signed(8)),
            ("Rank", Value::Signed(3)),
            ("CUDA device", Value::Signed(3)),
        ])
    );
    let op = |value, name: &str| Value::Enum {
        value,
        name: Some(name.into()),
    };
    let reduces = named(&tl, "ncclAllReduce");
    assert_eq!(reduces.len(), 2);
    assert_eq!(
        pairs(&tl.event_fields(reduces[0])),
        nccl_fields(&[
            ("Message size [bytes]", Value::Unsigned(1 << 20)),
            ("Reduction operation", op(0, "Sum")),
        ])
    );
    assert_eq!(
        pairs(&tl.event_fields(reduces[1])),
        nccl_fields(&[
            ("Message size [bytes]", Value::Unsigned(4096)),
            ("Reduction operation", op(2, "Max")),
        ])
    );
    let send = event_named(&tl, "ncclSend");
    assert_eq!(
        pairs(&tl.event_fields(send)),
        nccl_fields(&[
            ("Message size [bytes]", Value::Unsigned(64)),
            ("Peer rank", Value::Signed(5)),
        ])
    );
    let decoded = tl.payload_fields(send).unwrap();
    assert_eq!(decoded.schema, "NcclNvtxParamsSendRecv");
    // On the NCCL domain's NVTX row.
    let (track, _) = tl.locate(send).unwrap();
    assert!(
        tl.track_path(track).ends_with("NVTX (NCCL)"),
        "{}",
        tl.track_path(track)
    );
    // Searchable by value and by field name.
    assert_eq!(tl.search_fields("1048576"), vec![reduces[0]]);
    assert_eq!(tl.search_fields("peer RANK"), vec![send]);
    assert_eq!(tl.search_fields("max"), vec![reduces[1]]);
    assert_eq!(tl.search_fields("no. of ranks"), vec![init]);
    assert!(tl.search_fields("no such field").is_empty());
}

#[test]
fn timeline_events_lines_carry_the_decoded_fields() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("nccl.sqlite");
    write_payload_export(&path, &nccl_export()).unwrap();
    let args = [
        OsStr::new("timeline"),
        OsStr::new("--events"),
        path.as_os_str(),
    ];
    let text = crate::common::sightline_ok(args);
    let lines: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect();
    // The four NCCL ranges, the four launch calls and their four kernels.
    assert_eq!(lines.len(), 12, "{text}");
    let kind = |k: &str| lines.iter().filter(|e| e["kind"] == k).count();
    assert_eq!(kind("kernel"), 4, "{text}");
    let reduce: Vec<&serde_json::Value> = lines
        .iter()
        .filter(|e| e["name"] == "ncclAllReduce")
        .collect();
    assert_eq!(reduce.len(), 2);
    let f = &reduce[0]["fields"];
    assert_eq!(f["NCCL communicator ID"].as_u64(), Some(NCCL_COMM));
    assert_eq!(f["Message size [bytes]"].as_u64(), Some(1 << 20));
    assert_eq!(f["Reduction operation"], "Sum");
    assert_eq!(reduce[1]["fields"]["Reduction operation"], "Max");
    let init = lines
        .iter()
        .find(|e| e["name"] == "ncclCommInitRank")
        .unwrap();
    assert_eq!(init["fields"]["No. of ranks"], 8);
    assert_eq!(init["fields"]["Rank"], 3);
    assert_eq!(init["fields"]["CUDA device"], 3);
    let send = lines.iter().find(|e| e["name"] == "ncclSend").unwrap();
    assert_eq!(send["fields"]["Peer rank"], 5);
    assert_eq!(send["fields"]["Message size [bytes]"], 64);
    // Each NCCL kernel carries its collective's fields under the range's name; the kernel
    // launched outside every range has none.
    let kernels: Vec<&serde_json::Value> = lines.iter().filter(|e| e["kind"] == "kernel").collect();
    let reduce = &kernels[0]["fields"]["NCCL: ncclAllReduce"];
    assert_eq!(kernels[0]["name"], NCCL_ALL_REDUCE_KERNEL);
    assert_eq!(reduce["Message size [bytes]"].as_u64(), Some(1 << 20));
    assert_eq!(reduce["NCCL communicator ID"].as_u64(), Some(NCCL_COMM));
    assert_eq!(reduce["Reduction operation"], "Sum");
    assert_eq!(
        kernels[1]["fields"]["NCCL: ncclAllReduce"]["Reduction operation"],
        "Max"
    );
    assert_eq!(kernels[2]["fields"]["NCCL: ncclSend"]["Peer rank"], 5);
    assert!(kernels[3].get("fields").is_none(), "{}", kernels[3]);
}

#[test]
fn nccl_kernels_are_linked_to_the_range_they_were_launched_in() {
    let (_dir, tl) = load(&nccl_export());
    assert!(tl.warnings.is_empty(), "{:?}", tl.warnings);
    let reduces = named(&tl, "ncclAllReduce");
    let send = event_named(&tl, "ncclSend");
    let kernels = named(&tl, NCCL_ALL_REDUCE_KERNEL);
    assert_eq!(kernels.len(), 2);
    let send_kernel = event_named(&tl, NCCL_SEND_KERNEL);
    let plain = event_named(&tl, "vectorAdd(float const*, float*)");
    assert_eq!(tl.launch_range(kernels[0]), Some(reduces[0]));
    assert_eq!(tl.launch_range(kernels[1]), Some(reduces[1]));
    assert_eq!(tl.launch_range(send_kernel), Some(send));
    assert_eq!(tl.launch_range(plain), None);
    // Not for the ranges themselves nor the launch calls.
    assert_eq!(tl.launch_range(reduces[0]), None);
    let call = tl.flow_partners(kernels[0])[0];
    assert_eq!(tl.launch_range(call), None);
    // The map for every event agrees.
    let all = tl.launch_ranges();
    assert_eq!(all.len(), 3);
    assert_eq!(all[&kernels[0]], reduces[0]);
    assert_eq!(all[&send_kernel], send);
    // The kernel's fields: the range's, under its label.
    assert_eq!(tl.launch_range_label(reduces[0]), "NCCL: ncclAllReduce");
    let fields = tl.event_fields(kernels[0]);
    assert_eq!(fields.len(), 1, "{fields:?}");
    assert_eq!(fields[0].name, "NCCL: ncclAllReduce");
    let Value::Struct(inner) = &fields[0].value else {
        panic!("{fields:?}");
    };
    assert_eq!(pairs(inner), pairs(&tl.event_fields(reduces[0])));
    assert_eq!(tl.event_fields_in(kernels[0], &all), fields);
    let flat = flatten(&fields);
    assert!(
        flat.contains(&(
            "NCCL: ncclAllReduce.Message size [bytes]".to_owned(),
            "1048576".to_owned()
        )),
        "{flat:?}"
    );
    assert!(tl.event_fields(plain).is_empty());
}

#[test]
fn scalar_payload_union_members_are_fields() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("scalars.sqlite");
    write_payload_export(&path, &PayloadExport::default()).unwrap();
    let conn = rusqlite::Connection::open(&path).unwrap();
    conn.execute("INSERT INTO StringIds VALUES (100, '{\"step\": 7}')", [])
        .unwrap();
    let columns = [
        ("u32", "uint32Value", "4000000000"),
        ("i32", "int32Value", "-7"),
        ("f32", "floatValue", "0.10000000149011612"),
        ("json id", "jsonTextId", "100"),
        ("u64", "uint64Value", "12345678901234567"),
        ("i64", "int64Value", "-9"),
        ("f64", "doubleValue", "2.5"),
        ("json", "jsonText", "'{\"a\": 1}'"),
    ];
    for (i, (name, column, value)) in columns.iter().enumerate() {
        let sql = format!(
            "INSERT INTO NVTX_EVENTS (start, end, eventType, text, globalTid, {column}) \
             VALUES ({}, {}, 59, '{name}', 1, {value})",
            i * 100,
            i * 100 + 50
        );
        conn.execute(&sql, []).unwrap();
    }
    drop(conn);
    let tl = sightline::timeline::nsys::load(&path).unwrap();
    let payload = |name: &str| {
        let fields = tl.event_fields(event_named(&tl, name));
        assert_eq!(fields.len(), 1, "{name}: {fields:?}");
        assert_eq!(fields[0].name, "Payload");
        fields[0].value.clone()
    };
    assert_eq!(payload("u32"), Value::Unsigned(4_000_000_000));
    assert_eq!(payload("i32"), Value::Signed(-7));
    assert_eq!(payload("f32"), Value::Float(0.1));
    assert_eq!(payload("json id"), Value::Text("{\"step\": 7}".into()));
    assert_eq!(payload("u64"), Value::Unsigned(12_345_678_901_234_567));
    assert_eq!(payload("i64"), Value::Signed(-9));
    assert_eq!(payload("f64"), Value::Float(2.5));
    assert_eq!(payload("json"), Value::Text("{\"a\": 1}".into()));
}

fn bad_row(name: &str, start: i64, binary: Vec<u8>) -> PayloadRow {
    PayloadRow {
        name: name.into(),
        start,
        end: start + 10,
        domain: 0,
        binary,
        as_text: false,
    }
}

fn malformed_export() -> PayloadExport {
    let schema = |id, kind, entries| SchemaSpec {
        id,
        kind,
        entries,
        ..SchemaSpec::default()
    };
    let two = Bytes::default().uint(8, 1).uint(8, 2);
    let mut short = blob(0, S + 21, &two.0[..10]);
    short[16..24].copy_from_slice(&16u64.to_le_bytes());
    let mut as_text = bad_row("stored as text", 800, blob(0, S + 21, &two.0));
    as_text.as_text = true;
    PayloadExport {
        schemas: vec![
            schema(S + 20, 1, vec![entry(16, "ok"), entry(999, "bad")]),
            schema(S + 21, 1, vec![entry(18, "a"), entry(18, "b")]),
            schema(S + 22, 1, vec![entry(S + 22, "itself")]),
            schema(
                S + 23,
                2,
                vec![entry(12, "early").flags(3 << 4).detail(1), entry(16, "n")],
            ),
            schema(S + 24, 2, vec![entry(12, "elsewhere").flags(4 << 4)]),
        ],
        rows: vec![
            bad_row("no schema", 100, blob(0, S + 99, &[1, 2, 3, 4])),
            bad_row(
                "unknown type",
                200,
                blob(0, S + 20, &Bytes::default().uint(4, 5).uint(4, 6).0),
            ),
            bad_row("short", 300, short),
            bad_row("tiny", 400, vec![1, 2, 3, 4, 5, 6, 7, 8, 9, 10]),
            bad_row("cycle", 500, blob(0, S + 22, &[0; 16])),
            bad_row("late length", 600, blob(0, S + 23, &[0; 8])),
            bad_row("payload index", 700, blob(0, S + 24, &[0; 8])),
            as_text,
        ],
        ..PayloadExport::default()
    }
}

#[test]
fn payloads_that_do_not_decode_show_their_bytes_with_a_warning() {
    let (_dir, tl) = load(&malformed_export());
    let problem = |name: &str| {
        let d = tl.payload_fields(event_named(&tl, name)).unwrap();
        let raw = d.fields.last().unwrap();
        assert_eq!(raw.name, "payload", "{name}: {:?}", d.fields);
        assert!(
            matches!(raw.value, Value::Raw { .. }),
            "{name}: {:?}",
            raw.value
        );
        (
            d.problem.unwrap_or_else(|| panic!("{name} decoded")),
            d.fields,
        )
    };
    let (why, _) = problem("no schema");
    assert!(
        why.contains(&format!("no payload schema {}", S + 99)),
        "{why}"
    );
    let (why, fields) = problem("unknown type");
    assert!(why.contains("bad: type 999"), "{why}");
    assert_eq!(fields[0].value, Value::Unsigned(5), "what decoded is kept");
    let (why, fields) = problem("short");
    assert!(
        why.contains("the header gives 16 payload bytes, 10 follow it"),
        "{why}"
    );
    assert!(why.contains("b: 8 bytes at offset 8"), "{why}");
    assert_eq!(fields[0].value, Value::Unsigned(1));
    let (why, fields) = problem("tiny");
    assert!(
        why.contains("shorter than the 32-byte payload header"),
        "{why}"
    );
    let shown = flatten(&fields);
    assert!(
        shown[0].1.starts_with("0x0102030405060708090a ("),
        "{shown:?}"
    );
    assert!(problem("cycle").0.contains("nested"));
    assert!(
        problem("late length")
            .0
            .contains("entry 1 is not read before")
    );
    assert!(problem("payload index").0.contains("another payload"));
    let text = tl
        .payload_fields(event_named(&tl, "stored as text"))
        .unwrap();
    assert_eq!(text.problem, None);
    assert_eq!(text.fields[1].value, Value::Unsigned(2));
    let warned: Vec<String> = tl
        .warnings
        .iter()
        .map(|w| w.problem.message.clone())
        .filter(|m| m.contains("NVTX binary payload not decoded"))
        .collect();
    assert_eq!(warned.len(), 7, "{warned:?}");
}
