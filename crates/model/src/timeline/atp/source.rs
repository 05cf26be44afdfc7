//! Lines of the source-code (stack trace) section: `APIName function line [file]`. The function
//! may be an address when there was no debug information, and then the file is absent; a file
//! path may contain spaces (it runs to the end of the line).

use super::model::{Names, SourceLocation};
use super::text::{decode, parse_u64, tokens};

/// Parses one line; `None` without an API name, a function and a line number.
pub fn parse_source_line(line: &[u8], names: &mut Names) -> Option<SourceLocation> {
    let mut t = tokens(line);
    let api_name = t.next()?;
    let function_start = t.next()?;
    let mut function: Vec<&[u8]> = vec![function_start];
    loop {
        let token = t.next()?;
        if let Some(number) = parse_u64(token) {
            let rest = t.rest();
            let function = if let [one] = function.as_slice() {
                names.intern(one)
            } else {
                let parts: Vec<String> = function.iter().map(|p| decode(p).into_owned()).collect();
                names.intern_str(&parts.join(" "))
            };
            return Some(SourceLocation {
                api_name: names.intern(api_name),
                function,
                line: u32::try_from(number).unwrap_or(u32::MAX),
                file: (!rest.is_empty()).then(|| names.intern(rest)),
            });
        }
        function.push(token);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn with_and_without_debug_info() {
        let mut names = Names::default();
        let l = parse_source_line(
            b"clFinish   main   42   C:\\My Projects\\app.cpp",
            &mut names,
        )
        .unwrap();
        assert_eq!(
            (names.get(l.function), l.line, l.file.map(|f| names.get(f))),
            ("main", 42, Some("C:\\My Projects\\app.cpp"))
        );
        let l = parse_source_line(b"clFinish 0x00401000 0", &mut names).unwrap();
        assert_eq!(
            (names.get(l.api_name), names.get(l.function), l.line, l.file),
            ("clFinish", "0x00401000", 0, None)
        );
        let l = parse_source_line(b"clFinish operator new 7 a.cpp", &mut names).unwrap();
        assert_eq!((names.get(l.function), l.line), ("operator new", 7));
        assert!(parse_source_line(b"clFinish main", &mut names).is_none());
    }
}
