//! `.occupancy` and `.csv` generators for the session of [`super::atp::write_atp`]: one row per
//! OpenCL kernel dispatch of the trace, with the thread id and call index of its enqueue call.

use std::fmt::Write as _;

use super::atp::{AtpSpec, ndrange_call_index, opencl_calls_per_thread};
use super::{LineEnding, Rng};
use sightline_model::codexl::{OCCUPANCY_COLUMNS, OccupancyModel, OccupancyRow};

/// How to lay a table file out.
#[derive(Debug, Clone)]
pub struct TableStyle {
    /// The list separator (`,` or the locale's, e.g. `;`).
    pub separator: char,
    /// `# Key=Value` (the occupancy writer) rather than `#Key=Value` (the counter writer).
    pub space_after_hash: bool,
    /// Write the column line with `,` whatever the separator (a CodeXL release's bug).
    pub commas_in_column_line: bool,
    /// LF or CRLF.
    pub line_ending: LineEnding,
}

impl Default for TableStyle {
    fn default() -> Self {
        TableStyle {
            separator: ',',
            space_after_hash: true,
            commas_in_column_line: false,
            line_ending: LineEnding::Lf,
        }
    }
}

/// One OpenCL kernel dispatch of the generated session.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Dispatch {
    /// Host thread id.
    pub thread_id: u64,
    /// Index of the `clEnqueueNDRangeKernel` call within its thread.
    pub call_index: u64,
    /// Kernel name.
    pub kernel: &'static str,
    /// Kernel id in `Method` (`__k<id>_`).
    pub kernel_id: u32,
    /// Work-group size (items), `None` for a NULL local size.
    pub work_group_size: Option<u64>,
    /// Global size (items, all dimensions multiplied).
    pub global_size: u64,
    /// VGPRs, SGPRs, LDS bytes.
    pub resources: (u64, u64, u64),
}

const KERNELS: [(&str, u32, (u64, u64, u64)); 3] = [
    ("vadd", 1, (24, 16, 0)),
    ("matmul_tiled", 2, (93, 22, 13824)),
    ("reduce", 3, (60, 40, 4096)),
];

/// The OpenCL kernel dispatches of a generated trace, in thread then call order (the same
/// sizes the trace's enqueue lines carry).
pub fn dispatches(spec: &AtpSpec) -> Vec<Dispatch> {
    let mut out = Vec::new();
    for t in 0..spec.opencl_threads {
        let (kernel, kernel_id, resources) = KERNELS[t as usize % 3];
        for it in 0..u64::from(spec.iterations) {
            let two_d = it % 2 == 1;
            let local = (it % 3 != 2).then_some(64 * if two_d { 4 } else { 1 });
            let global = 1024 * (1 + it % 3) * if two_d { 16 } else { 1 };
            out.push(Dispatch {
                thread_id: 4100 + u64::from(t),
                call_index: ndrange_call_index(spec, it),
                kernel,
                kernel_id,
                work_group_size: local,
                global_size: global,
                resources,
            });
        }
    }
    debug_assert!(
        out.iter()
            .all(|d| d.call_index < opencl_calls_per_thread(spec))
    );
    out
}

fn header_line(out: &mut String, style: &TableStyle, key: &str, value: &str) {
    let _ = write!(
        out,
        "#{}{key}={value}{}",
        if style.space_after_hash { " " } else { "" },
        style.line_ending.as_str()
    );
}

fn row_line(out: &mut String, style: &TableStyle, fields: &[String], columns: bool) {
    let separator = if columns && style.commas_in_column_line {
        ','
    } else {
        style.separator
    };
    out.push_str(&fields.join(&separator.to_string()));
    out.push_str(style.line_ending.as_str());
}

/// A Hawaii-like device row (limits of GCN 2) for one dispatch; the limited-wave columns and
/// the occupancy are those of [`OccupancyModel`] (checked against hand computations there).
pub fn occupancy_row(d: &Dispatch) -> OccupancyRow {
    let wg = d.work_group_size.unwrap_or(256);
    let mut row = OccupancyRow {
        thread_id: Some(d.thread_id),
        kernel_name: d.kernel.to_string(),
        device_name: "Hawaii".into(),
        compute_units: Some(44),
        max_waves_per_cu: Some(40),
        max_work_groups_per_cu: Some(16),
        max_vgprs: Some(256),
        max_sgprs: Some(512),
        max_lds: Some(65536),
        vgprs: Some(d.resources.0),
        sgprs: Some(d.resources.1),
        lds: Some(d.resources.2),
        wavefront_size: Some(64),
        work_group_size: Some(wg),
        waves_per_work_group: Some(wg.div_ceil(64)),
        max_work_group_size: Some(256),
        max_waves_per_work_group: Some(4),
        global_work_size: Some(d.global_size),
        max_global_work_size: Some(16_777_216),
        graphics_ip: "IP 7".into(),
        simds_per_cu: Some(4),
        ..OccupancyRow::default()
    };
    if let Some(model) = OccupancyModel::from_row(&row) {
        let limits = model.limits(model.usage);
        row.vgpr_limited_waves = Some(limits.vgpr);
        row.sgpr_limited_waves = Some(limits.sgpr);
        row.lds_limited_waves = Some(limits.lds);
        row.wg_limited_waves = Some(limits.work_group);
        row.occupancy_percent = Some(limits.occupancy_percent);
    }
    row
}

/// Writes the `.occupancy` file of a session: RCP's header and 26 columns, one row a dispatch.
pub fn occupancy_text(spec: &AtpSpec, style: &TableStyle) -> (String, Vec<OccupancyRow>) {
    let list = dispatches(spec);
    let mut out = String::new();
    header_line(&mut out, style, "ProfilerVersion", "5.2.6553");
    header_line(&mut out, style, "Application", "/home/user/app");
    header_line(
        &mut out,
        style,
        "ApplicationArgs",
        "--size 1024 --mode=fast",
    );
    header_line(
        &mut out,
        style,
        "ListSeparator",
        &style.separator.to_string(),
    );
    header_line(&mut out, style, "KernelCount", &list.len().to_string());
    row_line(&mut out, style, &OCCUPANCY_COLUMNS.map(String::from), true);
    let mut rows = Vec::new();
    for d in &list {
        let r = occupancy_row(d);
        let n = |v: Option<u64>| v.map_or(String::new(), |x| x.to_string());
        let fields = vec![
            n(r.thread_id),
            r.kernel_name.clone(),
            r.device_name.clone(),
            n(r.compute_units),
            n(r.max_waves_per_cu),
            n(r.max_work_groups_per_cu),
            n(r.max_vgprs),
            n(r.max_sgprs),
            n(r.max_lds),
            n(r.vgprs),
            n(r.sgprs),
            n(r.lds),
            n(r.wavefront_size),
            n(r.work_group_size),
            n(r.waves_per_work_group),
            n(r.max_work_group_size),
            n(r.max_waves_per_work_group),
            n(r.global_work_size),
            n(r.max_global_work_size),
            n(r.vgpr_limited_waves),
            n(r.sgpr_limited_waves),
            n(r.lds_limited_waves),
            n(r.wg_limited_waves),
            r.occupancy_percent
                .map_or(String::new(), |p| format!("{p:.2}")),
            r.graphics_ip.clone(),
            n(r.simds_per_cu),
        ];
        row_line(&mut out, style, &fields, false);
        rows.push(r);
    }
    (out, rows)
}

/// The counter columns written by [`counters_text`].
pub const COUNTER_COLUMNS: [&str; 12] = [
    "Method",
    "ExecutionOrder",
    "ThreadID",
    "CallIndex",
    "GlobalWorkSize",
    "WorkGroupSize",
    "Time",
    "LocalMemSize",
    "VGPRs",
    "SGPRs",
    "VALUBusy",
    "CacheHit",
];

/// Writes the `.csv` counter file of a session in RCP 5.2's layout (`#Key=Value` header,
/// right-aligned fixed-width numbers, `{ x y z}` sizes, `NULL` local sizes). Returns the text
/// and each row's time in ms as written.
pub fn counters_text(spec: &AtpSpec, style: &TableStyle) -> (String, Vec<String>) {
    let list = dispatches(spec);
    let mut out = String::new();
    let plain = TableStyle {
        space_after_hash: false,
        ..style.clone()
    };
    header_line(&mut out, &plain, "ProfileFileVersion", "5.2");
    header_line(&mut out, &plain, "ProfilerVersion", "5.2.6553");
    header_line(&mut out, &plain, "API", "OpenCL");
    header_line(&mut out, &plain, "Application", "/home/user/app");
    header_line(
        &mut out,
        &plain,
        "ApplicationArgs",
        "--size 1024 --mode=fast",
    );
    header_line(&mut out, &plain, "WorkingDirectory", "/home/user");
    header_line(
        &mut out,
        &plain,
        "Device Hawaii Platform Vendor",
        "Advanced Micro Devices, Inc.",
    );
    header_line(&mut out, &plain, "OS Version", "Linux 4.10.0-28-generic");
    header_line(&mut out, &plain, "DisplayName", "Session1");
    header_line(
        &mut out,
        &plain,
        "ListSeparator",
        &style.separator.to_string(),
    );
    let sep = format!("{} ", style.separator);
    out.push_str(&COUNTER_COLUMNS.join(&sep));
    out.push_str(style.line_ending.as_str());
    let mut times = Vec::new();
    let mut rng = Rng::new(spec.seed ^ 0xC0C0);
    for (order, d) in list.iter().enumerate() {
        let time = format!(
            "{}.{:05}",
            rng.range_inclusive(1, 900),
            rng.range_inclusive(0, 99_999)
        );
        let wg = d.work_group_size.map_or("NULL".to_string(), |w| {
            format!("{{{w:>5} {:>5} {:>5}}}", 1, 1)
        });
        let fields = [
            format!("{}__k{}_Hawaii1", d.kernel, d.kernel_id),
            (order + 1).to_string(),
            d.thread_id.to_string(),
            d.call_index.to_string(),
            format!("{{{:>7} {:>7} {:>7}}}", d.global_size, 1, 1),
            wg,
            format!("{time:>15}"),
            d.resources.2.to_string(),
            d.resources.0.to_string(),
            d.resources.1.to_string(),
            format!("{:>12.2}", rng.range_inclusive(0, 10_000) as f64 / 100.0),
            format!("{:>12.2}", rng.range_inclusive(0, 10_000) as f64 / 100.0),
        ];
        out.push_str(&fields.join(&sep));
        out.push_str(style.line_ending.as_str());
        times.push(time);
    }
    (out, times)
}
