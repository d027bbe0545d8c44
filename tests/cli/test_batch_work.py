"""``nuif batch`` without a cluster: planning, JSON Lines byte ranges, bounded memory, the report
writers, and the messages when an extra is missing (the cluster runs: test_dask_batch.py)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

import nuif_core
from nuif_cli import _batch_work as work
from nuif_cli import dask as nuif_dask

from .batch_corpus import document, make_jsonl, make_tree, oracle_file, oracle_jsonl

KiB = 1024
MiB = 1024 * KiB


def _records(inputs: list[str], **kwargs) -> list[dict]:
    return list(nuif_dask.run_batch(inputs, **kwargs))


def test_serial_records_equal_the_oracle_for_a_tree_of_files(tmp_path: Path) -> None:
    paths = make_tree(tmp_path / "t", 300)
    got = _records([str(tmp_path / "t")], partition_bytes=4 * KiB)
    assert got == [oracle_file(p) for p in paths]
    kinds = {(r["valid"], r["changed"]) for r in got}
    assert {(True, False), (True, True), (False, None), (None, None)} <= kinds


@pytest.mark.parametrize("partition", [1, 7, 100, 1000, 64 * KiB])
def test_jsonl_ranges_give_every_line_once_with_its_number(tmp_path: Path, partition: int) -> None:
    path = tmp_path / "docs.jsonl"
    make_jsonl(path, 600)
    assert _records([str(path)], partition_bytes=partition) == oracle_jsonl(str(path))


def test_a_bad_jsonl_line_is_reported_with_its_line_number(tmp_path: Path) -> None:
    path = tmp_path / "docs.jsonl"
    bad = make_jsonl(path, 400, bad_every=97)
    got = _records([str(path)], partition_bytes=500)
    invalid = [(r["line"], r["diagnostics"][0]["code"]) for r in got if r["valid"] is False]
    assert invalid == [(n, "NUIF_PARSE") for n in bad]
    assert bad == [97, 194, 291, 388]


def test_jsonl_edge_cases_no_final_newline_empty_file_and_crlf(tmp_path: Path) -> None:
    a = tmp_path / "a.jsonl"
    a.write_bytes(
        document(1) + b"\r\n\r\n" + document(2, pretty=True)
    )  # blank CRLF line, no final \n
    empty = tmp_path / "empty.ndjson"
    empty.write_bytes(b"")
    for partition in (1, 3, 50, 10_000):
        got = _records([str(a), str(empty)], partition_bytes=partition)
        assert [(r["line"], r["valid"], r["changed"]) for r in got] == [
            (1, True, False),
            (3, True, True),
        ]


def test_inputs_files_directories_globs_and_missing_names_in_order(tmp_path: Path) -> None:
    (tmp_path / "d" / ".hidden").mkdir(parents=True)
    for name in ("b.json", "a.json", "c.jsonl", "skip.txt", ".x.json", ".hidden/h.json"):
        (tmp_path / "d" / name).write_bytes(document(1) + (b"\n" if name.endswith("l") else b""))
    one = tmp_path / "one.json"
    one.write_bytes(document(2))
    got = _records(
        [str(one), str(tmp_path / "d"), str(tmp_path / "d" / "*.json"), str(tmp_path / "none*")]
    )
    d = str(tmp_path / "d")
    assert [(r["source"], r["line"]) for r in got] == [
        (str(one), None),
        (f"{d}/a.json", None),
        (f"{d}/b.json", None),
        (f"{d}/c.jsonl", 1),
        (f"{d}/a.json", None),
        (f"{d}/b.json", None),
        (str(tmp_path / "none*"), None),
    ]
    assert got[-1]["diagnostics"][0]["code"] == "NUIF_IO"
    assert "no file matches" in got[-1]["diagnostics"][0]["message"]


def test_plan_groups_files_by_bytes_not_by_count() -> None:
    items = [work.Input(f"f{i}", "file", 100) for i in range(50)]
    tasks = list(work.plan(items, partition_bytes=1000))
    assert [len(t[1]) for t in tasks] == [10] * 5
    big = [work.Input("big", "file", 5000), work.Input("s", "file", 1)]
    assert list(work.plan(big, partition_bytes=1000)) == [("files", ["big"]), ("files", ["s"])]
    many = [work.Input(f"f{i}", "file", 0) for i in range(2500)]
    assert [len(t[1]) for t in work.plan(many, 1000)] == [1000, 1000, 500]


def _growth(tmp_path: Path, lines: int, partition: int) -> tuple[nuif_dask.BatchStats, int, int]:
    path = tmp_path / f"big{lines}.jsonl"
    make_jsonl(path, lines)
    longest = max(len(line) for line in path.read_bytes().split(b"\n"))
    stats = nuif_dask.BatchStats()
    records = _records([str(path)], partition_bytes=partition, stats=stats)
    assert records == oracle_jsonl(str(path))
    return stats, longest, path.stat().st_size


def test_jsonl_memory_per_task_is_bounded_by_the_partition_size_not_the_file(
    tmp_path: Path,
) -> None:
    """n vs 4n lines at a 16 KiB partition size: 4x the tasks, the same bytes per task."""
    partition = 16 * KiB
    small, longest, size_small = _growth(tmp_path, 2_000, partition)
    large, longest4, size_large = _growth(tmp_path, 8_000, partition)
    assert size_large > 3.9 * size_small and size_large > 40 * partition
    # each task reads its range plus at most the rest of one line on each side
    bound = partition + 2 * max(longest, longest4) + 2
    assert small.max_task_bytes_read <= bound and large.max_task_bytes_read <= bound
    # and holds one line at a time, never its range
    assert large.max_task_held <= max(longest, longest4) + 2
    assert 3.5 * small.tasks <= large.tasks <= 4.5 * small.tasks
    assert large.input_bytes <= size_large + large.tasks * (longest4 + 2)


def test_tiny_lines_stop_a_task_at_its_result_budget_and_continue(tmp_path: Path) -> None:
    path = tmp_path / "tiny.jsonl"
    path.write_bytes(b"{}\n" * 3000)  # every line invalid: one NUIF_SCHEMA diagnostic or more
    stats = nuif_dask.BatchStats()
    got = _records([str(path)], partition_bytes=MiB, max_result_bytes=16 * KiB, stats=stats)
    assert got == oracle_jsonl(str(path))
    assert [r["line"] for r in got] == list(range(1, 3001))
    assert stats.tasks > 10  # one range, many continuations
    one = work._record_bytes(work.document_record(0, b"{}", nuif_core.Limits.DEFAULT, 100))
    assert stats.max_task_result_bytes <= 16 * KiB + one


def test_a_line_longer_than_the_document_limit_is_skipped_without_holding_it(
    tmp_path: Path,
) -> None:
    limit = nuif_core.Limits.DEFAULT.max_document_bytes
    path = tmp_path / "huge.jsonl"
    with open(path, "wb") as fh:
        fh.write(document(1) + b"\n")
        fh.write(b'{"pad": "' + b"x" * (limit + 3 * MiB) + b'"}\n')
        fh.write(document(2) + b"\n")
    stats = nuif_dask.BatchStats()
    got = _records([str(path)], partition_bytes=4 * MiB, stats=stats)
    assert [(r["line"], r["valid"]) for r in got] == [(1, True), (2, False), (3, True)]
    assert got[1]["diagnostics"][0]["code"] == "NUIF_TOO_LARGE"
    assert got[1]["bytes"] == limit + 3 * MiB + 11
    assert stats.max_task_held <= limit + 2


def test_a_16_mib_document_file_is_one_task_and_valid(tmp_path: Path) -> None:
    limit = nuif_core.Limits.DEFAULT.max_document_bytes
    head = b'{"nuif":0,"root":{"id":"r","kind":"screen","attrs":{"pad":"'
    tail = b'"}}}'
    path = tmp_path / "big.json"
    path.write_bytes(head + b"y" * (limit - len(head) - len(tail)) + tail)
    over = tmp_path / "over.json"
    over.write_bytes(head + b"y" * (limit - len(head) - len(tail) + 1) + tail)
    stats = nuif_dask.BatchStats()
    got = _records([str(path), str(over)], partition_bytes=MiB, stats=stats)
    assert got[0]["valid"] is True and got[0]["bytes"] == limit
    assert got[1]["valid"] is False and got[1]["diagnostics"][0]["code"] == "NUIF_TOO_LARGE"
    assert stats.tasks == 2 and stats.max_task_held == limit


def test_versions_are_checked_before_a_task_runs(tmp_path: Path) -> None:
    path = tmp_path / "a.json"
    path.write_bytes(document(1))
    with pytest.raises(
        work.VersionMismatch,
        match=r"the client nuif-core 0\.0\.0 and nuif-cli 0\.0\.0: install the same",
    ):
        work.run_task(("files", [str(path)]), {"versions": ("0.0.0", "0.0.0")})
    assert (
        work.run_task(("files", [str(path)]), {"versions": work.versions()}).records[0][2] is True
    )


# ---------------------------------------------------------------------------------------------
# the command, in this process (--serial)


def test_serial_command_report_summary_and_exit_status(nuif, tmp_path: Path) -> None:
    paths = make_tree(tmp_path / "t", 120)
    r = nuif(
        "batch", "validate", str(tmp_path / "t"), "--serial", "--summary", str(tmp_path / "s.json")
    )
    records = [json.loads(line) for line in r.text.splitlines()]
    assert records == [oracle_file(p) for p in paths]
    assert r.code == 2  # dangling links are unreadable
    summary = json.loads((tmp_path / "s.json").read_text())
    hashes = [x["hash"] for x in records if x["valid"]]
    assert summary["documents"] == len(paths)
    assert summary["unreadable"] == sum(x["valid"] is None for x in records)
    assert summary["invalid"] == sum(x["valid"] is False for x in records)
    assert summary["distinct_hashes"] == len(set(hashes))
    assert summary["duplicates"]["documents"] == len(hashes) - len(set(hashes)) > 0
    top = summary["duplicates"]["largest"][0]
    assert top["count"] == max(hashes.count(h) for h in hashes) == hashes.count(top["hash"])
    assert f"nuif batch validate: {len(paths)} documents" in r.err


def test_canonicalize_checks_by_default_and_in_place_rewrites(nuif, tmp_path: Path) -> None:
    (tmp_path / "a.json").write_bytes(document(1, pretty=True))
    (tmp_path / "b.json").write_bytes(document(2))
    check = nuif("batch", "canonicalize", str(tmp_path), "--serial")
    assert check.code == 1 and [json.loads(x)["changed"] for x in check.text.splitlines()] == [
        True,
        False,
    ]
    fixed = nuif("batch", "canonicalize", "-i", str(tmp_path), "--serial")
    assert fixed.code == 0 and "1 rewritten" in fixed.err
    assert (tmp_path / "a.json").read_bytes() == nuif_core.canonicalize(
        document(1)
    ).canonical + b"\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.json", "b.json"]
    again = nuif("batch", "canonicalize", str(tmp_path), "--serial")
    assert again.code == 0 and [json.loads(x)["changed"] for x in again.text.splitlines()] == [
        False,
        False,
    ]


def test_in_place_refuses_jsonl_and_other_operations(nuif, tmp_path: Path) -> None:
    (tmp_path / "a.jsonl").write_bytes(document(1) + b"\n")
    r = nuif("batch", "canonicalize", "-i", str(tmp_path / "a.jsonl"), "--serial")
    assert r.code == 2 and "JSON Lines" in r.err
    assert nuif("batch", "hash", "-i", str(tmp_path / "a.jsonl"), "--serial").code == 2
    assert (
        nuif("batch", "hash", str(tmp_path / "a.jsonl"), "--serial", "--partition-size", "0").code
        == 2
    )
    r = nuif("batch", "hash", "-", "--serial", stdin=document(1))
    assert r.code == 2 and "not stdin" in r.err and r.out == b""


def test_parquet_report_holds_the_same_records(nuif, tmp_path: Path) -> None:
    pq = pytest.importorskip("pyarrow.parquet")
    paths = make_tree(tmp_path / "t", 60)
    jsonl = tmp_path / "r.jsonl"
    parquet = tmp_path / "r.parquet"
    assert nuif("batch", "hash", str(tmp_path / "t"), "--serial", "-o", str(jsonl)).code == 2
    assert nuif("batch", "hash", str(tmp_path / "t"), "--serial", "-o", str(parquet)).code == 2
    rows = pq.read_table(parquet).to_pylist()
    assert rows == [json.loads(x) for x in jsonl.read_text().splitlines()]
    assert [r["source"] for r in rows] == paths
    assert nuif("batch", "hash", str(tmp_path / "t"), "--serial", "--format", "parquet").code == 2


def test_missing_dask_names_the_extra_to_install(
    nuif, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "a.json").write_bytes(document(1))
    monkeypatch.setitem(sys.modules, "distributed", None)  # import distributed -> ImportError
    for dask in (["--engine", "dask"], ["--scheduler", "tcp://127.0.0.1:1"]):
        r = nuif("batch", "validate", str(tmp_path / "a.json"), *dask)
        assert r.code == 2
        assert "pip install 'nuif-cli[dask]'" in r.err and r.out == b""
    # on one machine no Dask is needed
    assert nuif("batch", "validate", str(tmp_path / "a.json")).code == 0
    assert nuif("batch", "validate", str(tmp_path / "a.json"), "--serial").code == 0


def test_missing_pyarrow_names_the_extra_for_parquet(
    nuif, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "a.json").write_bytes(document(1))
    monkeypatch.setitem(sys.modules, "pyarrow", None)
    r = nuif(
        "batch", "validate", str(tmp_path / "a.json"), "--serial", "-o", str(tmp_path / "r.parquet")
    )
    assert r.code == 2 and "pip install 'nuif-cli[parquet]'" in r.err
    assert not (tmp_path / "r.parquet").exists()


def test_an_unwritable_report_fails_before_anything_runs(nuif, tmp_path: Path) -> None:
    (tmp_path / "a.json").write_bytes(document(1))
    r = nuif("batch", "validate", str(tmp_path / "a.json"), "-o", str(tmp_path / "no" / "r.jsonl"))
    assert r.code == 2 and "nuif batch validate:" not in r.err
    assert (
        f"nuif: NUIF_IO: cannot write the report {tmp_path / 'no' / 'r.jsonl'}: No such file"
        in r.err
    )


def test_a_failed_run_leaves_no_report_file(
    nuif, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "a.json").write_bytes(document(1))

    def boom(*args, **kwargs):
        raise RuntimeError("disk on fire")

    monkeypatch.setattr(work, "run_task", boom)
    r = nuif(
        "batch", "validate", str(tmp_path / "a.json"), "--serial", "-o", str(tmp_path / "r.jsonl")
    )
    assert r.code == 2 and "disk on fire" in r.err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.json"]


# ---------------------------------------------------------------------------------------------
# the Python API on texts


def test_text_records_match_validate_and_canonicalize() -> None:
    texts = [document(1), document(2, pretty=True).decode(), b"{", "\ud800"]
    got = nuif_dask.text_records(texts)
    assert [(r["valid"], r["changed"]) for r in got] == [
        (True, False),
        (True, True),
        (False, None),
        (False, None),
    ]
    assert got[0]["hash"] == nuif_core.document_hash(document(1))
    assert got[2]["diagnostics"][0]["code"] == "NUIF_PARSE"
    assert got[3]["diagnostics"][0]["code"] == "NUIF_UTF8"


def test_bag_records_map_partitions_not_documents() -> None:
    db = pytest.importorskip("dask.bag")
    texts = [document(i, pretty=i % 2 == 0) for i in range(200)] + [b"[]"]
    bag = db.from_sequence(texts, npartitions=4)
    records = nuif_dask.bag_records(bag)
    n = bag.npartitions
    assert records.npartitions == n < 10
    graph = dict(records.__dask_graph__())
    assert len(graph) == 2 * n  # n partitions of texts + n calls, whatever the number of texts
    assert records.compute(scheduler="sync") == nuif_dask.text_records(texts)


def test_frame_records_keep_the_index() -> None:
    dd = pytest.importorskip("dask.dataframe")
    pd = pytest.importorskip("pandas")
    series = pd.Series(
        [document(1).decode(), "{", document(3, pretty=True).decode()], index=[10, 20, 30]
    )
    frame = nuif_dask.frame_records(dd.from_pandas(series, npartitions=2)).compute(scheduler="sync")
    assert list(frame.index) == [10, 20, 30]
    assert list(frame["valid"]) == [True, False, True]
    assert frame["hash"].iloc[0] == nuif_core.document_hash(document(1))
    assert pd.isna(frame["hash"].iloc[1]) and pd.isna(frame["changed"].iloc[1])
    assert json.loads(frame["diagnostics"].iloc[1])[0]["code"] == "NUIF_PARSE"
    assert list(frame["changed"])[::2] == [False, True]


def test_a_local_cluster_that_cannot_start_is_a_cluster_error(
    nuif, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    distributed = pytest.importorskip("distributed")
    (tmp_path / "a.json").write_bytes(document(1))

    def no_cluster(*args, **kwargs):
        raise RuntimeError("Nanny failed to start.")

    monkeypatch.setattr(distributed, "LocalCluster", no_cluster)
    monkeypatch.delenv("NUIF_SCHEDULER", raising=False)
    r = nuif(
        "batch",
        "validate",
        str(tmp_path / "a.json"),
        "--engine",
        "dask",
        "-j",
        "1",
        "-o",
        str(tmp_path / "r.jsonl"),
    )
    assert r.code == 3
    assert "nuif: NUIF_CLUSTER: cannot start a local cluster: Nanny failed to start." in r.err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.json"]  # no report, no temporary file
