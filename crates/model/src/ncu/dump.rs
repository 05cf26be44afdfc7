//! `sightline dump`: a report as canonical JSON, in exactly the shape (and byte layout) of the
//! oracle script NVIDIA's reader is checked with.

use std::borrow::Cow;
use std::collections::HashMap;
use std::io::{self, Write};

use super::rule_result::{self, rule_messages};
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
/// A whole report is decoded and rendered on worker threads (one per core, at most
/// `MAX_WORKERS`), each action into its own buffer, and written in order by the calling
/// thread: the bytes are those of a one-thread dump.
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
    let workers = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(MAX_WORKERS);
    match options.kernel {
        Some(index) if index < report.num_actions() => {
            let (json, found) = render_action(report, index, options)?;
            warnings.extend(found);
            w.raw_value(&json)?;
        }
        Some(_) => {}
        None if workers < 2 || report.num_actions() < 2 => {
            for index in 0..report.num_actions() {
                let (json, found) = render_action(report, index, options)?;
                warnings.extend(found);
                w.raw_value(&json)?;
            }
        }
        None => write_actions_parallel(report, options, workers, &mut w, &mut warnings)?,
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

/// The most worker threads a full dump uses.
pub const MAX_WORKERS: usize = 4;
/// Actions rendered ahead per worker before it waits for the writer.
const AHEAD: usize = 4;
/// How deep an action's object sits in the dump (`{"ranges": [{"actions": [ACTION`).
const ACTION_DEPTH: usize = 4;

/// One action rendered as JSON (at its depth in the dump) with its decoding warnings.
fn render_action(
    report: &Report,
    index: usize,
    options: &DumpOptions,
) -> Result<(Vec<u8>, Vec<Problem>), DumpError> {
    let action = report.action(index)?;
    let mut w = PyJsonWriter::nested(Vec::new(), 1, ACTION_DEPTH);
    write_action(&mut w, &action, options, report)?;
    Ok((w.into_inner(), action.warnings().to_vec()))
}

/// Every action of `report`, rendered by `workers` threads (worker `k` takes actions `k`,
/// `k + workers`, ... and hands them over in order through its own bounded channel) and
/// written in file order by the calling thread. The first error stops the dump: the writer
/// returns it and the workers stop when their channel closes.
fn write_actions_parallel<W: Write>(
    report: &Report,
    options: &DumpOptions,
    workers: usize,
    w: &mut PyJsonWriter<W>,
    warnings: &mut Vec<Problem>,
) -> Result<(), DumpError> {
    type Rendered = Result<(Vec<u8>, Vec<Problem>), DumpError>;
    std::thread::scope(|scope| {
        let mut channels = Vec::with_capacity(workers);
        for worker in 0..workers {
            let (send, receive) = std::sync::mpsc::sync_channel::<Rendered>(AHEAD);
            std::thread::Builder::new()
                .name(format!("sightline-dump-{worker}"))
                .spawn_scoped(scope, move || {
                    for index in (worker..report.num_actions()).step_by(workers) {
                        let rendered = render_action(report, index, options);
                        let failed = rendered.is_err();
                        if send.send(rendered).is_err() || failed {
                            return;
                        }
                    }
                })?;
            channels.push(receive);
        }
        for index in 0..report.num_actions() {
            let rendered = channels[index % workers].recv().map_err(|_| {
                io::Error::other(format!("the dump worker of action {index} stopped"))
            })?;
            let (json, found) = rendered?;
            warnings.extend(found);
            w.raw_value(&json)?;
        }
        Ok(())
    })
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
    for stored in rule_messages(action.rule_results()) {
        rule_result::write_json(w, stored.rule, &stored.message)?;
    }
    w.end_array()
}
