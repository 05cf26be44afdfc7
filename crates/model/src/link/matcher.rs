//! The matching itself: plain records in, [`Links`] out (see the module list in `mod.rs`).

use std::collections::{BTreeSet, HashMap, HashSet};
use std::sync::Arc;

use super::{
    Candidate, Certainty, Criterion, LaunchFilter, Links, ProfiledKernel, ResultLink,
    TimelineKernel, normalize_demangled, program_of,
};

/// The most candidates a result keeps (the best); the others are only counted.
pub const MAX_CANDIDATES: usize = 50;

/// Grid and block sizes, as a key (unknown on the timeline: `None`).
type Sizes = (Option<[u64; 3]>, Option<[u64; 3]>);

/// The timeline's kernels indexed by their names with their sizes, and by process.
struct Index<'a> {
    kernels: &'a [TimelineKernel],
    /// Each kernel's demangled signature, normalised (one string per distinct signature).
    normalized: Vec<Option<Arc<str>>>,
    by_mangled: HashMap<(&'a str, Sizes), Vec<usize>>,
    by_demangled: HashMap<(Arc<str>, Sizes), Vec<usize>>,
    by_function: HashMap<(&'a str, Sizes), Vec<usize>>,
    /// Kernel indices of each process, by start.
    by_process: HashMap<Option<u64>, Vec<usize>>,
    /// Per process, the kernels the run's filter could have profiled (`None`: not replayable).
    eligible: HashMap<Option<u64>, Option<HashSet<usize>>>,
}

impl<'a> Index<'a> {
    fn new(kernels: &'a [TimelineKernel], filter: &LaunchFilter) -> Index<'a> {
        let mut index = Index {
            kernels,
            normalized: vec![None; kernels.len()],
            by_mangled: HashMap::new(),
            by_demangled: HashMap::new(),
            by_function: HashMap::new(),
            by_process: HashMap::new(),
            eligible: HashMap::new(),
        };
        let mut norms: HashMap<&str, Arc<str>> = HashMap::new();
        let mut order: Vec<usize> = (0..kernels.len()).collect();
        order.sort_by_key(|&i| (kernels[i].start, kernels[i].event.0));
        for i in order {
            let k = &kernels[i];
            let sizes = (k.grid, k.block);
            if let Some(m) = &k.mangled {
                index
                    .by_mangled
                    .entry((m.as_ref(), sizes))
                    .or_default()
                    .push(i);
            }
            if let Some(d) = &k.demangled {
                let norm = norms
                    .entry(d.as_ref())
                    .or_insert_with(|| Arc::from(normalize_demangled(d)))
                    .clone();
                index.normalized[i] = Some(norm.clone());
                index.by_demangled.entry((norm, sizes)).or_default().push(i);
            }
            if let Some(f) = &k.function {
                index
                    .by_function
                    .entry((f.as_ref(), sizes))
                    .or_default()
                    .push(i);
            }
            index.by_process.entry(k.pid).or_default().push(i);
        }
        // Back from a record to its index: records are unique by event.
        let by_event: HashMap<_, usize> = kernels
            .iter()
            .enumerate()
            .map(|(i, k)| (k.event, i))
            .collect();
        for (pid, list) in &index.by_process {
            let launches: Vec<&TimelineKernel> = list.iter().map(|&i| &kernels[i]).collect();
            let eligible = filter.eligible(&launches).map(|e| {
                e.iter()
                    .filter_map(|k| by_event.get(&k.event).copied())
                    .collect()
            });
            index.eligible.insert(*pid, eligible);
        }
        index
    }

    /// Kernels whose name can be the result's and whose sizes do not differ from its, with the
    /// name criterion that held.
    fn by_name(&self, p: &ProfiledKernel) -> Vec<(usize, Criterion)> {
        let normalized: Arc<str> = Arc::from(normalize_demangled(&p.demangled));
        let mut seen = BTreeSet::new();
        let mut add = |list: Option<&Vec<usize>>| seen.extend(list.into_iter().flatten().copied());
        if p.grid.is_some() && p.block.is_some() {
            for sizes in [(p.grid, p.block), (None, None)] {
                add(self.by_mangled.get(&(p.mangled.as_str(), sizes)));
                add(self.by_demangled.get(&(normalized.clone(), sizes)));
                add(self.by_function.get(&(p.function.as_str(), sizes)));
            }
        } else {
            // Sizes unknown in the report: any launch of the name.
            for (key, list) in &self.by_mangled {
                if key.0 == p.mangled {
                    add(Some(list));
                }
            }
            for (key, list) in &self.by_demangled {
                if key.0 == normalized {
                    add(Some(list));
                }
            }
            for (key, list) in &self.by_function {
                if key.0 == p.function {
                    add(Some(list));
                }
            }
        }
        seen.into_iter()
            .filter_map(|i| self.name_match(i, p, &normalized).map(|c| (i, c)))
            .collect()
    }

    /// The name criterion under which kernel `i` can be `p` (`normalized`: its demangled
    /// signature normalised): mangled names when both have one, else demangled signatures,
    /// else function names.
    fn name_match(&self, i: usize, p: &ProfiledKernel, normalized: &str) -> Option<Criterion> {
        let k = &self.kernels[i];
        if let Some(m) = k.mangled.as_deref()
            && !p.mangled.is_empty()
        {
            return (m == p.mangled).then_some(Criterion::MangledName);
        }
        if let Some(d) = self.normalized[i].as_deref()
            && !p.demangled.is_empty()
        {
            return (d == normalized).then_some(Criterion::DemangledName);
        }
        (k.function.as_deref() == Some(p.function.as_str()) && !p.function.is_empty())
            .then_some(Criterion::FunctionName)
    }
}

/// What makes results launches of the same kernel in the same process: pid, name (mangled,
/// else normalised demangled, else function), grid and block.
type KernelKey = (Option<u64>, String, Option<[u64; 3]>, Option<[u64; 3]>);

fn kernel_key(p: &ProfiledKernel) -> KernelKey {
    let name = if !p.mangled.is_empty() {
        format!("m {}", p.mangled)
    } else if !p.demangled.is_empty() {
        format!("d {}", normalize_demangled(&p.demangled))
    } else {
        format!("f {}", p.function)
    };
    (p.pid, name, p.grid, p.block)
}

/// Equal sizes, or unknown on a side.
fn sizes_agree(a: Option<[u64; 3]>, b: Option<[u64; 3]>) -> Option<bool> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a == b),
        _ => None,
    }
}

fn sorted(names: &[String]) -> Vec<&str> {
    let mut v: Vec<&str> = names.iter().map(String::as_str).collect();
    v.sort_unstable();
    v
}

/// Matches every result of `profiled` with the kernels of `kernels` (see the module's list of
/// criteria). `filter` is what the report's command line says was profiled.
pub fn match_kernels(
    kernels: &[TimelineKernel],
    profiled: &[ProfiledKernel],
    filter: &LaunchFilter,
) -> Links {
    let index = Index::new(kernels, filter);
    // Results of the same kernel in the same process share their candidates and are told
    // apart by launch order: each group is prepared once.
    let mut groups: HashMap<KernelKey, Vec<usize>> = HashMap::new();
    let mut order = Vec::new();
    for (i, p) in profiled.iter().enumerate() {
        let list = groups.entry(kernel_key(p)).or_default();
        if list.is_empty() {
            order.push(i);
        }
        list.push(i);
    }
    let mut results: Vec<Option<ResultLink>> = vec![None; profiled.len()];
    for first in order {
        let Some(members) = groups.get(&kernel_key(&profiled[first])) else {
            continue;
        };
        let group = Group::new(&index, &profiled[first]);
        for (j, &i) in members.iter().enumerate() {
            results[i] = Some(group.match_one(&profiled[i], j, members.len()));
        }
    }
    Links {
        results: results.into_iter().flatten().collect(),
        filter: filter.clone(),
    }
}

/// Timeline kernels (indices) with the criteria that held for them.
type Launches = Vec<(usize, Vec<Criterion>)>;

/// The timeline kernels a group of results (one kernel in one process) can be, per process
/// in launch order, with the criteria that held.
struct Group<'a> {
    kernels: &'a [TimelineKernel],
    same_run: bool,
    /// Per process: the named kernels by start, and the positions among them the run's
    /// filter could have profiled (`None`: not replayable).
    processes: Vec<(Launches, Option<Vec<usize>>)>,
}

impl<'a> Group<'a> {
    fn new(index: &Index<'a>, p: &ProfiledKernel) -> Group<'a> {
        let kernels = index.kernels;
        let program = p.process.as_deref().map(program_of);
        let same_program = |k: &TimelineKernel| match (program, k.process.as_deref()) {
            (Some(a), Some(b)) => Some(a == program_of(b)),
            _ => None,
        };
        // 1. Process: the same run, else the same program, else any process.
        let same_run = p.pid.is_some()
            && index
                .by_process
                .get(&p.pid)
                .and_then(|l| l.first())
                .is_some_and(|&i| same_program(&kernels[i]) != Some(false));
        let process_ok = |k: &TimelineKernel| -> Option<Option<Criterion>> {
            if same_run {
                return (k.pid == p.pid).then_some(Some(Criterion::SameRun));
            }
            match same_program(k) {
                Some(true) => Some(Some(Criterion::SameProgram)),
                Some(false) => None,
                None => Some(None),
            }
        };
        // 2, 3. Name, grid and block.
        let mut by_process: HashMap<Option<u64>, Launches> = HashMap::new();
        for (i, name) in index.by_name(p) {
            let k = &kernels[i];
            let Some(process) = process_ok(k) else {
                continue;
            };
            let grid = sizes_agree(k.grid, p.grid);
            let block = sizes_agree(k.block, p.block);
            if grid == Some(false) || block == Some(false) {
                continue;
            }
            let mut held: Vec<Criterion> = process.into_iter().collect();
            held.push(name);
            if grid == Some(true) && block == Some(true) {
                held.push(Criterion::GridBlock);
            }
            by_process.entry(k.pid).or_default().push((i, held));
        }
        let mut processes: Vec<_> = by_process
            .into_iter()
            .map(|(pid, mut launches)| {
                launches.sort_by_key(|(i, _)| (kernels[*i].start, kernels[*i].event.0));
                let eligible = index
                    .eligible
                    .get(&pid)
                    .and_then(Option::as_ref)
                    .map(|set| {
                        launches
                            .iter()
                            .enumerate()
                            .filter(|(_, (i, _))| set.contains(i))
                            .map(|(nth, _)| nth)
                            .collect()
                    });
                (launches, eligible)
            })
            .collect();
        processes.sort_by_key(|(launches, _)| launches.first().map(|(i, _)| kernels[*i].pid));
        Group {
            kernels,
            same_run,
            processes,
        }
    }

    /// The match of `p`, the `j`-th of the group's `m` results.
    fn match_one(&self, p: &ProfiledKernel, j: usize, m: usize) -> ResultLink {
        let kernels = self.kernels;
        // 5. Launch order, per process: the result is the j-th of m profiled launches of this
        // kernel in its process.
        let mut left: Launches = Vec::new();
        for (launches, eligible) in &self.processes {
            let n = launches.len();
            let feasible: Vec<usize> = match eligible {
                Some(places) => places.get(j).copied().into_iter().collect(),
                None if m <= n => (j..=j + (n - m)).collect(),
                None => Vec::new(),
            };
            for &nth in &feasible {
                let (i, mut held) = launches[nth].clone();
                if feasible.len() == 1 {
                    held.push(Criterion::LaunchOrder(nth + 1));
                }
                left.push((i, held));
            }
        }
        // No place in launch order fits (the runs differ): every named launch stays possible.
        if left.is_empty() {
            left = self.processes.iter().flat_map(|(l, _)| l.clone()).collect();
        }
        // 4. Stream (the same run only) narrows what launch order left.
        if self.same_run {
            for (i, held) in &mut left {
                if p.stream.is_some_and(|s| i64::from(s) == kernels[*i].stream) {
                    held.push(Criterion::Stream);
                }
            }
            if left.len() > 1 && left.iter().any(|(_, h)| h.contains(&Criterion::Stream)) {
                left.retain(|(_, h)| h.contains(&Criterion::Stream));
            }
        }
        // 6. NVTX: the ranges open at the launch break a tie when exactly one agrees.
        let wanted = sorted(&p.nvtx);
        if !p.nvtx.is_empty() {
            for (i, held) in &mut left {
                if sorted(&kernels[*i].nvtx) == wanted {
                    held.push(Criterion::Nvtx);
                }
            }
            let agree: Vec<usize> = left
                .iter()
                .enumerate()
                .filter(|(_, (_, h))| h.contains(&Criterion::Nvtx))
                .map(|(pos, _)| pos)
                .collect();
            if left.len() > 1 && agree.len() == 1 {
                let keep = left.swap_remove(agree[0]);
                left = vec![keep];
            }
        }
        let mut candidates: Vec<Candidate> = left
            .into_iter()
            .map(|(i, held)| Candidate {
                kernel: i,
                event: kernels[i].event,
                score: held.iter().map(|c| c.weight()).sum(),
                held,
            })
            .collect();
        candidates.sort_by_key(|c| {
            (
                std::cmp::Reverse(c.score),
                kernels[c.kernel].start,
                c.event.0,
            )
        });
        let certainty = match candidates.len() {
            0 => Certainty::Unmatched,
            1 => Certainty::Certain,
            _ => Certainty::Candidates,
        };
        let more = candidates.len().saturating_sub(MAX_CANDIDATES);
        candidates.truncate(MAX_CANDIDATES);
        ResultLink {
            result: p.index,
            certainty,
            candidates,
            more,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::timeline::model::EventId;

    fn launch(i: u32) -> TimelineKernel {
        TimelineKernel {
            event: EventId(i),
            start: i64::from(i) * 100,
            pid: Some(1),
            process: Some(Arc::from("app")),
            device: 0,
            context: 1,
            stream: 7,
            grid: Some([1, 1, 1]),
            block: Some([32, 1, 1]),
            mangled: None,
            demangled: Some(Arc::from("k(int)")),
            function: Some(Arc::from("k")),
            nvtx: Vec::new(),
        }
    }

    #[test]
    fn many_candidates_are_counted_not_kept() {
        let kernels: Vec<TimelineKernel> = (0..60).map(launch).collect();
        let result = ProfiledKernel {
            index: 0,
            pid: Some(2),
            process: Some("/bin/app".into()),
            function: "k".into(),
            demangled: "k(int)".into(),
            grid: Some([1, 1, 1]),
            block: Some([32, 1, 1]),
            ..ProfiledKernel::default()
        };
        let links = match_kernels(&kernels, &[result], &LaunchFilter::default());
        let link = &links.results[0];
        assert_eq!(link.certainty, Certainty::Candidates);
        assert_eq!(link.candidates.len(), MAX_CANDIDATES);
        assert_eq!(link.more, 10);
        // Another program's kernels are never candidates.
        let mut other = kernels.clone();
        for k in &mut other {
            k.process = Some(Arc::from("other"));
        }
        let links = match_kernels(
            &other,
            &[ProfiledKernel {
                process: Some("/bin/app".into()),
                ..links_result()
            }],
            &LaunchFilter::default(),
        );
        assert_eq!(links.results[0].certainty, Certainty::Unmatched);
    }

    fn links_result() -> ProfiledKernel {
        ProfiledKernel {
            function: "k".into(),
            demangled: "k(int)".into(),
            grid: Some([1, 1, 1]),
            block: Some([32, 1, 1]),
            ..ProfiledKernel::default()
        }
    }
}
