//! The right-hand panel: the selected event (what the timeline holds, its flow partners with a
//! "Go to" each, and its source read on demand: the export's row, the CodeXL trace's call,
//! command or dispatch, the NVTXT file and line), and what a selected time range holds per name
//! (count, total, average).

use std::path::{Path, PathBuf};

use eframe::egui;

use crate::widgets::pairs::pairs_grid;

use super::loader::CodexlSession;
use super::view::format_duration;
use crate::codexl::dispatch::dispatch_details_ui;
use sightline_model::timeline::DetailSource;
use sightline_model::timeline::atp::{DispatchKey, dispatch_key, event_details as trace_details};
use sightline_model::timeline::nsys::{NsysError, event_details};
use sightline_model::timeline::nvtxt::file_of_series;
use sightline_model::timeline::{
    CounterStats, Event, EventId, EventKind, Layout, NameStats, Payload, Timeline, TrackId,
};

/// An event's source row read from the export: `(column, value)` pairs, or why it could not
/// be read.
type SourceRow = Result<Vec<(String, String)>, NsysError>;

/// What is selected, with what was computed for it.
#[derive(Debug, Default)]
pub struct Selection {
    /// The selected event.
    pub event: Option<EventId>,
    /// Its flow partners (the API call that launched it, or the GPU work it launched).
    pub partners: Vec<EventId>,
    /// The NVTX range with a payload it was launched in (GPU work: an NCCL kernel's
    /// collective).
    pub launch_range: Option<EventId>,
    /// The selected time range.
    pub range: Option<(i64, i64)>,
    /// Per-name statistics of the range (computed when the range is set).
    pub range_stats: Vec<NameStats>,
    /// Per counter track (GPU metrics, memory usage): the level's average, smallest and
    /// largest value over the range (computed when the range is set).
    pub range_counters: Vec<(TrackId, CounterStats)>,
    /// The event's source row: `(event, columns or error)`, read when asked.
    source_row: Option<(EventId, SourceRow)>,
    /// What a CodeXL trace says of the event, read once per selection.
    trace: Option<TraceFacts>,
}

/// What a CodeXL trace says of one event: its detail rows and, for a kernel dispatch, the key
/// of its counter and occupancy rows.
#[derive(Debug)]
struct TraceFacts {
    event: EventId,
    rows: Vec<(String, String)>,
    dispatch: Option<DispatchKey>,
}

impl Selection {
    /// Selects `event` (or nothing) and finds its flow partners.
    pub fn select(&mut self, timeline: &Timeline, event: Option<EventId>) {
        self.event = event;
        self.partners = event.map_or_else(Vec::new, |e| timeline.flow_partners(e));
        self.launch_range = event.and_then(|e| timeline.launch_range(e));
        self.source_row = None;
        self.trace = None;
    }

    /// Sets the time range (or none) and computes its statistics over every track.
    pub fn set_range(&mut self, timeline: &Timeline, range: Option<(i64, i64)>) {
        self.range = range.filter(|(a, b)| b > a);
        self.range_stats = match self.range {
            Some((t0, t1)) => timeline.range_stats(t0, t1, &[]),
            None => Vec::new(),
        };
        self.range_counters = match self.range {
            Some((t0, t1)) => counter_tracks(timeline)
                .into_iter()
                .filter_map(|t| Some((t, timeline.counter_stats(t, t0, t1)?)))
                .collect(),
            None => Vec::new(),
        };
    }
}

/// Where the panel reads what the timeline does not hold.
pub struct Sources<'a> {
    /// The export or trace behind the events.
    pub details: &'a DetailSource,
    /// The NVTXT files on the timeline, by series index.
    pub nvtxt: &'a [PathBuf],
    /// A CodeXL trace's session (counters and occupancy of its dispatches).
    pub session: Option<&'a CodexlSession>,
}

/// Draws the panel; returns an event to go to (a flow partner's "Go to").
pub fn details_ui(
    ui: &mut egui::Ui,
    timeline: &Timeline,
    sources: &Sources<'_>,
    selection: &mut Selection,
) -> Option<EventId> {
    let source = sources.details;
    let mut go_to = None;
    egui::ScrollArea::vertical()
        .id_salt("timeline-details")
        .show(ui, |ui| {
            match selection.event.and_then(|id| timeline.event(id)) {
                Some(e) => {
                    // A merged timeline: the export or trace of the event's file.
                    let source = source.for_event(timeline, e.id).unwrap_or(source);
                    ui.heading("Selected event");
                    let origin = timeline.time_range().map_or(0, |(t0, _)| t0);
                    facts_ui(ui, timeline, &e, source, sources.nvtxt, origin);
                    super::payload_fields::row_fields_ui(ui, timeline, e.id, value_width(ui));
                    super::payload_fields::payload_ui(ui, timeline, e.id, value_width(ui));
                    let range = selection.launch_range;
                    let width = value_width(ui);
                    go_to = super::payload_fields::launch_range_ui(ui, timeline, range, width);
                    super::mpi_details::mpi_ui(ui, timeline, e.id, value_width(ui));
                    call_stack_ui(ui, timeline, e.id);
                    let partner = flows_ui(ui, timeline, e.kind.is_gpu_work(), &selection.partners);
                    go_to = go_to.or(partner);
                    source_ui(ui, timeline, source, sources.session, selection, e.id);
                }
                None => {
                    ui.weak("Click an event to see its details; Shift+drag to select a range.");
                }
            }
            if let Some((t0, t1)) = selection.range {
                ui.separator();
                range_ui(ui, timeline, t0, t1, &selection.range_stats);
                range_counters_ui(ui, timeline, &selection.range_counters);
            }
        });
    go_to
}

/// The event's facts: name, kind, track (and NVTXT source line), times, correlation id and
/// attributes.
fn facts_ui(
    ui: &mut egui::Ui,
    timeline: &Timeline,
    e: &Event,
    source: &DetailSource,
    nvtxt: &[PathBuf],
    origin: i64,
) {
    egui::Grid::new("event-facts")
        .num_columns(2)
        .striped(true)
        .max_col_width(value_width(ui))
        .show(ui, |ui| {
            let mut row = |k: &str, v: String| {
                ui.label(k);
                ui.add(egui::Label::new(v).wrap());
                ui.end_row();
            };
            row("Name", timeline.name(e.name).to_string());
            row("Kind", e.kind.as_str().to_string());
            if let Some((track, _)) = timeline.locate(e.id) {
                row("Track", timeline.track_path(track));
                if let Some(file) = nvtxt_file(timeline, track, e.kind, nvtxt) {
                    row("Source", format!("{}:{}", file.display(), e.source));
                }
            }
            row("Start", format_duration((e.start - origin) as f64));
            row("Duration", format_duration((e.end - e.start) as f64));
            row("Start (ns)", e.start.to_string());
            row("End (ns)", e.end.to_string());
            // A CodeXL trace's calls keep their trace-line offset there instead.
            let trace = matches!(source, DetailSource::Atp(_));
            // A CPU sample's correlation column holds its call stack.
            if e.correlation != 0 && !trace && e.kind != EventKind::CpuSample {
                row("Correlation id", e.correlation.to_string());
            }
            if let Some(a) = timeline.attrs(e.id) {
                if let Some(c) = a.color {
                    row("Colour", format!("#{:06X}", c & 0xFF_FFFF));
                }
                if let Some(c) = a.category {
                    row("Category", c.to_string());
                }
                if let Some(p) = &a.payload {
                    row(
                        "Payload",
                        match p {
                            Payload::U64(v) => v.to_string(),
                            Payload::I64(v) => v.to_string(),
                            Payload::F64(v) => v.to_string(),
                            Payload::Text(v) => v.clone(),
                        },
                    );
                }
                if a.open {
                    row("Open", "never closed".into());
                }
            }
        });
}

/// What the event's export or trace says of it: an export's source row, a CodeXL trace's
/// details (computed once per selected event) and its dispatch's counters and occupancy.
fn source_ui(
    ui: &mut egui::Ui,
    timeline: &Timeline,
    source: &DetailSource,
    session: Option<&CodexlSession>,
    selection: &mut Selection,
    event: EventId,
) {
    match source {
        DetailSource::Export(export) => {
            source_row_ui(ui, timeline, Some(export), selection, event);
        }
        DetailSource::Atp(file) => {
            if selection.trace.as_ref().is_none_or(|t| t.event != event) {
                selection.trace = Some(TraceFacts {
                    event,
                    rows: trace_details(file, timeline, event),
                    dispatch: dispatch_key(file, timeline, event),
                });
            }
            let facts = selection.trace.as_ref();
            trace_rows_ui(ui, facts.map_or(&[], |t| t.rows.as_slice()));
            let key = facts.and_then(|t| t.dispatch.as_ref());
            if let (Some(session), Some(key)) = (session, key) {
                ui.add_space(6.0);
                dispatch_details_ui(
                    ui,
                    &session.data,
                    key.thread_id,
                    key.call_index,
                    &key.kernel,
                    key.nth,
                );
            }
        }
        DetailSource::None | DetailSource::Parts(_) => {}
    }
}

/// The flow partners, each with a "Go to" button.
fn flows_ui(
    ui: &mut egui::Ui,
    timeline: &Timeline,
    gpu: bool,
    partners: &[EventId],
) -> Option<EventId> {
    if partners.is_empty() {
        return None;
    }
    let mut go_to = None;
    ui.add_space(6.0);
    ui.strong(if timeline.mpi_call(partners[0]).is_some() {
        "MPI message or request"
    } else if gpu {
        "Launched by"
    } else {
        "GPU work it launched"
    });
    for &p in partners {
        let Some(pe) = timeline.event(p) else {
            continue;
        };
        ui.horizontal(|ui| {
            if ui
                .button("Go to")
                .on_hover_text(format!("Select {} and show it", timeline.name(pe.name)))
                .clicked()
            {
                go_to = Some(p);
            }
            ui.add(
                egui::Label::new(format!(
                    "{} ({}, {})",
                    timeline.name(pe.name),
                    pe.kind.as_str(),
                    format_duration((pe.end - pe.start) as f64)
                ))
                .truncate(),
            );
        });
    }
    go_to
}

/// The event's source row from the export, read on demand.
fn source_row_ui(
    ui: &mut egui::Ui,
    timeline: &Timeline,
    export: Option<&Path>,
    selection: &mut Selection,
    event: EventId,
) {
    let Some(export) = export else { return };
    ui.add_space(6.0);
    let id = ui.make_persistent_id("timeline-source-row");
    egui::CollapsingHeader::new("Source row in the export")
        .id_salt(id)
        .show(ui, |ui| {
            if selection
                .source_row
                .as_ref()
                .is_none_or(|(e, _)| *e != event)
            {
                let row = event_details(export, timeline, event);
                selection.source_row = Some((event, row));
            }
            match selection.source_row.as_ref().map(|(_, r)| r) {
                Some(Ok(columns)) if !columns.is_empty() => {
                    pairs_grid(ui, "source-row", value_width(ui), columns, |ui, k| {
                        ui.monospace(k);
                    });
                }
                Some(Ok(_)) => {
                    ui.weak("No source row for this event.");
                }
                Some(Err(e)) => {
                    ui.colored_label(ui.visuals().error_fg_color, e.to_string());
                }
                None => {}
            }
        });
}

/// The NVTXT file an event of `track` comes from, when it is an NVTXT series.
fn nvtxt_file<'a>(
    timeline: &Timeline,
    track: sightline_model::timeline::TrackId,
    kind: EventKind,
    nvtxt: &'a [PathBuf],
) -> Option<&'a Path> {
    if !matches!(kind, EventKind::Marker | EventKind::Range) {
        return None;
    }
    let key = timeline.track(track)?.key;
    nvtxt.get(file_of_series(key)?).map(PathBuf::as_path)
}

/// What the CodeXL trace says of the event (arguments, source location, work sizes...).
fn trace_rows_ui(ui: &mut egui::Ui, rows: &[(String, String)]) {
    if rows.is_empty() {
        return;
    }
    ui.add_space(6.0);
    ui.strong("From the trace");
    pairs_grid(ui, "trace-rows", value_width(ui), rows, |ui, k| {
        ui.label(k);
    });
}

/// What the selected range holds, per name.
fn range_ui(ui: &mut egui::Ui, timeline: &Timeline, t0: i64, t1: i64, stats: &[NameStats]) {
    ui.heading("Selected range");
    ui.label(format!(
        "{} long, {} name(s), {} event(s)",
        format_duration((t1 - t0) as f64),
        stats.len(),
        stats.iter().map(|s| s.count).sum::<u64>()
    ));
    egui::Grid::new("range-stats")
        .num_columns(4)
        .striped(true)
        .max_col_width(value_width(ui))
        .show(ui, |ui| {
            ui.strong("Name");
            ui.strong("Count");
            ui.strong("Total");
            ui.strong("Average");
            ui.end_row();
            for s in stats.iter().take(200) {
                let name = timeline.name(s.name);
                let short: String = name.chars().take(48).collect();
                ui.add(egui::Label::new(short).truncate())
                    .on_hover_text(name);
                ui.label(s.count.to_string());
                ui.label(format_duration(s.total_ns as f64));
                ui.label(format_duration(s.average_ns));
                ui.end_row();
            }
        });
    if stats.len() > 200 {
        ui.weak(format!("… and {} more name(s)", stats.len() - 200));
    }
}

/// Every counter track of `timeline`, in track order.
fn counter_tracks(timeline: &Timeline) -> Vec<TrackId> {
    (0..timeline.tracks.len() as u32)
        .map(TrackId)
        .filter(|&t| {
            timeline
                .track(t)
                .is_some_and(|t| t.layout == Layout::Counter)
        })
        .collect()
}

/// A counter's value with its unit ("87.5 %", "1410 MHz").
pub(super) fn counter_text(value: f64, unit: Option<&str>) -> String {
    let number = if value.fract() == 0.0 && value.abs() < 1e15 {
        format!("{value:.0}")
    } else {
        format!("{value:.2}")
    };
    match unit {
        Some(u) => format!("{number} {u}"),
        None => number,
    }
}

/// The counters over the selected range: per counter track its average, smallest and largest
/// level.
fn range_counters_ui(ui: &mut egui::Ui, timeline: &Timeline, counters: &[(TrackId, CounterStats)]) {
    if counters.is_empty() {
        return;
    }
    ui.add_space(6.0);
    ui.strong(format!("Counters ({})", counters.len()));
    egui::Grid::new("range-counters")
        .num_columns(4)
        .striped(true)
        .max_col_width(value_width(ui))
        .show(ui, |ui| {
            ui.strong("Counter");
            ui.strong("Average");
            ui.strong("Min");
            ui.strong("Max");
            ui.end_row();
            for (track, s) in counters {
                let name = timeline.track(*track).map_or("", |t| t.name.as_str());
                let unit = timeline
                    .counter_series(*track)
                    .and_then(|c| c.unit.as_deref());
                ui.add(egui::Label::new(name).truncate())
                    .on_hover_text(timeline.track_path(*track));
                ui.label(counter_text(s.average, unit));
                ui.label(counter_text(s.min, unit));
                ui.label(counter_text(s.max, unit));
                ui.end_row();
            }
        });
}

/// The widest a value column of the panel's grids may be: what is left beside a label column.
fn value_width(ui: &egui::Ui) -> f32 {
    (ui.available_width() - 110.0).max(80.0)
}

/// The call stack of a CPU sample or of a call with a backtrace, innermost frame first:
/// function and module, unresolved addresses marked as such.
fn call_stack_ui(ui: &mut egui::Ui, timeline: &Timeline, event: EventId) {
    let Some(stack) = timeline.stack_of(event) else {
        return;
    };
    let frames: Vec<_> = timeline.stacks.frames_of(stack).collect();
    ui.add_space(6.0);
    egui::CollapsingHeader::new(format!("Call stack ({} frames)", frames.len()))
        .id_salt("call-stack")
        .default_open(true)
        .show(ui, |ui| {
            egui::Grid::new("call-stack-frames")
                .num_columns(2)
                .striped(true)
                .max_col_width((ui.available_width() / 2.0 - 8.0).max(60.0))
                .show(ui, |ui| {
                    for frame in frames {
                        let symbol = timeline.name(frame.symbol);
                        let module = timeline.name(frame.module);
                        let text = if frame.unresolved {
                            egui::RichText::new(format!("{symbol} (unresolved)")).weak()
                        } else {
                            egui::RichText::new(symbol).monospace()
                        };
                        // Long C++ names are cut to the panel; the full name is on hover.
                        ui.add(egui::Label::new(text).truncate())
                            .on_hover_text(format!("{symbol}\n{module}"));
                        ui.add(egui::Label::new(egui::RichText::new(module).weak()).truncate());
                        ui.end_row();
                    }
                });
        });
}

/// The event of `new` that is event `id` of `old`: on the track of the same id, with the same
/// name, kind and times (a rebuilt timeline keeps its tracks' ids and order).
pub(super) fn same_event(old: &Timeline, id: EventId, new: &Timeline) -> Option<EventId> {
    let e = old.event(id)?;
    let (track, _) = old.locate(id)?;
    let name = old.name(e.name);
    new.track(track)?
        .rows
        .iter()
        .flat_map(|row| row.clone())
        .filter_map(|i| new.event(EventId(i)))
        .find(|n| {
            n.start == e.start && n.end == e.end && n.kind == e.kind && new.name(n.name) == name
        })
        .map(|n| n.id)
}
