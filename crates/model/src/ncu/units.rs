//! Metric units inferred from metric names.
//!
//! Nsight Compute stores no unit next to a metric value in a report; NVIDIA's reader derives
//! the unit from the metric's definition. Sightline does not ship those definitions, so
//! [`infer_unit`] reconstructs the unit from the *structure* of the metric name, which follows
//! the PerfWorks convention `unit__counter_name.rollup.submetric`:
//!
//! 1. **Name shape.** Dotted prefixes before the segment that holds `__` (section-local
//!    aliases such as `SM.TriageA.`) are ignored. The first `__` segment is the *counter*; the
//!    segments after it are the *rollup* (`sum`, `avg`, `min`, `max`) and the *submetric*.
//!    Names without `__` (`inst_executed`, `memory_type`) are a single counter segment.
//! 2. **Pseudo-metrics.** `breakdown:X` has the unit of `X`; `group:*` and other `tag:`
//!    pseudo-metrics have none, except `regex:*` section entries, which are percentages.
//!    `device__attribute_*` values carry no unit. The legacy source-view memory table metrics
//!    (`memory_*` without `__`) count `sectors` when they count requests, wavefronts or
//!    sectors, and have no unit otherwise. Instanced per-opcode tables (`*_per_opcode*`)
//!    have no unit.
//! 3. **Counter base unit.** A counter name ending in `_pct` is a percentage. A counter name
//!    `X_per_Y` is the ratio of the units of `X` and `Y` (`registers_per_thread` →
//!    `register/thread`, `data_bytes_per_sector` → `byte/sector`); equal units cancel, a
//!    unitless numerator makes the ratio unitless and a unitless denominator leaves the
//!    numerator's unit. Otherwise the first entry of a small ordered table of name
//!    fragments (matched at word starts, `bytes` → `byte`, `sectors` → `sector`,
//!    `inst_executed` → `inst`, `warps` → `warp`, `cycles` → `cycle`, `time_duration` →
//!    `ns`, `*_active` → `cycle`, …) gives the unit; no match means no unit.
//! 4. **Warp counters.** Warp counters accumulate resident warps once per cycle, so a warp
//!    count per cycle is still `warp` (`sm__warps_active.avg.per_cycle_active`), and a warp
//!    count per instruction is a latency in `cycle`. Stall-reason ratios
//!    (`*_issue_stalled_*_per_issue_active.ratio`) are reported in `inst`, whatever the
//!    stall reason. `derived__*` metrics that mention threads (`*_thread_inst_executed_*_x2`)
//!    count `thread`s for the reader; for the CLI ([`infer_cli_unit`]) the fragment table
//!    decides (`inst` before `thread`, as in the CLI's own word rules), and the raw page's earlier columns can change it
//!    (`pages::resolved`).
//! 5. **Submetric.** `pct_of_peak_*` and `pct` give `%`. `per_second` gives `U/s`, or `hz`
//!    for cycles. `per_cycle_*` and `peak_sustained*` give `U/cycle` (cycles per cycle are
//!    unitless, warps per cycle stay `warp`). `ratio` and `max_rate` keep the `X_per_Y` unit
//!    of the counter and are unitless when the counter has no `_per_`. Rollups keep the
//!    unit.
//!
//! Unit spellings follow NVIDIA's reader: `byte`, `sector`, `inst`, `warp`, `cycle`,
//! `thread`, `block`, `register`, `request`, `pass`, `sample`, `branches`, `SM`, `ns`, `hz`,
//! `%`, composites with `/`, and the empty string for "no unit".

use std::borrow::Cow;

/// A unit as a numerator over an optional denominator (`den` empty: no denominator).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Unit {
    num: &'static str,
    den: &'static str,
}

impl Unit {
    const fn new(num: &'static str) -> Self {
        Self { num, den: "" }
    }

    const fn over(self, den: Self) -> Self {
        Self {
            num: self.num,
            den: den.num,
        }
    }

    fn is_none(self) -> bool {
        self.num.is_empty()
    }

    fn is_simple(self) -> bool {
        self.den.is_empty()
    }

    fn render(self) -> Cow<'static, str> {
        if self.den.is_empty() {
            Cow::Borrowed(self.num)
        } else {
            Cow::Owned(format!("{}/{}", self.num, self.den))
        }
    }
}

const NONE: Unit = Unit::new("");
const PERCENT: Unit = Unit::new("%");
const BYTE: Unit = Unit::new("byte");
const SECTOR: Unit = Unit::new("sector");
const INST: Unit = Unit::new("inst");
const WARP: Unit = Unit::new("warp");
const CYCLE: Unit = Unit::new("cycle");
const THREAD: Unit = Unit::new("thread");
const REGISTER: Unit = Unit::new("register");
const BLOCK: Unit = Unit::new("block");
const REQUEST: Unit = Unit::new("request");
const PASS: Unit = Unit::new("pass");
const SAMPLE: Unit = Unit::new("sample");
const BRANCHES: Unit = Unit::new("branches");
const SM: Unit = Unit::new("SM");
const NSECOND: Unit = Unit::new("ns");
const HERTZ: Unit = Unit::new("hz");
const SECOND: Unit = Unit::new("s");
/// The plural spelling used by the legacy source-view memory table metrics.
const SECTORS: Unit = Unit::new("sectors");

/// Counter-name fragments and their base units, most specific first. A fragment matches
/// where it starts a `_`-separated word of the counter name (`__` counts as `_`), so `byte`
/// matches `dram__bytes_read` but not `megabyte`.
const FRAGMENTS: &[(&str, Unit)] = &[
    // Stall reasons named after what they wait for.
    ("no_instruction", INST),
    ("branch_targets", BRANCHES),
    ("branch_resolving", BRANCHES),
    // Occupancy limits are counted in blocks, whatever resource limits them.
    ("occupancy_limit", BLOCK),
    ("pct", PERCENT),
    ("duration", NSECOND),
    ("byte", BYTE),
    ("shared_mem", BYTE),
    ("sector", SECTOR),
    ("inst", INST),
    ("warp", WARP),
    ("cycle", CYCLE),
    ("thread", THREAD),
    ("register", REGISTER),
    // L1TEX requests, wavefronts and bank conflicts are reported without a unit.
    ("l1tex_t_request", NONE),
    ("wavefront", NONE),
    ("conflict", NONE),
    ("request", REQUEST),
    ("passes", PASS),
    ("samples", SAMPLE),
    ("sm_count", SM),
    // Launch geometry sizes (`block_size`, `grid_size`, `stack_size`) are plain counts.
    ("size", NONE),
    ("block", BLOCK),
    // `*_active` counters count the cycles in which a unit was active.
    ("active", CYCLE),
];

/// The unit NVIDIA's reader reports for metric `name`, inferred from the structure of the
/// name (see the module documentation of `ncu/units.rs` for the rules).
///
/// Returns the empty string for metrics without a unit, and for names that follow no known
/// pattern. Never fails.
///
/// ```
/// use sightline_model::ncu::infer_unit;
/// assert_eq!(infer_unit("dram__bytes.sum.per_second"), "byte/s");
/// assert_eq!(infer_unit("sm__inst_executed.avg.per_cycle_active"), "inst/cycle");
/// assert_eq!(infer_unit("gpu__time_duration.sum"), "ns");
/// assert_eq!(infer_unit("device__attribute_warp_size"), "");
/// ```
pub fn infer_unit(name: &str) -> Cow<'static, str> {
    infer(name, Dialect::Reader).render()
}

/// The unit the Nsight Compute 2024.1 command line (`ncu --import R --csv`) prints for metric
/// `name`, in the spelling of [`infer_unit`]. Its metric library differs from the Python
/// reader's in a few families, each confirmed on the CLI oracle outputs of every corpus report
/// (`notes/ncu-import-csv.md`, "Units of the 2024.1 CLI"). Both take `pmsampling:X`'s unit
/// from `X`, and a few units from the library where the name's words say otherwise
/// (`library_counter_unit`). The CLI differs in these:
///
/// - L1TEX requests (`l1tex__t_requests*`, `sm__sass_l1tex_t_requests*`) count `request`;
/// - branch targets have no unit, `branch_resolving` stall samples count `warp`;
/// - the legacy `memory_*transactions*`, the older legacy `memory_*sectors*` (2021.1:
///   `memory_l1_sectors_global`; the later `*theoretical_sectors*` stay `sectors`) and the
///   `derived__memory_*` metrics are in `byte`;
/// - a derived metric (`derived__*`) takes no submetric: `derived__X.sum.per_second` has the
///   unit of `derived__X`;
/// - metrics newer than the CLI ([`NEWER_THAN_CLI`]) have no unit;
/// - GH200's `lrc__` ratios and rates per second have the counter's unit (`sector`);
/// - the tensor operation counters `sm__ops_path_*` have no unit but their rates keep the
///   slash (`/cycle`, `/second`, scaled as any rate: `/nsecond`);
/// - a peak rate per second (`X.peak_sustained_elapsed.per_second`) is a rate of `X` per
///   second;
/// - a ratio over a unitless denominator keeps its slash (`derived__pct_occupancy_per_block_size`
///   → `%/`);
/// - a derived count of thread instructions (`derived__*_thread_inst_executed_*`) is in `inst`,
///   as the CLI's own word rules give it; the units of earlier columns can make it `thread`
///   (`pages::resolved`).
///
/// ```
/// use sightline_model::ncu::infer_cli_unit;
/// assert_eq!(infer_cli_unit("l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"), "request");
/// assert_eq!(infer_cli_unit("pmsampling:sm__ctas_launched.sum"), "block");
/// ```
pub fn infer_cli_unit(name: &str) -> Cow<'static, str> {
    infer(name, Dialect::Cli).render()
}

/// Whose units: NVIDIA's Python reader, or the 2024.1 command line's metric library.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Dialect {
    Reader,
    Cli,
}

fn infer(name: &str, dialect: Dialect) -> Unit {
    if let Some(inner) = name.strip_prefix("breakdown:") {
        return infer(inner, dialect);
    }
    if let Some(inner) = name.strip_prefix("pmsampling:") {
        return infer(inner, dialect);
    }
    if name.starts_with("regex:") {
        return PERCENT;
    }
    if name.contains(':') {
        // `group:*` and other tagged pseudo-metrics.
        return NONE;
    }
    let mut segments = name.split('.').peekable();
    let counter_index = name
        .split('.')
        .position(|segment| segment.contains("__"))
        .unwrap_or(0);
    let counter = segments.nth(counter_index).unwrap_or_default();
    let mut unit = counter_unit(counter, dialect);
    if dialect == Dialect::Cli && counter.starts_with("derived__") {
        // A derived metric's dotted suffix is part of its name, not a submetric: the CLI
        // gives `derived__lts__lts2xbar_bytes.sum.peak_sustained` and `.sum.per_second`
        // the unit `byte`.
        return unit;
    }
    while let Some(submetric) = segments.next() {
        // The CLI's units of GH200's L2 request coalescer (`lrc__`): a ratio or a rate per
        // second keeps the counter's unit (`lrc__ilc_input_sectors.sum.per_second`,
        // `lrc__average_xbar2gpc_sectors_op_read.ratio`: `sector`).
        if dialect == Dialect::Cli
            && counter.starts_with("lrc__")
            && matches!(submetric, "ratio" | "per_second")
        {
            continue;
        }
        // The CLI: tensor operation counters (`sm__ops_path_tensor_*`, no unit of their own)
        // keep the slash of a rate: `/cycle`, `/second`.
        if dialect == Dialect::Cli && unit.is_none() && has_word(counter, "ops_path") {
            if submetric == "per_second" {
                unit = Unit { num: "", den: "s" };
                continue;
            }
            if submetric.starts_with("per_cycle")
                || (submetric.starts_with("peak_sustained") && segments.peek().is_none())
            {
                unit = Unit {
                    num: "",
                    den: "cycle",
                };
                continue;
            }
        }
        // The CLI: a peak per cycle followed by `per_second` is a plain rate per second.
        if dialect == Dialect::Cli
            && submetric.starts_with("peak_sustained")
            && segments.peek() == Some(&"per_second")
        {
            continue;
        }
        unit = apply_submetric(unit, counter, submetric);
    }
    unit
}

/// The unit of a counter for the 2024.1 command line where it differs from the reader's
/// (see [`infer_cli_unit`]), else `None`.
fn cli_counter_unit(counter: &str, norm: &str) -> Option<Unit> {
    if NEWER_THAN_CLI.contains(&counter) {
        return Some(NONE);
    }
    if counter.starts_with("derived__memory_")
        || (!counter.contains("__")
            && counter.starts_with("memory_")
            && (has_word(norm, "transactions")
                || (has_word(norm, "sectors") && !has_word(norm, "theoretical"))))
    {
        return Some(BYTE);
    }
    None
}

/// The unit of a counter both NVIDIA's reader and the 2024.1 command line take from their
/// metric library where the name's words say otherwise (checked on the corpus goldens of
/// 2023.3 to 2025.1 reports), else `None`.
fn library_counter_unit(counter: &str, norm: &str) -> Option<Unit> {
    const CLUSTER: Unit = Unit::new("cluster");
    match counter {
        "launch__cluster_max_active" => return Some(CLUSTER),
        "launch__cluster_max_potential_size" => return Some(BLOCK),
        _ => {}
    }
    if has_word(norm, "sass") && norm.ends_with("_type") {
        // A SASS-patched count keyed by a type (`..._memdesc_explicit_evict_type`).
        return Some(NONE);
    }
    if has_word(norm, "interval_time") {
        return Some(NSECOND);
    }
    None
}

/// Metrics of reports newer than the 2024.1 CLI, which its library lacks: they print no unit
/// (the barrier limit of occupancy, 2025.1: `launch__occupancy_limit_barriers` and the
/// occupancy-per-barrier-count graph, also as the derived percentage).
const NEWER_THAN_CLI: &[&str] = &[
    "launch__occupancy_limit_barriers",
    "launch__occupancy_per_barrier_count",
    "derived__pct_occupancy_per_barrier_count",
];

/// The unit of a counter (the dot-separated segment of a metric name that holds `__`).
fn counter_unit(counter: &str, dialect: Dialect) -> Unit {
    if counter.starts_with("device__attribute") {
        return NONE;
    }
    let norm = counter.replace("__", "_");
    if dialect == Dialect::Cli
        && let Some(unit) = cli_counter_unit(counter, &norm)
    {
        return unit;
    }
    if let Some(unit) = library_counter_unit(counter, &norm) {
        return unit;
    }
    if !counter.contains("__") && counter.starts_with("memory_") {
        let counts_sectors = ["request", "wavefront", "sector"]
            .iter()
            .any(|fragment| has_word(&norm, fragment));
        return if counts_sectors { SECTORS } else { NONE };
    }
    if has_word(&norm, "per_opcode") {
        return NONE;
    }
    if norm.ends_with("_pct") {
        return PERCENT;
    }
    if let Some((num, den)) = norm.split_once("_per_") {
        if has_word(num, "issue_stalled") && has_word(den, "issue") {
            // Stall-reason ratios: stalled warps per issue.
            return INST;
        }
        return ratio_unit(lookup(num, dialect), lookup(den, dialect), dialect);
    }
    if dialect == Dialect::Reader && counter.starts_with("derived__") && has_word(&norm, "thread") {
        // Derived metrics built from thread-level instruction counts count threads (as the
        // reader gives them when an earlier metric is in `thread`; the CLI's word rules give
        // `inst`, see `pages::resolved`).
        return THREAD;
    }
    lookup(&norm, dialect)
}

/// The unit of `num / den`.
fn ratio_unit(num: Unit, den: Unit, dialect: Dialect) -> Unit {
    if num.is_none() {
        return NONE;
    }
    if num == WARP {
        if den == CYCLE {
            return WARP;
        }
        if den == INST {
            return CYCLE;
        }
    }
    if den.is_none() && dialect == Dialect::Cli && num == PERCENT {
        // The CLI keeps the slash of a percentage per a unitless count (`%/`).
        Unit::new("%/")
    } else if den.is_none() {
        num
    } else if num == den {
        NONE
    } else {
        num.over(den)
    }
}

/// Fragments the 2024.1 command line reads before [`FRAGMENTS`]: branch targets have no unit.
const CLI_FRAGMENTS: &[(&str, Unit)] = &[("branch_targets", NONE)];

/// Fragments both dialects read before [`FRAGMENTS`]: CTAs are blocks (`sm__ctas_launched`,
/// `gr__workids_granted_as_ctas`, the PM sampling `gr__ctas_launched_queue_sync`).
const FIRST_FRAGMENTS: &[(&str, Unit)] = &[("ctas", BLOCK)];

/// Fragments of [`FRAGMENTS`] the 2024.1 command line skips: `branch_resolving` stalls and
/// L1TEX requests fall through to the later fragments (`warp`, `request`).
const CLI_SKIPPED: &[&str] = &["branch_targets", "branch_resolving", "l1tex_t_request"];

/// The base unit of the first [`FRAGMENTS`] entry found in `norm`, or no unit.
fn lookup(norm: &str, dialect: Dialect) -> Unit {
    let table = FRAGMENTS
        .iter()
        .filter(|(fragment, _)| dialect == Dialect::Reader || !CLI_SKIPPED.contains(fragment));
    let cli = CLI_FRAGMENTS.iter().filter(|_| dialect == Dialect::Cli);
    cli.chain(FIRST_FRAGMENTS)
        .chain(table)
        .find(|(fragment, _)| has_word(norm, fragment))
        .map_or(NONE, |&(_, unit)| unit)
}

/// Whether `fragment` occurs in `text` at the start of a `_`-separated word.
fn has_word(text: &str, fragment: &str) -> bool {
    text.match_indices(fragment)
        .any(|(at, _)| at == 0 || text.as_bytes().get(at - 1) == Some(&b'_'))
}

/// The unit after applying rollup or submetric `submetric` to a metric of unit `unit`.
fn apply_submetric(unit: Unit, counter: &str, submetric: &str) -> Unit {
    match submetric {
        "sum" | "avg" | "min" | "max" => unit,
        "pct" => PERCENT,
        "ratio" | "max_rate" => {
            if counter.contains("_per_") {
                unit
            } else {
                NONE
            }
        }
        "per_second" => per_second(unit),
        s if s.starts_with("pct_of_peak") => PERCENT,
        s if s.starts_with("per_cycle") || s.starts_with("peak_sustained") => per_cycle(unit),
        _ => unit,
    }
}

fn per_second(unit: Unit) -> Unit {
    if unit == CYCLE {
        HERTZ
    } else if unit.is_none() || !unit.is_simple() {
        NONE
    } else {
        unit.over(SECOND)
    }
}

fn per_cycle(unit: Unit) -> Unit {
    if unit == CYCLE || unit.is_none() || !unit.is_simple() {
        NONE
    } else if unit == WARP {
        WARP
    } else {
        unit.over(CYCLE)
    }
}

#[cfg(test)]
mod tests {
    use super::{infer_cli_unit, infer_unit};

    /// The 2024.1 CLI's units where they differ from the reader's (every pair seen in the
    /// corpus's `raw-base.csv` oracle files), and a few where they agree.
    #[test]
    fn cli_units() {
        for (name, unit) in [
            ("l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum", "request"),
            (
                "sm__sass_l1tex_t_requests_pipe_lsu_mem_global_op_ldgsts.sum",
                "request",
            ),
            (
                "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum.pct_of_peak_sustained_elapsed",
                "%",
            ),
            ("smsp__sass_branch_targets_threads_divergent.avg", ""),
            ("smsp__sass_average_branch_targets_threads_uniform.pct", "%"),
            ("smsp__pcsamp_warps_issue_stalled_branch_resolving", "warp"),
            (
                "smsp__average_warps_issue_stalled_branch_resolving_per_issue_active.ratio",
                "inst",
            ),
            ("memory_l1_transactions_global", "byte"),
            ("memory_l1_wavefronts_shared", "sectors"),
            ("memory_l1_sectors_global", "byte"),
            ("memory_l2_sectors_global_ideal", "byte"),
            ("memory_l2_theoretical_sectors_global", "sectors"),
            ("memory_l1_tag_requests_global", "sectors"),
            (
                "derived__l1tex__lsu_writeback_bytes_mem_lg.sum.peak_sustained",
                "byte",
            ),
            ("derived__lts__lts2xbar_bytes.sum.per_second", "byte"),
            ("launch__occupancy_limit_barriers", ""),
            ("sm__ops_path_tensor_src_fp8_sparsity.avg", ""),
            (
                "sm__ops_path_tensor_src_fp8_sparsity.avg.peak_sustained",
                "/cycle",
            ),
            (
                "sm__ops_path_tensor_src_fp8_sparsity.sum.per_cycle_elapsed",
                "/cycle",
            ),
            ("sm__ops_path_tensor_src_fp8_sparsity.sum.per_second", "/s"),
            (
                "sm__ops_path_tensor_src_fp8_sparsity.sum.peak_sustained_elapsed.per_second",
                "/s",
            ),
            (
                "l1tex__data_pipe_lsu_wavefronts.avg.peak_sustained_elapsed.per_second",
                "",
            ),
            ("lrc__ilc_input_sectors.sum.per_second", "sector"),
            (
                "lrc__average_ilc_input_sector_compression_rate.ratio",
                "sector",
            ),
            ("lrc__average_ilc_input_sector_success_rate.pct", "%"),
            ("launch__occupancy_limit_warps", "block"),
            ("derived__pct_occupancy_per_barrier_count", ""),
            ("memory_access_type", ""),
            ("derived__memory_l1_conflicts_shared_nway", "byte"),
            ("derived__avg_thread_executed", "thread"),
            // The CLI's word rules; an earlier column in `thread` makes it `thread`
            // (`pages::resolved`).
            (
                "derived__sm__sass_thread_inst_executed_op_ffma_pred_on_x2",
                "inst",
            ),
            ("smsp__sass_inst_executed_memdesc_explicit_evict_type", ""),
            ("smsp__inst_executed_memdesc_explicit_evict_type", "inst"),
            ("launch__cluster_max_active", "cluster"),
            ("launch__cluster_max_potential_size", "block"),
            ("launch__cluster_dim_x", ""),
            ("profiler__pmsampler_interval_time", "ns"),
            ("pmsampling:sm__ctas_launched.sum", "block"),
            ("pmsampling:l1tex__data_pipe_lsu_wavefronts.avg", ""),
            (
                "pmsampling:sm__inst_executed_realtime.avg.per_cycle_active",
                "inst/cycle",
            ),
            (
                "sm__ctas_launched.sum.peak_sustained_elapsed.per_second",
                "block/s",
            ),
            (
                "sm__cycles_active.avg.peak_sustained_elapsed.per_second",
                "hz",
            ),
            ("derived__pct_occupancy_per_block_size", "%/"),
            ("derived__pct_occupancy_per_register_count", "%/register"),
            ("dram__bytes.sum.per_second", "byte/s"),
            ("gpu__time_duration.sum", "ns"),
        ] {
            assert_eq!(infer_cli_unit(name), unit, "CLI unit of {name}");
        }
    }

    fn check(cases: &[(&str, &str)]) {
        for &(name, unit) in cases {
            assert_eq!(infer_unit(name), unit, "unit of {name}");
        }
    }

    #[test]
    fn counter_base_units() {
        check(&[
            ("dram__bytes_read.sum", "byte"),
            ("lts__t_sectors_srcunit_tex_op_read.sum", "sector"),
            ("sm__cycles_elapsed.max", "cycle"),
            ("smsp__inst_executed.sum", "inst"),
            ("gpu__time_duration.sum", "ns"),
            ("lts__t_requests_srcunit_tex.sum", "request"),
            ("l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum", ""),
            ("l1tex__data_pipe_lsu_wavefronts_mem_shared.sum", ""),
            ("l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum", ""),
            ("l1tex__lsu_writeback_active_mem_lg.sum", "cycle"),
            ("profiler__replayer_passes", "pass"),
            ("profiler__pmsampler_dropped_samples", "sample"),
            ("smsp__pcsamp_sample_count", ""),
            ("smsp__pcsamp_interval_cycles", "cycle"),
            ("inst_executed", "inst"),
            ("thread_inst_executed_true", "inst"),
            ("derived__avg_thread_executed", "thread"),
            (
                "derived__sm__sass_thread_inst_executed_op_ffma_pred_on_x2",
                "thread",
            ),
            ("sm__sass_thread_inst_executed_op_ffma_pred_on.sum", "inst"),
        ]);
    }

    #[test]
    fn stall_reasons() {
        check(&[
            ("smsp__pcsamp_warps_issue_stalled_barrier", "warp"),
            (
                "smsp__pcsamp_warps_issue_stalled_branch_resolving",
                "branches",
            ),
            ("smsp__pcsamp_warps_issue_stalled_no_instructions", "inst"),
            (
                "smsp__sass_branch_targets_threads_divergent.avg",
                "branches",
            ),
            ("smsp__inst_executed_op_branch.sum", "inst"),
        ]);
    }

    #[test]
    fn launch_attributes() {
        check(&[
            ("launch__block_dim_x", "block"),
            ("launch__grid_dim_x", ""),
            ("launch__block_size", ""),
            ("launch__occupancy_limit_registers", "block"),
            ("launch__registers_per_thread", "register/thread"),
            ("launch__shared_mem_per_block_static", "byte/block"),
            ("launch__shared_mem_config_size", "byte"),
            ("launch__sm_count", "SM"),
            ("launch__thread_count", "thread"),
            ("launch__occupancy_per_register_count", ""),
            ("launch__waves_per_multiprocessor", ""),
        ]);
    }

    #[test]
    fn pseudo_metrics() {
        check(&[
            ("device__attribute_max_registers_per_block", ""),
            ("device__attribute_max_shared_memory_per_block", ""),
            (
                "breakdown:sm__throughput.avg.pct_of_peak_sustained_elapsed",
                "%",
            ),
            ("group:memory__chart", ""),
            (
                r"regex:sm__inst_executed\.(sum|min|max|avg|pct|ratio)$",
                "%",
            ),
            ("derived__pct_occupancy_per_register_count", "%/register"),
            ("derived__pct_occupancy_per_shared_mem_size", "%/byte"),
            ("derived__pct_occupancy_per_block_size", "%"),
            ("derived__smsp__inst_executed_op_branch_pct", "%"),
            ("memory_l1_wavefronts_shared_ideal", "sectors"),
            ("memory_access_type", ""),
            ("sass__inst_executed_per_opcode", ""),
            ("sass__inst_executed_global_loads", "inst"),
            ("nvlink__bandwidth", ""),
            ("", ""),
        ]);
    }

    #[test]
    fn submetrics() {
        check(&[
            ("dram__throughput.avg.pct_of_peak_sustained_elapsed", "%"),
            ("sm__warps_active.avg.pct_of_peak_sustained_active", "%"),
            ("lts__t_sector_hit_rate.pct", "%"),
            ("dram__bytes.sum.per_second", "byte/s"),
            ("lts__t_sectors.sum.per_second", "sector/s"),
            ("gpc__cycles_elapsed.max.per_second", "hz"),
            ("dram__bytes.sum.peak_sustained", "byte/cycle"),
            ("lts__t_sectors.avg.per_cycle_elapsed", "sector/cycle"),
            ("sm__inst_executed.avg.per_cycle_active", "inst/cycle"),
            ("smsp__issue_active.avg.per_cycle_active", ""),
            (
                "lts__average_gcomp_output_sector_compression_achieved_rate.ratio",
                "",
            ),
            ("smsp__thread_inst_executed_per_inst_executed.ratio", ""),
            (
                "smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.max_rate",
                "byte/sector",
            ),
        ]);
    }

    #[test]
    fn warp_counters() {
        check(&[
            ("sm__warps_active.avg.per_cycle_active", "warp"),
            ("smsp__warps_active.avg.peak_sustained", "warp"),
            ("smsp__maximum_warps_avg_per_active_cycle", "warp"),
            ("sm__maximum_warps_per_active_cycle_pct", "%"),
            ("smsp__average_warp_latency_per_inst_issued.ratio", "cycle"),
            (
                "smsp__average_warps_active_per_inst_executed.ratio",
                "cycle",
            ),
            (
                "smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio",
                "inst",
            ),
            (
                "smsp__average_warps_issue_stalled_branch_resolving_per_issue_active.ratio",
                "inst",
            ),
            (
                "smsp__average_warps_issue_stalled_no_instruction_per_issue_active.ratio",
                "inst",
            ),
        ]);
    }

    #[test]
    fn section_prefixes() {
        check(&[
            ("SM.TriageA.sm__cycles_active.avg", "cycle"),
            (
                "TPC.TriageA.tpc__warps_active_realtime.sum.per_cycle_active",
                "warp",
            ),
            (
                "SM.TriageA.sm__inst_executed_realtime.avg.per_cycle_active",
                "inst/cycle",
            ),
            ("TriageA.l1tex__t_sector_hit_rate_realtime.pct", "%"),
        ]);
    }
}
