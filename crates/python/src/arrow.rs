//! The model's column tables as Apache Arrow record batches, handed to pyarrow (or Polars, or
//! any reader of the Arrow PyCapsule interface) through the Arrow C stream interface: the
//! vectors move into Arrow buffers without a copy, and no Python object is made per value.

use std::ffi::CString;
use std::sync::Arc;

use arrow_array::ffi_stream::FFI_ArrowArrayStream;
use arrow_array::types::UInt32Type;
use arrow_array::{
    ArrayRef, BinaryArray, DictionaryArray, Float64Array, Int64Array, LargeBinaryArray,
    LargeStringArray, RecordBatch, RecordBatchIterator, RecordBatchOptions, StringArray,
    UInt32Array,
};
use arrow_buffer::{Buffer, NullBuffer, OffsetBuffer, ScalarBuffer};
use arrow_schema::{ArrowError, Field, Schema};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyCapsule;
use sightline_model::columnar::{Column, ColumnTable, Strings, Values};

/// One table on its way to Python: `__arrow_c_stream__` hands it over, once.
#[pyclass(module = "sightline._native", name = "_ArrowTable")]
pub struct ArrowTable {
    batch: Option<RecordBatch>,
    /// The table's name.
    #[pyo3(get)]
    name: String,
    /// What could not be read of it, one line each.
    #[pyo3(get)]
    warnings: Vec<String>,
}

impl ArrowTable {
    /// `table` as Arrow.
    pub fn new(table: ColumnTable) -> PyResult<ArrowTable> {
        let name = table.name.clone();
        let warnings = table.warnings.clone();
        let batch = record_batch(table).map_err(|e| PyValueError::new_err(e.to_string()))?;
        Ok(ArrowTable {
            batch: Some(batch),
            name,
            warnings,
        })
    }
}

#[pymethods]
impl ArrowTable {
    /// The Arrow PyCapsule interface: the table as an `ArrowArrayStream` capsule (one record
    /// batch). The requested schema is not applied (the interface allows that).
    #[pyo3(signature = (requested_schema=None))]
    fn __arrow_c_stream__<'py>(
        &mut self,
        py: Python<'py>,
        requested_schema: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyCapsule>> {
        let _ = requested_schema;
        let batch = self
            .batch
            .take()
            .ok_or_else(|| PyValueError::new_err("this table was already handed over"))?;
        let schema = batch.schema();
        let reader = RecordBatchIterator::new([Ok(batch)], schema);
        let stream = FFI_ArrowArrayStream::new(Box::new(reader));
        PyCapsule::new(py, stream, Some(CString::from(c"arrow_array_stream")))
    }
}

/// `table` as one record batch.
pub fn record_batch(table: ColumnTable) -> Result<RecordBatch, ArrowError> {
    let rows = table.rows;
    let (fields, arrays): (Vec<Field>, Vec<ArrayRef>) = table
        .columns
        .into_iter()
        .map(|c| {
            let name = c.name.clone();
            let array = array(c)?;
            Ok((Field::new(name, array.data_type().clone(), true), array))
        })
        .collect::<Result<Vec<_>, ArrowError>>()?
        .into_iter()
        .unzip();
    let options = RecordBatchOptions::new().with_row_count(Some(rows));
    RecordBatch::try_new_with_options(Arc::new(Schema::new(fields)), arrays, &options)
}

fn array(column: Column) -> Result<ArrayRef, ArrowError> {
    let nulls = column.validity.map(NullBuffer::from);
    Ok(match column.values {
        Values::Int64(v) => Arc::new(Int64Array::try_new(ScalarBuffer::from(v), nulls)?),
        Values::Float64(v) => Arc::new(Float64Array::try_new(ScalarBuffer::from(v), nulls)?),
        Values::Utf8(s) => strings(s, nulls, false)?,
        Values::Binary(s) => strings(s, nulls, true)?,
        Values::Dictionary { keys, dictionary } => {
            let keys = UInt32Array::try_new(ScalarBuffer::from(keys), nulls)?;
            let values = Arc::new(StringArray::from_iter_values(dictionary));
            Arc::new(DictionaryArray::<UInt32Type>::try_new(keys, values)?)
        }
    })
}

/// Strings (or bytes) with 32-bit offsets when they fit (`string`, what pandas and most tools
/// expect), else 64-bit (`large_string`).
fn strings(s: Strings, nulls: Option<NullBuffer>, binary: bool) -> Result<ArrayRef, ArrowError> {
    let bytes = Buffer::from_vec(s.bytes);
    if let Ok(offsets) = s
        .offsets
        .iter()
        .map(|&o| i32::try_from(o))
        .collect::<Result<Vec<i32>, _>>()
    {
        let offsets = OffsetBuffer::new(ScalarBuffer::from(offsets));
        return Ok(if binary {
            Arc::new(BinaryArray::try_new(offsets, bytes, nulls)?)
        } else {
            Arc::new(StringArray::try_new(offsets, bytes, nulls)?)
        });
    }
    let offsets = OffsetBuffer::new(ScalarBuffer::from(s.offsets));
    Ok(if binary {
        Arc::new(LargeBinaryArray::try_new(offsets, bytes, nulls)?)
    } else {
        Arc::new(LargeStringArray::try_new(offsets, bytes, nulls)?)
    })
}
