//! `sightline dump`: a report as canonical JSON, in exactly the shape (and byte layout) of the
//! oracle script NVIDIA's reader is checked with.

use std::borrow::Cow;
use std::collections::HashMap;
use std::io::{self, Write};

use super::rule_result::rule_messages;
use super::units::infer_unit;
use super::{Action, Metric, MetricValue, NameBase, ReadError, Report};
use crate::problem::Problem;
use crate::proto::nv::nvtx::NvtxState;
use crate::proto::nv::profiler::ProfilerSection;
use crate::pyjson::PyJsonWriter;

/// What to dump.
#[derive(Debug, Clone, Default)]
pub struct DumpOptions {
    /// Add each metric's inferred `"unit"`.
    pub units: bool,
    /// Only this action (by index).
    pub kernel: Option<usize>,
}

/// An error while dumping: the report or the output failed.
#[derive(Debug, thiserror::Error)]
pub enum DumpError {
    /// The report is damaged.
    #[error(transparent)]
    Read(#[from] ReadError),
    /// Writing the output failed.
    #[error("writing output: {0}")]
    Io(#[from] io::Error),
}

/// Writes the dump of `report` to `out`, decoding one action at a time.
///
/// Returns the warnings of the dumped actions (problems the reader worked around while
/// decoding them, such as a metric naming a string the file never defines); the report's own
/// warnings are in [`Report::warnings`].
pub fn write_dump(
    report: &Report,
    options: &DumpOptions,
    out: impl Write,
) -> Result<Vec<Problem>, DumpError> {
    let mut w = PyJsonWriter::new(out, 1);
    let mut warnings = Vec::new();
    w.begin_object()?;
    w.key("ranges")?;
    w.begin_array()?;
    w.begin_object()?;
    w.key("actions")?;
    w.begin_array()?;
    for index in 0..report.num_actions() {
        if options.kernel.is_some_and(|k| k != index) {
            continue;
        }
        let action = report.action(index)?;
        warnings.extend_from_slice(action.warnings());
        write_action(&mut w, &action, options, report)?;
    }
    w.end_array()?;
    w.end_object()?;
    w.end_array()?;
    w.end_object()?;
    let mut out = w.into_inner();
    out.write_all(b"\n")?;
    out.flush()?;
    Ok(warnings)
}

fn write_action<W: Write>(
    w: &mut PyJsonWriter<W>,
    action: &Action,
    options: &DumpOptions,
    report: &Report,
) -> Result<(), DumpError> {
    w.begin_object()?;
    w.key_string("demangled", action.name(NameBase::Demangled))?;
    w.key_string("mangled", action.name(NameBase::Mangled))?;
    // A `Unit` given by an embedded section overrides the unit inferred from the name.
    let section_units = if options.units {
        let sections = action.sections().map_err(|e| {
            ReadError::format(report.path(), 0, format!("corrupt embedded section: {e}"))
        })?;
        Some(section_metric_units(&sections))
    } else {
        None
    };
    w.key("metrics")?;
    w.begin_object()?;
    for (name, metric) in action.metrics_by_name() {
        w.key(name)?;
        let unit = section_units.as_ref().map(|units| {
            units
                .get(name)
                .map_or_else(|| infer_unit(name), |u| Cow::Borrowed(u.as_str()))
        });
        write_metric(w, metric, unit.as_deref())?;
    }
    w.end_object()?;
    w.key_string("name", action.name(NameBase::Function))?;
    w.key("nvtx")?;
    write_nvtx(w, action.nvtx(), action)?;
    w.key("rule_results")?;
    write_rule_results(w, action)?;
    w.key("sections")?;
    w.begin_array()?;
    let ids = action.section_identifiers().map_err(|e| {
        ReadError::format(
            report.path(),
            e.offset,
            format!("corrupt embedded section: {}", e.what),
        )
    })?;
    for id in ids {
        w.string(id)?;
    }
    w.end_array()?;
    w.key_uint("workload_type", action.kind() as u64)?;
    w.end_object()?;
    Ok(())
}

/// Writes one value as the NVIDIA reader's JSON does (floats as Python prints them).
pub fn write_metric_value<W: Write>(
    w: &mut PyJsonWriter<W>,
    value: &MetricValue,
) -> io::Result<()> {
    match value {
        MetricValue::None => w.null(),
        MetricValue::String(s) => w.string(s),
        MetricValue::Float(v) => w.float(f64::from(*v)),
        MetricValue::Double(v) => w.float(*v),
        MetricValue::Uint32(v) => w.uint(u64::from(*v)),
        MetricValue::Uint64(v) => w.uint(*v),
    }
}

/// Metric units set explicitly (`Unit:`) in sections, by metric name.
pub fn section_metric_units(sections: &[ProfilerSection]) -> HashMap<String, String> {
    let mut units = HashMap::new();
    for section in sections {
        let header = section.header.iter().flat_map(|h| &h.metrics);
        let tables = section
            .body
            .iter()
            .flat_map(|b| &b.items)
            .filter_map(|i| i.table.as_ref());
        let metrics = section.metrics.iter().flat_map(|m| &m.metrics);
        for metric in header.chain(tables.flat_map(|t| &t.metrics)).chain(metrics) {
            if let Some(unit) = metric.unit.as_ref().filter(|u| !u.is_empty()) {
                units.insert(metric.name.clone(), unit.clone());
            }
        }
    }
    units
}

fn write_metric<W: Write>(
    w: &mut PyJsonWriter<W>,
    metric: &Metric,
    unit: Option<&str>,
) -> io::Result<()> {
    w.begin_object()?;
    if metric.has_correlation_ids() {
        w.key("correlation_ids")?;
        w.begin_array()?;
        for instance in &metric.instances {
            write_metric_value(
                w,
                instance
                    .correlation_id
                    .as_ref()
                    .unwrap_or(&MetricValue::None),
            )?;
        }
        w.end_array()?;
    }
    if !metric.instances.is_empty() {
        w.key("instances")?;
        w.begin_array()?;
        for instance in &metric.instances {
            write_metric_value(w, &instance.value)?;
        }
        w.end_array()?;
    }
    w.key_string("kind", metric.kind().name())?;
    if let Some(unit) = unit {
        w.key_string("unit", unit)?;
    }
    w.key("value")?;
    write_metric_value(w, &metric.value())?;
    w.end_object()
}

fn write_nvtx<W: Write>(
    w: &mut PyJsonWriter<W>,
    state: Option<&NvtxState>,
    action: &Action,
) -> io::Result<()> {
    w.begin_object()?;
    if let Some(state) = state {
        let view = super::nvtx::NvtxView::new(state, action.thread_id());
        let mut domains: Vec<(String, u64)> =
            view.domain_ids().map(|id| (id.to_string(), id)).collect();
        domains.sort();
        for (key, id) in domains {
            w.key(&key)?;
            w.begin_object()?;
            w.key_string("name", view.domain_name(id))?;
            w.key("push_pop")?;
            w.begin_array()?;
            for name in view.push_pop_ranges(id).iter().copied() {
                w.string(name)?;
            }
            w.end_array()?;
            w.key("start_end")?;
            w.begin_array()?;
            for name in view.start_end_ranges(id).iter().copied() {
                w.string(name)?;
            }
            w.end_array()?;
            w.end_object()?;
        }
    }
    w.end_object()
}

fn write_rule_results<W: Write>(w: &mut PyJsonWriter<W>, action: &Action) -> io::Result<()> {
    w.begin_array()?;
    for m in rule_messages(action.rule_results()) {
        w.begin_object()?;
        if !m.focus_metrics.is_empty() {
            w.key("focus_metrics")?;
            w.begin_array()?;
            for f in &m.focus_metrics {
                w.begin_object()?;
                w.key_string("info", f.info.as_deref().unwrap_or(""))?;
                w.key_string("name", f.metric_name.as_deref().unwrap_or(""))?;
                w.key_int("severity", i64::from(f.severity.unwrap_or(0)))?;
                w.key_float("value", f.metric_value.unwrap_or(0.0))?;
                w.end_object()?;
            }
            w.end_array()?;
        }
        w.key_string("name", m.name)?;
        w.key_string("rule_identifier", m.rule_identifier)?;
        w.key("rule_message")?;
        w.begin_object()?;
        w.key_string("message", m.message)?;
        w.key_string("title", m.title)?;
        w.key_uint("type", m.msg_type as u64)?;
        w.end_object()?;
        if let Some(section) = m.section_identifier {
            w.key_string("section_identifier", section)?;
        }
        if let Some((kind, value)) = m.speedup {
            w.key("speedup_estimation")?;
            w.begin_object()?;
            w.key_float("speedup", value)?;
            w.key_int("type", i64::from(kind))?;
            w.end_object()?;
        }
        w.end_object()?;
    }
    w.end_array()
}
