# SPDX-License-Identifier: Apache-2.0
# Each function of the module against the CLI's JSON for the same question: identical numbers, because
# both run the same commands (the module in process, the CLI as a separate executable).
import json

import pandas as pd
import pytest

import costmodel


def frame(records):
    return pd.json_normalize(records, sep=".")


def test_version_and_data(root):
    assert costmodel.__version__.count(".") == 2
    header = (root / "libcostmodel" / "include" / "costmodel" / "version.hpp").read_text()
    parts = [int(header.split(f"#define COSTMODEL_VERSION_{p} ")[1].split()[0]) for p in ("MAJOR", "MINOR", "PATCH")]
    assert costmodel.__version__ == ".".join(map(str, parts))
    assert costmodel.data_dir()


def test_plan_first_rows_equal_the_cli(cli):
    # The question, with the acceptance's flags: every field of the first rows equal.
    flags = dict(model="gpt3-175b", gpu="a100-80gb", gpus=1024, global_batch=1536, top=5)
    df = costmodel.plan(**flags)
    doc = cli.json("plan", "--model", "gpt3-175b", "--gpu", "a100-80gb", "--gpus", "1024", "--global-batch",
                   "1536", "--top", "5")
    pd.testing.assert_frame_equal(df, frame(doc["configs"]))
    assert df.attrs["evaluated"] == doc["evaluated"] and df.attrs["feasible"] == doc["feasible"]
    assert {"tp", "pp", "dp", "step_time_s", "mfu", "breakdown.compute_s", "memory_per_gpu_bytes"} <= set(df.columns)


def test_plan_lists_switches_and_pareto(cli):
    df = costmodel.plan(model="llama3-8b", gpu="h100-sxm", gpus=64, topology=["fat-tree", "rail-only"],
                        pareto=True, tp_beyond_node=False, top=3, threads=1)
    doc = cli.json("plan", "--model", "llama3-8b", "--gpu", "h100-sxm", "--gpus", "64", "--topology",
                   "fat-tree,rail-only", "--pareto", "--top", "3", "--threads", "1")
    pd.testing.assert_frame_equal(df, frame(doc["configs"]))
    pd.testing.assert_frame_equal(df.attrs["pareto"], frame(doc["pareto"]))
    assert set(df["topology"]) <= {"fat-tree", "rail-only"}


def test_estimate_one_row_with_breakdown_and_memory(cli):
    df = costmodel.estimate(model="llama3-70b", gpu="h100-sxm", gpus=512, tp=8, pp=4, dp=16, global_batch=512,
                            tokens="1T", overlap=False)
    doc = cli.json("estimate", "--model", "llama3-70b", "--gpu", "h100-sxm", "--gpus", "512", "--tp", "8",
                   "--pp", "4", "--dp", "16", "--global-batch", "512", "--tokens", "1T", "--overlap", "off")
    pd.testing.assert_frame_equal(df, frame([doc]))
    assert len(df) == 1 and not df["overlap"][0]
    # the breakdown and the memory by term, as dotted columns; the terms add up to the total per GPU
    assert df["breakdown.compute_s"][0] > 0 and df["memory.weights_bytes"][0] > 0
    terms = ["weights", "gradients", "optimizer", "activations", "logits", "error_feedback", "reserve"]
    assert sum(df[f"memory.{t}_bytes"][0] for t in terms) == pytest.approx(df["memory_per_gpu_bytes"][0], rel=1e-9)


def test_collective_topology_validate_calibrate_catalog(cli, root):
    df = costmodel.collective(op="allreduce", gpus=16, min_bytes="1MiB", max_bytes="64MiB")
    doc = cli.json("collective", "--op", "allreduce", "--gpus", "16", "--min-bytes", "1MiB", "--max-bytes", "64MiB")
    pd.testing.assert_frame_equal(df, frame(doc["rows"]))
    assert df.attrs["ranks"] == 16 and list(df["size"]) == [2**20 * 2**i for i in range(7)]

    df = costmodel.topology(gpus=4096, gpu="h100-sxm", link="ib-ndr-400g", oversubscription=2)
    doc = cli.json("topology", "--gpus", "4096", "--gpu", "h100-sxm", "--link", "ib-ndr-400g",
                   "--oversubscription", "2")
    assert df["switches"][0] == doc["switches"] and df["capex_usd"][0] == doc["capex_usd"]
    pd.testing.assert_frame_equal(df.attrs["bill_of_materials"], frame(doc["bill_of_materials"]))

    runs = root / "data" / "published-runs.yaml"
    df = costmodel.validate(runs, threads=1)
    doc = cli.json("validate", str(runs), "--threads", "1")
    pd.testing.assert_frame_equal(df, frame(doc["runs"]))
    assert df.attrs["median_abs_error"] == doc["median_abs_error"]

    log = root / "examples" / "nccl" / "pilot-1node-all_reduce_perf.txt"
    df = costmodel.calibrate(log, gpu="a100-80gb", gpus=8)
    doc = cli.json("calibrate", str(log), "--gpu", "a100-80gb", "--gpus", "8")
    pd.testing.assert_frame_equal(df, frame(doc["fits"]))

    pd.testing.assert_frame_equal(costmodel.catalog("links"), frame(cli.json("catalog", "links")))


def test_scenario_file_and_dict(cli, root, tmp_path):
    document = {
        "title": "two links",
        "base": {"cluster": {"gpu": "h100-sxm", "gpus": 64}, "model": "llama3-8b",
                 "training": {"global_batch": 256}},
        "sweep": {"cluster.scale_out.link": ["ib-ndr-400g", "roce-400g"]},
    }
    path = tmp_path / "two-links.yaml"
    path.write_text(json.dumps(document, indent=2))
    doc = cli.json("scenario", str(path))
    df = costmodel.scenario(document)
    assert list(df["cluster.scale_out.link"]) == ["ib-ndr-400g", "roce-400g"]
    assert list(df["step_time_s"]) == [row["configurations"][0]["step_time_s"] for row in doc["rows"]]
    pd.testing.assert_frame_equal(costmodel.scenario(path), df)


def test_models_as_files_and_dicts(root):
    # A catalog name, its YAML file and the same YAML as a dict give one answer.
    import yaml

    path = root / "models" / "llama3-8b.yaml"
    flags = dict(gpu="h100-sxm", gpus=64, tp=1, pp=1, dp=64, global_batch=512)
    by_name = costmodel.estimate(model="llama3-8b", **flags)
    by_file = costmodel.estimate(model=path, **flags)
    by_dict = costmodel.estimate(model=yaml.safe_load(path.read_text()), **flags)
    assert by_name["step_time_s"][0] == by_file["step_time_s"][0] == by_dict["step_time_s"][0]


def test_hugging_face_config_dict_and_file(root):
    path = root / "tests" / "fixtures" / "hf" / "Meta-Llama-3-8B" / "config.json"
    config = json.loads(path.read_text())
    a = costmodel.plan(model=path, gpu="h100-sxm", gpus=64, seq_len=4096, top=1, threads=1)
    b = costmodel.plan(model=config, gpu="h100-sxm", gpus=64, seq_len=4096, top=1, threads=1)
    assert a["parameters"][0] == b["parameters"][0] and a["step_time_s"][0] == b["step_time_s"][0]


def test_gpu_and_link_as_dicts_go_into_the_cluster(root):
    # data/gpus.yaml's entry as a dict, renamed: the same answer as the catalog name.
    import yaml

    gpus = yaml.safe_load((root / "data" / "gpus.yaml").read_text())["gpus"]
    h100 = dict(next(g for g in gpus if g["name"] == "h100-sxm"), name="my-h100")
    flags = dict(model="llama3-8b", gpus=64, tp=1, pp=1, dp=64, global_batch=512)
    mine = costmodel.estimate(gpu=h100, link={"bandwidth": "400Gbps", "latency": "1us"}, **flags)
    theirs = costmodel.estimate(gpu="h100-sxm", link="ib-ndr-400g", **flags)
    assert mine["step_time_s"][0] == pytest.approx(theirs["step_time_s"][0], rel=0.05)
    assert mine["cluster.gpu"][0] == "my-h100"
    with pytest.raises(costmodel.Error) as error:
        costmodel.estimate(gpu={"name": "x", "peak_flops": "oops"}, **flags)
    assert str(error.value).startswith("<cluster dict>:"), str(error.value)


def test_bad_input_raises_the_cli_line(cli):
    for flags, args in [
        (dict(gpus=-8), ["--gpus", "-8"]),
        (dict(model="llama3-80b"), ["--model", "llama3-80b"]),
        (dict(gpu="h100", gpus=64), ["--gpu", "h100", "--gpus", "64"]),
        (dict(gpus=64, no_such_knob=3), ["--gpus", "64", "--no-such-knob", "3"]),
        (dict(gpus=64, link_bandwidth="400Gbs"), ["--gpus", "64", "--link-bandwidth", "400Gbs"]),
    ]:
        with pytest.raises(costmodel.Error) as error:
            costmodel.plan(**flags)
        code, out, err = cli("plan", *args, "--format", "json")
        assert code == 2 and out == ""
        assert error.value.exit_code == 2 and str(error.value) == err.strip()
    with pytest.raises(costmodel.Error, match="unknown model 'llama3-80b'; did you mean 'llama3-70b'"):
        costmodel.plan(model="llama3-80b")


def test_bad_model_dict_names_its_line_and_field():
    with pytest.raises(costmodel.Error) as error:
        costmodel.estimate(model={"name": "m", "layers": -2, "hidden": 4096, "heads": 32, "vocab": 32000,
                                  "seq_len": 2048}, gpus=8, tp=1, pp=1, dp=8)
    text = str(error.value)
    # json.dumps(indent=2) puts "layers" on line 3, its value at column 13
    assert text.startswith("<model dict>:3:") and "layers" in text, text


def test_infeasible_and_warnings():
    with pytest.raises(costmodel.InfeasibleError) as error:
        costmodel.plan(model="gpt3-175b", gpu="a100-40gb", gpus=8, top=1)
    assert error.value.exit_code == 3 and "nothing feasible" in str(error.value)
    # a split that does not fit is still returned (fits_memory false), as the CLI prints it
    df = costmodel.estimate(model="gpt3-175b", gpu="a100-40gb", gpus=8, tp=8, pp=1, dp=1)
    assert not df["fits_memory"][0]
    with pytest.warns(costmodel.CostmodelWarning, match="--nics-per-node: 64 NICs per node of 8 GPUs"):
        costmodel.topology(nics_per_node=64)


def test_format_is_refused_and_run_gives_any_format(tmp_path):
    with pytest.raises(costmodel.Error):
        costmodel.plan(gpus=64, format="csv")
    done = costmodel.run("plan", "--model", "llama3-8b", "--gpus", "64", "--top", "1", "--format", "csv")
    assert done.exit_code == 0 and done.stdout.startswith("rank,")
    page = costmodel.report(tmp_path / "r.html", model="llama3-8b", gpu="h100-sxm", gpus=64)
    assert open(page, encoding="utf-8").read().startswith("<!DOCTYPE html>")
