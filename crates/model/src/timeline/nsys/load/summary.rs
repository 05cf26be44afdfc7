//! The Analysis Summary's tables into the session ([`summary_info::read`]: its problems as
//! warnings, its tables' rows attached), and the views named like a table of Nsight Systems
//! reported: read as the table would be, or why not.

use super::Loader;
use crate::problem::Location;
use crate::timeline::nsys::summary_info::{self, reader::TABLES};

impl Loader<'_, '_> {
    /// Reads the Analysis Summary into the session.
    pub(super) fn analysis_summary(&mut self) {
        let read = summary_info::read(self.db);
        for (table, readable) in &read.damaged {
            self.damaged(table, readable);
        }
        for problem in read.problems {
            self.b.warn(problem.location, problem.message);
        }
        for table in TABLES {
            if self.db.has_table(table) {
                self.attach_rest(table);
            }
        }
        self.b.session.summary = read.summary;
    }

    /// One warning per view named like a table of Nsight Systems (it writes tables only).
    pub(super) fn report_views(&mut self) {
        for view in self.db.views.iter().filter(|v| v.like_table) {
            let message = match &view.unreadable {
                None => format!(
                    "{} is a view, not a table (Nsight Systems writes tables): read as the \
                     table would be, through a temporary copy of its rows",
                    view.name
                ),
                Some(why) => format!(
                    "{} is a view, not a table (Nsight Systems writes tables), and its \
                     definition does not read ({why}): not read",
                    view.name
                ),
            };
            self.b.warn(
                Location::Row {
                    table: view.name.clone(),
                    rowid: None,
                },
                message,
            );
        }
    }
}
