//! A report's rows: cells computed up front (the summaries: tens to thousands of rows), or typed
//! records formatted only when a row is read (the traces: a 10 M-event export gives 3.7 M rows of
//! 21 columns, which as text would be 78 M cells and gigabytes). Both read the same way: a row is
//! a slice of [`Cell`]s, borrowed or formatted on the spot.

use std::borrow::Cow;
use std::sync::Arc;

use super::Cell;

/// Rows kept as typed records and formatted when read.
pub trait LazyRows: Send + Sync {
    /// How many rows.
    fn len(&self) -> usize;
    /// Whether there are no rows.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Appends row `row`'s cells to `out` (`row < len()`).
    fn format(&self, row: usize, out: &mut Vec<Cell>);
}

/// A report's rows.
#[derive(Clone)]
pub enum Rows {
    /// Cells computed up front (shared: a clone of the table costs nothing).
    Cells(Arc<Vec<Vec<Cell>>>),
    /// Records formatted when read.
    Lazy(Arc<dyn LazyRows>),
}

impl Default for Rows {
    fn default() -> Self {
        Rows::Cells(Arc::default())
    }
}

impl Rows {
    /// Records `records` (in display order) shown by `format`.
    pub fn lazy<R, F>(records: Vec<R>, format: F) -> Rows
    where
        R: Send + Sync + 'static,
        F: Fn(&R, &mut Vec<Cell>) + Send + Sync + 'static,
    {
        Rows::Lazy(Arc::new(Records { records, format }))
    }

    /// Records `records` shown in `order` (pairs of a sort key and a record index) by `format`.
    pub fn lazy_ordered<K, R, F>(records: Vec<R>, order: Vec<(K, u32)>, format: F) -> Rows
    where
        K: Send + Sync + 'static,
        R: Send + Sync + 'static,
        F: Fn(&R, &mut Vec<Cell>) + Send + Sync + 'static,
    {
        Rows::Lazy(Arc::new(Ordered {
            records,
            order,
            format,
        }))
    }

    /// How many rows.
    pub fn len(&self) -> usize {
        match self {
            Rows::Cells(rows) => rows.len(),
            Rows::Lazy(rows) => rows.len(),
        }
    }

    /// Whether there are no rows.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Row `row`'s cells.
    pub fn get(&self, row: usize) -> Option<Cow<'_, [Cell]>> {
        match self {
            Rows::Cells(rows) => rows.get(row).map(|r| Cow::Borrowed(r.as_slice())),
            Rows::Lazy(rows) => (row < rows.len()).then(|| {
                let mut out = Vec::new();
                rows.format(row, &mut out);
                Cow::Owned(out)
            }),
        }
    }

    /// Cell `col` of row `row`.
    pub fn cell(&self, row: usize, col: usize) -> Option<Cow<'_, Cell>> {
        match self.get(row)? {
            Cow::Borrowed(cells) => cells.get(col).map(Cow::Borrowed),
            Cow::Owned(mut cells) => {
                (col < cells.len()).then(|| Cow::Owned(cells.swap_remove(col)))
            }
        }
    }

    /// Calls `each` with every row in order; a lazy row is formatted into one reused buffer.
    pub fn for_each<E>(&self, mut each: impl FnMut(&[Cell]) -> Result<(), E>) -> Result<(), E> {
        match self {
            Rows::Cells(rows) => rows.iter().try_for_each(|r| each(r)),
            Rows::Lazy(rows) => {
                let mut buffer = Vec::new();
                for row in 0..rows.len() {
                    buffer.clear();
                    rows.format(row, &mut buffer);
                    each(&buffer)?;
                }
                Ok(())
            }
        }
    }

    /// The rows in order.
    pub fn iter(&self) -> impl Iterator<Item = Cow<'_, [Cell]>> {
        (0..self.len()).filter_map(|r| self.get(r))
    }

    /// Every row as cells.
    pub fn to_vec(&self) -> Vec<Vec<Cell>> {
        self.iter().map(Cow::into_owned).collect()
    }

    /// Appends a row (a lazy table becomes cells first).
    pub fn push(&mut self, row: Vec<Cell>) {
        if let Rows::Lazy(_) = self {
            *self = Rows::Cells(Arc::new(self.to_vec()));
        }
        if let Rows::Cells(rows) = self {
            Arc::make_mut(rows).push(row);
        }
    }
}

impl From<Vec<Vec<Cell>>> for Rows {
    fn from(rows: Vec<Vec<Cell>>) -> Self {
        Rows::Cells(Arc::new(rows))
    }
}

impl FromIterator<Vec<Cell>> for Rows {
    fn from_iter<I: IntoIterator<Item = Vec<Cell>>>(rows: I) -> Self {
        Rows::Cells(Arc::new(rows.into_iter().collect()))
    }
}

impl PartialEq for Rows {
    fn eq(&self, other: &Self) -> bool {
        self.len() == other.len() && self.iter().zip(other.iter()).all(|(a, b)| a == b)
    }
}

impl Eq for Rows {}

impl PartialEq<Vec<Vec<Cell>>> for Rows {
    fn eq(&self, other: &Vec<Vec<Cell>>) -> bool {
        self.len() == other.len() && self.iter().zip(other).all(|(a, b)| *a == **b)
    }
}

impl std::fmt::Debug for Rows {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

/// Records in display order and how a record becomes cells.
struct Records<R, F> {
    records: Vec<R>,
    format: F,
}

impl<R, F> LazyRows for Records<R, F>
where
    R: Send + Sync,
    F: Fn(&R, &mut Vec<Cell>) + Send + Sync,
{
    fn len(&self) -> usize {
        self.records.len()
    }

    fn format(&self, row: usize, out: &mut Vec<Cell>) {
        if let Some(record) = self.records.get(row) {
            (self.format)(record, out);
        }
    }
}

/// Records shown in an order of their own.
struct Ordered<K, R, F> {
    records: Vec<R>,
    order: Vec<(K, u32)>,
    format: F,
}

impl<K, R, F> LazyRows for Ordered<K, R, F>
where
    K: Send + Sync,
    R: Send + Sync,
    F: Fn(&R, &mut Vec<Cell>) + Send + Sync,
{
    fn len(&self) -> usize {
        self.order.len()
    }

    fn format(&self, row: usize, out: &mut Vec<Cell>) {
        if let Some(record) = self
            .order
            .get(row)
            .and_then(|(_, i)| self.records.get(*i as usize))
        {
            (self.format)(record, out);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lazy_rows_read_as_cells() {
        let lazy = Rows::lazy(vec![3_i64, 1, 2], |v: &i64, out: &mut Vec<Cell>| {
            out.push(Cell::int(*v));
            out.push(Cell::Text(format!("row {v}").into()));
        });
        let cells: Rows = vec![
            vec![Cell::int(3), Cell::Text("row 3".into())],
            vec![Cell::int(1), Cell::Text("row 1".into())],
            vec![Cell::int(2), Cell::Text("row 2".into())],
        ]
        .into();
        assert_eq!(lazy, cells);
        assert_eq!(lazy.len(), 3);
        assert_eq!(
            lazy.cell(1, 1).as_deref(),
            Some(&Cell::Text("row 1".into()))
        );
        assert!(lazy.get(3).is_none());
        let mut seen = Vec::new();
        lazy.for_each(|r| {
            seen.push(r[0].as_str().to_string());
            Ok::<(), ()>(())
        })
        .unwrap();
        assert_eq!(seen, ["3", "1", "2"]);
        let mut grown = lazy.clone();
        grown.push(vec![Cell::int(4), Cell::Text("row 4".into())]);
        assert_eq!(grown.len(), 4);
        assert!(matches!(grown, Rows::Cells(_)));
    }
}
