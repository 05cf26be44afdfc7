//! One kernel's lines folded into lifetimes, access counts and unique addresses (FORMATS.md §5).
//!
//! A lifetime of an address in a level starts at a fill (Load with status 2 or 4) or a Store and
//! ends at the last Load hit (status 0, 1, 5) of that address before the next start or the end
//! of the kernel; lifetime = last read cycle − start cycle. A start without a later read is not
//! a lifetime. L1 is per SM, L2 one space. Reservation fails (status 3) are ignored everywhere.

use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasherDefault, Hasher};

use super::Level;
use super::line::{Access, Cache, EndStat, LogLine, classify, parse_dec, trim_end};
use crate::core::problems::CappedProblems;

/// One data lifetime.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Lifetime {
    /// The address (a cache line).
    pub address: u64,
    /// Last read cycle − creation cycle.
    pub cycles: u64,
}

/// The end-of-kernel statistics (absent ones are `None`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct EndStats {
    /// `gpu_sim_cycle`: the kernel's cycles (the CSV's Total Cycles).
    pub sim_cycle: Option<u64>,
    /// `gpu_sim_insn`.
    pub sim_insn: Option<u64>,
    /// `gpu_ipc`.
    pub ipc: Option<f64>,
    /// `gpu_tot_sim_cycle`.
    pub tot_sim_cycle: Option<u64>,
    /// `gpu_tot_sim_insn`.
    pub tot_sim_insn: Option<u64>,
    /// `gpgpu_simulation_time`, as written.
    pub simulation_time: Option<String>,
}

impl EndStats {
    /// Whether any end-of-kernel statistic was seen.
    pub fn any(&self) -> bool {
        self.sim_cycle.is_some()
            || self.sim_insn.is_some()
            || self.ipc.is_some()
            || self.tot_sim_cycle.is_some()
            || self.tot_sim_insn.is_some()
            || self.simulation_time.is_some()
    }
}

/// Line counts of a kernel (or of a whole analysis).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct LineCounts {
    /// All lines.
    pub total: u64,
    /// Access lines of L1D and L2.
    pub accesses: u64,
    /// Access lines of other caches (not analysed).
    pub other_cache: u64,
    /// Access lines with status 3 (ignored).
    pub reservation_fails: u64,
    /// Malformed lines that looked like known ones (each warned).
    pub malformed: u64,
    /// Lines of no known kind (skipped).
    pub skipped: u64,
}

impl LineCounts {
    /// Adds `other` into `self`.
    pub fn add(&mut self, other: &LineCounts) {
        self.total += other.total;
        self.accesses += other.accesses;
        self.other_cache += other.other_cache;
        self.reservation_fails += other.reservation_fails;
        self.malformed += other.malformed;
        self.skipped += other.skipped;
    }
}

/// Everything one kernel's lines give.
#[derive(Debug, Clone, Default)]
pub struct KernelResult {
    /// Position in the input (files in order, kernels in file order).
    pub seq: usize,
    /// Index of the input file.
    pub file: usize,
    /// Byte offset of the kernel's first line in its file.
    pub offset: u64,
    /// The path of the `Processing kernel` line.
    pub processing_path: Option<String>,
    /// `-kernel id`.
    pub id: Option<u64>,
    /// `-kernel name`.
    pub name: Option<String>,
    /// L1 size from the reconfiguration line, bytes.
    pub l1_size_bytes: Option<u64>,
    /// End-of-kernel statistics.
    pub end: EndStats,
    /// Load lines per level (L1, L2), reservation fails excluded.
    pub reads: [u64; 2],
    /// Store lines per level.
    pub writes: [u64; 2],
    /// Distinct addresses per level (L1 across SMs).
    pub unique: [u64; 2],
    /// Lifetimes per level, longest first (ties: lower address first).
    pub lifetimes: [Vec<Lifetime>; 2],
    /// Largest access cycle seen.
    pub last_cycle: u64,
    /// Line counts.
    pub lines: LineCounts,
    /// Problems worked around: byte offset in the file and message.
    pub warnings: Vec<(u64, String)>,
    /// The rows of `NAME.sim_l1.csv` and `NAME.sim_l2.csv` for this kernel, when the analysis
    /// was asked to render them (`AnalyzeOptions::render_lifetime_csv`).
    pub lifetime_csv: Option<[Vec<u8>; 2]>,
}

/// Warnings kept per kernel; the rest are counted in one summary warning.
const MAX_KERNEL_WARNINGS: usize = 32;
const NONE: u64 = u64::MAX;

/// A fast hasher for addresses (a splitmix64 finish, so aligned addresses spread).
#[derive(Default, Clone, Copy)]
pub struct AddressHasher(u64);

impl Hasher for AddressHasher {
    fn finish(&self) -> u64 {
        let mut x = self.0;
        x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        x ^ (x >> 31)
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(u64::from(b));
        }
    }
    fn write_u32(&mut self, v: u32) {
        self.write_u64(u64::from(v));
    }
    fn write_u64(&mut self, v: u64) {
        self.0 = (self.0.rotate_left(23) ^ v).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    }
}

/// A hash map with [`AddressHasher`].
pub(crate) type FastMap<K, V> = HashMap<K, V, BuildHasherDefault<AddressHasher>>;
type FastSet<K> = HashSet<K, BuildHasherDefault<AddressHasher>>;

/// The open lifetime of an address: start and last read cycle (`NONE` when absent).
#[derive(Clone, Copy)]
struct Slot {
    start: u64,
    last_read: u64,
}

const EMPTY: Slot = Slot {
    start: NONE,
    last_read: NONE,
};

/// Folds a kernel's lines, one at a time.
pub struct KernelAccumulator {
    result: KernelResult,
    l1: FastMap<(u32, u64), Slot>,
    l1_unique: FastSet<u64>,
    l2: FastMap<u64, Slot>,
    /// Problems worked around (byte offset, message), until the result takes them.
    warnings: CappedProblems<(u64, String)>,
    warned_after_end: bool,
}

impl KernelAccumulator {
    /// A kernel starting at byte `offset` of input file `file`, `seq`-th in the input.
    pub fn new(seq: usize, file: usize, offset: u64) -> Self {
        KernelAccumulator {
            result: KernelResult {
                seq,
                file,
                offset,
                ..KernelResult::default()
            },
            l1: FastMap::default(),
            l1_unique: FastSet::default(),
            l2: FastMap::default(),
            warnings: CappedProblems::new(MAX_KERNEL_WARNINGS),
            warned_after_end: false,
        }
    }

    fn warn(&mut self, offset: u64, message: impl Into<String>) {
        self.warnings.push((offset, message.into()));
    }

    /// Feeds one line starting at byte `offset` of the file.
    pub fn feed(&mut self, line: &[u8], offset: u64) {
        self.result.lines.total += 1;
        match classify(line) {
            LogLine::Access(access) => self.access(access, offset),
            LogLine::ProcessingKernel(path) => {
                if self.result.processing_path.is_some() {
                    self.warn(
                        offset,
                        "second `Processing kernel` line in one kernel; ignored",
                    );
                } else {
                    self.result.processing_path = Some(self.text(path, offset, "kernel path"));
                }
            }
            LogLine::KernelName(name) => {
                if self.result.name.is_some() {
                    self.warn(
                        offset,
                        "second `-kernel name` line in one kernel; the first is kept",
                    );
                } else {
                    self.result.name = Some(self.text(name, offset, "kernel name"));
                }
            }
            LogLine::KernelId(id) => {
                if let Some(first) = self.result.id.filter(|&first| first != id) {
                    self.warn(
                        offset,
                        format!(
                            "second `-kernel id` ({id}) without `Processing kernel`; kept {first}"
                        ),
                    );
                } else {
                    self.result.id = Some(id);
                }
            }
            LogLine::ReconfigureL1(bytes) => self.result.l1_size_bytes = Some(bytes),
            LogLine::EndStat(stat, value) => self.end_stat(stat, value, offset),
            LogLine::Malformed(what) => {
                self.result.lines.malformed += 1;
                self.warn(offset, format!("{what}; line skipped"));
            }
            LogLine::Other => self.result.lines.skipped += 1,
        }
    }

    fn text(&mut self, bytes: &[u8], offset: u64, what: &str) -> String {
        match std::str::from_utf8(bytes) {
            Ok(text) => text.to_owned(),
            Err(_) => {
                self.warn(
                    offset,
                    format!("{what} is not UTF-8; invalid bytes replaced"),
                );
                String::from_utf8_lossy(bytes).into_owned()
            }
        }
    }

    fn end_stat(&mut self, stat: EndStat, value: &[u8], offset: u64) {
        let int = |v: &[u8]| match parse_dec(v) {
            Some((n, [])) => Some(n),
            _ => None,
        };
        let ok = match stat {
            EndStat::SimCycle => int(value).map(|n| self.result.end.sim_cycle = Some(n)),
            EndStat::SimInsn => int(value).map(|n| self.result.end.sim_insn = Some(n)),
            EndStat::TotSimCycle => int(value).map(|n| self.result.end.tot_sim_cycle = Some(n)),
            EndStat::TotSimInsn => int(value).map(|n| self.result.end.tot_sim_insn = Some(n)),
            EndStat::Ipc => std::str::from_utf8(value)
                .ok()
                .and_then(|t| t.parse::<f64>().ok())
                .filter(|v| v.is_finite())
                .map(|v| self.result.end.ipc = Some(v)),
            EndStat::SimulationTime => {
                let text = self.text(trim_end(value), offset, "simulation time");
                self.result.end.simulation_time = Some(text);
                Some(())
            }
        };
        if ok.is_none() {
            self.result.lines.malformed += 1;
            self.warn(offset, "malformed end-of-kernel statistic; ignored");
        }
    }

    fn access(&mut self, access: Access, offset: u64) {
        let lines = &mut self.result.lines;
        let level = match access.cache {
            Cache::Level(level) => level,
            Cache::Other => {
                lines.other_cache += 1;
                return;
            }
        };
        if access.status == 3 {
            lines.reservation_fails += 1;
            return;
        }
        if access.status > 5 {
            lines.malformed += 1;
            self.warn(
                offset,
                format!("unknown cache status {}; access ignored", access.status),
            );
            return;
        }
        lines.accesses += 1;
        if self.result.end.sim_cycle.is_some() && !self.warned_after_end {
            self.warned_after_end = true;
            self.warn(
                offset,
                "access after the kernel's end statistics; counted in the kernel",
            );
        }
        self.result.last_cycle = self.result.last_cycle.max(access.cycle);
        let idx = level.index();
        let starts = access.store || access.status == 2 || access.status == 4;
        if access.store {
            self.result.writes[idx] += 1;
        } else {
            self.result.reads[idx] += 1;
        }
        let slot = match level {
            Level::L1 => {
                self.l1_unique.insert(access.address);
                self.l1.entry((access.sm, access.address)).or_insert(EMPTY)
            }
            Level::L2 => self.l2.entry(access.address).or_insert(EMPTY),
        };
        if starts {
            if slot.start != NONE && slot.last_read != NONE {
                let cycles = slot.last_read.saturating_sub(slot.start);
                self.result.lifetimes[idx].push(Lifetime {
                    address: access.address,
                    cycles,
                });
            }
            slot.start = access.cycle;
            slot.last_read = NONE;
        } else if slot.start != NONE {
            slot.last_read = access.cycle;
        }
    }

    /// Ends the kernel: open lifetimes with a read end here; lifetimes are sorted.
    pub fn finish(mut self) -> KernelResult {
        let close = |address: u64, slot: &Slot, out: &mut Vec<Lifetime>| {
            if slot.start != NONE && slot.last_read != NONE {
                out.push(Lifetime {
                    address,
                    cycles: slot.last_read.saturating_sub(slot.start),
                });
            }
        };
        let [l1_out, l2_out] = &mut self.result.lifetimes;
        for (&(_, address), slot) in &self.l1 {
            close(address, slot, l1_out);
        }
        for (&address, slot) in &self.l2 {
            close(address, slot, l2_out);
        }
        for lifetimes in &mut self.result.lifetimes {
            lifetimes
                .sort_unstable_by(|a, b| b.cycles.cmp(&a.cycles).then(a.address.cmp(&b.address)));
        }
        self.result.unique = [self.l1_unique.len() as u64, self.l2.len() as u64];
        let (warnings, dropped) = self.warnings.into_parts();
        self.result.warnings.extend(warnings);
        if dropped > 0 {
            let offset = self.result.offset;
            self.result.warnings.push((
                offset,
                format!("{dropped} more warnings in this kernel not shown"),
            ));
        }
        self.result
    }
}
