//! Tables with damaged pages: a warning per lost rowid range, and the lost rows in the import
//! statistics, once per table however often it is scanned.

use super::Loader;
use crate::problem::Location;
use crate::timeline::nsys::damage::{DAMAGED, Readable};

impl Loader<'_, '_> {
    /// Reports what `table` lost to damaged pages (once).
    pub(super) fn damaged(&mut self, table: &str, readable: &Readable) {
        let source = self.b.session.imports.source(table);
        if source.skipped.contains_key(DAMAGED) {
            return;
        }
        source
            .skipped
            .insert(DAMAGED.to_owned(), readable.lost_rows);
        for (message, &(first, _)) in readable.describe().into_iter().zip(&readable.lost) {
            self.b.warn(
                Location::Row {
                    table: table.into(),
                    rowid: Some(first.max(1)),
                },
                message,
            );
        }
    }
}
