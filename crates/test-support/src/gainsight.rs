//! Synthetic GPGPU-Sim logs with known lifetimes, for tests, fixtures and benchmarks.
//!
//! Each kernel has L1 objects (an address in one SM's L1; some addresses are shared by several
//! SMs) and L2 objects (an address; SM and bank vary per line). An object lives through
//! episodes: a start (Load miss 2 / sector miss 4, or a Store), then 0..n reads (hits 0, 1, 5);
//! the lifetime is last read − start by construction, and an episode without reads is no
//! lifetime. Some objects get hits before their first start (no lifetime), reservation fails
//! (status 3) are inserted before some accesses, other caches' lines and unknown lines are mixed
//! in, and the last episode of each object is closed by the end of the kernel. The expected
//! results are recorded while generating, not by re-parsing.

use std::io::{self, Write};

use sightline_model::gainsight::Lifetime;

use crate::rng::Rng;

/// What to generate.
#[derive(Debug, Clone)]
pub struct GenConfig {
    /// PRNG seed.
    pub seed: u64,
    /// Number of kernels.
    pub kernels: usize,
    /// Id of the first kernel (then +1 each).
    pub first_kernel_id: u64,
    /// Streaming multiprocessors.
    pub sms: u32,
    /// Banks.
    pub banks: u32,
    /// L1 objects per kernel.
    pub l1_objects: usize,
    /// L2 objects per kernel.
    pub l2_objects: usize,
    /// Most episodes per object.
    pub max_episodes: u32,
    /// Most reads per episode.
    pub max_reads: u32,
    /// Cycle span in which objects begin.
    pub span_cycles: u64,
    /// One unknown line per this many accesses (0: none).
    pub noise_every: u32,
    /// Kernels (by position) written without end-of-kernel statistics.
    pub without_end_stats: Vec<usize>,
    /// The program folder in `Processing kernel` paths.
    pub program: String,
    /// Record expected lifetimes (off for huge benchmark logs).
    pub keep_expected: bool,
}

impl Default for GenConfig {
    fn default() -> Self {
        GenConfig {
            seed: 1,
            kernels: 3,
            first_kernel_id: 1,
            sms: 4,
            banks: 2,
            l1_objects: 200,
            l2_objects: 200,
            max_episodes: 3,
            max_reads: 4,
            span_cycles: 20_000,
            noise_every: 50,
            without_end_stats: Vec::new(),
            program: "generate".into(),
            keep_expected: true,
        }
    }
}

/// Expected results of one generated kernel.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ExpectedKernel {
    /// Kernel id.
    pub id: u64,
    /// Kernel name.
    pub name: String,
    /// L1 size of the reconfiguration line.
    pub l1_size_bytes: u64,
    /// `gpu_sim_cycle` written (or the last access cycle without end statistics).
    pub cycles: u64,
    /// Whether end statistics were written.
    pub has_end_stats: bool,
    /// Reads per level (status 3 excluded).
    pub reads: [u64; 2],
    /// Writes per level.
    pub writes: [u64; 2],
    /// Distinct addresses per level.
    pub unique: [u64; 2],
    /// Lifetimes per level, longest first, ties by address (empty unless `keep_expected`).
    pub lifetimes: [Vec<Lifetime>; 2],
    /// Number of lifetimes per level.
    pub lifetime_count: [u64; 2],
}

#[derive(Clone, Copy)]
struct Event {
    cycle: u64,
    store: bool,
    l2: bool,
    sm: u32,
    bank: u32,
    address: u64,
    status: u32,
}

/// Writes `config.kernels` kernels to `out`; returns what a correct reader must find.
pub fn generate(config: &GenConfig, out: &mut impl Write) -> io::Result<Vec<ExpectedKernel>> {
    let mut rng = Rng(config.seed.max(1) ^ 0x9e37_79b9_7f4a_7c15);
    let mut expected = Vec::with_capacity(config.kernels);
    let mut totals = (0u64, 0u64);
    let mut events = Vec::new();
    for k in 0..config.kernels {
        let id = config.first_kernel_id + k as u64;
        let name = format!("_Z{}kernel_{id}PfS_i", 7 + id.to_string().len());
        let l1_kb = [32u64, 64, 120, 128][rng.below(4) as usize];
        let mut exp = ExpectedKernel {
            id,
            name: name.clone(),
            l1_size_bytes: l1_kb * 1024,
            has_end_stats: !config.without_end_stats.contains(&k),
            ..ExpectedKernel::default()
        };
        events.clear();
        kernel_events(&mut rng, config, k, &mut events, &mut exp);
        writeln!(out, "GPGPU-Sim uArch: kernel launch {k}")?;
        writeln!(
            out,
            "Processing kernel $PROJECT_ROOT/logs/{}/traces/kernel-{id}.traceg",
            config.program
        )?;
        writeln!(out, "-kernel name = {name}")?;
        writeln!(out, "-kernel id = {id}")?;
        writeln!(out, "-grid dim = (64,1,1)")?;
        writeln!(out, "GPGPU-Sim: Reconfigure L1 cache to {l1_kb}KB")?;
        write_events(&mut rng, config, &events, out)?;
        if exp.has_end_stats {
            write_end_stats(&mut rng, k, exp.cycles, &mut totals, out)?;
        }
        expected.push(exp);
    }
    Ok(expected)
}

/// The events of kernel `k` in cycle order (L1 objects, every fourth sharing its line with
/// the previous one, then L2 objects), and what they mean in `exp`: unique addresses, the
/// kernel's length and its lifetimes (sorted; dropped unless `config.keep_expected`).
fn kernel_events(
    rng: &mut Rng,
    config: &GenConfig,
    k: usize,
    events: &mut Vec<Event>,
    exp: &mut ExpectedKernel,
) {
    let base = 0x7f00_0000_0000u64 + (k as u64) * 0x1000_0000;
    let mut l1_addresses = std::collections::HashSet::new();
    for obj in 0..config.l1_objects {
        // Every fourth address is shared with the previous object (another SM).
        let line = if obj % 4 == 3 { obj - 1 } else { obj } as u64;
        let address = base + line * 128;
        let sm = (obj as u32) % config.sms.max(1);
        l1_addresses.insert(address);
        object_events(rng, config, false, sm, address, events, exp);
    }
    for obj in 0..config.l2_objects {
        let address = base + 0x0800_0000 + obj as u64 * 128;
        object_events(rng, config, true, 0, address, events, exp);
    }
    exp.unique = [l1_addresses.len() as u64, config.l2_objects as u64];
    events.sort_by_key(|e| e.cycle);
    let last = events.last().map_or(0, |e| e.cycle);
    exp.cycles = if exp.has_end_stats {
        last + 1 + rng.below(500)
    } else {
        last
    };
    for lifetimes in &mut exp.lifetimes {
        lifetimes.sort_unstable_by(|a, b| b.cycles.cmp(&a.cycles).then(a.address.cmp(&b.address)));
    }
    if !config.keep_expected {
        exp.lifetimes = [Vec::new(), Vec::new()];
    }
}

/// One line per event, with a noise line (an L1I access, a finished CTA or an empty line)
/// every `config.noise_every` events.
fn write_events(
    rng: &mut Rng,
    config: &GenConfig,
    events: &[Event],
    out: &mut impl Write,
) -> io::Result<()> {
    let mut since_noise = 0;
    for e in events {
        writeln!(
            out,
            "GPGPU-Sim Cycle {}: {} instr from {} cache at SM {} bank {} addr {:x} status {}",
            e.cycle,
            if e.store { "Store" } else { "Load" },
            if e.l2 { "L2" } else { "L1D" },
            e.sm,
            e.bank,
            e.address,
            e.status
        )?;
        since_noise += 1;
        if config.noise_every > 0 && since_noise >= config.noise_every {
            since_noise = 0;
            match rng.below(3) {
                0 => writeln!(
                    out,
                    "GPGPU-Sim Cycle {}: Load instr from L1I cache at SM {} bank 0 addr {:x} status 0",
                    e.cycle, e.sm, e.address
                )?,
                1 => writeln!(
                    out,
                    "GPGPU-Sim uArch: Shader {} finished CTA #3 (1,0)",
                    e.sm
                )?,
                _ => writeln!(out)?,
            }
        }
    }
    Ok(())
}

/// The end statistics of kernel `k` (`cycles` long); `totals` are the cycles and
/// instructions of all kernels so far.
fn write_end_stats(
    rng: &mut Rng,
    k: usize,
    cycles: u64,
    totals: &mut (u64, u64),
    out: &mut impl Write,
) -> io::Result<()> {
    let insn = cycles * (50 + rng.below(100));
    totals.0 += cycles;
    totals.1 += insn;
    writeln!(out, "gpu_sim_cycle = {cycles}")?;
    writeln!(out, "gpu_sim_insn = {insn}")?;
    writeln!(out, "gpu_ipc = {:12.4}", insn as f64 / cycles.max(1) as f64)?;
    writeln!(out, "gpu_tot_sim_cycle = {}", totals.0)?;
    writeln!(out, "gpu_tot_sim_insn = {}", totals.1)?;
    writeln!(out, "gpu_stall_dramfull = {}", rng.below(1000))?;
    writeln!(
        out,
        "gpgpu_simulation_time = 0 days, 0 hrs, 0 min, {} sec ({} sec)",
        k + 1,
        k + 1
    )?;
    Ok(())
}

fn object_events(
    rng: &mut Rng,
    config: &GenConfig,
    l2: bool,
    sm: u32,
    address: u64,
    events: &mut Vec<Event>,
    exp: &mut ExpectedKernel,
) {
    let level = usize::from(l2);
    let mut cycle = 1 + rng.below(config.span_cycles.max(1));
    let banks = u64::from(config.banks.max(1));
    let sms = u64::from(config.sms.max(1));
    let push = |rng: &mut Rng, cycle: u64, store: bool, status: u32, events: &mut Vec<Event>| {
        let (sm, bank) = if l2 {
            (rng.below(sms) as u32, rng.below(banks) as u32)
        } else {
            (sm, (address / 128 % banks) as u32)
        };
        let event = |status| Event {
            cycle,
            store,
            l2,
            sm,
            bank,
            address,
            status,
        };
        if rng.chance(5) {
            // A reservation fail, retried by the access that follows.
            events.push(event(3));
        }
        events.push(event(status));
    };
    if rng.chance(15) {
        // Hits before any start: the data came from before the log; no lifetime.
        for _ in 0..1 + rng.below(2) {
            let status = [0, 1, 5][rng.below(3) as usize];
            push(rng, cycle, false, status, events);
            exp.reads[level] += 1;
            cycle += 1 + rng.below(20);
        }
    }
    let episodes = 1 + rng.below(u64::from(config.max_episodes.max(1)));
    for _ in 0..episodes {
        let start = cycle;
        let store = rng.chance(30);
        let status = if store {
            [0, 2][rng.below(2) as usize]
        } else {
            [2, 4][rng.below(2) as usize]
        };
        push(rng, start, store, status, events);
        if store {
            exp.writes[level] += 1;
        } else {
            exp.reads[level] += 1;
        }
        let reads = rng.below(u64::from(config.max_reads) + 1);
        let mut last = start;
        for _ in 0..reads {
            // Mostly short reuse, sometimes long enough to need refreshes.
            let gap = if rng.chance(10) { 30_000 } else { 400 };
            last += 1 + rng.below(gap);
            let status = [0, 1, 5][rng.below(3) as usize];
            push(rng, last, false, status, events);
            exp.reads[level] += 1;
        }
        if reads > 0 {
            exp.lifetime_count[level] += 1;
            exp.lifetimes[level].push(Lifetime {
                address,
                cycles: last - start,
            });
        }
        cycle = last + 1 + rng.below(300);
    }
}
