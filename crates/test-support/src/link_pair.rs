//! A generated pair with known answers for the Nsight Compute ↔ timeline link: one program's
//! timeline (an nsys-shaped export: two processes, kernels repeated with different grids, NVTX
//! push/pop ranges around them) and Nsight Compute reports that profiled subsets of its launches
//! — the same run with `-k` and `--launch-skip`, another run with everything profiled, and an
//! old report without a command line whose repeated kernels stay ambiguous unless NVTX tells.
//! [`SCENARIOS`] gives, per report, what each result must match.

use std::io;
use std::path::Path;

use rusqlite::{Connection, params};

use crate::ncu::synth::{KernelSpec, kernel_message, nvtx_state, session_details};
use crate::ncu::writer::ReportWriter;
use crate::nsys::{SCHEMA, insert_strings};
use sightline_model::proto::nv::profiler::messages as pb;

/// The process of the timeline's program.
pub const APP_PID: u32 = 100;
/// The program's path (the report's process name; the export's process name is its file name).
pub const APP_PATH: &str = "/opt/app/train";
/// Another program on the same timeline: its kernels must never match.
pub const OTHER_PID: u32 = 300;

/// A kernel: function name; demangled as nsys and as ncu spell it; mangled as each stores it
/// (empty: none).
struct Kernel {
    function: &'static str,
    nsys_demangled: &'static str,
    ncu_demangled: &'static str,
    nsys_mangled: &'static str,
    ncu_mangled: &'static str,
}

const KERNELS: [Kernel; 2] = [
    Kernel {
        function: "gemm",
        nsys_demangled: "void gemm<float>(const float *, float *, int)",
        ncu_demangled: "void gemm<float>(const float*, float*, int)",
        nsys_mangled: "_Z4gemmIfEvPKfPfi",
        ncu_mangled: "_Z4gemmIfEvPKfPfi",
    },
    Kernel {
        function: "relu",
        nsys_demangled: "relu(float *, int)",
        ncu_demangled: "relu(float*, int)",
        nsys_mangled: "_Z4reluPfi",
        // An old report without mangled names: the demangled signature decides.
        ncu_mangled: "",
    },
];

/// One kernel launch of the timeline.
#[derive(Debug, Clone, Copy)]
pub struct Launch {
    /// Launching process.
    pub pid: u32,
    /// Start of the kernel (ns).
    pub start: i64,
    kernel: usize,
    grid: [u64; 3],
    block: [u64; 3],
    stream: u32,
    nvtx: &'static str,
}

const G8: [u64; 3] = [8, 1, 1];
const G16: [u64; 3] = [16, 1, 1];
const G4: [u64; 3] = [4, 1, 1];
const B128: [u64; 3] = [128, 1, 1];
const B64: [u64; 3] = [64, 1, 1];

const fn launch(
    pid: u32,
    start: i64,
    kernel: usize,
    grid: [u64; 3],
    block: [u64; 3],
    stream: u32,
    nvtx: &'static str,
) -> Launch {
    Launch {
        pid,
        start,
        kernel,
        grid,
        block,
        stream,
        nvtx,
    }
}

/// The timeline's launches, by start; `L0`..`L7` are the program's, `L8` another program's.
pub const LAUNCHES: [Launch; 9] = [
    launch(APP_PID, 10_000, 0, G8, B128, 7, "step 0"), // L0 gemm g8
    launch(APP_PID, 20_000, 1, G4, B64, 7, "step 0"),  // L1 relu
    launch(APP_PID, 30_000, 0, G16, B128, 7, "step 0"), // L2 gemm g16
    launch(APP_PID, 40_000, 0, G8, B128, 7, "step 1"), // L3 gemm g8
    launch(APP_PID, 50_000, 1, G4, B64, 9, "step 1"),  // L4 relu, stream 9
    launch(APP_PID, 60_000, 0, G8, B128, 7, "step 1"), // L5 gemm g8
    launch(APP_PID, 70_000, 0, G8, B128, 7, "step 2"), // L6 gemm g8
    launch(APP_PID, 80_000, 1, G4, B64, 7, "step 2"),  // L7 relu
    launch(OTHER_PID, 15_000, 0, G8, B128, 7, ""),     // L8 another program's gemm
];

/// What a result must match: launches by index into [`LAUNCHES`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Expected {
    /// Exactly this launch.
    Certain(usize),
    /// These launches, offered as candidates (in any order).
    Candidates(&'static [usize]),
}

/// One report of the program: who ran it, how, which launches it profiled, and the answers.
pub struct Scenario {
    /// File stem of the report.
    pub name: &'static str,
    /// The `ncu` command line stored in the report (`None`: an old report storing none).
    pub command_line: Option<&'static str>,
    /// The profiled process's pid (the timeline's run is [`APP_PID`]).
    pub pid: u32,
    /// Profiled launches (indices into [`LAUNCHES`]) with the stream id the report gives.
    pub results: &'static [(usize, u32)],
    /// What each result must match.
    pub expected: &'static [Expected],
}

/// Every report of the generated pair.
pub const SCENARIOS: &[Scenario] = &[
    // The same run: `-k gemm --launch-skip 1 -c 3` profiled the 2nd to 4th gemm launches
    // (L2 with grid 16, then L3 and L5 with grid 8).
    Scenario {
        name: "same_run_skip",
        command_line: Some("ncu -k gemm --launch-skip 1 -c 3 -o same_run_skip /opt/app/train"),
        pid: APP_PID,
        results: &[(2, 7), (3, 7), (5, 7)],
        expected: &[
            Expected::Certain(2),
            Expected::Certain(3),
            Expected::Certain(5),
        ],
    },
    // Another run of the same program (another pid, other stream numbers), everything
    // profiled: launch order decides; the other program's gemm never matches.
    Scenario {
        name: "other_run_all",
        command_line: Some("ncu -o other_run_all /opt/app/train"),
        pid: 555,
        results: &[
            (0, 13),
            (1, 13),
            (2, 13),
            (3, 13),
            (4, 14),
            (5, 13),
            (6, 13),
            (7, 13),
        ],
        expected: &[
            Expected::Certain(0),
            Expected::Certain(1),
            Expected::Certain(2),
            Expected::Certain(3),
            Expected::Certain(4),
            Expected::Certain(5),
            Expected::Certain(6),
            Expected::Certain(7),
        ],
    },
    // An old report without a command line (filters unknown), another run: one gemm with
    // grid 8 of four launches stays ambiguous (NVTX cannot break the tie: L3 and L5 share
    // "step 1", and come first); the relu of "step 1" is L4 by NVTX; the only gemm with grid
    // 16 is L2.
    Scenario {
        name: "unknown_filters",
        command_line: None,
        pid: 777,
        results: &[(5, 1), (4, 1), (2, 1)],
        expected: &[
            Expected::Candidates(&[0, 3, 5, 6]),
            Expected::Certain(4),
            Expected::Certain(2),
        ],
    },
];

const RUNTIME_NAME: i64 = 0;
const APP_THREAD_NAME: i64 = 1;
const OTHER_THREAD_NAME: i64 = 2;
const FIRST_KERNEL_STRING: i64 = 3;

/// Writes the timeline's export at `path` (which must not exist).
pub fn write_timeline(path: &Path) -> rusqlite::Result<()> {
    let mut conn = Connection::open(path)?;
    conn.execute_batch(SCHEMA)?;
    let tx = conn.transaction()?;
    let mut strings = vec!["cudaLaunchKernel_v7000", "train", "other"];
    for k in &KERNELS {
        strings.extend([k.nsys_demangled, k.function, k.nsys_mangled]);
    }
    insert_strings(&tx, &strings)?;
    for (k, v) in [
        ("EXPORT_PRODUCT_VERSION", "2024.5.1.113"),
        ("EXPORT_SCHEMA_VERSION", "3.13.2"),
    ] {
        tx.execute(
            "INSERT INTO META_DATA_EXPORT VALUES (?1, ?2)",
            params![k, v],
        )?;
    }
    let gpid = |pid: u32| i64::from(pid) << 24;
    for (pid, name, thread_name) in [
        (APP_PID, "train", APP_THREAD_NAME),
        (OTHER_PID, "other", OTHER_THREAD_NAME),
    ] {
        tx.execute(
            "INSERT INTO PROCESSES VALUES (?1, ?2, ?3)",
            params![gpid(pid), pid, name],
        )?;
        tx.execute(
            "INSERT INTO ThreadNames VALUES (?1, 0, ?2)",
            params![thread_name, gpid(pid) | i64::from(pid)],
        )?;
    }
    // NVTX push/pop ranges on the program's main thread.
    let main_tid = gpid(APP_PID) | i64::from(APP_PID);
    for (name, start, end) in [
        ("step 0", 5_000, 35_000),
        ("step 1", 35_000, 65_000),
        ("step 2", 65_000, 90_000),
    ] {
        tx.execute(
            "INSERT INTO NVTX_EVENTS (start, end, eventType, globalTid, text) VALUES (?1, ?2, 59, ?3, ?4)",
            params![start, end, main_tid, name],
        )?;
    }
    for (i, l) in LAUNCHES.iter().enumerate() {
        let correlation = i as i64 + 1;
        let tid = gpid(l.pid) | i64::from(l.pid);
        let call = l.start - 3_000;
        tx.execute(
            "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (?1, ?2, 0, ?3, ?4, ?5, 0, NULL)",
            params![call, call + 2_000, tid, correlation, RUNTIME_NAME],
        )?;
        let names = FIRST_KERNEL_STRING + 3 * l.kernel as i64;
        tx.execute(
            "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL (start, end, deviceId, contextId, streamId,
               correlationId, globalPid, demangledName, shortName, mangledName,
               registersPerThread, gridX, gridY, gridZ, blockX, blockY, blockZ,
               staticSharedMemory, dynamicSharedMemory, localMemoryPerThread, localMemoryTotal,
               gridId)
             VALUES (?1, ?2, 0, 1, ?3, ?4, ?5, ?6, ?7, ?8, 32, ?9, ?10, ?11, ?12, ?13, ?14,
               0, 0, 0, 0, ?4)",
            params![
                l.start,
                l.start + 4_000,
                l.stream,
                correlation,
                gpid(l.pid),
                names,
                names + 1,
                names + 2,
                l.grid[0] as i64,
                l.grid[1] as i64,
                l.grid[2] as i64,
                l.block[0] as i64,
                l.block[1] as i64,
                l.block[2] as i64,
            ],
        )?;
    }
    tx.commit()
}

/// Writes the report of `scenario` to `out`.
pub fn write_report(scenario: &Scenario, out: impl io::Write) -> io::Result<()> {
    let mut writer = ReportWriter::new(out)?;
    let mut session = session_details();
    session.process_id = Some(scenario.pid);
    session.profiler_cmdline = scenario.command_line.map(str::to_owned);
    writer.session(session);
    writer.process(pb::ProcessInfo {
        process_id: scenario.pid,
        hostname: Some("sightline-link".into()),
        process_name: Some(APP_PATH.into()),
    });
    for (i, &(launch, stream)) in scenario.results.iter().enumerate() {
        let l = LAUNCHES[launch];
        let k = &KERNELS[l.kernel];
        let spec = KernelSpec {
            function: k.function.into(),
            demangled: k.ncu_demangled.into(),
            mangled: k.ncu_mangled.into(),
            grid: l.grid,
            block: l.block,
            metrics: Vec::new(),
            sections: Vec::new(),
            rule_results: Vec::new(),
            nvtx: Some(nvtx_state(&[l.nvtx], &[], None)),
            stream,
        };
        let message = kernel_message(&mut writer, &spec, i as u64 + 1);
        writer.add_result(&message);
    }
    writer.flush_block()?;
    writer.finish()?;
    Ok(())
}
