//! What a roofline chart draws beside its peaks: the achieved points (the kernel's and each
//! baseline's) and the note on the values that were not collected.

use super::super::*;
use super::{or_placeholder, series_color};

/// An achieved point: name, intensity, work, colour, and whether it is a baseline's.
pub(super) type Achieved = (String, f64, f64, Color32, bool);

/// The achieved points of the chart (those without values added to `missing`), then each
/// baseline's (those without values left out: the names say which are drawn).
pub(super) fn achieved_points(
    item: &Item,
    section: &str,
    baselines: &[ComparedBaseline],
    points: &[RooflinePoint],
    missing: &mut Vec<String>,
) -> Vec<Achieved> {
    let positive = |v: Option<f64>| v.filter(|v| v.is_finite() && *v > 0.0);
    let mut achieved = Vec::new();
    for (index, point) in points.iter().enumerate() {
        let name = or_placeholder(&point.label, "Achieved", index);
        match (positive(point.work), positive(point.traffic)) {
            (Some(work), Some(traffic)) => {
                achieved.push((name, work / traffic, work, series_color(index), false))
            }
            _ => missing.push(name),
        }
    }
    // A baseline's point it has no value for is left out (its name says which are drawn).
    for baseline in baselines {
        let points = baseline.entries.roofline_points(section, &item.label);
        for (index, point) in points.iter().enumerate() {
            if let (Some(work), Some(traffic)) = (positive(point.work), positive(point.traffic)) {
                let label = or_placeholder(&point.label, "Achieved", index);
                let name = format!("{label} ({})", baseline.name);
                achieved.push((name, work / traffic, work, baseline.color, true));
            }
        }
    }
    achieved
}

/// The note on what the chart does not draw: nothing when every value was collected.
pub(super) fn missing_note(item: &Item, missing: &[String], nothing_drawn: bool) -> String {
    if missing.is_empty() {
        String::new()
    } else if nothing_drawn {
        let what = if item.label.is_empty() {
            "Roofline: the"
        } else {
            "The"
        };
        format!(
            "{what} metrics of {} were not collected for this kernel.",
            missing.join(", ")
        )
    } else {
        format!("Not drawn (metrics not collected): {}", missing.join(", "))
    }
}
