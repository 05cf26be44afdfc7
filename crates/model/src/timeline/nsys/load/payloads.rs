//! NVTX binary payloads at load time: the export's payload schemas read before
//! `NVTX_EVENTS`, and after it the payloads kept for decoding on demand, each kind of payload
//! (domain, schema, size) decoded once so that one that does not decode is reported.

use std::collections::{BTreeMap, HashSet};
use std::sync::Arc;

use super::Loader;
use crate::problem::Location;
use crate::timeline::nsys::payload::store::NvtxPayloads;
use crate::timeline::nsys::payload::{HEADER_LEN, PayloadSchemas, read_schemas};

const T: &str = "NVTX_EVENTS";

/// At most this many distinct decoding problems are reported (the rest are counted).
const MAX_REPORTED: usize = 20;

impl Loader<'_, '_> {
    /// The export's payload schemas and enums (none when it has no schema table); what is odd
    /// about them becomes warnings, a table that does not read one more.
    pub(super) fn payload_schemas(&mut self) -> PayloadSchemas {
        match read_schemas(self.db) {
            Ok((schemas, odd)) => {
                for message in odd {
                    self.b
                        .warn(Location::Part("NVTX_PAYLOAD_SCHEMAS".into()), message);
                }
                schemas
            }
            Err(e) => {
                let message =
                    format!("NVTX payload schemas not read ({e}); payloads shown as bytes");
                self.b
                    .warn(Location::Part("NVTX_PAYLOAD_SCHEMAS".into()), message);
                PayloadSchemas::default()
            }
        }
    }

    /// Keeps `payloads` in the session (when there are any) and reports the kinds of payload
    /// that do not decode, with how many rows hold them and the first row's rowid.
    pub(super) fn settle_payloads(&mut self, mut payloads: NvtxPayloads) {
        if payloads.is_empty() {
            return;
        }
        payloads.shrink_to_fit();
        let mut tried = HashSet::new();
        let mut problems: BTreeMap<String, (usize, u32)> = BTreeMap::new();
        for &rowid in payloads.rowids() {
            let Some(binary) = payloads.binary(rowid) else {
                continue;
            };
            let key = binary.get(..HEADER_LEN - 8).unwrap_or(binary).to_vec();
            if !tried.insert(key) {
                continue;
            }
            if let Some(problem) = payloads.schemas.decode(binary).problem {
                problems.entry(problem).or_insert((0, rowid)).0 += 1;
            }
        }
        let total = problems.len();
        for (problem, (kinds, rowid)) in problems.into_iter().take(MAX_REPORTED) {
            let location = Location::Row {
                table: T.into(),
                rowid: Some(i64::from(rowid)),
            };
            let message = format!(
                "NVTX binary payload not decoded ({problem}; {kinds} kind(s) of payload); shown as raw bytes"
            );
            self.b.warn(location, message);
        }
        if total > MAX_REPORTED {
            let location = Location::Row {
                table: T.into(),
                rowid: None,
            };
            let more = total - MAX_REPORTED;
            self.b
                .warn(location, format!("{more} more NVTX payload problems"));
        }
        self.b.session.nvtx_payloads = Some(Arc::new(payloads));
    }
}
