"""Held-out script: NVTX states of every kernel and filtering with actions_by_nvtx.

Written only from the Nsight Compute documentation (Python Report Interface, NVTX support and
the sample script) and the module's docstrings. Usage: nvtx_filter.py REPORT
"""

import sys

import ncu_report

FILTERS = [
    (["BottomRange/*/TopRange"], []),
    (["train/"], []),
    (["train/epoch/"], []),
    (["train/epoch/forward"], []),
    (["train/epoch/backward/"], ["train/epoch/forward/"]),
    (["train/"], ["train/epoch/backward/"]),
    (["app@solver/"], []),
    (["app@"], []),
    (["step 3"], []),
    (["step 3/"], []),
    (["eval/"], []),
    ([], ["train/"]),
    ([], []),
    (["nosuchrange/"], []),
    (["train/", "app@solver/"], []),
]


def describe_range(prefix, nvtx_range):
    if nvtx_range is None:
        print(f"{prefix}: None")
        return
    print(
        f"{prefix}: name={nvtx_range.name()!r} attrs={nvtx_range.has_attributes()} "
        f"msg={nvtx_range.message()!r} color={nvtx_range.color()} "
        f"category={nvtx_range.category()} payload_type={nvtx_range.payload_type()} "
        f"payload={nvtx_range.payload_as_string()!r}/{nvtx_range.payload_as_uint64()}/"
        f"{nvtx_range.payload_as_double()}"
    )


def describe_state(idx, action):
    state = action.nvtx_state()
    if state is None:
        print(f"[{idx}] {action.name()}: no NVTX state")
        return
    print(f"[{idx}] {action.name()}: domains {state.domains()} (len {len(state)})")
    for domain_id in state.domains():
        domain = state.domain_by_id(domain_id)
        print(f"  domain {domain_id}: {domain.name()!r} str={str(domain)!r}")
        print(f"    push/pop: {domain.push_pop_ranges()}")
        print(f"    start/end: {domain.start_end_ranges()}")
        for i in range(len(domain.push_pop_ranges()) + 1):
            describe_range(f"    push_pop_range({i})", domain.push_pop_range(i))
        for i in range(len(domain.start_end_ranges()) + 1):
            describe_range(f"    start_end_range({i})", domain.start_end_range(i))
    # The docstring says iteration gives INvtxDomainInfo objects; NVIDIA's module gives the
    # domain ids (so does Sightline's): print what it gives.
    print(f"  iterated: {list(state)}")
    try:
        state[123456]
        print("  state[123456]: found")
    except KeyError:
        print("  state[123456]: KeyError")


def main(path):
    report = ncu_report.load_report(path)
    for current in report:
        for idx, action in enumerate(current):
            describe_state(idx, action)
        for includes, excludes in FILTERS:
            found = current.actions_by_nvtx(includes, excludes)
            names = [current.action_by_idx(i).name() for i in found]
            print(f"include={includes} exclude={excludes}: {tuple(found)} {names}")


if __name__ == "__main__":
    main(sys.argv[1])
