//! Section names of every writer: `ocl API Trace Output` (current), `CodeXL ocl API Trace
//! Output` (before CodeXL 2.3), `AMD APP Profiler Trace Output` (the oldest), perfmarker and
//! stack-trace (source-code) sections.

use super::model::{Api, SectionKind};

/// What a section name (the text between the `=====` runs) denotes.
pub fn classify_section(name: &str) -> SectionKind {
    let name = name.trim();
    let name = strip_prefix_ci(name, "CodeXL ").unwrap_or(name).trim();
    let lower = name.to_ascii_lowercase();
    match lower.as_str() {
        "amd app profiler trace output" | "amd app profiler api trace output" => {
            return SectionKind::ApiTrace(Api::OpenCl);
        }
        "amd app profiler timestamp output" => return SectionKind::Timestamp(Api::OpenCl),
        "perfmarker output"
        | "opencl perfmarker output"
        | "ocl perfmarker output"
        | "amd app profiler perfmarker output" => {
            return SectionKind::Perfmarker;
        }
        _ => {}
    }
    let (part, rest) = lower.split_once(' ').unwrap_or((lower.as_str(), ""));
    let api = match part {
        "ocl" | "opencl" | "cl" => Api::OpenCl,
        "hsa" => Api::Hsa,
        "amd" if rest.starts_with("app profiler ") => Api::OpenCl,
        _ => return SectionKind::Unknown,
    };
    let rest = rest.strip_prefix("app profiler ").unwrap_or(rest);
    match rest {
        "api trace output" | "trace output" => SectionKind::ApiTrace(api),
        "timestamp output" => SectionKind::Timestamp(api),
        "kernel timestamp output" if api == Api::Hsa => SectionKind::KernelTimestamp,
        "stack trace output" | "source code output" => SectionKind::SourceCode(api),
        _ => SectionKind::Unknown,
    }
}

fn strip_prefix_ci<'a>(text: &'a str, prefix: &str) -> Option<&'a str> {
    let head = text.get(..prefix.len())?;
    head.eq_ignore_ascii_case(prefix)
        .then(|| &text[prefix.len()..])
}

/// A line made only of `=` runs around a name (`==== name ====`).
pub(super) fn is_section_line(line: &[u8]) -> bool {
    let trimmed = super::text::trim(line);
    trimmed.starts_with(b"===") && trimmed.ends_with(b"===")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_variant() {
        use SectionKind::*;
        let cases = [
            ("ocl API Trace Output", ApiTrace(Api::OpenCl)),
            ("CodeXL ocl API Trace Output", ApiTrace(Api::OpenCl)),
            ("ocl Timestamp Output", Timestamp(Api::OpenCl)),
            ("CodeXL ocl Timestamp Output", Timestamp(Api::OpenCl)),
            ("hsa API Trace Output", ApiTrace(Api::Hsa)),
            ("CodeXL hsa Timestamp Output", Timestamp(Api::Hsa)),
            ("hsa Kernel Timestamp Output", KernelTimestamp),
            ("CodeXL hsa Kernel Timestamp Output", KernelTimestamp),
            ("AMD APP Profiler Trace Output", ApiTrace(Api::OpenCl)),
            ("AMD APP Profiler Timestamp Output", Timestamp(Api::OpenCl)),
            ("Perfmarker Output", Perfmarker),
            ("CodeXL Perfmarker Output", Perfmarker),
            ("OpenCL Perfmarker Output", Perfmarker),
            ("ocl Stack Trace Output", SourceCode(Api::OpenCl)),
            ("CodeXL hsa Stack Trace Output", SourceCode(Api::Hsa)),
            ("ocl Kernel Timestamp Output", Unknown),
            ("Something Else", Unknown),
        ];
        for (name, kind) in cases {
            assert_eq!(classify_section(name), kind, "{name}");
        }
    }
}
