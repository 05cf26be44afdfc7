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
    println!("cargo:rerun-if-changed=../../sections");
    println!("cargo:rerun-if-changed=../../rules");
    let out_dir = PathBuf::from(std::env::var("OUT_DIR")?);
    let file_descriptors = protox::compile(PROTO_FILES, ["proto"])?;
    let descriptor_bytes = prost::Message::encode_to_vec(&file_descriptors);
    std::fs::write(out_dir.join("sightline_descriptor.bin"), &descriptor_bytes)?;
    let mut config = prost_build::Config::new();
    config.include_file("sightline_proto.rs");
    config.compile_fds(file_descriptors)?;
    write_bundled(
        &out_dir,
        "sections",
        "section",
        "BUNDLED_SECTIONS",
        "bundled_sections.rs",
    )?;
    write_bundled(&out_dir, "rules", "py", "BUNDLED_RULES", "bundled_rules.rs")?;
    Ok(())
}

/// Embeds `FOLDER/*.EXT` in the binary as `CONST: &[(file name, text)]` in `OUT_DIR/FILE`
/// (an empty list when the folder is missing).
fn write_bundled(
    out_dir: &std::path::Path,
    folder: &str,
    extension: &str,
    constant: &str,
    file: &str,
) -> Result<(), Box<dyn std::error::Error>> {
    // The bundled folders sit at the repository root (users and docs find them there).
    let dir = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR")?)
        .join("../..")
        .join(folder);
    let mut files: Vec<PathBuf> = match std::fs::read_dir(&dir) {
        Ok(entries) => entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|e| e == extension))
            .collect(),
        Err(_) => Vec::new(),
    };
    files.sort();
    let mut code = format!(
        "/// The bundled `{folder}/*.{extension}` files: `(file name, text)`.\npub const {constant}: &[(&str, &str)] = &[\n"
    );
    for path in &files {
        let name = path
            .file_name()
            .and_then(|n| n.to_str())
            .ok_or("non-UTF-8 bundled file name")?;
        // Relative to the crate at compile time, not an absolute path of the build script's
        // run: a checkout that moved (or a target folder shared by worktrees) still compiles.
        let relative = format!("/../../{folder}/{name}");
        code.push_str(&format!(
            "    ({name:?}, include_str!(concat!(env!(\"CARGO_MANIFEST_DIR\"), {relative:?}))),\n"
        ));
    }
    code.push_str("];\n");
    std::fs::write(out_dir.join(file), code)?;
    Ok(())
}
