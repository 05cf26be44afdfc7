//! The fixture reports in the repository's `fixtures/` folder, written by Sightline's own
//! writer. `cargo run --example make_fixtures` writes them; a test checks the committed files
//! are exactly what this module writes.

use std::io::{self, Write};

use super::synth::{KernelSpec, kernel_message, scalar, session_details, write_kernels};
use super::synth_edge;
use super::synth_kernels::{sample_kernels, value_kinds_kernel};
use super::synth_names;
use super::synth_units;
use super::writer::ReportWriter;
use sightline_model::ncu::MetricValue;
use sightline_model::proto::nv::profiler::messages as pb;

/// File names of the fixtures, in `fixtures/`.
pub const FIXTURE_NAMES: &[&str] = &[
    "sample.ncu-rep",
    "sample.ncu-repz",
    "value_kinds.ncu-rep",
    "multi_block.ncu-rep",
    "late_strings.ncu-rep",
    "sampler_nan.ncu-rep",
    "derived_2023_1.ncu-rep",
    "derived_2023_3.ncu-rep",
    "rule_markers.ncu-rep",
    "derived_units_inst.ncu-rep",
    "derived_units_thread.ncu-rep",
    "details_units_inst.ncu-rep",
    "details_units_warp.ncu-rep",
    "offload_names.ncu-rep",
];

/// The bytes of fixture `name` (one of [`FIXTURE_NAMES`]).
pub fn fixture_bytes(name: &str) -> io::Result<Vec<u8>> {
    let mut out = Vec::new();
    match name {
        "sample.ncu-rep" => write_kernels(&sample_kernels(), 2, &mut out)?,
        "sample.ncu-repz" => {
            let plain = fixture_bytes("sample.ncu-rep")?;
            out = zstd::encode_all(&plain[..], 19)?;
        }
        "value_kinds.ncu-rep" => write_kernels(&[value_kinds_kernel()], 1, &mut out)?,
        "multi_block.ncu-rep" => write_multi_block(&sample_kernels(), &mut out)?,
        "late_strings.ncu-rep" => synth_edge::write_late_strings(&mut out)?,
        "sampler_nan.ncu-rep" => synth_edge::write_sampler_nan(&mut out)?,
        "derived_2023_1.ncu-rep" => synth_edge::write_derived_version(
            "2023.1.0.0 (build 32398143) (public-release)",
            true,
            &mut out,
        )?,
        "derived_2023_3.ncu-rep" => synth_edge::write_derived_version(
            "2023.3.0.0 (build 33281558) (public-release)",
            false,
            &mut out,
        )?,
        "derived_units_inst.ncu-rep" => synth_units::write_derived_units(false, &mut out)?,
        "derived_units_thread.ncu-rep" => synth_units::write_derived_units(true, &mut out)?,
        "details_units_inst.ncu-rep" => synth_units::write_details_units(true, &mut out)?,
        "details_units_warp.ncu-rep" => synth_units::write_details_units(false, &mut out)?,
        "offload_names.ncu-rep" => synth_names::write_offload_names(&mut out)?,
        "rule_markers.ncu-rep" => {
            write_kernels(&[synth_edge::rule_markers_kernel()], 1, &mut out)?;
        }
        _ => {
            return Err(io::Error::new(
                io::ErrorKind::NotFound,
                format!("no fixture named {name}"),
            ));
        }
    }
    Ok(out)
}

/// Three result blocks of two processes; session details split across blocks (merged by
/// readers); each block adds to the cumulative string table.
fn write_multi_block(kernels: &[KernelSpec], out: impl Write) -> io::Result<()> {
    let mut writer = ReportWriter::new(out)?;
    let full = session_details();
    writer.session(pb::ReportSessionDetails {
        process_id: full.process_id,
        creation_time: full.creation_time,
        host_system_info: full.host_system_info.clone(),
        profiler_cmdline: full.profiler_cmdline.clone(),
        ..Default::default()
    });
    writer.flush_block()?;
    writer.process(pb::ProcessInfo {
        process_id: 100,
        hostname: Some("node-a".into()),
        process_name: Some("app".into()),
    });
    writer.session(pb::ReportSessionDetails {
        device_attributes: full.device_attributes.clone(),
        ..Default::default()
    });
    for (i, spec) in kernels[..2].iter().enumerate() {
        let message = kernel_message(&mut writer, spec, 10 + i as u64);
        writer.add_result(&message);
    }
    writer.flush_block()?;
    writer.process(pb::ProcessInfo {
        process_id: 200,
        hostname: Some("node-b".into()),
        process_name: Some("app".into()),
    });
    writer.session(pb::ReportSessionDetails {
        version_info: full.version_info.clone(),
        ..Default::default()
    });
    for (i, spec) in kernels[2..].iter().enumerate() {
        let mut spec = spec.clone();
        spec.metrics.push((
            format!("block2__only_metric_{i}.sum"),
            scalar(MetricValue::Double(i as f64 + 0.5)),
        ));
        let message = kernel_message(&mut writer, &spec, 20 + i as u64);
        writer.add_result(&message);
    }
    writer.flush_block()?;
    writer.finish()?;
    Ok(())
}
