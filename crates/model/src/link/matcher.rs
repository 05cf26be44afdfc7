//! The matching itself: plain records in, [`Links`] out (see the module list in `mod.rs`).

use std::collections::{BTreeSet, HashMap, HashSet};

use super::{
    Candidate, Certainty, Criterion, LaunchFilter, Links, ProfiledKernel, ResultLink,
    TimelineKernel, normalize_demangled, program_of,
};

/// The timeline's kernels indexed by their names, and by process.
struct Index<'a> {
    kernels: &'a [TimelineKernel],
    by_mangled: HashMap<&'a str, Vec<usize>>,
    by_demangled: HashMap<String, Vec<usize>>,
    by_function: HashMap<&'a str, Vec<usize>>,
    /// Kernel indices of each process, by start.
    by_process: HashMap<Option<u64>, Vec<usize>>,
    /// Per process, the kernels the run's filter could have profiled (`None`: not replayable).
    eligible: HashMap<Option<u64>, Option<HashSet<usize>>>,
}

impl<'a> Index<'a> {
    fn new(kernels: &'a [TimelineKernel], filter: &LaunchFilter) -> Index<'a> {
        let mut index = Index {
            kernels,
            by_mangled: HashMap::new(),
            by_demangled: HashMap::new(),
            by_function: HashMap::new(),
            by_process: HashMap::new(),
            eligible: HashMap::new(),
        };
        let mut order: Vec<usize> = (0..kernels.len()).collect();
        order.sort_by_key(|&i| (kernels[i].start, kernels[i].event.0));
        for i in order {
            let k = &kernels[i];
            if let Some(m) = &k.mangled {
                index.by_mangled.entry(m.as_ref()).or_default().push(i);
            }
            if let Some(d) = &k.demangled {
                index
                    .by_demangled
                    .entry(normalize_demangled(d))
                    .or_default()
                    .push(i);
            }
            if let Some(f) = &k.function {
                index.by_function.entry(f.as_ref()).or_default().push(i);
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

    /// Kernels whose name can be the result's, with the name criterion that held.
    fn by_name(&self, p: &ProfiledKernel) -> Vec<(usize, Criterion)> {
        let mut seen = BTreeSet::new();
        let lists = [
            self.by_mangled.get(p.mangled.as_str()),
            self.by_demangled.get(&normalize_demangled(&p.demangled)),
            self.by_function.get(p.function.as_str()),
        ];
        for list in lists.into_iter().flatten() {
            seen.extend(list.iter().copied());
        }
        seen.into_iter()
            .filter_map(|i| name_match(&self.kernels[i], p).map(|c| (i, c)))
            .collect()
    }
}

/// The name criterion under which `k` can be `p`: mangled names when both have one, else
/// demangled signatures, else function names.
fn name_match(k: &TimelineKernel, p: &ProfiledKernel) -> Option<Criterion> {
    if let Some(m) = k.mangled.as_deref()
        && !p.mangled.is_empty()
    {
        return (m == p.mangled).then_some(Criterion::MangledName);
    }
    if let Some(d) = k.demangled.as_deref()
        && !p.demangled.is_empty()
    {
        return (normalize_demangled(d) == normalize_demangled(&p.demangled))
            .then_some(Criterion::DemangledName);
    }
    (k.function.as_deref() == Some(p.function.as_str()) && !p.function.is_empty())
        .then_some(Criterion::FunctionName)
}

/// Whether two results are launches of the same kernel (names, grid and block).
fn same_kernel(a: &ProfiledKernel, b: &ProfiledKernel) -> bool {
    let names = if !a.mangled.is_empty() && !b.mangled.is_empty() {
        a.mangled == b.mangled
    } else if !a.demangled.is_empty() && !b.demangled.is_empty() {
        normalize_demangled(&a.demangled) == normalize_demangled(&b.demangled)
    } else {
        a.function == b.function
    };
    names && a.grid == b.grid && a.block == b.block && a.pid == b.pid
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
    let results = profiled
        .iter()
        .map(|p| match_one(&index, profiled, p))
        .collect();
    Links {
        results,
        filter: filter.clone(),
    }
}

fn match_one(index: &Index<'_>, profiled: &[ProfiledKernel], p: &ProfiledKernel) -> ResultLink {
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
    let mut base: Vec<(usize, Vec<Criterion>)> = Vec::new();
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
        if same_run && p.stream.is_some_and(|s| i64::from(s) == k.stream) {
            held.push(Criterion::Stream);
        }
        base.push((i, held));
    }
    // 5. Launch order, per process: the result is the j-th of m profiled launches of this
    // kernel in its process.
    let peers: Vec<&ProfiledKernel> = profiled.iter().filter(|q| same_kernel(p, q)).collect();
    let j = peers
        .iter()
        .position(|q| q.index == p.index)
        .unwrap_or_default();
    let m = peers.len();
    let mut by_process: HashMap<Option<u64>, Vec<usize>> = HashMap::new();
    for (pos, (i, _)) in base.iter().enumerate() {
        by_process.entry(kernels[*i].pid).or_default().push(pos);
    }
    let mut ordered: Vec<(usize, Vec<Criterion>)> = Vec::new();
    for (pid, mut positions) in by_process {
        positions.sort_by_key(|&pos| (kernels[base[pos].0].start, kernels[base[pos].0].event.0));
        let n = positions.len();
        let eligible = index.eligible.get(&pid).and_then(Option::as_ref);
        let feasible: Vec<usize> = match eligible {
            Some(set) => positions
                .iter()
                .enumerate()
                .filter(|(_, pos)| set.contains(&base[**pos].0))
                .map(|(nth, _)| nth)
                .nth(j)
                .into_iter()
                .collect(),
            None if m <= n => (j..=j + (n - m)).collect(),
            None => Vec::new(),
        };
        for nth in &feasible {
            let (i, mut held) = base[positions[*nth]].clone();
            if feasible.len() == 1 {
                held.push(Criterion::LaunchOrder(nth + 1));
            }
            ordered.push((i, held));
        }
    }
    // No place in launch order fits (the runs differ): every named launch stays possible.
    let mut left = if ordered.is_empty() { base } else { ordered };
    // 4. Stream narrows what launch order left (the same run only).
    if left.len() > 1 && left.iter().any(|(_, h)| h.contains(&Criterion::Stream)) {
        left.retain(|(_, h)| h.contains(&Criterion::Stream));
    }
    // 6. NVTX: the ranges open at the launch break a tie when exactly one agrees.
    let wanted = sorted(&p.nvtx);
    for (i, held) in &mut left {
        if !p.nvtx.is_empty() && sorted(&kernels[*i].nvtx) == wanted {
            held.push(Criterion::Nvtx);
        }
    }
    if left.len() > 1 && !p.nvtx.is_empty() {
        let agree: Vec<usize> = left
            .iter()
            .enumerate()
            .filter(|(_, (i, _))| sorted(&kernels[*i].nvtx) == wanted)
            .map(|(pos, _)| pos)
            .collect();
        if agree.len() == 1 {
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
    ResultLink {
        result: p.index,
        certainty,
        candidates,
    }
}
