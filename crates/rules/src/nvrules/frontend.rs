//! `IFrontend`: where a rule sends its messages, speedups, focus metrics, tables, source
//! markers and charts, and how parent and child rules exchange dictionaries.

use std::cell::RefCell;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::rc::Rc;

use rustpython_vm::builtins::{PyDict, PyDictRef, PyStr};
use rustpython_vm::function::{OptionalArg, PosArgs};
use rustpython_vm::{AsObject, PyObjectRef, PyPayload, PyResult, VirtualMachine, pyclass};

use crate::model::{
    FocusMetric, MarkerLocation, MsgType, RuleChart, RuleMessage, SourceMarker, Speedup,
};

/// What a rule produced during one run.
#[derive(Debug, Default)]
pub(crate) struct RuleOutput {
    pub messages: Vec<RuleMessage>,
    pub markers: Vec<SourceMarker>,
    pub charts: Vec<RuleChart>,
}

/// State shared by all rules running on one kernel: the dictionaries parents sent.
#[derive(Debug, Default)]
pub(crate) struct KernelShared {
    pub dicts: RefCell<HashMap<String, PyDictRef>>,
}

/// `NvRules.IFrontend`.
#[pyclass(module = "NvRules", name = "IFrontend")]
#[derive(Debug, PyPayload)]
pub struct IFrontend {
    pub(crate) output: Rc<RefCell<RuleOutput>>,
    pub(crate) rule_id: String,
    pub(crate) parents: Vec<String>,
    pub(crate) kernel: Rc<KernelShared>,
    /// Where `load_chart_from_file` looks: the rule's folder, then the section folders.
    pub(crate) chart_folders: Rc<Vec<PathBuf>>,
}

fn int_of(obj: &PyObjectRef, vm: &VirtualMachine) -> PyResult<i64> {
    obj.try_index(vm)?.try_to_primitive(vm)
}

fn str_of(obj: &PyObjectRef, what: &str, vm: &VirtualMachine) -> PyResult<String> {
    match obj.downcast_ref::<PyStr>() {
        Some(s) => Ok(s.to_string_lossy().into_owned()),
        None => Err(vm.new_type_error(format!(
            "{what} must be a string, not {}",
            obj.class().name()
        ))),
    }
}

fn is_str(obj: &PyObjectRef) -> bool {
    obj.downcast_ref::<PyStr>().is_some()
}

impl IFrontend {
    fn with_message<R>(&self, id: i64, f: impl FnOnce(&mut RuleMessage) -> R) -> Option<R> {
        let mut output = self.output.borrow_mut();
        let index = usize::try_from(id).ok()?;
        output.messages.get_mut(index).map(f)
    }

    fn find_chart(&self, name: &str) -> Option<PathBuf> {
        let path = Path::new(name);
        if path.is_absolute() {
            return path.is_file().then(|| path.to_owned());
        }
        self.chart_folders
            .iter()
            .map(|folder| folder.join(path))
            .find(|candidate| candidate.is_file())
    }
}

#[expect(
    clippy::needless_pass_by_value,
    reason = "Python calls these: RustPython hands a #[pymethod] its arguments owned"
)]
#[pyclass]
impl IFrontend {
    /// `message(str[, name])` or `message(type, str[, name])`; returns the message id.
    #[pymethod]
    fn message(&self, args: PosArgs<PyObjectRef>, vm: &VirtualMachine) -> PyResult<usize> {
        let args = args.into_vec();
        let (kind, text, title) = match args.as_slice() {
            [text] => (MsgType::Ok.code(), str_of(text, "message", vm)?, None),
            [first, second] if is_str(first) => (
                MsgType::Ok.code(),
                str_of(first, "message", vm)?,
                Some(second),
            ),
            [kind, text] => (int_of(kind, vm)?, str_of(text, "message", vm)?, None),
            [kind, text, title] => (int_of(kind, vm)?, str_of(text, "message", vm)?, Some(title)),
            _ => {
                return Err(vm.new_type_error(format!(
                    "message() takes 1 to 3 arguments ({} given)",
                    args.len()
                )));
            }
        };
        let title = match title {
            Some(t) if !vm.is_none(t) => str_of(t, "message name", vm)?,
            _ => String::new(),
        };
        let Some(msg_type) = MsgType::from_code(kind) else {
            return Err(vm.new_value_error(format!("invalid message type {kind}")));
        };
        let mut output = self.output.borrow_mut();
        output.messages.push(RuleMessage {
            title,
            message: text,
            msg_type,
            speedup: None,
            focus_metrics: Vec::new(),
            tables: Vec::new(),
        });
        Ok(output.messages.len() - 1)
    }

    #[pymethod]
    fn speedup(
        &self,
        message_id: PyObjectRef,
        kind: PyObjectRef,
        estimated_speedup: PyObjectRef,
        vm: &VirtualMachine,
    ) -> PyResult<bool> {
        let id = int_of(&message_id, vm)?;
        let kind = int_of(&kind, vm)?;
        let value = estimated_speedup.try_float(vm)?.to_f64();
        Ok(self
            .with_message(id, |m| m.speedup = Some(Speedup { kind, value }))
            .is_some())
    }

    #[pymethod]
    fn focus_metric(
        &self,
        message_id: PyObjectRef,
        metric_name: String,
        metric_value: PyObjectRef,
        severity: PyObjectRef,
        info: String,
        vm: &VirtualMachine,
    ) -> PyResult<bool> {
        let id = int_of(&message_id, vm)?;
        let focus = FocusMetric {
            name: metric_name,
            value: Some(metric_value.try_float(vm)?.to_f64()),
            severity: int_of(&severity, vm)?,
            info,
        };
        Ok(self
            .with_message(id, |m| m.focus_metrics.push(focus))
            .is_some())
    }

    /// `source_marker(str, address_or_line, kind[, file_name][, type])`.
    #[pymethod]
    fn source_marker(&self, args: PosArgs<PyObjectRef>, vm: &VirtualMachine) -> PyResult<bool> {
        use super::consts::marker_kind;
        let args = args.into_vec();
        if !(3..=5).contains(&args.len()) {
            return Err(vm.new_type_error(format!(
                "source_marker() takes 3 to 5 arguments ({} given)",
                args.len()
            )));
        }
        let message = str_of(&args[0], "marker message", vm)?;
        let position: u64 = args[1].try_index(vm)?.try_to_primitive(vm)?;
        let kind = int_of(&args[2], vm)?;
        let mut file = None;
        let mut kind_of_msg = MsgType::None.code();
        for extra in &args[3..] {
            if is_str(extra) {
                file = Some(str_of(extra, "file name", vm)?);
            } else {
                kind_of_msg = int_of(extra, vm)?;
            }
        }
        let location = match kind {
            marker_kind::SASS => MarkerLocation::Sass(position),
            marker_kind::SOURCE => MarkerLocation::Source {
                file: file.unwrap_or_default(),
                line: position,
            },
            other => return Err(vm.new_value_error(format!("invalid marker kind {other}"))),
        };
        // A number outside `NvRules.MsgType` is accepted as a marker's type and kept as `NONE`.
        let msg_type = MsgType::from_code(kind_of_msg).unwrap_or(MsgType::None);
        self.output.borrow_mut().markers.push(SourceMarker {
            message,
            location,
            msg_type,
        });
        Ok(true)
    }

    /// `generate_table(message_id, header, data, config=None)` (2025.3): `surface.py`'s
    /// `_table_data` checks the rows and the configuration as NVIDIA's module does and builds
    /// the `TableData`; `_generate_table` attaches it.
    #[pymethod]
    fn generate_table(
        &self,
        message_id: PyObjectRef,
        header: PyObjectRef,
        data: PyObjectRef,
        config: OptionalArg<PyObjectRef>,
        vm: &VirtualMachine,
    ) -> PyResult<()> {
        let config = config.unwrap_or_none(vm);
        let build = vm.import("NvRules", 0)?.get_attr("_table_data", vm)?;
        let table = build.call((header, data, config), vm)?;
        self._generate_table(message_id, table, vm)?;
        Ok(())
    }

    /// Attaches a `TableData` to message `message_id`; false when there is no such message.
    #[pymethod]
    fn _generate_table(
        &self,
        message_id: PyObjectRef,
        data: PyObjectRef,
        vm: &VirtualMachine,
    ) -> PyResult<bool> {
        let id = int_of(&message_id, vm)?;
        let table = super::table::rule_table(&data, vm)?;
        Ok(self.with_message(id, |m| m.tables.push(table)).is_some())
    }

    #[pymethod]
    fn load_chart_from_file(&self, filename: String, vm: &VirtualMachine) -> PyResult<bool> {
        let Some(path) = self.find_chart(filename.as_str()) else {
            return Ok(false);
        };
        let parsed = sightline_model::section::parse_chart_file(&path);
        match parsed.value {
            Some(item) => {
                self.output
                    .borrow_mut()
                    .charts
                    .push(RuleChart { path, item });
                Ok(true)
            }
            None => {
                let errors: Vec<String> = parsed.errors().map(ToString::to_string).collect();
                Err(vm.new_value_error(errors.join("\n")))
            }
        }
    }

    #[pymethod]
    fn send_dict_to_children(&self, dict: PyObjectRef, vm: &VirtualMachine) -> PyResult<()> {
        let dict = dict
            .downcast::<PyDict>()
            .map_err(|d| vm.new_type_error(format!("expected a dict, not {}", d.class().name())))?;
        let mut dicts = self.kernel.dicts.borrow_mut();
        match dicts.get(&self.rule_id) {
            Some(existing) => {
                for (key, value) in dict.into_iter() {
                    existing.set_item(&*key, value, vm)?;
                }
            }
            None => {
                dicts.insert(self.rule_id.clone(), dict.copy().into_ref(&vm.ctx));
            }
        }
        Ok(())
    }

    #[pymethod]
    fn receive_dict_from_parent(&self, parent_id: String, vm: &VirtualMachine) -> PyResult {
        let parent = parent_id.as_str();
        let dict = vm.ctx.new_dict();
        if self.parents.iter().any(|p| p == parent)
            && let Some(sent) = self.kernel.dicts.borrow().get(parent)
        {
            for (key, value) in sent.clone().into_iter() {
                dict.set_item(&*key, value, vm)?;
            }
        }
        Ok(dict.into())
    }
}
