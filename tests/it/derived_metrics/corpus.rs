//! Corpus: every stored derived metric is reproduced exactly.

use super::*;

// ---------------------------------------------------------------------------------------------
// Corpus: every stored derived metric is reproduced exactly

fn corpus_reports() -> Option<Vec<PathBuf>> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus/ncu/reports");
    let Ok(entries) = std::fs::read_dir(&dir) else {
        crate::common::skip_shared(format!("{} not found", dir.display()));
        return None;
    };
    let mut reports: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.extension()
                .is_some_and(|e| e == "ncu-rep" || e == "ncu-repz")
        })
        .collect();
    reports.sort();
    Some(reports)
}

/// Exact equality of two values (floating-point values bit for bit).
fn same_value(a: &MetricValue, b: &MetricValue) -> bool {
    match (a, b) {
        (MetricValue::Double(x), MetricValue::Double(y)) => x.to_bits() == y.to_bits(),
        (MetricValue::Float(x), MetricValue::Float(y)) => x.to_bits() == y.to_bits(),
        _ => a == b,
    }
}

/// The first difference between a computed and a stored metric (kind, value, instances,
/// correlation ids), if any.
fn difference(ours: &Metric, stored: &Metric) -> Option<String> {
    if ours.kind() != stored.kind() {
        return Some(format!(
            "kind {:?} vs stored {:?}",
            ours.kind(),
            stored.kind()
        ));
    }
    if !same_value(&ours.value(), &stored.value()) {
        return Some(format!(
            "value {:?} vs stored {:?}",
            ours.value(),
            stored.value()
        ));
    }
    if ours.instances.len() != stored.instances.len() {
        return Some(format!(
            "{} instances vs stored {}",
            ours.instances.len(),
            stored.instances.len()
        ));
    }
    for (k, (x, y)) in ours.instances.iter().zip(&stored.instances).enumerate() {
        let ids_equal = match (&x.correlation_id, &y.correlation_id) {
            (Some(a), Some(b)) => same_value(a, b),
            (None, None) => true,
            _ => false,
        };
        if !ids_equal || !same_value(&x.value, &y.value) {
            return Some(format!("instance {k}: {x:?} vs stored {y:?}"));
        }
    }
    None
}

/// The derived metric `name` as Nsight Compute stored it: `None` when it stored none, or an
/// empty metric (no value, no instances: 2023.3 stores `derived__avg_thread_executed` so, kind
/// UNKNOWN, on an H800 kernel without `thread_inst_executed`), i.e. when it computed nothing.
fn stored_result<'a>(action: &'a sightline::ncu::Action, name: &str) -> Option<&'a Metric> {
    action
        .metric(name)
        .filter(|m| !(m.stored == MetricValue::None && m.instances.is_empty()))
}

#[test]
fn corpus_stored_derived_metrics_are_reproduced_exactly() {
    let Some(reports) = corpus_reports() else {
        return;
    };
    let mut total = 0;
    let mut other_semantics_differ = 0;
    for path in &reports {
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let report = Report::open(path).unwrap_or_else(|e| panic!("{name}: {e}"));
        let semantics = Semantics::for_report(&report);
        let other = match semantics {
            Semantics::Legacy => Semantics::Current,
            Semantics::Current => Semantics::Legacy,
        };
        let (mut checked, mut instances, mut absent, mut differ) = (0, 0, 0, 0);
        for index in 0..report.num_actions() {
            let action = report
                .action(index)
                .unwrap_or_else(|e| panic!("{name} #{index}: {e}"));
            let sections = action
                .sections()
                .unwrap_or_else(|e| panic!("{name} #{index}: {e}"));
            let definitions = section_definitions(&sections);
            let mut parsed = Vec::new();
            for (derived, expression) in definitions {
                let expression =
                    expression.unwrap_or_else(|e| panic!("{name} #{index} {derived}: {e}"));
                let lookup = |n: &str| action.metric(n).cloned();
                let result = evaluate_with(&expression, lookup, semantics);
                match stored_result(&action, &derived) {
                    Some(stored) => {
                        let ours = result.unwrap_or_else(|e| {
                            panic!("{name} #{index} {derived} = {expression}: {e}")
                        });
                        if let Some(diff) = difference(&ours, stored) {
                            panic!("{name} #{index} {derived} = {expression}: {diff}");
                        }
                        checked += 1;
                        instances += stored.instances.len();
                        let theirs = evaluate_with(&expression, lookup, other)
                            .unwrap_or_else(|e| panic!("{name} #{index} {derived}: {e}"));
                        if difference(&theirs, stored).is_some() {
                            differ += 1;
                        }
                    }
                    None => {
                        // Not stored: NVIDIA did not compute it because an input is missing.
                        assert!(
                            matches!(result, Err(DerivedError::MissingMetric(_))),
                            "{name} #{index} {derived} = {expression}: not stored, but {result:?}"
                        );
                        absent += 1;
                    }
                }
                parsed.push((derived, expression));
            }
            // derive_all on the inputs alone (stored derived metrics hidden) gives the same.
            let derived_names: Vec<&str> = parsed.iter().map(|(n, _)| n.as_str()).collect();
            let base = |n: &str| {
                if derived_names.contains(&n) {
                    None
                } else {
                    action.metric(n).cloned()
                }
            };
            for (derived, result) in derive_all_with(&parsed, base, semantics) {
                match (stored_result(&action, &derived), result) {
                    (Some(stored), Ok(ours)) => {
                        assert_eq!(difference(&ours, stored), None, "{name} #{index} {derived}")
                    }
                    (None, Err(_)) => {}
                    (stored, result) => panic!(
                        "{name} #{index} {derived}: stored {stored:?}, derive_all {result:?}"
                    ),
                }
            }
        }
        eprintln!(
            "{name}: {semantics:?}: {checked} stored derived metric(s) reproduced exactly \
             ({instances} instance values), {absent} definition(s) without a stored result \
             (missing input), {differ} would differ under {other:?}"
        );
        total += checked;
        other_semantics_differ += differ;
    }
    if !reports.is_empty() {
        assert!(total > 0, "the corpus holds no stored derived metrics");
        assert!(
            other_semantics_differ > 0,
            "the version semantics should matter for some stored metric"
        );
    }
    eprintln!("total: {total} stored derived metrics reproduced exactly");
}
