//! The four occupancy charts CodeXL drew for a kernel — occupancy against VGPRs, SGPRs, LDS
//! bytes and work-group size, the other resources staying the kernel's — computed by
//! `codexl::curves` from the limits in the `.occupancy` row, with the kernel's own point marked;
//! and the line of key values above them (occupancy, the waves each resource allows, what
//! limits the kernel).

use eframe::egui;

use super::chart::{ChartAxes, ChartOutput, LineChart};
use crate::widgets::plot::tick_text;
use sightline_model::codexl::{Limits, OccupancyCurve, OccupancyModel, OccupancyRow, Resource};

/// The short name of a chart's resource (in titles).
pub fn short_name(resource: Resource) -> &'static str {
    match resource {
        Resource::Vgprs => "VGPRs",
        Resource::Sgprs => "SGPRs",
        Resource::LdsBytes => "LDS bytes",
        Resource::WorkGroupSize => "work-group size",
    }
}

/// One chart ready to draw.
#[derive(Debug, Clone)]
pub struct CurveView {
    /// The model's curve.
    pub curve: OccupancyCurve,
    /// Its points as floats, for the painter.
    pub points: Vec<(f64, f64)>,
    /// "Occupancy vs VGPRs".
    pub title: String,
    /// What screen readers (and tests) call the chart: "Occupancy vs VGPRs; kernel at 93:
    /// 20.0%".
    pub label: String,
}

impl CurveView {
    fn new(curve: OccupancyCurve) -> CurveView {
        let title = format!("Occupancy vs {}", short_name(curve.resource));
        let label = format!(
            "{title}; kernel at {}: {:.1}%",
            curve.kernel_point.0, curve.kernel_point.1
        );
        CurveView {
            points: curve.points.iter().map(|&(x, y)| (x as f64, y)).collect(),
            curve,
            title,
            label,
        }
    }
}

/// The charts of one occupancy row (computed once when the row is selected).
#[derive(Debug, Clone)]
pub struct KernelCharts {
    /// The row's index in the file.
    pub row: usize,
    /// The model, when the row has every limit it needs.
    pub model: Option<OccupancyModel>,
    /// Waves per CU each resource allows at the kernel's usage.
    pub limits: Option<Limits>,
    /// VGPRs, SGPRs, LDS bytes, work-group size (empty without a model).
    pub curves: Vec<CurveView>,
}

impl KernelCharts {
    /// Computes the charts of `row` (row `index` of its file).
    pub fn new(index: usize, row: &OccupancyRow) -> KernelCharts {
        let model = OccupancyModel::from_row(row);
        let limits = model.map(|m| m.limits(m.usage));
        let curves = model
            .map(|m| m.curves().into_iter().map(CurveView::new).collect())
            .unwrap_or_default();
        KernelCharts {
            row: index,
            model,
            limits,
            curves,
        }
    }

    /// The chart of `resource`.
    pub fn curve(&self, resource: Resource) -> Option<&CurveView> {
        self.curves.iter().find(|c| c.curve.resource == resource)
    }
}

/// "Occupancy 20.0% (file: 20.00%) · waves per CU allowed by VGPRs 8, SGPRs 40, LDS 16,
/// work-group 40, of 40 · limited by VGPRs".
pub fn limits_text(row: &OccupancyRow, charts: &KernelCharts) -> String {
    let file = row
        .occupancy_percent
        .map_or_else(|| "not in the file".to_string(), |p| format!("{p:.2}%"));
    let (Some(limits), Some(model)) = (charts.limits, charts.model) else {
        return format!(
            "Occupancy (file): {file} · the row lacks a limit the charts need (waves and \
             work-groups per CU, VGPRs, SGPRs, LDS, wavefront size)"
        );
    };
    let by = [
        ("VGPRs", limits.vgpr),
        ("SGPRs", limits.sgpr),
        ("LDS", limits.lds),
        ("work-group", limits.work_group),
    ];
    let least = by.iter().map(|(_, w)| *w).min().unwrap_or(0);
    let limiting: Vec<&str> = by
        .iter()
        .filter(|(_, w)| *w == least)
        .map(|(name, _)| *name)
        .collect();
    let allowed: Vec<String> = by.iter().map(|(n, w)| format!("{n} {w}")).collect();
    format!(
        "Occupancy {:.1}% (file: {file}) · waves per CU allowed by {}, of {} · limited by {}",
        limits.occupancy_percent,
        allowed.join(", "),
        model.max_waves_per_cu,
        limiting.join(", ")
    )
}

/// One occupancy chart at `size`.
pub fn curve_ui(ui: &mut egui::Ui, view: &CurveView, size: egui::Vec2) -> ChartOutput {
    let resource = view.curve.resource;
    let (x, y) = view.curve.kernel_point;
    LineChart {
        axes: ChartAxes {
            title: &view.title,
            x_label: resource.label(),
            y_label: "Occupancy (%)",
            size,
        },
        points: &view.points,
        marked: Some((x as f64, y)),
        y_range: (0.0, 100.0),
        accessible_label: &view.label,
    }
    .ui(ui, &|x, y| {
        format!(
            "{} = {}: occupancy {y:.1}%",
            resource.label(),
            tick_text(x, 1.0)
        )
    })
}

/// The four charts in a 2 × 2 grid filling the available space.
pub fn charts_grid_ui(ui: &mut egui::Ui, charts: &KernelCharts) {
    if charts.curves.is_empty() {
        return;
    }
    // Two rows that fill the panel exactly: a resizable panel takes its content's size, so
    // anything less would shrink it frame after frame.
    let spacing = ui.spacing().item_spacing.y;
    let height = ((ui.available_height() - spacing) / 2.0).floor().max(140.0);
    for pair in charts.curves.chunks(2) {
        ui.columns(2, |columns| {
            for (column, view) in columns.iter_mut().zip(pair) {
                let size = egui::vec2(column.available_width(), height);
                curve_ui(column, view, size);
            }
        });
    }
    let rest = ui.available_height();
    if rest > 0.0 {
        ui.allocate_space(egui::vec2(0.0, rest));
    }
}
