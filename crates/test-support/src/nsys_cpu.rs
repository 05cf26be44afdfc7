//! The CPU side of the generated Nsight Systems exports ([`crate::nsys`]): CPU samples
//! (`COMPOSITE_EVENTS`, each with its call stack in `SAMPLING_CALLCHAINS`, `stackDepth` 0 the
//! innermost frame) and thread scheduling (`SCHED_EVENTS`: sched-in/sched-out pairs), on the
//! generated threads, with the columns of the schema reference. Deterministic for a seed.
//!
//! The stacks are drawn from a fixed set of call paths built like a program's call tree: a few
//! hundred functions in a dozen modules, each path a prefix of an earlier one extended by
//! random calls, 5 to 30 frames deep (shallow ones more often), some ending in the kernel
//! (unresolved addresses). Samples pick paths with a strong skew, as a hot loop dominates a
//! real profile.

use rusqlite::{Transaction, params};

use crate::rng::Rng;

/// CPU samples and scheduling events to add to a generated export.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CpuOptions {
    /// `COMPOSITE_EVENTS` rows (each with a call stack of 5–30 frames).
    pub samples: u64,
    /// `SCHED_EVENTS` rows (sched-in/sched-out pairs; an odd count is rounded down).
    pub sched: u64,
}

/// Rows written by [`write_cpu`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CpuCounts {
    /// `COMPOSITE_EVENTS` rows.
    pub samples: u64,
    /// `SAMPLING_CALLCHAINS` rows.
    pub callchain_rows: u64,
    /// `SCHED_EVENTS` rows.
    pub sched: u64,
}

/// The CPU sampling and scheduling tables (also written by the families export).
pub(crate) const CPU_SCHEMA: &str = "
CREATE TABLE COMPOSITE_EVENTS (id INTEGER NOT NULL PRIMARY KEY, start INTEGER NOT NULL, cpu INTEGER NOT NULL,
  threadState INTEGER NOT NULL, globalTid INTEGER NOT NULL, cpuCycles INTEGER NOT NULL);
CREATE TABLE SAMPLING_CALLCHAINS (id INTEGER NOT NULL, symbol INTEGER NOT NULL, module INTEGER NOT NULL,
  kernelMode INTEGER, thumbCode INTEGER, unresolved INTEGER, specialEntry INTEGER, originalIP INTEGER,
  unwindMethod INTEGER, stackDepth INTEGER NOT NULL);
CREATE TABLE SCHED_EVENTS (start INTEGER NOT NULL, cpu INTEGER NOT NULL, isSchedIn INTEGER NOT NULL,
  globalTid INTEGER NOT NULL, threadState INTEGER, threadBlock INTEGER);
";

const MODULES: &[&str] = &[
    "sightline-synth",
    "libc.so.6",
    "libstdc++.so.6",
    "libcudart.so.12",
    "libcuda.so.1",
    "libcublas.so.12",
    "libnccl.so.2",
    "libm.so.6",
    "libgomp.so.1",
    "libpython3.11.so.1.0",
    "libtorch_cpu.so",
    "[kernel.kallsyms]",
];

/// The module of kernel frames (their symbols are unresolved addresses).
const KERNEL_MODULE: usize = 11;

const NAMESPACES: &[&str] = &[
    "app", "io", "net", "sched", "mem", "math", "nn", "graph", "cuda", "rt",
];
const VERBS: &[&str] = &[
    "run", "step", "update", "compute", "load", "store", "dispatch", "reduce", "copy", "wait",
    "parse", "emit", "resolve", "launch", "sync",
];
const NOUNS: &[&str] = &[
    "batch", "tensor", "kernel", "buffer", "queue", "frame", "layer", "block", "event", "stream",
    "graph", "task", "chunk", "page", "request", "tile", "row", "node", "cache", "plan",
];

/// Functions of the synthetic program.
const FUNCTIONS: usize = 320;
/// Kernel addresses (unresolved frames).
const KERNEL_SYMBOLS: usize = 24;
/// Distinct call paths samples are drawn from.
const PATHS: usize = 4096;
/// CPUs of the machine.
const CPUS: i64 = 16;

/// A frame: string ids of symbol and module, unresolved.
type Frame = (i64, i64, bool);

/// Creates the CPU tables the options ask for and fills them; `strings` is the first free
/// `StringIds` id, `threads` the globalTids of the generated threads, `[t0, t1]` the time the
/// other events span.
pub fn write_cpu(
    tx: &Transaction<'_>,
    options: &CpuOptions,
    seed: u64,
    strings: i64,
    threads: &[i64],
    (t0, t1): (i64, i64),
) -> rusqlite::Result<CpuCounts> {
    let mut counts = CpuCounts::default();
    if (options.samples == 0 && options.sched < 2) || threads.is_empty() {
        return Ok(counts);
    }
    tx.execute_batch(CPU_SCHEMA)?;
    let mut rng = Rng(seed.max(1).wrapping_mul(0xD1B5_4A32_D192_ED03) | 1);
    let span = (t1 - t0).max(1);
    if options.samples > 0 {
        let paths = call_paths(tx, &mut rng, strings)?;
        let mut sample =
            tx.prepare("INSERT INTO COMPOSITE_EVENTS VALUES (?1, ?2, ?3, 1, ?4, ?5)")?;
        let mut frame = tx.prepare(
            "INSERT INTO SAMPLING_CALLCHAINS VALUES (?1, ?2, ?3, ?4, NULL, ?5, NULL, 0, 7, ?6)",
        )?;
        let n = options.samples;
        let per_thread = n.div_ceil(threads.len() as u64).max(1);
        let period = (span as u64 / per_thread).max(1) as i64;
        for i in 0..n {
            let id = i as i64 + 1;
            let t = (i % threads.len() as u64) as usize;
            let start =
                t0 + (i / threads.len() as u64) as i64 * period + rng.range(0, period / 4 + 1);
            let cpu = (t as i64 * 2 + rng.range(0, 2)) % CPUS;
            sample.execute(params![
                id,
                start,
                cpu,
                threads[t],
                rng.range(1_000, 2_000_000)
            ])?;
            // Strongly skewed: low path indices (the hot loops) are drawn most.
            let hot = rng.below(PATHS as u64) + 1;
            let p = rng.below(hot) as usize;
            let path = &paths[p];
            for (depth, &(symbol, module, unresolved)) in path.iter().rev().enumerate() {
                frame.execute(params![
                    id,
                    symbol,
                    module,
                    i64::from(module == strings + KERNEL_MODULE as i64),
                    i64::from(unresolved),
                    depth as i64
                ])?;
            }
            counts.callchain_rows += path.len() as u64;
        }
        counts.samples = n;
    }
    let pairs = options.sched / 2;
    if pairs > 0 {
        let mut sched = tx.prepare("INSERT INTO SCHED_EVENTS VALUES (?1, ?2, ?3, ?4, ?5, NULL)")?;
        let per_thread = pairs.div_ceil(threads.len() as u64).max(1);
        let slot = (span as u64 / per_thread).max(4) as i64;
        let mut cpu: Vec<i64> = (0..threads.len() as i64).map(|t| (t * 2) % CPUS).collect();
        let mut written = 0u64;
        'slots: for k in 0..per_thread as i64 {
            for (t, &gtid) in threads.iter().enumerate() {
                if written == pairs {
                    break 'slots;
                }
                // Mostly on the same CPU; sometimes migrated.
                if rng.chance(10) {
                    cpu[t] = rng.range(0, CPUS);
                }
                let start = t0 + k * slot + rng.range(0, slot / 4 + 1);
                let end = start + rng.range(slot / 4, slot / 2 + 1).max(1);
                sched.execute(params![start, cpu[t], 1, gtid, 1])?;
                sched.execute(params![end, cpu[t], 0, gtid, 2])?;
                written += 1;
            }
        }
        counts.sched = written * 2;
    }
    Ok(counts)
}

/// Writes the functions' and modules' strings from id `strings` on and builds [`PATHS`] call
/// paths, outermost frame first.
fn call_paths(
    tx: &Transaction<'_>,
    rng: &mut Rng,
    strings: i64,
) -> rusqlite::Result<Vec<Vec<Frame>>> {
    let mut insert = tx.prepare("INSERT INTO StringIds VALUES (?1, ?2)")?;
    let mut next = strings;
    let mut add = |text: &str| -> rusqlite::Result<i64> {
        insert.execute(params![next, text])?;
        next += 1;
        Ok(next - 1)
    };
    for m in MODULES {
        add(m)?;
    }
    let module_id = |m: usize| strings + m as i64;
    // Entry points: the thread start and main.
    let entries: Vec<Frame> = vec![
        (add("clone3")?, module_id(1), false),
        (add("start_thread")?, module_id(1), false),
        (add("__libc_start_call_main")?, module_id(1), false),
        (add("main")?, module_id(0), false),
    ];
    let mut functions: Vec<Frame> = Vec::with_capacity(FUNCTIONS);
    for f in 0..FUNCTIONS {
        let name = format!(
            "{}::{}_{}{}",
            NAMESPACES[f % NAMESPACES.len()],
            VERBS[(f / NAMESPACES.len()) % VERBS.len()],
            NOUNS[(f * 7 + f / 3) % NOUNS.len()],
            f / 100
        );
        // Modules other than the kernel's, the application's most.
        let module = if f % 3 == 0 {
            0
        } else {
            1 + f % (MODULES.len() - 2)
        };
        functions.push((add(&name)?, module_id(module), false));
    }
    let mut kernel: Vec<Frame> = Vec::with_capacity(KERNEL_SYMBOLS);
    for k in 0..KERNEL_SYMBOLS {
        let address = format!("0xffffffff8{:07x}", 0x10_0000 + k * 0x1_3a70);
        kernel.push((add(&address)?, module_id(KERNEL_MODULE), true));
    }
    let mut paths: Vec<Vec<Frame>> = Vec::with_capacity(PATHS);
    for p in 0..PATHS {
        // Shallow stacks are the most common: 5 + the smaller of two draws in 0..=25.
        let depth = 5 + rng.below(26).min(rng.below(26)) as usize;
        let mut path: Vec<Frame> = if p > 0 && rng.chance(85) {
            // A prefix of an earlier path: callers shared, as in a real call tree.
            let base = &paths[rng.below(p as u64) as usize];
            let keep = 1 + rng.below(base.len().min(depth) as u64) as usize;
            base[..keep].to_vec()
        } else {
            let thread_root = rng.chance(50);
            if thread_root {
                entries[..2].to_vec()
            } else {
                entries[2..].to_vec()
            }
        };
        path.truncate(depth.saturating_sub(1));
        while path.len() < depth {
            let last = path.len() + 1 == depth;
            if last && rng.chance(15) {
                path.push(*rng.pick(&kernel));
            } else {
                path.push(*rng.pick(&functions));
            }
        }
        paths.push(path);
    }
    Ok(paths)
}
