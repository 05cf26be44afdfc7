//! `IController` (rule proposals, the message vault) and `IEvaluator` (requirements declared
//! in a rule's `evaluate(handle)`).

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use rustpython_vm::{PyObjectRef, PyPayload, PyResult, VirtualMachine, pyclass};

/// State shared by the rules running on one kernel: proposed rules and the message vault.
#[derive(Debug, Default)]
pub(crate) struct ControllerState {
    pub proposed: RefCell<Vec<String>>,
    pub vault: RefCell<HashMap<String, String>>,
}

/// `NvRules.IController`.
#[pyclass(module = "NvRules", name = "IController")]
#[derive(Debug, PyPayload)]
pub struct IController {
    pub(crate) state: Rc<ControllerState>,
}

#[pyclass]
impl IController {
    /// Proposes another rule to the user; Sightline lists proposals with the results.
    #[pymethod]
    fn propose_rule(&self, rule: String) -> bool {
        self.state.proposed.borrow_mut().push(rule);
        true
    }

    #[pymethod]
    fn get_message_vault(&self) -> IMessageVault {
        IMessageVault {
            state: self.state.clone(),
        }
    }
}

/// `NvRules.IMessageVault`: strings rules leave for each other, keyed by rule id.
#[pyclass(module = "NvRules", name = "IMessageVault")]
#[derive(Debug, PyPayload)]
pub struct IMessageVault {
    state: Rc<ControllerState>,
}

#[expect(
    clippy::needless_pass_by_value,
    reason = "Python calls these: RustPython hands a #[pymethod] its arguments owned"
)]
#[pyclass]
impl IMessageVault {
    #[pymethod(name = "Put")]
    fn put(&self, rule_id: String, message: PyObjectRef, vm: &VirtualMachine) -> PyResult<()> {
        let text = message.str(vm)?.to_string_lossy().into_owned();
        self.state.vault.borrow_mut().insert(rule_id, text);
        Ok(())
    }

    #[pymethod(name = "Get")]
    fn get(&self, rule_id: String) -> String {
        self.state
            .vault
            .borrow()
            .get(rule_id.as_str())
            .cloned()
            .unwrap_or_default()
    }
}

/// Metrics and rules a rule declared it needs.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Requirements {
    /// Required metric names.
    pub metrics: Vec<String>,
    /// Required rule identifiers (they run before this rule).
    pub rules: Vec<String>,
}

/// `NvRules.IEvaluator`: handed to a rule's `evaluate(handle)`.
#[pyclass(module = "NvRules", name = "IEvaluator")]
#[derive(Debug, PyPayload)]
pub struct IEvaluator {
    pub(crate) requirements: Rc<RefCell<Requirements>>,
}

#[expect(
    clippy::needless_pass_by_value,
    reason = "Python calls these: RustPython hands a #[pymethod] its arguments owned"
)]
#[pyclass]
impl IEvaluator {
    #[pymethod]
    fn require_metric(&self, metric: String) {
        self.requirements.borrow_mut().metrics.push(metric);
    }

    #[pymethod]
    fn require_rule(&self, rule: String) {
        self.requirements.borrow_mut().rules.push(rule);
    }

    #[pymethod]
    fn get_version(&self) -> &'static str {
        super::context::NVRULES_VERSION
    }

    #[pymethod]
    fn handle_exception(&self, message: PyObjectRef, vm: &VirtualMachine) -> PyResult<()> {
        Err(vm.new_runtime_error(message.str(vm)?.to_string_lossy().into_owned()))
    }
}
