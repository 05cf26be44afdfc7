//! An entry's values in the shown baselines, ready to draw: each baseline's value as its own
//! page prints it ("N/A" when it lacks the metric) and the difference of the shown value to it,
//! relative in percent (absolute on hover), with the colour of its direction. The Details page's
//! grids, bar charts, memory tables and memory chart all draw these.

use eframe::egui::{Color32, Ui};
use sightline_model::section::{Compared, Difference, Entry, number};

use super::ComparedBaseline;

/// The colour of an increase over a baseline.
pub const INCREASE: Color32 = Color32::from_rgb(0xe0, 0x8a, 0x2f);
/// The colour of a decrease below a baseline.
pub const DECREASE: Color32 = Color32::from_rgb(0x3f, 0x8f, 0xe0);

/// The colour of `difference`: increases and decreases in their colours, no change weak.
pub fn direction_color(ui: &Ui, difference: &Difference) -> Color32 {
    if difference.absolute > 0.0 {
        INCREASE
    } else if difference.absolute < 0.0 {
        DECREASE
    } else {
        ui.visuals().weak_text_color()
    }
}

/// One baseline's value of one entry.
#[derive(Debug, Clone, PartialEq)]
pub struct BaselineValue {
    /// The baseline's name.
    pub name: String,
    /// The baseline's colour.
    pub color: Color32,
    /// Its value as its page prints it, "N/A" when it lacks the metric.
    pub text: String,
    /// Its value as a number, when it is one.
    pub value: Option<f64>,
    /// The baseline lacks the metric (or a value for it).
    pub missing: bool,
    /// The shown value's difference to it.
    pub difference: Option<Difference>,
    /// The absolute difference with the entry's unit (hover).
    pub absolute: String,
}

impl BaselineValue {
    /// `+12.34%` (`N/A` against a baseline of 0); nothing without a difference or when the
    /// values are equal.
    pub fn relative(&self) -> Option<String> {
        self.difference
            .filter(|d| d.absolute != 0.0)
            .map(|d| d.relative_text())
    }

    /// `7.10 Mbyte (+18.20%)`: the value and the relative difference when there is one (none
    /// when the values are equal).
    pub fn line(&self) -> String {
        match self.relative() {
            Some(relative) => format!("{} ({relative})", self.text),
            None => self.text.clone(),
        }
    }
}

/// What each of `baselines` says about `entry` of section `section`.
pub fn values(section: &str, entry: &Entry, baselines: &[ComparedBaseline]) -> Vec<BaselineValue> {
    baselines
        .iter()
        .map(|baseline| {
            let compared = baseline.entries.compare(section, entry);
            let (value, difference) = match &compared {
                Compared::Missing => (None, None),
                Compared::Value {
                    entry: base,
                    difference,
                } => (number(base.value.as_ref()), *difference),
            };
            BaselineValue {
                name: baseline.name.clone(),
                color: baseline.color,
                text: compared.text().to_owned(),
                value,
                missing: matches!(compared, Compared::Missing),
                difference,
                absolute: difference.map_or_else(String::new, |d| d.absolute_text(&entry.unit)),
            }
        })
        .collect()
}
