# SPDX-License-Identifier: Apache-2.0
"""costmodel.sweep: every combination of a grid (or of a scenario file's sweep) planned on Dask.

The planner answers one scenario in milliseconds to a second; a procurement sweep is thousands to millions
of them. They are independent, so they go to Dask (dask.distributed, which users already run): the
combinations are cut into partitions of many scenarios each (so that scheduling costs little beside the
work), each partition is one task, and the rows come back in the grid's order. A worker that dies loses
nothing: Dask runs its partitions again elsewhere, and each row is taken once, from the partition's one
result. The CLI's `costmodel scenario` stays single-machine.
"""

from __future__ import annotations

import copy
import itertools
import math
import os
import time
from pathlib import Path
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

import pandas as pd

# Fields that compare a scenario case with its baseline case: one case run alone has no baseline.
_BASELINE_FIELDS = ("speedup", "cost_delta", "switches_delta", "network_cost_delta_usd", "network_power_delta_w",
                    "power_delta_w", "baseline_row")


def _plan_case(params: Mapping[str, Any], base: Mapping[str, Any], top: int) -> List[Dict[str, Any]]:
    """One grid combination: the plan's best configurations, each row led by the combination's values."""
    import costmodel
    import json

    flags = {**base, **params}
    flags.setdefault("threads", 1)
    flags["top"] = top
    lead = {k: (str(v) if isinstance(v, os.PathLike) else v) for k, v in params.items()}
    try:
        text, _ = costmodel._call("plan", (), flags)
    except costmodel.InfeasibleError as error:
        return [{**lead, "status": "infeasible", "reason": str(error)}]
    doc = json.loads(text)
    rows = []
    for rank, config in enumerate(doc.get("configs", [])[:top], start=1):
        row: Dict[str, Any] = {**lead, "status": "ok", "reason": None, "rank": rank,
                               "evaluated": doc.get("evaluated"), "feasible": doc.get("feasible")}
        row.update(pd.json_normalize(config, sep=".").iloc[0].to_dict())
        rows.append(row)
    return rows


def _scenario_case(params: Mapping[str, Any], document: Mapping[str, Any],
                   flags: Mapping[str, Any]) -> List[Dict[str, Any]]:
    """One combination of a scenario file's sweep, run as `costmodel scenario` of that case alone."""
    import costmodel

    one = copy.deepcopy(dict(document))
    one.pop("sweep", None)
    report = one.get("report")
    if isinstance(report, dict):
        for key in ("baseline", "plot"):
            report.pop(key, None)
    base = one.setdefault("base", {})
    for path, value in params.items():
        target = base
        *parents, leaf = path.split(".")
        for parent in parents:
            if target.get(parent) is None:
                target[parent] = {}
            target = target[parent]
        target[leaf] = value
    df = costmodel.scenario(one, **flags)
    df = df.drop(columns=[c for c in _BASELINE_FIELDS if c in df.columns])
    rows = df.to_dict("records")
    for row in rows:
        for path, value in params.items():
            row[path] = value
    return rows


def _run_partition(cases: Sequence[Tuple[int, str, Dict[str, Any], Dict[str, Any]]]) -> List[Dict[str, Any]]:
    """A Dask task: the rows of each case of one partition, each tagged with its case index."""
    rows: List[Dict[str, Any]] = []
    for index, kind, params, context in cases:
        if kind == "plan":
            produced = _plan_case(params, context["base"], context["top"])
        else:
            produced = _scenario_case(params, context["document"], context["flags"])
        for row in produced:
            row["case"] = index
            rows.append(row)
    return rows


def _grid_cases(grid: Mapping[str, Sequence[Any]], base: Mapping[str, Any], top: int):
    keys = list(grid)
    for key in keys:
        if isinstance(grid[key], (str, bytes)) or not isinstance(grid[key], Sequence):
            grid = {**grid, key: [grid[key]]}
    context = {"base": dict(base), "top": top}
    for index, values in enumerate(itertools.product(*(grid[k] for k in keys))):
        yield index, "plan", dict(zip(keys, values)), context


def _scenario_cases(path: Path, flags: Mapping[str, Any]):
    import yaml  # Debian's python3-yaml

    from . import Error

    try:
        with open(path, encoding="utf-8") as f:
            document = yaml.safe_load(f)
    except (OSError, yaml.YAMLError) as error:
        raise Error(f"{path}: error: {error}") from None
    if not isinstance(document, dict) or not isinstance(document.get("sweep"), dict):
        raise Error(f"{path}: error: sweep: a scenario file for costmodel.sweep() needs a `sweep:` mapping of "
                    "dotted paths to lists")
    if "compare" in document:
        raise Error(f"{path}: error: compare: costmodel.sweep() runs a file's sweep; run its compare: "
                    "variants with costmodel.scenario()")
    sweep = document["sweep"]
    keys = list(sweep)
    lists = [v if isinstance(v, list) else [v] for v in sweep.values()]
    context = {"document": document, "flags": {"threads": 1, **flags}}
    for index, values in enumerate(itertools.product(*lists)):
        yield index, "scenario", dict(zip(keys, values)), context


def sweep(grid: Any, client: Any = None, *, base: Optional[Mapping[str, Any]] = None, workers: Optional[int] = None,
          partition_size: Optional[int] = None, top: int = 1, output: Any = None, **flags: Any) -> pd.DataFrame:
    """Plans every combination of ``grid`` and returns one DataFrame, one row per combination.

    ``grid`` is a dict from plan()'s keyword names to lists of values, e.g. ``{"model": ["llama3-8b",
    "llama3-70b"], "gpus": [64, 128], "link": ["ib-ndr-400g", "roce-400g"]}`` (the last key varies fastest),
    with ``base`` (or further keyword arguments) giving the keywords every combination shares; each row holds
    the combination's values, ``status`` ("ok" or "infeasible", with ``reason``) and the fields of its best
    configuration (``top`` > 1: that many rows, ``rank`` 1 first). ``grid`` may instead be a scenario file
    (YAML with ``base:`` and ``sweep:``): each combination of its sweep is run as that file's case alone
    (columns comparing a case with a baseline case are left out: compare the rows in pandas).

    Runs on ``client`` (a ``dask.distributed.Client``, local or connected to a remote scheduler); without
    one, on a local cluster of ``workers`` processes (default: every core); ``workers=0`` runs in this process
    without Dask. Each scenario's planner uses one thread unless ``threads=`` says otherwise. A killed worker
    loses no rows (Dask reruns its partitions). ``output`` (a .csv, .json or .pkl path) is written whole or
    not at all. ``df.attrs`` holds ``scenarios``, ``workers``, ``elapsed_s`` and ``scenarios_per_s_per_worker``.
    """
    base = {**(base or {}), **flags}
    if isinstance(grid, (str, os.PathLike)):
        cases = list(_scenario_cases(Path(grid), base))
    elif isinstance(grid, Mapping):
        cases = list(_grid_cases(grid, base, top))
    else:
        from . import Error

        raise Error("costmodel sweep: error: grid: expected a dict of lists or a scenario file's path, not "
                    f"{type(grid).__name__}")

    started = time.perf_counter()
    own_cluster = None
    if client is None and workers != 0:
        from dask.distributed import Client, LocalCluster

        count = workers or os.cpu_count() or 1
        own_cluster = LocalCluster(n_workers=count, threads_per_worker=1, processes=True, dashboard_address=None)
        client = Client(own_cluster)
    try:
        if client is None:
            parts = [_run_partition(cases)]
            worker_count = 1
        else:
            worker_count = max(1, len(client.scheduler_info().get("workers", {})) or (workers or 1))
            # About four partitions per worker: few enough that scheduling is a small share of the work,
            # enough that a lost worker reruns little and the workers finish together.
            size = partition_size or max(1, math.ceil(len(cases) / (4 * worker_count)))
            chunks = [cases[i:i + size] for i in range(0, len(cases), size)]
            futures = client.map(_run_partition, chunks, pure=False)
            parts = client.gather(futures)
    finally:
        if own_cluster is not None:
            client.close()
            own_cluster.close()
    elapsed = time.perf_counter() - started

    rows = [row for part in parts for row in part]
    df = pd.DataFrame.from_records(rows)
    if not df.empty:
        lead = ["case"] + [c for c in (cases[0][2].keys() if cases else []) if c in df.columns]
        df = df[lead + [c for c in df.columns if c not in lead]]
    df.attrs.update({
        "scenarios": len(cases),
        "workers": worker_count,
        "elapsed_s": elapsed,
        "scenarios_per_s_per_worker": len(cases) / elapsed / worker_count if elapsed > 0 else None,
    })
    if output is not None:
        _write_frame(df, output)
    return df


def _write_frame(df: pd.DataFrame, output: Any) -> None:
    """``df`` as CSV (default), JSON records (.json) or a pickle (.pkl), written whole or not at all."""
    from . import _write_whole

    path = os.fspath(output)
    if path.endswith(".json"):
        _write_whole(path, lambda temp: df.to_json(temp, orient="records"))
    elif path.endswith(".pkl"):
        _write_whole(path, df.to_pickle)
    else:
        _write_whole(path, lambda temp: df.to_csv(temp, index=False))
