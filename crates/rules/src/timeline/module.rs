//! The `timeline` Python module: an export's events for rules, with the bulk operations in
//! Rust ([`sightline_model::timeline::nsys::trace::ops`]).
//!
//! ```python
//! import timeline
//! calls = trace.events("cuda_api").where("name", "prefix", ["cudaDeviceSynchronize"])
//! top = calls.sort("-duration", "start").head(50)
//! return timeline.Result(["Duration (ns)", "API Name"], top.rows("duration", "name"), top)
//! ```

use std::sync::Arc;

use rustpython_vm::builtins::{PyInt, PyList, PyStr, PyTuple};
use rustpython_vm::function::{OptionalArg, PosArgs};
use rustpython_vm::{PyObjectRef, PyPayload, PyRef, PyResult, VirtualMachine, pyclass};

use sightline_model::timeline::nsys::trace::ops::{self, OpError, Test};
use sightline_model::timeline::nsys::trace::{ColumnKind, EventTable, NULL, Trace};

/// `timeline.Trace`: the export a rule analyzes.
#[pyclass(module = "timeline", name = "Trace")]
#[derive(Debug, PyPayload)]
pub(crate) struct PyTrace {
    pub(crate) trace: Arc<Trace>,
}

/// `timeline.EventSet`: rows of one table of the trace (a selection, in an order).
#[pyclass(module = "timeline", name = "EventSet")]
#[derive(Debug, PyPayload)]
pub(crate) struct EventSet {
    trace: Arc<Trace>,
    table: usize,
    rows: Arc<Vec<u32>>,
}

fn op_error(e: &OpError, vm: &VirtualMachine) -> rustpython_vm::builtins::PyBaseExceptionRef {
    vm.new_value_error(e.to_string())
}

#[expect(
    clippy::needless_pass_by_value,
    reason = "Python calls these: RustPython hands a #[pymethod] its arguments owned"
)]
#[pyclass]
impl PyTrace {
    /// The export's path.
    #[pygetset]
    fn path(&self) -> String {
        self.trace.path.display().to_string()
    }

    /// Whether the export has the table (and the column, if given).
    #[pymethod]
    fn has(&self, table: String, column: OptionalArg<String>) -> bool {
        self.trace
            .has(&table, column.as_option().map(String::as_str))
    }

    /// The names of the event tables.
    #[pymethod]
    fn tables(&self, vm: &VirtualMachine) -> PyObjectRef {
        str_list(self.table_names(), vm)
    }

    /// Every row of event table `name` (`cuda_api`, `gpu`).
    #[pymethod]
    fn events(&self, name: String, vm: &VirtualMachine) -> PyResult<EventSet> {
        let Some(table) = self.trace.tables.iter().position(|t| t.name == name) else {
            return Err(vm.new_value_error(format!(
                "no event table {name:?}; tables: {}",
                self.table_names().join(", ")
            )));
        };
        let len = self.trace.tables[table].len() as u32;
        Ok(EventSet {
            trace: self.trace.clone(),
            table,
            rows: Arc::new((0..len).collect()),
        })
    }

    /// The columns of event table `name`.
    #[pymethod]
    fn columns(&self, name: String, vm: &VirtualMachine) -> PyResult<PyObjectRef> {
        match self.trace.table(&name) {
            Some(t) => Ok(str_list(t.column_names(), vm)),
            None => Err(vm.new_value_error(format!("no event table {name:?}"))),
        }
    }
}

impl PyTrace {
    fn table_names(&self) -> Vec<&'static str> {
        self.trace.tables.iter().map(|t| t.name).collect()
    }
}

/// A Python list of strings.
fn str_list(items: Vec<&str>, vm: &VirtualMachine) -> PyObjectRef {
    vm.ctx
        .new_list(
            items
                .into_iter()
                .map(|s| vm.ctx.new_str(s).into())
                .collect(),
        )
        .into()
}

impl EventSet {
    fn table(&self) -> &EventTable {
        &self.trace.tables[self.table]
    }

    fn with_rows(&self, rows: Vec<u32>) -> EventSet {
        EventSet {
            trace: self.trace.clone(),
            table: self.table,
            rows: Arc::new(rows),
        }
    }

    /// A cell as Python: int, str or None.
    fn cell(&self, column: &str, row: u32, vm: &VirtualMachine) -> PyResult<PyObjectRef> {
        let Some((kind, v)) = self.table().value(column, row as usize) else {
            return Err(op_error(
                &OpError::NoColumn {
                    table: self.table().name.to_string(),
                    column: column.to_string(),
                    known: self.table().column_names().join(", "),
                },
                vm,
            ));
        };
        Ok(match (kind, v) {
            (_, NULL) => vm.ctx.none(),
            (ColumnKind::Int, v) => vm.ctx.new_int(v).into(),
            (ColumnKind::Text, v) => match self.trace.text(v) {
                Some(t) => vm.ctx.new_str(t).into(),
                None => vm.ctx.none(),
            },
        })
    }

    fn names(list: &PyObjectRef, vm: &VirtualMachine) -> PyResult<Vec<String>> {
        if let Some(s) = list.downcast_ref::<PyStr>() {
            return Ok(vec![s.to_string_lossy().into_owned()]);
        }
        vm.extract_elements_with(list, |v| v.try_into_value::<String>(vm))
    }

    fn int(value: &PyObjectRef, vm: &VirtualMachine) -> PyResult<i64> {
        if vm.is_none(value) {
            return Ok(NULL);
        }
        value
            .downcast_ref::<PyInt>()
            .ok_or_else(|| vm.new_type_error("this test needs an integer"))?
            .try_to_primitive(vm)
    }
}

#[expect(
    clippy::needless_pass_by_value,
    reason = "Python calls these: RustPython hands a #[pymethod] its arguments owned"
)]
#[pyclass]
impl EventSet {
    /// The number of rows.
    #[pymethod]
    fn count(&self) -> usize {
        self.rows.len()
    }

    /// The table's name.
    #[pygetset]
    fn table_name(&self) -> String {
        self.table().name.to_string()
    }

    /// The rows whose `column` passes the test: `op` is one of `==`, `!=`, `<`, `<=`, `>`,
    /// `>=` (with an int, `None` for missing; `==` also with a text), `in` / `not in` (a text
    /// or a list of texts), `prefix` (a text or a list: starts with one), `contains` /
    /// `not contains` (a text), `null`, `not null`. Text tests never pass a missing value.
    #[pymethod(name = "where")]
    fn where_(
        &self,
        column: String,
        op: String,
        value: OptionalArg<PyObjectRef>,
        vm: &VirtualMachine,
    ) -> PyResult<EventSet> {
        let value = value.unwrap_or_none(vm);
        let test = match op.as_str() {
            "==" if value.downcast_ref::<PyStr>().is_some() => {
                Test::TextIn(Self::names(&value, vm)?)
            }
            "==" => Test::Eq(Self::int(&value, vm)?),
            "!=" => Test::Ne(Self::int(&value, vm)?),
            "<" => Test::Lt(Self::int(&value, vm)?),
            "<=" => Test::Le(Self::int(&value, vm)?),
            ">" => Test::Gt(Self::int(&value, vm)?),
            ">=" => Test::Ge(Self::int(&value, vm)?),
            "in" => Test::TextIn(Self::names(&value, vm)?),
            "prefix" => Test::Prefix(Self::names(&value, vm)?),
            "contains" => Test::Contains(value.try_into_value::<String>(vm)?),
            "not in" => Test::TextNotIn(Self::names(&value, vm)?),
            "not contains" => Test::NotContains(value.try_into_value::<String>(vm)?),
            "null" => Test::Null,
            "not null" => Test::NotNull,
            other => {
                return Err(vm.new_value_error(format!(
                    "unknown test {other:?}: use ==, !=, <, <=, >, >=, in, not in, prefix, contains, not contains, null or not null"
                )));
            }
        };
        let rows = ops::filter(&self.trace, self.table(), &self.rows, &column, &test)
            .map_err(|e| op_error(&e, vm))?;
        Ok(self.with_rows(rows))
    }

    /// The rows sorted by the columns given, each ascending or, with a leading `-`, descending
    /// (`sort("-duration", "start")`). The sort is stable.
    #[pymethod]
    fn sort(&self, keys: PosArgs<String>, vm: &VirtualMachine) -> PyResult<EventSet> {
        let keys: Vec<(String, bool)> = keys
            .into_vec()
            .into_iter()
            .map(|k| match k.strip_prefix('-') {
                Some(c) => (c.to_string(), true),
                None => (k, false),
            })
            .collect();
        let rows = ops::sort(&self.trace, self.table(), &self.rows, &keys)
            .map_err(|e| op_error(&e, vm))?;
        Ok(self.with_rows(rows))
    }

    /// The first `n` rows (all of them for a negative `n`, as the rules' `rows=-1`).
    #[pymethod]
    fn head(&self, n: i64) -> EventSet {
        let n = if n < 0 { self.rows.len() } else { n as usize };
        self.with_rows(self.rows.iter().take(n).copied().collect())
    }

    /// The rows of both sets (this set's first, then the other's rows not in this one).
    #[pymethod]
    fn union(&self, other: PyRef<EventSet>, vm: &VirtualMachine) -> PyResult<EventSet> {
        if other.table != self.table || !Arc::ptr_eq(&other.trace, &self.trace) {
            return Err(vm.new_value_error("union of event sets of different tables"));
        }
        let mut seen: std::collections::HashSet<u32> = self.rows.iter().copied().collect();
        let mut rows = self.rows.to_vec();
        rows.extend(other.rows.iter().copied().filter(|r| seen.insert(*r)));
        Ok(self.with_rows(rows))
    }

    /// The rows of this set that are not in `other` (in this set's order).
    #[pymethod]
    fn minus(&self, other: PyRef<EventSet>, vm: &VirtualMachine) -> PyResult<EventSet> {
        if other.table != self.table || !Arc::ptr_eq(&other.trace, &self.trace) {
            return Err(vm.new_value_error("minus of event sets of different tables"));
        }
        let drop: std::collections::HashSet<u32> = other.rows.iter().copied().collect();
        Ok(self.with_rows(
            self.rows
                .iter()
                .copied()
                .filter(|r| !drop.contains(r))
                .collect(),
        ))
    }

    /// The rows where columns `a` and `b` are both present and equal.
    #[pymethod]
    fn equal(&self, a: String, b: String, vm: &VirtualMachine) -> PyResult<EventSet> {
        let rows = ops::equal(self.table(), &self.rows, &a, &b).map_err(|e| op_error(&e, vm))?;
        Ok(self.with_rows(rows))
    }

    /// The values of one column, as a list (int, str or None).
    #[pymethod]
    fn column(&self, name: String, vm: &VirtualMachine) -> PyResult<Vec<PyObjectRef>> {
        self.rows.iter().map(|&r| self.cell(&name, r, vm)).collect()
    }

    /// The rows as tuples of the columns given.
    #[pymethod]
    fn rows(&self, columns: PosArgs<String>, vm: &VirtualMachine) -> PyResult<Vec<PyObjectRef>> {
        let columns = columns.into_vec();
        self.rows
            .iter()
            .map(|&r| {
                let cells = columns
                    .iter()
                    .map(|c| self.cell(c, r, vm))
                    .collect::<PyResult<Vec<_>>>()?;
                Ok(vm.ctx.new_tuple(cells).into())
            })
            .collect()
    }

    /// Each row's source: `(table, rowid)` of the export (what a finding names).
    #[pymethod]
    fn refs(&self, vm: &VirtualMachine) -> PyResult<Vec<PyObjectRef>> {
        self.rows
            .iter()
            .map(|&r| {
                let cells = vec![self.cell("table", r, vm)?, self.cell("rowid", r, vm)?];
                Ok(vm.ctx.new_tuple(cells).into())
            })
            .collect()
    }

    /// Per group of rows (equal values of the columns in `by`), the idle intervals of at least
    /// `min` ns between the group's first start and last end: tuples `(start, end, *key)`.
    #[pymethod]
    fn gaps(&self, by: PyObjectRef, min: i64, vm: &VirtualMachine) -> PyResult<Vec<PyObjectRef>> {
        let by = Self::names(&by, vm)?;
        let gaps = ops::gaps(self.table(), &self.rows, &by, min).map_err(|e| op_error(&e, vm))?;
        Ok(gaps
            .into_iter()
            .map(|g| {
                let mut cells: Vec<PyObjectRef> =
                    vec![vm.ctx.new_int(g.start).into(), vm.ctx.new_int(g.end).into()];
                cells.extend(g.key.iter().map(|&k| key_cell(k, vm)));
                vm.ctx.new_tuple(cells).into()
            })
            .collect())
    }

    /// Per group of rows, the group's range (first start to last end) in `chunks` equal chunks:
    /// tuples `(start, active, busy, *key)` — `active` the chunk's length inside the range,
    /// `busy` the time the rows ran in it (overlapping rows add up).
    #[pymethod]
    fn utilization(
        &self,
        by: PyObjectRef,
        chunks: i64,
        vm: &VirtualMachine,
    ) -> PyResult<Vec<PyObjectRef>> {
        let by = Self::names(&by, vm)?;
        let chunks = ops::utilization(self.table(), &self.rows, &by, chunks)
            .map_err(|e| op_error(&e, vm))?;
        Ok(chunks
            .into_iter()
            .map(|c| {
                let mut cells: Vec<PyObjectRef> = vec![
                    vm.ctx.new_int(c.start).into(),
                    vm.ctx.new_int(c.active).into(),
                    vm.ctx.new_int(c.busy).into(),
                ];
                cells.extend(c.key.iter().map(|&k| key_cell(k, vm)));
                vm.ctx.new_tuple(cells).into()
            })
            .collect())
    }

    /// The smallest value of an integer column (None when the set is empty).
    #[pymethod]
    fn min(&self, column: String, vm: &VirtualMachine) -> PyResult<PyObjectRef> {
        self.fold(&column, vm, i64::min)
    }

    /// The largest value of an integer column (None when the set is empty).
    #[pymethod]
    fn max(&self, column: String, vm: &VirtualMachine) -> PyResult<PyObjectRef> {
        self.fold(&column, vm, i64::max)
    }

    /// The sum of an integer column.
    #[pymethod]
    fn sum(&self, column: String, vm: &VirtualMachine) -> PyResult<PyObjectRef> {
        let total = self.fold(&column, vm, i64::saturating_add)?;
        if vm.is_none(&total) {
            return Ok(vm.ctx.new_int(0).into());
        }
        Ok(total)
    }
}

impl EventSet {
    fn fold(
        &self,
        column: &str,
        vm: &VirtualMachine,
        f: fn(i64, i64) -> i64,
    ) -> PyResult<PyObjectRef> {
        let mut acc: Option<i64> = None;
        for &r in self.rows.iter() {
            match self.table().value(column, r as usize) {
                Some((ColumnKind::Int, v)) if v != NULL => {
                    acc = Some(acc.map_or(v, |a| f(a, v)));
                }
                Some((ColumnKind::Text, _)) => {
                    return Err(vm.new_type_error(format!("column {column:?} holds text")));
                }
                Some(_) => {}
                None => return Err(vm.new_value_error(format!("no column {column:?}"))),
            }
        }
        Ok(acc.map_or_else(|| vm.ctx.none(), |v| vm.ctx.new_int(v).into()))
    }
}

/// A group key value as Python (None for missing).
fn key_cell(v: i64, vm: &VirtualMachine) -> PyObjectRef {
    if v == NULL {
        vm.ctx.none()
    } else {
        vm.ctx.new_int(v).into()
    }
}

/// Whether `obj` is a tuple or list (for checking rule results).
pub(crate) fn is_sequence(obj: &PyObjectRef) -> bool {
    obj.downcast_ref::<PyTuple>().is_some() || obj.downcast_ref::<PyList>().is_some()
}

pub(crate) use timeline_module::module_def;

#[rustpython_vm::pymodule(name = "timeline")]
mod timeline_module {
    use rustpython_vm::builtins::PyModule;
    use rustpython_vm::class::PyClassImpl;
    use rustpython_vm::{Py, PyResult, VirtualMachine};

    use sightline_model::timeline::fmt_ratio;

    /// `num / den` as a decimal with `digits` digits, rounded half away from zero, exactly
    /// (integers in, text out: `fixed(4194304, 1000000, 3)` is `"4.194"`).
    #[pyfunction]
    fn fixed(num: i64, den: i64, digits: u32, vm: &VirtualMachine) -> PyResult<String> {
        if den == 0 {
            return Err(vm.new_zero_division_error("fixed(): denominator is 0"));
        }
        Ok(fmt_ratio(i128::from(num), i128::from(den), digits))
    }

    pub(crate) fn module_exec(vm: &VirtualMachine, module: &Py<PyModule>) -> PyResult<()> {
        __module_exec(vm, module);
        module.set_attr("Trace", super::PyTrace::make_static_type().to_owned(), vm)?;
        module.set_attr(
            "EventSet",
            super::EventSet::make_static_type().to_owned(),
            vm,
        )?;
        let scope = rustpython_vm::scope::Scope::with_builtins(None, module.dict(), vm);
        vm.run_string(scope, SURFACE_PY, "<timeline surface>".to_owned())?;
        Ok(())
    }

    /// The Python part of the module: `Result`, `Skipped`.
    const SURFACE_PY: &str = include_str!("surface.py");
}
