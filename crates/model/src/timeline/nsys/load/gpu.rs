//! GPU activity onto its streams: kernels, memory copies and sets, synchronization and graph
//! launches, each table's rows under machine → GPU → context → stream, each row linked to the
//! API call of its process and correlation id.

use std::collections::HashMap;

use super::generic::Place;
use super::table_fields::{EnumLabels, MIGRATION};
use super::{Loader, MEMCPY_LABELS, SYNC_LABELS, id32, lookup_label, rowid, times};
use crate::timeline::builder::NewEvent;
use crate::timeline::model::EventKind;
use crate::timeline::model::Layout;
use crate::timeline::nsys::NsysError;
use crate::timeline::nsys::db::{ExportDb, int_of, split_global_id};
use crate::timeline::strings::StrId;

/// What a GPU activity table holds and how its rows are named.
pub(super) struct GpuTable {
    /// The table.
    pub(super) table: &'static str,
    /// What its rows are.
    kind: EventKind,
    /// Column holding the name (a StringIds id, or an enum value), if any.
    name_column: Option<&'static str>,
}

/// The GPU activity tables, in load order.
pub(super) const GPU_TABLES: &[GpuTable] = &[
    GpuTable {
        table: "CUPTI_ACTIVITY_KIND_KERNEL",
        kind: EventKind::Kernel,
        name_column: Some("demangledName"),
    },
    GpuTable {
        table: "CUPTI_ACTIVITY_KIND_MEMCPY",
        kind: EventKind::Memcpy,
        name_column: Some("copyKind"),
    },
    GpuTable {
        table: "CUPTI_ACTIVITY_KIND_MEMSET",
        kind: EventKind::Memset,
        name_column: None,
    },
    GpuTable {
        table: "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION",
        kind: EventKind::Synchronization,
        name_column: Some("syncType"),
    },
    GpuTable {
        table: "CUPTI_ACTIVITY_KIND_GRAPH_TRACE",
        kind: EventKind::GraphLaunch,
        name_column: Some("graphId"),
    },
];

/// The query [`Loader::gpu_table`] reads `spec`'s table with.
pub(super) fn gpu_sql(db: &ExportDb, spec: &GpuTable) -> String {
    let t = spec.table;
    let name_col = spec
        .name_column
        .map_or("NULL".to_string(), |c| db.col_or_null(t, c));
    let optional = db.cols_or_null(
        t,
        &[
            "deviceId",
            "contextId",
            "streamId",
            "correlationId",
            "globalPid",
        ],
    );
    // The graph node of the work (column 9), then a unified-memory migration's fields
    // (`table_fields::MIGRATION`, from column 10 on).
    let node = db.col_or_null(t, "graphNodeId");
    let migration = if spec.kind == EventKind::Memcpy {
        let columns: Vec<&str> = MIGRATION.iter().map(|f| f.column).collect();
        format!(", {}", db.cols_or_null(t, &columns))
    } else {
        String::new()
    };
    format!("SELECT rowid, start, end, {optional}, {name_col}, {node}{migration} FROM {t}")
}

/// The row of unified-memory migrations under each GPU.
const UNIFIED_ROW: &str = "Unified memory";

impl Loader<'_, '_> {
    /// GPU activity of one table onto its streams, each row linked to its API call.
    pub(super) fn gpu_table(&mut self, spec: &GpuTable) -> Result<(), NsysError> {
        let t = spec.table;
        if !self.db.has_table(t) {
            return Ok(());
        }
        let sql = gpu_sql(self.db, spec);
        let memcpy_labels = self.db.enum_labels("ENUM_CUDA_MEMCPY_OPER");
        let sync_labels = self.db.enum_labels("ENUM_CUPTI_SYNC_TYPE");
        match spec.kind {
            EventKind::Memcpy => self.attach_rest("ENUM_CUDA_MEMCPY_OPER"),
            EventKind::Synchronization => self.attach_rest("ENUM_CUPTI_SYNC_TYPE"),
            _ => {}
        }
        let mut label_cache: HashMap<i64, StrId> = HashMap::new();
        // Copy kinds labelled "Unified …" are unified-memory migrations, drawn on their GPU's
        // "Unified memory" row with their fields (declared at the first one).
        let mut unified: HashMap<i64, bool> = HashMap::new();
        let mut um_labels: Option<EnumLabels> = None;
        let um_key = self.tracks.generic_key(UNIFIED_ROW);
        // Work of a graph node is linked to the node's creation when the export has them.
        let graph_nodes = self
            .db
            .has_rows(super::graph_nodes::GRAPH_NODES)
            .unwrap_or(false);
        let kind = spec.kind;
        let before = self.b.event_count();
        self.scan(t, &sql, |l, row| {
            let v = |i| row.get_ref(i).ok().and_then(int_of);
            let (start, end) = times(v(1), v(2))?;
            let gpid = v(7);
            let machine = gpid.map_or(0, |g| split_global_id(g).0);
            let stream = (
                machine,
                v(3).unwrap_or(0),
                v(4).unwrap_or(0),
                v(5).unwrap_or(0),
            );
            let code = v(8).unwrap_or(0);
            let migration = kind == EventKind::Memcpy
                && *unified.entry(code).or_insert_with(|| {
                    lookup_label(memcpy_labels.as_ref(), MEMCPY_LABELS, code).starts_with("Unified")
                });
            let track = if migration {
                l.migration_track(stream.1, um_key)
            } else {
                l.tracks.stream(&mut l.b, &l.names, stream)
            };
            let name = match kind {
                EventKind::Kernel => l.names.raw_name(&mut l.b, code),
                EventKind::Memset => *label_cache
                    .entry(-1)
                    .or_insert_with(|| l.b.intern("[CUDA memset]")),
                EventKind::Memcpy => *label_cache.entry(code).or_insert_with(|| {
                    let label = lookup_label(memcpy_labels.as_ref(), MEMCPY_LABELS, code);
                    l.b.intern(&format!("[CUDA memcpy {label}]"))
                }),
                EventKind::Synchronization => *label_cache.entry(code).or_insert_with(|| {
                    l.b.intern(&lookup_label(sync_labels.as_ref(), SYNC_LABELS, code))
                }),
                _ => *label_cache
                    .entry(code)
                    .or_insert_with(|| l.b.intern(&format!("Graph {code}"))),
            };
            let correlation = id32(v(6), "correlationId")?;
            let r = l.b.push(
                track,
                NewEvent {
                    correlation,
                    ..NewEvent::new(kind, start, end, name, rowid(v(0)))
                },
            );
            if migration {
                let labels = um_labels.get_or_insert_with(|| l.declare_fields(t, MIGRATION));
                l.keep_fields(t, rowid(v(0)), row, 10, (MIGRATION, labels));
            }
            if graph_nodes && let Some(node) = v(9) {
                l.flows.graph_work.push((node.cast_unsigned(), r));
            }
            if correlation != 0 {
                let scope = gpid.map(|g| {
                    let (m, pid, _) = split_global_id(g);
                    (m << 24) | pid
                });
                l.flows.link_work(&mut l.b, scope, correlation, r);
            }
            Ok(())
        })?;
        self.events_since(t, before);
        Ok(())
    }

    /// The "Unified memory" row of GPU `device` (its rows' source: the memcpy table).
    fn migration_track(&mut self, device: i64, key: u64) -> crate::timeline::model::TrackId {
        let place = Place::Device(device);
        let track = self
            .tracks
            .generic(&mut self.b, &self.names, place, key, UNIFIED_ROW);
        if !self.b.session.series_sources.contains_key(&track) {
            self.b.set_layout(track, Layout::Lanes);
            self.b
                .session
                .series_sources
                .insert(track, "CUPTI_ACTIVITY_KIND_MEMCPY".to_owned());
        }
        track
    }
}
