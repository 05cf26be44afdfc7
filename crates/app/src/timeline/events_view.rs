//! The Events view (as in Nsight Systems): a bottom panel listing one track's events — or a
//! counter track's samples — in the selected range or all of them, as the model's
//! [`EventsTable`] gives them (name, kind, times, correlation id, category, payload fields, and
//! the source rows' columns — grid, block, bytes, memory kinds — read on a job).
//! Sortable by every column (numbers numerically; a table of more than
//! [`crate::widgets::background_sort::BACKGROUND_ROWS`] rows sorts on a background job),
//! filtered by text, copied (the selected row or every row shown, tab-separated) and exported
//! to CSV (what `sightline events --csv` prints). A click on a row selects its event on the
//! timeline and brings it into view; the view follows the selection (the selected event's
//! track, the selected range). Only the rows on screen are read from the timeline.

use std::cell::RefCell;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use eframe::egui;
use egui_extras::Column;

use sightline_model::timeline::{
    DetailSource, EventColumn, EventId, EventKind, EventsTable, SortKey, Timeline, TrackId,
    compare_keys,
};

use super::details::Selection;
use super::view::format_duration;
use crate::job::{Job, Polled, poll_job};
use crate::widgets::background_sort::{BACKGROUND_ROWS, BackgroundSort, JobCompare, PrepareSort};
use crate::widgets::dialog::{Dialog, take_answer};
use crate::widgets::filter::filter_field;
use crate::widgets::table::{Header, SortableTable, Table, cell_text};

/// What the rows were computed for: the timeline (its address: a rebuilt timeline is another),
/// the track, the range and the filter.
type RowsKey = (usize, TrackId, Option<(i64, i64)>, String);

/// A table and the rows its filter keeps.
type Computed = (Arc<EventsTable>, Arc<Vec<usize>>);

/// The CSV could not be written.
#[derive(Debug, thiserror::Error)]
#[error("{}: {source}", path.display())]
pub struct WriteError {
    /// The file chosen.
    path: PathBuf,
    /// The I/O error.
    #[source]
    source: std::io::Error,
}

/// Where a row click asks the timeline to go.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GoTo {
    /// Select this event and bring it into view.
    Event(EventId),
    /// Bring this time into view (a counter sample).
    Time(i64),
}

/// The Events view's state.
#[derive(Default)]
pub struct EventsView {
    /// Whether the panel is shown.
    pub open: bool,
    /// The track listed.
    pub track: Option<TrackId>,
    /// Whether the track follows the selected event's.
    pub follow: bool,
    /// Whether only the selected range's events are listed (when a range is selected).
    pub in_range: bool,
    /// The filter's text.
    pub filter: String,
    /// The table and the rows the filter keeps (indices into the table, in its order).
    rows: Option<Computed>,
    computed: Option<RowsKey>,
    /// A long table being built and filtered on a job: what for, and the job.
    pending: Option<(RowsKey, Job<Computed, String>)>,
    progress: Option<(f32, String)>,
    /// The sort and the selected row (indices into the filtered rows).
    pub state: SortableTable,
    sorter: BackgroundSort,
    /// The last copy's or export's outcome (and whether it failed).
    status: Option<(String, bool)>,
    export: Option<Dialog<Option<Result<PathBuf, WriteError>>>>,
    /// The selected event the rows were last lined up with.
    synced: Option<EventId>,
}

impl std::fmt::Debug for EventsView {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EventsView")
            .field("open", &self.open)
            .field("track", &self.track)
            .field("filter", &self.filter)
            .field("rows", &self.rows.as_ref().map(|(_, r)| r.len()))
            .finish_non_exhaustive()
    }
}

impl EventsView {
    /// Opens the view on `track` (following the selection from there on).
    pub fn show_track(&mut self, track: TrackId) {
        if !self.open {
            self.follow = true;
            self.in_range = true;
        }
        self.open = true;
        if self.track != Some(track) {
            self.track = Some(track);
            self.state = SortableTable::default();
        }
    }

    /// Opens the view on the selected event's track, or closes it when it is open.
    pub fn toggle(&mut self, timeline: &Timeline, selection: &Selection) {
        if self.open {
            self.open = false;
            return;
        }
        let track = selection
            .event
            .and_then(|e| timeline.locate(e))
            .map(|(t, _)| t)
            .or(self.track);
        if let Some(t) = track {
            self.show_track(t);
        } else {
            self.open = true;
            self.follow = true;
            self.in_range = true;
        }
    }

    /// The table listed and the rows its filter keeps, once computed.
    pub fn table(&self) -> Option<(&EventsTable, &[usize])> {
        self.rows.as_ref().map(|(t, r)| (t.as_ref(), r.as_slice()))
    }

    /// The rows shown, in display order (indices into the table).
    pub fn shown_rows(&self) -> Vec<usize> {
        let Some((_, rows)) = &self.rows else {
            return Vec::new();
        };
        self.state
            .order
            .iter()
            .filter_map(|&p| rows.get(p).copied())
            .collect()
    }

    /// Whether rows are being computed or sorted.
    pub fn is_busy(&self) -> bool {
        self.pending.is_some() || self.sorter.is_sorting()
    }

    /// Writes the rows shown, in display order, as CSV to `path` (what Export CSV… does).
    pub fn write_csv(&self, timeline: &Timeline, path: &Path) -> Result<(), WriteError> {
        let error = |source| WriteError {
            path: path.to_path_buf(),
            source,
        };
        let Some((table, _)) = &self.rows else {
            return Ok(());
        };
        let mut file = std::fs::File::create(path).map_err(error)?;
        table
            .write_csv(timeline, &self.shown_rows(), &mut file)
            .map_err(error)
    }

    /// Draws the panel; returns where a clicked row asks the timeline to go.
    pub fn ui(
        &mut self,
        ui: &mut egui::Ui,
        timeline: &Arc<Timeline>,
        (selection, source): (&Selection, &DetailSource),
        wake: &Arc<dyn Fn() + Send + Sync>,
    ) -> Option<GoTo> {
        self.follow_selection(timeline, selection);
        self.update_rows(timeline, (selection, source), wake);
        self.poll_export();
        self.toolbar_ui(ui, timeline);
        if let Some((fraction, stage)) = &self.progress {
            ui.horizontal(|ui| {
                ui.spinner();
                ui.label(format!("{stage}… {:.0} %", fraction * 100.0));
            });
        }
        let (table, rows) = self.rows.clone()?;
        let sort_wake = wake.clone();
        let (sort_table, sort_rows, sort_timeline) =
            (table.clone(), rows.clone(), timeline.clone());
        self.sorter.update(
            &mut self.state,
            rows.len(),
            move || sort_wake(),
            || prepare_sort(sort_timeline, sort_table, sort_rows),
        );
        self.sorter.status_ui(ui);
        self.line_up(timeline, &table, &rows, selection.event);
        let clicked = self.table_ui(ui, timeline, &table, &rows, selection.event)?;
        let row = *rows.get(clicked)?;
        match table.event(row) {
            Some(e) => {
                self.synced = Some(e);
                Some(GoTo::Event(e))
            }
            None => table.time(timeline, row).map(GoTo::Time),
        }
    }

    /// Moves to the selected event's track when following.
    fn follow_selection(&mut self, timeline: &Timeline, selection: &Selection) {
        if !self.follow {
            return;
        }
        let track = selection
            .event
            .and_then(|e| timeline.locate(e))
            .map(|(t, _)| t);
        if let Some(t) = track
            && self.track != Some(t)
        {
            self.track = Some(t);
            self.state = SortableTable::default();
        }
    }

    /// Computes the table and its filtered rows when the track, range or filter changed: at
    /// once for a short track whose events have no source columns, on a job for a long one or
    /// one whose source rows are read (the last rows stay meanwhile).
    fn update_rows(
        &mut self,
        timeline: &Arc<Timeline>,
        (selection, source): (&Selection, &DetailSource),
        wake: &Arc<dyn Fn() + Send + Sync>,
    ) {
        self.poll_pending();
        let Some(track) = self.track else {
            self.rows = None;
            self.computed = None;
            return;
        };
        let range = selection.range.filter(|_| self.in_range);
        let key: RowsKey = (
            Arc::as_ptr(timeline) as usize,
            track,
            range,
            self.filter.trim().to_owned(),
        );
        if self.computed.as_ref() == Some(&key)
            || self.pending.as_ref().is_some_and(|(k, _)| *k == key)
        {
            return;
        }
        // The table already built for this track and range, filtered again.
        let reuse = self
            .rows
            .as_ref()
            .filter(|_| {
                self.computed
                    .as_ref()
                    .is_some_and(|c| c.0 == key.0 && c.1 == key.1 && c.2 == key.2)
            })
            .map(|(t, _)| t.clone());
        let size = reuse
            .as_ref()
            .map_or_else(|| track_size(timeline, track), |t| t.len());
        let sources = reuse.is_none() && has_source_columns(timeline, track, source);
        if size <= BACKGROUND_ROWS && !sources {
            let table = reuse.unwrap_or_else(|| Arc::new(EventsTable::new(timeline, track, range)));
            let rows = Arc::new(table.filter(timeline, &key.3));
            self.set_rows(key, (table, rows));
            return;
        }
        let (timeline, filter) = (timeline.clone(), key.3.clone());
        let source = sources.then(|| source.clone());
        let waker = wake.clone();
        let job = Job::start_named(
            "sightline-events",
            move || waker(),
            |e| format!("cannot start the events thread: {e}"),
            move |ctx: &crate::job::JobCtx| {
                let table = match reuse {
                    Some(t) => t,
                    None => {
                        let mut tick = |f: f32| {
                            ctx.progress(f, "listing the track's events");
                            !ctx.is_cancelled()
                        };
                        let built = EventsTable::build(&timeline, track, range, &mut tick);
                        let mut built = built.ok_or_else(|| "cancelled".to_owned())?;
                        if let Some(source) = &source {
                            let mut tick = |f: f32| {
                                ctx.progress(f, "reading the events' source rows");
                                !ctx.is_cancelled()
                            };
                            if !built.read_sources(&timeline, source, &mut tick) {
                                return Err("cancelled".to_owned());
                            }
                        }
                        Arc::new(built)
                    }
                };
                ctx.progress_now(1.0, "filtering");
                let rows = Arc::new(table.filter(&timeline, &filter));
                Ok((table, rows))
            },
        );
        self.progress = Some((0.0, "listing the track's events".to_owned()));
        self.pending = Some((key, job));
    }
}

impl EventsView {
    /// Takes the rows a job computed (or its failure).
    fn poll_pending(&mut self) {
        let Some((key, job)) = self.pending.take() else {
            return;
        };
        let mut slot = Some(job);
        match poll_job(&mut slot, &mut self.progress) {
            Some(Polled::Done(computed)) => self.set_rows(key, computed),
            Some(Polled::Failed(error)) => {
                self.status = Some((error, true));
                self.computed = Some(key);
            }
            Some(Polled::Sent(never)) => match never {},
            None => {
                if let Some(job) = slot {
                    self.pending = Some((key, job));
                }
            }
        }
    }

    /// Shows `computed`, computed for `key`: the sort kept, the selection lined up again.
    fn set_rows(&mut self, key: RowsKey, computed: Computed) {
        self.rows = Some(computed);
        self.computed = Some(key);
        self.state.invalidate();
        self.state.selected = None;
        self.synced = None;
    }

    /// Selects and scrolls to the selected event's row when the selection changed elsewhere.
    fn line_up(
        &mut self,
        timeline: &Timeline,
        table: &EventsTable,
        rows: &[usize],
        event: Option<EventId>,
    ) {
        if self.synced == event {
            return;
        }
        self.synced = event;
        let at = event
            .and_then(|e| table.row_of(timeline, e))
            .and_then(|row| rows.binary_search(&row).ok());
        match at {
            Some(p) => self.state.select(p),
            None => self.state.selected = None,
        }
    }

    /// The line above the table: what is listed, follow and range switches, the filter,
    /// copy, export and close.
    fn toolbar_ui(&mut self, ui: &mut egui::Ui, timeline: &Arc<Timeline>) {
        ui.horizontal(|ui| {
            ui.strong("Events");
            match self.track {
                Some(t) => ui.label(timeline.track_path(t)),
                None => ui.weak("Select an event, or right-click a track: Show in Events View"),
            };
            ui.separator();
            ui.checkbox(&mut self.follow, "Follow selection")
                .on_hover_text("List the track of the event selected on the timeline");
            ui.checkbox(&mut self.in_range, "Selected range only")
                .on_hover_text("With a range selected (Shift+drag), list only its events");
            ui.separator();
            filter_field(
                ui,
                "Filter events:",
                &mut self.filter,
                "name or field",
                160.0,
            );
            if let Some((table, rows)) = &self.rows {
                ui.weak(format!("{} of {} rows", rows.len(), table.len()));
            }
            ui.separator();
            self.copy_ui(ui, timeline);
            if ui.button("Close").clicked() {
                self.open = false;
            }
        });
        if let Some((text, failed)) = &self.status {
            let color = if *failed {
                ui.visuals().error_fg_color
            } else {
                ui.visuals().weak_text_color()
            };
            ui.colored_label(color, text);
        }
        if let Some(problem) = self.rows.as_ref().and_then(|(t, _)| t.source_problem()) {
            ui.colored_label(ui.visuals().warn_fg_color, problem);
        }
    }

    /// Copy row, Copy all, Export CSV….
    fn copy_ui(&mut self, ui: &mut egui::Ui, timeline: &Arc<Timeline>) {
        let Some((table, rows)) = self.rows.clone() else {
            return;
        };
        let selected = self.state.selected.and_then(|p| rows.get(p).copied());
        if ui
            .add_enabled(selected.is_some(), egui::Button::new("Copy row"))
            .on_hover_text("The selected row, tab-separated with the header")
            .clicked()
            && let Some(row) = selected
        {
            ui.ctx().copy_text(table.to_tsv(timeline, &[row]));
            self.status = Some(("Row copied to the clipboard".into(), false));
        }
        if ui
            .button("Copy all")
            .on_hover_text("Every row shown, in this order, tab-separated with the header")
            .clicked()
        {
            ui.ctx()
                .copy_text(table.to_tsv(timeline, &self.shown_rows()));
            self.status = Some((
                format!("{} rows copied to the clipboard", self.state.order.len()),
                false,
            ));
        }
        if ui
            .add_enabled(self.export.is_none(), egui::Button::new("Export CSV…"))
            .on_hover_text("Every row shown, in this order (sightline events --csv)")
            .clicked()
        {
            self.start_export(timeline.clone(), table, ui.ctx().clone());
        }
    }

    /// Asks for a file on a dialog thread and writes the CSV there.
    fn start_export(
        &mut self,
        timeline: Arc<Timeline>,
        table: Arc<EventsTable>,
        ctx: egui::Context,
    ) {
        let rows = self.shown_rows();
        let name = timeline
            .track(table.track())
            .map_or("events".to_owned(), |t| file_stem(&t.name));
        let pick = move || {
            let picked = rfd::FileDialog::new()
                .set_title("Export the events")
                .add_filter("CSV", &["csv"])
                .set_file_name(format!("{name}.csv"))
                .save_file();
            picked.map(|path| {
                let error = |source| WriteError {
                    path: path.clone(),
                    source,
                };
                let mut file = std::fs::File::create(&path).map_err(error)?;
                table
                    .write_csv(&timeline, &rows, &mut file)
                    .map_err(error)?;
                Ok(path.clone())
            })
        };
        match Dialog::spawn("file", move || ctx.request_repaint(), pick) {
            Ok(dialog) => self.export = Some(dialog),
            Err(error) => self.status = Some((error, true)),
        }
    }

    fn poll_export(&mut self) {
        if let Some(answer) = take_answer(&mut self.export) {
            self.status = match answer.value {
                Some(Ok(path)) => Some((format!("Wrote {}", path.display()), false)),
                Some(Err(error)) => Some((error.to_string(), true)),
                None if answer.at_once => Some((
                    "No file dialog could be shown (is xdg-desktop-portal installed?)".into(),
                    true,
                )),
                None => None,
            };
        }
    }

    /// The table; returns the clicked row (an index into `rows`).
    fn table_ui(
        &mut self,
        ui: &mut egui::Ui,
        timeline: &Timeline,
        table: &EventsTable,
        rows: &[usize],
        selected: Option<EventId>,
    ) -> Option<usize> {
        let labels: Vec<String> = table
            .columns()
            .iter()
            .zip(table.labels())
            .map(|(c, l)| view_label(c, l))
            .collect();
        let headers = labels
            .iter()
            .zip(table.columns())
            .map(|(l, c)| {
                let width = match c {
                    EventColumn::Name => Column::initial(260.0).at_least(80.0).clip(true),
                    _ => Column::auto().at_least(70.0).clip(true),
                };
                Header::new(l, width)
            })
            .collect();
        let origin = timeline.time_range().map_or(0, |(t0, _)| t0);
        // Each row's texts read once per frame, not once per cell.
        let cache: RefCell<Option<(usize, Vec<String>)>> = RefCell::new(None);
        let keys: RefCell<Option<(usize, Vec<SortKey>)>> = RefCell::new(None);
        let compare = |col: usize, a: usize, b: usize| {
            let mut keys = keys.borrow_mut();
            if keys.as_ref().is_none_or(|(c, _)| *c != col) {
                *keys = table
                    .sort_keys(timeline, col, rows, &mut |_| true)
                    .map(|k| (col, k));
            }
            keys.as_ref().map_or(std::cmp::Ordering::Equal, |(_, k)| {
                compare_keys(&k[a], &k[b])
            })
        };
        let is_selected =
            |p: usize| selected.is_some() && rows.get(p).and_then(|&r| table.event(r)) == selected;
        let mut copy = None;
        let mut menu = |ui: &mut egui::Ui, p: usize| {
            if ui.button("Copy row").clicked() {
                copy = rows.get(p).copied();
                ui.close();
            }
        };
        let clicked = Table::new("timeline-events", headers, "time order")
            .header_height(20.0)
            .max_height(ui.available_height())
            .sideways()
            .selected(&is_selected)
            .row_menu(&mut menu)
            .show(
                ui,
                &mut self.state,
                rows.len(),
                &compare,
                &mut |ui, p, c| {
                    let Some(&row) = rows.get(p) else { return };
                    let mut cache = cache.borrow_mut();
                    if cache.as_ref().is_none_or(|(r, _)| *r != row) {
                        *cache = Some((row, table.row_texts(timeline, row)));
                    }
                    let text = cache
                        .as_ref()
                        .and_then(|(_, t)| t.get(c))
                        .map_or(String::new(), |t| {
                            view_text(table.columns().get(c), t, origin)
                        });
                    cell_text(ui, &text);
                },
            );
        if let Some(row) = copy {
            ui.ctx().copy_text(table.to_tsv(timeline, &[row]));
            self.status = Some(("Row copied to the clipboard".into(), false));
        }
        clicked
    }
}

/// A column's header in the view: times and durations are written with their unit there.
fn view_label(column: &EventColumn, label: &str) -> String {
    match column {
        EventColumn::Start => "Start".to_owned(),
        EventColumn::Duration => "Duration".to_owned(),
        EventColumn::End => "End".to_owned(),
        EventColumn::Time => "Time".to_owned(),
        _ => label.to_owned(),
    }
}

/// A cell in the view: a time from the timeline's start and a duration with their unit
/// ("1.235 ms"); the rest as exported.
fn view_text(column: Option<&EventColumn>, text: &str, origin: i64) -> String {
    let ns = || text.parse::<i64>().ok();
    match column {
        Some(EventColumn::Start | EventColumn::End | EventColumn::Time) => {
            ns().map_or_else(|| text.to_owned(), |t| format_duration((t - origin) as f64))
        }
        Some(EventColumn::Duration) => {
            ns().map_or_else(|| text.to_owned(), |d| format_duration(d as f64))
        }
        _ => text.to_owned(),
    }
}

/// A track name as a file name (path separators and odd characters as `_`).
fn file_stem(name: &str) -> String {
    let stem: String = name
        .chars()
        .map(|c| {
            if c.is_alphanumeric() || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if stem.is_empty() {
        "events".into()
    } else {
        stem
    }
}

/// The rows a track's table would have (events, or a counter's samples).
fn track_size(timeline: &Timeline, track: TrackId) -> usize {
    match timeline.counter_series(track) {
        Some(s) => s.len(),
        None => timeline.track(track).map_or(0, |t| t.event_count()),
    }
}

/// What the background sort runs: the column's keys of the filtered rows, read with progress,
/// then the comparison of two of them.
fn prepare_sort(
    timeline: Arc<Timeline>,
    table: Arc<EventsTable>,
    rows: Arc<Vec<usize>>,
) -> PrepareSort {
    Box::new(move |ctx, col| {
        let total = rows.len().max(1);
        let mut tick = |done: usize| {
            ctx.progress(
                done as f32 / total as f32,
                &format!("reading the column of {} rows", rows.len()),
            );
            !ctx.is_cancelled()
        };
        let keys = table.sort_keys(&timeline, col, &rows, &mut tick)?;
        let compare: JobCompare = Box::new(move |a, b| compare_keys(&keys[a], &keys[b]));
        Some(compare)
    })
}

/// Whether the events of `track` have columns in their source to read: any event of a CodeXL
/// trace, an export's kernels, copies and memsets.
fn has_source_columns(timeline: &Timeline, track: TrackId, source: &DetailSource) -> bool {
    let Some(t) = timeline.track(track) else {
        return false;
    };
    let mut ids = t.rows.iter().flat_map(Clone::clone).map(EventId);
    ids.any(|id| {
        let Some(e) = timeline.event(id) else {
            return false;
        };
        match source.for_event(timeline, id) {
            Some(DetailSource::Atp(_)) => true,
            Some(DetailSource::Export(_)) => matches!(
                e.kind,
                EventKind::Kernel | EventKind::Memcpy | EventKind::Memset
            ),
            _ => false,
        }
    })
}
