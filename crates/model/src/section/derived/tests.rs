//! Unit tests of the derived-metric evaluator.

use super::*;

fn id(v: u64) -> Option<MetricValue> {
    Some(MetricValue::Uint64(v))
}

#[test]
fn ids_order_numerically_then_strings_then_missing() {
    let mut ids = vec![
        None,
        Some(MetricValue::String("b".into())),
        id(10),
        Some(MetricValue::Double(2.5)),
        Some(MetricValue::Uint32(2)),
        Some(MetricValue::String("a".into())),
    ];
    ids.sort_by(cmp_ids);
    assert_eq!(
        ids,
        vec![
            Some(MetricValue::Uint32(2)),
            Some(MetricValue::Double(2.5)),
            id(10),
            Some(MetricValue::String("a".into())),
            Some(MetricValue::String("b".into())),
            None,
        ]
    );
}

#[test]
fn apply_converts_rhs_to_lhs_kind() {
    assert_eq!(
        apply(
            &MetricValue::Uint32(7),
            Operator::Mul,
            &MetricValue::Double(2.9)
        ),
        MetricValue::Uint32(14)
    );
    assert_eq!(
        apply(
            &MetricValue::Float(1.5),
            Operator::Add,
            &MetricValue::Uint64(2)
        ),
        MetricValue::Float(3.5)
    );
    assert_eq!(
        apply(
            &MetricValue::Uint32(1),
            Operator::Sub,
            &MetricValue::Uint64(2)
        ),
        MetricValue::Uint32(u32::MAX)
    );
    assert_eq!(
        apply(
            &MetricValue::Uint32(9),
            Operator::Div,
            &MetricValue::Uint32(0)
        ),
        MetricValue::Uint32(9)
    );
    assert_eq!(
        apply(
            &MetricValue::Uint64(9),
            Operator::Div,
            &MetricValue::Double(0.5)
        ),
        MetricValue::Uint64(9)
    );
}

#[test]
fn sum_wraps_and_converts() {
    let instances = [
        Instance {
            correlation_id: id(0),
            value: MetricValue::Uint64(u64::MAX),
        },
        Instance {
            correlation_id: id(1),
            value: MetricValue::Uint64(2),
        },
    ];
    assert_eq!(sum(&instances, ValueKind::Uint64), MetricValue::Uint64(1));
    assert_eq!(
        sum(&instances[1..], ValueKind::Double),
        MetricValue::Double(2.0)
    );
}

#[test]
fn deep_nesting_is_an_error_not_a_stack_overflow() {
    let deep = format!("{}a{}", "(".repeat(10_000), ")".repeat(10_000));
    assert!(matches!(
        parse_expression(&deep),
        Err(DerivedError::Parse { .. })
    ));
    let chain = vec!["a"; 10_000].join(" + ");
    assert!(matches!(
        parse_expression(&chain),
        Err(DerivedError::Parse { .. })
    ));
    let ok = vec!["a"; MAX_DEPTH].join(" + ");
    assert!(parse_expression(&ok).is_ok());
}

/// A metric with only a regular value.
fn plain(value: MetricValue) -> Metric {
    Metric {
        name_id: 0,
        stored: value,
        instances: Vec::new(),
        category: 0,
    }
}

#[test]
fn an_lhs_without_elements_drives_the_legacy_result() {
    // Rule 5 as each version stores it: 2023.1 keeps no elements, 2023.3 on one per RHS id.
    let lhs = plain(MetricValue::Uint64(0));
    let mut rhs = plain(MetricValue::Uint64(30));
    rhs.instances = (0..3)
        .map(|i| Instance {
            correlation_id: id(100 + i),
            value: MetricValue::Uint64(10),
        })
        .collect();
    let legacy = combine(&lhs, Operator::Div, &rhs, Semantics::Legacy);
    assert_eq!(legacy.value(), MetricValue::Uint64(0));
    assert!(legacy.instances.is_empty());
    let current = combine(&lhs, Operator::Div, &rhs, Semantics::Current);
    assert_eq!(current.instances.len(), 3);
    assert_eq!(current.instances[2].correlation_id, id(102));
}
