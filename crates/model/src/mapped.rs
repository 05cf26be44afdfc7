//! Read-only file contents: memory-mapped when the file has bytes, owned otherwise. The one
//! place that maps files, with its safety argument; the readers (reports, traces, logs) hold a
//! [`MappedFile`] and read it as a byte slice.

use std::fs::File;
use std::ops::{Deref, Range};

/// How a mapped file will be read, as a hint to the kernel's read-ahead.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    /// No hint.
    Normal,
    /// Read in pieces, wherever they are (a report's results, decoded on demand).
    Random,
    /// Read once from start to end (a log, streamed).
    Sequential,
}

/// The bytes of a file, mapped or owned.
#[derive(Debug)]
pub struct MappedFile {
    data: Data,
}

#[derive(Debug)]
enum Data {
    Mapped(memmap2::Mmap),
    Owned(Vec<u8>),
}

impl MappedFile {
    /// Maps `file` read-only (an empty file is held as no bytes: an empty map is an error on
    /// some systems).
    pub fn open(file: &File) -> std::io::Result<MappedFile> {
        if file.metadata()?.len() == 0 {
            return Ok(MappedFile::from_vec(Vec::new()));
        }
        // SAFETY: the map is read-only and private to this process. Its one hazard is another
        // process truncating or rewriting the file while it is mapped (reads of the lost pages
        // fault, rewritten pages change under the reader); a profile or log being rewritten
        // while it is open is outside every reader's contract, as for every memory-mapping
        // viewer. Nothing here writes through the map. (On Windows, `File::open` shares the
        // file for reading, writing and deletion, so files other programs hold open are mapped
        // too; while the view exists, Windows refuses to truncate the file instead.)
        let map = unsafe { memmap2::Mmap::map(file) }?;
        Ok(MappedFile {
            data: Data::Mapped(map),
        })
    }

    /// Bytes already in memory (parsed from memory: tests, fuzzing, decompressed data).
    pub fn from_vec(bytes: Vec<u8>) -> MappedFile {
        MappedFile {
            data: Data::Owned(bytes),
        }
    }

    /// Whether the bytes are a memory map of the file.
    pub fn is_mapped(&self) -> bool {
        matches!(self.data, Data::Mapped(_))
    }

    /// The bytes.
    pub fn bytes(&self) -> &[u8] {
        match &self.data {
            Data::Mapped(map) => map,
            Data::Owned(bytes) => bytes,
        }
    }

    /// Tells the kernel how the map will be read (no effect on owned bytes or where the
    /// system has no such hint).
    pub fn advise(&self, access: Access) {
        #[cfg(unix)]
        if let Data::Mapped(map) = &self.data {
            let advice = match access {
                Access::Normal => memmap2::Advice::Normal,
                Access::Random => memmap2::Advice::Random,
                Access::Sequential => memmap2::Advice::Sequential,
            };
            let _ = map.advise(advice);
        }
        #[cfg(not(unix))]
        let _ = access;
    }

    /// Drops the mapped pages of `range` from this process's resident memory once read (they
    /// stay in the page cache and are read again if touched), so resident memory holds what was
    /// built from the file, not the file. No effect on owned bytes.
    pub fn release(&self, range: Range<usize>) {
        #[cfg(unix)]
        if let Data::Mapped(map) = &self.data
            && range.end > range.start
            && range.end <= map.len()
        {
            // SAFETY: the map is a read-only view of a file: dropped pages read back from the
            // file with the same contents (the hazard of `open` aside).
            let _ = unsafe {
                map.unchecked_advise_range(
                    memmap2::UncheckedAdvice::DontNeed,
                    range.start,
                    range.end - range.start,
                )
            };
        }
        #[cfg(windows)]
        if let Data::Mapped(map) = &self.data
            && range.end > range.start
            && range.end <= map.len()
        {
            // Unlocking pages that are not locked takes them out of the working set (they stay
            // in the system's standby list and fault back in from the file if touched):
            // Windows' counterpart of DontNeed for a read-only file view. It reports
            // ERROR_NOT_LOCKED after doing so, which is the expected answer here.
            // SAFETY: the range lies inside the map, which lives as long as `self`; nothing is
            // read or written through the pointer.
            let _ = unsafe {
                windows_sys::Win32::System::Memory::VirtualUnlock(
                    map.as_ptr().add(range.start).cast(),
                    range.end - range.start,
                )
            };
        }
        #[cfg(not(any(unix, windows)))]
        let _ = range;
    }

    /// [`MappedFile::release`] of the whole file.
    pub fn release_all(&self) {
        self.release(0..self.bytes().len());
    }
}

impl Deref for MappedFile {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        self.bytes()
    }
}

impl AsRef<[u8]> for MappedFile {
    fn as_ref(&self) -> &[u8] {
        self.bytes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn maps_a_file_and_holds_an_empty_one_as_no_bytes() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f.bin");
        std::fs::write(&path, b"abcdef").unwrap();
        let mapped = MappedFile::open(&File::open(&path).unwrap()).unwrap();
        assert!(mapped.is_mapped());
        assert_eq!(&mapped[..], b"abcdef");
        mapped.advise(Access::Random);
        mapped.release(0..3);
        mapped.release(4..100);
        assert_eq!(&mapped[..], b"abcdef");
        let empty = dir.path().join("e.bin");
        std::fs::write(&empty, b"").unwrap();
        let mapped = MappedFile::open(&File::open(&empty).unwrap()).unwrap();
        assert!(!mapped.is_mapped());
        assert!(mapped.is_empty());
    }
}
