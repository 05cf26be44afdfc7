//! The instructions of a Details page's source metric table ("Where Warps Stalled Most",
//! "Most Executed Instructions"...): a metric's per-PC values ([`PcMetrics::values`], the same
//! as the Source page's column of that metric: stored, derived or `group:`), ranked.

use super::values::PcMetrics;
use crate::ncu::Action;

/// The `rows` PCs with the highest (or, `ascending`, the lowest) values of `metric`, with
/// their values; ties by PC. Values that are not finite are left out, and so are zeros from a
/// descending list (they are not hot spots).
pub fn top_pcs(
    metrics: &PcMetrics,
    action: &Action,
    metric: &str,
    rows: usize,
    ascending: bool,
) -> Vec<(u64, f64)> {
    let Some(values) = metrics.values(action, metric) else {
        return Vec::new();
    };
    let mut all: Vec<(u64, f64)> = values
        .iter()
        .filter(|(_, v)| v.is_finite() && (ascending || *v > 0.0))
        .collect();
    all.sort_by(|a, b| {
        let order = a.1.total_cmp(&b.1);
        let order = if ascending { order } else { order.reverse() };
        order.then(a.0.cmp(&b.0))
    });
    all.truncate(rows);
    all
}
