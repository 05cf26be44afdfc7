//! One line of an API Trace section: `ReturnValue = APIName ( arg1;arg2;... )`, or
//! `APIName ( args )` for void HSA functions.

use super::text::{decode, trim};

/// A parsed API trace line; texts are decoded with `super::text::decode`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApiLine {
    /// The return value as written; `None` for void functions.
    pub return_value: Option<String>,
    /// The API name.
    pub name: String,
    /// The arguments, split on `;` outside `{}`, `[]`, `()` and quotes, each trimmed.
    pub args: Vec<String>,
}

/// The byte range of the API name in a trace line, or `None` when the line has no `(`.
pub fn name_span(line: &[u8]) -> Option<(usize, usize)> {
    let open = memchr::memchr(b'(', line)?;
    let start = match memchr::memchr(b'=', &line[..open]) {
        Some(eq) => eq + 1,
        None => 0,
    };
    let name = &line[start..open];
    let first = name.iter().position(|b| !b.is_ascii_whitespace())?;
    let last = name.iter().rposition(|b| !b.is_ascii_whitespace())?;
    Some((start + first, start + last + 1))
}

/// Parses a trace line; `None` when it has no `Name (` part.
pub fn parse_api_line(line: &[u8]) -> Option<ApiLine> {
    let (name_start, name_end) = name_span(line)?;
    let open = name_end + memchr::memchr(b'(', &line[name_end..])?;
    let return_value =
        memchr::memchr(b'=', &line[..name_start]).map(|eq| decode(trim(&line[..eq])).into_owned());
    let after = &line[open + 1..];
    let inner = match memchr::memrchr(b')', after) {
        Some(close) => &after[..close],
        None => after,
    };
    Some(ApiLine {
        return_value,
        name: decode(&line[name_start..name_end]).into_owned(),
        args: split_args(inner),
    })
}

/// Splits an argument list on `;` at nesting depth 0 (braces, brackets, parentheses, quotes),
/// not at the `;` of an `&nbsp;`/`&comma;` escape.
pub fn split_args(inner: &[u8]) -> Vec<String> {
    let inner = trim(inner);
    if inner.is_empty() {
        return Vec::new();
    }
    let mut args = Vec::new();
    let mut depth: u32 = 0;
    let mut quoted = false;
    let mut start = 0;
    for (i, &b) in inner.iter().enumerate() {
        match b {
            b'"' => quoted = !quoted,
            b'{' | b'[' | b'(' if !quoted => depth += 1,
            b'}' | b']' | b')' if !quoted => depth = depth.saturating_sub(1),
            b';' if !quoted
                && depth == 0
                && !inner[..i].ends_with(b"&nbsp")
                && !inner[..i].ends_with(b"&comma") =>
            {
                args.push(decode(trim(&inner[start..i])).into_owned());
                start = i + 1;
            }
            _ => {}
        }
    }
    args.push(decode(trim(&inner[start..])).into_owned());
    args
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn opencl_line() {
        let l = parse_api_line(b"CL_SUCCESS = clGetPlatformIDs ( 0;NULL;[1] )").unwrap();
        assert_eq!(l.return_value.as_deref(), Some("CL_SUCCESS"));
        assert_eq!(l.name, "clGetPlatformIDs");
        assert_eq!(l.args, vec!["0", "NULL", "[1]"]);
    }

    #[test]
    fn void_hsa_line_with_struct_args() {
        let l = parse_api_line(b"hsa_signal_store_relaxed ( {handle=0x1;x=2};1 )").unwrap();
        assert_eq!(l.return_value, None);
        assert_eq!(l.name, "hsa_signal_store_relaxed");
        assert_eq!(l.args, vec!["{handle=0x1;x=2}", "1"]);
        let l = parse_api_line(
            b"HSA_STATUS_SUCCESS = hsa_executable_get_symbol ( 0x1;NULL;my&nbsp;kernel;0x2 )",
        )
        .unwrap();
        assert_eq!(l.args, vec!["0x1", "NULL", "my&nbsp;kernel", "0x2"]);
        assert_eq!(parse_api_line(b"no paren here"), None);
    }

    #[test]
    fn string_args_keep_semicolons_and_parens() {
        let l = parse_api_line(
            b"0x1 = clCreateProgramWithSource ( 0x2;1;[\"k(); x;\"];NULL;CL_SUCCESS )",
        )
        .unwrap();
        assert_eq!(
            l.args,
            vec!["0x2", "1", "[\"k(); x;\"]", "NULL", "CL_SUCCESS"]
        );
    }
}
