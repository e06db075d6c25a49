# SPDX-License-Identifier: Apache-2.0
# The Python module's tests (make test runs them through ctest: python/CMakeLists.txt). They import the
# package built in $COSTMODEL_PYTHON_DIR (put on sys.path here and in PYTHONPATH, which Dask's worker
# processes inherit) and compare it with the CLI executable $COSTMODEL_CLI run as a separate process.
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BUILD = Path(os.environ.get("COSTMODEL_BUILD", ROOT / "build"))
PYTHON_DIR = Path(os.environ.get("COSTMODEL_PYTHON_DIR", BUILD / "python"))
CLI = Path(os.environ.get("COSTMODEL_CLI", BUILD / "bin" / "costmodel"))

sys.path.insert(0, str(PYTHON_DIR))
os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(PYTHON_DIR), os.environ.get("PYTHONPATH")]))


class Cli:
    """The costmodel executable, run as a user would."""

    def __call__(self, *args):
        done = subprocess.run([str(CLI), *map(str, args)], capture_output=True, text=True, check=False)
        return done.returncode, done.stdout, done.stderr

    def json(self, *args):
        code, out, err = self(*args, "--format", "json")
        assert code == 0, err
        return json.loads(out)


@pytest.fixture(scope="session")
def cli():
    assert CLI.is_file(), f"no CLI at {CLI}: build costmodel_cli or set COSTMODEL_CLI"
    return Cli()


@pytest.fixture(scope="session")
def root():
    return ROOT
