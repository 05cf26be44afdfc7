# Sightline bundled rule: uncoalesced global loads and stores.
#
# Part of Sightline (an independent viewer for Nsight Compute reports). This file is
# Sightline's own work; it uses the NvRules interface but no NVIDIA rule code or text.
#
# A warp-wide global access is one request to L1/TEX; the request is served in 32-byte
# sectors. When the 32 threads touch neighbouring addresses, a request needs exactly as
# many sectors as the bytes it asks for (4 sectors for 32-bit accesses, 8 for 64-bit,
# 16 for 128-bit). Scattered or strided addresses pull in sectors that are only partly used.
#
# The rule measures the wasted share of the sectors, per direction (loads, stores), from the
# best data the report has:
#   1. bytes used per sector (smsp__sass_average_data_bytes_per_sector_mem_global_op_*),
#      which knows the access width;
#   2. otherwise the L2 sectors the global instructions needed vs. the ideal for their width
#      (memory_l2_theoretical_sectors_global[_ideal], loads and stores together);
#   3. otherwise sectors per request against 4, the ideal for 32-bit accesses.
import NvRules
from sightline_rule_helpers import (
    value as _value,
    optimization_type as _optimization_type,
    add_speedup as _add_speedup,
)

SECTOR_BYTES = 32.0
# Sectors per request of a fully coalesced warp access with 4-byte elements.
IDEAL_SECTORS_PER_REQUEST_32BIT = 4.0
# Report a direction when at least this share of its sectors is wasted [%].
WASTE_THRESHOLD_PCT = 10.0
# Ignore directions with fewer requests than this (too little traffic to matter).
MIN_REQUESTS = 1.0

_DIRECTIONS = (
    ("ld", "load", "loads"),
    ("st", "store", "stores"),
)

THEORETICAL = "memory_l2_theoretical_sectors_global"
THEORETICAL_IDEAL = "memory_l2_theoretical_sectors_global_ideal"


def get_identifier():
    return "SightlineGlobalCoalescing"


def get_name():
    return "Uncoalesced Global Access"


def get_description():
    return "Sectors per request of global loads and stores against the ideal for their access width."


def get_section_identifier():
    return "MemoryWorkloadAnalysis"


def _advice():
    return (" Make consecutive threads access consecutive elements (index with threadIdx.x in the "
            "fastest-changing dimension), prefer structures of arrays over arrays of structures, "
            "and stage strided or transposed accesses through shared memory. "
            "@section:SourceCounters:Source Counters@ lists the instructions with the most excess sectors.")


def apply(handle):
    ctx = NvRules.get_context(handle)
    action = ctx.range_by_idx(0).action_by_idx(0)
    fe = ctx.frontend()
    F = NvRules.IFrontend
    opt = _optimization_type()

    measured = []   # (short, verb, plural, sectors, requests)
    for short, verb, plural in _DIRECTIONS:
        sectors_name = "l1tex__t_sectors_pipe_lsu_mem_global_op_{}.sum".format(short)
        requests_name = "l1tex__t_requests_pipe_lsu_mem_global_op_{}.sum".format(short)
        sectors = _value(action, sectors_name)
        requests = _value(action, requests_name)
        if sectors is None or requests is None:
            continue
        measured.append((short, verb, plural, sectors, requests, sectors_name, requests_name))
    if not measured:
        return  # no L1/TEX request counters in this result

    active = [m for m in measured if m[4] >= MIN_REQUESTS]
    if not active:
        fe.message(F.MsgType_MSG_NONE, "The kernel issues no global loads or stores.",
                   "Global Access Coalescing")
        return

    summary = []
    flagged = 0
    width_aware = False

    for short, verb, plural, sectors, requests, sectors_name, requests_name in active:
        per_request = sectors / requests
        summary.append("{} {:.1f} sectors/request".format(plural, per_request))
        used_name = "smsp__sass_average_data_bytes_per_sector_mem_global_op_{}.ratio".format(short)
        used_bytes = _value(action, used_name)
        max_bytes = _value(action, "smsp__sass_average_data_bytes_per_sector_mem_global_op_{}.max_rate".format(short))
        if max_bytes is None or max_bytes <= 0.0:
            max_bytes = SECTOR_BYTES
        if used_bytes is None or used_bytes <= 0.0:
            continue
        width_aware = True
        efficiency = min(1.0, used_bytes / max_bytes)
        waste_pct = (1.0 - efficiency) * 100.0
        if waste_pct < WASTE_THRESHOLD_PCT:
            continue
        ideal = per_request * efficiency
        msg_id = fe.message(
            opt,
            ("Global {} use on average {:.1f} of the {:.0f} bytes in each sector they transfer, so "
             "{:.0f}% of their L1-L2 sector traffic is wasted. They need {:.1f} sectors per request; "
             "fully coalesced accesses of the same width would need about {:.1f}.").format(
                 plural, used_bytes, max_bytes, waste_pct, per_request, ideal) + _advice(),
            "Uncoalesced Global {}".format(plural.title()))
        _add_speedup(fe, msg_id, False, waste_pct)
        fe.focus_metric(msg_id, used_name, used_bytes, F.Severity_SEVERITY_HIGH,
                        "Raise towards {:.0f} bytes per sector".format(max_bytes))
        fe.focus_metric(msg_id, sectors_name, sectors, F.Severity_SEVERITY_LOW,
                        "Ideal about {:.0f} sectors".format(sectors * efficiency))
        flagged += 1

    if not width_aware:
        total = _value(action, THEORETICAL)
        ideal = _value(action, THEORETICAL_IDEAL)
        if total is not None and ideal is not None and total > 0.0:
            width_aware = True
            waste_pct = max(0.0, (total - ideal) / total * 100.0)
            if waste_pct >= WASTE_THRESHOLD_PCT:
                msg_id = fe.message(
                    opt,
                    ("Global loads and stores need {:.0f} L2 sectors where {:.0f} would do for "
                     "their access widths: {:.0f}% of the sectors are excess.").format(total, ideal, waste_pct)
                    + _advice(),
                    "Uncoalesced Global Accesses")
                _add_speedup(fe, msg_id, False, waste_pct)
                fe.focus_metric(msg_id, THEORETICAL, total, F.Severity_SEVERITY_HIGH,
                                "Ideal {:.0f} sectors".format(ideal))
                flagged += 1

    if not width_aware:
        # Only request and sector counts: assume 4-byte elements.
        for short, verb, plural, sectors, requests, sectors_name, requests_name in active:
            per_request = sectors / requests
            if per_request <= IDEAL_SECTORS_PER_REQUEST_32BIT:
                continue
            waste_pct = (per_request - IDEAL_SECTORS_PER_REQUEST_32BIT) / per_request * 100.0
            if waste_pct < WASTE_THRESHOLD_PCT:
                continue
            msg_id = fe.message(
                opt,
                ("Global {} need {:.1f} sectors per request. A warp reading 4-byte elements from "
                 "consecutive addresses needs {:.0f}; if these are 4-byte accesses, {:.0f}% of the "
                 "sectors are wasted. (8- and 16-byte accesses legitimately need 8 and 16 sectors; the "
                 "report lacks the counters to tell.)").format(
                     plural, per_request, IDEAL_SECTORS_PER_REQUEST_32BIT, waste_pct) + _advice(),
                "Possibly Uncoalesced Global {}".format(plural.title()))
            _add_speedup(fe, msg_id, False, waste_pct)
            fe.focus_metric(msg_id, sectors_name, sectors, F.Severity_SEVERITY_HIGH,
                            "{:.1f} sectors/request vs. {:.0f}".format(per_request, IDEAL_SECTORS_PER_REQUEST_32BIT))
            flagged += 1

    if flagged == 0:
        fe.message(F.MsgType_MSG_OK,
                   "Global accesses are coalesced: {}, with no significant excess over the ideal for "
                   "their access width.".format(", ".join(summary)) if width_aware else
                   "Global accesses look coalesced: {} (the ideal for 4-byte elements is {:.0f}).".format(
                       ", ".join(summary), IDEAL_SECTORS_PER_REQUEST_32BIT),
                   "Global Access Coalescing")
