//! The `sightline` command: the desktop app (`sightline [FILE...]`) and headless subcommands
//! over the model layers.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use sightline::ncu::Report;
use sightline::ncu::dump::{DumpOptions, write_dump};

mod cli;
mod details_output;
mod rules_output;
mod sections_output;
mod summary;

use std::io::Write;

use details_output::{DetailsFormat, write_details};
use sightline::section::details::resolve_action;
use sightline::section::registry::{SectionFolder, SectionSet};

/// Sightline: a fast viewer for GPU profiler reports.
///
/// Without a subcommand, opens the desktop app with the given reports as tabs.
#[derive(Parser)]
#[command(
    name = "sightline",
    version,
    about,
    args_conflicts_with_subcommands = true
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    /// Files to open in the app: Nsight Compute reports (.ncu-rep, .ncu-repz) and Nsight Systems
    /// exports (.sqlite; .nsys-rep/.qdrep when nsys is installed) on the timeline.
    #[arg(value_name = "FILE")]
    files: Vec<PathBuf>,
    #[command(flatten)]
    folders: SectionFolders,
    /// The nsys executable that exports .nsys-rep/.qdrep reports opened in the app (else the
    /// one in the settings, else the first on PATH); kept in the settings.
    #[arg(long, value_name = "PATH")]
    nsys: Option<PathBuf>,
}

#[derive(Subcommand)]
enum Command {
    /// Print a report as JSON, in the shape of NVIDIA's reader (ncu-oracle's dump.py).
    Dump {
        /// The report (.ncu-rep or .ncu-repz).
        report: PathBuf,
        /// Add each metric's inferred unit.
        #[arg(long)]
        units: bool,
        /// Only action N (0-based).
        #[arg(long, value_name = "N")]
        kernel: Option<usize>,
    },
    /// List the loaded sections (identifier, name, order, sets, file) and the rules bound to them.
    Sections {
        #[command(flatten)]
        folders: SectionFolders,
        /// Exit with code 1 if any section file failed to load.
        #[arg(long)]
        check: bool,
    },
    /// Print the Details page: every section resolved for each kernel.
    Details {
        /// The report (.ncu-rep or .ncu-repz).
        report: PathBuf,
        /// Which kernel: an index, or `all`.
        #[arg(long, value_name = "N|all", default_value = "all")]
        kernel: KernelChoice,
        #[command(flatten)]
        folders: SectionFolders,
        /// Print JSON.
        #[arg(long, conflicts_with = "csv")]
        json: bool,
        /// Print CSV.
        #[arg(long)]
        csv: bool,
    },
    /// Run rule files (NVIDIA's NvRules API) on a report and print their results.
    Rules {
        /// The report (.ncu-rep or .ncu-repz).
        report: PathBuf,
        /// Load rules from this folder (replaces the default: the section folders; repeatable).
        #[arg(long = "rules-folder", value_name = "DIR")]
        rules_folder: Vec<PathBuf>,
        #[command(flatten)]
        folders: SectionFolders,
        /// Which kernel: an index, or `all`.
        #[arg(long, value_name = "N|all", default_value = "all")]
        kernel: KernelChoice,
        /// Time budget of one rule call, in seconds.
        #[arg(long, value_name = "SECS", default_value_t = 2.0)]
        timeout: f64,
        /// Apply only this rule (its identifier; the rules it depends on run too but are not
        /// printed). Repeatable.
        #[arg(long = "rule", value_name = "ID")]
        rule: Vec<String>,
        /// Print JSON (NVIDIA's rule_results shape per kernel).
        #[arg(long)]
        json: bool,
        /// Print timings on stderr (interpreter ready, rule loading, applying).
        #[arg(long)]
        timing: bool,
    },
    /// Summarize a report: device, kernels, metrics.
    Summary {
        /// The report (.ncu-rep or .ncu-repz).
        report: PathBuf,
    },
    /// Nsight Systems summary reports, equal to `nsys stats` (CSV byte-compatible).
    Stats {
        /// The export (.sqlite) or report (.nsys-rep, .qdrep: exported with `nsys` first).
        file: PathBuf,
        /// Report name (nsys's: cuda_gpu_kern_sum, cuda_api_sum, cuda_gpu_mem_time_sum,
        /// cuda_gpu_mem_size_sum, osrt_sum, nvtx_sum, nvtx_pushpop_sum, nvtx_startend_sum);
        /// repeat or separate with commas. Default: the usual set.
        #[arg(long = "report", value_name = "NAME")]
        reports: Vec<String>,
        /// Output format.
        #[arg(long, value_enum, default_value = "table")]
        format: cli::stats::StatsFormat,
        /// Write PREFIX_REPORT.csv files (as `nsys stats --output`).
        #[arg(long, value_name = "PREFIX")]
        output: Option<PathBuf>,
        /// The nsys executable used to export .nsys-rep/.qdrep reports.
        #[arg(long, value_name = "PATH")]
        nsys: Option<PathBuf>,
    },
    /// A timeline's track tree with event counts and time spans, or every event as JSON lines.
    Timeline {
        /// The export (.sqlite), report (.nsys-rep, .qdrep: exported with `nsys` first), NVTXT
        /// file (.nvtxt) or CodeXL trace (.atp).
        file: PathBuf,
        /// Print the tree as JSON.
        #[arg(long, conflicts_with = "events")]
        json: bool,
        /// Print every event as a JSON line {"track","kind","name","start","end","correlation"}.
        #[arg(long)]
        events: bool,
        /// The nsys executable used to export .nsys-rep/.qdrep reports.
        #[arg(long, value_name = "PATH")]
        nsys: Option<PathBuf>,
        /// Print the load time and memory per event on stderr.
        #[arg(long)]
        timing: bool,
        /// Do not load the .nvtxt files beside an export onto its timeline.
        #[arg(long)]
        no_nvtxt: bool,
    },
    /// NVTXT annotation files: their events, names and problems (exit code 1 when a file has
    /// errors).
    Nvtxt {
        /// The .nvtxt files.
        #[arg(required = true, value_name = "FILE")]
        files: Vec<PathBuf>,
        /// Print one JSON object per file and line: {"display_name", "errors", "events"}.
        #[arg(long, conflicts_with = "summary")]
        json: bool,
        /// Print only one summary line per file (event counts, errors, warnings).
        #[arg(long)]
        summary: bool,
    },
    /// Gainsight: data lifetimes, refresh and area projections from GPGPU-Sim memory-access
    /// logs; writes NAME.sim_l1.csv, NAME.sim_l2.csv, NAME.sim.csv and NAME.json.
    Gainsight {
        /// Logs, or folders of logs (e.g. one per kernel).
        #[arg(required = true, value_name = "INPUT")]
        inputs: Vec<PathBuf>,
        /// Parameter file (TOML) layered over the defaults.
        #[arg(long, value_name = "FILE")]
        params: Option<PathBuf>,
        /// Output folder.
        #[arg(long, value_name = "DIR", default_value = ".")]
        out: PathBuf,
        /// Output name (default: the program name from the log).
        #[arg(long)]
        name: Option<String>,
        /// Print the JSON report instead of the summary.
        #[arg(long)]
        json: bool,
        /// Worker threads (0: one per core).
        #[arg(long, value_name = "N", default_value_t = 0)]
        threads: usize,
    },
    /// AMD CodeXL / RCP performance counters (SESSION.csv, every dialect) as a table with the
    /// session header and per-kernel aggregates, as JSON or as CSV.
    Counters {
        /// The counter file (.csv).
        file: PathBuf,
        /// Print JSON {"header", "columns", "rows": [{COLUMN: value, ..., "kernel", "kernel_id", "device"}]}.
        #[arg(long, conflicts_with = "csv")]
        json: bool,
        /// Print CSV (with kernel, kernel_id and device columns).
        #[arg(long)]
        csv: bool,
    },
    /// AMD CodeXL / RCP kernel occupancy (SESSION.occupancy) as a table or JSON; with --kernel,
    /// that row's occupancy charts (VGPRs, SGPRs, LDS, work-group size).
    Occupancy {
        /// The occupancy file (.occupancy).
        file: PathBuf,
        /// Print JSON (the shape of `counters --json`, or the charts with --kernel).
        #[arg(long, conflicts_with = "csv")]
        json: bool,
        /// Print CSV.
        #[arg(long)]
        csv: bool,
        /// Print the occupancy charts of row N (0-based).
        #[arg(long, value_name = "N")]
        kernel: Option<usize>,
    },
    /// Install the desktop entry, report MIME types and icon for the current user, so that
    /// double-clicking a report opens Sightline.
    InstallDesktop {
        /// Only write the files; do not run update-mime-database, update-desktop-database and
        /// xdg-mime.
        #[arg(long)]
        no_register: bool,
    },
    /// Remove what install-desktop installed.
    UninstallDesktop {
        /// Only remove the files; do not run the desktop tools.
        #[arg(long)]
        no_register: bool,
    },
}

/// Section search path options, as Nsight Compute's CLI has them.
#[derive(clap::Args, Debug, Clone, Default)]
struct SectionFolders {
    /// Search this folder for .section files (replaces the default path; repeatable).
    #[arg(long = "section-folder", value_name = "DIR")]
    folder: Vec<PathBuf>,
    /// Search this folder and its sub-folders (replaces the default path; repeatable).
    #[arg(long = "section-folder-recursive", value_name = "DIR")]
    recursive: Vec<PathBuf>,
}

impl SectionFolders {
    fn folders(&self) -> Vec<SectionFolder> {
        let plain = self.folder.iter().map(|p| SectionFolder {
            path: p.clone(),
            recursive: false,
        });
        let deep = self.recursive.iter().map(|p| SectionFolder {
            path: p.clone(),
            recursive: true,
        });
        plain.chain(deep).collect()
    }
}

/// `--kernel N|all`.
#[derive(Debug, Clone, Copy)]
enum KernelChoice {
    All,
    One(usize),
}

impl std::str::FromStr for KernelChoice {
    type Err = String;
    fn from_str(text: &str) -> Result<Self, String> {
        if text.eq_ignore_ascii_case("all") {
            return Ok(KernelChoice::All);
        }
        text.parse()
            .map(KernelChoice::One)
            .map_err(|_| format!("expected a kernel index or `all`, got `{text}`"))
    }
}

fn main() -> ExitCode {
    let started = std::time::Instant::now();
    let cli = Cli::parse();
    match run(cli, started) {
        Ok(code) => code,
        // A closed pipe (`sightline dump r.ncu-rep | head`) is the reader's choice, not an error.
        Err(error) if is_broken_pipe(&error) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("sightline: error: {error:#}");
            ExitCode::from(2)
        }
    }
}

fn is_broken_pipe(error: &anyhow::Error) -> bool {
    error.chain().any(|cause| {
        cause
            .downcast_ref::<std::io::Error>()
            .is_some_and(|e| e.kind() == std::io::ErrorKind::BrokenPipe)
    })
}

fn open(path: &PathBuf) -> anyhow::Result<Report> {
    let report = Report::open(path)?;
    print_warnings(&report, report.warnings());
    Ok(report)
}

/// Prints reader warnings on stderr: `sightline: warning: FILE: byte N: message`.
fn print_warnings(report: &Report, warnings: &[sightline::ncu::ReadWarning]) {
    for warning in warnings {
        eprintln!(
            "sightline: warning: {}: byte {}: {}",
            report.path().display(),
            warning.offset,
            warning.message
        );
    }
}

fn run(cli: Cli, started: std::time::Instant) -> anyhow::Result<ExitCode> {
    let Some(command) = cli.command else {
        let trace = std::env::var_os(sightline::app::sightline_app::STARTUP_TRACE_ENV)
            .is_some_and(|v| !v.is_empty() && v != "0");
        sightline::app::run(sightline::app::StartOptions {
            files: cli.files,
            section_folders: cli.folders.folders(),
            trace_startup_from: trace.then_some(started),
            nsys: cli.nsys,
        })
        // eframe's error is neither `Send` nor `Sync`: anyhow takes its message.
        .map_err(|e| anyhow::anyhow!("{e}"))?;
        return Ok(ExitCode::SUCCESS);
    };
    match command {
        Command::InstallDesktop { no_register } => {
            let report = sightline::desktop::install_desktop(&desktop_options(no_register))?;
            print!("{report}");
            println!(
                "Sightline is installed for double-click in {}",
                report.data_dir.display()
            );
        }
        Command::UninstallDesktop { no_register } => {
            let report = sightline::desktop::uninstall_desktop(&desktop_options(no_register))?;
            print!("{report}");
        }
        Command::Sections { folders, check } => {
            let folders = folders.folders();
            let set = if folders.is_empty() {
                SectionSet::default_path()
            } else {
                SectionSet::load_folders(&folders)
            };
            let mut out = std::io::stdout().lock();
            sections_output::write_sections(&set, &folders, &mut out)?;
            for line in set.diagnostics() {
                eprintln!("{line}");
            }
            if check && !set.failures.is_empty() {
                return Ok(ExitCode::from(1));
            }
        }
        Command::Details {
            report,
            kernel,
            folders,
            json,
            csv,
        } => {
            let report = open(&report)?;
            let folders = folders.folders();
            let from_folders = if folders.is_empty() {
                None
            } else {
                Some(SectionSet::load_folders(&folders))
            };
            if let Some(set) = &from_folders {
                for line in set.diagnostics() {
                    eprintln!("{line}");
                }
            }
            let indices: Vec<usize> = match kernel {
                KernelChoice::All => (0..report.num_actions()).collect(),
                KernelChoice::One(n) if n < report.num_actions() => vec![n],
                KernelChoice::One(n) => anyhow::bail!(
                    "{}: no kernel {n}: the report has {} result(s)",
                    report.path().display(),
                    report.num_actions()
                ),
            };
            let mut default_set = None;
            let mut pages = Vec::with_capacity(indices.len());
            for index in indices {
                let action = report.action(index)?;
                let embedded;
                let set = match &from_folders {
                    Some(set) => set,
                    None if action.num_sections() > 0 => {
                        embedded = SectionSet::from_embedded(action.sections().map_err(|e| {
                            anyhow::anyhow!(
                                "{}: kernel {index}: corrupt embedded section: {e}",
                                report.path().display()
                            )
                        })?);
                        &embedded
                    }
                    None => default_set.get_or_insert_with(SectionSet::default_path),
                };
                pages.push(resolve_action(&action, set));
            }
            let format = if json {
                DetailsFormat::Json
            } else if csv {
                DetailsFormat::Csv
            } else {
                DetailsFormat::Text
            };
            let mut out = std::io::BufWriter::new(std::io::stdout().lock());
            write_details(&pages, format, &mut out)?;
            out.flush()?;
        }
        Command::Dump {
            report,
            units,
            kernel,
        } => {
            let report = open(&report)?;
            let stdout = std::io::stdout().lock();
            let out = std::io::BufWriter::with_capacity(1 << 16, stdout);
            let warnings = write_dump(&report, &DumpOptions { units, kernel }, out)?;
            print_warnings(&report, &warnings);
        }
        Command::Rules {
            report,
            rules_folder,
            folders,
            kernel,
            timeout,
            rule,
            json,
            timing,
        } => {
            return run_rules(
                report,
                rules_folder,
                folders,
                kernel,
                RulesFlags {
                    timeout,
                    only: rule,
                    json,
                    timing,
                },
            );
        }
        Command::Gainsight {
            inputs,
            params,
            out,
            name,
            json,
            threads,
        } => {
            let args = cli::gainsight::GainsightArgs {
                inputs,
                params,
                out,
                name,
                json,
                threads,
            };
            let mut stdout = std::io::BufWriter::new(std::io::stdout().lock());
            cli::gainsight::run(&args, &mut stdout)?;
            stdout.flush()?;
        }
        Command::Summary { report } => {
            let report = open(&report)?;
            let mut out = std::io::stdout().lock();
            summary::write_summary(&report, &mut out)?;
        }
        Command::Stats {
            file,
            reports,
            format,
            output,
            nsys,
        } => {
            let args = cli::stats::StatsArgs {
                file,
                reports,
                format,
                nsys,
                output,
            };
            let mut stdout = std::io::BufWriter::new(std::io::stdout().lock());
            cli::stats::run(&args, &mut stdout)?;
            stdout.flush()?;
        }
        Command::Counters { file, json, csv } => {
            let format = cli::counters::TableFormat::from_flags(json, csv);
            let mut stdout = std::io::BufWriter::new(std::io::stdout().lock());
            cli::counters::run(&cli::counters::CountersArgs { file, format }, &mut stdout)?;
            stdout.flush()?;
        }
        Command::Occupancy {
            file,
            json,
            csv,
            kernel,
        } => {
            let format = cli::counters::TableFormat::from_flags(json, csv);
            let args = cli::occupancy::OccupancyArgs {
                file,
                format,
                kernel,
            };
            let mut stdout = std::io::BufWriter::new(std::io::stdout().lock());
            cli::occupancy::run(&args, &mut stdout)?;
            stdout.flush()?;
        }
        Command::Nvtxt {
            files,
            json,
            summary,
        } => {
            let args = cli::nvtxt::NvtxtArgs {
                files,
                json,
                summary,
            };
            let mut stdout = std::io::BufWriter::new(std::io::stdout().lock());
            let had_errors = cli::nvtxt::run(&args, &mut stdout)?;
            stdout.flush()?;
            if had_errors {
                return Ok(ExitCode::from(1));
            }
        }
        Command::Timeline {
            file,
            json,
            events,
            nsys,
            timing,
            no_nvtxt,
        } => {
            let args = cli::timeline::TimelineArgs {
                file,
                json,
                events,
                nsys,
                timing,
                no_nvtxt,
            };
            let mut stdout = std::io::BufWriter::new(std::io::stdout().lock());
            cli::timeline::run(&args, &mut stdout)?;
            stdout.flush()?;
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// Flags of `sightline rules`.
struct RulesFlags {
    timeout: f64,
    only: Vec<String>,
    json: bool,
    timing: bool,
}

fn run_rules(
    report: PathBuf,
    rules_folder: Vec<PathBuf>,
    folders: SectionFolders,
    kernel: KernelChoice,
    flags: RulesFlags,
) -> anyhow::Result<ExitCode> {
    use sightline::rules::{RuleEngine, RunOptions, SectionBinding};
    let RulesFlags {
        timeout,
        only,
        json,
        timing,
    } = flags;
    let started = std::time::Instant::now();
    if !(timeout.is_finite() && timeout > 0.0 && timeout <= 86_400.0) {
        anyhow::bail!("--timeout must be a number of seconds between 0 and 86400, got {timeout}");
    }
    let report = std::sync::Arc::new(open(&report)?);
    let section_folders = folders.folders();
    let (sections, chart_folders) = if section_folders.is_empty() {
        (SectionBinding::Embedded, Vec::new())
    } else {
        let set = SectionSet::load_folders(&section_folders);
        for line in set.diagnostics() {
            eprintln!("{line}");
        }
        let ids = set
            .sections
            .iter()
            .map(|s| s.section.identifier.clone())
            .collect();
        (
            SectionBinding::Identifiers(ids),
            section_folders.iter().map(|f| f.path.clone()).collect(),
        )
    };
    let rule_folders: Vec<PathBuf> = if !rules_folder.is_empty() {
        rules_folder
    } else if !section_folders.is_empty() {
        section_folders.iter().map(|f| f.path.clone()).collect()
    } else {
        sightline::section::registry::deployed_section_folder()
            .into_iter()
            .collect()
    };
    // Without a folder (deployment disabled or impossible) the bundled rules run from memory.
    let bundled_from_memory = rule_folders.is_empty();
    let kernels = match kernel {
        KernelChoice::All => None,
        KernelChoice::One(n) => Some(vec![n]),
    };
    let engine = RuleEngine::start()?;
    let output = engine.run(
        report,
        RunOptions {
            rule_folders,
            chart_folders,
            sections,
            kernels,
            timeout: std::time::Duration::from_secs_f64(timeout),
            bundled_from_memory,
            only: (!only.is_empty()).then_some(only),
            cancel: None,
        },
    )?;
    if timing {
        eprintln!(
            "interpreter ready {:.1} ms; {} rules loaded in {:.1} ms; applied to {} kernel(s) in {:.1} ms; total {:.1} ms",
            engine.ready_time().as_secs_f64() * 1e3,
            output.rules_loaded,
            output.load_time.as_secs_f64() * 1e3,
            output.kernels.len(),
            output.apply_time.as_secs_f64() * 1e3,
            started.elapsed().as_secs_f64() * 1e3
        );
    }
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    if json {
        rules_output::write_json(&output, &mut out)?;
    } else {
        rules_output::write_text(&output, &mut out)?;
    }
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}

/// Install options for this executable.
fn desktop_options(no_register: bool) -> sightline::desktop::InstallOptions {
    sightline::desktop::InstallOptions {
        exec: std::env::current_exe().ok(),
        run_tools: !no_register,
        ..Default::default()
    }
}
