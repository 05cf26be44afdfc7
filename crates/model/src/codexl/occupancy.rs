//! Kernel occupancy (`SESSION.occupancy`): RCP's 26 columns per dispatch, read by name (so a
//! file with fewer, more or reordered columns still loads).

use std::path::Path;

use super::counters::{CounterValue, Values, split_method};
use super::table::{ProfileTable, parse_table, parse_table_with};
use super::text::unescape;
use super::values::number_of;
use super::{CodexlError, map_file, read_file};
use crate::core::Progress;
use crate::problem::Problem;

/// The column names RCP writes, in its order.
pub const OCCUPANCY_COLUMNS: [&str; 26] = [
    "Thread ID",
    "Kernel Name",
    "Device Name",
    "Number of compute units",
    "Max. number of wavefronts per CU",
    "Max. number of work-group per CU",
    "Max. number of VGPR",
    "Max. number of SGPR",
    "Max. amount of LDS",
    "Number of VGPR used",
    "Number of SGPR used",
    "Amount of LDS used",
    "Size of wavefront",
    "Work-group size",
    "Wavefronts per work-group",
    "Max work-group size",
    "Max wavefronts per work-group",
    "Global work size",
    "Maximum global work size",
    "Nbr VGPR-limited waves",
    "Nbr SGPR-limited waves",
    "Nbr LDS-limited waves",
    "Nbr of WG-limited waves",
    "Kernel occupancy",
    "Graphics IP Version",
    "Number of SIMDs per CU",
];

/// One kernel dispatch's occupancy data (a missing or unreadable column is `None`).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct OccupancyRow {
    /// 1-based line in the file.
    pub line: u64,
    /// Thread ID.
    pub thread_id: Option<u64>,
    /// Kernel Name (escapes undone).
    pub kernel_name: String,
    /// Device Name.
    pub device_name: String,
    /// Number of compute units.
    pub compute_units: Option<u64>,
    /// Max. number of wavefronts per CU.
    pub max_waves_per_cu: Option<u64>,
    /// Max. number of work-group per CU.
    pub max_work_groups_per_cu: Option<u64>,
    /// Max. number of VGPR.
    pub max_vgprs: Option<u64>,
    /// Max. number of SGPR.
    pub max_sgprs: Option<u64>,
    /// Max. amount of LDS (bytes).
    pub max_lds: Option<u64>,
    /// Number of VGPR used.
    pub vgprs: Option<u64>,
    /// Number of SGPR used.
    pub sgprs: Option<u64>,
    /// Amount of LDS used (bytes).
    pub lds: Option<u64>,
    /// Size of wavefront.
    pub wavefront_size: Option<u64>,
    /// Work-group size.
    pub work_group_size: Option<u64>,
    /// Wavefronts per work-group.
    pub waves_per_work_group: Option<u64>,
    /// Max work-group size.
    pub max_work_group_size: Option<u64>,
    /// Max wavefronts per work-group.
    pub max_waves_per_work_group: Option<u64>,
    /// Global work size.
    pub global_work_size: Option<u64>,
    /// Maximum global work size.
    pub max_global_work_size: Option<u64>,
    /// Nbr VGPR-limited waves.
    pub vgpr_limited_waves: Option<u64>,
    /// Nbr SGPR-limited waves.
    pub sgpr_limited_waves: Option<u64>,
    /// Nbr LDS-limited waves.
    pub lds_limited_waves: Option<u64>,
    /// Nbr of WG-limited waves.
    pub wg_limited_waves: Option<u64>,
    /// Kernel occupancy (percent).
    pub occupancy_percent: Option<f64>,
    /// Graphics IP Version as written.
    pub graphics_ip: String,
    /// Number of SIMDs per CU.
    pub simds_per_cu: Option<u64>,
}

/// A parsed occupancy file.
#[derive(Debug, Clone)]
pub struct OccupancyFile {
    /// The table as read.
    pub table: ProfileTable,
    /// Typed rows.
    pub rows: Vec<OccupancyRow>,
    /// Per row and column: the value as the counters reader types it (for tables and JSON).
    pub values: Vec<Vec<CounterValue>>,
    /// The texts and work sizes `values` refer to.
    pub store: Values,
}

impl OccupancyFile {
    /// Reads a file.
    pub fn open(path: &Path) -> Result<OccupancyFile, CodexlError> {
        Ok(Self::parse(&read_file(path)?))
    }

    /// Reads a file, reporting the bytes read to `progress`; `Err(CodexlError::Cancelled)`
    /// when it was cancelled.
    pub fn open_with(path: &Path, progress: Progress<'_>) -> Result<OccupancyFile, CodexlError> {
        let data = map_file(path)?;
        Ok(Self::from_table(parse_table_with(data.bytes(), progress)?))
    }

    /// Parses the bytes of an occupancy file.
    pub fn parse(data: &[u8]) -> OccupancyFile {
        Self::from_table(parse_table(data))
    }

    /// Types the rows of a table read from an occupancy file.
    fn from_table(mut table: ProfileTable) -> OccupancyFile {
        let index: Vec<Option<usize>> = OCCUPANCY_COLUMNS
            .iter()
            .map(|name| table.column(name))
            .collect();
        if table.column_line != 0 && index[1].is_none() {
            let line = table.column_line;
            table
                .warnings
                .push(super::warning(line, "no 'Kernel Name' column"));
        }
        let decimal_comma = table.separator != ',';
        let mut rows = Vec::with_capacity(table.rows.len());
        let mut values = Vec::with_capacity(table.rows.len());
        let mut warnings = Vec::new();
        let mut store = Values::default();
        for raw in &table.rows {
            let field = |i: usize| index[i].and_then(|c| raw.fields.get(c)).map(String::as_str);
            let mut bad: Vec<&str> = Vec::new();
            let mut num = |i: usize| -> Option<u64> {
                let text = field(i)?;
                if text.is_empty() {
                    return None;
                }
                let parsed = text.parse::<u64>().ok().or_else(|| {
                    let (v, _) = number_of(text.trim(), decimal_comma)?;
                    crate::core::num::exact_u64(v).filter(|_| v < 1e19)
                });
                if parsed.is_none() {
                    bad.push(OCCUPANCY_COLUMNS[i]);
                }
                parsed
            };
            let row = OccupancyRow {
                line: raw.line,
                thread_id: num(0),
                kernel_name: unescape(field(1).unwrap_or("")).into_owned(),
                device_name: field(2).unwrap_or("").to_string(),
                compute_units: num(3),
                max_waves_per_cu: num(4),
                max_work_groups_per_cu: num(5),
                max_vgprs: num(6),
                max_sgprs: num(7),
                max_lds: num(8),
                vgprs: num(9),
                sgprs: num(10),
                lds: num(11),
                wavefront_size: num(12),
                work_group_size: num(13),
                waves_per_work_group: num(14),
                max_work_group_size: num(15),
                max_waves_per_work_group: num(16),
                global_work_size: num(17),
                max_global_work_size: num(18),
                vgpr_limited_waves: num(19),
                sgpr_limited_waves: num(20),
                lds_limited_waves: num(21),
                wg_limited_waves: num(22),
                occupancy_percent: field(23)
                    .and_then(|t| Some(number_of(t.trim(), decimal_comma)?.0)),
                graphics_ip: field(24).unwrap_or("").to_string(),
                simds_per_cu: num(25),
            };
            if !bad.is_empty() {
                warnings.push(super::warning(
                    raw.line,
                    format!("not a whole number: {}", bad.join(", ")),
                ));
            }
            values.push(
                (0..table.columns.len())
                    .map(|i| {
                        raw.fields
                            .get(i)
                            .map_or(CounterValue::Empty, |f| store.parse(f, decimal_comma))
                    })
                    .collect(),
            );
            rows.push(row);
        }
        table.warnings.extend(warnings);
        OccupancyFile {
            table,
            rows,
            values,
            store,
        }
    }

    /// Problems worked around.
    pub fn warnings(&self) -> &[Problem] {
        &self.table.warnings
    }

    /// `Kernel Name` split like a counter file's `Method` (kernel, kernel id, device; the device
    /// falls back to the `Device Name` column).
    pub fn kernel_parts(&self, row: &OccupancyRow) -> (String, Option<u32>, Option<String>) {
        let devices = [row.device_name.clone()];
        let (kernel, id, device) = split_method(&row.kernel_name, &devices);
        let device =
            device.or_else(|| (!row.device_name.is_empty()).then(|| row.device_name.clone()));
        (kernel, id, device)
    }
}
