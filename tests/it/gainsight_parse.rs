//! Gainsight's log reader line by line, and bad input: every problem is a warning with file and
//! line, or a clear error — never a panic.

use sightline::gainsight::{
    Analysis, AnalyzeOptions, Cache, EndStat, FrontendReport, GainsightError, Level, LogLine,
    Params, Source, analyze, classify, read_kernel_csv, read_lifetime_csv,
};
use sightline::problem::Location;

fn analyze_bytes(name: &str, bytes: &[u8]) -> Result<Analysis, GainsightError> {
    analyze(
        &[Source::from_bytes(name, bytes.to_vec())],
        &Params::default(),
        &AnalyzeOptions {
            threads: 2,
            ..AnalyzeOptions::default()
        },
        &mut |_| Ok(()),
    )
}

const HEADER: &str =
    "Processing kernel /x/logs/prog/traces/kernel-4.traceg\n-kernel name = _Z1kv\n-kernel id = 4\n";
const END: &str = "gpu_sim_cycle = 1000\n";

fn access(cycle: u64, kind: &str, cache: &str, sm: u32, addr: &str, status: u32) -> String {
    format!(
        "GPGPU-Sim Cycle {cycle}: {kind} instr from {cache} cache at SM {sm} bank 0 addr {addr} status {status}\n"
    )
}

#[test]
fn every_line_kind_is_classified() {
    assert!(
        matches!(classify(b"Processing kernel /a/b/kernel-1.traceg"), LogLine::ProcessingKernel(p) if p == b"/a/b/kernel-1.traceg")
    );
    assert_eq!(
        classify(b"-kernel name = _Z3fooPf"),
        LogLine::KernelName(b"_Z3fooPf")
    );
    assert_eq!(classify(b"-kernel id = 25"), LogLine::KernelId(25));
    assert_eq!(
        classify(b"GPGPU-Sim: Reconfigure L1 cache to 120KB"),
        LogLine::ReconfigureL1(120 * 1024)
    );
    assert_eq!(
        classify(b"gpu_sim_cycle = 31057"),
        LogLine::EndStat(EndStat::SimCycle, b"31057")
    );
    assert_eq!(
        classify(b"gpu_sim_insn = 3310536"),
        LogLine::EndStat(EndStat::SimInsn, b"3310536")
    );
    assert_eq!(
        classify(b"gpu_tot_sim_cycle = 103839"),
        LogLine::EndStat(EndStat::TotSimCycle, b"103839")
    );
    assert_eq!(
        classify(b"gpu_tot_sim_insn = 88674750"),
        LogLine::EndStat(EndStat::TotSimInsn, b"88674750")
    );
    assert_eq!(
        classify(b"gpgpu_simulation_time = 0 days, 0 hrs, 0 min, 28 sec (28 sec)"),
        LogLine::EndStat(
            EndStat::SimulationTime,
            b"0 days, 0 hrs, 0 min, 28 sec (28 sec)"
        )
    );
    // Stores, L2, other caches, upper-case hex, a CRLF ending, leading blanks.
    let LogLine::Access(a) = classify(
        b"  GPGPU-Sim Cycle 7: Store instr from L2 cache at SM 3 bank 5 addr 0xABCDEF00 status 4\r",
    ) else {
        panic!("not an access")
    };
    assert!(a.store && a.cache == Cache::Level(Level::L2) && a.sm == 3 && a.bank == 5);
    assert_eq!((a.address, a.status, a.cycle), (0xABCD_EF00, 4, 7));
    let LogLine::Access(a) =
        classify(b"GPGPU-Sim Cycle 7: Load instr from L1I cache at SM 0 bank 0 addr 10 status 0")
    else {
        panic!("not an access")
    };
    assert_eq!(a.cache, Cache::Other);
    // Unknown lines are Other, not errors.
    for line in [
        &b"gpu_stall_dramfull = 1"[..],
        b"",
        b"GPGPU-Sim uArch: Shader 0",
        b"-grid dim = (1,1,1)",
        b"\xff\xfe",
    ] {
        assert_eq!(classify(line), LogLine::Other, "{line:?}");
    }
}

#[test]
fn truncated_and_malformed_lines_are_warnings_with_their_line() {
    let mut log = String::from(HEADER);
    log += &access(10, "Load", "L1D", 0, "100", 2);
    log += "GPGPU-Sim Cycle 20: Load instr from L1D cache at SM 0 bank 0 addr 1\n"; // line 5
    log += "GPGPU-Sim Cycle 30: Load instr from L1D cache at SM 0 bank 0 addr zz status 0\n"; // line 6
    log += &access(40, "Load", "L1D", 0, "100", 9); // line 7: unknown status
    log += &access(50, "Load", "L1D", 0, "100", 0);
    log += "-kernel id = twelve\n"; // line 9
    log += "gpu_ipc = fast\n"; // line 10
    log += END;
    log += "GPGPU-Sim Cycle 99: Load instr from L2 cac"; // line 12, truncated at end of file
    let a = analyze_bytes("t.log", log.as_bytes()).unwrap();
    let lines: Vec<usize> = a
        .warnings
        .iter()
        .filter_map(|w| w.problem.location.line_number())
        .collect();
    assert_eq!(lines, [5, 6, 7, 9, 10, 12], "{:?}", a.warnings);
    assert!(a.warnings.iter().all(|w| w.file.as_os_str() == "t.log"));
    assert_eq!(
        a.warnings[0]
            .problem
            .plain_in(&a.warnings[0].file)
            .to_string()
            .split(':')
            .take(2)
            .collect::<Vec<_>>(),
        ["t.log", "5"]
    );
    assert_eq!(a.lines.malformed, 6);
    // The good lines still count: one lifetime of 40 cycles.
    assert_eq!(
        a.store
            .level(Level::L1)
            .count(sightline::gainsight::Selection::All),
        1
    );
    assert_eq!(
        a.store
            .level(Level::L1)
            .max_cycles(sightline::gainsight::Selection::All),
        Some(40)
    );
}

#[test]
fn unknown_lines_are_counted_and_skipped() {
    let mut log = String::from("some preamble\n");
    log += HEADER;
    log += "GPGPU-Sim uArch: something\nrandom text\n\n";
    log += &access(10, "Load", "L1D", 0, "100", 2);
    log += END;
    let a = analyze_bytes("u.log", log.as_bytes()).unwrap();
    assert_eq!(a.lines.skipped, 4);
    assert_eq!(a.lines.total, 9);
    assert!(a.warnings.is_empty(), "{:?}", a.warnings);
}

#[test]
fn a_kernel_without_end_statistics_is_warned_at_its_header() {
    let mut log = String::from("line one\n");
    log += HEADER;
    log += &access(10, "Load", "L1D", 0, "100", 2);
    log += &access(700, "Load", "L1D", 0, "100", 0);
    let a = analyze_bytes("n.log", log.as_bytes()).unwrap();
    assert_eq!(a.warnings.len(), 1);
    assert_eq!(a.warnings[0].problem.location.line_number(), Some(2));
    assert!(
        a.warnings[0]
            .problem
            .message
            .contains("no end-of-kernel statistics")
    );
    assert_eq!(a.rows[0].total_cycles, 700);
}

#[test]
fn non_utf8_bytes_are_tolerated() {
    let mut log =
        b"Processing kernel /x/\xff\xfe/kernel-4.traceg\n-kernel name = _Z\xe9k\n-kernel id = 4\n"
            .to_vec();
    log.extend_from_slice(b"\xc3\x28 garbage \x80\n");
    log.extend_from_slice(access(10, "Load", "L1D", 0, "100", 2).as_bytes());
    log.extend_from_slice(access(20, "Load", "L1D", 0, "100", 0).as_bytes());
    log.extend_from_slice(END.as_bytes());
    let a = analyze_bytes("bad-utf8.log", &log).unwrap();
    assert_eq!(a.kernels.len(), 1);
    assert_eq!(a.rows[0].name, "_Z\u{fffd}k");
    let lines: Vec<u64> = a
        .warnings
        .iter()
        .map(|w| w.problem.location.line_number().unwrap_or(0) as u64)
        .collect();
    assert_eq!(lines, [1, 2], "{:?}", a.warnings);
    assert!(a.warnings[1].problem.message.contains("not UTF-8"));
}

#[test]
fn an_empty_file_is_a_clear_error() {
    let e = analyze_bytes("empty.log", b"").unwrap_err();
    assert!(matches!(e, GainsightError::NoKernels { .. }));
    let text = e.to_string();
    assert!(
        text.contains("empty.log") && text.contains("empty file"),
        "{text}"
    );
}

#[test]
fn a_binary_file_is_a_clear_error_or_warned() {
    let mut state = 0x1234_5678_9abc_def0u64;
    let bytes: Vec<u8> = (0..200_000)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state >> 24) as u8
        })
        .collect();
    let e = analyze_bytes("blob.bin", &bytes).unwrap_err();
    let text = e.to_string();
    assert!(
        text.contains("blob.bin") && text.contains("binary"),
        "{text}"
    );
    // A binary prefix before a real log: warned, the log still read.
    let mut mixed = bytes[..5000].to_vec();
    mixed.push(b'\n');
    mixed.extend_from_slice(HEADER.as_bytes());
    mixed.extend_from_slice(access(10, "Load", "L2", 0, "100", 2).as_bytes());
    mixed.extend_from_slice(access(30, "Load", "L2", 0, "100", 0).as_bytes());
    mixed.extend_from_slice(END.as_bytes());
    let a = analyze_bytes("mixed.bin", &mixed).unwrap();
    assert_eq!(a.kernels.len(), 1);
    assert!(
        a.warnings
            .iter()
            .any(|w| w.problem.location == Location::None && w.problem.message.contains("binary"))
    );
}

#[test]
fn a_kernel_without_id_takes_it_from_its_path_and_says_so() {
    let mut log = String::from("Processing kernel /x/traces/kernel-31.traceg\n");
    log += &access(10, "Store", "L1D", 1, "100", 0);
    log += &access(20, "Load", "L1D", 1, "100", 0);
    log += END;
    let a = analyze_bytes("i.log", log.as_bytes()).unwrap();
    assert_eq!(a.rows[0].kernel_id, 31);
    assert_eq!(a.warnings.len(), 1);
    assert!(a.warnings[0].problem.message.contains("id 31"));
    assert_eq!(a.warnings[0].problem.location, Location::line(1));
}

#[test]
fn crlf_logs_read_like_lf_logs() {
    let mut log = String::from(HEADER);
    log += &access(10, "Load", "L1D", 0, "100", 2);
    log += &access(25, "Load", "L1D", 0, "100", 0);
    log += END;
    let crlf = log.replace('\n', "\r\n");
    let a = analyze_bytes("lf.log", log.as_bytes()).unwrap();
    let b = analyze_bytes("crlf.log", crlf.as_bytes()).unwrap();
    assert_eq!(a.rows, b.rows);
    assert!(b.warnings.is_empty());
}

#[test]
fn cancel_stops_the_analysis() {
    let cancel = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(true));
    let mut log = String::from(HEADER);
    log += &access(10, "Load", "L1D", 0, "100", 2);
    let e = analyze(
        &[Source::from_bytes("c.log", log.into_bytes())],
        &Params::default(),
        &AnalyzeOptions {
            threads: 1,
            progress: sightline::core::Progress::new(&*cancel),
            render_lifetime_csv: false,
            merged_lifetimes_only: false,
        },
        &mut |_| Ok(()),
    )
    .unwrap_err();
    assert!(matches!(e, GainsightError::Cancelled(_)));
}

#[test]
fn bad_csv_and_json_are_errors_with_their_line() {
    let e = read_lifetime_csv(
        "a.csv",
        &b"kernel_id,address,lifetime_cycles,lifetime_ns\n1,2.00,3.00\n"[..],
    )
    .unwrap_err();
    assert_eq!(e.to_string(), "a.csv:2: expected 4 fields, found 3");
    let e = read_lifetime_csv("b.csv", &b"x,y\n"[..]).unwrap_err();
    assert!(e.to_string().starts_with("b.csv:1:"));
    let e = read_lifetime_csv(
        "c.csv",
        &b"kernel_id,address,lifetime_cycles,lifetime_ns\n1,2.50,3.00,1.0\n"[..],
    )
    .unwrap_err();
    assert!(e.to_string().contains("whole number"));
    let e = read_kernel_csv("k.csv", &b"Kernel ID\n1\n"[..]).unwrap_err();
    assert!(e.to_string().starts_with("k.csv:1:"));
    assert!(FrontendReport::read("r.json", "{\"Name\": 1}").is_err());
    assert!(FrontendReport::read("r.json", "[1, 2").is_err());
    assert!(FrontendReport::read("r.json", "").is_err());
}
