//! An MPI call's fields for the details panel, tooltips and `sightline timeline --events`:
//! its rank, peer, tag, sizes, communicator and request as recorded, and for a collective its
//! straggler and its wait and transfer times.

use crate::timeline::model::{EventId, Timeline};
use crate::timeline::nsys::payload::{Field, Value};

fn number(name: &str, v: i64) -> Field {
    Field {
        name: name.into(),
        value: Value::Signed(i128::from(v)),
    }
}

impl Timeline {
    /// The fields of MPI call `event` (empty for any other event).
    pub fn mpi_fields(&self, event: EventId) -> Vec<Field> {
        let Some((call, rank)) = self.mpi_call(event) else {
            return Vec::new();
        };
        let mut out = Vec::new();
        let mut push = |name: &str, v: Option<i64>| {
            if let Some(v) = v {
                out.push(number(name, v));
            }
        };
        push("Rank", rank);
        push("Peer rank", call.peer);
        push("Tag", call.tag);
        push("Root rank", call.root);
        push("Size (bytes)", call.size);
        push("Receive size (bytes)", call.recv_size);
        if let Some(comm) = call.comm {
            out.push(Field {
                name: "Communicator".into(),
                value: Value::Address(u64::from_ne_bytes(comm.to_ne_bytes())),
            });
        }
        if let Some(request) = call.request {
            out.push(Field {
                name: "Request".into(),
                value: Value::Address(u64::from_ne_bytes(request.to_ne_bytes())),
            });
        }
        if let (Some(group), Some(timing)) = (
            self.mpi_collective(event),
            self.mpi_collective_timing(event),
        ) {
            out.push(number(
                "Ranks",
                i64::try_from(group.members.len()).unwrap_or(i64::MAX),
            ));
            out.push(Field {
                name: "Straggler".into(),
                value: Value::Text(
                    timing
                        .straggler_rank
                        .map_or_else(|| "unknown rank".to_owned(), |r| format!("Rank {r}")),
                ),
            });
            out.push(number("Wait (ns)", timing.wait_ns));
            out.push(number("Transfer (ns)", timing.transfer_ns));
        }
        out
    }
}
