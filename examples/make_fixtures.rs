//! Writes the test fixtures and the bundled sample into `fixtures/` with Sightline's own
//! writer. Run `cargo run --example make_fixtures`; see `fixtures/README.md` for verifying
//! them with NVIDIA's reader.

use std::fs::File;
use std::io::BufWriter;
use std::path::Path;

use sightline::ncu::synth::{KernelSpec, kernel_message, session_details, write_kernels};
use sightline::ncu::synth_kernels::{sample_kernels, value_kinds_kernel};
use sightline::ncu::writer::ReportWriter;
use sightline::proto::nv::profiler::messages as pb;

fn main() -> anyhow::Result<()> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures");
    std::fs::create_dir_all(&dir)?;

    let sample = sample_kernels();
    write_kernels(
        &sample,
        2,
        BufWriter::new(File::create(dir.join("sample.ncu-rep"))?),
    )?;
    let plain = std::fs::read(dir.join("sample.ncu-rep"))?;
    std::fs::write(
        dir.join("sample.ncu-repz"),
        zstd::encode_all(&plain[..], 19)?,
    )?;

    write_kernels(
        &[value_kinds_kernel()],
        1,
        BufWriter::new(File::create(dir.join("value_kinds.ncu-rep"))?),
    )?;

    write_multi_block(&sample, File::create(dir.join("multi_block.ncu-rep"))?)?;
    println!("fixtures written to {}", dir.display());
    Ok(())
}

/// Three result blocks of two processes; session details split across blocks (merged by
/// readers); each block adds to the cumulative string table.
fn write_multi_block(kernels: &[KernelSpec], out: File) -> anyhow::Result<()> {
    let mut writer = ReportWriter::new(BufWriter::new(out))?;
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
            sightline::ncu::synth::scalar(sightline::ncu::MetricValue::Double(i as f64 + 0.5)),
        ));
        let message = kernel_message(&mut writer, &spec, 20 + i as u64);
        writer.add_result(&message);
    }
    writer.flush_block()?;
    writer.finish()?;
    Ok(())
}
