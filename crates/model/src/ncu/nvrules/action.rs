//! What an NvRules `IAction` answers from its codes: the name base a `NameBase_*` asks for and
//! the `WorkloadType_*` of a result.

use super::consts::{name_base, workload_type};
use crate::ncu::{NameBase, WorkloadKind};

/// The name base of a `NameBase_*` code (`None` for an unknown code).
pub fn name_base_of(code: i64) -> Option<NameBase> {
    match code {
        name_base::FUNCTION => Some(NameBase::Function),
        name_base::DEMANGLED => Some(NameBase::Demangled),
        name_base::MANGLED => Some(NameBase::Mangled),
        _ => None,
    }
}

/// The `WorkloadType_*` code of a result's kind.
pub fn workload_code(kind: WorkloadKind) -> i64 {
    match kind {
        WorkloadKind::Kernel => workload_type::KERNEL,
        WorkloadKind::Range => workload_type::RANGE,
        WorkloadKind::Cmdlist => workload_type::CMDLIST,
        WorkloadKind::Graph => workload_type::GRAPH,
    }
}
