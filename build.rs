//! Compiles Sightline's `proto/` schema with a pure-Rust protobuf compiler (`protox`), so a
//! fresh machine needs no `protoc` binary. The descriptor set is also written to `OUT_DIR` so
//! the text-format (`.section`) parser can reflect over the same schema.

use std::path::PathBuf;

const PROTO_FILES: &[&str] = &[
    "ProfilerReport.proto",
    "ProfilerSection.proto",
    "RuleResults.proto",
    "Nvtx.proto",
    "CpuStacktrace.proto",
    "ProfilerMetricOptions.proto",
];

fn main() -> Result<(), Box<dyn std::error::Error>> {
    println!("cargo:rerun-if-changed=proto");
    let out_dir = PathBuf::from(std::env::var("OUT_DIR")?);
    let file_descriptors = protox::compile(PROTO_FILES, ["proto"])?;
    let descriptor_bytes = prost::Message::encode_to_vec(&file_descriptors);
    std::fs::write(out_dir.join("sightline_descriptor.bin"), &descriptor_bytes)?;
    let mut config = prost_build::Config::new();
    config.include_file("sightline_proto.rs");
    config.compile_fds(file_descriptors)?;
    Ok(())
}
