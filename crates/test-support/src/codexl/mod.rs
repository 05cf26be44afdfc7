//! Deterministic generators of CodeXL session files, since no real `.atp` or `.occupancy` file
//! is public: [`atp::write_atp`] covers every rule of the trace grammar (both APIs, several
//! threads, every section-name generation, enqueue commands of each kind, HSA dispatches with
//! escaped names and non-dispatch packets, async copies, nested perfmarkers, the source-code
//! section, CRLF, bytes that are not UTF-8); [`tables`] writes `.occupancy` and `.csv` files of
//! the same session. Each writer returns the ground truth of what it wrote, so tests compare
//! the readers against the generator's own counts rather than against the readers.

pub mod atp;
pub mod tables;

/// The jitter in times and sizes of the CodeXL generators.
pub use crate::rng::SplitMix64 as Rng;

/// Line ending of a generated file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LineEnding {
    /// `\n`.
    Lf,
    /// `\r\n` (files written on Windows).
    CrLf,
}

impl LineEnding {
    /// The bytes.
    pub fn as_str(self) -> &'static str {
        match self {
            LineEnding::Lf => "\n",
            LineEnding::CrLf => "\r\n",
        }
    }
}

/// The trace of the committed session fixture `fixtures/codexl/session1.*`.
pub fn session_spec() -> atp::AtpSpec {
    atp::AtpSpec::default()
}

/// The other committed `.atp` fixtures: file name and spec.
pub fn atp_fixture_specs() -> Vec<(&'static str, atp::AtpSpec)> {
    use atp::{AtpSpec, SectionStyle};
    vec![
        ("session1.atp", session_spec()),
        (
            "codexl_prefix_crlf.atp",
            AtpSpec {
                style: SectionStyle::CodeXlPrefix,
                line_ending: LineEnding::CrLf,
                opencl_threads: 3,
                hsa_threads: 2,
                iterations: 3,
                rcp5_kernel_rows: false,
                seed: 2,
                ..AtpSpec::default()
            },
        ),
        (
            "amd_app_profiler.atp",
            AtpSpec {
                style: SectionStyle::AmdAppProfiler,
                opencl_threads: 2,
                hsa_threads: 0,
                iterations: 3,
                non_utf8: false,
                seed: 3,
                ..AtpSpec::default()
            },
        ),
    ]
}

/// Every committed fixture of `fixtures/codexl/`: file name and bytes (what
/// `cargo run --example make_codexl -- fixtures` writes).
pub fn fixture_files() -> Vec<(&'static str, Vec<u8>)> {
    let mut files: Vec<(&'static str, Vec<u8>)> = atp_fixture_specs()
        .into_iter()
        .map(|(name, spec)| (name, atp::atp_bytes(&spec).0))
        .collect();
    let session = session_spec();
    let comma = tables::TableStyle::default();
    files.push((
        "session1.occupancy",
        tables::occupancy_text(&session, &comma).0.into_bytes(),
    ));
    let semicolon = tables::TableStyle {
        separator: ';',
        line_ending: LineEnding::CrLf,
        ..tables::TableStyle::default()
    };
    files.push((
        "session1.csv",
        tables::counters_text(&session, &semicolon).0.into_bytes(),
    ));
    let buggy = tables::TableStyle {
        separator: ';',
        commas_in_column_line: true,
        line_ending: LineEnding::CrLf,
        space_after_hash: true,
    };
    let wide = atp::AtpSpec {
        opencl_threads: 3,
        iterations: 3,
        seed: 4,
        ..atp::AtpSpec::default()
    };
    files.push((
        "semicolon_rows_crlf.occupancy",
        tables::occupancy_text(&wide, &buggy).0.into_bytes(),
    ));
    files
}
