//! The one line reader of the text formats (NVTXT, CodeXL traces and tables): the lines of a
//! buffer (LF or CRLF, a last line without ending), with their numbers and offsets, reporting
//! how many bytes were read through a [`Progress`] and stopping on Cancel.

use super::progress::{Cancelled, Progress};

/// Bytes read between two reports of progress (and checks for Cancel).
pub const REPORT_EVERY: usize = 4 << 20;

/// One line: its bytes without the line ending, its 1-based number and the byte offset of its
/// first byte.
#[derive(Debug, Clone, Copy)]
pub struct Line<'a> {
    /// The line's bytes, without `\n` and without a `\r` before it.
    pub bytes: &'a [u8],
    /// The line's bytes without `\n` only (a `\r` before it kept).
    pub raw: &'a [u8],
    /// 1-based line number.
    pub number: u64,
    /// Byte offset of the line's first byte in the buffer.
    pub offset: u64,
}

/// Iterator over the lines of a buffer. An empty buffer has no lines, and a buffer ending with
/// `\n` has no empty line after it.
///
/// With a [`Progress`] ([`Lines::with_progress`]) it reports the bytes read before the first
/// line and then every [`REPORT_EVERY`] bytes, each time checking for Cancel: when cancelled it
/// gives no more lines, and [`Lines::finish`] says so.
pub struct Lines<'a> {
    data: &'a [u8],
    pos: usize,
    number: u64,
    progress: Progress<'a>,
    stage: &'a str,
    next_report: usize,
    cancelled: bool,
}

impl<'a> Lines<'a> {
    /// The lines of `data`, reporting nothing.
    pub fn new(data: &'a [u8]) -> Self {
        Lines::with_progress(data, Progress::none(), "")
    }

    /// The lines of `data`, reporting the bytes read as `stage` to `progress`.
    pub fn with_progress(data: &'a [u8], progress: Progress<'a>, stage: &'a str) -> Self {
        Lines {
            data,
            pos: 0,
            number: 0,
            progress,
            stage,
            next_report: if progress.is_reported() {
                0
            } else {
                usize::MAX
            },
            cancelled: false,
        }
    }

    /// `Err(Cancelled)` when Cancel stopped the lines before the end.
    pub fn finish(&self) -> Result<(), Cancelled> {
        if self.cancelled {
            Err(Cancelled)
        } else {
            Ok(())
        }
    }

    /// Bytes read so far (the offset of the next line).
    pub fn position(&self) -> usize {
        self.pos
    }
}

impl<'a> Iterator for Lines<'a> {
    type Item = Line<'a>;

    fn next(&mut self) -> Option<Line<'a>> {
        if self.pos >= self.data.len() || self.cancelled {
            return None;
        }
        if self.pos >= self.next_report {
            self.next_report = self.pos.saturating_add(REPORT_EVERY);
            self.progress
                .report_bytes(self.stage, self.pos as u64, self.data.len() as u64);
            if self.progress.is_cancelled() {
                self.cancelled = true;
                return None;
            }
        }
        let start = self.pos;
        let rest = &self.data[start..];
        let (raw, next) = match memchr::memchr(b'\n', rest) {
            Some(i) => (&rest[..i], start + i + 1),
            None => (rest, self.data.len()),
        };
        let bytes = raw.strip_suffix(b"\r").unwrap_or(raw);
        self.pos = next;
        self.number += 1;
        Some(Line {
            bytes,
            raw,
            number: self.number,
            offset: start as u64,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::progress::{FnSink, Step};
    use std::sync::atomic::{AtomicBool, Ordering};

    #[test]
    fn lines_accept_crlf_and_lf() {
        let lines: Vec<_> = Lines::new(b"a\r\nbb\ncc\r\r\n\n")
            .map(|l| (l.bytes, l.raw, l.number, l.offset))
            .collect();
        assert_eq!(
            lines,
            vec![
                (&b"a"[..], &b"a\r"[..], 1, 0),
                (b"bb", b"bb", 2, 3),
                (b"cc\r", b"cc\r\r", 3, 6),
                (b"", b"", 4, 11),
            ]
        );
        assert_eq!(Lines::new(b"").count(), 0);
        assert_eq!(
            Lines::new(b"x").map(|l| l.bytes).collect::<Vec<_>>(),
            [b"x"]
        );
    }

    #[test]
    fn progress_every_few_mb_and_cancel_stops_the_lines() {
        let line = "x".repeat(999) + "\n";
        let data = line.repeat(REPORT_EVERY * 2 / 1000 + 10).into_bytes();
        let mut seen = Vec::new();
        let sink = FnSink::new(|s: &Step<'_>| seen.push((s.stage.to_owned(), s.done, s.total)));
        let mut lines = Lines::with_progress(&data, Progress::new(&sink), "lines");
        assert_eq!(lines.by_ref().count(), data.len() / 1000);
        assert_eq!(lines.finish(), Ok(()));
        let done: Vec<u64> = seen.iter().map(|s| s.1).collect();
        assert_eq!(done.len(), 3, "{done:?}");
        assert_eq!(done[0], 0);
        assert!(done.windows(2).all(|w| w[1] >= w[0] + REPORT_EVERY as u64));
        assert!(
            seen.iter()
                .all(|s| s.0 == "lines" && s.2 == data.len() as u64)
        );

        let cancel = AtomicBool::new(false);
        let mut reports = 0;
        let sink = FnSink::new(|_: &Step<'_>| {
            reports += 1;
            if reports == 2 {
                cancel.store(true, Ordering::Relaxed);
            }
        })
        .with_cancel(&cancel);
        let mut lines = Lines::with_progress(&data, Progress::new(&sink), "lines");
        let read = lines.by_ref().count();
        assert_eq!(read, REPORT_EVERY.div_ceil(1000));
        assert_eq!(lines.finish(), Err(Cancelled));
        assert_eq!(lines.next().map(|l| l.number), None);
        assert_eq!(reports, 2);
    }
}
