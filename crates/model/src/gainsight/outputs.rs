//! Reading back the frontend's outputs of one simulation (`NAME.sim.csv`, `NAME.sim_l1.csv`,
//! `NAME.sim_l2.csv`, `NAME.json`, whichever exist) into the shape an analysis of the logs
//! has, so a viewer shows either the same way: [`read_outputs`], with the bytes read as
//! [`Progress`] and Cancel honoured between reads.

use std::collections::HashMap;
use std::fs::File;
use std::io::{BufReader, Read};
use std::path::{Path, PathBuf};

use super::GainsightError;
use super::csv::{read_kernel_csv, read_lifetime_csv};
use super::kernel::{EndStats, KernelResult};
use super::params::Params;
use super::reader::Analysis;
use super::report::{FrontendReport, report_date_time};
use super::stats::KernelRow;
use super::whatif::LifetimeStore;
use crate::core::num::float_to_u64;
use crate::core::{Cancelled, Progress, Ticker};

/// The suffixes of the frontend's outputs, in the order of [`OutputFiles`]' fields.
pub const OUTPUT_SUFFIXES: [&str; 4] = [".sim.csv", ".sim_l1.csv", ".sim_l2.csv", ".json"];

/// How many bytes are read between two progress reports (and Cancel checks).
const REPORT_EVERY: u64 = 1 << 20;

/// The frontend's outputs of one name (each may be missing).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct OutputFiles {
    /// `NAME.sim.csv`: one row per kernel.
    pub kernel_csv: Option<PathBuf>,
    /// `NAME.sim_l1.csv`: the L1 lifetimes.
    pub l1_csv: Option<PathBuf>,
    /// `NAME.sim_l2.csv`: the L2 lifetimes.
    pub l2_csv: Option<PathBuf>,
    /// `NAME.json`: the report.
    pub json: Option<PathBuf>,
}

impl OutputFiles {
    /// The outputs named `stem` in `dir` that exist, plus `opened` in its own slot.
    pub fn beside(opened: &Path) -> Option<OutputFiles> {
        let (dir, stem, slot) = output_stem(opened)?;
        let mut files = OutputFiles::default();
        for (index, suffix) in OUTPUT_SUFFIXES.iter().enumerate() {
            let candidate = if index == slot {
                opened.to_path_buf()
            } else {
                dir.join(format!("{stem}{suffix}"))
            };
            if index == slot || candidate.is_file() {
                *files.slot_mut(index) = Some(candidate);
            }
        }
        Some(files)
    }

    fn slot_mut(&mut self, index: usize) -> &mut Option<PathBuf> {
        match index {
            0 => &mut self.kernel_csv,
            1 => &mut self.l1_csv,
            2 => &mut self.l2_csv,
            _ => &mut self.json,
        }
    }

    /// The files present, in suffix order.
    pub fn present(&self) -> Vec<&Path> {
        [&self.kernel_csv, &self.l1_csv, &self.l2_csv, &self.json]
            .into_iter()
            .filter_map(|p| p.as_deref())
            .collect()
    }
}

/// `(folder, stem, slot)` of a file named like one of the outputs (case-insensitive):
/// `runs/generate.sim_l1.csv` → (`runs`, `generate`, 1). A bare suffix has no stem.
pub fn output_stem(path: &Path) -> Option<(PathBuf, String, usize)> {
    let name = path.file_name()?.to_str()?;
    let lower = name.to_ascii_lowercase();
    // `.sim_l1.csv` before `.sim.csv` is not needed (they differ before `.csv`), but the
    // longest suffix is checked first anyway so a future overlap stays right.
    let mut order: Vec<usize> = (0..OUTPUT_SUFFIXES.len()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(OUTPUT_SUFFIXES[i].len()));
    for slot in order {
        let suffix = OUTPUT_SUFFIXES[slot];
        if lower.len() > suffix.len() && lower.ends_with(suffix) {
            let stem = name[..name.len() - suffix.len()].to_string();
            let dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
            return Some((dir, stem, slot));
        }
    }
    None
}

/// A simulation's outputs read back.
#[derive(Debug)]
pub struct Outputs {
    /// Kernels rebuilt from the kernel CSV (ids, access counts, cycles, so the report can be
    /// recomputed), its rows, and the lifetimes of the lifetime CSVs.
    pub analysis: Analysis,
    /// The JSON report: read from `NAME.json`, or computed without it.
    pub report: FrontendReport,
    /// Whether the report was read from `NAME.json` (not computed).
    pub report_from_file: bool,
    /// Whether a lifetime CSV was read (histograms and what-if refreshes need them).
    pub lifetimes_known: bool,
    /// What is missing and what that means, for the viewer to say.
    pub notes: Vec<String>,
}

/// Reads back a simulation's outputs (kernel CSV, lifetime CSVs, JSON report) with `params`;
/// a missing file is a note, and the report is computed here without `NAME.json`. Reports the
/// bytes read to `progress` (each file under its own task name: "reading the kernel CSV"...)
/// and stops with [`GainsightError::Cancelled`] once it is cancelled.
pub fn read_outputs(
    files: &OutputFiles,
    params: &Params,
    progress: Progress<'_>,
) -> Result<Outputs, GainsightError> {
    let present = files.present();
    let mut reader = ByteReader {
        progress,
        total: present
            .iter()
            .filter_map(|f| std::fs::metadata(f).ok())
            .map(|m| m.len())
            .sum(),
        read: 0,
    };
    let mut notes = Vec::new();
    let rows = match &files.kernel_csv {
        Some(path) => reader.read(path, "reading the kernel CSV", |name, input| {
            read_kernel_csv(name, input)
        })?,
        None => {
            notes.push("no NAME.sim.csv beside it: the kernel table is empty".to_string());
            Vec::new()
        }
    };
    let (per_kernel, lifetimes_known) = reader.lifetimes_by_kernel(files, &rows)?;
    if !lifetimes_known {
        notes.push(
            "no lifetime CSVs (NAME.sim_l1.csv, NAME.sim_l2.csv) beside it: histograms and \
             what-if refreshes need them"
                .to_string(),
        );
    }
    let json = match &files.json {
        Some(path) => Some(
            reader.read(path, "reading the JSON report", |name, mut input| {
                let mut text = String::new();
                input
                    .read_to_string(&mut text)
                    .map_err(|source| GainsightError::Io {
                        path: name.to_owned(),
                        source,
                    })?;
                FrontendReport::read(name, &text)
            })?,
        ),
        None => None,
    };
    progress.check()?;
    progress.named("building the lifetime store").report_bytes(
        "outputs",
        reader.read,
        reader.total,
    );
    let store = LifetimeStore::from_cycles(&per_kernel);
    drop(per_kernel);
    let name = json
        .as_ref()
        .map(|r| r.name.clone())
        .filter(|n| !n.is_empty())
        .or_else(|| {
            present
                .first()
                .and_then(|p| output_stem(p))
                .map(|(_, s, _)| s)
        })
        .unwrap_or_default();
    let analysis = Analysis {
        name: name.clone(),
        files: present.iter().map(|p| p.display().to_string()).collect(),
        kernels: kernels_from_rows(&rows, params),
        rows,
        store,
        bytes: reader.total,
        ..Analysis::default()
    };
    let report_from_file = json.is_some();
    let report = match json {
        Some(report) => report,
        None => {
            notes.push("no NAME.json beside it: the report is computed here".to_string());
            let (date, time) = report_date_time();
            FrontendReport::compute(&analysis, params, &name, &date, &time)
        }
    };
    Ok(Outputs {
        analysis,
        report,
        report_from_file,
        lifetimes_known,
        notes,
    })
}

/// The access count behind a frequency of the kernel CSV: `f × T × p / 1000`, rounded (the
/// frequency is `n / (T × p) × 1000`, exact to a few ulps, so rounding recovers `n`).
pub fn count_from_frequency(frequency: Option<f64>, cycles: u64, ns_per_cycle: f64) -> u64 {
    match frequency {
        Some(f) if f.is_finite() && f > 0.0 => {
            float_to_u64((f * cycles as f64 * ns_per_cycle / 1000.0).round())
        }
        _ => 0,
    }
}

/// The kernels behind kernel-CSV rows: ids, names, access counts and cycles, enough for
/// [`FrontendReport::compute`].
pub fn kernels_from_rows(rows: &[KernelRow], params: &Params) -> Vec<KernelResult> {
    let p = params.ns_per_cycle();
    rows.iter()
        .enumerate()
        .map(|(seq, row)| {
            let t = row.total_cycles;
            KernelResult {
                seq,
                id: Some(row.kernel_id),
                name: Some(row.name.clone()),
                l1_size_bytes: Some(row.l1_size),
                end: EndStats {
                    sim_cycle: Some(t),
                    ..EndStats::default()
                },
                reads: [
                    count_from_frequency(row.l1_read_frequency, t, p),
                    count_from_frequency(row.l2_read_frequency, t, p),
                ],
                writes: [
                    count_from_frequency(row.l1_write_frequency, t, p),
                    count_from_frequency(row.l2_write_frequency, t, p),
                ],
                unique: [row.l1_unique, row.l2_unique],
                last_cycle: t,
                ..KernelResult::default()
            }
        })
        .collect()
}

/// The lifetimes of each kernel id: `(id, L1 cycles, L2 cycles)`.
type KernelLifetimes = Vec<(u64, Vec<u64>, Vec<u64>)>;

/// Reads the output files one after another, each file's bytes its share of the progress.
struct ByteReader<'p> {
    progress: Progress<'p>,
    /// The size of all files.
    total: u64,
    /// The bytes of the files read before.
    read: u64,
}

impl ByteReader<'_> {
    /// Reads `path` with `parse` (given its name for errors and a buffered, counted reader),
    /// the progress under the task name `stage`. A read stopped by Cancel is
    /// [`GainsightError::Cancelled`], whatever the parser made of it.
    fn read<T>(
        &mut self,
        path: &Path,
        stage: &str,
        parse: impl FnOnce(&str, BufReader<Counted<'_, File>>) -> Result<T, GainsightError>,
    ) -> Result<T, GainsightError> {
        let name = path.display().to_string();
        let file = File::open(path).map_err(|source| GainsightError::Io {
            path: name.clone(),
            source,
        })?;
        let len = file.metadata().map_or(0, |m| m.len());
        let share = |bytes: u64| {
            if self.total == 0 {
                0.0
            } else {
                bytes as f64 / self.total as f64
            }
        };
        let part = self
            .progress
            .scaled(share(self.read), share(self.read + len))
            .named(stage);
        let ticker = Ticker::new(part, "outputs", len, REPORT_EVERY).in_bytes();
        ticker.report_now();
        let counted = Counted {
            inner: file,
            ticker,
        };
        let parsed = parse(&name, BufReader::with_capacity(1 << 20, counted));
        self.read += len;
        match parsed {
            Err(_) if self.progress.is_cancelled() => Err(Cancelled.into()),
            parsed => parsed,
        }
    }

    /// The lifetimes grouped by kernel id: kernels of the kernel CSV first (in its order),
    /// then ids only the lifetime CSVs name; and whether any lifetime CSV was there.
    fn lifetimes_by_kernel(
        &mut self,
        files: &OutputFiles,
        rows: &[KernelRow],
    ) -> Result<(KernelLifetimes, bool), GainsightError> {
        let mut ids: Vec<u64> = Vec::new();
        for row in rows {
            if !ids.contains(&row.kernel_id) {
                ids.push(row.kernel_id);
            }
        }
        let mut index_of: HashMap<u64, usize> =
            ids.iter().enumerate().map(|(i, &id)| (id, i)).collect();
        let mut per_kernel: KernelLifetimes =
            ids.iter().map(|&id| (id, Vec::new(), Vec::new())).collect();
        let mut lifetimes_known = false;
        for (level, path) in [(0usize, &files.l1_csv), (1, &files.l2_csv)] {
            let Some(path) = path else { continue };
            let stage = format!("reading the L{} lifetimes", level + 1);
            let lifetimes =
                self.read(path, &stage, |name, input| read_lifetime_csv(name, input))?;
            lifetimes_known = true;
            for row in lifetimes {
                let index = *index_of.entry(row.kernel_id).or_insert_with(|| {
                    per_kernel.push((row.kernel_id, Vec::new(), Vec::new()));
                    per_kernel.len() - 1
                });
                let entry = &mut per_kernel[index];
                if level == 0 {
                    entry.1.push(row.cycles);
                } else {
                    entry.2.push(row.cycles);
                }
            }
        }
        Ok((per_kernel, lifetimes_known))
    }
}

/// A file whose bytes are counted by a [`Ticker`]; a read fails once the ticker says the
/// task is cancelled.
struct Counted<'p, R> {
    inner: R,
    ticker: Ticker<'p>,
}

impl<R: Read> Read for Counted<'_, R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.ticker
            .advance(n as u64)
            .map_err(std::io::Error::other)?;
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn output_names() {
        let (dir, stem, slot) = output_stem(Path::new("/r/gen.SIM_L2.csv")).unwrap();
        assert_eq!((dir, stem.as_str(), slot), (PathBuf::from("/r"), "gen", 2));
        assert_eq!(output_stem(Path::new("a.sim.csv")).unwrap().2, 0);
        assert_eq!(output_stem(Path::new("a.sim_l1.csv")).unwrap().2, 1);
        assert_eq!(output_stem(Path::new("a.json")).unwrap().2, 3);
        assert!(output_stem(Path::new("a.csv")).is_none());
        assert!(output_stem(Path::new(".sim.csv")).is_none());
        assert!(output_stem(Path::new("kernel-3.log")).is_none());
    }

    #[test]
    fn counts_come_back_from_frequencies() {
        let p = 1000.0 / 2235.0;
        for (n, t) in [
            (12056u64, 22571u64),
            (88, 22571),
            (1, 3),
            (123_456_789, 987_654),
        ] {
            let f = crate::gainsight::stats::level_frequency(n, t, p);
            assert_eq!(count_from_frequency(f, t, p), n);
        }
        assert_eq!(count_from_frequency(None, 5, p), 0);
    }

    #[test]
    fn reads_what_is_there_reports_the_bytes_and_stops_on_cancel() {
        use crate::core::{FnSink, Step, Unit};
        use std::sync::atomic::AtomicBool;

        let dir = tempfile::tempdir().expect("temp dir");
        let l1 = dir.path().join("demo.sim_l1.csv");
        let text = "kernel_id,address,lifetime_cycles,lifetime_ns\n\
                    7,4096.00,4500.00,2013.42\n\
                    3,65408.00,990.00,442.95\n";
        std::fs::write(&l1, text).expect("write");
        let files = OutputFiles::beside(&l1).expect("an output name");
        assert_eq!(files.present(), [l1.as_path()]);
        let mut steps = Vec::new();
        let sink = FnSink::new(|s: &Step<'_>| {
            steps.push((s.label().to_owned(), s.done, s.total, s.unit, s.fraction));
        });
        let outputs =
            read_outputs(&files, &Params::default(), Progress::new(&sink)).expect("outputs");
        assert!(outputs.lifetimes_known && !outputs.report_from_file);
        assert_eq!(outputs.analysis.name, "demo");
        assert_eq!(outputs.analysis.bytes, text.len() as u64);
        assert_eq!(outputs.notes.len(), 2, "{:?}", outputs.notes);
        assert!(outputs.notes[0].starts_with("no NAME.sim.csv beside it"));
        let len = text.len() as u64;
        assert_eq!(
            steps,
            [
                (
                    "reading the L1 lifetimes".to_owned(),
                    0,
                    len,
                    Unit::Bytes,
                    0.0
                ),
                (
                    "building the lifetime store".to_owned(),
                    len,
                    len,
                    Unit::Bytes,
                    1.0
                ),
            ]
        );
        let cancel = AtomicBool::new(true);
        let stopped = read_outputs(&files, &Params::default(), Progress::new(&cancel));
        assert!(
            matches!(stopped, Err(GainsightError::Cancelled(_))),
            "{stopped:?}"
        );
    }
}
