#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# ctest python_install: the README's install (a venv over Debian's python3 and its packages, then
# `pip install --no-build-isolation .`, here reusing this build's compiled module), then the issue's one-liner
# run from outside the source tree with no COSTMODEL_DATA_DIR: the catalogs come from the installed package,
# and its first row is the CLI's.
# usage: install_test.sh WORK_DIR BUILD_DIR PYTHON SOURCE_DIR CLI
set -eu
work=$1 build=$2 python=$3 root=$4 cli=$5
rm -rf "$work"
mkdir -p "$work"
"$python" -m venv --system-site-packages "$work/venv"
COSTMODEL_BUILD_DIR=$build COSTMODEL_SETUP_SCRATCH=$work/scratch \
  "$work/venv/bin/pip" install --no-build-isolation --no-deps --quiet --disable-pip-version-check "$root"
cd "$work"
unset COSTMODEL_DATA_DIR PYTHONPATH COSTMODEL_PYTHON_DIR
"$work/venv/bin/python3" - "$cli" <<'PY'
import json, os, subprocess, sys
import costmodel
here = os.path.dirname(costmodel.__file__)
assert costmodel.__file__.startswith(sys.prefix), costmodel.__file__
assert costmodel.data_dir() == os.path.join(here, "share", "costmodel"), costmodel.data_dir()
assert os.path.isfile(os.path.join(here, "__init__.pyi")) and os.path.isfile(os.path.join(here, "py.typed"))
df = costmodel.plan(model='gpt3-175b', gpu='a100-80gb', gpus=1024, global_batch=1536)
print(df.head())
flags = ["--model", "gpt3-175b", "--gpu", "a100-80gb", "--gpus", "1024", "--global-batch", "1536"]
doc = json.loads(subprocess.run([sys.argv[1], "plan", *flags, "--format", "json"], check=True,
                                capture_output=True, text=True).stdout)
first = doc["configs"][0]
for key in ("tp", "pp", "dp", "vpp", "micro_batch", "step_time_s", "mfu", "memory_per_gpu_bytes", "capex_usd"):
    assert df[key][0] == first[key], (key, df[key][0], first[key])
print("python_install: installed in", sys.prefix, "- first row equal to costmodel plan's")
PY
