//! Which launches an Nsight Compute run profiled, as far as its command line tells:
//! `--launch-skip-before-match`, `--launch-skip`/`-s`, `--launch-count`/`-c` and the kernel
//! name filter `--kernel-name`/`-k` (`regex:` patterns included) with `--kernel-name-base`.
//! Filters that depend on what the timeline does not hold (`--kernel-id`, NVTX include and
//! exclude, range filters) make the filter not replayable: launch order then only keeps the
//! order of the launches.

use regex::Regex;

use super::TimelineKernel;

/// Options that select launches in ways the timeline cannot replay.
const UNREPLAYABLE: &[&str] = &[
    "--kernel-id",
    "--nvtx-include",
    "--nvtx-exclude",
    "--range-filter",
    "--filter-mode",
    "--graph-profiling",
];

/// Options of `ncu` that take a value as the next word (so that value is not the program).
const WITH_VALUE: &[&str] = &[
    "-o",
    "--export",
    "--section",
    "--section-folder",
    "--section-folder-recursive",
    "--set",
    "--metrics",
    "--target-processes",
    "--target-processes-filter",
    "--replay-mode",
    "--app-replay-buffer",
    "--app-replay-match",
    "--app-replay-mode",
    "--cache-control",
    "--clock-control",
    "--devices",
    "--log-file",
    "--import",
    "--page",
    "--print-units",
    "--rule",
    "--import-source",
    "--source-folders",
    "--call-stack-type",
    "--max-connections",
    "--port",
    "--pm-sampling-interval",
    "--warp-sampling-interval",
    "--sampling-interval",
    "--sampling-max-passes",
    "--sampling-buffer-size",
    "--config-file",
    "--config-file-path",
    "--mode",
    "--hostname",
    "--check-exit-code",
    "--cuda-graph-profiling",
];

/// Which name `-k` compares (`--kernel-name-base`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum KernelNameBase {
    /// The function name (the default).
    #[default]
    Function,
    /// The demangled signature.
    Demangled,
    /// The mangled name.
    Mangled,
}

/// What a report's command line says about the launches it profiled (per process).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct LaunchFilter {
    /// The command line, when the report stores it.
    pub command_line: Option<String>,
    /// `--launch-skip-before-match`: launches of any kernel skipped first.
    pub skip_before_match: u64,
    /// `--launch-skip`: matching launches skipped after those.
    pub skip: u64,
    /// `--launch-count`: how many were profiled at most.
    pub count: Option<u64>,
    /// `--kernel-name` as given (`regex:` patterns keep their prefix).
    pub kernel_name: Option<String>,
    /// `--kernel-name-base`.
    pub name_base: KernelNameBase,
    /// Whether the timeline can replay the selection (no command line, or one with filters
    /// the timeline cannot evaluate, is not).
    pub replayable: bool,
}

impl LaunchFilter {
    /// Reads the options of an `ncu` command line (`None`: the report stores none).
    pub fn of_command_line(line: Option<&str>) -> LaunchFilter {
        let Some(line) = line else {
            return LaunchFilter::default();
        };
        let mut filter = LaunchFilter {
            command_line: Some(line.to_owned()),
            replayable: true,
            ..LaunchFilter::default()
        };
        let words: Vec<&str> = line.split_whitespace().collect();
        let mut i = 1; // words[0] is ncu itself
        while i < words.len() {
            let word = words[i];
            if !word.starts_with('-') {
                break; // the profiled program: its own options follow
            }
            let (option, inline) = match word.split_once('=') {
                Some((o, v)) => (o, Some(v)),
                None => (word, None),
            };
            let takes_value = matches!(
                option,
                "-s" | "--launch-skip"
                    | "-c"
                    | "--launch-count"
                    | "-k"
                    | "--kernel-name"
                    | "--kernel-regex"
                    | "--kernel-name-base"
                    | "--launch-skip-before-match"
            ) || UNREPLAYABLE.contains(&option)
                || WITH_VALUE.contains(&option);
            let value = match inline {
                Some(v) => Some(v),
                None if takes_value => {
                    i += 1;
                    words.get(i).copied()
                }
                None => None,
            };
            let number = || value.and_then(|v| v.parse::<u64>().ok());
            match option {
                "-s" | "--launch-skip" => filter.skip = number().unwrap_or(0),
                "-c" | "--launch-count" => filter.count = number(),
                "--launch-skip-before-match" => filter.skip_before_match = number().unwrap_or(0),
                "-k" | "--kernel-name" => filter.kernel_name = value.map(str::to_owned),
                "--kernel-regex" => filter.kernel_name = value.map(|v| format!("regex:{v}")),
                "--kernel-name-base" => {
                    filter.name_base = match value {
                        Some("demangled") => KernelNameBase::Demangled,
                        Some("mangled") => KernelNameBase::Mangled,
                        _ => KernelNameBase::Function,
                    }
                }
                o if UNREPLAYABLE.contains(&o) => filter.replayable = false,
                _ => {}
            }
            i += 1;
        }
        if let Some(k) = &filter.kernel_name
            && let Some(pattern) = k.strip_prefix("regex:")
            && Regex::new(pattern).is_err()
        {
            filter.replayable = false;
        }
        filter
    }

    /// The launches of one process (sorted by start) that the run could have profiled, in
    /// order: the first `--launch-skip-before-match` launches dropped, then those the name
    /// filter keeps, less the first `--launch-skip` of them. `None` when not replayable.
    pub fn eligible<'a>(&self, launches: &[&'a TimelineKernel]) -> Option<Vec<&'a TimelineKernel>> {
        if !self.replayable {
            return None;
        }
        let regex = match self
            .kernel_name
            .as_deref()
            .and_then(|k| k.strip_prefix("regex:"))
        {
            Some(p) => Some(Regex::new(p).ok()?),
            None => None,
        };
        let keep = |k: &TimelineKernel| {
            let Some(wanted) = &self.kernel_name else {
                return true;
            };
            let name = match self.name_base {
                KernelNameBase::Function => k.function.as_deref(),
                KernelNameBase::Demangled => k.demangled.as_deref(),
                KernelNameBase::Mangled => k.mangled.as_deref(),
            }
            .unwrap_or("");
            match &regex {
                Some(r) => r.is_match(name),
                None => name == wanted,
            }
        };
        let before = usize::try_from(self.skip_before_match).unwrap_or(usize::MAX);
        let skip = usize::try_from(self.skip).unwrap_or(usize::MAX);
        Some(
            launches
                .iter()
                .skip(before)
                .copied()
                .filter(|k| keep(k))
                .skip(skip)
                .collect(),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_selection_options() {
        let f = LaunchFilter::of_command_line(Some(
            "ncu -o out --launch-skip 2 -c=3 -k regex:gemm --kernel-name-base demangled ./app -s 9",
        ));
        assert_eq!(f.skip, 2);
        assert_eq!(f.count, Some(3));
        assert_eq!(f.kernel_name.as_deref(), Some("regex:gemm"));
        assert_eq!(f.name_base, KernelNameBase::Demangled);
        assert!(f.replayable);
        let f = LaunchFilter::of_command_line(Some("ncu --nvtx-include A/ ./app"));
        assert!(!f.replayable);
        assert!(!LaunchFilter::of_command_line(None).replayable);
    }
}
