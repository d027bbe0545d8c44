"""Peak-memory probe, run in a fresh process by bench_memory.py::

    python -m benchmarks._memprobe IMPL PATH

Imports and warms up IMPL on a tiny document, reads PATH, then measures the resident set:
``baseline`` = RSS after the input is loaded, ``peak`` = the high-water mark while IMPL turns the
input into its result (the result is kept alive until the measurement).  On Linux the high-water
mark is reset right before the call (``/proc/self/clear_refs`` ← 5), so the peak is the call's own;
elsewhere ``ru_maxrss`` is used (then the peak may include earlier allocations).  Prints JSON.
"""

from __future__ import annotations

import gc
import json
import resource
import sys
from pathlib import Path


def _status(field: str) -> int | None:
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith(field + ":"):
                return int(line.split()[1]) * 1024
    except OSError:
        pass
    return None


def _rss() -> int:
    v = _status("VmRSS")
    if v is not None:
        return v
    import psutil

    return int(psutil.Process().memory_info().rss)


def _reset_peak() -> bool:
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
        return True
    except OSError:
        return False


def _peak(reset: bool) -> int:
    v = _status("VmHWM") if reset else None
    if v is not None:
        return v
    scale = 1 if sys.platform == "darwin" else 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * scale


def main(argv: list[str]) -> int:
    impl_name, path = argv
    from benchmarks import impls
    from benchmarks.harness import nuif_codec

    table = {i.name: i for i in impls.CANONICALIZE}
    fn = table[impl_name].fn
    assert fn is not None
    fn(b'{"nuif": 0, "root": {"id": "a", "kind": "screen", "attrs": {"x": [1.5, "\\u00e9"]}}}')
    data = Path(path).read_bytes()
    gc.collect()
    baseline = _rss()
    reset = _reset_peak()
    result = fn(data)
    peak = _peak(reset)
    extra = max(0, peak - baseline)
    print(
        json.dumps(
            {
                "impl": impl_name,
                "input_bytes": len(data),
                "baseline_rss_bytes": baseline,
                "peak_rss_bytes": peak,
                "extra_rss_bytes": extra,
                "extra_rss_ratio": round(extra / len(data), 3),
                "peak_reset": reset,
                "nuif_codec": nuif_codec(),
                "result_len": len(result[0] if isinstance(result, tuple) else result),
            }
        )
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
