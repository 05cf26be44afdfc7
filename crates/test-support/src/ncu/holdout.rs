//! Held-out reports for the Python Report Interface: reports no test was tuned on, written by
//! Sightline's own writer at test time, on which the scripts of `tests/python/holdout/` must
//! print the same with Sightline's `ncu_report` and NVIDIA's.
//!
//! They differ from the fixtures on purpose: other kernels and seeds, NVTX states with nested
//! push/pop ranges in two domains, start/end ranges, event attributes (message, colour,
//! category, payloads of several types) and kernels without any state; several streams; a
//! kernel with string, integer and double instances with and without correlation ids; a
//! baseline and a changed run of the same application; and a source report around a cubin of
//! three functions with two launched.
//!
//! What NVIDIA's module makes of them (2026.3.1): it reads the two kernel reports, but finds no
//! metric library for them (no units, every type OTHER, no descriptions), though their session
//! names the chip and the versions real reports name and every result carries
//! `device__attribute_chip`; and it reads no result at all from the source report (zero
//! ranges), so the held-out comparison runs on the kernel reports only.

use std::io::{self, Write};
use std::path::{Path, PathBuf};

use super::synth::{
    KernelSpec, instanced, nvtx_state, scalar, session_details_of, write_kernels_in,
};
use super::synth_kernels::sample_kernel;
use super::synth_source::{CubinSpec, FunctionSpec, write_source_report_in};
use sightline_model::ncu::MetricValue::{self, Double, String as Str, Uint32, Uint64};
use sightline_model::proto::nv::nvtx as nvtx_pb;
use sightline_model::proto::nv::profiler::messages as pb;

/// File names of the held-out reports, as [`write_holdout`] writes them.
pub const HOLDOUT_NAMES: &[&str] = &[
    "holdout_train.ncu-rep",
    "holdout_train_v2.ncu-rep",
    "holdout_source.ncu-rep",
];

/// Writes every held-out report into `dir`; returns their paths, in [`HOLDOUT_NAMES`] order.
pub fn write_holdout(dir: &Path) -> io::Result<Vec<PathBuf>> {
    HOLDOUT_NAMES
        .iter()
        .map(|name| {
            let path = dir.join(name);
            let mut file = io::BufWriter::new(std::fs::File::create(&path)?);
            write_named(name, &mut file)?;
            file.flush()?;
            Ok(path)
        })
        .collect()
}

/// Writes the held-out report `name` (one of [`HOLDOUT_NAMES`]).
fn write_named(name: &str, out: impl Write) -> io::Result<()> {
    match name {
        "holdout_train.ncu-rep" => {
            write_kernels_in(session(), &train_kernels(0x7a11_0001, false), 2, out)
        }
        "holdout_train_v2.ncu-rep" => {
            write_kernels_in(session(), &train_kernels(0x7a11_0002, true), 3, out)
        }
        "holdout_source.ncu-rep" => write_source(out),
        _ => Err(io::Error::new(
            io::ErrorKind::NotFound,
            format!("no held-out report named {name}"),
        )),
    }
}

/// The session of every held-out report: the synthetic device with its chip (GA102, of compute
/// capability 8.6), as real reports name it.
fn session() -> pb::ReportSessionDetails {
    let mut session = session_details_of(&[("chip", 0x172)]);
    session.version_info.extend([
        version(
            "Nsight Compute Target",
            "2024.1.1.0 (build 33998838) (public-release)",
        ),
        version("PerfWorks", "2024.1.1.0"),
    ]);
    session
}

/// A version entry of the session.
fn version(provider: &str, version: &str) -> pb::VersionInfo {
    pb::VersionInfo {
        provider: provider.into(),
        version: version.into(),
    }
}

/// Event attributes: a message, an ARGB colour, a category and a payload.
fn attributes(
    message: &str,
    color: u32,
    category: u32,
    payload: Payload,
) -> nvtx_pb::NvtxEventAttributes {
    let mut p = nvtx_pb::NvtxPayload::default();
    match payload {
        Payload::U64(v) => {
            p.payload_type = nvtx_pb::NvtxPayloadType::Uint64 as i32;
            p.ull_value = Some(v);
        }
        Payload::I32(v) => {
            p.payload_type = nvtx_pb::NvtxPayloadType::Int32 as i32;
            p.i_value = Some(v);
        }
        Payload::F64(v) => {
            p.payload_type = nvtx_pb::NvtxPayloadType::Double as i32;
            p.double_value = Some(v);
        }
    }
    nvtx_pb::NvtxEventAttributes {
        version: 3,
        category,
        color: nvtx_pb::NvtxColor {
            color_type: nvtx_pb::NvtxColorType::Argb as i32,
            color: Some(color),
        },
        payload: p,
        message: nvtx_pb::NvtxMessage {
            message_type: nvtx_pb::NvtxMessageType::Ascii as i32,
            message: Some(message.to_owned()),
            handle: None,
        },
    }
}

/// An NVTX event payload.
#[derive(Clone, Copy)]
enum Payload {
    U64(u64),
    I32(i32),
    F64(f64),
}

/// A state of push/pop `stack` and start/end `open` ranges in the default domain and `app`
/// ranges in domain 7, with attributes on the innermost push/pop range and the first
/// start/end range.
fn train_state(
    stack: &[&str],
    open: &[&str],
    app: &[&str],
    payload: Payload,
) -> nvtx_pb::NvtxState {
    let extra = (!app.is_empty()).then_some((7, "app", app));
    let mut state = nvtx_state(stack, open, extra);
    if let Some(top) = state.threads[0].push_pop_domains[0].stack.last_mut() {
        top.attributes = Some(attributes(
            &format!("{} step", top.name),
            0xff33_6699,
            2,
            payload,
        ));
    }
    if let Some(first) = state.start_end_domains[0].ranges.first_mut() {
        first.attributes = Some(attributes("open", 0xff00_ff00, 0, Payload::U64(3)));
        first.start_tid = Some(4242);
    }
    state
}

/// The kernels of a small training application; `changed` is a second run: other values, one
/// kernel gone, one new, an extra metric.
fn train_kernels(seed: u64, changed: bool) -> Vec<KernelSpec> {
    let mut rng = super::synth::SplitMix64::new(seed);
    let mut kernels = train_launches(&mut rng);
    with_states_and_streams(&mut kernels);
    kernels[4].metrics.push((
        "sm__sass_data_bytes_mem_shared.sum".into(),
        instances_metric(&mut rng),
    ));
    kernels[4]
        .metrics
        .push(("launch__uses_cdp".into(), scalar(Uint32(0))));
    kernels[4]
        .metrics
        .push(("profiler__replayer_passes_type".into(), string_instances()));
    kernels[4]
        .metrics
        .push(("smsp__pcsamp_sample_count".into(), uncorrelated(&mut rng)));
    if changed {
        kernels.remove(3);
        for k in &mut kernels {
            k.metrics
                .push(("l1tex__t_bytes.sum".into(), scalar(Double(1.0e6))));
        }
        let mut extra = kernels[0].clone();
        extra.function = "layer_norm".into();
        extra.demangled = "ml::layer_norm(float *, int)".into();
        extra.mangled = "_ZN2ml10layer_normEPfi".into();
        kernels.push(extra);
    }
    kernels
}

/// The six launches of the training application, drawn from `rng`, without NVTX state.
fn train_launches(rng: &mut super::synth::SplitMix64) -> Vec<KernelSpec> {
    vec![
        sample_kernel(
            rng,
            "gemm_bias_relu",
            "void gemm_bias_relu<float, 64>(const float *, const float *, float *, int, int)",
            "_Z14gemm_bias_reluIfLi64EEvPKfS1_Pfii",
            [32, 16, 1],
            [16, 16, 1],
            &[],
        ),
        sample_kernel(
            rng,
            "softmax_rows",
            "ml::softmax_rows(const float *, float *, int)",
            "_ZN2ml12softmax_rowsEPKfPfi",
            [2048, 1, 1],
            [128, 1, 1],
            &[],
        ),
        sample_kernel(
            rng,
            "gemm_bias_relu",
            "void gemm_bias_relu<float, 64>(const float *, const float *, float *, int, int)",
            "_Z14gemm_bias_reluIfLi64EEvPKfS1_Pfii",
            [64, 16, 1],
            [16, 16, 1],
            &[],
        ),
        sample_kernel(
            rng,
            "adam_update",
            "adam_update(float *, const float *, float *, float *, float, int)",
            "_Z11adam_updatePfPKfS_S_fi",
            [512, 1, 1],
            [256, 1, 1],
            &[],
        ),
        sample_kernel(
            rng,
            "scatter_grad",
            "scatter_grad(const int *, const float *, float *, long)",
            "_Z12scatter_gradPKiPKfPfl",
            [96, 1, 1],
            [1024, 1, 1],
            &[],
        ),
        sample_kernel(
            rng,
            "eval_accuracy",
            "eval_accuracy(const int *, const int *, unsigned int *, int)",
            "_Z13eval_accuracyPKiS0_Pji",
            [40, 1, 1],
            [64, 1, 1],
            &[],
        ),
    ]
}

/// Sets each launch's NVTX state, stream and chip.
fn with_states_and_streams(kernels: &mut [KernelSpec]) {
    let states = [
        Some(train_state(
            &["train", "epoch", "forward"],
            &["step 3"],
            &["solver"],
            Payload::U64(12),
        )),
        Some(train_state(
            &["train", "epoch", "forward"],
            &["step 3"],
            &[],
            Payload::I32(-4),
        )),
        Some(train_state(
            &["train", "epoch", "backward"],
            &["step 3", "warmup"],
            &["solver", "lu"],
            Payload::F64(0.25),
        )),
        Some(train_state(
            &["BottomRange", "MidRange", "TopRange"],
            &[],
            &[],
            Payload::U64(0),
        )),
        None,
        Some(train_state(&["eval"], &[], &["metrics"], Payload::I32(9))),
    ];
    for (i, (kernel, state)) in kernels.iter_mut().zip(states).enumerate() {
        // As every real report has it (GA102, the synthetic device's compute capability 8.6).
        kernel
            .metrics
            .push(("device__attribute_chip".into(), scalar(Uint64(0x172))));
        kernel.nvtx = state;
        kernel.stream = [7, 7, 13, 13, 21, 7][i];
    }
}

/// Double instances per SM with SM ids as correlation ids, no stored value.
fn instances_metric(rng: &mut super::synth::SplitMix64) -> sightline_model::ncu::Metric {
    let values: Vec<MetricValue> = (0..12)
        .map(|_| Double((4096.0 * rng.unit()).round()))
        .collect();
    let ids: Vec<MetricValue> = (0..12).map(|i| Uint64(i * 2)).collect();
    let mut m = instanced(Double(0.0), values, Some(ids));
    m.stored = MetricValue::None;
    m
}

/// String instances with string correlation ids, and a stored string.
fn string_instances() -> sightline_model::ncu::Metric {
    instanced(
        Str("2".into()),
        vec![Str("application".into()), Str("kernel".into())],
        Some(vec![Str("pass-a".into()), Str("pass-b".into())]),
    )
}

/// Integer instances without correlation ids.
fn uncorrelated(rng: &mut super::synth::SplitMix64) -> sightline_model::ncu::Metric {
    let values: Vec<MetricValue> = (0..5)
        .map(|_| Uint64((1000.0 * rng.unit()) as u64))
        .collect();
    instanced(Uint64(0), values, None)
}

/// Load addresses of the source report's functions.
const LOAD: [u64; 3] = [0x7f3a_0000_4000, 0x7f3a_0000_5000, 0x7f3a_0000_6000];

/// The source text of the source report's kernels.
const STENCIL_CU: &str = "#include \"stencil.h\"\n\n__global__ void stencil(float *out, const float *in, int n)\n{\n    int i = blockIdx.x * blockDim.x + threadIdx.x;\n    if (i >= n) return;\n    out[i] = weight(in, i);\n}\n\n__global__ void clear(float *out)\n{\n    out[threadIdx.x] = 0.0f;\n}\n";

/// A report around a cubin of `stencil`, `clear` and the device function `weight` (called by
/// `stencil`), both kernels launched, `stencil.cu` embedded and `stencil.h` not.
fn write_source(out: impl Write) -> io::Result<()> {
    let function = |name: &str, instructions| FunctionSpec {
        name: name.into(),
        instructions,
        weak: false,
    };
    let spec = CubinSpec {
        sm: (8, 6),
        abi_version: 7,
        functions: vec![
            function("_Z7stencilPfPKfi", 8),
            function("_Z5clearPf", 4),
            function("_Z6weightPKfi", 3),
        ],
        absolute: None,
        files: vec![
            ("/home/dev/stencil".into(), "stencil.cu".into()),
            ("/home/dev/stencil".into(), "stencil.h".into()),
        ],
        rows: vec![
            (0, 0x00, 0, 4),
            (0, 0x10, 0, 5),
            (0, 0x40, 0, 6),
            (0, 0x50, 0, 7),
            (0, 0x70, 0, 8),
            (1, 0x00, 0, 11),
            (1, 0x20, 0, 12),
            (2, 0x00, 1, 3),
            (2, 0x10, 1, 4),
        ],
        ptx: Some((
            vec![
                "".into(),
                ".visible .entry _Z7stencilPfPKfi(".into(),
                "ld.global.f32 %f1, [%rd2];".into(),
                "st.global.f32 [%rd1], %f1;".into(),
                ".visible .entry _Z5clearPf(".into(),
                "st.global.f32 [%rd1], 0f00000000;".into(),
            ],
            vec![
                (0, 0x00, 0, 2),
                (0, 0x40, 0, 3),
                (0, 0x50, 0, 4),
                (1, 0x00, 0, 5),
                (1, 0x10, 0, 6),
            ],
        )),
        other_unit_ptx: None,
        calls: vec![(0, 2)],
    };
    write_source_report_in(
        session(),
        out,
        &spec,
        &LOAD,
        &[("/home/dev/stencil/stencil.cu", STENCIL_CU)],
        &[0, 1],
    )
}
