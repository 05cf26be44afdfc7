//! The fields kept from rows that say more than the timeline draws ([`RowFields`]): a CUDA
//! graph node's ids, a unified-memory page fault's address, instruction, module and access
//! type, a unified-memory migration's cause and address. Each table's fields are named as
//! Nsight Systems names them; StringIds ids are read as their text and enum values with the
//! label of their `ENUM_*` table (or the labels below when the export lacks it).

use std::collections::HashMap;
use std::sync::Arc;

use super::Loader;
use super::pipe::Cells;
use crate::timeline::RowFields;
use crate::timeline::nsys::db::int_of;
use crate::timeline::nsys::payload::Value;

/// How a field's value is read from its column.
#[derive(Clone, Copy)]
pub(super) enum How {
    /// An integer as it is.
    Int,
    /// An address, shown in hex.
    Address,
    /// A StringIds id, shown as its text.
    Text,
    /// A value of an enum table (with the labels to use when the export lacks the table).
    Enum(&'static str, &'static [&'static str]),
}

/// One field: its column, its name as Nsight Systems shows it, and how it is read.
pub(super) struct FieldSpec {
    pub(super) column: &'static str,
    pub(super) name: &'static str,
    pub(super) how: How,
}

const fn field(column: &'static str, name: &'static str, how: How) -> FieldSpec {
    FieldSpec { column, name, how }
}

/// `ENUM_CUDA_UNIF_MEM_ACCESS_TYPE` as every export that has it labels it.
const ACCESS_TYPES: &[&str] = &["Unknown", "Read", "Write", "Atomic", "Prefetch"];

/// `ENUM_CUDA_UNIF_MEM_MIGRATION` as every export that has it labels it (the misspelling is
/// the export's).
const MIGRATION_CAUSES: &[&str] = &[
    "Unknown",
    "User prefetch",
    "Page fault",
    "Speculative prefecth",
    "Eviction",
    "Access counters",
];

/// The fields of `CUDA_GRAPH_EVENTS` (graph node creations).
const GRAPH_NODE: &[FieldSpec] = &[
    field("graphNodeId", "Graph node ID", How::Int),
    field("originalGraphNodeId", "Original graph node ID", How::Int),
];

/// The fields of `CUDA_UM_CPU_PAGE_FAULT_EVENTS`.
const CPU_FAULT: &[FieldSpec] = &[
    field("address", "Address", How::Address),
    field("CpuInstruction", "CPU instruction", How::Text),
    field("module", "Module", How::Text),
    field("originalFaultPc", "Original fault PC", How::Address),
    field("unresolvedFaultPc", "Unresolved fault PC", How::Int),
];

/// The fields of `CUDA_UM_GPU_PAGE_FAULT_EVENTS`.
const GPU_FAULT: &[FieldSpec] = &[
    field("address", "Address", How::Address),
    field("numberOfPageFaults", "Number of page faults", How::Int),
    field(
        "faultAccessType",
        "Access type",
        How::Enum("ENUM_CUDA_UNIF_MEM_ACCESS_TYPE", ACCESS_TYPES),
    ),
];

/// The fields of a unified-memory migration (a `CUPTI_ACTIVITY_KIND_MEMCPY` row of a unified
/// copy kind), in the order `gpu_sql` reads them.
pub(super) const MIGRATION: &[FieldSpec] = &[
    field(
        "migrationCause",
        "Migration cause",
        How::Enum("ENUM_CUDA_UNIF_MEM_MIGRATION", MIGRATION_CAUSES),
    ),
    field("virtualAddress", "Virtual address", How::Address),
    field("bytes", "Bytes", How::Int),
];

/// The fields kept from `table`'s rows when it is drawn generically, if any.
pub(super) fn fields_of(table: &str) -> &'static [FieldSpec] {
    match table {
        "CUDA_GRAPH_EVENTS" => GRAPH_NODE,
        "CUDA_UM_CPU_PAGE_FAULT_EVENTS" => CPU_FAULT,
        "CUDA_UM_GPU_PAGE_FAULT_EVENTS" => GPU_FAULT,
        _ => &[],
    }
}

/// The labels of the enum tables `fields` read, by table.
pub(super) type EnumLabels = HashMap<&'static str, HashMap<i64, String>>;

impl Loader<'_, '_> {
    /// Declares `table`'s fields and reads the labels of the enums they use (their tables'
    /// rows attached: they name values).
    pub(super) fn declare_fields(&mut self, table: &str, fields: &[FieldSpec]) -> EnumLabels {
        let names: Vec<&str> = fields.iter().map(|f| f.name).collect();
        self.row_fields_mut().declare(table, &names);
        let mut labels = EnumLabels::new();
        for f in fields {
            if let How::Enum(enum_table, _) = f.how
                && let Some(map) = self.db.enum_labels(enum_table)
            {
                labels.insert(enum_table, map);
                self.attach_rest(enum_table);
            }
        }
        labels
    }

    /// The fields `table`'s rows keep when drawn generically, the SELECT list of their
    /// columns (`, a, NULL, c`; empty for none) and the labels of their enums.
    pub(super) fn fields_to_keep(
        &mut self,
        table: &str,
    ) -> (&'static [FieldSpec], String, EnumLabels) {
        let fields = fields_of(table);
        if fields.is_empty() {
            return (fields, String::new(), EnumLabels::new());
        }
        let columns: Vec<&str> = fields.iter().map(|f| f.column).collect();
        let extra = format!(", {}", self.db.cols_or_null(table, &columns));
        let labels = self.declare_fields(table, fields);
        (fields, extra, labels)
    }

    /// The fields being gathered.
    fn row_fields_mut(&mut self) -> &mut RowFields {
        Arc::make_mut(self.b.session.row_fields.get_or_insert_with(Arc::default))
    }

    /// Keeps the fields of row `rowid` of `table`, read from `row` from column `first` on.
    pub(super) fn keep_fields(
        &mut self,
        table: &str,
        rowid: u32,
        row: &Cells<'_>,
        first: usize,
        (fields, labels): (&[FieldSpec], &EnumLabels),
    ) {
        let values = fields
            .iter()
            .enumerate()
            .map(|(i, f)| {
                let cell = row.get_ref(first + i).ok();
                let int = cell.and_then(int_of)?;
                Some(match f.how {
                    How::Int => Value::Signed(i128::from(int)),
                    How::Address => Value::Address(int.cast_unsigned()),
                    How::Text => {
                        let id = self.names.raw_name(&mut self.b, int);
                        Value::Text(self.b.strings().get(id).to_owned())
                    }
                    How::Enum(enum_table, builtin) => Value::Enum {
                        value: int.cast_unsigned(),
                        name: super::lookup_label_opt(labels.get(enum_table), builtin, int),
                    },
                })
            })
            .collect();
        self.row_fields_mut().insert(table, rowid, values);
    }
}
