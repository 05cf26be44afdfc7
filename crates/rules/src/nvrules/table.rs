//! The backend of `IFrontend.generate_table`: reads the `NvRules.TableData` that the Python
//! front (`surface.py`) built and checked into a [`RuleTable`].

use rustpython_vm::builtins::{PyFloat, PyInt, PyStr};
use rustpython_vm::{AsObject, PyObjectRef, PyResult, VirtualMachine};

use crate::model::{CellStyle, ColumnConfig, RuleTable, TableCell, TableSort};

/// `NvRules.TableElementKind_*` (as `surface.py` numbers them).
mod element_kind {
    pub const DOUBLE: i64 = 1;
    pub const INT: i64 = 2;
}

fn attr(obj: &PyObjectRef, name: &'static str, vm: &VirtualMachine) -> PyResult<PyObjectRef> {
    obj.get_attr(name, vm)
}

fn attr_bool(obj: &PyObjectRef, name: &'static str, vm: &VirtualMachine) -> PyResult<bool> {
    attr(obj, name, vm)?.try_to_bool(vm)
}

fn attr_text(obj: &PyObjectRef, name: &'static str, vm: &VirtualMachine) -> PyResult<String> {
    let value = attr(obj, name, vm)?;
    match value.downcast_ref::<PyStr>() {
        Some(s) => Ok(s.to_string_lossy().into_owned()),
        None => Err(vm.new_type_error(format!(
            "{name} must be a string, not {}",
            value.class().name()
        ))),
    }
}

/// Empty strings are "not given".
fn non_empty(text: String) -> Option<String> {
    (!text.is_empty()).then_some(text)
}

fn style(obj: &PyObjectRef, vm: &VirtualMachine) -> PyResult<CellStyle> {
    Ok(CellStyle {
        bold: attr_bool(obj, "is_bold", vm)?,
        italic: attr_bool(obj, "is_italic", vm)?,
    })
}

/// Only styles that change something are kept.
fn effective(style: CellStyle) -> Option<CellStyle> {
    (style != CellStyle::default()).then_some(style)
}

fn column_config(obj: &PyObjectRef, vm: &VirtualMachine) -> PyResult<ColumnConfig> {
    let width = attr(obj, "relative_width", vm)?.try_float(vm)?.to_f64();
    Ok(ColumnConfig {
        tooltip: non_empty(attr_text(obj, "tooltip", vm)?),
        relative_width: (width > 0.0 && width.is_finite()).then_some(width.min(1.0)),
        header_style: effective(style(&attr(obj, "header_style", vm)?, vm)?),
        data_style: effective(style(&attr(obj, "data_style", vm)?, vm)?),
    })
}

fn cells(column: &PyObjectRef, vm: &VirtualMachine) -> PyResult<Vec<TableCell>> {
    let kind: i64 = attr(column, "kind", vm)?
        .try_index(vm)?
        .try_to_primitive(vm)?;
    match kind {
        element_kind::INT => vm.extract_elements_with(&*attr(column, "int_values", vm)?, |v| {
            let int = v
                .downcast_ref::<PyInt>()
                .ok_or_else(|| vm.new_type_error("int_values must hold integers"))?;
            Ok(TableCell::Int(int.try_to_primitive(vm)?))
        }),
        element_kind::DOUBLE => {
            vm.extract_elements_with(&*attr(column, "double_values", vm)?, |v| {
                match v.downcast_ref::<PyFloat>() {
                    Some(f) => Ok(TableCell::Double(f.to_f64())),
                    None => Ok(TableCell::Double(v.try_float(vm)?.to_f64())),
                }
            })
        }
        _ => vm.extract_elements_with(&*attr(column, "string_values", vm)?, |v| {
            Ok(TableCell::Text(v.str(vm)?.to_string_lossy().into_owned()))
        }),
    }
}

/// Reads a `TableData` (columns of one kind each, optional table and column configuration).
pub(crate) fn rule_table(data: &PyObjectRef, vm: &VirtualMachine) -> PyResult<RuleTable> {
    let columns: Vec<PyObjectRef> = vm.extract_elements_with(&*attr(data, "columns", vm)?, Ok)?;
    let mut table = RuleTable::default();
    let mut values = Vec::with_capacity(columns.len());
    for column in &columns {
        table.header.push(attr_text(column, "name", vm)?);
        values.push(cells(column, vm)?);
        table
            .columns
            .push(if attr_bool(column, "has_column_config", vm)? {
                column_config(&attr(column, "column_config", vm)?, vm)?
            } else {
                ColumnConfig::default()
            });
    }
    let height = values.first().map_or(0, Vec::len);
    if let Some((index, _)) = values.iter().enumerate().find(|(_, c)| c.len() != height) {
        return Err(vm.new_value_error(format!(
            "column {index} has {} values but column 0 has {height}",
            values[index].len()
        )));
    }
    let mut iters: Vec<_> = values.into_iter().map(Vec::into_iter).collect();
    table.rows = (0..height)
        .map(|_| iters.iter_mut().filter_map(Iterator::next).collect())
        .collect();
    if attr_bool(data, "has_config", vm)? {
        let config = attr(data, "config", vm)?;
        table.title = non_empty(attr_text(&config, "title", vm)?);
        table.description = non_empty(attr_text(&config, "description", vm)?);
        if attr_bool(&config, "use_sorting", vm)? {
            let sort = attr(&config, "sort_by", vm)?;
            let column: usize = attr(&sort, "column", vm)?
                .try_index(vm)?
                .try_to_primitive(vm)?;
            if column >= table.header.len() {
                return Err(vm.new_value_error(format!("invalid sort column {column}")));
            }
            table.sort = Some(TableSort {
                column,
                ascending: attr_bool(&sort, "is_ascending", vm)?,
            });
        }
        if attr_bool(&config, "use_styling", vm)? {
            table.style = effective(style(&attr(&config, "style", vm)?, vm)?);
        }
    }
    Ok(table)
}
