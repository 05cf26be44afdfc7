//! Moving through a view: the hot spots of a column (rows by value, hottest first) and the rows
//! whose text matches a search. Both are computed when what they depend on changes, never per
//! frame.

use super::data::Row;

/// The rows with a value above zero in `column`, hottest first (ties by position).
pub fn hot_spots(rows: &[Row], column: usize) -> Vec<usize> {
    let mut hot: Vec<(usize, f64)> = rows
        .iter()
        .enumerate()
        .filter_map(|(i, r)| r.number(column).filter(|v| *v > 0.0).map(|v| (i, v)))
        .collect();
    hot.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    hot.into_iter().map(|(i, _)| i).collect()
}

/// The hot spot after (`forward`) or before the selected row in the ranking: from no selection
/// (or a row that is not a hot spot) forward goes to the hottest row, backward to the coolest.
pub fn step_hot_spot(ranking: &[usize], selected: Option<usize>, forward: bool) -> Option<usize> {
    let at = selected.and_then(|s| ranking.iter().position(|&r| r == s));
    let next = match (at, forward) {
        (None, true) => 0,
        (None, false) => ranking.len().checked_sub(1)?,
        (Some(i), true) => (i + 1).min(ranking.len().checked_sub(1)?),
        (Some(i), false) => i.saturating_sub(1),
    };
    ranking.get(next).copied()
}

/// The rows whose text or location contains `query` (ignoring case).
pub fn find(rows: &[Row], query: &str) -> Vec<usize> {
    let query = query.trim().to_lowercase();
    if query.is_empty() {
        return Vec::new();
    }
    rows.iter()
        .enumerate()
        .filter(|(_, r)| r.text.to_lowercase().contains(&query))
        .map(|(i, _)| i)
        .collect()
}

/// The first match after `selected` (wrapping around), or the first match.
pub fn next_match(matches: &[usize], selected: Option<usize>, forward: bool) -> Option<usize> {
    if matches.is_empty() {
        return None;
    }
    let Some(s) = selected else {
        return matches.first().copied();
    };
    if forward {
        matches
            .iter()
            .find(|&&m| m > s)
            .or(matches.first())
            .copied()
    } else {
        matches
            .iter()
            .rev()
            .find(|&&m| m < s)
            .or(matches.last())
            .copied()
    }
}

/// The rows of `to` whose instructions overlap those of `from_pcs` (the correlated rows).
pub fn correlated(to: &[Row], from_pcs: &[u32]) -> Vec<usize> {
    if from_pcs.is_empty() {
        return Vec::new();
    }
    let mut wanted = from_pcs.to_vec();
    wanted.sort_unstable();
    to.iter()
        .enumerate()
        .filter(|(_, r)| r.pcs.iter().any(|p| wanted.binary_search(p).is_ok()))
        .map(|(i, _)| i)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hot_spot_steps_go_from_hottest_to_coolest_and_back() {
        let ranking = [4, 1, 7];
        assert_eq!(step_hot_spot(&ranking, None, true), Some(4));
        assert_eq!(step_hot_spot(&ranking, Some(4), true), Some(1));
        assert_eq!(step_hot_spot(&ranking, Some(1), true), Some(7));
        assert_eq!(step_hot_spot(&ranking, Some(7), true), Some(7));
        assert_eq!(step_hot_spot(&ranking, Some(7), false), Some(1));
        assert_eq!(step_hot_spot(&ranking, Some(3), false), Some(7));
        assert_eq!(step_hot_spot(&[], None, true), None);
    }

    #[test]
    fn matches_wrap_around() {
        assert_eq!(next_match(&[2, 5], Some(5), true), Some(2));
        assert_eq!(next_match(&[2, 5], Some(2), false), Some(5));
        assert_eq!(next_match(&[2, 5], Some(3), true), Some(5));
        assert_eq!(next_match(&[], Some(3), true), None);
    }
}
