//! The launch columns every row of the details and raw pages starts with: `ID`, the process,
//! the NVTX state (when the report has NVTX ranges), the kernel and its launch geometry, the
//! device and its compute capability.

use crate::ncu::nvtx::NvtxView;
use crate::ncu::{Action, MetricValue, NameBase, Report};
use crate::proto::nv::nvtx::{NvtxEventAttributes, NvtxState};

/// The header of the push/pop NVTX column.
pub const NVTX_PUSH_POP_HEADER: &str =
    "thread Domain:Push/Pop_Range:PL_Type:PL_Value:CLR_Type:Color:Msg_Type:Msg";
/// The header of the start/end NVTX column.
pub const NVTX_START_END_HEADER: &str =
    "Id:Domain:Start/Stop_Range:PL_Type:PL_Value:CLR_Type:Color:Msg_Type:Msg";

/// Which launch columns a page shows and how.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct LaunchColumns {
    /// The two NVTX columns (the report has NVTX ranges).
    pub nvtx: bool,
    /// `--print-nvtx-rename kernel`: the kernel is named after its innermost push/pop range
    /// (`range/kernel`).
    pub nvtx_rename: bool,
}

impl LaunchColumns {
    /// The columns for `actions` of one report: NVTX columns when any action has an NVTX
    /// range.
    pub fn for_actions<'a>(actions: impl IntoIterator<Item = &'a Action>) -> LaunchColumns {
        LaunchColumns {
            nvtx: actions
                .into_iter()
                .any(|a| a.nvtx().is_some_and(has_ranges)),
            nvtx_rename: false,
        }
    }

    /// The column names.
    pub fn header(&self) -> Vec<String> {
        let mut names = vec!["ID", "Process ID", "Process Name", "Host Name"];
        if self.nvtx {
            names.extend([NVTX_PUSH_POP_HEADER, NVTX_START_END_HEADER]);
        }
        names.extend([
            "Kernel Name",
            "Context",
            "Stream",
            "Block Size",
            "Grid Size",
            "Device",
            "CC",
        ]);
        names.into_iter().map(str::to_owned).collect()
    }

    /// The cells of `action`.
    pub fn cells(&self, report: &Report, action: &Action) -> Vec<String> {
        let process = action.process().and_then(|p| report.processes().get(p));
        let mut cells = vec![
            action.index().to_string(),
            process.map_or_else(String::new, |p| p.process_id.to_string()),
            process
                .and_then(|p| p.process_name.as_deref())
                .map_or_else(String::new, |n| base_name(trim_name(n)).to_owned()),
            process.and_then(|p| p.hostname.clone()).unwrap_or_default(),
        ];
        let view = action.nvtx().map(|s| NvtxView::new(s, action.thread_id()));
        if self.nvtx {
            cells.push(push_pop_cell(action));
            cells.push(start_end_cell(action));
        }
        let mut name = action.name(NameBase::Demangled).to_owned();
        if self.nvtx_rename
            && let Some(innermost) = view.as_ref().and_then(innermost_range)
        {
            name = format!("{innermost}/{name}");
        }
        cells.push(name);
        cells.push(
            action
                .context_id()
                .map_or_else(String::new, |c| c.to_string()),
        );
        cells.push(
            action
                .stream_id()
                .map_or_else(String::new, |s| s.to_string()),
        );
        cells.push(action.block_size().map_or_else(String::new, dim3));
        cells.push(action.grid_size().map_or_else(String::new, dim3));
        let attribute = |name: &str| action.metric(name).map(|m| m.value());
        cells.push(
            attribute("device__attribute_device_index")
                .and_then(|v| v.as_u64())
                .map_or_else(String::new, |d| d.to_string()),
        );
        let cc = match (
            attribute("device__attribute_compute_capability_major"),
            attribute("device__attribute_compute_capability_minor"),
        ) {
            (Some(major), Some(minor)) => format!("{}.{}", number(&major), number(&minor)),
            _ => String::new(),
        };
        cells.push(cc);
        cells
    }
}

fn number(value: &MetricValue) -> String {
    value
        .as_u64()
        .map_or_else(|| super::number::plain_text(value), |v| v.to_string())
}

fn dim3([x, y, z]: [u64; 3]) -> String {
    format!("({x}, {y}, {z})")
}

/// A stored process name without the NUL and spaces some writers leave at its end (Windows
/// reports store `...\\app.exe\0`).
pub fn trim_name(name: &str) -> &str {
    name.trim_end_matches(|c: char| c == '\0' || c.is_whitespace())
}

/// The file name of a process path, with `/` or `\` separators.
fn base_name(path: &str) -> &str {
    path.rsplit(['/', '\\']).next().unwrap_or(path)
}

fn has_ranges(state: &NvtxState) -> bool {
    state
        .threads
        .iter()
        .flat_map(|t| &t.push_pop_domains)
        .any(|d| !d.stack.is_empty())
        || state.start_end_domains.iter().any(|d| !d.ranges.is_empty())
}

/// The innermost push/pop range of the launching thread, in the first domain that has one.
fn innermost_range<'a>(view: &NvtxView<'a>) -> Option<&'a str> {
    view.domain_ids()
        .find_map(|id| view.push_pop_ranges(id).last().copied())
}

/// `TID  "domain:range:PL_Type:PL_Value:CLR_Type:Color:Msg_Type:Msg"  ... ` for the launching
/// thread's push/pop stacks (quotes doubled, as the CLI writes them in this column).
fn push_pop_cell(action: &Action) -> String {
    let Some(state) = action.nvtx() else {
        return String::new();
    };
    let tid = action.thread_id();
    let mut text = String::new();
    for thread in state
        .threads
        .iter()
        .filter(|t| tid.is_none_or(|id| t.tid == id))
    {
        if thread.push_pop_domains.iter().all(|d| d.stack.is_empty()) {
            continue;
        }
        text.push_str(&thread.tid.to_string());
        for domain in &thread.push_pop_domains {
            let name = domain_name(state, domain.id);
            for range in &domain.stack {
                text.push_str("  \"\"");
                text.push_str(&range_text(name, &range.name, range.attributes.as_ref()));
                text.push_str("\"\"");
            }
        }
        text.push(' ');
    }
    text
}

/// `ID:domain:range:...` for the open start/end ranges.
fn start_end_cell(action: &Action) -> String {
    let Some(state) = action.nvtx() else {
        return String::new();
    };
    let mut parts = Vec::new();
    for domain in &state.start_end_domains {
        let name = domain_name(state, domain.id);
        for range in &domain.ranges {
            parts.push(format!(
                "{}:{}",
                range.id,
                range_text(name, &range.name, range.attributes.as_ref())
            ));
        }
    }
    parts.join("  ")
}

fn domain_name(state: &NvtxState, id: u64) -> &str {
    state
        .domains
        .iter()
        .find(|d| d.id == id)
        .map_or(crate::ncu::nvtx::DEFAULT_DOMAIN_NAME, |d| d.name.as_str())
}

/// `domain:name:PL_Type:PL_Value:CLR_Type:Color:Msg_Type:Msg`.
pub(super) fn range_text(
    domain: &str,
    name: &str,
    attributes: Option<&NvtxEventAttributes>,
) -> String {
    let (payload, color, message) = match attributes {
        None => (
            "none:none".to_owned(),
            "none:none".to_owned(),
            format!("ASCII:{name}"),
        ),
        Some(a) => (
            payload_text(&a.payload),
            match a.color.color {
                Some(c) if a.color.color_type != 0 => format!("RGB:{c:#010x}"),
                _ => "none:none".to_owned(),
            },
            format!(
                "{}:{}",
                if a.message.message_type == 3 {
                    "REGISTERED"
                } else if a.message.message_type == 2 {
                    "UNICODE"
                } else {
                    "ASCII"
                },
                a.message.message.as_deref().unwrap_or(name)
            ),
        ),
    };
    format!("{domain}:{name}:{payload}:{color}:{message}")
}

fn payload_text(payload: &crate::proto::nv::nvtx::NvtxPayload) -> String {
    if let Some(v) = payload.ull_value {
        return format!("UINT64:{v}");
    }
    if let Some(v) = payload.ll_value {
        return format!("INT64:{v}");
    }
    if let Some(v) = payload.double_value {
        return format!("DOUBLE:{v}");
    }
    if let Some(v) = payload.u_value {
        return format!("UINT32:{v}");
    }
    if let Some(v) = payload.i_value {
        return format!("INT32:{v}");
    }
    if let Some(v) = payload.f_value {
        return format!("FLOAT:{v}");
    }
    "none:none".to_owned()
}
