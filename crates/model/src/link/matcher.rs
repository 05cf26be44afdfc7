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
        ResultLink {
            result: p.index,
            certainty,
            candidates,
        }
    }
}
