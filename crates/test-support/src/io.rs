//! A writer that counts the bytes it passes on (the generators stop at a target size).

use std::io::{self, Write};

/// Passes every write on to `inner` and counts the bytes written.
#[derive(Debug)]
pub struct CountingWriter<W> {
    inner: W,
    written: u64,
}

impl<W: Write> CountingWriter<W> {
    /// A counter at zero in front of `inner`.
    pub fn new(inner: W) -> Self {
        CountingWriter { inner, written: 0 }
    }

    /// Bytes written so far.
    pub fn written(&self) -> u64 {
        self.written
    }
}

impl<W: Write> Write for CountingWriter<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.written += n as u64;
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

#[cfg(test)]
mod tests {
    use std::io::Write;

    use super::CountingWriter;

    #[test]
    fn counts_what_reaches_the_inner_writer() {
        let mut w = CountingWriter::new(Vec::new());
        write!(w, "abc").unwrap();
        w.write_all(b"de").unwrap();
        assert_eq!(w.written(), 5);
    }
}
