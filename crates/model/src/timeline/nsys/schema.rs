//! What the "SQLite Export Schema Reference" of Nsight Systems documents: its tables, so the
//! import statistics can tell a documented table from one a newer nsys or a third-party tool
//! added (those are listed by name in the app).

/// The tables the schema reference describes (its `Table name` entries and the tables of its
/// `.schema` example).
pub const DOCUMENTED_TABLES: &[&str] = &[
    "StringIds",
    "SCHED_EVENTS",
    "sqlite_sequence",
    "COMPOSITE_EVENTS",
    "CUPTI_ACTIVITY_KIND_RUNTIME",
    "CUBLAS_EVENTS",
    "CUDNN_EVENTS",
    "CUDA_GRAPH_EVENTS",
    "CUPTI_ACTIVITY_KIND_KERNEL",
    "CUPTI_ACTIVITY_KIND_MEMSET",
    "CUPTI_ACTIVITY_KIND_MEMCPY",
    "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION",
    "CUDA_CALLCHAINS",
    "NVTX_EVENTS",
    "OPENGL_API",
    "OPENGL_WORKLOAD",
    "OSRT_API",
    "OSRT_CALLCHAINS",
    "PROFILER_OVERHEAD",
    "SAMPLING_CALLCHAINS",
    "DX12_API",
    "DX12_WORKLOAD",
    "VULKAN_API",
    "VULKAN_PIPELINE_CREATION_EVENTS",
    "VULKAN_PIPELINE_STAGE_EVENTS",
    "VULKAN_WORKLOAD",
    "FECS_EVENTS",
    "SLI_QUERIES",
    "SLI_P2P",
    "SLI_STATS",
    "ETW_EVENTS",
    "OPENMP_EVENT_KIND_THREAD",
    "OPENMP_EVENT_KIND_PARALLEL",
    "OPENMP_EVENT_KIND_SYNC_REGION",
    "OPENMP_EVENT_KIND_SYNC_REGION_WAIT",
    "OPENMP_EVENT_KIND_TASK",
    "OPENMP_EVENT_KIND_MASTER",
    "OPENMP_EVENT_KIND_REDUCTION",
    "OPENMP_EVENT_KIND_TASK_CREATE",
    "OPENMP_EVENT_KIND_TASK_SCHEDULE",
    "OPENMP_EVENT_KIND_CANCEL",
    "OPENMP_EVENT_KIND_MUTEX_WAIT",
    "OPENMP_EVENT_KIND_CRITICAL_SECTION",
    "OPENMP_EVENT_KIND_MUTEX_RELEASED",
    "OPENMP_EVENT_KIND_LOCK_INIT",
    "OPENMP_EVENT_KIND_LOCK_DESTROY",
    "OPENMP_EVENT_KIND_WORKSHARE",
    "OPENMP_EVENT_KIND_DISPATCH",
    "OPENMP_EVENT_KIND_FLUSH",
    "GENERIC_EVENTS",
    "GENERIC_EVENT_TYPES",
    "GENERIC_EVENT_SOURCES",
    "ThreadNames",
    "ProcessStreams",
    "UnwindMethodType",
];

/// Whether the schema reference documents `table`.
pub fn is_documented(table: &str) -> bool {
    DOCUMENTED_TABLES.contains(&table)
}

/// The name prefixes of the tables Nsight Systems writes (the schema reference's and every
/// corpus export's), so that a view named like one is told from a tool's own views.
const NSYS_PREFIXES: &[&str] = &[
    "ANALYSIS_",
    "COMPOSITE_",
    "CUBLAS_",
    "CUDA_",
    "CUDNN_",
    "CUPTI_",
    "D3D11_",
    "D3D12_",
    "DEMOTED_",
    "DIAGNOSTIC_",
    "DX11_",
    "DX12_",
    "ENUM_",
    "ETW_",
    "EXPORT_META_DATA",
    "FECS_",
    "GENERIC_",
    "GPU_",
    "KHR_",
    "MEMORY_",
    "META_DATA_",
    "MPI_",
    "NCCL_",
    "NET_",
    "NIC_",
    "NVTX_",
    "NVVIDEO_",
    "NV_",
    "OPENACC_",
    "OPENGL_",
    "OPENMP_",
    "OSRT_",
    "PERF_",
    "PMU_",
    "PROCESSES",
    "PROFILER_",
    "SAMPLING_",
    "SCHED_",
    "SLI_",
    "TARGET_INFO_",
    "TOTAL_BYTES_",
    "TRACE_PROCESS_",
    "UCP_",
    "UNCORE_",
    "VULKAN_",
    "WDDM_",
];

/// Whether `name` is named like a table Nsight Systems writes: documented, or with the prefix
/// of such tables (a view of that name is read as the table would be).
pub fn named_like_nsys_table(name: &str) -> bool {
    is_documented(name) || NSYS_PREFIXES.iter().any(|p| name.starts_with(p))
}

/// Why rows of a table the loader does not read are left out.
pub const NOT_READ: &str = "not read: Sightline does not show this table yet";

/// The label of an `eventClass` value of `OSRT_API` / `CUPTI_ACTIVITY_KIND_RUNTIME` for exports
/// without `ENUM_NSYS_EVENT_CLASS` (values from that table of the exports that have it).
pub fn event_class_label(class: i64) -> Option<&'static str> {
    Some(match class {
        0 => "CUDA runtime",
        1 => "CUDA driver",
        27 => "OSRT runtime",
        31 => "OSRT start",
        32 => "OSRT finish",
        67 => "CUDA backtrace",
        _ => return None,
    })
}

/// The label of an NVTX `eventType` (the schema reference's list, and the v3 types the
/// exports hold: 59/60 with 70/71 for their payload forms, 65 registered marks, 72 thread names).
pub fn nvtx_event_type_label(event_type: i64) -> Option<&'static str> {
    Some(match event_type {
        33 => "NvtxCategory",
        34 | 65 => "NvtxMark",
        39 | 72 => "NvtxThread",
        59 | 70 => "NvtxPushPopRange",
        60 | 71 => "NvtxStartEndRange",
        75 => "NvtxDomainCreate",
        76 => "NvtxDomainDestroy",
        _ => return None,
    })
}
