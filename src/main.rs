//! The `sightline` command: the desktop app (`sightline [FILE...]`) and the headless
//! subcommands, one module per command under `src/cli/` (in the library, so that tests can
//! call them in-process).

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use sightline::cli;
use sightline::cli::common::SectionFolders;

/// `sightline --version`: the package version and the commit built from (`0.1.0 (abc1234
/// 2026-12-03)`; `SIGHTLINE_COMMIT` comes from build.rs, `unknown` when built without git).
const VERSION: &str = concat!(
    env!("CARGO_PKG_VERSION"),
    " (",
    env!("SIGHTLINE_COMMIT"),
    ")"
);

/// Sightline: a fast viewer for GPU profiler reports.
///
/// Without a subcommand, opens the desktop app with the given reports as tabs.
#[derive(Parser)]
#[command(
    name = "sightline",
    version = VERSION,
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
    /// Put the files (Nsight Systems exports, NVTXT files, CodeXL traces, or folders of them)
    /// on one timeline: a group per file, aligned by their session starts.
    #[arg(long)]
    merge: bool,
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
    Dump(cli::dump::DumpArgs),
    /// List the loaded sections (identifier, name, order, sets, file) and the rules bound to them.
    Sections(cli::sections::SectionsArgs),
    /// Print the Details page: every section resolved for each kernel.
    Details(cli::details::DetailsArgs),
    /// The Source page of a kernel: CUDA-C lines with their SASS rows, SASS only, or the PTX
    /// (a table, ncu's source CSV, or JSON).
    Source(cli::source::SourceArgs),
    /// Run rule files (NVIDIA's NvRules API) on a report and print their results.
    Rules(cli::rules::RulesArgs),
    /// Summarize a report: device, kernels, metrics.
    Summary(cli::summary::SummaryArgs),
    /// The session page: launch settings, host and target, processes, device attributes
    /// (--csv: as `ncu --import R --page session --csv` prints it).
    Session(cli::session::SessionArgs),
    /// The raw page: every metric of every kernel (--csv: as `ncu --import R --page raw --csv`
    /// prints it).
    Raw(cli::raw::RawArgs),
    /// Nsight Systems summary reports, equal to `nsys stats` (CSV byte-compatible).
    Stats(cli::stats::StatsArgs),
    /// The expert rules on an Nsight Systems export (Python timeline rules; Sightline's own
    /// equal `nsys analyze`, CSV byte-compatible).
    Analyze(cli::analyze::AnalyzeArgs),
    /// A timeline's track tree with event counts and time spans, or every event as JSON lines.
    Timeline(cli::timeline::TimelineArgs),
    /// The Events view of one timeline track: its events (name, kind, times, correlation id,
    /// payload fields) or a counter's samples, filtered and sorted, as tab-separated lines or CSV.
    Events(cli::events::EventsArgs),
    /// NVIDIA's multi-report recipes (`nsys recipe`) over exports: per-rank and across-rank
    /// summaries, and each file's findings of the analysis recipes, written as the recipe writes
    /// them.
    Recipe(cli::recipe::RecipeArgs),
    /// Write any timeline as a Perfetto protobuf trace or a Chrome JSON trace (optionally only
    /// a time range).
    Export(cli::export::ExportArgs),
    /// The CPU profile of an export's samples: Top-Down, Bottom-Up or Flat, for a thread and a
    /// time range (the timeline's CPU profile panel, headless).
    Profile(cli::profile::ProfileArgs),
    /// Which timeline kernels each result of an Nsight Compute report is: per result the
    /// matched kernel(s) of the Nsight Systems export and whether the match is certain.
    Link(cli::link::LinkArgs),
    /// NVTXT annotation files: their events, names and problems (exit code 1 when a file has
    /// errors).
    Nvtxt(cli::nvtxt::NvtxtArgs),
    /// Gainsight: data lifetimes, refresh and area projections from GPGPU-Sim memory-access
    /// logs; writes NAME.sim_l1.csv, NAME.sim_l2.csv, NAME.sim.csv and NAME.json.
    Gainsight(cli::gainsight::GainsightArgs),
    /// AMD CodeXL / RCP performance counters (SESSION.csv, every dialect) as a table with the
    /// session header and per-kernel aggregates, as JSON or as CSV.
    Counters(cli::counters::CountersArgs),
    /// AMD CodeXL / RCP kernel occupancy (SESSION.occupancy) as a table or JSON; with --kernel,
    /// that row's occupancy charts (VGPRs, SGPRs, LDS, work-group size).
    Occupancy(cli::occupancy::OccupancyArgs),
    /// Install the desktop entry, report MIME types and icon for the current user, so that
    /// double-clicking a report opens Sightline (Windows: the file types in the user's registry).
    InstallDesktop(cli::desktop::InstallDesktopArgs),
    /// Remove what install-desktop installed.
    UninstallDesktop(cli::desktop::UninstallDesktopArgs),
}

fn main() -> ExitCode {
    let started = std::time::Instant::now();
    sightline::timeline::map_large_allocations();
    let cli = Cli::parse();
    let result = match cli.command {
        None => launch_app(cli.files, cli.merge, &cli.folders, cli.nsys, started),
        Some(command) => {
            let mut out = std::io::BufWriter::with_capacity(1 << 16, std::io::stdout().lock());
            let result = run(&command, &mut out);
            // What was written goes out before an error is printed; a write error counts only
            // when the command itself succeeded.
            let flushed = out.flush();
            result.and_then(|code| flushed.map(|()| code).map_err(Into::into))
        }
    };
    match result {
        Ok(code) => code,
        // A closed pipe (`sightline dump r.ncu-rep | head`) is the reader's choice, not an error.
        Err(error) if is_broken_pipe(&error) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("sightline: error: {error:#}");
            ExitCode::from(2)
        }
    }
}

/// Runs a headless command, writing its output to `out`.
fn run(command: &Command, out: &mut dyn Write) -> anyhow::Result<ExitCode> {
    match command {
        Command::Dump(args) => cli::dump::run(args, out),
        Command::Sections(args) => cli::sections::run(args, out),
        Command::Details(args) => cli::details::run(args, out),
        Command::Source(args) => cli::source::run(args, out),
        Command::Rules(args) => cli::rules::run(args, out),
        Command::Summary(args) => cli::summary::run(args, out),
        Command::Session(args) => cli::session::run(args, out),
        Command::Raw(args) => cli::raw::run(args, out),
        Command::Stats(args) => cli::stats::run(args, out),
        Command::Analyze(args) => cli::analyze::run(args, out),
        Command::Timeline(args) => cli::timeline::run(args, out),
        Command::Events(args) => cli::events::run(args, out),
        Command::Recipe(args) => cli::recipe::run(args, out),
        Command::Export(args) => cli::export::run(args, out),
        Command::Profile(args) => cli::profile::run(args, out),
        Command::Link(args) => cli::link::run(args, out),
        Command::Nvtxt(args) => cli::nvtxt::run(args, out),
        Command::Gainsight(args) => cli::gainsight::run(args, out),
        Command::Counters(args) => cli::counters::run(args, out),
        Command::Occupancy(args) => cli::occupancy::run(args, out),
        Command::InstallDesktop(args) => cli::desktop::run_install(args, out),
        Command::UninstallDesktop(args) => cli::desktop::run_uninstall(args, out),
    }
}

/// Opens the desktop app with `files` as tabs.
fn launch_app(
    files: Vec<PathBuf>,
    merge: bool,
    folders: &SectionFolders,
    nsys: Option<PathBuf>,
    started: std::time::Instant,
) -> anyhow::Result<ExitCode> {
    let trace = std::env::var_os(sightline::app::sightline_app::STARTUP_TRACE_ENV)
        .is_some_and(|v| !v.is_empty() && v != "0");
    #[cfg(windows)]
    release_own_console();
    sightline::app::run(sightline::app::StartOptions {
        files,
        merge,
        section_folders: folders.folders(),
        trace_startup_from: trace.then_some(started),
        nsys,
    })
    // eframe's error is neither `Send` nor `Sync`: anyhow takes its message.
    .map_err(|e| anyhow::anyhow!("{e}"))?;
    Ok(ExitCode::SUCCESS)
}

/// Hides the console window Windows opened for this process alone, when the app was started
/// from Explorer (a double-clicked report or shortcut).
///
/// sightline.exe is a console program (the default subsystem), not a GUI-subsystem one: the
/// headless commands then behave as every command-line tool does on Windows: the command
/// prompt and PowerShell wait for them, their exit code reaches `%ERRORLEVEL%`, and their
/// output goes to the console, a pipe or a file (a GUI-subsystem program would have to attach
/// to its parent's console, which the prompt does not wait for, so its output would mix with
/// the next prompt). The cost is a console window that Windows opens when the app is started
/// from Explorer; it is hidden here as the app starts (it shows for a moment). It is hidden, not
/// freed: the standard handles stay valid, which the rule interpreter's `sys.stdout` needs
/// (RustPython fails to start on handles a freed console left behind). Started from a terminal,
/// the console is the terminal's and stays.
#[cfg(windows)]
fn release_own_console() {
    use windows_sys::Win32::System::Console::{GetConsoleProcessList, GetConsoleWindow};
    use windows_sys::Win32::UI::WindowsAndMessaging::{SW_HIDE, ShowWindow};
    let mut processes = [0u32; 2];
    // SAFETY: the call writes at most `processes.len()` ids into the array.
    let attached = unsafe { GetConsoleProcessList(processes.as_mut_ptr(), 2) };
    if attached == 1 {
        // SAFETY: GetConsoleWindow takes nothing; ShowWindow accepts a null window (and then
        // does nothing) and only changes the console window's visibility.
        unsafe {
            ShowWindow(GetConsoleWindow(), SW_HIDE);
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
