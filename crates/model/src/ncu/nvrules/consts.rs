//! Numeric values of the NvRules enums (as NVIDIA's `_NvRules` and `ncu_report` define them).

use crate::ncu::MsgType;

/// Declares one module per NvRules enum: its constants, and `ALL`, every constant with its name
/// in declaration order (what the class attributes and the `IntEnum`s are made from), so that each
/// name and value is written once.
macro_rules! nv_enums {
    ($($(#[doc = $doc:literal])* $module:ident { $($name:ident = $value:literal),* $(,)? })*) => {
        $(
            $(#[doc = $doc])*
            pub mod $module {
                $(
                    #[allow(missing_docs)]
                    pub const $name: i64 = $value;
                )*
                /// Every constant with its name, in declaration order.
                pub const ALL: &[(&str, i64)] = &[$((stringify!($name), $name)),*];
            }
        )*
    };
}
/// The macro, for the `ncu_report` module's own enums (`report_consts`).
pub(super) use nv_enums;

nv_enums! {
    /// `IMetric.ValueKind_*`.
    value_kind { UNKNOWN = 0, ANY = 1, STRING = 2, FLOAT = 3, DOUBLE = 4, UINT32 = 5, UINT64 = 6 }
    /// `IMetric.MetricType_*`.
    metric_type { OTHER = 0, COUNTER = 1, RATIO = 2, THROUGHPUT = 3 }
    /// `IMetric.MetricSubtype_*`.
    metric_subtype {
        NONE = 0,
        PEAK_SUSTAINED = 1,
        PEAK_SUSTAINED_ACTIVE = 2,
        PEAK_SUSTAINED_ACTIVE_PER_SECOND = 3,
        PEAK_SUSTAINED_ELAPSED = 4,
        PEAK_SUSTAINED_ELAPSED_PER_SECOND = 5,
        PEAK_SUSTAINED_FRAME = 6,
        PEAK_SUSTAINED_FRAME_PER_SECOND = 7,
        PEAK_SUSTAINED_REGION = 8,
        PEAK_SUSTAINED_REGION_PER_SECOND = 9,
        PER_CYCLE_ACTIVE = 10,
        PER_CYCLE_ELAPSED = 11,
        PER_CYCLE_IN_FRAME = 12,
        PER_CYCLE_IN_REGION = 13,
        PER_SECOND = 14,
        PCT_OF_PEAK_SUSTAINED_ACTIVE = 15,
        PCT_OF_PEAK_SUSTAINED_ELAPSED = 16,
        PCT_OF_PEAK_SUSTAINED_FRAME = 17,
        PCT_OF_PEAK_SUSTAINED_REGION = 18,
        MAX_RATE = 19,
        PCT = 20,
        RATIO = 21,
    }
    /// `IMetric.RollupOperation_*`.
    rollup { NONE = 0, AVG = 1, MAX = 2, MIN = 3, SUM = 4 }
    /// `IAction.NameBase_*`.
    name_base { FUNCTION = 0, DEMANGLED = 1, MANGLED = 2 }
    /// `IAction.WorkloadType_*`.
    workload_type { KERNEL = 0, RANGE = 1, CMDLIST = 2, GRAPH = 3 }
    /// `MarkerKind` / `IFrontend.MarkerKind_*` (the class has no `MarkerKind_NONE`).
    marker_kind { SASS = 0, SOURCE = 1, NONE = 2 }
    /// `IFrontend.Severity_*`.
    severity { DEFAULT = 0, LOW = 1, HIGH = 2 }
    /// `IFrontend.SpeedupType_*`.
    speedup_type { LOCAL = 1, GLOBAL = 2 }
    /// `INvtxRange.PayloadType_*`.
    payload_type {
        UNKNOWN = 0, UINT64 = 1, INT64 = 2, DOUBLE = 3, UINT32 = 4, INT32 = 5, FLOAT = 6, JSON = 7,
    }
}

/// An enum's constants with their names (a module's `ALL`).
type Named<'a> = &'a [(&'static str, i64)];

/// `NvRules.MsgType`'s members with their numbers: where the model's [`MsgType`] meets Python.
pub fn msg_types() -> Vec<(&'static str, i64)> {
    MsgType::ALL.iter().map(|t| (t.name(), t.code())).collect()
}

/// Class constants set on the NvRules classes: `(class, attribute, value)`.
pub fn class_constants() -> Vec<(&'static str, String, i64)> {
    let msg_types = msg_types();
    let groups: [(&str, &str, Named); 11] = [
        ("IMetric", "ValueKind_", value_kind::ALL),
        ("IMetric", "MetricType_", metric_type::ALL),
        ("IMetric", "MetricSubtype_", metric_subtype::ALL),
        ("IMetric", "RollupOperation_", rollup::ALL),
        ("IAction", "NameBase_", name_base::ALL),
        ("IAction", "WorkloadType_", workload_type::ALL),
        ("IFrontend", "MsgType_MSG_", &msg_types),
        (
            "IFrontend",
            "MarkerKind_",
            &[("SASS", marker_kind::SASS), ("SOURCE", marker_kind::SOURCE)],
        ),
        ("IFrontend", "Severity_SEVERITY_", severity::ALL),
        ("IFrontend", "SpeedupType_", speedup_type::ALL),
        ("INvtxRange", "PayloadType_PAYLOAD_", payload_type::ALL),
    ];
    prefixed(groups)
}

/// Each group's members as `(class, PREFIX + member, value)`, in order.
pub(super) fn prefixed<'a>(
    groups: impl IntoIterator<Item = (&'static str, &'static str, Named<'a>)>,
) -> Vec<(&'static str, String, i64)> {
    groups
        .into_iter()
        .flat_map(|(class, prefix, items)| {
            items
                .iter()
                .map(move |(name, value)| (class, format!("{prefix}{name}"), *value))
        })
        .collect()
}
