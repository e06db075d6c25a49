# SPDX-License-Identifier: Apache-2.0
"""costmodel in Python: the planner's answers as pandas DataFrames, and sweeps on Dask.

Every function runs the same code as the ``costmodel`` command of the same name (in process, through the
compiled ``_costmodel`` module) and returns what ``--format json`` prints, as a DataFrame. Keyword names
are the CLI's long flags with ``_`` for ``-`` (DESIGN.md section 5): ``plan(model="gpt3-175b",
gpu="a100-80gb", gpus=1024, global_batch=1536)`` answers ``costmodel plan --model gpt3-175b --gpu a100-80gb
--gpus 1024 --global-batch 1536``. Values:

* numbers and strings as on the command line (``tokens="300B"``, ``link_bandwidth="800Gbps"``);
* ``True``/``False`` for switches (``pareto=True``) and for on|off flags (``overlap=False``);
* lists for comma-separated flags (``topology=["fat-tree", "rail-only"]``);
* a file path (``str`` or ``pathlib.Path``) where the CLI takes one: a model YAML or a Hugging Face
  ``config.json`` for ``model``, a cluster YAML for ``cluster``, a price book for ``prices``;
* a ``dict`` where the CLI takes a file: ``model={...}`` (DESIGN.md section 4's model schema, or a Hugging
  Face config.json's keys), ``cluster={...}``, ``prices={...}``; ``gpu={...}``, ``link={...}`` and
  ``switch={...}`` are placed in the cluster (``gpu:``, ``scale_out.link:``, ``scale_out.switch:``).

Bad input raises :class:`Error` with the CLI's own line (file, line, column and field; a dict is named
``<model dict>`` and its lines are those of ``json.dumps(d, indent=2)``). Nothing feasible raises
:class:`InfeasibleError`. The CLI's warnings become :class:`CostmodelWarning` warnings.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import tempfile
import warnings
from pathlib import Path
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple

import pandas as pd

from . import _costmodel

__version__: str = _costmodel.__version__

__all__ = [
    "CostmodelWarning",
    "Error",
    "InfeasibleError",
    "calibrate",
    "catalog",
    "collective",
    "data_dir",
    "estimate",
    "plan",
    "report",
    "run",
    "scenario",
    "sweep",
    "topology",
    "validate",
]

# A pip-installed package carries the catalogs beside itself (setup.py copies data/ and models/ there);
# $COSTMODEL_DATA_DIR and an installed prefix still come first (io/catalog.hpp, default_data_root()).
_PACKAGE_DATA = Path(__file__).resolve().parent / "share" / "costmodel"
if (_PACKAGE_DATA / "data" / "gpus.yaml").is_file():
    _costmodel.register_data_dir(str(_PACKAGE_DATA))


class Error(Exception):
    """Bad input or usage (the CLI's exit code 2), or an internal error (1).

    ``str(error)`` is the line the CLI prints on stderr, e.g. ``costmodel plan: error: --gpus: expected a
    positive integer, not '-8'`` or ``model.yaml:3:9: error: layers: ...``.
    """

    def __init__(self, message: str, exit_code: int = 2, args: Sequence[str] = ()):
        super().__init__(message)
        self.message = message
        self.exit_code = exit_code
        self.cli_args = list(args)

    def __reduce__(self):  # raised in a Dask worker, re-raised on the client with its exit code
        return (type(self), (self.message, self.exit_code, self.cli_args))


class InfeasibleError(Error):
    """Nothing feasible (the CLI's exit code 3): the message gives the reasons and the closest splits."""


class CostmodelWarning(UserWarning):
    """A warning line of the CLI (an implausible value, a knob that changes nothing, ...)."""


class Completed:
    """What one ``costmodel`` run gave: ``exit_code``, ``stdout`` and ``stderr``, as the CLI would."""

    def __init__(self, args: List[str], exit_code: int, stdout: str, stderr: str):
        self.args = args
        self.exit_code = exit_code
        self.stdout = stdout
        self.stderr = stderr

    def __repr__(self) -> str:
        return f"Completed(args={self.args!r}, exit_code={self.exit_code})"


def run(*args: str) -> Completed:
    """Runs ``costmodel ARGS...`` in process and returns its exit code, stdout and stderr (never raises)."""
    argv = [str(a) for a in args]
    code, out, err = _costmodel.run(argv)
    return Completed(argv, code, out, err)


def data_dir() -> str:
    """The folder whose data/ and models/ the catalogs are read from."""
    return _costmodel.data_dir()


# ---------------------------------------------------------------------------------------------------------
# Keyword arguments -> command-line words

_switch_cache: Dict[str, Dict[str, bool]] = {}
_HELP_FLAG = re.compile(r"^\s+(?:-\w \[ )?--([A-Za-z0-9][A-Za-z0-9-]*)(?: \])?( \[=| [A-Za-z])?")


def _options(command: str) -> Dict[str, bool]:
    """The command's long flags -> whether each is a switch (takes no value), read from its --help."""
    if command not in _switch_cache:
        done = run(command, "--help")
        options: Dict[str, bool] = {}
        for line in done.stdout.splitlines():
            m = _HELP_FLAG.match(line)
            if m:
                value = m.group(2)
                # "--pareto [=A,B,C(=...)]" takes a value optionally: True means the flag alone.
                options[m.group(1)] = value is None or value.startswith(" [=")
        _switch_cache[command] = options
    return _switch_cache[command]


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() and abs(value) < 1e18 else repr(float(value))


def _looks_like_hf_config(d: Mapping[str, Any]) -> bool:
    return "model_type" in d or "architectures" in d or "num_hidden_layers" in d


class _Files:
    """Temporary files for dict arguments, and the names their errors are given."""

    def __init__(self) -> None:
        self.folder: Optional[str] = None
        self.names: Dict[str, str] = {}

    def write(self, role: str, content: Mapping[str, Any], suffix: str = ".yaml") -> str:
        if self.folder is None:
            self.folder = tempfile.mkdtemp(prefix="costmodel-")
        path = os.path.join(self.folder, role + suffix)
        # JSON is YAML: one key per line, so the CLI's line numbers are those of json.dumps(d, indent=2).
        with open(path, "w", encoding="utf-8") as f:
            json.dump(content, f, indent=2, default=str)
            f.write("\n")
        self.names[path] = f"<{role} dict>"
        return path

    def rename(self, text: str) -> str:
        for path, name in self.names.items():
            text = text.replace(path, name)
        return text

    def close(self) -> None:
        if self.folder is not None:
            shutil.rmtree(self.folder, ignore_errors=True)


def _argv(command: str, flags: Mapping[str, Any], files: _Files) -> List[str]:
    flags = dict(flags)
    # gpu/link/switch given as mappings go into the cluster file (DESIGN.md section 4: inline mappings).
    placed = {"gpu": ("gpu",), "link": ("scale_out", "link"), "switch": ("scale_out", "switch")}
    inline = {k: flags.pop(k) for k in list(placed) if isinstance(flags.get(k), Mapping)}
    if inline:
        cluster = flags.get("cluster")
        if cluster is not None and not isinstance(cluster, Mapping):
            raise Error(f"costmodel {command}: error: a {', '.join(inline)} mapping needs cluster= as a dict "
                        f"too, not a file")
        merged: Dict[str, Any] = json.loads(json.dumps(cluster or {}, default=str))
        for key in ("gpus", "gpus_per_node"):  # a cluster file must be whole; the flags still override it
            if flags.get(key) is not None and key not in merged:
                merged[key] = flags[key]
        for key, value in inline.items():
            target = merged
            *parents, leaf = placed[key]
            for parent in parents:
                target = target.setdefault(parent, {})
            target[leaf] = dict(value)
        flags["cluster"] = merged
    options = _options(command)
    words: List[str] = [command]
    for key, value in flags.items():
        if value is None:
            continue
        flag = key.replace("_", "-")
        switch = options.get(flag, False)
        if isinstance(value, bool):
            if switch:
                if value:
                    words.append("--" + flag)
                continue
            value = "on" if value else "off"
        elif isinstance(value, Mapping):
            hf = key == "model" and _looks_like_hf_config(value)
            value = files.write("config" if hf else key, value, ".json" if hf else ".yaml")
        elif isinstance(value, (list, tuple)):
            value = ",".join(_number(v) if isinstance(v, (int, float)) else str(v) for v in value)
        elif isinstance(value, (int, float)):
            value = _number(value)
        words += ["--" + flag, str(value)]
    return words


def _call(command: str, positional: Sequence[Any], flags: Mapping[str, Any], fmt: str = "json") -> Tuple[str, int]:
    """Runs the command with --format FMT; returns (stdout, exit code). Raises Error, warns warnings."""
    for reserved in ("format", "output", "o"):
        if reserved in flags:
            raise Error(f"costmodel {command}: error: {reserved}= is not an argument of costmodel.{command}() "
                        f"(it returns a DataFrame; use costmodel.run() for other formats)")
    files = _Files()
    try:
        words = _argv(command, flags, files)
        args = words[:1] + [str(p) for p in positional] + words[1:] + ["--format", fmt]
        done = run(*args)
        stderr = files.rename(done.stderr)
    finally:
        files.close()
    lines = [line for line in stderr.splitlines() if line.strip()]
    if done.exit_code in (0, 3):
        for line in lines:
            if ": warning: " in line:
                warnings.warn(line, CostmodelWarning, stacklevel=3)
    if done.exit_code == 0 or (done.exit_code == 3 and done.stdout.strip()):
        return done.stdout, done.exit_code
    message = "\n".join(line for line in lines if ": warning: " not in line) or f"exit code {done.exit_code}"
    if done.exit_code == 3:
        raise InfeasibleError(message, 3, args)
    raise Error(message, done.exit_code, args)


def _frame(records: Sequence[Mapping[str, Any]]) -> pd.DataFrame:
    """One row per record, nested objects flattened to dotted columns (breakdown.compute_s, ...)."""
    if not records:
        return pd.DataFrame()
    return pd.json_normalize(list(records), sep=".")


# ---------------------------------------------------------------------------------------------------------
# The commands


def plan(**flags: Any) -> pd.DataFrame:
    """``costmodel plan``: one row per configuration, best first, with every field of the JSON.

    ``df.attrs`` holds the rest of the answer: ``evaluated``, ``feasible``, ``rejected``, ``gpu_counts`` (a
    deadline search's, as a DataFrame) and ``pareto`` (the front, as a DataFrame, with ``pareto=True``).
    """
    text, _ = _call("plan", (), flags)
    doc = json.loads(text)
    df = _frame(doc.get("configs", []))
    df.attrs["pareto"] = _frame(doc.get("pareto", []))
    df.attrs["gpu_counts"] = _frame(doc.get("gpu_counts", []))
    for key in ("evaluated", "feasible", "rejected", "skipped_topologies", "elapsed_s", "schema_version"):
        if key in doc:
            df.attrs[key] = doc[key]
    return df


def report(output: Any, **flags: Any) -> str:
    """``costmodel report -o OUTPUT``: the plan as one self-contained HTML page; returns OUTPUT's path."""
    text, _ = _call("plan", (), flags, fmt="html")

    def write(temp: str) -> None:
        with open(temp, "w", encoding="utf-8") as f:
            f.write(text)

    return _write_whole(output, write)


def _write_whole(output: Any, write: Callable[[str], None]) -> str:
    """Calls ``write`` on a temporary file beside ``output``, then renames it: whole or not at all (as the
    CLI's -o). Returns the path written."""
    path = os.fspath(output)
    folder = os.path.dirname(os.path.abspath(path))
    fd, temp = tempfile.mkstemp(dir=folder, prefix="." + os.path.basename(path) + ".")
    os.close(fd)
    try:
        write(temp)
        os.replace(temp, path)
    except BaseException:
        if os.path.exists(temp):
            os.remove(temp)
        raise
    return path


def estimate(**flags: Any) -> pd.DataFrame:
    """``costmodel estimate``: one row (the split given by tp, pp, dp, ...), with its breakdown and memory.

    A split that does not fit is returned (``fits_memory`` False, as the CLI prints it before exit 3).
    """
    text, _ = _call("estimate", (), flags)
    return _frame([json.loads(text)])


def collective(**flags: Any) -> pd.DataFrame:
    """``costmodel collective``: one row per message size; ``df.attrs`` holds the communicator's fields."""
    doc = json.loads(_call("collective", (), flags)[0])
    df = _frame(doc.get("rows", []))
    df.attrs.update({k: v for k, v in doc.items() if k != "rows"})
    return df


def topology(**flags: Any) -> pd.DataFrame:
    """``costmodel topology``: one row for the fabric; ``df.attrs["bill_of_materials"]`` is its bill."""
    doc = json.loads(_call("topology", (), flags)[0])
    df = _frame([doc])
    df.attrs["bill_of_materials"] = _frame(doc.get("bill_of_materials", []))
    return df


def validate(runs: Any = None, **flags: Any) -> pd.DataFrame:
    """``costmodel validate [RUNS.yaml ...]``: one row per published run; ``df.attrs`` holds the statistics."""
    positional = [] if runs is None else ([runs] if isinstance(runs, (str, os.PathLike)) else list(runs))
    doc = json.loads(_call("validate", positional, flags)[0])
    df = _frame(doc.get("runs", []))
    df.attrs.update({k: v for k, v in doc.items() if k != "runs"})
    return df


def calibrate(logs: Any, **flags: Any) -> pd.DataFrame:
    """``costmodel calibrate LOG...``: one row per fitted collective (alpha, beta, efficiency, ...)."""
    positional = [logs] if isinstance(logs, (str, os.PathLike)) else list(logs)
    doc = json.loads(_call("calibrate", positional, flags)[0])
    df = _frame(doc.get("fits", []))
    df.attrs.update({k: v for k, v in doc.items() if k != "fits"})
    return df


def catalog(kind: str, **flags: Any) -> pd.DataFrame:
    """``costmodel catalog KIND`` (gpus, links, switches, models, topologies, stacks, ...): one row per entry."""
    return _frame(json.loads(_call("catalog", [kind], flags)[0]))


def scenario(file: Any, **flags: Any) -> pd.DataFrame:
    """``costmodel scenario FILE``: one row per case and configuration (``rank`` 1 is the case's best).

    ``file`` is a scenario YAML or a dict of the same form (DESIGN.md section 4). The case's dimensions come
    first, then its fields (evaluated, speedup, cost_delta, ...), then the configuration's.
    """
    files = _Files()
    try:
        path = files.write("scenario", file) if isinstance(file, Mapping) else file
        try:
            text, _ = _call("scenario", [path], flags)
        except Error as error:
            error.message = files.rename(error.message)
            error.args = (error.message,)
            raise
    finally:
        files.close()
    doc = json.loads(text)
    return _scenario_frame(doc)


def _scenario_frame(doc: Mapping[str, Any]) -> pd.DataFrame:
    records = []
    for row in doc.get("rows", []):
        case = {k: v for k, v in row.items() if k != "configurations"}
        configurations = row.get("configurations") or [None]
        for rank, config in enumerate(configurations, start=1):
            record = dict(case)
            if config is not None:
                record["rank"] = rank
                record.update(config)
            records.append(record)
    df = _frame(records)
    df.attrs.update({k: v for k, v in doc.items() if k != "rows"})
    return df


from ._sweep import sweep  # noqa: E402  (needs the functions above)
