//! The report's side: one [`ProfiledKernel`] per kernel result.

use super::ProfiledKernel;
use crate::ncu::nvtx::NvtxView;
use crate::ncu::{NameBase, ReadError, Report, WorkloadKind};

/// The kernel results of `report`, in report order (ranges, command lists and graphs are
/// skipped: they are not kernels on a timeline).
pub fn profiled_kernels(report: &Report) -> Result<Vec<ProfiledKernel>, ReadError> {
    let session_pid = report.session().process_id.map(u64::from);
    let mut out = Vec::new();
    for index in 0..report.num_actions() {
        if report.action_kind(index) != Some(WorkloadKind::Kernel) {
            continue;
        }
        let action = report.action(index)?;
        let process = action.process().and_then(|p| report.processes().get(p));
        let nvtx = action
            .nvtx()
            .map(|state| {
                let view = NvtxView::new(state, action.thread_id());
                view.domain_ids()
                    .flat_map(|d| view.push_pop_ranges(d).iter().map(|s| (*s).to_owned()))
                    .collect()
            })
            .unwrap_or_default();
        out.push(ProfiledKernel {
            index,
            pid: process.map(|p| u64::from(p.process_id)).or(session_pid),
            process: process.and_then(|p| p.process_name.clone()),
            function: action.name(NameBase::Function).to_owned(),
            demangled: match &action.info() {
                crate::ncu::ResultInfo::Kernel(k) => k.kernel_demangled_name.clone(),
                _ => String::new(),
            },
            mangled: action.name(NameBase::Mangled).to_owned(),
            grid: action.grid_size(),
            block: action.block_size(),
            stream: action.stream_id(),
            nvtx,
        });
    }
    Ok(out)
}
