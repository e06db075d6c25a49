# SPDX-License-Identifier: Apache-2.0
# costmodel.sweep on Dask: the same rows on a 2-worker local cluster as in one process, every row once when
# a worker is killed mid-sweep, files written whole or not at all, and scenario files' sweeps.
import json
import os
import signal
import threading
import time

import pandas as pd
import pytest

import costmodel

GRID = {"model": ["llama3-8b", "mixtral-8x7b"], "gpus": [32, 64], "link": ["ib-ndr-400g", "roce-400g"]}
BASE = {"gpu": "h100-sxm", "global_batch": 512}


@pytest.fixture(scope="module")
def inline_rows():
    return costmodel.sweep(GRID, workers=0, base=BASE)


@pytest.fixture(scope="module")
def client():
    from dask.distributed import Client, LocalCluster

    cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None)
    with Client(cluster) as c:
        yield c
    cluster.close()


def test_grid_rows_hold_the_parameters_and_the_best_plan(inline_rows, cli):
    df = inline_rows
    assert len(df) == 8 and list(df["case"]) == list(range(8))
    assert list(df.columns[:4]) == ["case", "model", "gpus", "link"]
    # the last key varies fastest, as in a scenario file
    assert list(df["link"][:2]) == ["ib-ndr-400g", "roce-400g"] and list(df["gpus"][:4]) == [32, 32, 64, 64]
    row = df.iloc[3]
    doc = cli.json("plan", "--model", row["model"], "--gpus", str(row["gpus"]), "--link", row["link"],
                   "--gpu", "h100-sxm", "--global-batch", "512", "--top", "1")
    assert row["status"] == "ok" and row["step_time_s"] == doc["configs"][0]["step_time_s"]
    assert row["tp"] == doc["configs"][0]["tp"] and row["evaluated"] == doc["evaluated"]


def test_two_workers_give_the_rows_of_one_process(inline_rows, client):
    df = costmodel.sweep(GRID, client, base=BASE, partition_size=2)
    pd.testing.assert_frame_equal(df, inline_rows)
    assert df.attrs["workers"] == 2 and df.attrs["scenarios"] == 8


def test_a_killed_worker_loses_no_rows(client, tmp_path):
    # Small partitions; once a partition has finished, the worker running another is killed (SIGKILL: no
    # goodbye to the scheduler). Its nanny starts a new worker and Dask reruns what was lost.
    grid = {"gpus": list(range(8, 8 * 41, 8))}
    base = {"model": "llama3-8b", "gpu": "h100-sxm", "global_batch": 1024}
    expected = costmodel.sweep(grid, workers=0, base=base)
    pids = client.run(os.getpid)
    result = {}

    def run():
        result["df"] = costmodel.sweep(grid, client, base=base, partition_size=2, output=tmp_path / "rows.csv")

    def busy():  # (workers running a partition, partitions finished), as the scheduler sees them
        def look(dask_scheduler):
            running = [w.address for w in dask_scheduler.workers.values() if w.processing]
            done = sum(1 for t in dask_scheduler.tasks.values() if t.state == "memory")
            return running, done
        return client.run_on_scheduler(look)

    thread = threading.Thread(target=run)
    thread.start()
    killed = None
    deadline = time.monotonic() + 120
    while killed is None and thread.is_alive() and time.monotonic() < deadline:
        running, done = busy()
        if done >= 1 and running:
            killed = running[0]
            os.kill(pids[killed], signal.SIGKILL)
        time.sleep(0.02)
    thread.join(timeout=600)
    assert killed is not None, "the sweep ended before a worker could be killed"
    df = result["df"]
    assert sorted(df["case"]) == list(range(len(expected)))  # every row, each once
    pd.testing.assert_frame_equal(df, expected)
    written = pd.read_csv(tmp_path / "rows.csv")
    assert list(written["case"]) == list(expected["case"])
    assert list(written["step_time_s"]) == pytest.approx(list(expected["step_time_s"]), rel=1e-12, nan_ok=True)


def test_files_are_written_whole_or_not_at_all(tmp_path):
    path = tmp_path / "rows.json"
    df = costmodel.sweep({"gpus": [64, 128]}, workers=0, base={"model": "llama3-8b"}, output=path)
    assert json.loads(path.read_text())[1]["gpus"] == 128 and len(df) == 2
    bad = tmp_path / "bad.csv"
    with pytest.raises(costmodel.Error) as error:
        costmodel.sweep({"gpus": [64, -1]}, workers=0, base={"model": "llama3-8b"}, output=bad)
    assert "--gpus" in str(error.value)
    assert not bad.exists() and [p.name for p in tmp_path.iterdir()] == ["rows.json"]


def test_an_error_in_a_worker_reaches_the_caller(client):
    with pytest.raises(costmodel.Error) as error:
        costmodel.sweep({"model": ["llama3-8b", "no-such-model"]}, client, base={"gpus": 64})
    assert error.value.exit_code == 2 and "no-such-model" in str(error.value)


def test_infeasible_combinations_are_rows(inline_rows):
    df = costmodel.sweep({"gpus": [32, 64]}, workers=0, base={"model": "llama3-70b", "gpu": "a100-40gb"})
    assert list(df["status"]) == ["infeasible", "ok"] and "nothing feasible" in df["reason"][0]


def test_scenario_file_sweep(tmp_path, client, cli):
    document = {
        "base": {"cluster": {"gpu": "h100-sxm", "gpus": 64}, "model": "llama3-8b",
                 "training": {"global_batch": 256}},
        "sweep": {"cluster.gpus": [32, 64], "cluster.scale_out.link": ["ib-ndr-400g", "roce-400g"]},
    }
    path = tmp_path / "s.yaml"
    path.write_text(json.dumps(document))
    df = costmodel.sweep(path, client)
    doc = cli.json("scenario", str(path))
    assert list(df["cluster.gpus"]) == [32, 32, 64, 64]
    assert list(df["step_time_s"]) == [r["configurations"][0]["step_time_s"] for r in doc["rows"]]
    assert "speedup" not in df.columns
    pd.testing.assert_frame_equal(costmodel.sweep(path, workers=0), df)
