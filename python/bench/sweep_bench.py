# SPDX-License-Identifier: Apache-2.0
"""The sweep benchmark (make bench-sweep): one grid of --scenarios scenarios, run in this process and on a
local Dask cluster of --workers worker processes; prints scenarios per second in one process and per
worker, their ratio, and checks that the rows are identical.

Each scenario is a planner question (model x GPU count x link x global batch x fabric), answered by the
same code as `costmodel plan --top 1 --threads 1`.
"""

import argparse
import math
import os
import sys
import time

import pandas as pd

import costmodel

MODELS = ["llama3-8b", "llama2-7b", "llama2-13b", "megatron-1.7b", "megatron-3.6b", "megatron-7.5b"]
LINKS = ["ib-ndr-400g", "roce-400g", "ib-hdr-200g", "ib-xdr-800g"]
TOPOLOGIES = ["fat-tree", "rail-optimized", "rail-only"]


def grid_of(n):
    """A grid of at least n scenarios: models x GPU counts x links x fabrics x batches."""
    known = set(costmodel.catalog("models")["name"])
    models = [m for m in MODELS if m in known] or ["llama3-8b"]
    links = [link for link in LINKS if link in set(costmodel.catalog("links")["name"])]
    batches = [256, 512, 1024]
    per_count = len(models) * len(links) * len(TOPOLOGIES) * len(batches)
    counts = [8 * (i + 1) for i in range(math.ceil(n / per_count))]
    return {"model": models, "gpus": counts, "link": links, "topology": TOPOLOGIES, "global_batch": batches}


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--scenarios", type=int, default=10000)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    grid = grid_of(args.scenarios)
    total = math.prod(len(v) for v in grid.values())
    base = {"gpu": "h100-sxm"}
    print(f"sweep_bench: {total:,} scenarios ({' x '.join(f'{len(v)} {k}' for k, v in grid.items())})")

    started = time.perf_counter()
    inline = costmodel.sweep(grid, workers=0, base=base)
    one = total / (time.perf_counter() - started)
    print(f"one process:            {one:8.1f} scenarios/s")

    from dask.distributed import Client, LocalCluster

    with LocalCluster(n_workers=args.workers, threads_per_worker=1, processes=True,
                      dashboard_address=None) as cluster, Client(cluster) as client:
        client.run(lambda: __import__("costmodel").catalog("gpus"))  # every worker imports the module first
        started = time.perf_counter()
        distributed = costmodel.sweep(grid, client, base=base)
        elapsed = time.perf_counter() - started
    per_worker = total / elapsed / args.workers
    print(f"{args.workers} workers (LocalCluster): {total / elapsed:8.1f} scenarios/s, {per_worker:.1f} per worker "
          f"= {per_worker / one:.0%} of one process ({os.cpu_count()} cores)")
    pd.testing.assert_frame_equal(distributed, inline)
    print(f"rows identical: {len(inline):,} rows, {int((inline.status == 'ok').sum()):,} with a plan")
    return 0


if __name__ == "__main__":
    sys.exit(main())
