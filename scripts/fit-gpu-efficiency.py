#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Cross-check only: a grid search over a GPU's step-model efficiencies on published runs.

data/gpus.yaml's a100-80gb and h100-sxm efficiencies are what `costmodel calibrate --runs
data/published-runs.yaml --gpu NAME --objective lsq --fit ...` prints (bounded Levenberg-Marquardt, the
command in each GPU's `fitted:` note; tests/calibrate_test.cpp refits them). This script is no longer how the
catalog is fitted; it is kept to compare another criterion with the command's: for every combination of the
values given, the GPU's efficiency block is replaced in a copy of the catalogs, `costmodel validate RUNS` runs
on that copy (COSTMODEL_DATA_DIR), and the combination minimising median + max |error| over the runs of that
GPU wins (ties: the smaller sum of |errors|). Nothing is written to the repository. The parameters the runs do
not identify (gemm_half_size; the A100's attention and overlap) keep the values it gave in 2025.

Usage:
  scripts/fit-gpu-efficiency.py --costmodel build/bin/costmodel --gpu a100-80gb \
      --runs data/published-runs.yaml --gemm 0.7,0.72,0.74 --half 64,96,128 \
      --attention 0.3 --overlap 0.6
"""
import argparse
import itertools
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile


def floats(text):
    return [float(x) for x in text.split(",") if x]


def replace_efficiency(gpus_yaml, gpu, values):
    """gpus.yaml text with `gpu`'s efficiency keys set to `values` (keys gemm, gemm_half_size, ...)."""
    start = gpus_yaml.index("  - name: " + gpu + "\n")
    end = gpus_yaml.find("\n  - name: ", start + 1)
    end = len(gpus_yaml) if end < 0 else end
    block = gpus_yaml[start:end]
    eff = block.index("    efficiency:\n")
    head, tail = block[:eff], block[eff:]
    for key, value in values.items():
        tail, n = re.subn(r"(\n      " + key + r": )[^\n]*", r"\g<1>" + repr(value), tail, count=1)
        if n != 1:
            sys.exit(f"{gpu}: efficiency.{key} not found in gpus.yaml")
    return gpus_yaml[:start] + head + tail + gpus_yaml[end:]


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--costmodel", required=True)
    p.add_argument("--source", default=".", help="the repository (holding data/ and models/)")
    p.add_argument("--gpu", required=True)
    p.add_argument("--runs", required=True)
    p.add_argument("--gemm", type=floats, required=True)
    p.add_argument("--half", type=floats, required=True)
    p.add_argument("--attention", type=floats, required=True)
    p.add_argument("--overlap", type=floats, required=True)
    p.add_argument("--hbm", type=floats, default=None)
    a = p.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        shutil.copytree(os.path.join(a.source, "data"), os.path.join(tmp, "data"))
        shutil.copytree(os.path.join(a.source, "models"), os.path.join(tmp, "models"))
        gpus_path = os.path.join(tmp, "data", "gpus.yaml")
        with open(gpus_path) as f:
            original = f.read()
        env = dict(os.environ, COSTMODEL_DATA_DIR=tmp)
        best = None
        grid = itertools.product(a.gemm, a.half, a.attention, a.overlap, a.hbm or [None])
        for gemm, half, attention, overlap, hbm in grid:
            values = {"gemm": gemm, "gemm_half_size": int(half), "attention": attention, "overlap": overlap}
            if hbm is not None:
                values["hbm"] = hbm
            with open(gpus_path, "w") as f:
                f.write(replace_efficiency(original, a.gpu, values))
            out = subprocess.run([a.costmodel, "validate", a.runs, "--format", "json"], env=env,
                                 capture_output=True, text=True, check=True).stdout
            rows = [r for r in json.loads(out)["runs"] if r["gpu"] == a.gpu]
            errors = [abs(r["error"]) if r["error"] is not None else 10.0 for r in rows]
            if not errors:
                sys.exit(f"no run of {a.gpu} in {a.runs}")
            score = (statistics.median(errors) + max(errors), sum(errors))
            if best is None or score < best[0]:
                best = (score, values, statistics.median(errors), max(errors), len(errors))
                print(f"{values}: median {best[2]:.2%}, max {best[3]:.2%} over {best[4]} runs", flush=True)
        print("best:", json.dumps(best[1]))


if __name__ == "__main__":
    main()
