//! The semantics of NVIDIA's NvRules / `ncu_report` interface that do not depend on a Python
//! implementation: the enums' numbers, what an `IMetric` answers beyond its stored value, and
//! `IRange.actions_by_nvtx`'s filters. The rule engine (RustPython) and the Python module
//! (CPython) both bind these, so both answer alike.

mod action;
mod consts;
mod metric;
mod nvtx;
pub mod nvtx_filter;
mod report_consts;
mod section;
mod timelines;

pub use action::{name_base_of, workload_code};
pub use consts::{
    class_constants, marker_kind, metric_subtype, metric_type, msg_types, name_base, payload_type,
    rollup, severity, speedup_type, value_kind, workload_type,
};
pub use metric::{
    MetricUnits, correlation_instances, has_stored_value, infer_metric_type, infer_rollup,
    infer_subtype, kind_at, kind_code, value_at,
};
pub use nvtx::{payload_as_double, payload_as_uint64, range_attributes};
pub use report_consts::{
    WORKLOAD_SUBGRID_SCHEDULE, frontend_speedup_type, report_class_constants, report_enums,
    report_marker_kind, report_module_constants, report_speedup_type, rule_kind, stall_reason,
    table_element_kind,
};
pub use section::{body_metric_names, header_metric_names, metric_labels};
pub use timelines::Timelines;
