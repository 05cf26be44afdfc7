//! The enums and constants of NVIDIA's `ncu_report` module (2025.3), which differ from the rule
//! system's `NvRules` in places: the module has `IntEnum` classes (`MsgType`, `MarkerKind`...)
//! beside `Enum_MEMBER` integers (`MsgType_ERR` for `MsgType.ERROR`), its `IFrontend` numbers
//! `SpeedupType_LOCAL`/`_GLOBAL` from 0 and has no `MsgType_MSG_*`, and its `IAction` knows
//! subgrid schedules. The Python module makes its attributes from these tables.

use super::consts::{
    metric_subtype, metric_type, msg_types, name_base, nv_enums, payload_type, rollup, severity,
    value_kind, workload_type,
};

nv_enums! {
    /// `ncu_report.MarkerKind`.
    report_marker_kind { SASS = 0, SOURCE = 1, NONE = 2 }
    /// `ncu_report.SpeedupType` (the `IRuleResult` speedup types; the file's numbering).
    report_speedup_type { UNKNOWN = 0, LOCAL = 1, GLOBAL = 2 }
    /// `ncu_report.IFrontend.SpeedupType_*`.
    frontend_speedup_type { LOCAL = 0, GLOBAL = 1 }
    /// `ncu_report.StallReason`: the stall reason of a timed warp sample.
    stall_reason {
        INVALID = 0,
        BARRIER = 1,
        BRANCH_RESOLVING = 2,
        DISPATCH_STALL = 3,
        DRAIN = 4,
        IMC_MISS = 5,
        LG_THROTTLE = 6,
        LONG_SCOREBOARD = 7,
        MIO_THROTTLE = 8,
        MATH_PIPE_THROTTLE = 9,
        MEMBAR = 10,
        MISC = 11,
        NO_INSTRUCTIONS = 12,
        NOT_SELECTED = 13,
        SELECTED = 14,
        SHORT_SCOREBOARD = 15,
        SLEEPING = 16,
        TEX_THROTTLE = 17,
        WAIT = 18,
    }
    /// `ncu_report.RuleKind_*`.
    rule_kind { DEFAULT = 0, GUIDED = 1 }
    /// `ncu_report.TableElementKind_*`.
    table_element_kind { INVALID = 0, DOUBLE = 1, INT = 2, STRING = 3, CUSTOM = 4 }
}

/// `ncu_report.IAction.WorkloadType_SUBGRID_SCHEDULE`, which the rule system's `IAction` lacks.
pub const WORKLOAD_SUBGRID_SCHEDULE: i64 = 4;

/// An enum's members with their numbers.
type Members = Vec<(&'static str, i64)>;

/// An enum's constants with their names (a module's `ALL`).
type Named<'a> = &'a [(&'static str, i64)];

/// The `IntEnum` classes of `ncu_report` with their members, in declaration order.
pub fn report_enums() -> Vec<(&'static str, Members)> {
    vec![
        ("FocusSeverity", severity::ALL.to_vec()),
        ("MarkerKind", report_marker_kind::ALL.to_vec()),
        ("MsgType", msg_types()),
        ("SpeedupType", report_speedup_type::ALL.to_vec()),
        ("StallReason", stall_reason::ALL.to_vec()),
    ]
}

/// The integer constants at `ncu_report`'s module level: `Enum_MEMBER` for each member of
/// [`report_enums`] (`MsgType_ERR` for `MsgType.ERROR`, as NVIDIA names it), `RuleKind_*` and
/// `TableElementKind_*`.
pub fn report_module_constants() -> Vec<(String, i64)> {
    let mut out: Vec<(String, i64)> = report_enums()
        .into_iter()
        .flat_map(|(class, members)| {
            members.into_iter().map(move |(name, value)| {
                let name = if class == "MsgType" && name == "ERROR" {
                    "ERR"
                } else {
                    name
                };
                (format!("{class}_{name}"), value)
            })
        })
        .collect();
    for (prefix, members) in [
        ("RuleKind_", rule_kind::ALL),
        ("TableElementKind_", table_element_kind::ALL),
    ] {
        out.extend(
            members
                .iter()
                .map(|(name, value)| (format!("{prefix}{name}"), *value)),
        );
    }
    out
}

/// The constants set on `ncu_report`'s classes: `(class, attribute, value)`.
pub fn report_class_constants() -> Vec<(&'static str, String, i64)> {
    let mut workloads = workload_type::ALL.to_vec();
    workloads.push(("SUBGRID_SCHEDULE", WORKLOAD_SUBGRID_SCHEDULE));
    let groups: [(&str, &str, Named); 9] = [
        ("IMetric", "ValueKind_", value_kind::ALL),
        ("IMetric", "MetricType_", metric_type::ALL),
        ("IMetric", "MetricSubtype_", metric_subtype::ALL),
        ("IMetric", "RollupOperation_", rollup::ALL),
        ("IAction", "NameBase_", name_base::ALL),
        ("IAction", "WorkloadType_", &workloads),
        ("IFrontend", "Severity_SEVERITY_", severity::ALL),
        ("IFrontend", "SpeedupType_", frontend_speedup_type::ALL),
        ("INvtxRange", "PayloadType_PAYLOAD_", payload_type::ALL),
    ];
    super::consts::prefixed(groups)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn module_constants_name_every_enum_member_and_msg_type_error_err() {
        let constants = report_module_constants();
        let value = |name: &str| constants.iter().find(|(n, _)| n == name).map(|(_, v)| *v);
        assert_eq!(value("MsgType_ERR"), Some(4));
        assert_eq!(value("MsgType_ERROR"), None);
        assert_eq!(value("StallReason_WAIT"), Some(18));
        assert_eq!(value("SpeedupType_UNKNOWN"), Some(0));
        assert_eq!(value("TableElementKind_CUSTOM"), Some(4));
        let members: usize = report_enums().iter().map(|(_, m)| m.len()).sum();
        assert_eq!(constants.len(), members + 2 + 5);
    }
}
