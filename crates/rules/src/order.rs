//! The order rules run in: each rule's parents (`get_parent_rules_identifiers`) and required
//! rules (`require_rules`) run before it, depth first; otherwise the order of the input (the
//! engine sorts rules by identifier first, which reproduces the order NVIDIA's reader lists
//! stored rule results in).
//! Cycles and unknown parents are reported, never followed.

use std::collections::HashMap;

/// A rule as the ordering sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RuleNode {
    /// Rule identifier.
    pub identifier: String,
    /// Rules that must run first.
    pub depends_on: Vec<String>,
}

/// A problem found while ordering.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OrderProblem {
    /// The rule concerned.
    pub rule: String,
    /// What is wrong.
    pub message: String,
}

/// The run order (indices into `nodes`) and the rules that cannot run. Rules in a dependency
/// cycle do not run and are reported; a dependency on a rule that is not loaded is ignored for
/// parents (the child runs and receives an empty dict, as in NVIDIA's engine).
pub fn run_order(nodes: &[RuleNode]) -> (Vec<usize>, Vec<OrderProblem>) {
    let index: HashMap<&str, usize> = nodes
        .iter()
        .enumerate()
        .map(|(i, n)| (n.identifier.as_str(), i))
        .collect();
    #[derive(Clone, Copy, PartialEq)]
    enum Mark {
        New,
        Visiting,
        Done,
        Cyclic,
    }
    let mut marks = vec![Mark::New; nodes.len()];
    let mut order = Vec::with_capacity(nodes.len());
    let mut problems = Vec::new();

    // Iterative depth-first search, parents first; a back edge marks the cycle's members.
    fn visit(
        i: usize,
        nodes: &[RuleNode],
        index: &HashMap<&str, usize>,
        marks: &mut [Mark],
        stack: &mut Vec<usize>,
        order: &mut Vec<usize>,
        problems: &mut Vec<OrderProblem>,
    ) -> bool {
        match marks[i] {
            Mark::Done => return true,
            Mark::Cyclic => return false,
            Mark::Visiting => {
                let start = stack.iter().position(|&s| s == i).unwrap_or(0);
                let cycle: Vec<&str> = stack[start..]
                    .iter()
                    .map(|&s| nodes[s].identifier.as_str())
                    .chain(std::iter::once(nodes[i].identifier.as_str()))
                    .collect();
                for &member in &stack[start..] {
                    if marks[member] != Mark::Cyclic {
                        marks[member] = Mark::Cyclic;
                        problems.push(OrderProblem {
                            rule: nodes[member].identifier.clone(),
                            message: format!(
                                "dependency cycle between rules: {}",
                                cycle.join(" -> ")
                            ),
                        });
                    }
                }
                return false;
            }
            Mark::New => {}
        }
        marks[i] = Mark::Visiting;
        stack.push(i);
        let mut ok = true;
        for dep in &nodes[i].depends_on {
            if let Some(&d) = index.get(dep.as_str())
                && !visit(d, nodes, index, marks, stack, order, problems)
            {
                ok = false;
            }
        }
        stack.pop();
        if marks[i] == Mark::Cyclic {
            return false;
        }
        if !ok {
            marks[i] = Mark::Cyclic;
            problems.push(OrderProblem {
                rule: nodes[i].identifier.clone(),
                message: "not run: it depends on rules in a dependency cycle".into(),
            });
            return false;
        }
        marks[i] = Mark::Done;
        order.push(i);
        true
    }

    let mut stack = Vec::new();
    for i in 0..nodes.len() {
        visit(
            i,
            nodes,
            &index,
            &mut marks,
            &mut stack,
            &mut order,
            &mut problems,
        );
    }
    (order, problems)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn node(id: &str, deps: &[&str]) -> RuleNode {
        RuleNode {
            identifier: id.into(),
            depends_on: deps.iter().map(|d| (*d).to_owned()).collect(),
        }
    }

    #[test]
    fn parents_first_otherwise_load_order() {
        let nodes = [
            node("Child", &["Parent"]),
            node("Free", &[]),
            node("Parent", &["Root"]),
            node("Root", &[]),
        ];
        let (order, problems) = run_order(&nodes);
        let ids: Vec<&str> = order
            .iter()
            .map(|&i| nodes[i].identifier.as_str())
            .collect();
        assert_eq!(ids, ["Root", "Parent", "Child", "Free"]);
        assert!(problems.is_empty());
    }

    #[test]
    fn cycles_are_reported_and_not_run() {
        let nodes = [
            node("A", &["B"]),
            node("B", &["A"]),
            node("C", &["A"]),
            node("D", &["Missing"]),
        ];
        let (order, problems) = run_order(&nodes);
        let ids: Vec<&str> = order
            .iter()
            .map(|&i| nodes[i].identifier.as_str())
            .collect();
        assert_eq!(ids, ["D"]);
        let rules: Vec<&str> = problems.iter().map(|p| p.rule.as_str()).collect();
        assert!(rules.contains(&"A") && rules.contains(&"B") && rules.contains(&"C"));
        assert!(problems[0].message.contains("cycle"));
    }
}
