//! Derived metrics (`src/section/derived.rs`): the seed's combination rules with its examples,
//! kinds, division by zero, parsing, and the corpus check: every derived metric stored in a
//! real report is reproduced exactly from its stored inputs and the report's embedded
//! definitions.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use sightline::ncu::{Instance, Metric, MetricValue, Report};
use sightline::section::{
    DerivedError, Expression, Function, MAX_DEPTH, Operand, Operator, Semantics, derive_all,
    derive_all_with, evaluate, evaluate_with, parse_expression, section_definitions,
};

// ---------------------------------------------------------------------------------------------
// Helpers

fn u(v: u64) -> MetricValue {
    MetricValue::Uint64(v)
}

fn d(v: f64) -> MetricValue {
    MetricValue::Double(v)
}

fn regular(value: MetricValue) -> Metric {
    Metric {
        stored: value,
        ..Metric::default()
    }
}

/// A metric with correlation ids: `(id, value)` elements.
fn with_ids(value: MetricValue, elements: &[(u64, MetricValue)]) -> Metric {
    Metric {
        stored: value,
        instances: elements
            .iter()
            .map(|(id, v)| Instance {
                correlation_id: Some(u(*id)),
                value: v.clone(),
            })
            .collect(),
        ..Metric::default()
    }
}

/// A metric with instances but no correlation ids.
fn without_ids(value: MetricValue, elements: &[MetricValue]) -> Metric {
    Metric {
        stored: value,
        instances: elements
            .iter()
            .map(|v| Instance {
                correlation_id: None,
                value: v.clone(),
            })
            .collect(),
        ..Metric::default()
    }
}

fn metrics(pairs: Vec<(&str, Metric)>) -> HashMap<String, Metric> {
    pairs.into_iter().map(|(n, m)| (n.to_owned(), m)).collect()
}

fn eval(text: &str, env: &HashMap<String, Metric>) -> Metric {
    let expr = parse_expression(text).unwrap_or_else(|e| panic!("{text}: {e}"));
    evaluate(&expr, |n| env.get(n).cloned()).unwrap_or_else(|e| panic!("{text}: {e}"))
}

fn eval_legacy(text: &str, env: &HashMap<String, Metric>) -> Metric {
    let expr = parse_expression(text).unwrap_or_else(|e| panic!("{text}: {e}"));
    evaluate_with(&expr, |n| env.get(n).cloned(), Semantics::Legacy)
        .unwrap_or_else(|e| panic!("{text}: {e}"))
}

/// `(id, value)` of every element.
fn elements(m: &Metric) -> Vec<(Option<MetricValue>, MetricValue)> {
    m.instances
        .iter()
        .map(|i| (i.correlation_id.clone(), i.value.clone()))
        .collect()
}

fn ids(elements: &[(u64, MetricValue)]) -> Vec<(Option<MetricValue>, MetricValue)> {
    elements
        .iter()
        .map(|(id, v)| (Some(u(*id)), v.clone()))
        .collect()
}

fn parse_error_position(text: &str) -> usize {
    match parse_expression(text) {
        Err(DerivedError::Parse { position, message }) => {
            assert!(!message.is_empty());
            position
        }
        other => panic!("{text:?}: expected a parse error, got {other:?}"),
    }
}

// ---------------------------------------------------------------------------------------------
// Rule 1: regular values

#[test]
fn rule1_regular_values_are_combined() {
    let env = metrics(vec![("a", regular(u(10))), ("b", regular(u(4)))]);
    assert_eq!(eval("a + b", &env).stored, u(14));
    assert_eq!(eval("a - b", &env).stored, u(6));
    assert_eq!(eval("a * b", &env).stored, u(40));
    assert_eq!(
        eval("a / b", &env).stored,
        u(2),
        "integer division truncates"
    );
    assert!(eval("a + b", &env).instances.is_empty());

    let env = metrics(vec![("a", regular(d(10.0))), ("b", regular(d(4.0)))]);
    assert_eq!(eval("a / b", &env).stored, d(2.5));
    assert_eq!(eval_legacy("a / b", &env).stored, d(2.5));
}

#[test]
fn rule1_unsigned_arithmetic_wraps() {
    let env = metrics(vec![("a", regular(u(3))), ("b", regular(u(5)))]);
    assert_eq!(eval("a - b", &env).stored, u(u64::MAX - 1));
    let env = metrics(vec![("a", regular(u(u64::MAX))), ("b", regular(u(2)))]);
    assert_eq!(eval("a + b", &env).stored, u(1));
    assert_eq!(eval("a * b", &env).stored, u(u64::MAX - 1));
}

// ---------------------------------------------------------------------------------------------
// Rule 2: neither side has correlation ids

#[test]
fn rule2_first_n_elements_are_combined_the_rest_kept() {
    // Seed: a1 + b1, a2 + b2, a3, a4.
    let env = metrics(vec![
        ("a", without_ids(u(10), &[u(1), u(2), u(3), u(4)])),
        ("b", without_ids(u(30), &[u(10), u(20)])),
    ]);
    let r = eval("a + b", &env);
    let values: Vec<MetricValue> = r.instances.iter().map(|i| i.value.clone()).collect();
    assert_eq!(values, vec![u(11), u(22), u(3), u(4)]);
    assert!(!r.has_correlation_ids());
    // Current semantics: regular value = sum of the result's elements; legacy: a + b.
    assert_eq!(r.stored, u(40));
    assert_eq!(eval_legacy("a + b", &env).stored, u(40));

    // RHS longer: the extra RHS elements are kept as they are.
    let r = eval("b - a", &env);
    let values: Vec<MetricValue> = r.instances.iter().map(|i| i.value.clone()).collect();
    assert_eq!(values, vec![u(9), u(18), u(3), u(4)]);
    assert_eq!(eval_legacy("b - a", &env).stored, u(20));
}

// ---------------------------------------------------------------------------------------------
// Rule 3: both sides have correlation ids

#[test]
fn rule3_only_the_left_operands_ids_survive() {
    // Nsight Compute (FORMATS.md §1, a real 2023.1 report): each LHS element is combined with
    // the RHS element of the same id, an LHS element without a partner is kept, and RHS-only
    // ids are dropped. (The seed's example, a full outer join `a1+b1, a2, b3, a4+b4, b5`,
    // is not what Nsight Compute stores.)
    let env = metrics(vec![
        (
            "a",
            with_ids(u(0), &[(1, u(100)), (2, u(200)), (4, u(400))]),
        ),
        (
            "b",
            with_ids(u(0), &[(1, u(1)), (3, u(3)), (4, u(4)), (5, u(5))]),
        ),
    ]);
    let r = eval("a + b", &env);
    assert_eq!(elements(&r), ids(&[(1, u(101)), (2, u(200)), (4, u(404))]));
    assert_eq!(r.stored, u(101 + 200 + 404));

    // Unpaired LHS elements are kept as they are (not negated, not divided).
    let r = eval("a - b", &env);
    assert_eq!(elements(&r), ids(&[(1, u(99)), (2, u(200)), (4, u(396))]));

    // The other way round: b's ids survive.
    let r = eval("b + a", &env);
    assert_eq!(
        elements(&r),
        ids(&[(1, u(101)), (3, u(3)), (4, u(404)), (5, u(5))])
    );

    // 2 left ids against 47 right ids give 2 instances (the real report's shape).
    let right: Vec<(u64, MetricValue)> = (0..47).map(|i| (0x100 + i * 16, u(524_288))).collect();
    let env = metrics(vec![
        (
            "memory_l1_wavefronts_shared",
            with_ids(u(0), &[(0x130, u(1_048_576)), (0x380, u(524_288))]),
        ),
        ("inst_executed", with_ids(u(24_641_536), &right)),
    ]);
    let text = "memory_l1_wavefronts_shared / inst_executed";
    let r = eval(text, &env);
    assert_eq!(elements(&r), ids(&[(0x130, u(2)), (0x380, u(1))]));
    assert_eq!(r.stored, u(3), "2023.3+: sum of the combined instances");
    assert_eq!(eval_legacy(text, &env).stored, u(0), "up to 2023.1: 0 / b");
}

#[test]
fn rule3_unsorted_inputs_give_id_ordered_results() {
    let env = metrics(vec![
        ("a", with_ids(u(0), &[(30, u(3)), (10, u(1)), (20, u(2))])),
        (
            "b",
            with_ids(u(0), &[(20, u(20)), (40, u(40)), (10, u(10))]),
        ),
    ]);
    let r = eval("a * b", &env);
    assert_eq!(elements(&r), ids(&[(10, u(10)), (20, u(40)), (30, u(3))]));
}

#[test]
fn rule3_regular_value_depends_on_the_version() {
    // derived__avg_thread_executed = thread_inst_executed / inst_executed, shaped like the
    // 2022.3 / 2024.1.1 vec_add kernels: 15 instances of 32 threads per instruction.
    let elements_a: Vec<(u64, MetricValue)> =
        (0..15).map(|i| (0x100 + i * 16, u(1_048_576))).collect();
    let elements_b: Vec<(u64, MetricValue)> =
        (0..15).map(|i| (0x100 + i * 16, u(32_768))).collect();
    let env = metrics(vec![
        ("thread_inst_executed", with_ids(u(15_728_640), &elements_a)),
        ("inst_executed", with_ids(u(491_520), &elements_b)),
    ]);
    let text = "thread_inst_executed / inst_executed";
    assert_eq!(eval_legacy(text, &env).stored, u(32), "2022.x: a / b");
    assert_eq!(eval(text, &env).stored, u(480), "2024.1+: sum of instances");
    assert!(eval(text, &env).instances.iter().all(|i| i.value == u(32)));
}

// ---------------------------------------------------------------------------------------------
// Rule 4: only the LHS has correlation ids

#[test]
fn rule4_rhs_regular_value_is_combined_with_every_lhs_element() {
    // Seed: a1 + b, a2 + b, a3 + b.
    let env = metrics(vec![
        ("a", with_ids(u(6), &[(7, u(1)), (8, u(2)), (9, u(3))])),
        ("b", regular(u(10))),
    ]);
    let r = eval("a + b", &env);
    assert_eq!(elements(&r), ids(&[(7, u(11)), (8, u(12)), (9, u(13))]));
    assert_eq!(r.stored, u(36));
    assert_eq!(eval_legacy("a + b", &env).stored, u(16));

    // RHS instances without ids are ignored: only its regular value is used.
    let env = metrics(vec![
        ("a", with_ids(u(6), &[(7, u(1)), (8, u(2))])),
        ("b", without_ids(u(10), &[u(1000), u(2000)])),
    ]);
    assert_eq!(
        elements(&eval("a * b", &env)),
        ids(&[(7, u(10)), (8, u(20))])
    );
}

#[test]
fn rule4_occupancy_percentage_keeps_the_mixed_kinds() {
    // 2025.1.0 Occupancy: a double regular value over uint64 instances; the derived percentage
    // keeps exactly that mix, divides the instances as integers and sums them (10130, where
    // the regular values would give 10150).
    let counts = [16u64, 16, 1, 5, 0];
    let elements_a: Vec<(u64, MetricValue)> = counts
        .iter()
        .enumerate()
        .map(|(i, c)| (i as u64, u(*c)))
        .collect();
    let env = metrics(vec![
        (
            "launch__occupancy_per_register_count",
            with_ids(d(38.0), &elements_a),
        ),
        (
            "device__attribute_max_warps_per_multiprocessor",
            regular(u(32)),
        ),
    ]);
    let text = " ( launch__occupancy_per_register_count * 100 ) / device__attribute_max_warps_per_multiprocessor";
    let r = eval(text, &env);
    assert_eq!(
        elements(&r),
        ids(&[(0, u(50)), (1, u(50)), (2, u(3)), (3, u(15)), (4, u(0))])
    );
    assert_eq!(r.stored, d(118.0));
    assert_eq!(eval_legacy(text, &env).stored, d(118.75));
}

// ---------------------------------------------------------------------------------------------
// Rule 5: only the RHS has correlation ids

#[test]
fn rule5_lhs_regular_value_is_combined_with_every_rhs_element() {
    // Seed writes `a + b1 + b2 + b3`; reports store one element `a op b_i` per RHS id.
    let env = metrics(vec![
        ("a", regular(u(100))),
        ("b", with_ids(u(7), &[(1, u(1)), (2, u(2)), (3, u(4))])),
    ]);
    let r = eval("a / b", &env);
    assert_eq!(elements(&r), ids(&[(1, u(100)), (2, u(50)), (3, u(25))]));
    assert_eq!(r.stored, u(175));
    assert_eq!(eval_legacy("a / b", &env).stored, u(14));

    // A constant LHS (2025.3: `32 - derived__avg_thread_executed_true`).
    let env = metrics(vec![(
        "derived__avg_thread_executed_true",
        with_ids(u(60), &[(1, u(32)), (2, u(28))]),
    )]);
    let r = eval("32 - derived__avg_thread_executed_true", &env);
    assert_eq!(elements(&r), ids(&[(1, u(0)), (2, u(4))]));

    // The element kind is the LHS's.
    let env = metrics(vec![
        ("a", regular(d(1.0))),
        ("b", with_ids(u(0), &[(1, u(4))])),
    ]);
    assert_eq!(elements(&eval("a / b", &env)), ids(&[(1, d(0.25))]));
}

// ---------------------------------------------------------------------------------------------
// Division by zero

#[test]
fn division_by_integer_zero_gives_the_lhs_value() {
    let env = metrics(vec![
        ("a", regular(u(42))),
        ("x", regular(d(2.5))),
        ("zero", regular(u(0))),
        ("zero32", regular(MetricValue::Uint32(0))),
        ("dzero", regular(d(0.0))),
    ]);
    assert_eq!(eval("a / zero", &env).stored, u(42));
    assert_eq!(eval("a / 0", &env).stored, u(42));
    assert_eq!(eval("a / zero32", &env).stored, u(42));
    assert_eq!(eval("x / zero", &env).stored, d(2.5));
    assert_eq!(eval("x / 0", &env).stored, d(2.5));
    // A floating-point zero divisor follows IEEE 754.
    assert_eq!(eval("x / dzero", &env).stored, d(f64::INFINITY));
    assert_eq!(eval("x / 0.", &env).stored, d(f64::INFINITY));
    // An integer LHS over a double that truncates to zero: the LHS value, no trap.
    assert_eq!(eval("a / 0.5", &env).stored, u(42));

    // Per element: zero RHS elements leave the LHS element.
    let env = metrics(vec![
        ("a", with_ids(u(0), &[(1, u(10)), (2, u(20))])),
        ("b", with_ids(u(0), &[(1, u(0)), (2, u(4))])),
    ]);
    assert_eq!(
        elements(&eval("a / b", &env)),
        ids(&[(1, u(10)), (2, u(5))])
    );
}

// ---------------------------------------------------------------------------------------------
// Kinds

#[test]
fn double_lhs_with_uint_rhs_gives_double() {
    let env = metrics(vec![("a", regular(d(10.0))), ("b", regular(u(4)))]);
    assert_eq!(eval("a / b", &env).stored, d(2.5));
    assert_eq!(eval("a * 2", &env).stored, d(20.0));
    // The seed's x2 roofline metrics.
    let env = metrics(vec![(
        "sm__sass_thread_inst_executed_op_ffma_pred_on.sum.peak_sustained",
        regular(d(10752.0)),
    )]);
    assert_eq!(
        eval(
            "sm__sass_thread_inst_executed_op_ffma_pred_on.sum.peak_sustained * 2",
            &env
        )
        .stored,
        d(21504.0)
    );
}

#[test]
fn uint_lhs_with_double_rhs_converts_the_rhs_by_truncation() {
    let env = metrics(vec![("a", regular(u(10))), ("b", regular(d(2.9)))]);
    assert_eq!(eval("a / b", &env).stored, u(5), "10 / (u64)2.9 = 10 / 2");
    assert_eq!(eval("a * b", &env).stored, u(20));
    assert_eq!(eval("a + 0.99", &env).stored, u(10));
    assert_eq!(eval("a - b", &env).stored, u(8));
}

#[test]
fn uint32_and_float_lhs_keep_their_kinds() {
    let env = metrics(vec![
        ("a", regular(MetricValue::Uint32(7))),
        ("f", regular(MetricValue::Float(1.5))),
    ]);
    assert_eq!(eval("a * 3", &env).stored, MetricValue::Uint32(21));
    assert_eq!(eval("a - 8", &env).stored, MetricValue::Uint32(u32::MAX));
    assert_eq!(eval("f * 2", &env).stored, MetricValue::Float(3.0));
    assert_eq!(eval("f + a", &env).stored, MetricValue::Float(8.5));
}

#[test]
fn string_lhs_is_returned_unchanged() {
    let name = MetricValue::String("vec_add".into());
    let env = metrics(vec![("s", regular(name.clone())), ("b", regular(u(3)))]);
    for op in ["+", "-", "*", "/"] {
        let r = eval(&format!("s {op} b"), &env);
        assert_eq!(r.stored, name);
        assert!(r.instances.is_empty());
    }
}

#[test]
fn numeric_lhs_with_string_rhs_is_an_error() {
    let env = metrics(vec![
        ("a", regular(u(3))),
        ("s", regular(MetricValue::String("x".into()))),
    ]);
    let expr = parse_expression("a + s").unwrap();
    assert_eq!(
        evaluate(&expr, |n| env.get(n).cloned()),
        Err(DerivedError::NotNumeric("s".into()))
    );
}

// ---------------------------------------------------------------------------------------------
// Parsing

#[test]
fn constants_are_parsed_by_their_form() {
    let e = parse_expression("x * 5.").unwrap();
    assert_eq!(e.rhs, Operand::Double(5.0));
    let e = parse_expression("x * 0.3109").unwrap();
    assert_eq!(e.rhs, Operand::Double(0.3109));
    let e = parse_expression("x * 2029").unwrap();
    assert_eq!(e.rhs, Operand::Uint64(2029));
    let e = parse_expression("18446744073709551615 - x").unwrap();
    assert_eq!(e.lhs, Operand::Uint64(u64::MAX));
}

#[test]
fn seed_examples_parse() {
    assert_eq!(
        parse_expression("thread_inst_executed_true / inst_executed").unwrap(),
        Expression {
            lhs: Operand::Metric("thread_inst_executed_true".into()),
            op: Operator::Div,
            rhs: Operand::Metric("inst_executed".into()),
        }
    );
    assert_eq!(
        parse_expression("sm__sass_thread_inst_executed_op_ffma_pred_on.sum.peak_sustained * 2")
            .unwrap(),
        Expression {
            lhs: Operand::Metric(
                "sm__sass_thread_inst_executed_op_ffma_pred_on.sum.peak_sustained".into()
            ),
            op: Operator::Mul,
            rhs: Operand::Uint64(2),
        }
    );
    assert_eq!(
        parse_expression("pmsampling:smsp__warps_issue_stalled.avg-1").unwrap(),
        Expression {
            lhs: Operand::Metric("pmsampling:smsp__warps_issue_stalled.avg".into()),
            op: Operator::Sub,
            rhs: Operand::Uint64(1),
        }
    );
}

#[test]
fn parentheses_precedence_and_functions() {
    let e = parse_expression("a + b * c").unwrap();
    assert_eq!(e.lhs, Operand::Metric("a".into()));
    assert_eq!(e.op, Operator::Add);
    assert!(matches!(e.rhs, Operand::Expression(_)));

    let e = parse_expression(" ( a * 100 ) / b ").unwrap();
    assert_eq!(e.op, Operator::Div);
    assert_eq!(
        e.lhs,
        Operand::Expression(Box::new(Expression {
            lhs: Operand::Metric("a".into()),
            op: Operator::Mul,
            rhs: Operand::Uint64(100),
        }))
    );

    // Left associativity: a - b - c = (a - b) - c.
    let env = metrics(vec![
        ("a", regular(u(10))),
        ("b", regular(u(3))),
        ("c", regular(u(2))),
    ]);
    assert_eq!(eval("a - b - c", &env).stored, u(5));
    assert_eq!(eval("a - (b - c)", &env).stored, u(9));
    assert_eq!(eval("a + b * c", &env).stored, u(16));
    assert_eq!(eval("(a + b) * c", &env).stored, u(26));

    // 2025.3 stock expressions.
    let e = parse_expression(
        "100.0 * nan_as_zero(simplify(sass__inst_executed_register_spilling) / \
         (simplify(sass__inst_executed_local_loads) + simplify(sass__inst_executed_local_stores)))",
    )
    .unwrap();
    assert_eq!(e.lhs, Operand::Double(100.0));
    assert!(matches!(e.rhs, Operand::Call(Function::NanAsZero, _)));
    // A lone operand is `X * 1`.
    assert_eq!(
        parse_expression("simplify(sass__inst_executed_register_spilling)").unwrap(),
        Expression {
            lhs: Operand::Call(
                Function::Simplify,
                Box::new(Operand::Metric(
                    "sass__inst_executed_register_spilling".into()
                ))
            ),
            op: Operator::Mul,
            rhs: Operand::Uint64(1),
        }
    );
}

#[test]
fn simplify_and_nan_as_zero() {
    let env = metrics(vec![
        ("a", with_ids(u(30), &[(1, u(10)), (2, u(20))])),
        ("x", with_ids(d(f64::NAN), &[(1, d(f64::NAN)), (2, d(2.0))])),
        ("zero", regular(d(0.0))),
    ]);
    let r = eval("simplify(a)", &env);
    assert_eq!(r.stored, u(30));
    assert!(r.instances.is_empty());
    let r = eval("nan_as_zero(x) + 1", &env);
    assert_eq!(r.stored, d(4.0));
    assert_eq!(elements(&r), ids(&[(1, d(1.0)), (2, d(3.0))]));
    assert_eq!(eval("nan_as_zero(zero / zero)", &env).stored, d(0.0));
}

#[test]
fn parse_errors_name_the_character_position() {
    assert_eq!(parse_error_position(""), 1);
    assert_eq!(parse_error_position("   "), 4);
    assert_eq!(parse_error_position("a +"), 4);
    assert_eq!(parse_error_position("a b"), 3);
    assert_eq!(parse_error_position("a + * b"), 5);
    assert_eq!(parse_error_position("(a + b"), 7);
    assert_eq!(parse_error_position("a + b)"), 6);
    assert_eq!(parse_error_position("1.2.3 + a"), 4);
    assert_eq!(parse_error_position("2x + a"), 2);
    assert_eq!(parse_error_position("a # b"), 3);
    assert_eq!(parse_error_position("a % b"), 3);
    assert_eq!(parse_error_position("sqrt(a)"), 1);
    assert_eq!(parse_error_position("a + 99999999999999999999"), 5);
    assert_eq!(parse_error_position("é + ü"), 1);
    // Positions count characters, not bytes.
    assert_eq!(parse_error_position("(ä"), 2);
    assert_eq!(parse_error_position("a + (b ä"), 8);

    let message = parse_expression("a +").unwrap_err().to_string();
    assert!(message.contains("character 4"), "{message}");
    let message = parse_expression("sqrt(a)").unwrap_err().to_string();
    assert!(message.contains("unknown function `sqrt`"), "{message}");
}

#[test]
fn nesting_is_limited() {
    let deep = format!(
        "{}a{}",
        "(".repeat(MAX_DEPTH + 10),
        ")".repeat(MAX_DEPTH + 10)
    );
    assert!(parse_expression(&deep).is_err());
    let ok = format!("{}a{} + 1", "(".repeat(10), ")".repeat(10));
    assert!(parse_expression(&ok).is_ok());
}

#[test]
fn display_reads_back() {
    for text in [
        "a + b",
        "( launch__occupancy_per_register_count * 100 ) / device__attribute_max_warps_per_multiprocessor",
        "x * 5.",
        "x * 0.3109",
        "1 - 2 - 3",
        "1 - (2 - 3)",
        "100.0 * nan_as_zero(simplify(a) / (simplify(b) + simplify(c)))",
        "simplify(a)",
    ] {
        let e = parse_expression(text).unwrap();
        let again = parse_expression(&e.to_string()).unwrap();
        assert_eq!(e, again, "{text} -> {e}");
    }
    assert_eq!(
        parse_expression("x * 5.").unwrap().to_string(),
        "x * 5.".to_string()
    );
}

// ---------------------------------------------------------------------------------------------
// Evaluation plumbing

#[test]
fn missing_metric_is_reported_by_name() {
    let env = metrics(vec![("a", regular(u(1)))]);
    let expr = parse_expression("a + launch__occupancy_per_barrier_count").unwrap();
    assert_eq!(
        evaluate(&expr, |n| env.get(n).cloned()),
        Err(DerivedError::MissingMetric(
            "launch__occupancy_per_barrier_count".into()
        ))
    );
}

#[test]
fn derive_all_chains_definitions_in_order() {
    let env = metrics(vec![
        (
            "thread_inst_executed_true",
            with_ids(u(0), &[(1, u(64)), (2, u(56))]),
        ),
        ("inst_executed", with_ids(u(0), &[(1, u(2)), (2, u(2))])),
    ]);
    let definitions: Vec<(String, Expression)> = [
        (
            "derived__avg_thread_executed_true",
            "thread_inst_executed_true / inst_executed",
        ),
        (
            "derived__avg_thread_unexecuted_true",
            "32 - derived__avg_thread_executed_true",
        ),
        ("derived__missing", "nope * 2"),
        ("derived__uses_missing", "derived__missing + 1"),
    ]
    .iter()
    .map(|(n, e)| (n.to_string(), parse_expression(e).unwrap()))
    .collect();
    let results = derive_all(&definitions, |n| env.get(n).cloned());
    let names: Vec<&str> = results.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(
        names,
        [
            "derived__avg_thread_executed_true",
            "derived__avg_thread_unexecuted_true",
            "derived__missing",
            "derived__uses_missing"
        ]
    );
    let unexecuted = results[1].1.as_ref().unwrap();
    assert_eq!(elements(unexecuted), ids(&[(1, u(0)), (2, u(4))]));
    assert_eq!(unexecuted.stored, u(4));
    assert_eq!(
        results[2].1,
        Err(DerivedError::MissingMetric("nope".into()))
    );
    assert_eq!(
        results[3].1,
        Err(DerivedError::MissingMetric("derived__missing".into()))
    );

    // Legacy semantics for the same chain: regular values combine.
    let legacy = derive_all_with(&definitions, |n| env.get(n).cloned(), Semantics::Legacy);
    assert_eq!(legacy[1].1.as_ref().unwrap().stored, u(32));
}

#[test]
fn semantics_follow_the_tool_version() {
    for (version, expected) in [
        (
            "2020.3.1.0 (build 29471205) (public-release)",
            Semantics::Legacy,
        ),
        (
            "2022.1.1.0 (build 30914944) (public-release)",
            Semantics::Legacy,
        ),
        (
            "2022.3.0.0 (build 31729285) (public-release)",
            Semantics::Legacy,
        ),
        (
            "2023.1.0.0 (build 32398143) (public-release)",
            Semantics::Legacy,
        ),
        ("2023.2.0.0", Semantics::Legacy),
        (
            "2023.3.0.0 (build 33281558) (public-release)",
            Semantics::Current,
        ),
        ("2023.3.1.0", Semantics::Current),
        (
            "2024.1.1.0 (build 33998838) (public-release)",
            Semantics::Current,
        ),
        (
            "2025.1.0.0 (build 35237751) (public-release)",
            Semantics::Current,
        ),
        ("", Semantics::Current),
        ("garbage", Semantics::Current),
    ] {
        assert_eq!(Semantics::for_tool_version(version), expected, "{version}");
    }
}

mod corpus;
