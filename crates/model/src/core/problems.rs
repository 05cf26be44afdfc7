//! One capped problems list: a reader keeps the first problems it meets, up to a cap, and
//! counts the rest as dropped (so a damaged file of a million bad lines does not make a
//! million messages). Every reader that caps its warnings (ATP traces, CodeXL tables,
//! Gainsight logs and kernels) uses it, with one word for what it did not keep: dropped.

use crate::problem::Problem;

/// The first `cap` problems pushed, and how many more were dropped. Usually of [`Problem`];
/// readers that locate their problems later (a byte offset turned into a line once the file
/// is read) keep their own shape until then.
#[derive(Debug, Clone, PartialEq)]
pub struct CappedProblems<T = Problem> {
    kept: Vec<T>,
    cap: usize,
    dropped: u64,
}

impl<T> CappedProblems<T> {
    /// An empty list keeping at most `cap` problems.
    pub fn new(cap: usize) -> Self {
        CappedProblems {
            kept: Vec::new(),
            cap,
            dropped: 0,
        }
    }

    /// Keeps `problem` if the list is not full, or counts it as dropped; whether it was kept.
    pub fn push(&mut self, problem: T) -> bool {
        if self.kept.len() < self.cap {
            self.kept.push(problem);
            true
        } else {
            self.dropped += 1;
            false
        }
    }

    /// The problems kept, in the order they were pushed.
    pub fn kept(&self) -> &[T] {
        &self.kept
    }

    /// How many problems were pushed after the list was full.
    pub fn dropped(&self) -> u64 {
        self.dropped
    }

    /// The problems kept and the count dropped.
    pub fn into_parts(self) -> (Vec<T>, u64) {
        (self.kept, self.dropped)
    }
}

#[cfg(test)]
mod tests {
    use super::CappedProblems;
    use crate::problem::{Location, Problem};

    #[test]
    fn keeps_the_first_up_to_the_cap_and_counts_the_rest() {
        let mut list = CappedProblems::new(2);
        for line in 1..=5 {
            list.push(Problem::warning(
                Location::line(line),
                format!("bad {line}"),
            ));
        }
        assert_eq!(list.kept().len(), 2);
        assert_eq!(list.kept()[1].message, "bad 2");
        assert_eq!(list.dropped(), 3);
        let (kept, dropped) = list.into_parts();
        assert_eq!((kept.len(), dropped), (2, 3));
    }

    #[test]
    fn a_zero_cap_keeps_nothing() {
        let mut list: CappedProblems<(u64, String)> = CappedProblems::new(0);
        assert!(!list.push((7, "x".into())));
        assert_eq!((list.kept().len(), list.dropped()), (0, 1));
    }
}
