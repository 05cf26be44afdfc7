//! The Analysis Summary of an export, as Nsight Systems' Analysis Summary page gives it: how
//! the run was captured (`META_DATA_CAPTURE`: the settings, and each launched process with its
//! command line, working folder and environment), the target system (`TARGET_INFO_SYSTEM_ENV`:
//! every property, the CPU, the environment variables of `DeviceEnvironment`), the NICs
//! (`TARGET_INFO_NIC_INFO`), CUDA contexts and streams (`TARGET_INFO_CUDA_CONTEXT_INFO`,
//! `TARGET_INFO_CUDA_STREAM`, `TARGET_INFO_CUDA_NULL_STREAM`, stream names from
//! `TARGET_INFO_NVTX_CUDA_STREAM`), the CUDA devices each process saw
//! (`TARGET_INFO_CUDA_DEVICE`), the analysed span (`ANALYSIS_DETAILS`), the session start
//! (`TARGET_INFO_SESSION_START_TIME`), the process output (`ProcessStreams`), the files the
//! analysis kept (`ANALYSIS_FILE`) and the export
//! (`META_DATA_EXPORT` or, before 2023, `EXPORT_META_DATA`). The GPUs are the session's
//! ([`crate::timeline::model::SessionInfo::gpus`]).
//!
//! Read by [`read`] ([`reader`]): every table may be missing and every column too; a value
//! of the wrong type is left out of the model and reported as a [`Problem`] naming the table,
//! column and first rowid, never a panic.

pub(crate) mod reader;

pub use reader::{SummaryRead, read};

/// The Analysis Summary of one export (empty for other timelines).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct AnalysisSummary {
    /// The capture settings: `META_DATA_CAPTURE`'s rows that are not about one process, in the
    /// export's order (a repeated name, such as `CAPTURE_EVENT_TYPE`, once per row).
    pub capture: Vec<(String, String)>,
    /// The processes the capture launched or attached to (`PROCESS_N:` rows), by N.
    pub launches: Vec<Launch>,
    /// The target system's properties and environment variables.
    pub environment: Environment,
    /// The CPU, from the target system's properties.
    pub cpu: CpuInfo,
    /// The network interfaces (`TARGET_INFO_NIC_INFO`).
    pub nics: Vec<Nic>,
    /// The CUDA contexts (`TARGET_INFO_CUDA_CONTEXT_INFO`).
    pub contexts: Vec<CudaContext>,
    /// The CUDA streams (`TARGET_INFO_CUDA_STREAM`, and the null streams of
    /// `TARGET_INFO_CUDA_NULL_STREAM` that table does not list).
    pub streams: Vec<CudaStream>,
    /// The CUDA devices each process saw (`TARGET_INFO_CUDA_DEVICE`), in the export's order.
    pub cuda_devices: Vec<CudaDevice>,
    /// The analysed spans, one per machine (`ANALYSIS_DETAILS`).
    pub analysis: Vec<AnalysisSpan>,
    /// The files the analysis kept (`ANALYSIS_FILE`: the processes' captured output files), in
    /// the export's order.
    pub files: Vec<AnalysisFile>,
    /// The session start in UTC and in the target's local time, as written
    /// (`TARGET_INFO_SESSION_START_TIME`: `utcTime`, `localTime`).
    pub start_time: (Option<String>, Option<String>),
    /// What the launched processes wrote to stdout and stderr (`ProcessStreams`).
    pub outputs: Vec<ProcessOutput>,
    /// The export's metadata rows in the export's order, and the table they come from
    /// (`META_DATA_EXPORT`, or `EXPORT_META_DATA` in older exports).
    pub export: Vec<(String, String)>,
    /// The table [`AnalysisSummary::export`] was read from.
    pub export_table: Option<String>,
    /// Views of the export that are not read: not named like a table of Nsight Systems
    /// (those are read as the table would be, with a warning), such as a tool's own views.
    pub views: Vec<String>,
}

impl AnalysisSummary {
    /// Whether the export had none of the summary's tables.
    pub fn is_empty(&self) -> bool {
        *self == AnalysisSummary::default()
    }
}

/// A process the capture launched or attached to (`META_DATA_CAPTURE`'s `PROCESS_N:` rows).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Launch {
    /// N of `PROCESS_N`.
    pub index: u32,
    /// `COMMAND`: the program (empty when attached to a running process).
    pub command: String,
    /// `ARGUMENT_0`, `ARGUMENT_1`...: the arguments, in their order.
    pub arguments: Vec<String>,
    /// `WORKING_DIR`.
    pub working_dir: Option<String>,
    /// `PID` as written (0 for a launched process: its pid is in `PROCESSES`).
    pub pid: Option<String>,
    /// Every other `PROCESS_N:` setting (`HOW_TO_ATTACH`, `COLLECT_CUDA_TRACE`...), in order.
    pub settings: Vec<(String, String)>,
}

impl Launch {
    /// The command line: the command and its arguments, an argument quoted (`'...'`) when it
    /// is empty or holds a space, quote or shell character.
    pub fn command_line(&self) -> String {
        let mut parts = vec![quote_arg(&self.command)];
        parts.extend(self.arguments.iter().map(|a| quote_arg(a)));
        parts.join(" ")
    }
}

/// `arg` as a shell would need it written.
fn quote_arg(arg: &str) -> String {
    let plain = !arg.is_empty()
        && arg
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./=:,+@%".contains(c));
    if plain {
        arg.to_owned()
    } else {
        format!("'{}'", arg.replace('\'', "'\\''"))
    }
}

/// The target system: its properties and environment variables.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Environment {
    /// Every row of `TARGET_INFO_SYSTEM_ENV`, in the export's order.
    pub system: Vec<SystemProperty>,
    /// The environment variables: of the target system (its `DeviceEnvironment` property,
    /// `NAME=value` joined by `;`) and of each launched process (`PROCESS_N:ENVIRONMENT_VARIABLE`).
    pub variables: Vec<EnvVar>,
}

/// A row of `TARGET_INFO_SYSTEM_ENV`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SystemProperty {
    /// The device state (`devStateName`: "Local (CLI)").
    pub device: String,
    /// The property (`name`: "CpuCores", "Hostname", "CudaDriverVersion"...).
    pub name: String,
    /// Its value as text (`value`; invalid UTF-8 decoded leniently).
    pub value: String,
}

/// Where an environment variable was recorded.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum EnvSource {
    /// The target system (`TARGET_INFO_SYSTEM_ENV`'s `DeviceEnvironment`).
    System,
    /// The launched process `PROCESS_N` (`META_DATA_CAPTURE`).
    Process(u32),
}

impl EnvSource {
    /// "target system" or "process N".
    pub fn label(self) -> String {
        match self {
            EnvSource::System => "target system".to_owned(),
            EnvSource::Process(n) => format!("process {n}"),
        }
    }
}

/// An environment variable.
#[derive(Debug, Clone, PartialEq)]
pub struct EnvVar {
    /// Where it was recorded.
    pub source: EnvSource,
    /// Its name.
    pub name: String,
    /// Its value (the quotes `META_DATA_CAPTURE` writes around it removed).
    pub value: String,
}

/// The CPU of the target system (its `Cpu*` properties).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CpuInfo {
    /// `CpuDescription` ("AMD EPYC 7763 64-Core Processor").
    pub description: Option<String>,
    /// `CpuArchitecture` ("x86_64").
    pub architecture: Option<String>,
    /// `CpuCores`: the logical cores.
    pub cores: Option<i64>,
    /// `CpuSpeedMhz` (written as an integer or with a fraction: "4426.6669999999995").
    pub speed_mhz: Option<f64>,
    /// `CpuInfo`'s items: each logical CPU with its socket and highest frequency.
    pub logical: Vec<LogicalCpu>,
}

impl CpuInfo {
    /// The distinct sockets of [`CpuInfo::logical`], in order.
    pub fn sockets(&self) -> Vec<i64> {
        let mut s: Vec<i64> = self.logical.iter().filter_map(|c| c.socket).collect();
        s.sort_unstable();
        s.dedup();
        s
    }
}

/// One logical CPU of `CpuInfo`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct LogicalCpu {
    /// `cpuid`.
    pub id: Option<i64>,
    /// `socket`.
    pub socket: Option<i64>,
    /// `maxfreqhz`.
    pub max_freq_hz: Option<i64>,
}

/// A network interface (`TARGET_INFO_NIC_INFO`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Nic {
    /// `nicId`.
    pub id: Option<i64>,
    /// `name` ("mlx5_0").
    pub name: String,
    /// The device state (`stateName`).
    pub state: String,
    /// `GUID`.
    pub guid: Option<i64>,
    /// The device (`deviceId` by `ENUM_NET_DEVICE_ID`: "ConnectX-4"; "device 0x…" without it).
    pub device: String,
    /// The vendor (`vendorId` by `ENUM_NET_VENDOR_ID`).
    pub vendor: String,
    /// The link layer (`linkLayer` by `ENUM_NET_LINK_TYPE`: "InfiniBand NIC").
    pub link_layer: String,
}

/// A CUDA context (`TARGET_INFO_CUDA_CONTEXT_INFO`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CudaContext {
    /// `processId`.
    pub process_id: Option<i64>,
    /// `contextId`.
    pub context_id: Option<i64>,
    /// `deviceId`.
    pub device_id: Option<i64>,
    /// `nullStreamId`.
    pub null_stream_id: Option<i64>,
    /// `parentContextId` of a green context.
    pub parent_context_id: Option<i64>,
    /// `isGreenContext`.
    pub green: bool,
}

/// A CUDA stream (`TARGET_INFO_CUDA_STREAM`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CudaStream {
    /// `processId`.
    pub process_id: Option<i64>,
    /// `contextId`.
    pub context_id: Option<i64>,
    /// `streamId`.
    pub stream_id: Option<i64>,
    /// `priority` (written as an unsigned 32-bit number: 4294967291 is -5).
    pub priority: Option<i64>,
    /// The stream type (`flag` by `ENUM_CUPTI_STREAM_TYPE`: "Non-blocking stream").
    pub kind: String,
    /// The name NVTX gave it (`TARGET_INFO_NVTX_CUDA_STREAM`).
    pub name: Option<String>,
}

/// A CUDA device as one process saw it (`TARGET_INFO_CUDA_DEVICE`; its name, memory and
/// compute capability are the GPU's, [`crate::timeline::model::SessionInfo::gpus`] by
/// [`CudaDevice::gpu_id`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CudaDevice {
    /// `gpuId`: the GPU (`TARGET_INFO_GPU.id`).
    pub gpu_id: Option<i64>,
    /// `cudaId`: the CUDA device number in the process.
    pub cuda_id: Option<i64>,
    /// `pid`: the process.
    pub pid: Option<i64>,
    /// `uuid` (since 2026.1, schema 3.24; an empty one read as none).
    pub uuid: Option<String>,
    /// `numMultiprocessors`: the SMs available to the process (since 2026.1, schema 3.24).
    pub multiprocessors: Option<i64>,
}

/// A file the analysis kept (`ANALYSIS_FILE`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct AnalysisFile {
    /// `id`.
    pub id: Option<i64>,
    /// `filename`: where it was written on the target ("…/pid_1246_stdout.log").
    pub file: String,
    /// `globalPid`: the process it belongs to.
    pub global_pid: Option<i64>,
    /// Its text: `content` in older exports (2024.5), `contentId` (into `StringIds`) in newer
    /// ones (2024.6 on).
    pub content: String,
}

/// The analysed span of one machine (`ANALYSIS_DETAILS`), in ns on the export's clock.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AnalysisSpan {
    /// `globalVid`: the machine.
    pub global_vid: Option<i64>,
    /// `startTime`.
    pub start: Option<i64>,
    /// `stopTime`.
    pub stop: Option<i64>,
    /// `duration`.
    pub duration: Option<i64>,
}

/// What a process wrote to one of its streams (`ProcessStreams`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ProcessOutput {
    /// `globalPid`: the process.
    pub global_pid: Option<i64>,
    /// The file it was captured in (`filenameId`: "…/pid_1246_stdout.log").
    pub file: String,
    /// The text (`contentId`).
    pub content: String,
}
