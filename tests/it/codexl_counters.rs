//! The CodeXL / RCP performance-counter reader on every real counter file of the corpus
//! (`../shared/corpus/codexl/`, checked against its MANIFEST: rows, columns, kernels, total
//! time, NULL fields), on the generated session file, and on malformed input.

use std::path::{Path, PathBuf};

use sightline::codexl::{CounterDialect, CounterFile, CounterValue};

fn corpus() -> Option<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus/codexl");
    if dir.join("MANIFEST.tsv").is_file() {
        Some(dir)
    } else {
        crate::common::skip_shared(format!("{} is absent", dir.display()));
        None
    }
}

/// One MANIFEST line of an RCP file: `key=value; ...` notes.
struct Expected {
    /// The file, in the folder of its MANIFEST.
    path: PathBuf,
    file: String,
    rows: usize,
    columns: usize,
    header_keys: usize,
    sum_time_ms: f64,
    rows_with_null: usize,
    device: String,
    kernels: Vec<(String, usize)>,
}

/// The corpus folders with a MANIFEST: the corpus folder and every sub-folder that has one
/// (the corpus grows by folders, e.g. `more/`).
fn manifest_folders(dir: &Path) -> Vec<PathBuf> {
    let mut folders = vec![dir.to_path_buf()];
    let mut subfolders: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("MANIFEST.tsv").is_file())
        .collect();
    subfolders.sort();
    folders.extend(subfolders);
    folders
}

/// Every file a folder's MANIFEST lists.
fn listed_files(folder: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(folder.join("MANIFEST.tsv")).unwrap();
    text.lines()
        .skip(1)
        .filter(|l| !l.trim().is_empty())
        .map(|l| l.split('\t').next().unwrap().to_string())
        .collect()
}

fn manifest(folder: &Path) -> Vec<Expected> {
    let text = std::fs::read_to_string(folder.join("MANIFEST.tsv")).unwrap();
    let mut out = Vec::new();
    for line in text.lines().skip(1).filter(|l| !l.trim().is_empty()) {
        let cells: Vec<&str> = line.split('\t').collect();
        let notes = cells[5];
        if !notes.contains("ProfileFileVersion=") {
            continue;
        }
        let note = |key: &str| {
            notes
                .split("; ")
                .find_map(|n| n.strip_prefix(key))
                .unwrap_or_else(|| panic!("{key} in {}", cells[0]))
        };
        let rows_note = notes
            .split("; ")
            .find(|n| n.ends_with(')') && n.contains(" rows ("))
            .unwrap();
        let (rows, kernels) = rows_note.split_once(" rows (").unwrap();
        let kernels = kernels
            .trim_end_matches(')')
            .split(", ")
            .map(|k| {
                let (name, count) = k.rsplit_once(" x").unwrap();
                (name.to_string(), count.parse().unwrap())
            })
            .collect();
        let columns = notes
            .split("; ")
            .find_map(|n| n.strip_suffix(" columns"))
            .unwrap();
        out.push(Expected {
            path: folder.join(cells[0]),
            file: cells[0].to_string(),
            rows: rows.parse().unwrap(),
            columns: columns.parse().unwrap(),
            header_keys: note("header keys=").parse().unwrap(),
            sum_time_ms: note("sum(Time)=").trim_end_matches(" ms").parse().unwrap(),
            rows_with_null: note("rows with NULL field=").parse().unwrap(),
            device: note("device=").to_string(),
            kernels,
        });
    }
    out
}

#[test]
fn every_rcp_file_of_the_corpus_matches_its_manifest() {
    let Some(dir) = corpus() else { return };
    let mut expected = Vec::new();
    for folder in manifest_folders(&dir) {
        expected.extend(check_folder(&folder));
    }
    assert!(!expected.is_empty(), "no RCP file in the corpus MANIFESTs");
    for e in &expected {
        check_rcp_file(e);
    }
}

/// A MANIFEST folder: every counter file on disk is listed and every listed file is on disk;
/// the files not described as RCP files read as sprofile files. Returns the RCP files.
fn check_folder(folder: &Path) -> Vec<Expected> {
    // Every counter file on disk is listed, and every listed file is on disk.
    let listed = listed_files(folder);
    let mut on_disk: Vec<String> = std::fs::read_dir(folder)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".csv"))
        .collect();
    on_disk.sort();
    for name in &on_disk {
        assert!(
            listed.contains(name),
            "{}: {name} is not in its MANIFEST",
            folder.display()
        );
    }
    for name in &listed {
        assert!(
            folder.join(name).is_file(),
            "{}: {name} listed, absent",
            folder.display()
        );
    }
    let rcp = manifest(folder);
    // A file the MANIFEST does not describe as an RCP file is of the older sprofile
    // dialect (no `#` header): it reads as that dialect, without warnings.
    for name in listed.iter().filter(|n| !rcp.iter().any(|e| &&e.file == n)) {
        let file = CounterFile::open(&folder.join(name)).unwrap();
        assert_eq!(file.dialect, CounterDialect::Sprofile, "{name}");
        assert!(file.warnings().is_empty(), "{name}: {:?}", file.warnings());
        assert!(!file.rows.is_empty(), "{name}");
    }
    rcp
}

/// An RCP file equals its MANIFEST entry: dialect, header, columns, rows, times, NULLs,
/// kernels, and the shape of its work sizes and numeric columns.
fn check_rcp_file(e: &Expected) {
    let file = CounterFile::open(&e.path).unwrap();
    let name = &e.file;
    assert!(file.warnings().is_empty(), "{name}: {:?}", file.warnings());
    assert_eq!(file.dialect, CounterDialect::Rcp, "{name}");
    assert_eq!(file.table.header.len(), e.header_keys, "{name}");
    assert_eq!(file.table.separator, ';', "{name}");
    assert_eq!(file.table.columns.len(), e.columns, "{name}");
    assert_eq!(file.rows.len(), e.rows, "{name}");
    assert!(
        file.rows.iter().all(|r| r.values.len() == e.columns),
        "{name}"
    );
    let time = file.time_column().unwrap();
    let sum: f64 = file
        .rows
        .iter()
        .map(|r| r.values[time].as_f64().unwrap())
        .sum();
    assert!(
        (sum - e.sum_time_ms).abs() < 5e-6,
        "{name}: {sum} vs {}",
        e.sum_time_ms
    );
    let with_null = file
        .rows
        .iter()
        .filter(|r| r.values.contains(&CounterValue::Null))
        .count();
    assert_eq!(with_null, e.rows_with_null, "{name}");
    check_kernels(&file, e);
    check_columns(&file, name);
}

/// The dispatches of each kernel of the MANIFEST, in the rows and in the aggregates.
fn check_kernels(file: &CounterFile, e: &Expected) {
    let name = &e.file;
    for (method, count) in &e.kernels {
        let (kernel, rest) = method.split_once("__k").unwrap();
        let id: u32 = rest.split('_').next().unwrap().parse().unwrap();
        let n = file
            .rows
            .iter()
            .filter(|r| {
                &*r.kernel == kernel
                    && r.kernel_id == Some(id)
                    && r.device.as_deref() == Some(e.device.as_str())
            })
            .count();
        assert_eq!(n, *count, "{name}: {method}");
        let aggregate = file
            .aggregates()
            .into_iter()
            .find(|a| a.kernel == kernel)
            .unwrap();
        assert_eq!(aggregate.dispatches, *count, "{name}: {method}");
    }
    let total: f64 = file.aggregates().iter().map(|a| a.total_time_ms).sum();
    assert!((total - e.sum_time_ms).abs() < 5e-6, "{name}");
}

/// Every work size is a 3-vector or NULL; every ThreadID and CallIndex a number.
fn check_columns(file: &CounterFile, name: &str) {
    for column in ["GlobalWorkSize", "WorkGroupSize"] {
        let c = file.table.column(column).unwrap();
        assert!(
            file.rows.iter().all(|r| file
                .values
                .sizes_of(&r.values[c])
                .is_some_and(|s| s.len() == 3)
                || r.values[c] == CounterValue::Null),
            "{name}: {column}"
        );
    }
    for column in ["ThreadID", "CallIndex", "VGPRs", "SGPRs"] {
        let c = file.table.column(column).unwrap();
        assert!(
            file.rows.iter().all(|r| r.values[c].as_f64().is_some()),
            "{name}: {column}"
        );
    }
}

#[test]
fn rcp_values_of_one_file_field_by_field() {
    let Some(dir) = corpus() else { return };
    let file = CounterFile::open(&dir.join("sgpp_profiling_results_prof_DR5_0beff21.csv")).unwrap();
    assert_eq!(file.table.header_value("ProfilerVersion"), Some("5.2.6553"));
    assert_eq!(
        file.table.header_value("Device Hawaii Platform Vendor"),
        Some("Advanced Micro Devices, Inc.")
    );
    assert_eq!(file.table.header_value("ListSeparator"), Some(";"));
    assert_eq!(file.devices, vec!["Hawaii"]);
    let col = |name: &str| file.table.column(name).unwrap();
    let first = &file.rows[0];
    assert_eq!(
        (&*first.kernel, first.kernel_id, first.device.as_deref()),
        ("cscheme", Some(1), Some("Hawaii"))
    );
    assert_eq!(
        file.values.sizes_of(&first.values[col("GlobalWorkSize")]),
        Some(&[1471, 1, 1][..])
    );
    assert_eq!(first.values[col("WorkGroupSize")], CounterValue::Null);
    assert_eq!(first.values[col("Time")].as_f64(), Some(434.40237));
    assert_eq!(file.value_text(&first.values[col("Time")]), "434.40237");
    assert_eq!(first.values[col("VALUInsts")].as_f64(), Some(18223530.0));
    assert_eq!(first.values[col("LDSBankConflict")].as_f64(), Some(0.0));
    let connect = &file.rows[7];
    assert_eq!(&*connect.kernel, "connectNeighbors");
    // A wide value loses its leading space: `{ 371968       1       1}`.
    assert_eq!(
        file.values.sizes_of(&connect.values[col("GlobalWorkSize")]),
        Some(&[371968, 1, 1][..])
    );
    assert_eq!(
        connect.values[col("FetchSize")].as_f64(),
        Some(1124421518.06)
    );
    assert_eq!(connect.line, 25);
    let series = file.column_values(col("Time"));
    assert_eq!(series.len(), 9);
    assert_eq!(series[8], Some(3292.39289));
    let row = file.row_for_call(1429, 217).unwrap();
    assert_eq!(&*row.kernel, "removeEdges");
}

#[test]
fn the_2010_sprofile_file() {
    let Some(dir) = corpus() else { return };
    let file = CounterFile::open(&dir.join("bryancatanzaro_SpMV_Session1.csv")).unwrap();
    assert!(file.warnings().is_empty(), "{:?}", file.warnings());
    assert_eq!(file.dialect, CounterDialect::Sprofile);
    assert!(file.table.header.is_empty());
    assert_eq!(file.table.separator, ',');
    assert_eq!(file.table.columns.len(), 19);
    assert_eq!(file.rows.len(), 14);
    let col = |name: &str| file.table.column(name).unwrap();
    let transfers: Vec<(String, Option<f64>)> = file
        .rows
        .iter()
        .filter(|r| r.values[col("GlobalWorkSize")] == CounterValue::Empty)
        .map(|r| {
            (
                r.kernel.to_string(),
                r.values[col("MemTransferSize")].as_f64(),
            )
        })
        .collect();
    assert_eq!(
        transfers,
        vec![
            ("BufHostToDevice".to_string(), Some(50035968.0)),
            ("BufHostToDevice".to_string(), Some(324.0)),
            ("BufHostToDevice".to_string(), Some(617604.0)),
            ("BufDeviceToHost".to_string(), Some(617604.0)),
        ]
    );
    let kernel = &file.rows[3];
    assert_eq!(
        (&*kernel.kernel, kernel.kernel_id, kernel.device.as_deref()),
        ("diagSpMV", None, None)
    );
    assert_eq!(
        file.values.sizes_of(&kernel.values[col("GlobalWorkSize")]),
        Some(&[38656, 1, 1][..])
    );
    assert_eq!(
        file.values.sizes_of(&kernel.values[col("GroupWorkSize")]),
        Some(&[128, 1, 1][..])
    );
    assert_eq!(kernel.values[col("MemTransferSize")], CounterValue::Empty);
    assert_eq!(kernel.values[col("ALUPacking")].as_f64(), Some(71.99));
    let aggregates = file.aggregates();
    assert_eq!(aggregates.len(), 1, "transfer rows have no time");
    assert_eq!(aggregates[0].dispatches, 10);
    assert!((aggregates[0].total_time_ms - 189.88484).abs() < 1e-9);
    assert!((aggregates[0].average_time_ms - 18.988484).abs() < 1e-9);
}

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/codexl")
        .join(name)
}

#[test]
fn the_generated_session_counters() {
    let spec = sightline_test_support::codexl::session_spec();
    let dispatches = sightline_test_support::codexl::tables::dispatches(&spec);
    let file = CounterFile::open(&fixture("session1.csv")).unwrap();
    assert!(file.warnings().is_empty(), "{:?}", file.warnings());
    assert_eq!(file.rows.len(), dispatches.len());
    for (row, d) in file.rows.iter().zip(&dispatches) {
        assert_eq!(
            (&*row.kernel, row.kernel_id, row.device.as_deref()),
            (d.kernel, Some(d.kernel_id), Some("Hawaii"))
        );
        assert_eq!(
            file.row_for_call(d.thread_id, d.call_index).map(|r| r.line),
            Some(row.line)
        );
    }
}

#[test]
fn malformed_rows_warn_with_their_line_and_the_rest_loads() {
    let text = "#ListSeparator=;\nMethod; Time; GlobalWorkSize\na__k1_X1; 1.5; {1 1 1}\nb__k2_X1; 2.5\n\n\u{1}garbage; ; ; ; ;\nc__k3_X1; abc; {1; 2}\r\nd&nbsp;e__k4_X1; 1e400; {}\n";
    let file = CounterFile::parse(text.as_bytes());
    let lines: Vec<u64> = file
        .warnings()
        .iter()
        .map(|w| w.location.line_number().unwrap_or(0) as u64)
        .collect();
    assert_eq!(lines, vec![4, 6]);
    assert_eq!(file.rows.len(), 5);
    assert_eq!(file.rows[1].values[2], CounterValue::Empty, "missing field");
    assert_eq!(file.values.str_of(&file.rows[3].values[1]), Some("abc"));
    assert_eq!(
        file.values.sizes_of(&file.rows[3].values[2]),
        Some(&[1, 2][..])
    );
    assert_eq!(&*file.rows[4].kernel, "d e");
    assert_eq!(
        file.values.str_of(&file.rows[4].values[1]),
        Some("1e400"),
        "not finite: kept as text"
    );
    assert_eq!(file.aggregates().len(), 2);
    for garbage in [
        &b""[..],
        b"\xff\xfe",
        b"#",
        b"#ListSeparator=",
        b"{{{{",
        b";;;\n;;;",
    ] {
        let _ = CounterFile::parse(garbage);
    }
}
