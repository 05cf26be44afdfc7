//! One list of [`Problem`]s, drawn the same way wherever the app shows what a reader met
//! (report read warnings, timeline load problems, NVTXT diagnostics, CodeXL and Gainsight
//! warnings): an icon and a colour by severity, the location and the message. Long lists
//! scroll inside a capped height; [`ProblemList::show_collapsed`] puts the list under a
//! collapsing header.

use std::path::Path;

use eframe::egui;

use sightline_model::problem::{FileProblem, Location, Problem, Severity};
use sightline_model::timeline::nvtxt::Diagnostic;

/// Rows shown at most; the rest are counted in a last line.
const DEFAULT_MAX_ROWS: usize = 200;
/// From this many rows on, the list scrolls inside [`MAX_HEIGHT`].
const SCROLL_FROM_ROWS: usize = 12;
/// Height of a scrolling list, in points.
const MAX_HEIGHT: f32 = 240.0;

/// Something the list can show as a row: a [`Problem`], with its file and the stage that found
/// it when it has them.
pub trait ProblemRow {
    /// The problem.
    fn problem(&self) -> &Problem;
    /// The file the problem is in, when the row names its own.
    fn file(&self) -> Option<&Path> {
        None
    }
    /// The stage that found the problem (`parsing`, ...), written before the message.
    fn stage(&self) -> Option<&str> {
        None
    }
}

impl ProblemRow for Problem {
    fn problem(&self) -> &Problem {
        self
    }
}

impl ProblemRow for FileProblem {
    fn problem(&self) -> &Problem {
        &self.problem
    }
    fn file(&self) -> Option<&Path> {
        Some(&self.file)
    }
}

impl ProblemRow for Diagnostic {
    fn problem(&self) -> &Problem {
        &self.problem
    }
    fn stage(&self) -> Option<&str> {
        Some(self.class.as_str())
    }
}

impl<T: ProblemRow + ?Sized> ProblemRow for &T {
    fn problem(&self) -> &Problem {
        (**self).problem()
    }
    fn file(&self) -> Option<&Path> {
        (**self).file()
    }
    fn stage(&self) -> Option<&str> {
        (**self).stage()
    }
}

/// How a row's text reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum RowText {
    /// Without severity, as the readers print warnings: `FILE:LINE: message`,
    /// `FILE: LOCATION: message` or `FILE: message`.
    #[default]
    Plain,
    /// With severity, as compilers print diagnostics: `FILE:LINE:COL: error: message`,
    /// `FILE: warning: LOCATION: message` (without `FILE: ` when no file is known).
    Compiler,
}

/// The colour of a severity in `visuals`.
pub fn severity_color(visuals: &egui::Visuals, severity: Severity) -> egui::Color32 {
    match severity {
        Severity::Error => visuals.error_fg_color,
        Severity::Warning => visuals.warn_fg_color,
    }
}

/// Draws the icon of a severity, one text line high, painted (no font has the symbols): a
/// circle for an error, a triangle for a warning, each with an `!`.
pub fn severity_icon(ui: &mut egui::Ui, severity: Severity) {
    let size = ui.text_style_height(&egui::TextStyle::Body);
    let (rect, _) = ui.allocate_exact_size(egui::vec2(size, size), egui::Sense::hover());
    if !ui.is_rect_visible(rect) {
        return;
    }
    let color = severity_color(ui.visuals(), severity);
    let painter = ui.painter();
    let r = size * 0.42;
    let c = rect.center();
    match severity {
        Severity::Error => {
            painter.circle_filled(c, r, color);
        }
        Severity::Warning => {
            let points = vec![
                egui::pos2(c.x, c.y - r),
                egui::pos2(c.x + r, c.y + r * 0.8),
                egui::pos2(c.x - r, c.y + r * 0.8),
            ];
            painter.add(egui::Shape::convex_polygon(
                points,
                color,
                egui::Stroke::NONE,
            ));
        }
    }
    painter.text(
        c + egui::vec2(0.0, r * 0.1),
        egui::Align2::CENTER_CENTER,
        "!",
        egui::FontId::proportional(size * 0.6),
        ui.visuals().panel_fill,
    );
}

/// The text of one row: location, severity (for [`RowText::Compiler`]), stage and message.
pub fn row_text(row: &impl ProblemRow, file: Option<&Path>, text: RowText) -> String {
    let p = row.problem();
    let file = row.file().or(file).map(|f| f.display().to_string());
    let message = match row.stage() {
        Some(stage) => format!("{stage}: {}", p.message),
        None => p.message.clone(),
    };
    let line_column = matches!(
        p.location,
        Location::Line {
            column: Some(_),
            ..
        }
    );
    let line_only = matches!(p.location, Location::Line { column: None, .. });
    let location = p.location.to_string();
    let mut out = String::new();
    // `FILE:LINE:COL` (and `FILE:LINE` without severity) as one place; otherwise `FILE: `.
    let joined = line_column || (text == RowText::Plain && line_only);
    let place = if joined {
        match (&p.location, &file) {
            (Location::Line { line, column }, file) => {
                let at = match column {
                    Some(c) => format!("{line}:{c}"),
                    None => line.to_string(),
                };
                Some(match file {
                    Some(f) => format!("{f}:{at}"),
                    None => at,
                })
            }
            _ => None,
        }
    } else {
        None
    };
    match place {
        Some(place) => {
            out.push_str(&place);
            out.push_str(": ");
            if text == RowText::Compiler {
                out.push_str(p.severity.as_str());
                out.push_str(": ");
            }
        }
        None => {
            if let Some(f) = &file {
                out.push_str(f);
                out.push_str(": ");
            }
            if text == RowText::Compiler {
                out.push_str(p.severity.as_str());
                out.push_str(": ");
            }
            if !location.is_empty() {
                out.push_str(&location);
                out.push_str(": ");
            }
        }
    }
    out.push_str(&message);
    out
}

/// A list of problems, built with the options and drawn with [`ProblemList::show`] or
/// [`ProblemList::show_collapsed`].
pub struct ProblemList<'a, R> {
    rows: &'a [R],
    file: Option<&'a Path>,
    text: RowText,
    max_rows: usize,
    not_kept: u64,
}

impl<'a, R: ProblemRow> ProblemList<'a, R> {
    /// A list of `rows`, plain text, at most 200 rows shown.
    pub fn new(rows: &'a [R]) -> Self {
        ProblemList {
            rows,
            file: None,
            text: RowText::default(),
            max_rows: DEFAULT_MAX_ROWS,
            not_kept: 0,
        }
    }

    /// The file of rows that do not name their own.
    pub fn file(mut self, file: &'a Path) -> Self {
        self.file = Some(file);
        self
    }

    /// How each row reads.
    pub fn text(mut self, text: RowText) -> Self {
        self.text = text;
        self
    }

    /// Shows at most `max_rows` rows; the others are counted.
    pub fn max_rows(mut self, max_rows: usize) -> Self {
        self.max_rows = max_rows;
        self
    }

    /// Problems the reader counted but did not keep, counted in the last line.
    pub fn not_kept(mut self, not_kept: u64) -> Self {
        self.not_kept = not_kept;
        self
    }

    /// Number of problems, kept or not.
    pub fn count(&self) -> u64 {
        self.rows.len() as u64 + self.not_kept
    }

    /// The worst severity of the rows (`None` for an empty list).
    pub fn worst(&self) -> Option<Severity> {
        self.rows.iter().map(|r| r.problem().severity).min()
    }

    /// Draws the rows: long lists scroll inside a capped height.
    pub fn show(&self, ui: &mut egui::Ui) {
        let shown = self.rows.len().min(self.max_rows);
        if shown >= SCROLL_FROM_ROWS {
            egui::ScrollArea::vertical()
                .id_salt("problems-scroll")
                .max_height(MAX_HEIGHT)
                .auto_shrink([false, true])
                .show(ui, |ui| self.rows_ui(ui, shown));
        } else {
            self.rows_ui(ui, shown);
        }
        let hidden = (self.rows.len() - shown) as u64 + self.not_kept;
        if hidden > 0 {
            ui.weak(format!("… and {hidden} more"));
        }
    }

    /// Draws the rows under a collapsing header `title` in the colour of the worst severity,
    /// closed at first; nothing for an empty list.
    pub fn show_collapsed(
        &self,
        ui: &mut egui::Ui,
        id_salt: impl egui::AsIdSalt,
        title: impl Into<String>,
    ) {
        let Some(worst) = self.worst() else { return };
        let title = egui::RichText::new(title).color(severity_color(ui.visuals(), worst));
        egui::CollapsingHeader::new(title)
            .id_salt(id_salt)
            .default_open(false)
            .show(ui, |ui| self.show(ui));
    }

    fn rows_ui(&self, ui: &mut egui::Ui, shown: usize) {
        for row in &self.rows[..shown] {
            let severity = row.problem().severity;
            let color = severity_color(ui.visuals(), severity);
            ui.horizontal_top(|ui| {
                severity_icon(ui, severity);
                ui.add(
                    egui::Label::new(
                        egui::RichText::new(row_text(row, self.file, self.text)).color(color),
                    )
                    .wrap(),
                );
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_read_as_the_outputs_do() {
        let path = Path::new("r.ncu-rep");
        let byte = Problem::warning(Location::Byte(7), "skipped");
        assert_eq!(
            row_text(&byte, Some(path), RowText::Plain),
            format!("{}: byte 7: skipped", path.display())
        );
        let line = Problem::warning(Location::line(4), "row has 2 fields");
        assert_eq!(
            row_text(&line, Some(Path::new("a.csv")), RowText::Plain),
            "a.csv:4: row has 2 fields"
        );
        let whole = Problem::warning(Location::None, "empty");
        assert_eq!(
            row_text(&whole, Some(Path::new("a.csv")), RowText::Plain),
            "a.csv: empty"
        );
        for p in [
            FileProblem::new("t.nvtxt", Problem::error(Location::line_column(4, 9), "m")),
            FileProblem::new("t.atp", Problem::warning(Location::line(0), "m")),
            FileProblem::new(
                "t.sqlite",
                Problem::warning(Location::Part("flows".into()), "m"),
            ),
            FileProblem::new(
                "t.nvtxt",
                Problem::error(Location::Part("opening".into()), "m"),
            ),
        ] {
            assert_eq!(row_text(&p, None, RowText::Compiler), p.to_string());
        }
        let d = Diagnostic::new(
            8,
            21,
            Severity::Warning,
            sightline_model::timeline::nvtxt::ErrorClass::Parsing,
            "unknown colour".into(),
        );
        assert_eq!(
            row_text(&d, None, RowText::Compiler),
            "8:21: warning: parsing: unknown colour"
        );
    }
}
