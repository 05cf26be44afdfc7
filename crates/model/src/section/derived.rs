//! Derived metrics: the `MetricDefinitions` of section files (`Name` = `Expression`).
//!
//! Nsight Compute evaluates derived metrics at collection time and stores the results in the
//! report next to their inputs; the definitions travel with the report in its embedded sections
//! (`ProfilerSection.MetricDefinitions`). This module parses the expressions
//! ([`parse_expression`]) and evaluates them on an action's metrics ([`evaluate`],
//! [`derive_all`]). Evaluating every definition of a real report on its stored inputs
//! reproduces the stored derived metrics exactly (value kind, regular value, instances and
//! their order, correlation ids): `tests/it/derived_metrics.rs` checks this on the corpus.
//!
//! # Grammar
//!
//! The customization guide documents `operand operator operand` with `operator ::= + | - | * | /`
//! and `operand ::= metric | constant`. A constant `N.` or `N.M` is a double, `N` an unsigned
//! 64-bit integer. Stock sections of 2025.x go further, so the parser accepts:
//!
//! ```text
//! expr    ::= term (('+' | '-') term)*          left-associative
//! term    ::= factor (('*' | '/') factor)*      left-associative, binds tighter than + -
//! factor  ::= metric | constant | '(' expr ')' | function '(' expr ')'
//! metric  ::= [A-Za-z_][A-Za-z0-9_.:]*
//! function::= simplify | nan_as_zero
//! ```
//!
//! Parenthesised sub-expressions appear in real reports (2025.1 `Occupancy`:
//! `( launch__occupancy_per_register_count * 100 ) / device__attribute_max_warps_per_multiprocessor`);
//! functions and a lone operand appear in 2025.3 stock sections (`simplify(x)`,
//! `100.0 * nan_as_zero(...)`). A lone operand `X` is represented as `X * 1`, which leaves
//! every element, value kind and correlation id unchanged. Whitespace is free; nesting is
//! limited to [`MAX_DEPTH`] levels.
//!
//! # Combination rules
//!
//! A metric has a *regular* value ([`Metric::value`]) and optionally *instances* (elements),
//! each with an optional correlation id. Constants are metrics with only a regular value.
//! Every binary operation combines LHS and RHS elements as follows (seed rules 1-5, made
//! precise by the corpus):
//!
//! 1. **Regular values** are combined: `a op b`.
//! 2. **Neither side has correlation ids**: the first `N = min(len(A), len(B))` elements are
//!    combined pairwise; the remaining elements of the longer side are kept as they are
//!    (`a1+b1, a2+b2, a3, a4`). A side with only a regular value has no elements here.
//! 3. **Both sides have correlation ids**: only the LHS's correlation ids survive. Each LHS
//!    element is combined with the RHS element of the same id; an LHS element whose id the
//!    RHS lacks is kept as it is, and RHS elements whose ids the LHS lacks are dropped. The
//!    result is ordered by correlation id (ascending; numbers numerically, strings
//!    lexicographically). Checked on a real 2023.1 report (FORMATS.md §1): a left metric with
//!    2 ids and a right one with 47 give 2 instances. The seed's example (`a1+b1, a2, b3,
//!    a4+b4, b5`, a full outer join) is not what Nsight Compute stores. In every report of the
//!    corpus both sides carry identical, ascending id lists, so the result order equals
//!    either input's order there.
//! 4. **Only the LHS has correlation ids**: every LHS element is combined with the RHS
//!    regular value (`a1+b, a2+b, ...`); the LHS ids are kept.
//! 5. **Only the RHS has correlation ids**: the LHS regular value is combined with every RHS
//!    element: the result has the RHS's ids and elements `a op b1, a op b2, ...` (the seed's
//!    `a + b1 + b2 + b3` is not a sum: the 2024.1.1 corpus stores
//!    `memory_l1_wavefronts_shared / inst_executed` as one element `0 / b_i` per RHS id).
//!    Reports up to 2023.1 ([`Semantics::Legacy`]) store **no** elements here: the LHS's
//!    elements drive the result (the 2023.1 corpus report stores the same expression with no
//!    instances for an LHS without elements and an RHS with 19 ids, and with the LHS's 2 for an
//!    LHS with 2 ids and an RHS with 47).
//!
//! # Values and kinds (from the corpus)
//!
//! - **Kinds.** The LHS kind is used, *per element*: a result element has the kind of the LHS
//!   element it comes from (the LHS regular value for rule 5), the result's regular value has
//!   the kind of the LHS regular value. 2025.1 reports store
//!   `launch__occupancy_per_register_count` with a double regular value and uint64 instances;
//!   the derived percentage keeps exactly that mix. The RHS value is converted to the LHS kind
//!   before the operation: to uint64 by truncation toward zero (as `as_uint64`), to uint32 by
//!   truncation (doubles saturate), to float by rounding.
//! - **Integer arithmetic** is integer arithmetic: `thread_inst_executed_true /
//!   inst_executed` stores `30` for 30.12 and `(16 * 100) / 32`, `(1 * 100) / 32` store `50`
//!   and `3` (1,702 + 2,700 instance values checked). Overflow wraps (C++ unsigned semantics;
//!   *unconfirmed*: no corpus value overflows or goes below zero).
//! - **Division by zero.** An integer-kind RHS equal to zero yields the LHS value (seed). An
//!   integer LHS divided by a non-integer RHS that truncates to zero also yields the LHS value
//!   (the C++ original would trap; *unconfirmed*). Floating-point division by a floating-point
//!   zero follows IEEE 754 (`inf`, `NaN`).
//! - **Strings.** A string-kind LHS (or an LHS without any value) is returned unchanged. A
//!   numeric LHS with a string or valueless RHS is an error ([`DerivedError::NotNumeric`]).
//! - **Regular value of an instanced result: depends on the Nsight Compute version**
//!   ([`Semantics`], chosen from the report's `VersionInfo`). Reports up to 2023.1 store
//!   `a op b` of the regular values (`derived__avg_thread_executed` = 32 with 15 instances of
//!   32; on a real 2023.1 report 788529152 / 24641536 = 32 with 47 instances of 32, and a
//!   left operand with instances only, whose regular value is 0, gives 0). Reports from
//!   2023.3 on store the **sum of the result's instance values** (480 for the same 15
//!   instances of 32; 10130 for the occupancy percentages where `a op b` would give 10150),
//!   converted to the LHS regular kind. A result without instances has `a op b` in both.
//!   2023.2 is *unconfirmed* (the corpus's 2023.2 report has no definitions) and treated as
//!   legacy.
//! - **Missing inputs.** A definition whose input metric is missing is not evaluated
//!   ([`DerivedError::MissingMetric`]), and no result is stored: the 2025.1 report defines
//!   `derived__pct_occupancy_per_barrier_count` (filtered to CC 9.0+) on a CC 7.5 device
//!   whose `launch__occupancy_per_barrier_count` is absent, and stores no result.
//! - **Chains.** Definitions may use earlier derived results ([`derive_all`]); 2025.3 stock
//!   sections do (`32 - derived__avg_thread_executed_true`). No corpus report has a chain.
//! - **Functions** (2025.3 stock sections, *unconfirmed*: no corpus report uses them):
//!   `simplify(x)` keeps only the regular value of `x` (drops the instances; 2025.3 wraps the
//!   instance-less `.sum` operands of the branch percentage in it, in line with the new
//!   sum-of-instances regular value), `nan_as_zero(x)` replaces every NaN element by zero.

use std::cmp::Ordering;
use std::fmt;

use crate::core::num::{float_to_u64, low_u32, saturating_u32, to_f32};
use crate::ncu::{Action, Instance, Metric, MetricValue, Report, ToolVersion, ValueKind};
use crate::proto::nv::profiler::ProfilerSection;

/// Maximum nesting depth of a parsed expression (parentheses, function calls and operator
/// chains each add a level).
pub const MAX_DEPTH: usize = 64;

/// A binary derived-metric expression: `lhs op rhs`.
#[derive(Debug, Clone, PartialEq)]
pub struct Expression {
    /// Left-hand side; its value kind is the kind of the result.
    pub lhs: Operand,
    /// The operator.
    pub op: Operator,
    /// Right-hand side; converted to the LHS kind before the operation.
    pub rhs: Operand,
}

/// One side of an [`Expression`].
#[derive(Debug, Clone, PartialEq)]
pub enum Operand {
    /// A metric of the action (or an earlier derived metric), by full name.
    Metric(String),
    /// A double constant (`5.`, `0.3109`).
    Double(f64),
    /// An unsigned 64-bit constant (`2029`).
    Uint64(u64),
    /// A nested expression: `( a * 100 )` or an operand of a chain `a + b + c`.
    Expression(Box<Expression>),
    /// A function applied to an operand: `simplify(x)`, `nan_as_zero(x / y)`.
    Call(Function, Box<Operand>),
}

/// A binary operator.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Operator {
    /// `+`
    Add,
    /// `-`
    Sub,
    /// `*`
    Mul,
    /// `/`
    Div,
}

/// A function of the 2025.3 expression language.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Function {
    /// `simplify(x)`: the regular value of `x` only, without instances.
    Simplify,
    /// `nan_as_zero(x)`: every NaN (regular value and instances) replaced by zero.
    NanAsZero,
}

impl Function {
    /// The name used in expressions.
    pub fn name(self) -> &'static str {
        match self {
            Function::Simplify => "simplify",
            Function::NanAsZero => "nan_as_zero",
        }
    }

    fn from_name(name: &str) -> Option<Function> {
        match name {
            "simplify" => Some(Function::Simplify),
            "nan_as_zero" => Some(Function::NanAsZero),
            _ => None,
        }
    }
}

/// Which Nsight Compute version's semantics to reproduce. The versions differ only in the
/// regular value of a result that has instances (FORMATS.md §1, checked on real reports).
///
/// | version that wrote the report | semantics | regular value of an instanced result |
/// |---|---|---|
/// | up to 2023.1 (seen: 2022.1.1, 2022.3.0, 2023.1.0) | [`Semantics::Legacy`] | `regular(lhs) op regular(rhs)` |
/// | 2023.2 (*unconfirmed*: no report of it defines derived metrics) | [`Semantics::Legacy`] | `regular(lhs) op regular(rhs)` |
/// | 2023.3 and later (seen: 2023.3, 2024.1.1, 2025.1.0) | [`Semantics::Current`] | sum of the combined instances |
/// | not recorded or unparsable | [`Semantics::Current`] | sum of the combined instances |
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Semantics {
    /// Nsight Compute up to 2023.2: the regular value is always the combination of the
    /// operands' regular values.
    Legacy,
    /// Nsight Compute 2023.3 and later: a result with instances has the sum of its instance
    /// values as regular value (in the LHS regular kind).
    #[default]
    Current,
}

/// The first version with [`Semantics::Current`].
const FIRST_CURRENT: ToolVersion = ToolVersion {
    year: 2023,
    minor: 3,
};

impl Semantics {
    /// The semantics of an Nsight Compute version string such as `2022.3.0.0 (build 31729285)`:
    /// versions before 2023.3 are [`Semantics::Legacy`]; unparsable versions are
    /// [`Semantics::Current`].
    pub fn for_tool_version(version: &str) -> Semantics {
        Semantics::for_version(ToolVersion::parse(version))
    }

    /// The semantics of a parsed version ([`Semantics::Current`] when unknown).
    pub fn for_version(version: Option<ToolVersion>) -> Semantics {
        match version {
            Some(version) if version < FIRST_CURRENT => Semantics::Legacy,
            _ => Semantics::Current,
        }
    }

    /// The semantics of the Nsight Compute version that wrote `report` (its
    /// `Nsight Compute Target` version info), [`Semantics::Current`] when not recorded.
    pub fn for_report(report: &Report) -> Semantics {
        Semantics::for_version(report.tool_version())
    }

    /// The semantics of the report `action` comes from.
    pub fn for_action(action: &Action) -> Semantics {
        Semantics::for_version(action.tool_version())
    }
}

/// Errors of parsing and evaluating derived metrics.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum DerivedError {
    /// The expression text is malformed. `position` is the 1-based character position.
    #[error("invalid derived metric expression: {message} at character {position}")]
    Parse {
        /// 1-based character (not byte) position of the problem; one past the end for
        /// "unexpected end".
        position: usize,
        /// What is wrong.
        message: String,
    },
    /// An input metric is not in the action.
    #[error("metric `{0}` is not available")]
    MissingMetric(String),
    /// A numeric LHS was combined with a string or valueless RHS.
    #[error("operand `{0}` has no numeric value")]
    NotNumeric(String),
}

impl fmt::Display for Operator {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Operator::Add => "+",
            Operator::Sub => "-",
            Operator::Mul => "*",
            Operator::Div => "/",
        })
    }
}

impl fmt::Display for Operand {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Operand::Metric(name) => f.write_str(name),
            Operand::Double(v) => {
                let text = v.to_string();
                if text.contains('.') || !v.is_finite() {
                    f.write_str(&text)
                } else {
                    write!(f, "{text}.")
                }
            }
            Operand::Uint64(v) => write!(f, "{v}"),
            Operand::Expression(e) => write!(f, "({e})"),
            Operand::Call(function, argument) => match argument.as_ref() {
                Operand::Expression(e) => write!(f, "{}({e})", function.name()),
                other => write!(f, "{}({other})", function.name()),
            },
        }
    }
}

impl fmt::Display for Expression {
    /// Writes the expression in a form [`parse_expression`] reads back to the same value (for
    /// finite constants).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {} {}", self.lhs, self.op, self.rhs)
    }
}

/// Evaluates `expr` with [`Semantics::Current`] (Nsight Compute 2024.1 and later), looking
/// input metrics up with `lookup`. The returned metric has `name_id` 0.
pub fn evaluate(
    expr: &Expression,
    lookup: impl Fn(&str) -> Option<Metric>,
) -> Result<Metric, DerivedError> {
    evaluate_with(expr, lookup, Semantics::Current)
}

/// Evaluates `expr` with the given version semantics (see [`Semantics::for_report`]).
pub fn evaluate_with(
    expr: &Expression,
    lookup: impl Fn(&str) -> Option<Metric>,
    semantics: Semantics,
) -> Result<Metric, DerivedError> {
    eval_expression(expr, &lookup, semantics)
}

/// Evaluates definitions in order with [`Semantics::Current`]; a definition can use the
/// results of earlier definitions (which take precedence over `base`). Returns one entry per
/// definition, in definition order.
pub fn derive_all(
    definitions: &[(String, Expression)],
    base: impl Fn(&str) -> Option<Metric>,
) -> Vec<(String, Result<Metric, DerivedError>)> {
    derive_all_with(definitions, base, Semantics::Current)
}

/// [`derive_all`] with the given version semantics.
pub fn derive_all_with(
    definitions: &[(String, Expression)],
    base: impl Fn(&str) -> Option<Metric>,
    semantics: Semantics,
) -> Vec<(String, Result<Metric, DerivedError>)> {
    let mut results: Vec<(String, Result<Metric, DerivedError>)> =
        Vec::with_capacity(definitions.len());
    for (name, expr) in definitions {
        let lookup = |wanted: &str| {
            results
                .iter()
                .rev()
                .find_map(|(derived, result)| match result {
                    Ok(metric) if derived == wanted => Some(metric.clone()),
                    _ => None,
                })
                .or_else(|| base(wanted))
        };
        let result = eval_expression(expr, &lookup, semantics);
        results.push((name.clone(), result));
    }
    results
}

/// The metric definitions of `sections`, in section order then file order, each parsed.
/// Definition filters (architecture ranges) are not applied.
pub fn section_definitions(
    sections: &[ProfilerSection],
) -> Vec<(String, Result<Expression, DerivedError>)> {
    sections
        .iter()
        .filter_map(|section| section.metric_definitions.as_ref())
        .flat_map(|defs| defs.metric_definitions.iter())
        .map(|def| (def.name.clone(), parse_expression(&def.expression)))
        .collect()
}

type Lookup<'a> = dyn Fn(&str) -> Option<Metric> + 'a;

fn eval_expression(
    expr: &Expression,
    lookup: &Lookup<'_>,
    semantics: Semantics,
) -> Result<Metric, DerivedError> {
    let lhs = eval_operand(&expr.lhs, lookup, semantics)?;
    let rhs = eval_operand(&expr.rhs, lookup, semantics)?;
    if is_numeric(lhs.value().kind()) && !is_numeric(rhs.value().kind()) {
        return Err(DerivedError::NotNumeric(expr.rhs.to_string()));
    }
    Ok(combine(&lhs, expr.op, &rhs, semantics))
}

fn eval_operand(
    operand: &Operand,
    lookup: &Lookup<'_>,
    semantics: Semantics,
) -> Result<Metric, DerivedError> {
    match operand {
        Operand::Metric(name) => {
            lookup(name).ok_or_else(|| DerivedError::MissingMetric(name.clone()))
        }
        Operand::Double(v) => Ok(constant(MetricValue::Double(*v))),
        Operand::Uint64(v) => Ok(constant(MetricValue::Uint64(*v))),
        Operand::Expression(e) => eval_expression(e, lookup, semantics),
        Operand::Call(function, argument) => {
            let metric = eval_operand(argument, lookup, semantics)?;
            Ok(match function {
                Function::Simplify => Metric {
                    stored: metric.value(),
                    instances: Vec::new(),
                    ..metric
                },
                Function::NanAsZero => Metric {
                    stored: nan_as_zero(&metric.stored),
                    instances: metric
                        .instances
                        .iter()
                        .map(|i| Instance {
                            correlation_id: i.correlation_id.clone(),
                            value: nan_as_zero(&i.value),
                        })
                        .collect(),
                    ..metric
                },
            })
        }
    }
}

fn constant(value: MetricValue) -> Metric {
    Metric {
        name_id: 0,
        stored: value,
        instances: Vec::new(),
        category: 0,
    }
}

fn nan_as_zero(value: &MetricValue) -> MetricValue {
    match value {
        MetricValue::Double(v) if v.is_nan() => MetricValue::Double(0.0),
        MetricValue::Float(v) if v.is_nan() => MetricValue::Float(0.0),
        other => other.clone(),
    }
}

fn is_numeric(kind: ValueKind) -> bool {
    matches!(
        kind,
        ValueKind::Float | ValueKind::Double | ValueKind::Uint32 | ValueKind::Uint64
    )
}

/// Combines two evaluated operands by the five rules of the module doc.
fn combine(lhs: &Metric, op: Operator, rhs: &Metric, semantics: Semantics) -> Metric {
    let a = lhs.value();
    if !is_numeric(a.kind()) {
        return Metric {
            name_id: 0,
            ..lhs.clone()
        };
    }
    let b = rhs.value();
    let instances: Vec<Instance> = match (lhs.has_correlation_ids(), rhs.has_correlation_ids()) {
        (false, false) => {
            let n = lhs.instances.len().min(rhs.instances.len());
            let combined = lhs
                .instances
                .iter()
                .zip(&rhs.instances)
                .map(|(x, y)| Instance {
                    correlation_id: x.correlation_id.clone(),
                    value: apply(&x.value, op, &y.value),
                });
            let rest = if lhs.instances.len() > n {
                &lhs.instances[n..]
            } else {
                &rhs.instances[n..]
            };
            combined.chain(rest.iter().cloned()).collect()
        }
        (true, true) => join(&lhs.instances, op, &rhs.instances),
        (true, false) => lhs
            .instances
            .iter()
            .map(|x| Instance {
                correlation_id: x.correlation_id.clone(),
                value: apply(&x.value, op, &b),
            })
            .collect(),
        // Up to 2023.1 the LHS's elements drive: an LHS without elements gives none (a real
        // 2023.1 report stores `memory_l1_wavefronts_shared / inst_executed` with no instances
        // for an LHS without instances and an RHS with 19; 2024.1 stores 15 for 15).
        (false, true) if semantics == Semantics::Legacy => Vec::new(),
        (false, true) => rhs
            .instances
            .iter()
            .map(|y| Instance {
                correlation_id: y.correlation_id.clone(),
                value: apply(&a, op, &y.value),
            })
            .collect(),
    };
    let stored = match semantics {
        Semantics::Current if !instances.is_empty() => sum(&instances, a.kind()),
        _ => apply(&a, op, &b),
    };
    Metric {
        name_id: 0,
        stored,
        instances,
        category: lhs.category,
    }
}

/// Rule 3: combines two id-carrying element lists on the LHS's ids, ordered by correlation id.
fn join(lhs: &[Instance], op: Operator, rhs: &[Instance]) -> Vec<Instance> {
    let mut left: Vec<&Instance> = lhs.iter().collect();
    let mut right: Vec<&Instance> = rhs.iter().collect();
    left.sort_by(|x, y| cmp_ids(&x.correlation_id, &y.correlation_id));
    right.sort_by(|x, y| cmp_ids(&x.correlation_id, &y.correlation_id));
    let mut out = Vec::with_capacity(left.len());
    let mut j = 0;
    for x in left {
        while right
            .get(j)
            .is_some_and(|y| cmp_ids(&y.correlation_id, &x.correlation_id) == Ordering::Less)
        {
            j += 1;
        }
        match right.get(j) {
            Some(y) if cmp_ids(&y.correlation_id, &x.correlation_id) == Ordering::Equal => {
                out.push(Instance {
                    correlation_id: x.correlation_id.clone(),
                    value: apply(&x.value, op, &y.value),
                });
            }
            _ => out.push(x.clone()),
        }
    }
    out
}

/// Orders correlation ids: integers numerically, then floating-point ids, then strings, then
/// missing ids. Mixed integer/floating ids compare numerically.
fn cmp_ids(a: &Option<MetricValue>, b: &Option<MetricValue>) -> Ordering {
    fn class(v: &Option<MetricValue>) -> u8 {
        match v {
            Some(
                MetricValue::Uint32(_)
                | MetricValue::Uint64(_)
                | MetricValue::Float(_)
                | MetricValue::Double(_),
            ) => 0,
            Some(MetricValue::String(_)) => 1,
            Some(MetricValue::None) | None => 2,
        }
    }
    match (a, b) {
        (
            Some(x @ (MetricValue::Uint32(_) | MetricValue::Uint64(_))),
            Some(y @ (MetricValue::Uint32(_) | MetricValue::Uint64(_))),
        ) => x.as_u64().cmp(&y.as_u64()),
        (Some(MetricValue::String(x)), Some(MetricValue::String(y))) => x.cmp(y),
        (Some(x), Some(y)) if class(a) == 0 && class(b) == 0 => {
            let (x, y) = (x.as_f64().unwrap_or(0.0), y.as_f64().unwrap_or(0.0));
            x.total_cmp(&y)
        }
        _ => class(a).cmp(&class(b)),
    }
}

/// The sum of the numeric element values, in `kind` (integers wrap).
fn sum(instances: &[Instance], kind: ValueKind) -> MetricValue {
    let values = instances.iter().map(|i| &i.value);
    match kind {
        ValueKind::Double => MetricValue::Double(
            values
                .filter_map(MetricValue::as_f64)
                .fold(0.0, |s, v| s + v),
        ),
        ValueKind::Float => MetricValue::Float(
            values
                .filter_map(MetricValue::as_f64)
                .fold(0.0f32, |s, v| s + to_f32(v)),
        ),
        ValueKind::Uint32 => MetricValue::Uint32(
            values
                .filter_map(to_u32)
                .fold(0u32, |s, v| s.wrapping_add(v)),
        ),
        _ => MetricValue::Uint64(
            values
                .filter_map(MetricValue::as_u64)
                .fold(0u64, |s, v| s.wrapping_add(v)),
        ),
    }
}

/// Converts to uint32 as a C++ cast would: integers truncate modulo 2^32, floating-point
/// values truncate toward zero (saturating; NaN gives 0).
fn to_u32(value: &MetricValue) -> Option<u32> {
    match value {
        MetricValue::Uint32(v) => Some(*v),
        MetricValue::Uint64(v) => Some(low_u32(*v)),
        MetricValue::Float(v) => Some(saturating_u32(float_to_u64(f64::from(*v)))),
        MetricValue::Double(v) => Some(saturating_u32(float_to_u64(*v))),
        MetricValue::String(_) | MetricValue::None => None,
    }
}

/// Combines two element values; the result has `a`'s kind. Non-numeric `a` is returned
/// unchanged, as is `a` when `b` is not numeric or is an integer-kind zero divisor.
fn apply(a: &MetricValue, op: Operator, b: &MetricValue) -> MetricValue {
    let integer_zero = matches!(b, MetricValue::Uint32(0) | MetricValue::Uint64(0));
    if op == Operator::Div && integer_zero {
        return a.clone();
    }
    // The integer kinds wrap, and keep `a` where a division has no result.
    macro_rules! integer {
        ($x:expr, $y:expr, $kind:path) => {
            match op {
                Operator::Add => $kind($x.wrapping_add($y)),
                Operator::Sub => $kind($x.wrapping_sub($y)),
                Operator::Mul => $kind($x.wrapping_mul($y)),
                Operator::Div => $x.checked_div($y).map_or_else(|| a.clone(), $kind),
            }
        };
    }
    match a {
        MetricValue::Double(x) => match b.as_f64() {
            Some(y) => MetricValue::Double(match op {
                Operator::Add => x + y,
                Operator::Sub => x - y,
                Operator::Mul => x * y,
                Operator::Div => x / y,
            }),
            None => a.clone(),
        },
        MetricValue::Float(x) => match b.as_f64() {
            Some(y) => {
                let y = to_f32(y);
                MetricValue::Float(match op {
                    Operator::Add => x + y,
                    Operator::Sub => x - y,
                    Operator::Mul => x * y,
                    Operator::Div => x / y,
                })
            }
            None => a.clone(),
        },
        MetricValue::Uint64(x) => match b.as_u64() {
            Some(y) => integer!(x, y, MetricValue::Uint64),
            None => a.clone(),
        },
        MetricValue::Uint32(x) => match to_u32(b) {
            Some(y) => integer!(x, y, MetricValue::Uint32),
            None => a.clone(),
        },
        MetricValue::String(_) | MetricValue::None => a.clone(),
    }
}

mod parse;

pub use parse::parse_expression;

#[cfg(test)]
mod tests;
