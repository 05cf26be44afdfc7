//! Perfmarker lines: `clBeginPerfMarker <name> <ts> <group>`, `clEndPerfMarker <ts>`,
//! `clEndPerfMarkerEx <ts> <name> <group>` (names escape space as `&nbsp;`; old writers left
//! spaces in the group, which then runs to the end of the line).

use super::text::{decode, parse_u64, tokens, unescape};

/// One parsed perfmarker line.
#[derive(Debug, PartialEq, Eq)]
pub enum MarkerLine {
    /// Opens a range.
    Begin {
        /// Marker name.
        name: String,
        /// Group name.
        group: String,
        /// Time (ns).
        time_ns: u64,
    },
    /// Closes the innermost open range of the thread; `clEndPerfMarkerEx` gives a name and group.
    End {
        /// Time (ns).
        time_ns: u64,
        /// `(name, group)` of an `clEndPerfMarkerEx`.
        name_group: Option<(String, String)>,
    },
}

fn text(bytes: &[u8]) -> String {
    unescape(&decode(bytes)).into_owned()
}

/// Parses a perfmarker line; `None` when it is none of the three forms.
pub fn parse_marker_line(line: &[u8]) -> Option<MarkerLine> {
    let mut t = tokens(line);
    match t.next()? {
        b"clBeginPerfMarker" => {
            let name = t.next()?;
            let time_ns = parse_u64(t.next()?)?;
            let group = t.rest();
            Some(MarkerLine::Begin {
                name: text(name),
                group: text(group),
                time_ns,
            })
        }
        b"clEndPerfMarker" => Some(MarkerLine::End {
            time_ns: parse_u64(t.next()?)?,
            name_group: None,
        }),
        b"clEndPerfMarkerEx" => {
            let time_ns = parse_u64(t.next()?)?;
            let name = t.next().map(text).unwrap_or_default();
            let group = text(t.rest());
            Some(MarkerLine::End {
                time_ns,
                name_group: Some((name, group)),
            })
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn three_forms() {
        assert_eq!(
            parse_marker_line(b"clBeginPerfMarker   load&nbsp;data   123   my group"),
            Some(MarkerLine::Begin {
                name: "load data".into(),
                group: "my group".into(),
                time_ns: 123
            })
        );
        assert_eq!(
            parse_marker_line(b"clEndPerfMarker 456"),
            Some(MarkerLine::End {
                time_ns: 456,
                name_group: None
            })
        );
        assert_eq!(
            parse_marker_line(b"clEndPerfMarkerEx 789 x g"),
            Some(MarkerLine::End {
                time_ns: 789,
                name_group: Some(("x".into(), "g".into()))
            })
        );
        assert_eq!(parse_marker_line(b"clBeginPerfMarker x notanumber g"), None);
    }
}
