//! The instructions of a Details page's source metric table ("Where Warps Stalled Most",
//! "Most Executed Instructions"...): a metric's per-PC values, ranked. A `group:NAME` metric is
//! the per-PC sum of the members the report lists in its `group:NAME` string metric.

use std::collections::HashMap;

use sightline_model::ncu::{Action, Metric};

/// Adds a metric's per-PC instances to `by_pc`.
fn add_instances(metric: &Metric, by_pc: &mut HashMap<u64, f64>) {
    for instance in &metric.instances {
        let (Some(pc), Some(value)) = (
            instance.correlation_id.as_ref().and_then(|c| c.as_u64()),
            instance.value.as_f64(),
        ) else {
            continue;
        };
        if value.is_finite() {
            *by_pc.entry(pc).or_default() += value;
        }
    }
}

/// The per-PC values of `metric` in `action` (empty when the result holds none per PC).
pub fn per_pc(action: &Action, metric: &str) -> HashMap<u64, f64> {
    let mut by_pc = HashMap::new();
    if metric.starts_with("group:") {
        let members = action
            .metric(metric)
            .and_then(|m| m.stored.as_str().map(str::to_owned))
            .unwrap_or_default();
        for name in members.split(',').map(str::trim).filter(|n| !n.is_empty()) {
            if let Some(m) = action.metric(name) {
                add_instances(m, &mut by_pc);
            }
        }
    } else if let Some(m) = action.metric(metric) {
        add_instances(m, &mut by_pc);
    }
    by_pc
}

/// The `rows` PCs with the highest (or, `ascending`, the lowest) values of `metric`; zeros
/// are left out of a descending list (they are not hot spots).
pub fn top_pcs(action: &Action, metric: &str, rows: usize, ascending: bool) -> Vec<(u64, f64)> {
    let mut all: Vec<(u64, f64)> = per_pc(action, metric)
        .into_iter()
        .filter(|(_, v)| ascending || *v > 0.0)
        .collect();
    all.sort_by(|a, b| {
        let order = a.1.total_cmp(&b.1);
        let order = if ascending { order } else { order.reverse() };
        order.then(a.0.cmp(&b.0))
    });
    all.truncate(rows);
    all
}
