//! The `.atp` generator. Thread blocks are written twice from the same deterministic functions
//! (API Trace section, then Timestamp section), so a gigabyte trace streams out without being
//! held in memory.

use std::io::{self, Write};

use super::{LineEnding, Rng};

/// Section names of one writer generation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SectionStyle {
    /// RCP and CodeXL ≥ 2.3: `ocl API Trace Output`, `Perfmarker Output`...
    Current,
    /// CodeXL before 2.3: `CodeXL ocl API Trace Output`, `CodeXL Perfmarker Output`...
    CodeXlPrefix,
    /// The oldest writers (OpenCL only): `AMD APP Profiler Trace Output`,
    /// `AMD APP Profiler Timestamp Output`, `OpenCL Perfmarker Output`.
    AmdAppProfiler,
}

/// What to generate.
#[derive(Debug, Clone)]
pub struct AtpSpec {
    /// Section-name generation.
    pub style: SectionStyle,
    /// LF or CRLF.
    pub line_ending: LineEnding,
    /// OpenCL host threads.
    pub opencl_threads: u32,
    /// HSA host threads (none with [`SectionStyle::AmdAppProfiler`]).
    pub hsa_threads: u32,
    /// Loop iterations per thread (each: `set_args` clSetKernelArg, 4 enqueues — write, kernel,
    /// read, marker —, `event_queries` clGetEventProfilingInfo and a clFinish; or 4 HSA calls,
    /// one async copy and one kernel dispatch).
    pub iterations: u32,
    /// clSetKernelArg calls per OpenCL iteration.
    pub set_args: u32,
    /// clGetEventProfilingInfo calls per OpenCL iteration.
    pub event_queries: u32,
    /// Write the perfmarker section (two nested ranges per OpenCL iteration).
    pub perfmarkers: bool,
    /// Write the source-code (stack trace) sections.
    pub source_code: bool,
    /// RCP 5.x kernel timestamp rows (agent index, AQL packet type, packet id, packet text) with
    /// a barrier packet after every third dispatch; otherwise the 3.2 rows.
    pub rcp5_kernel_rows: bool,
    /// Put bytes that are not UTF-8 in the header and in arguments.
    pub non_utf8: bool,
    /// Seed of the time jitter.
    pub seed: u64,
}

impl Default for AtpSpec {
    fn default() -> Self {
        AtpSpec {
            style: SectionStyle::Current,
            line_ending: LineEnding::Lf,
            opencl_threads: 2,
            hsa_threads: 1,
            iterations: 4,
            set_args: 2,
            event_queries: 0,
            perfmarkers: true,
            source_code: true,
            rcp5_kernel_rows: true,
            non_utf8: true,
            seed: 1,
        }
    }
}

/// Ground truth of a generated trace.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AtpTruth {
    /// OpenCL API calls.
    pub opencl_calls: u64,
    /// HSA API calls.
    pub hsa_calls: u64,
    /// OpenCL enqueue commands with device times.
    pub enqueues: u64,
    /// Of which kernel launches.
    pub kernel_enqueues: u64,
    /// Of which data transfers.
    pub transfers: u64,
    /// Sum of the transfer sizes (bytes).
    pub transfer_bytes: u64,
    /// HSA kernel dispatches.
    pub hsa_dispatches: u64,
    /// Kernel Timestamp rows of other packets.
    pub skipped_packets: u64,
    /// HSA async copies.
    pub hsa_copies: u64,
    /// Perfmarker ranges.
    pub perfmarkers: u64,
    /// Source-code lines.
    pub source_lines: u64,
    /// Thread blocks per API section.
    pub threads: u64,
    /// Bytes written.
    pub bytes: u64,
}

/// OpenCL calls per iteration.
pub fn opencl_calls_per_iteration(spec: &AtpSpec) -> u64 {
    u64::from(spec.set_args) + 5 + u64::from(spec.event_queries)
}

/// OpenCL calls per thread: 8 set-up calls, the iterations, 1 release.
pub fn opencl_calls_per_thread(spec: &AtpSpec) -> u64 {
    8 + opencl_calls_per_iteration(spec) * u64::from(spec.iterations) + 1
}

/// Index (within its thread) of the clEnqueueNDRangeKernel call of `iteration`.
pub fn ndrange_call_index(spec: &AtpSpec, iteration: u64) -> u64 {
    8 + opencl_calls_per_iteration(spec) * iteration + u64::from(spec.set_args) + 1
}

/// HSA calls per thread: 4 set-up calls, 4 per iteration, 1 shut-down.
pub fn hsa_calls_per_thread(iterations: u32) -> u64 {
    4 + 4 * u64::from(iterations) + 1
}

/// Kernel name, global size, local size (None: NULL), dimensions.
type KernelArgs = (&'static str, [u64; 2], Option<[u64; 2]>, u8);

struct Enqueue {
    cmd_type: u32,
    cmd_name: &'static str,
    kernel: Option<KernelArgs>,
    transfer: Option<u64>,
}

struct Call {
    type_id: u32,
    name: &'static str,
    ret: Option<&'static str>,
    args: String,
    start: u64,
    end: u64,
    enqueue: Option<Enqueue>,
    copy: Option<(u64, u64)>,
}

const KERNELS: [&str; 3] = ["vadd", "matmul_tiled", "reduce"];

fn thread_base(api: u64, thread: u32) -> u64 {
    1_000_000_000 + api * 100_000_000 + u64::from(thread) * 10_000
}

/// Makes calls `(type id, name, return value, arguments)` that run from `start` to `end`, with
/// no device command and no copy.
fn calls_at(
    start: u64,
    end: u64,
) -> impl Fn(u32, &'static str, Option<&'static str>, String) -> Call {
    move |type_id, name, ret, args| Call {
        type_id,
        name,
        ret,
        args,
        start,
        end,
        enqueue: None,
        copy: None,
    }
}

/// The OpenCL calls every thread makes before its iterations.
const SETUP_CALLS: u64 = 8;

/// The `index`-th OpenCL call of `thread` (deterministic in (seed, thread, index)).
fn opencl_call(spec: &AtpSpec, thread: u32, index: u64) -> Call {
    let mut rng = Rng::new(spec.seed ^ (u64::from(thread) << 40) ^ index.wrapping_mul(0x1000_0001));
    let start = thread_base(0, thread) + index * 20_000 + rng.range_inclusive(0, 500);
    let end = start + rng.range_inclusive(800, 12_000);
    let call = calls_at(start, end);
    let per_iteration = opencl_calls_per_iteration(spec);
    let last = SETUP_CALLS + per_iteration * u64::from(spec.iterations);
    if index < SETUP_CALLS {
        return setup_call(spec, thread, index, call);
    }
    if index >= last {
        return call(
            51,
            "clReleaseKernel",
            Some("CL_SUCCESS"),
            "0x0000000001C60000".into(),
        );
    }
    let iteration = (index - SETUP_CALLS) / per_iteration;
    let step = (index - SETUP_CALLS) % per_iteration;
    let (type_id, name, text, enq) = iteration_call(spec, thread, iteration, step);
    let mut c = call(type_id, name, Some("CL_SUCCESS"), text);
    c.enqueue = enq;
    c
}

/// Setup call `index` (below [`SETUP_CALLS`]): platform, context, queue, two buffers, the
/// program, its build and the thread's kernel.
fn setup_call(
    spec: &AtpSpec,
    thread: u32,
    index: u64,
    call: impl Fn(u32, &'static str, Option<&'static str>, String) -> Call,
) -> Call {
    match index {
        0 => call(
            4,
            "clGetPlatformIDs",
            Some("CL_SUCCESS"),
            "1;[0x7f1000];NULL".into(),
        ),
        1 => call(
            8,
            "clCreateContext",
            Some("0x0000000001C2E0A0"),
            "[{CL_CONTEXT_PLATFORM,0x7f1000}];1;[0x1D00];NULL;NULL;CL_SUCCESS".into(),
        ),
        2 => call(
            14,
            "clCreateCommandQueue",
            Some("0x0000000001C30010"),
            "0x0000000001C2E0A0;0x1D00;CL_QUEUE_PROFILING_ENABLE;CL_SUCCESS".into(),
        ),
        3 | 4 => call(
            20,
            "clCreateBuffer",
            Some("0x0000000001C40000"),
            "0x0000000001C2E0A0;CL_MEM_READ_WRITE;4096;NULL;CL_SUCCESS".into(),
        ),
        5 => {
            let source = if spec.non_utf8 {
                "[\"// caf\u{e9}; k(); \\n...\"]"
            } else {
                "[\"// k(); \\n...\"]"
            };
            call(
                39,
                "clCreateProgramWithSource",
                Some("0x0000000001C50000"),
                format!("0x0000000001C2E0A0;1;{source};NULL;CL_SUCCESS"),
            )
        }
        6 => call(
            43,
            "clBuildProgram",
            Some("CL_SUCCESS"),
            "0x0000000001C50000;1;[0x1D00];\"-O3\";NULL;NULL".into(),
        ),
        _ => call(
            47,
            "clCreateKernel",
            Some("0x0000000001C60000"),
            format!(
                "0x0000000001C50000;\"{}\";CL_SUCCESS",
                KERNELS[thread as usize % 3]
            ),
        ),
    }
}

/// Call `step` of an iteration: `(type id, name, arguments, device command)`. Set the
/// kernel's arguments, write a buffer, launch, read back, a marker, profiling queries, finish.
fn iteration_call(
    spec: &AtpSpec,
    thread: u32,
    iteration: u64,
    step: u64,
) -> (u32, &'static str, String, Option<Enqueue>) {
    let per_iteration = opencl_calls_per_iteration(spec);
    let args = u64::from(spec.set_args);
    let enqueue = |cmd_type, cmd_name, kernel, transfer| Enqueue {
        cmd_type,
        cmd_name,
        kernel,
        transfer,
    };
    match step {
        s if s < args => (
            53,
            "clSetKernelArg",
            format!("0x0000000001C60000;{s};8;0x7ffc{s:04}"),
            None,
        ),
        s if s == args => {
            let size = 4096 << (iteration % 4);
            (
                65,
                "clEnqueueWriteBuffer",
                format!(
                    "0x0000000001C30010;0x0000000001C40000;CL_FALSE;0;{size};0x7f200000;0;NULL;NULL"
                ),
                Some(enqueue(4562, "CL_COMMAND_WRITE_BUFFER", None, Some(size))),
            )
        }
        s if s == args + 1 => ndrange_call(thread, iteration),
        s if s == args + 2 => (
            62,
            "clEnqueueReadBuffer",
            "0x0000000001C30010;0x0000000001C40000;CL_TRUE;0;4096;0x7f300000;0;NULL;NULL".into(),
            Some(enqueue(4561, "CL_COMMAND_READ_BUFFER", None, Some(4096))),
        ),
        s if s == args + 3 => (
            115,
            "clEnqueueMarkerWithWaitList",
            "0x0000000001C30010;0;NULL;[0x0000000001C70000]".into(),
            Some(enqueue(4574, "CL_COMMAND_MARKER", None, None)),
        ),
        s if s + 1 < per_iteration => (
            94,
            "clGetEventProfilingInfo",
            "0x0000000001C70000;CL_PROFILING_COMMAND_END;8;[1];NULL".into(),
            None,
        ),
        _ => (28, "clFinish", "0x0000000001C30010".into(), None),
    }
}

/// The kernel launch of an iteration: 1-D or 2-D (alternating), a global size cycling over
/// three values, and a local size except every third iteration.
fn ndrange_call(thread: u32, iteration: u64) -> (u32, &'static str, String, Option<Enqueue>) {
    let kernel = KERNELS[thread as usize % 3];
    let two_d = iteration % 2 == 1;
    let local = (iteration % 3 != 2).then_some([64, if two_d { 4 } else { 1 }]);
    let global = [1024 * (1 + iteration % 3), if two_d { 16 } else { 1 }];
    let dims = if two_d { 2 } else { 1 };
    (
        73,
        "clEnqueueNDRangeKernel",
        format!(
            "0x0000000001C30010;0x0000000001C60000;{dims};NULL;[{}];NULL;0;NULL;NULL",
            global[0]
        ),
        Some(Enqueue {
            cmd_type: 4592,
            cmd_name: "CL_COMMAND_NDRANGE_KERNEL",
            kernel: Some((kernel, global, local, dims)),
            transfer: None,
        }),
    )
}

/// The device times of an enqueue call: queued, submit, start, end.
fn device_times(call: &Call) -> [u64; 4] {
    let queued = call.start + 300;
    let submit = call.end + 200;
    let start = submit + 1_000 + (call.start % 3_000);
    let end = start + 2_000 + (call.end % 80_000);
    [queued, submit, start, end]
}

/// The `index`-th HSA call of `thread`.
fn hsa_call(spec: &AtpSpec, thread: u32, index: u64) -> Call {
    let mut rng =
        Rng::new(spec.seed ^ 0xABCD ^ (u64::from(thread) << 40) ^ index.wrapping_mul(0x2000_0003));
    let start = thread_base(1, thread) + index * 15_000 + rng.range_inclusive(0, 400);
    let end = start + rng.range_inclusive(500, 9_000);
    let call = calls_at(start, end);
    let last = 4 + 4 * u64::from(spec.iterations);
    match index {
        0 => call(1, "hsa_init", Some("HSA_STATUS_SUCCESS"), String::new()),
        1 => call(10, "hsa_iterate_agents", Some("HSA_STATUS_SUCCESS"), "0x7f4000;NULL".into()),
        2 => call(60, "hsa_queue_create", Some("HSA_STATUS_SUCCESS"), "{handle=0x2A00};4096;HSA_QUEUE_TYPE_MULTI;NULL;NULL;4294967295;4294967295;[0x7f5000]".into()),
        3 => call(30, "hsa_signal_create", Some("HSA_STATUS_SUCCESS"), "1;0;NULL;[{handle=0x7f6000}]".into()),
        i if i >= last => call(2, "hsa_shut_down", Some("HSA_STATUS_SUCCESS"), String::new()),
        i => match (i - 4) % 4 {
            0 => {
                let size = 65536 << ((i / 4) % 3);
                let mut c = call(120, "hsa_amd_memory_async_copy", Some("HSA_STATUS_SUCCESS"), format!("0x7f700000;{{handle=0x2A00}};0x7f800000;{{handle=0x1B00}};{size};0;NULL;{{handle=0x7f6000}}"));
                let copy_start = end + rng.range_inclusive(100, 900);
                c.copy = Some((copy_start, copy_start + size / 8));
                c
            }
            1 => call(45, "hsa_queue_load_write_index_relaxed", Some("0"), "0x7f5000".into()),
            // Void functions have no `Ret = ` part.
            2 => call(36, "hsa_signal_store_relaxed", None, "{handle=0x7f6000};1".into()),
            _ => call(40, "hsa_signal_wait_acquire", Some("0"), "{handle=0x7f6000};HSA_SIGNAL_CONDITION_LT;1;18446744073709551615;HSA_WAIT_STATE_BLOCKED".into()),
        },
    }
}

struct Out<'a> {
    w: &'a mut dyn Write,
    eol: &'static str,
    bytes: u64,
}

impl Out<'_> {
    fn line(&mut self, text: &[u8]) -> io::Result<()> {
        self.w.write_all(text)?;
        self.w.write_all(self.eol.as_bytes())?;
        self.bytes += (text.len() + self.eol.len()) as u64;
        Ok(())
    }

    fn text(&mut self, text: &str) -> io::Result<()> {
        self.line(text.as_bytes())
    }
}

fn section_name(style: SectionStyle, api: &str, what: &str) -> String {
    match style {
        SectionStyle::Current => format!("====={api} {what}====="),
        SectionStyle::CodeXlPrefix => format!("=====CodeXL {api} {what}====="),
        SectionStyle::AmdAppProfiler => match what {
            "API Trace Output" => "=====AMD APP Profiler Trace Output=====".into(),
            "Timestamp Output" => "=====AMD APP Profiler Timestamp Output=====".into(),
            _ => format!("====={api} {what}====="),
        },
    }
}

fn trace_line(call: &Call) -> String {
    match call.ret {
        Some(ret) => format!("{ret} = {} ( {} )", call.name, call.args),
        None => format!("{} ( {} )", call.name, call.args),
    }
}

fn timestamp_line(call: &Call) -> String {
    use std::fmt::Write as _;
    let mut s = format!(
        " {:<4} {:<44} {:<20} {:<20}",
        call.type_id, call.name, call.start, call.end
    );
    if let Some(e) = &call.enqueue {
        let [queued, submit, start, end] = device_times(call);
        let _ = write!(
            s,
            " {:<7} {:<39} {:<20} {:<20} {:<20} {:<20} {:>9} {:>24} {:>9} {:>24} {:>39}",
            e.cmd_type,
            e.cmd_name,
            queued,
            submit,
            start,
            end,
            1,
            "0x0000000001C30010",
            1,
            "0x0000000001C2E0A0",
            "Tahiti"
        );
        if let Some((kernel, global, local, dims)) = &e.kernel {
            let sizes = |v: &[u64; 2]| {
                v[..usize::from(*dims)]
                    .iter()
                    .map(u64::to_string)
                    .collect::<Vec<_>>()
                    .join(",")
            };
            let local = local
                .as_ref()
                .map_or("{NULL}".to_string(), |l| format!("{{{}}}", sizes(l)));
            let _ = write!(
                s,
                " {:<24}{kernel}      {{{}}}     {local}        ",
                "0x0000000001C60000",
                sizes(global)
            );
        }
        if let Some(bytes) = e.transfer {
            let _ = write!(s, "                        {bytes} ");
        }
    }
    if let Some((copy_start, copy_end)) = call.copy {
        let _ = write!(s, "{copy_start:<21}{copy_end:<21}");
    }
    s
}

/// Writes a trace; returns what it wrote.
pub fn write_atp(spec: &AtpSpec, w: &mut dyn Write) -> io::Result<AtpTruth> {
    let mut out = Out {
        w,
        eol: spec.line_ending.as_str(),
        bytes: 0,
    };
    let mut truth = AtpTruth::default();
    let hsa_threads = if spec.style == SectionStyle::AmdAppProfiler {
        0
    } else {
        spec.hsa_threads
    };
    write_header(spec, hsa_threads, &mut out)?;
    if spec.opencl_threads > 0 {
        write_opencl(spec, &mut out, &mut truth)?;
    }
    if hsa_threads > 0 {
        write_hsa(spec, hsa_threads, &mut out, &mut truth)?;
        write_kernel_timestamps(spec, hsa_threads, &mut out, &mut truth)?;
    }
    if spec.perfmarkers && spec.opencl_threads > 0 {
        write_perfmarkers(spec, &mut out, &mut truth)?;
    }
    if spec.source_code && spec.style != SectionStyle::AmdAppProfiler {
        write_source_code(spec, hsa_threads, &mut out, &mut truth)?;
    }
    out.w.flush()?;
    truth.bytes = out.bytes;
    Ok(truth)
}

/// The thread id of OpenCL thread `t`.
fn ocl_tid(t: u32) -> u64 {
    4100 + u64::from(t)
}

/// The thread id of HSA thread `t`.
fn hsa_tid(t: u32) -> u64 {
    5200 + u64::from(t)
}

/// The header: versions, application, environment and excluded APIs.
fn write_header(spec: &AtpSpec, hsa_threads: u32, out: &mut Out<'_>) -> io::Result<()> {
    let version = if spec.style == SectionStyle::AmdAppProfiler {
        "1.1"
    } else {
        "3.2"
    };
    out.text(&format!("TraceFileVersion={version}"))?;
    out.text("ProfilerVersion=5.2.6553")?;
    if spec.non_utf8 {
        out.line(b"Application=C:\\Users\\Ren\xe9\\app.exe")?;
    } else {
        out.text("Application=/home/user/app")?;
    }
    out.text("ApplicationArgs=--size 1024 --mode=fast")?;
    out.text("WorkingDirectory=/home/user")?;
    out.text("FullEnvironment=False")?;
    out.text("EnvVar=GPU_MAX_HEAP_SIZE=100")?;
    out.text("EnvVar=PATH=/usr/bin:/bin")?;
    out.text("UserTimer=False")?;
    out.text("OS Version=Linux 4.10.0-28-generic")?;
    out.text("DisplayName=Session1")?;
    out.text("oclExcludedAPIs=clGetEventInfo;clGetDeviceInfo")?;
    if hsa_threads > 0 {
        out.text("hsaExcludedAPIs=")?;
    }
    Ok(())
}

/// OpenCL: the API trace of every thread, then the timestamps (counting the enqueues).
fn write_opencl(spec: &AtpSpec, out: &mut Out<'_>, truth: &mut AtpTruth) -> io::Result<()> {
    let ocl_count = opencl_calls_per_thread(spec);
    out.text(&section_name(spec.style, "ocl", "API Trace Output"))?;
    for t in 0..spec.opencl_threads {
        out.text(&ocl_tid(t).to_string())?;
        out.text(&ocl_count.to_string())?;
        for i in 0..ocl_count {
            let call = opencl_call(spec, t, i);
            let mut line = trace_line(&call).into_bytes();
            if spec.non_utf8 && i == 5 {
                // Latin-1 bytes where the source text had "é".
                line = String::from_utf8_lossy(&line)
                    .replace('\u{e9}', "\u{1}")
                    .into_bytes();
                for b in &mut line {
                    if *b == 1 {
                        *b = 0xE9;
                    }
                }
            }
            out.line(&line)?;
        }
    }
    out.text(&section_name(spec.style, "ocl", "Timestamp Output"))?;
    for t in 0..spec.opencl_threads {
        out.text(&ocl_tid(t).to_string())?;
        out.text(&ocl_count.to_string())?;
        for i in 0..ocl_count {
            let call = opencl_call(spec, t, i);
            if let Some(e) = &call.enqueue {
                truth.enqueues += 1;
                truth.kernel_enqueues += u64::from(e.kernel.is_some());
                if let Some(bytes) = e.transfer {
                    truth.transfers += 1;
                    truth.transfer_bytes += bytes;
                }
            }
            out.text(&timestamp_line(&call))?;
        }
        truth.opencl_calls += ocl_count;
        truth.threads += 1;
    }
    Ok(())
}

/// HSA: the API trace of every thread, then the timestamps (counting the copies).
fn write_hsa(
    spec: &AtpSpec,
    hsa_threads: u32,
    out: &mut Out<'_>,
    truth: &mut AtpTruth,
) -> io::Result<()> {
    let hsa_count = hsa_calls_per_thread(spec.iterations);
    out.text(&section_name(spec.style, "hsa", "API Trace Output"))?;
    for t in 0..hsa_threads {
        out.text(&hsa_tid(t).to_string())?;
        out.text(&hsa_count.to_string())?;
        for i in 0..hsa_count {
            out.text(&trace_line(&hsa_call(spec, t, i)))?;
        }
    }
    out.text(&section_name(spec.style, "hsa", "Timestamp Output"))?;
    for t in 0..hsa_threads {
        out.text(&hsa_tid(t).to_string())?;
        out.text(&hsa_count.to_string())?;
        for i in 0..hsa_count {
            let call = hsa_call(spec, t, i);
            truth.hsa_copies += u64::from(call.copy.is_some());
            out.text(&timestamp_line(&call))?;
        }
        truth.hsa_calls += hsa_count;
        truth.threads += 1;
    }
    Ok(())
}

/// HSA kernel timestamps: one dispatch per thread and iteration, in the RCP 5 layout with a
/// barrier packet every third iteration when asked.
fn write_kernel_timestamps(
    spec: &AtpSpec,
    hsa_threads: u32,
    out: &mut Out<'_>,
    truth: &mut AtpTruth,
) -> io::Result<()> {
    out.text(&section_name(spec.style, "hsa", "Kernel Timestamp Output"))?;
    let dispatches = u64::from(hsa_threads) * u64::from(spec.iterations);
    let barriers = if spec.rcp5_kernel_rows {
        u64::from(hsa_threads) * u64::from(spec.iterations / 3)
    } else {
        0
    };
    out.text(&(dispatches + barriers).to_string())?;
    let names = [
        "vector&nbsp;add&comma;v2",
        "Z9transposePfS_ii",
        "__OpenCL_scale_kernel",
    ];
    let mut packet = 0u64;
    for t in 0..hsa_threads {
        for it in 0..u64::from(spec.iterations) {
            let start = thread_base(1, t) + 50_000_000 + it * 40_000;
            let name = names[(it % 3) as usize];
            if spec.rcp5_kernel_rows {
                out.text(&format!(
                    "{name}   0x00007F12{it:08X}   {start}   {}   gfx803   0x0000000000A1B2C3   {t}   0x00007F0000{t:06X}   1   HSA_PACKET_TYPE_KERNEL_DISPATCH   {packet}   header=2 setup=1 workgroup_size_x=64",
                    start + 20_000
                ))?;
                packet += 1;
                if it % 3 == 2 {
                    out.text(&format!(
                        "barrier   0x0   {}   {}   gfx803   0x0000000000A1B2C3   {t}   0x00007F0000{t:06X}   1   HSA_PACKET_TYPE_BARRIER_AND   {packet}   header=3",
                        start + 21_000,
                        start + 22_000
                    ))?;
                    packet += 1;
                    truth.skipped_packets += 1;
                }
            } else {
                out.text(&format!("{name}   0x00007F12{it:08X}   {start}   {}   gfx803   0x0000000000A1B2C3   {t}   0x00007F0000{t:06X}", start + 20_000))?;
            }
            truth.hsa_dispatches += 1;
        }
    }
    Ok(())
}

/// Perfmarkers: per OpenCL thread, per iteration an outer range holding an inner one; the
/// outer one ends with clEndPerfMarkerEx every other iteration.
fn write_perfmarkers(spec: &AtpSpec, out: &mut Out<'_>, truth: &mut AtpTruth) -> io::Result<()> {
    let name = match spec.style {
        SectionStyle::Current => "=====Perfmarker Output=====",
        SectionStyle::CodeXlPrefix => "=====CodeXL Perfmarker Output=====",
        SectionStyle::AmdAppProfiler => "=====OpenCL Perfmarker Output=====",
    };
    out.text(name)?;
    for t in 0..spec.opencl_threads {
        out.text(&ocl_tid(t).to_string())?;
        out.text(&(4 * u64::from(spec.iterations)).to_string())?;
        for it in 0..u64::from(spec.iterations) {
            let base = thread_base(0, t) + 160_000 + it * 140_000;
            out.text(&format!(
                "clBeginPerfMarker   frame&nbsp;{it}   {base}   render&nbsp;loop"
            ))?;
            out.text(&format!(
                "clBeginPerfMarker   upload   {}   io",
                base + 10_000
            ))?;
            out.text(&format!("clEndPerfMarker   {}", base + 30_000))?;
            if it % 2 == 0 {
                out.text(&format!("clEndPerfMarker     {}", base + 120_000))?;
            } else {
                out.text(&format!(
                    "clEndPerfMarkerEx   {}   frame&nbsp;{it}   render&nbsp;loop",
                    base + 120_000
                ))?;
            }
            truth.perfmarkers += 2;
        }
    }
    Ok(())
}

/// Source code: one line per call; even threads with debug information (a path with a
/// space), odd threads without (an address, no file).
fn write_source_code(
    spec: &AtpSpec,
    hsa_threads: u32,
    out: &mut Out<'_>,
    truth: &mut AtpTruth,
) -> io::Result<()> {
    for (api, threads, count) in [
        ("ocl", spec.opencl_threads, opencl_calls_per_thread(spec)),
        ("hsa", hsa_threads, hsa_calls_per_thread(spec.iterations)),
    ] {
        if threads == 0 {
            continue;
        }
        out.text(&section_name(spec.style, api, "Stack Trace Output"))?;
        for t in 0..threads {
            let tid = if api == "ocl" { ocl_tid(t) } else { hsa_tid(t) };
            out.text(&tid.to_string())?;
            out.text(&count.to_string())?;
            for i in 0..count {
                let name = if api == "ocl" {
                    opencl_call(spec, t, i).name
                } else {
                    hsa_call(spec, t, i).name
                };
                if t % 2 == 0 {
                    out.text(&format!(
                        "{name}   RunBenchmark   {}   /home/user/my project/main.cpp",
                        100 + i
                    ))?;
                } else {
                    out.text(&format!("{name}   0x{:08X}   0", 0x401000 + i * 16))?;
                }
                truth.source_lines += 1;
            }
        }
    }
    Ok(())
}

/// The trace as bytes (small specs only).
pub fn atp_bytes(spec: &AtpSpec) -> (Vec<u8>, AtpTruth) {
    let mut bytes = Vec::new();
    // Writing to a Vec cannot fail.
    let truth = write_atp(spec, &mut bytes).unwrap_or_default();
    (bytes, truth)
}

/// A spec whose trace is about `target_bytes` long (for the benchmark): 8 OpenCL threads whose
/// iterations hold 40 clSetKernelArg, 4 enqueues and 2 clGetEventProfilingInfo (~190 bytes
/// per API call, so a gigabyte holds over 5 million calls), 2 HSA threads, iterations scaled to
/// the size.
pub fn spec_for_size(target_bytes: u64, seed: u64) -> AtpSpec {
    let mut spec = AtpSpec {
        opencl_threads: 8,
        hsa_threads: 2,
        iterations: 1,
        set_args: 40,
        event_queries: 2,
        source_code: false,
        seed,
        ..AtpSpec::default()
    };
    let (_, sample) = atp_bytes(&AtpSpec {
        iterations: 64,
        ..spec.clone()
    });
    let (_, base) = atp_bytes(&AtpSpec {
        iterations: 0,
        ..spec.clone()
    });
    let per_iteration = (sample.bytes - base.bytes) / 64;
    spec.iterations = (target_bytes.saturating_sub(base.bytes) / per_iteration.max(1))
        .clamp(1, u64::from(u32::MAX)) as u32;
    spec
}
