//! Rows of the HSA Kernel Timestamp section: `kernelName kernelHandle start end` followed by
//! fields that differ by release (agent name and handle, queue index and handle; RCP 5.x adds
//! agent index, AQL packet type, packet id and packet text).

use super::model::{HsaDispatch, Names, StrId};
use super::text::{decode, parse_handle, parse_u64, tokens, unescape};

/// What a row turned out to be.
#[derive(Debug)]
pub enum KernelRow {
    /// A kernel dispatch.
    Dispatch(HsaDispatch),
    /// An AQL packet that is not a kernel dispatch (barrier, agent dispatch...): skipped.
    OtherPacket,
    /// Unreadable: why.
    Malformed(&'static str),
}

/// Parses one row (its `line` field is left 0 for the caller to set).
pub fn parse_kernel_row(line: &[u8], names: &mut Names) -> KernelRow {
    let mut t = tokens(line);
    let (Some(name), Some(handle), Some(start), Some(end)) =
        (t.next(), t.next(), t.next(), t.next())
    else {
        return KernelRow::Malformed("needs 'kernelName kernelHandle start end'");
    };
    let Some(kernel_handle) = parse_handle(handle) else {
        return KernelRow::Malformed("kernel handle is not hexadecimal");
    };
    let (Some(start_ns), Some(end_ns)) = (parse_u64(start), parse_u64(end)) else {
        return KernelRow::Malformed("start or end is not a number");
    };
    let mut dispatch = HsaDispatch {
        kernel: names.intern_str(&unescape(&decode(name))),
        kernel_handle,
        start_ns,
        end_ns,
        agent: StrId(u32::MAX),
        agent_handle: None,
        queue_index: None,
        queue_handle: None,
        agent_index: None,
        packet_id: None,
        line: 0,
    };
    let mut agent: Option<&[u8]> = None;
    let mut handles = 0;
    let mut numbers = 0;
    let mut after_packet_type = false;
    for token in t.by_ref() {
        if let Some(packet) = token.strip_prefix(b"HSA_PACKET_TYPE_") {
            if packet != b"KERNEL_DISPATCH" {
                return KernelRow::OtherPacket;
            }
            after_packet_type = true;
            continue;
        }
        if after_packet_type {
            // Packet id, then the packet's text (the rest of the line).
            dispatch.packet_id = parse_u64(token);
            break;
        }
        if agent.is_none() {
            agent = Some(token);
            continue;
        }
        if token.starts_with(b"0x") || token.starts_with(b"0X") {
            let value = parse_handle(token);
            match handles {
                0 => dispatch.agent_handle = value,
                1 => dispatch.queue_handle = value,
                _ => {}
            }
            handles += 1;
        } else if let Some(value) = parse_u64(token) {
            let value = u32::try_from(value).ok();
            match numbers {
                0 => dispatch.queue_index = value,
                1 => dispatch.agent_index = value,
                _ => {}
            }
            numbers += 1;
        }
    }
    dispatch.agent = names.intern_str(&unescape(&decode(agent.unwrap_or_default())));
    KernelRow::Dispatch(dispatch)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_of_each_release() {
        let mut names = Names::default();
        let KernelRow::Dispatch(d) = parse_kernel_row(
            b"vec&nbsp;add&comma;f 0x7f00 100 200 gfx803 0x1A 0 0x7f10",
            &mut names,
        ) else {
            panic!()
        };
        assert_eq!(names.get(d.kernel), "vec add,f");
        assert_eq!(
            (d.start_ns, d.end_ns, d.queue_index, d.queue_handle),
            (100, 200, Some(0), Some(0x7f10))
        );
        assert_eq!(names.get(d.agent), "gfx803");
        let KernelRow::Dispatch(d) = parse_kernel_row(
            b"k 0x1 5 9 gfx900 0x2 1 0x3 0 HSA_PACKET_TYPE_KERNEL_DISPATCH 17 header=...",
            &mut names,
        ) else {
            panic!()
        };
        assert_eq!(
            (d.queue_index, d.agent_index, d.packet_id),
            (Some(1), Some(0), Some(17))
        );
        assert!(matches!(
            parse_kernel_row(
                b"k 0x1 5 9 gfx900 0x2 1 0x3 0 HSA_PACKET_TYPE_BARRIER_AND 18 x",
                &mut names
            ),
            KernelRow::OtherPacket
        ));
        assert!(matches!(
            parse_kernel_row(b"k zz 5 9", &mut names),
            KernelRow::Malformed(_)
        ));
    }
}
