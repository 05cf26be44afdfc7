//! Numeric values of the NvRules enums (as NVIDIA's `_NvRules` defines them).

/// `IMetric.ValueKind_*`.
pub(crate) mod value_kind {
    pub const UNKNOWN: i64 = 0;
    pub const ANY: i64 = 1;
    pub const STRING: i64 = 2;
    pub const FLOAT: i64 = 3;
    pub const DOUBLE: i64 = 4;
    pub const UINT32: i64 = 5;
    pub const UINT64: i64 = 6;
}

/// `IMetric.MetricType_*`.
pub(crate) mod metric_type {
    pub const OTHER: i64 = 0;
    pub const COUNTER: i64 = 1;
    pub const RATIO: i64 = 2;
    pub const THROUGHPUT: i64 = 3;
}

/// `IMetric.MetricSubtype_*`.
pub(crate) mod metric_subtype {
    pub const NONE: i64 = 0;
    pub const PEAK_SUSTAINED: i64 = 1;
    pub const PEAK_SUSTAINED_ACTIVE: i64 = 2;
    pub const PEAK_SUSTAINED_ACTIVE_PER_SECOND: i64 = 3;
    pub const PEAK_SUSTAINED_ELAPSED: i64 = 4;
    pub const PEAK_SUSTAINED_ELAPSED_PER_SECOND: i64 = 5;
    pub const PEAK_SUSTAINED_FRAME: i64 = 6;
    pub const PEAK_SUSTAINED_FRAME_PER_SECOND: i64 = 7;
    pub const PEAK_SUSTAINED_REGION: i64 = 8;
    pub const PEAK_SUSTAINED_REGION_PER_SECOND: i64 = 9;
    pub const PER_CYCLE_ACTIVE: i64 = 10;
    pub const PER_CYCLE_ELAPSED: i64 = 11;
    pub const PER_CYCLE_IN_FRAME: i64 = 12;
    pub const PER_CYCLE_IN_REGION: i64 = 13;
    pub const PER_SECOND: i64 = 14;
    pub const PCT_OF_PEAK_SUSTAINED_ACTIVE: i64 = 15;
    pub const PCT_OF_PEAK_SUSTAINED_ELAPSED: i64 = 16;
    pub const PCT_OF_PEAK_SUSTAINED_FRAME: i64 = 17;
    pub const PCT_OF_PEAK_SUSTAINED_REGION: i64 = 18;
    pub const MAX_RATE: i64 = 19;
    pub const PCT: i64 = 20;
    pub const RATIO: i64 = 21;
}

/// `IMetric.RollupOperation_*`.
pub(crate) mod rollup {
    pub const NONE: i64 = 0;
    pub const AVG: i64 = 1;
    pub const MAX: i64 = 2;
    pub const MIN: i64 = 3;
    pub const SUM: i64 = 4;
}

/// `IAction.NameBase_*`.
pub(crate) mod name_base {
    pub const FUNCTION: i64 = 0;
    pub const DEMANGLED: i64 = 1;
    pub const MANGLED: i64 = 2;
}

/// `IAction.WorkloadType_*`.
pub(crate) mod workload_type {
    pub const KERNEL: i64 = 0;
    pub const RANGE: i64 = 1;
    pub const CMDLIST: i64 = 2;
    pub const GRAPH: i64 = 3;
}

/// `MarkerKind` / `IFrontend.MarkerKind_*`.
pub(crate) mod marker_kind {
    pub const SASS: i64 = 0;
    pub const SOURCE: i64 = 1;
    pub const NONE: i64 = 2;
}

/// `IFrontend.Severity_*`.
pub(crate) mod severity {
    pub const DEFAULT: i64 = 0;
    pub const LOW: i64 = 1;
    pub const HIGH: i64 = 2;
}

/// `IFrontend.SpeedupType_*`.
pub(crate) mod speedup_type {
    pub const LOCAL: i64 = 1;
    pub const GLOBAL: i64 = 2;
}

/// `INvtxRange.PayloadType_*`.
pub(crate) mod payload_type {
    pub const UNKNOWN: i64 = 0;
    pub const UINT64: i64 = 1;
    pub const INT64: i64 = 2;
    pub const DOUBLE: i64 = 3;
    pub const UINT32: i64 = 4;
    pub const INT32: i64 = 5;
    pub const FLOAT: i64 = 6;
    pub const JSON: i64 = 7;
}

/// Class constants set on the NvRules classes: `(class, attribute, value)`.
pub(crate) fn class_constants() -> Vec<(&'static str, String, i64)> {
    use crate::model::msg_type;
    let mut out: Vec<(&'static str, String, i64)> = Vec::new();
    let mut add = |class: &'static str, prefix: &str, items: &[(&str, i64)]| {
        for (name, value) in items {
            out.push((class, format!("{prefix}{name}"), *value));
        }
    };
    add(
        "IMetric",
        "ValueKind_",
        &[
            ("UNKNOWN", value_kind::UNKNOWN),
            ("ANY", value_kind::ANY),
            ("STRING", value_kind::STRING),
            ("FLOAT", value_kind::FLOAT),
            ("DOUBLE", value_kind::DOUBLE),
            ("UINT32", value_kind::UINT32),
            ("UINT64", value_kind::UINT64),
        ],
    );
    add(
        "IMetric",
        "MetricType_",
        &[
            ("OTHER", metric_type::OTHER),
            ("COUNTER", metric_type::COUNTER),
            ("RATIO", metric_type::RATIO),
            ("THROUGHPUT", metric_type::THROUGHPUT),
        ],
    );
    use metric_subtype as s;
    add(
        "IMetric",
        "MetricSubtype_",
        &[
            ("NONE", s::NONE),
            ("PEAK_SUSTAINED", s::PEAK_SUSTAINED),
            ("PEAK_SUSTAINED_ACTIVE", s::PEAK_SUSTAINED_ACTIVE),
            (
                "PEAK_SUSTAINED_ACTIVE_PER_SECOND",
                s::PEAK_SUSTAINED_ACTIVE_PER_SECOND,
            ),
            ("PEAK_SUSTAINED_ELAPSED", s::PEAK_SUSTAINED_ELAPSED),
            (
                "PEAK_SUSTAINED_ELAPSED_PER_SECOND",
                s::PEAK_SUSTAINED_ELAPSED_PER_SECOND,
            ),
            ("PEAK_SUSTAINED_FRAME", s::PEAK_SUSTAINED_FRAME),
            (
                "PEAK_SUSTAINED_FRAME_PER_SECOND",
                s::PEAK_SUSTAINED_FRAME_PER_SECOND,
            ),
            ("PEAK_SUSTAINED_REGION", s::PEAK_SUSTAINED_REGION),
            (
                "PEAK_SUSTAINED_REGION_PER_SECOND",
                s::PEAK_SUSTAINED_REGION_PER_SECOND,
            ),
            ("PER_CYCLE_ACTIVE", s::PER_CYCLE_ACTIVE),
            ("PER_CYCLE_ELAPSED", s::PER_CYCLE_ELAPSED),
            ("PER_CYCLE_IN_FRAME", s::PER_CYCLE_IN_FRAME),
            ("PER_CYCLE_IN_REGION", s::PER_CYCLE_IN_REGION),
            ("PER_SECOND", s::PER_SECOND),
            (
                "PCT_OF_PEAK_SUSTAINED_ACTIVE",
                s::PCT_OF_PEAK_SUSTAINED_ACTIVE,
            ),
            (
                "PCT_OF_PEAK_SUSTAINED_ELAPSED",
                s::PCT_OF_PEAK_SUSTAINED_ELAPSED,
            ),
            (
                "PCT_OF_PEAK_SUSTAINED_FRAME",
                s::PCT_OF_PEAK_SUSTAINED_FRAME,
            ),
            (
                "PCT_OF_PEAK_SUSTAINED_REGION",
                s::PCT_OF_PEAK_SUSTAINED_REGION,
            ),
            ("MAX_RATE", s::MAX_RATE),
            ("PCT", s::PCT),
            ("RATIO", s::RATIO),
        ],
    );
    add(
        "IMetric",
        "RollupOperation_",
        &[
            ("NONE", rollup::NONE),
            ("AVG", rollup::AVG),
            ("MAX", rollup::MAX),
            ("MIN", rollup::MIN),
            ("SUM", rollup::SUM),
        ],
    );
    add(
        "IAction",
        "NameBase_",
        &[
            ("FUNCTION", name_base::FUNCTION),
            ("DEMANGLED", name_base::DEMANGLED),
            ("MANGLED", name_base::MANGLED),
        ],
    );
    add(
        "IAction",
        "WorkloadType_",
        &[
            ("KERNEL", workload_type::KERNEL),
            ("RANGE", workload_type::RANGE),
            ("CMDLIST", workload_type::CMDLIST),
            ("GRAPH", workload_type::GRAPH),
        ],
    );
    add(
        "IFrontend",
        "MsgType_MSG_",
        &[
            ("NONE", msg_type::NONE),
            ("OK", msg_type::OK),
            ("OPTIMIZATION", msg_type::OPTIMIZATION),
            ("WARNING", msg_type::WARNING),
            ("ERROR", msg_type::ERROR),
        ],
    );
    add(
        "IFrontend",
        "MarkerKind_",
        &[("SASS", marker_kind::SASS), ("SOURCE", marker_kind::SOURCE)],
    );
    add(
        "IFrontend",
        "Severity_SEVERITY_",
        &[
            ("DEFAULT", severity::DEFAULT),
            ("LOW", severity::LOW),
            ("HIGH", severity::HIGH),
        ],
    );
    add(
        "IFrontend",
        "SpeedupType_",
        &[
            ("LOCAL", speedup_type::LOCAL),
            ("GLOBAL", speedup_type::GLOBAL),
        ],
    );
    add(
        "INvtxRange",
        "PayloadType_PAYLOAD_",
        &[
            ("UNKNOWN", payload_type::UNKNOWN),
            ("UINT64", payload_type::UINT64),
            ("INT64", payload_type::INT64),
            ("DOUBLE", payload_type::DOUBLE),
            ("UINT32", payload_type::UINT32),
            ("INT32", payload_type::INT32),
            ("FLOAT", payload_type::FLOAT),
            ("JSON", payload_type::JSON),
        ],
    );
    out
}

/// `IFrontend.deprecated_attributes` (2025.3): old constant names and their replacements.
pub(crate) const DEPRECATED_FRONTEND_CONSTANTS: [(&str, &str); 7] = [
    ("MarkerKind_SASS", "MarkerKind.SASS"),
    ("MarkerKind_SOURCE", "MarkerKind.SOURCE"),
    ("MsgType_MSG_NONE", "MsgType.NONE"),
    ("MsgType_MSG_OK", "MsgType.OK"),
    ("MsgType_MSG_OPTIMIZATION", "MsgType.OPTIMIZATION"),
    ("MsgType_MSG_WARNING", "MsgType.WARNING"),
    ("MsgType_MSG_ERROR", "MsgType.ERROR"),
];
