//! Kernel contents for synthetic reports: realistic metric names with plausible values,
//! the embedded sections and stored rule results Nsight Compute would write beside them.

use super::synth::{KernelSpec, SplitMix64, instanced, nvtx_state, rule_result, scalar, section};
use sightline_model::ncu::{Metric, MetricValue};
use sightline_model::proto::nv::profiler::ProfilerSection;
use sightline_model::proto::nv::rule_system as rules_pb;

use MetricValue::{Double, String as Str, Uint32, Uint64};

fn d(name: &str, value: f64) -> (String, Metric) {
    (name.to_owned(), scalar(Double(value)))
}

fn u(name: &str, value: u64) -> (String, Metric) {
    (name.to_owned(), scalar(Uint64(value)))
}

/// The sections embedded in synthetic kernels: Speed Of Light, Launch Statistics, Occupancy.
pub fn basic_sections() -> Vec<ProfilerSection> {
    vec![
        section(
            "SpeedOfLight",
            "GPU Speed Of Light Throughput",
            10,
            &[
                (
                    "Compute (SM) Throughput",
                    "sm__throughput.avg.pct_of_peak_sustained_elapsed",
                ),
                ("Duration", "gpu__time_duration.sum"),
                (
                    "Memory Throughput",
                    "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed",
                ),
                (
                    "DRAM Throughput",
                    "dram__throughput.avg.pct_of_peak_sustained_elapsed",
                ),
                (
                    "L1/TEX Cache Throughput",
                    "l1tex__throughput.avg.pct_of_peak_sustained_active",
                ),
                (
                    "L2 Cache Throughput",
                    "lts__throughput.avg.pct_of_peak_sustained_elapsed",
                ),
                ("SM Frequency", "smsp__cycles_elapsed.avg.per_second"),
                ("Elapsed Cycles", "sm__cycles_elapsed.max"),
            ],
            &[],
        ),
        section(
            "LaunchStats",
            "Launch Statistics",
            20,
            &[
                ("Block Size", "launch__block_size"),
                ("Grid Size", "launch__grid_size"),
                ("Registers Per Thread", "launch__registers_per_thread"),
                ("Threads", "launch__thread_count"),
                ("Waves Per SM", "launch__waves_per_multiprocessor"),
                ("Function Cache Configuration", "launch__func_cache_config"),
            ],
            &[],
        ),
        section(
            "Occupancy",
            "Occupancy",
            30,
            &[
                (
                    "Theoretical Occupancy",
                    "sm__maximum_warps_per_active_cycle_pct",
                ),
                (
                    "Achieved Occupancy",
                    "sm__warps_active.avg.pct_of_peak_sustained_active",
                ),
                ("Block Limit Registers", "launch__occupancy_limit_registers"),
                (
                    "Block Limit Shared Mem",
                    "launch__occupancy_limit_shared_mem",
                ),
            ],
            &[
                ("Block Limit Warps", "launch__occupancy_limit_warps"),
                ("Block Limit SM", "launch__occupancy_limit_blocks"),
            ],
        ),
    ]
}

/// A kernel with the metrics of the basic sections, per-SM instances, NVTX and rule results.
pub fn sample_kernel(
    rng: &mut SplitMix64,
    function: &str,
    signature: &str,
    mangled: &str,
    grid: [u64; 3],
    block: [u64; 3],
    nvtx: &[&str],
) -> KernelSpec {
    let (metrics, load) = sample_metrics(rng, grid, block);
    let rules = sample_rules(&load);
    KernelSpec {
        function: function.to_owned(),
        demangled: signature.to_owned(),
        mangled: mangled.to_owned(),
        grid,
        block,
        metrics,
        sections: basic_sections(),
        rule_results: rules,
        nvtx: (!nvtx.is_empty())
            .then(|| nvtx_state(nvtx, &["epoch 1"], Some((7, "app", &["solver"])))),
        stream: 7,
    }
}

/// What the sample kernel's rule results are about: its throughputs and achieved occupancy (%).
struct SampleLoad {
    sm_pct: f64,
    mem_pct: f64,
    achieved: f64,
}

/// The sample kernel's metrics for `grid` and `block`, drawn from `rng` (in a fixed order: the
/// bundled sample stays the same file), and the load they describe.
fn sample_metrics(
    rng: &mut SplitMix64,
    grid: [u64; 3],
    block: [u64; 3],
) -> (Vec<(String, Metric)>, SampleLoad) {
    let threads = grid.iter().product::<u64>() * block.iter().product::<u64>();
    let block_threads = block.iter().product::<u64>();
    let sm_pct = 20.0 + 70.0 * rng.unit();
    let mem_pct = 10.0 + 85.0 * rng.unit();
    let duration = 2_000.0 + 400_000.0 * rng.unit();
    let cycles = (duration * 1.5).round();
    let achieved = 40.0 + 55.0 * rng.unit();
    let per_sm: Vec<MetricValue> = (0..46)
        .map(|_| Double((cycles * (0.9 + 0.1 * rng.unit())).round()))
        .collect();
    let sm_ids: Vec<MetricValue> = (0..46).map(Uint64).collect();
    let mut metrics = vec![
        d("sm__throughput.avg.pct_of_peak_sustained_elapsed", sm_pct),
        d("gpu__time_duration.sum", duration.round()),
        d(
            "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed",
            mem_pct,
        ),
        d(
            "dram__throughput.avg.pct_of_peak_sustained_elapsed",
            mem_pct * 0.93,
        ),
        d(
            "l1tex__throughput.avg.pct_of_peak_sustained_active",
            mem_pct * 0.61,
        ),
        d(
            "lts__throughput.avg.pct_of_peak_sustained_elapsed",
            mem_pct * 0.74,
        ),
        d(
            "smsp__cycles_elapsed.avg.per_second",
            1.5e9 + 1e7 * rng.unit(),
        ),
        d("dram__bytes.sum.per_second", 4.1e11 * mem_pct / 100.0),
        d("dram__bytes_read.sum", (threads * 8) as f64),
        d("dram__bytes_write.sum", (threads * 4) as f64),
        (
            "sm__cycles_elapsed.max".to_owned(),
            instanced(Double(cycles), per_sm, Some(sm_ids)),
        ),
        d(
            "sm__warps_active.avg.pct_of_peak_sustained_active",
            achieved,
        ),
        d("sm__maximum_warps_per_active_cycle_pct", 100.0),
        d("smsp__inst_executed.sum", (threads / 32 * 24) as f64),
        d(
            "smsp__issue_active.avg.per_cycle_active",
            0.1 + 0.8 * rng.unit(),
        ),
        u("launch__block_size", block_threads),
        u("launch__grid_size", grid.iter().product()),
        u("launch__thread_count", threads),
        (
            "launch__registers_per_thread".to_owned(),
            scalar(Uint32(32)),
        ),
        d(
            "launch__waves_per_multiprocessor",
            threads as f64 / (46.0 * 1536.0),
        ),
        (
            "launch__func_cache_config".to_owned(),
            scalar(Str("CachePreferNone".into())),
        ),
        u("launch__occupancy_limit_registers", 2),
        u("launch__occupancy_limit_shared_mem", 16),
        u("launch__occupancy_limit_warps", 1536 / block_threads.max(1)),
        u("launch__occupancy_limit_blocks", 16),
        u("device__attribute_compute_capability_major", 8),
        u("device__attribute_compute_capability_minor", 6),
        u("device__attribute_multiprocessor_count", 46),
        (
            "device__attribute_display_name".to_owned(),
            scalar(Str("Sightline Synthetic GPU".into())),
        ),
    ];
    metrics.push((
        "breakdown:sm__throughput.avg.pct_of_peak_sustained_elapsed".to_owned(),
        scalar(Str("sm__inst_executed_pipe_lsu.avg.pct_of_peak_sustained_active,sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active".into())),
    ));
    (
        metrics,
        SampleLoad {
            sm_pct,
            mem_pct,
            achieved,
        },
    )
}

/// The sample kernel's stored rule results: its bottleneck, achieved occupancy and launch
/// configuration.
fn sample_rules(load: &SampleLoad) -> Vec<rules_pb::RuleResult> {
    let SampleLoad {
        sm_pct,
        mem_pct,
        achieved,
    } = *load;
    let bottleneck = bottleneck_message(sm_pct, mem_pct);
    vec![
        rule_result(
            "SOLBottleneck",
            "Bottleneck",
            "SpeedOfLight",
            &[(
                4,
                bottleneck.title,
                &bottleneck.text,
                Some((2, 100.0 - sm_pct.max(mem_pct))),
                vec![(
                    bottleneck.focus_metric,
                    bottleneck.focus_value,
                    2,
                    bottleneck.focus_info,
                )],
            )],
        ),
        rule_result(
            "AchievedOccupancy",
            "Achieved Occupancy",
            "Occupancy",
            &[
                (
                    2,
                    "",
                    &format!("Achieved occupancy is {achieved:.1}% of the theoretical 100.0%."),
                    Some((1, 100.0 - achieved)),
                    vec![],
                ),
                (
                    1,
                    "Note",
                    "See the @url:CUDA Best Practices Guide:https://docs.nvidia.com/cuda/cuda-c-best-practices-guide/index.html#occupancy@.",
                    None,
                    vec![],
                ),
            ],
        ),
        rule_result(
            "LaunchConfiguration",
            "Launch Configuration",
            "LaunchStats",
            &[],
        ),
    ]
}

/// The bundled sample: four kernels of a small application.
pub fn sample_kernels() -> Vec<KernelSpec> {
    let mut rng = SplitMix64::new(0x5167_4711);
    vec![
        sample_kernel(
            &mut rng,
            "vector_add",
            "vector_add(const float *, const float *, float *, int)",
            "_Z10vector_addPKfS0_Pfi",
            [4096, 1, 1],
            [256, 1, 1],
            &["run", "init"],
        ),
        sample_kernel(
            &mut rng,
            "matmul_tiled",
            "void matmul_tiled<32>(const float *, const float *, float *, int)",
            "_Z12matmul_tiledILi32EEvPKfS1_Pfi",
            [64, 64, 1],
            [32, 32, 1],
            &["run", "compute"],
        ),
        sample_kernel(
            &mut rng,
            "reduce_sum",
            "reduce_sum(const float *, float *, unsigned long)",
            "_Z10reduce_sumPKfPfm",
            [1024, 1, 1],
            [512, 1, 1],
            &["run", "compute"],
        ),
        sample_kernel(
            &mut rng,
            "transpose_naive",
            "transpose_naive(float *, const float *, int, int)",
            "_Z15transpose_naivePfPKfii",
            [128, 128, 1],
            [16, 16, 1],
            &["run", "finish"],
        ),
    ]
}

/// One kernel exercising every value kind: scalars, list-only metrics, instances with and
/// without correlation ids, and string instances.
pub fn value_kinds_kernel() -> KernelSpec {
    let metrics = value_kind_metrics();
    KernelSpec {
        function: "kinds".into(),
        // `extern "C"`-style names: no demangled form stored.
        demangled: String::new(),
        mangled: "kinds_c".into(),
        grid: [1, 1, 1],
        block: [32, 1, 1],
        metrics,
        sections: Vec::new(),
        rule_results: vec![all_message_types()],
        nvtx: None,
        stream: 0,
    }
}

/// One metric of every value kind: scalars, instanced lists with and without correlation ids
/// (of every kind), both a value and instances, a PC-sampling list and an empty metric.
fn value_kind_metrics() -> Vec<(String, Metric)> {
    use MetricValue::Float;
    vec![
        (
            "kind__string".to_owned(),
            scalar(Str("héllo \"world\"\n".into())),
        ),
        ("kind__float".to_owned(), scalar(Float(0.1))),
        ("kind__double".to_owned(), scalar(Double(1e-7))),
        ("kind__double_big".to_owned(), scalar(Double(1.5e17))),
        ("kind__uint32".to_owned(), scalar(Uint32(u32::MAX))),
        ("kind__uint64".to_owned(), scalar(Uint64(u64::MAX))),
        (
            "list__double".to_owned(),
            instanced(
                MetricValue::None,
                vec![Double(1.5), Double(2.5)],
                Some(vec![Uint64(10), Uint64(20)]),
            ),
        ),
        (
            "list__float".to_owned(),
            instanced(
                MetricValue::None,
                vec![Float(0.25), Float(3.0)],
                Some(vec![Uint64(1), Uint64(2)]),
            ),
        ),
        (
            "list__uint32".to_owned(),
            instanced(
                MetricValue::None,
                vec![Uint32(7), Uint32(8)],
                Some(vec![Uint32(100), Uint32(200)]),
            ),
        ),
        (
            "list__uint64_nocorr".to_owned(),
            instanced(
                MetricValue::None,
                vec![Uint64(3), Uint64(4), Uint64(5)],
                None,
            ),
        ),
        (
            "list__string".to_owned(),
            instanced(
                MetricValue::None,
                vec![Str("a".into()), Str("b".into())],
                Some(vec![Uint64(0), Uint64(1)]),
            ),
        ),
        (
            "both__uint64".to_owned(),
            instanced(
                Uint64(42),
                vec![Uint64(40), Uint64(2)],
                Some(vec![Uint64(0xdead_beef), Uint64(0xfeed)]),
            ),
        ),
        (
            "pc__samples".to_owned(),
            instanced(
                MetricValue::None,
                (0..20).map(|i| Uint64(i * i)).collect(),
                Some((0..20).map(|i| Uint64(0x7f00_0000_1000 + 16 * i)).collect()),
            ),
        ),
        ("empty__metric".to_owned(), scalar(MetricValue::None)),
    ]
}

/// A rule result with one message of every type, with and without speedups and focus metrics.
fn all_message_types() -> rules_pb::RuleResult {
    rule_result(
        "AllTypes",
        "All Message Types",
        "SpeedOfLight",
        &[
            (0, "", "none", None, vec![]),
            (1, "ok", "ok", Some((1, 0.5)), vec![]),
            (
                2,
                "warning",
                "warning",
                None,
                vec![("kind__double", 1e-7, 1, "low")],
            ),
            (3, "error", "error", Some((2, 99.5)), vec![]),
            (
                4,
                "optimization",
                "optimization",
                Some((0, 1.0)),
                vec![
                    ("kind__uint64", 1.0, 0, "default"),
                    ("kind__float", 0.1, 2, "high"),
                ],
            ),
        ],
    )
}

const UNITS: &[&str] = &[
    "sm", "smsp", "l1tex", "lts", "dram", "gpu", "gpc", "tpc", "fbpa", "idc", "sys",
];
const COUNTERS: &[&str] = &[
    "cycles_active",
    "cycles_elapsed",
    "inst_executed",
    "inst_issued",
    "warps_active",
    "sectors_read",
    "sectors_write",
    "bytes_read",
    "bytes_write",
    "requests",
    "throughput",
    "pipe_alu_cycles_active",
    "pipe_fma_cycles_active",
    "pipe_lsu_cycles_active",
];
const ROLLUPS: &[&str] = &["sum", "avg", "min", "max"];
const SUBMETRICS: &[&str] = &[
    "",
    ".per_second",
    ".pct_of_peak_sustained_elapsed",
    ".pct_of_peak_sustained_active",
    ".peak_sustained",
    ".per_cycle_active",
];

/// Section identifiers of Nsight Compute's `full` set, embedded in every benchmark kernel.
pub const FULL_SET_SECTIONS: &[&str] = &[
    "ComputeWorkloadAnalysis",
    "InstructionStats",
    "LaunchStats",
    "MemoryWorkloadAnalysis",
    "MemoryWorkloadAnalysis_Chart",
    "MemoryWorkloadAnalysis_Tables",
    "NumaAffinity",
    "Nvlink_Tables",
    "Nvlink_Topology",
    "Occupancy",
    "PmSampling",
    "SchedulerStats",
    "SourceCounters",
    "SpeedOfLight",
    "SpeedOfLight_RooflineChart",
    "WarpStateStats",
    "WorkloadDistribution",
];

/// The `n`-th name of the benchmark's metric grammar (unit × counter × rollup × submetric).
pub fn grammar_metric_name(n: usize) -> String {
    let sub = SUBMETRICS[n % SUBMETRICS.len()];
    let n = n / SUBMETRICS.len();
    let rollup = ROLLUPS[n % ROLLUPS.len()];
    let n = n / ROLLUPS.len();
    let counter = COUNTERS[n % COUNTERS.len()];
    let unit = UNITS[(n / COUNTERS.len()) % UNITS.len()];
    format!("{unit}__{counter}.{rollup}{sub}")
}

/// Sections shaped like the full set: a header of 8 metrics and a body table of 30.
pub fn full_set_sections() -> Vec<ProfilerSection> {
    FULL_SET_SECTIONS
        .iter()
        .enumerate()
        .map(|(i, id)| {
            let names: Vec<(String, String)> = (0..38)
                .map(|j| {
                    let name = grammar_metric_name(i * 97 + j * 13);
                    let label = format!("Metric {j} of {id}");
                    (label, name)
                })
                .collect();
            let pairs: Vec<(&str, &str)> = names
                .iter()
                .map(|(l, n)| (l.as_str(), n.as_str()))
                .collect();
            section(
                id,
                &id.replace('_', " "),
                i as u32 * 10,
                &pairs[..8],
                &pairs[8..],
            )
        })
        .collect()
}

/// One kernel of the benchmark report: 1,100 grammar metrics plus the basic ones, 40 instanced
/// metrics of 40 instances, the full-set sections and nine stored rule results.
pub fn bench_kernel(
    rng: &mut SplitMix64,
    index: usize,
    sections: &[ProfilerSection],
) -> KernelSpec {
    let function = format!("bench_kernel_{}", index % 17);
    let mut spec = sample_kernel(
        rng,
        &function,
        &format!("{function}(float *, const float *, int)"),
        &format!("_Z{}{function}PfPKfi", function.len()),
        [1 + (index as u64 % 512), 1, 1],
        [128, 1, 1],
        &[],
    );
    for n in 0..1100 {
        let value = if n % 7 == 0 {
            Uint64(rng.next_u64() % 1_000_000)
        } else {
            Double(rng.unit() * 1e6)
        };
        spec.metrics.push((grammar_metric_name(n), scalar(value)));
    }
    for n in 0..40 {
        let values = (0..48).map(|_| Double(rng.unit() * 100.0)).collect();
        let ids = (0..48).map(|i| Uint64(0x7f00_0000 + i * 16)).collect();
        spec.metrics.push((
            format!("inst__{}.per_unit", grammar_metric_name(n * 31)),
            instanced(MetricValue::None, values, Some(ids)),
        ));
    }
    spec.sections = sections.to_vec();
    let text = "The kernel achieved a low fraction of the device's peak performance. Check the @section:SpeedOfLight:GPU Speed Of Light Throughput@ section and the @url:Kernel Profiling Guide:https://docs.nvidia.com/nsight-compute/ProfilingGuide/index.html@ for details on reducing stalls, improving occupancy and balancing the workload across the streaming multiprocessors of the device.";
    for (i, id) in FULL_SET_SECTIONS.iter().enumerate().take(6) {
        spec.rule_results.push(rule_result(
            &format!("BenchRule{i}"),
            &format!("Benchmark Rule {i}"),
            id,
            &[(
                4,
                "Optimization",
                text,
                Some((2, rng.unit() * 50.0)),
                vec![(&grammar_metric_name(i), rng.unit(), 2, "Raise it")],
            )],
        ));
    }
    spec
}

/// The stored "Bottleneck" message of a synthetic kernel: its title, text, section link and
/// focus metric follow the kernel's compute and memory throughput (share of peak, percent).
struct BottleneckMessage {
    title: &'static str,
    text: String,
    focus_metric: &'static str,
    focus_value: f64,
    focus_info: &'static str,
}

fn bottleneck_message(sm_pct: f64, mem_pct: f64) -> BottleneckMessage {
    const SM: &str = "sm__throughput.avg.pct_of_peak_sustained_elapsed";
    const MEM: &str = "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed";
    let compute = sm_pct >= mem_pct;
    let (side, busier, other, metric, info, section) = if compute {
        (
            "compute",
            sm_pct,
            mem_pct,
            SM,
            "Increase compute throughput",
            "@section:ComputeWorkloadAnalysis:Compute Workload Analysis@",
        )
    } else {
        (
            "memory",
            mem_pct,
            sm_pct,
            MEM,
            "Increase memory throughput",
            "@section:MemoryWorkloadAnalysis:Memory Workload Analysis@",
        )
    };
    if busier < 60.0 {
        return BottleneckMessage {
            title: "Latency Issue",
            text: format!(
                "Compute ({sm_pct:.1}%) and memory ({mem_pct:.1}%) throughput are both well below peak: the kernel waits more than it works. Look at @section:LaunchStats:Launch Statistics@ and @section:Occupancy:Occupancy@ for the reasons."
            ),
            focus_metric: metric,
            focus_value: busier,
            focus_info: info,
        };
    }
    if busier < 80.0 && busier - other < 10.0 {
        return BottleneckMessage {
            title: "Balanced Throughput",
            text: format!(
                "Compute ({sm_pct:.1}%) and memory ({mem_pct:.1}%) are about equally busy: to go faster the kernel must do less of both. Look at the @section:ComputeWorkloadAnalysis:Compute Workload Analysis@ and @section:MemoryWorkloadAnalysis:Memory Workload Analysis@ sections."
            ),
            focus_metric: metric,
            focus_value: busier,
            focus_info: info,
        };
    }
    let title = if busier >= 80.0 {
        "High Throughput"
    } else if compute {
        "High Compute Throughput"
    } else {
        "High Memory Throughput"
    };
    BottleneckMessage {
        title,
        text: format!(
            "This kernel is {side}-bound at {busier:.1}% of peak ({other:.1}% on the other side). Look at the {section} section."
        ),
        focus_metric: metric,
        focus_value: busier,
        focus_info: info,
    }
}
