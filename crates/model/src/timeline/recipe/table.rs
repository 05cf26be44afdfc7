//! A recipe's output table: typed columns as the recipe's pandas data frame holds them, and how
//! the frame's index is stored, written as CSV (`DataFrame.to_csv(index=False)`) and as Parquet
//! (`DataFrame.to_parquet()`: see [`super::parquet`]).

use super::stats::py_float;
use crate::timeline::nsys::stats::csv_line;

/// The values of one column, one per row.
#[derive(Debug, Clone, PartialEq)]
pub enum Cells {
    /// Integers (`None`: a missing value).
    Int(Vec<Option<i64>>),
    /// Floats (`None`: a missing value).
    Float(Vec<Option<f64>>),
    /// Text (`None`: a missing value).
    Text(Vec<Option<String>>),
    /// Only missing values (pandas' column of `None`: Arrow's null type): this many rows.
    Null(usize),
}

impl Cells {
    /// The number of rows.
    pub fn len(&self) -> usize {
        match self {
            Cells::Int(v) => v.len(),
            Cells::Float(v) => v.len(),
            Cells::Text(v) => v.len(),
            Cells::Null(n) => *n,
        }
    }

    /// Whether there are no rows.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Cells typed by their text, as pandas reads a CSV column: integers when every non-empty
    /// cell is one, else floats when every one is a number, else text (`text` forces text).
    /// Empty cells of a number column are missing.
    pub fn from_text(cells: &[&str], text: bool) -> Cells {
        let filled = || cells.iter().filter(|c| !c.is_empty());
        if !text && filled().all(|c| c.parse::<i64>().is_ok()) {
            Cells::Int(cells.iter().map(|c| c.parse().ok()).collect())
        } else if !text && filled().all(|c| c.parse::<f64>().is_ok()) {
            Cells::Float(cells.iter().map(|c| c.parse().ok()).collect())
        } else {
            Cells::Text(cells.iter().map(|c| Some((*c).to_owned())).collect())
        }
    }

    /// Row `i` as the CSV writes it (floats as Python prints them, missing values empty).
    pub fn text(&self, i: usize) -> String {
        match self {
            Cells::Int(v) => v.get(i).copied().flatten().map(|x| x.to_string()),
            Cells::Float(v) => v.get(i).copied().flatten().map(py_float),
            Cells::Text(v) => v.get(i).cloned().flatten(),
            Cells::Null(_) => None,
        }
        .unwrap_or_default()
    }
}

/// One named column.
#[derive(Debug, Clone, PartialEq)]
pub struct TableColumn {
    /// Its header.
    pub name: String,
    /// Its values.
    pub cells: Cells,
}

impl TableColumn {
    /// A column of integers, none missing.
    pub fn ints(name: &str, values: impl IntoIterator<Item = i64>) -> TableColumn {
        TableColumn {
            name: name.to_owned(),
            cells: Cells::Int(values.into_iter().map(Some).collect()),
        }
    }

    /// A column of text.
    pub fn texts(name: &str, values: impl IntoIterator<Item = String>) -> TableColumn {
        TableColumn {
            name: name.to_owned(),
            cells: Cells::Text(values.into_iter().map(Some).collect()),
        }
    }
}

/// How the data frame's index is stored in the Parquet file.
#[derive(Debug, Clone, PartialEq)]
pub enum PandasIndex {
    /// The first column is the (named) index: stored last, under its name.
    Key,
    /// An unnamed index of these values (one per row), stored last as `__index_level_0__`:
    /// the frames of several files concatenated, each numbered from 0.
    Unnamed(Vec<i64>),
    /// A `RangeIndex` 0, 1, ...: not stored, only described in the `pandas` metadata.
    Range,
    /// No index at all (`to_parquet(index=False)`): neither stored nor described, and no
    /// `column_indexes` either (the NVTX recipes' `files` and the pace tables).
    Dropped,
}

impl PandasIndex {
    /// The index of frames numbered from 0 each, concatenated: `lengths` are the frames' row
    /// counts, empty frames left out. One frame (or none) keeps its `RangeIndex`; pandas'
    /// concatenation makes the index of several a column of integers.
    pub fn of_frames(lengths: &[usize]) -> PandasIndex {
        let frames: Vec<usize> = lengths.iter().copied().filter(|&n| n > 0).collect();
        if frames.len() <= 1 {
            return PandasIndex::Range;
        }
        PandasIndex::Unnamed(
            frames
                .iter()
                .flat_map(|&n| (0..n).map(|i| i64::try_from(i).unwrap_or(i64::MAX)))
                .collect(),
        )
    }
}

/// One table a recipe writes.
#[derive(Debug, Clone, PartialEq)]
pub struct Table {
    /// The files' name without extension (`analysis`, `rank_stats`).
    pub stem: &'static str,
    /// The columns, in the frame's order (all of one length).
    pub columns: Vec<TableColumn>,
    /// How the index is stored.
    pub index: PandasIndex,
    /// Whether the recipe also writes it as CSV (`STEM.csv`).
    pub csv: bool,
}

impl Table {
    /// The number of rows.
    pub fn rows(&self) -> usize {
        self.columns.first().map_or(0, |c| c.cells.len())
    }

    /// The column headed `name`.
    pub fn column(&self, name: &str) -> Option<&TableColumn> {
        self.columns.iter().find(|c| c.name == name)
    }

    /// The CSV text: the header, then the rows, columns in the frame's order.
    pub fn csv_text(&self) -> String {
        let mut out = Vec::new();
        let _ = csv_line(&mut out, self.columns.iter().map(|c| c.name.as_str()));
        for i in 0..self.rows() {
            let cells: Vec<String> = self.columns.iter().map(|c| c.cells.text(i)).collect();
            let _ = csv_line(&mut out, cells.iter().map(String::as_str));
        }
        String::from_utf8_lossy(&out).into_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_keep_a_range_index_alone_and_number_rows_together() {
        assert_eq!(PandasIndex::of_frames(&[0, 3, 0]), PandasIndex::Range);
        assert_eq!(PandasIndex::of_frames(&[]), PandasIndex::Range);
        assert_eq!(
            PandasIndex::of_frames(&[2, 0, 1]),
            PandasIndex::Unnamed(vec![0, 1, 0])
        );
    }

    #[test]
    fn text_cells_are_typed_as_pandas_reads_them() {
        assert_eq!(
            Cells::from_text(&["1", "", "3"], false),
            Cells::Int(vec![Some(1), None, Some(3)])
        );
        assert_eq!(
            Cells::from_text(&["1", "2.5"], false),
            Cells::Float(vec![Some(1.0), Some(2.5)])
        );
        assert_eq!(
            Cells::from_text(&["1"], true),
            Cells::Text(vec![Some("1".into())])
        );
        assert_eq!(Cells::Float(vec![Some(45.0)]).text(0), "45.0");
    }
}
