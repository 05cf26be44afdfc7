//! One line of a GPGPU-Sim log, classified without allocating.
//!
//! Recognized (after leading blanks; a trailing `\r` is ignored):
//! `Processing kernel <path>`, `-kernel name = <name>`, `-kernel id = <n>`,
//! `GPGPU-Sim: Reconfigure L1 cache to <n>KB`,
//! `GPGPU-Sim Cycle <c>: <Load|Store> instr from <cache> cache at SM <s> bank <b> addr <hex> status <n>`
//! and the end-of-kernel statistics `gpu_sim_cycle`, `gpu_sim_insn`, `gpu_ipc`,
//! `gpu_tot_sim_cycle`, `gpu_tot_sim_insn`, `gpgpu_simulation_time` (`name = value`).
//! A line that starts like one of these but does not complete is [`LogLine::Malformed`];
//! everything else is [`LogLine::Other`].

use super::Level;

/// The cache an access line names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cache {
    /// `L1D` or `L2`.
    Level(Level),
    /// Another cache (`L1I`, `L1C`, `L1T`, ...): counted, not analysed.
    Other,
}

/// One memory access.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Access {
    /// The cycle of the access (per kernel).
    pub cycle: u64,
    /// `Store` (true) or `Load`.
    pub store: bool,
    /// Which cache.
    pub cache: Cache,
    /// Streaming multiprocessor.
    pub sm: u32,
    /// Bank.
    pub bank: u32,
    /// Address (hexadecimal in the log).
    pub address: u64,
    /// GPGPU-Sim's `cache_request_status`.
    pub status: u32,
}

/// An end-of-kernel statistic.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EndStat {
    /// `gpu_sim_cycle`: the kernel's cycles.
    SimCycle,
    /// `gpu_sim_insn`.
    SimInsn,
    /// `gpu_ipc`.
    Ipc,
    /// `gpu_tot_sim_cycle`: cumulative cycles.
    TotSimCycle,
    /// `gpu_tot_sim_insn`.
    TotSimInsn,
    /// `gpgpu_simulation_time`: wall time of the simulation, as text.
    SimulationTime,
}

/// A classified line; byte slices borrow from the log.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LogLine<'a> {
    /// `Processing kernel <path>`.
    ProcessingKernel(&'a [u8]),
    /// `-kernel name = <name>`.
    KernelName(&'a [u8]),
    /// `-kernel id = <n>`.
    KernelId(u64),
    /// `GPGPU-Sim: Reconfigure L1 cache to <n>KB`, in bytes.
    ReconfigureL1(u64),
    /// An access line.
    Access(Access),
    /// An end-of-kernel statistic and its value text (trimmed).
    EndStat(EndStat, &'a [u8]),
    /// Starts like a known line but is incomplete or has a bad field.
    Malformed(&'static str),
    /// Anything else.
    Other,
}

const ACCESS_PREFIX: &[u8; 16] = b"GPGPU-Sim Cycle ";
const RECONFIGURE_PREFIX: &[u8] = b"GPGPU-Sim: Reconfigure L1 cache to ";

/// Classifies one line (without its `\n`).
pub fn classify(line: &[u8]) -> LogLine<'_> {
    let line = trim_end(trim_start(line));
    match line.first() {
        Some(b'G') => {
            if let Some(rest) = eat(line, ACCESS_PREFIX) {
                return match parse_access(rest) {
                    Some(access) => LogLine::Access(access),
                    None => LogLine::Malformed("incomplete or malformed access line"),
                };
            }
            if let Some(rest) = line.strip_prefix(RECONFIGURE_PREFIX) {
                return match parse_size(rest) {
                    Some(bytes) => LogLine::ReconfigureL1(bytes),
                    None => LogLine::Malformed("malformed L1 reconfiguration size"),
                };
            }
            LogLine::Other
        }
        Some(b'-') => {
            if let Some(rest) = line.strip_prefix(b"-kernel name = ") {
                return LogLine::KernelName(rest);
            }
            if let Some(rest) = line.strip_prefix(b"-kernel id = ") {
                return match parse_dec(rest) {
                    Some((id, [])) => LogLine::KernelId(id),
                    _ => LogLine::Malformed("malformed kernel id"),
                };
            }
            if line == b"-kernel name =" || line == b"-kernel id =" {
                return LogLine::Malformed("kernel header without a value");
            }
            LogLine::Other
        }
        Some(b'P') => match line.strip_prefix(b"Processing kernel") {
            Some(rest) if rest.is_empty() || rest[0] == b' ' || rest[0] == b'\t' => {
                LogLine::ProcessingKernel(trim_start(rest))
            }
            _ => LogLine::Other,
        },
        Some(b'g') => parse_end_stat(line),
        _ => LogLine::Other,
    }
}

fn parse_end_stat(line: &[u8]) -> LogLine<'_> {
    let Some(eq) = line.iter().position(|&b| b == b'=') else {
        return LogLine::Other;
    };
    let key = trim_end(&line[..eq]);
    let stat = match key {
        b"gpu_sim_cycle" => EndStat::SimCycle,
        b"gpu_sim_insn" => EndStat::SimInsn,
        b"gpu_ipc" => EndStat::Ipc,
        b"gpu_tot_sim_cycle" => EndStat::TotSimCycle,
        b"gpu_tot_sim_insn" => EndStat::TotSimInsn,
        b"gpgpu_simulation_time" => EndStat::SimulationTime,
        _ => return LogLine::Other,
    };
    LogLine::EndStat(stat, trim_start(&line[eq + 1..]))
}

/// `5401: Load instr from L1D cache at SM 0 bank 0 addr 93ce6a00 status 2`.
fn parse_access(rest: &[u8]) -> Option<Access> {
    let (cycle, rest) = parse_dec(rest)?;
    let rest = eat(rest, b": ")?;
    let (store, rest) = if let Some(r) = eat(rest, b"Load instr from ") {
        (false, r)
    } else {
        (true, eat(rest, b"Store instr from ")?)
    };
    let (cache, rest) = if let Some(r) = eat(rest, b"L1D cache at SM ") {
        (Cache::Level(Level::L1), r)
    } else if let Some(r) = eat(rest, b"L2 cache at SM ") {
        (Cache::Level(Level::L2), r)
    } else {
        let at = find(rest, b" cache at SM ")?;
        if at == 0 || rest[..at].contains(&b' ') {
            return None;
        }
        (Cache::Other, &rest[at + b" cache at SM ".len()..])
    };
    let (sm, rest) = parse_dec(rest)?;
    let rest = eat(rest, b" bank ")?;
    let (bank, rest) = parse_dec(rest)?;
    let rest = eat(rest, b" addr ")?;
    let (address, rest) = parse_hex(rest)?;
    let rest = eat(rest, b" status ")?;
    let (status, rest) = parse_dec(rest)?;
    if !rest.is_empty() {
        return None;
    }
    Some(Access {
        cycle,
        store,
        cache,
        sm: u32::try_from(sm).ok()?,
        bank: u32::try_from(bank).ok()?,
        address,
        status: u32::try_from(status).ok()?,
    })
}

/// `120KB` (also `B`, `MB`, with or without a space) in bytes.
fn parse_size(rest: &[u8]) -> Option<u64> {
    let (n, unit) = parse_dec(rest)?;
    let factor = match trim_start(unit) {
        b"KB" | b"K" | b"kB" => 1024,
        b"MB" | b"M" => 1024 * 1024,
        b"B" | b"" => 1,
        _ => return None,
    };
    n.checked_mul(factor)
}

/// A decimal number at the start of `text` and what follows it (`None`: no digit, or more
/// than fits in a `u64`).
pub fn parse_dec(text: &[u8]) -> Option<(u64, &[u8])> {
    let mut value: u64 = 0;
    let mut i = 0;
    while let Some(&b) = text.get(i) {
        let digit = b.wrapping_sub(b'0');
        if digit > 9 {
            break;
        }
        value = if i < 19 {
            // 19 digits always fit.
            value * 10 + u64::from(digit)
        } else {
            value.checked_mul(10)?.checked_add(u64::from(digit))?
        };
        i += 1;
    }
    (i > 0).then(|| (value, &text[i..]))
}

/// A hexadecimal number (optional `0x`, at most 16 significant digits) at the start of `text`
/// and what follows it.
fn parse_hex(text: &[u8]) -> Option<(u64, &[u8])> {
    let text = eat(text, b"0x")
        .or_else(|| eat(text, b"0X"))
        .unwrap_or(text);
    let mut value: u64 = 0;
    let mut significant = 0;
    let mut i = 0;
    while let Some(&b) = text.get(i) {
        let digit = match b {
            b'0'..=b'9' => b - b'0',
            b'a'..=b'f' => b - b'a' + 10,
            b'A'..=b'F' => b - b'A' + 10,
            _ => break,
        };
        if value != 0 || digit != 0 {
            significant += 1;
            if significant > 16 {
                return None;
            }
        }
        value = (value << 4) | u64::from(digit);
        i += 1;
    }
    (i > 0).then(|| (value, &text[i..]))
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    memchr::memmem::find(haystack, needle)
}

/// `text` without the fixed `prefix`, compared as an array (inlined, no `memcmp` call).
#[inline(always)]
fn eat<'a, const N: usize>(text: &'a [u8], prefix: &[u8; N]) -> Option<&'a [u8]> {
    match text.split_first_chunk::<N>() {
        Some((head, rest)) if head == prefix => Some(rest),
        _ => None,
    }
}

/// Removes leading blanks.
pub fn trim_start(text: &[u8]) -> &[u8] {
    let n = text
        .iter()
        .take_while(|b| matches!(b, b' ' | b'\t'))
        .count();
    &text[n..]
}

/// Removes trailing blanks and `\r`.
pub fn trim_end(text: &[u8]) -> &[u8] {
    let n = text
        .iter()
        .rev()
        .take_while(|b| matches!(b, b' ' | b'\t' | b'\r'))
        .count();
    &text[..text.len() - n]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seed_access_line() {
        let line = b"GPGPU-Sim Cycle 5401: Load instr from L1D cache at SM 0 bank 0 addr 93ce6a00 status 2";
        assert_eq!(
            classify(line),
            LogLine::Access(Access {
                cycle: 5401,
                store: false,
                cache: Cache::Level(Level::L1),
                sm: 0,
                bank: 0,
                address: 0x93ce6a00,
                status: 2
            })
        );
    }

    #[test]
    fn numbers_at_their_limits() {
        assert_eq!(
            parse_dec(b"18446744073709551615 x"),
            Some((u64::MAX, &b" x"[..]))
        );
        assert_eq!(parse_dec(b"18446744073709551616"), None);
        assert_eq!(
            parse_dec(b"000000000000000000000000001"),
            Some((1, &b""[..]))
        );
        assert_eq!(parse_dec(b"x1"), None);
        assert_eq!(parse_hex(b"ffffffffffffffff"), Some((u64::MAX, &b""[..])));
        assert_eq!(parse_hex(b"0x0000000000000000001F,"), Some((31, &b","[..])));
        assert_eq!(parse_hex(b"10000000000000000"), None);
        assert_eq!(parse_hex(b"zz"), None);
    }

    #[test]
    fn truncated_access_is_malformed() {
        let line = b"GPGPU-Sim Cycle 5401: Load instr from L1D cache at SM 0 bank 0 addr 93ce";
        assert!(matches!(classify(line), LogLine::Malformed(_)));
    }

    #[test]
    fn headers_and_stats() {
        assert_eq!(classify(b"-kernel id = 25\r"), LogLine::KernelId(25));
        assert_eq!(
            classify(b"GPGPU-Sim: Reconfigure L1 cache to 120KB"),
            LogLine::ReconfigureL1(122880)
        );
        assert_eq!(
            classify(b"gpu_ipc =     106.5955"),
            LogLine::EndStat(EndStat::Ipc, b"106.5955")
        );
        assert_eq!(classify(b"gpu_stall_dramfull = 3"), LogLine::Other);
        assert_eq!(classify(b"Processing kernelX"), LogLine::Other);
    }
}
