//! What an NvRules `INvtxDomainInfo` / `INvtxRange` answers: one range of a domain (name and
//! event attributes) and its payload read as an integer or a float, as NVIDIA's reader does.

use crate::proto::nv::nvtx::{NvtxEventAttributes, NvtxState};

/// The `index`-th push/pop range (`push_pop`) or start/end range of domain `id` at an action
/// launched by `thread_id` (push/pop stacks are per thread; `None`: every thread's): its name
/// and event attributes.
pub fn range_attributes(
    state: &NvtxState,
    thread_id: Option<u32>,
    id: u64,
    push_pop: bool,
    index: usize,
) -> Option<(String, Option<NvtxEventAttributes>)> {
    if push_pop {
        let range = state
            .threads
            .iter()
            .filter(|t| thread_id.is_none_or(|tid| t.tid == tid))
            .flat_map(|t| &t.push_pop_domains)
            .filter(|d| d.id == id)
            .flat_map(|d| &d.stack)
            .nth(index)?;
        Some((range.name.clone(), range.attributes.clone()))
    } else {
        let range = state
            .start_end_domains
            .iter()
            .filter(|d| d.id == id)
            .flat_map(|d| &d.ranges)
            .nth(index)?;
        Some((range.name.clone(), range.attributes.clone()))
    }
}

/// `INvtxRange.payload_as_uint64()`: the payload's integer (a signed one as its two's
/// complement), 0 without one.
pub fn payload_as_uint64(attributes: Option<&NvtxEventAttributes>) -> u64 {
    attributes.map_or(0, |a| {
        let p = &a.payload;
        p.ull_value
            .or(p.u_value.map(u64::from))
            .or(p.ll_value.map(|v| v.cast_unsigned()))
            .or(p.i_value.map(|v| i64::from(v).cast_unsigned()))
            .unwrap_or(0)
    })
}

/// `INvtxRange.payload_as_double()`: the payload's float, or its integer (64 or 32 bits, as
/// NVIDIA's reader converts an INT32 payload of -4 to -4.0) as a float, 0 without one.
#[expect(
    clippy::cast_precision_loss,
    reason = "NVIDIA's reader converts a 64-bit payload to a double the same way"
)]
pub fn payload_as_double(attributes: Option<&NvtxEventAttributes>) -> f64 {
    attributes.map_or(0.0, |a| {
        let p = &a.payload;
        p.double_value
            .or(p.f_value.map(f64::from))
            .or(p.ull_value.map(|v| v as f64))
            .or(p.ll_value.map(|v| v as f64))
            .or(p.u_value.map(f64::from))
            .or(p.i_value.map(f64::from))
            .unwrap_or(0.0)
    })
}
