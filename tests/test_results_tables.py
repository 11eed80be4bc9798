"""The results tables: the perplexity toy, the run summary and charts built
from results.json (complete and partial), one prompt's four attention rows,
model sizes, the benchmark, and placeholders for absent inputs. The tables of
the committed inputs are read from build/tables (`make site` wrote them); a
test that changes an input computes them here."""

from __future__ import annotations

import json
import math
import random
import statistics
import xml.etree.ElementTree as ET

import pytest
import torch

from common.layout import MODELS, ModelsFolder
from common.settings import ROOT
from export.tables import TablesError, compute, to_json
from export.tables.kit.sources import InputError, Sources
from export.tables.results import toy
from export.tables.results.charts import charts
from export.tables.results.measured import run_table, summary
from export.tables.results.model import attention_rows
from models.checkpoints import load_checkpoint
from models.nets import KINDS, LABELS
from models.tokenizer import BOS_ID, PAD_ID
from support.builds import make_models_dir

SVG = "{http://www.w3.org/2000/svg}"


def results_compute(**paths) -> dict:
    """The results deck's tables, computed in one run over these (changed) inputs."""
    return compute(["results"], Sources(**paths))


@pytest.fixture(scope="module")
def models_dir(tmp_path_factory):
    return make_models_dir(tmp_path_factory.mktemp("models"))


def fake_results(seeds=(11, 29, 47), kinds=KINDS, rng_seed=0) -> dict:
    """Runs in the layout models.train writes, with random values."""
    rng = random.Random(rng_seed)
    runs = []
    for kind in kinds:
        for seed in seeds:
            trace = [
                {"step": s, "val_loss": 8.3 if s == 1 else rng.uniform(3.2, 4.5), "train_loss": rng.uniform(3, 5)}
                for s in (1, 750, 1500, 2250)
            ]
            best = min(trace, key=lambda p: p["val_loss"])
            test_loss = rng.uniform(3.2, 4.2)
            runs.append(
                {
                    "kind": kind,
                    "seed": seed,
                    "parameters": 1000 + len(kind),
                    "lr": 1e-3,
                    "weight_decay": 1e-4,
                    "steps": 2250,
                    "batch_size": 512,
                    "val_trace": trace,
                    "selected_step": best["step"],
                    "val_loss": best["val_loss"],
                    "test_loss": test_loss,
                    "test_perplexity": math.exp(test_loss),
                    "train_seconds": rng.uniform(100, 300),
                    "device": "cpu (x86_64, 2 threads)",
                    "torch_version": "2.13.0+cpu",
                }
            )
    return {"profile": "course", "runs": runs}


AUDIT = {"profile": {"seeds": [11, 29, 47]}}


def test_perplexity_toy_is_four():
    t = toy.perplexity_toy()
    assert t["probabilities"] == [0.5, 0.25, 0.125]
    assert t["losses"] == pytest.approx([math.log(2), 2 * math.log(2), 3 * math.log(2)])
    assert t["perplexity"] == pytest.approx(4.0, abs=1e-12)
    assert t["reciprocal_geometric_mean"] == pytest.approx(t["perplexity"])


def test_summary_is_mean_and_sample_sd_over_seeds():
    r = fake_results()
    s = summary(r, AUDIT)
    assert s["complete"] and s["n_runs"] == 9
    for entry in s["kinds"]:
        ppl = [x["test_perplexity"] for x in r["runs"] if x["kind"] == entry["kind"]]
        secs = [x["train_seconds"] for x in r["runs"] if x["kind"] == entry["kind"]]
        assert entry["ppl_mean"] == pytest.approx(statistics.mean(ppl))
        # sample SD: divide by n - 1
        assert entry["ppl_sd"] == pytest.approx(math.sqrt(sum((p - statistics.mean(ppl)) ** 2 for p in ppl) / 2))
        assert entry["seconds_mean"] == pytest.approx(statistics.mean(secs))
    one, four = s["by_kind"]["attn1"]["ppl_mean"], s["by_kind"]["attn4"]["ppl_mean"]
    assert s["attn4_vs_attn1_ppl_reduction_percent"] == pytest.approx((one - four) / one * 100)
    shown = {row[0]: row for row in s["rows"]}
    assert (
        shown["Four-head attention"][2] == f"{s['by_kind']['attn4']['ppl_mean']:.2f} ± "
        f"{s['by_kind']['attn4']['ppl_sd']:.2f}"
    )


def test_partial_results_mark_the_missing_runs():
    r = fake_results()
    r["runs"] = [x for x in r["runs"] if x["seed"] == 11 or x["kind"] == "mlp"]  # 5 of 9
    s = summary(r, AUDIT)
    assert not s["complete"] and s["n_runs"] == 5
    assert s["by_kind"]["attn1"]["ppl_sd"] is None and "(1 run)" in s["rows"][1][2]
    t = run_table(r, AUDIT)
    assert sorted(t["missing"]) == sorted([[k, sd] for k in ("attn1", "attn4") for sd in (29, 47)])
    assert sum("not measured yet" in row for row in t["rows"]) == 4
    c = charts(r, s)
    root = ET.fromstring(c["ppl_svg"])
    assert len(root.findall(f".//{SVG}g[@class='sd']")) == 1  # only the MLP has an SD yet


def test_charts_have_text_alternatives_and_one_curve_per_run():
    r = fake_results()
    s = summary(r, AUDIT)
    c = charts(r, s)
    curves = ET.fromstring(c["val_curves_svg"])
    assert curves.find(f"{SVG}title").text and curves.find(f"{SVG}desc").text
    lines = curves.findall(f".//{SVG}polyline[@class='run']")
    assert len(lines) == 9 == c["n_curves"]
    assert {(l.get("data-kind"), int(l.get("data-seed"))) for l in lines} == {(x["kind"], x["seed"]) for x in r["runs"]}
    # step 1 is left off the drawing (it is in the data table), so each curve has 3 points
    assert all(len(l.get("points").split()) == 3 for l in lines)
    assert len(c["val_curves_table"]["rows"]) == 9 and c["val_curves_table"]["header"][2:] == [1, 750, 1500, 2250]
    assert len(curves.findall(f".//{SVG}circle[@class='selected']")) == sum(
        1 for x in r["runs"] if x["selected_step"] != 1
    )
    bars = ET.fromstring(c["ppl_svg"])
    assert bars.find(f"{SVG}title").text and bars.find(f"{SVG}desc").text
    first = bars.find(f"{SVG}g[@class='panel']")  # the panel with every model
    marks = first.findall(f"{SVG}path[@class='mean']")
    assert len(marks) == 3 and len(first.findall(f"{SVG}g[@class='sd']")) == 3
    # a higher mark (smaller y) means a higher mean perplexity
    tops = {mark.get("data-kind"): float(mark.get("d").split(",")[1].split()[0]) for mark in marks}
    means = {e["kind"]: e["ppl_mean"] for e in s["kinds"]}
    assert sorted(tops, key=tops.get) == sorted(means, key=means.get, reverse=True)
    assert len(first.findall(f"{SVG}circle[@class='run-dot']")) == 9


def test_attention_rows_sum_to_one_and_both_paths_agree(models_dir):
    t = attention_rows(Sources(models_dir=models_dir))
    assert t["prompt"] == "a little dog found a red hat"
    assert t["tokens"] == ["a", "little", "dog", "found", "a", "red", "hat"]
    assert t["history"][0] == BOS_ID and t["pad_count"] == 64 - 8
    assert len(t["rows"]) == 4 and all(len(row) == 1 + 8 for row in t["rows"])
    assert t["row_sums"] == pytest.approx([1.0] * 4, abs=1e-6)
    assert t["shapes"]["Q"] == [1, 4, 64, 16] and t["shapes"]["weights"] == [1, 4, 64, 64]
    assert t["logits_max_abs_diff"] < 1e-5 and t["weights_max_abs_diff"] < 1e-6
    # the rows are the final-query weights of the fast path, read independently here
    model, _ = load_checkpoint("attn4", ModelsFolder(models_dir))
    X = torch.tensor([[PAD_ID] * t["pad_count"] + t["history"]])
    with torch.no_grad():
        _, weights = model.attend(X)
    expected = weights[0, :, t["pad_count"] :]
    assert torch.allclose(torch.tensor([row[1:] for row in t["rows"]]), expected, atol=1e-6)


def test_sizes_from_checkpoints_and_metadata(models_dir, tmp_path):
    metadata = {"models": {k: {"kind": k, "bytes": 1234 + i} for i, k in enumerate(KINDS)}}
    (tmp_path / "metadata.json").write_text(json.dumps(metadata))
    t = results_compute(models_dir=models_dir, export_dir=tmp_path, bench_path=tmp_path / "none.json")
    sizes = t["results_sizes"]
    assert sizes["onnx_available"]
    for m in sizes["models"]:
        model, _ = load_checkpoint(m["kind"], ModelsFolder(models_dir))
        assert m["parameters"] == sum(p.numel() for p in model.parameters())
        assert m["fp32_bytes"] == 4 * m["parameters"]
        assert m["onnx_bytes"] == metadata["models"][m["kind"]]["bytes"]
    assert sizes["attention_models_equal"] is True


def test_absent_inputs_give_placeholders(tmp_path):
    t = results_compute(
        models_dir=tmp_path / "models", export_dir=tmp_path / "export", bench_path=tmp_path / "bench.json"
    )
    for name in ("results_summary", "results_runs", "results_charts", "results_attention", "results_bench"):
        assert t[name] == {"available": False, "reason": t[name]["reason"]}
        assert "does not exist yet" in t[name]["reason"]
    assert t["results_sizes"]["available"] is False
    assert all(row[1:] == ["not measured yet"] * 4 for row in t["results_sizes"]["rows"])
    for name, value in t.items():
        to_json(name, value)


def test_corrupt_results_stop_with_its_name(tmp_path):
    (tmp_path / "results.json").write_text('{"runs": [')
    with pytest.raises(TablesError, match="results.json") as failed:
        results_compute(models_dir=tmp_path, export_dir=tmp_path, bench_path=tmp_path / "b.json")
    assert isinstance(failed.value.__cause__, InputError)


def test_committed_results_agree_with_their_recorded_aggregate(table):
    """Whatever models/results.json holds right now, the table agrees with it."""
    path = MODELS.results
    s = table("results_summary")
    if not path.exists():
        assert s["available"] is False
        return
    recorded = json.loads(path.read_text(encoding="utf-8"))
    assert s["n_runs"] == len(recorded["runs"])
    for kind, agg in recorded.get("aggregate", {}).items():
        entry = s["by_kind"][kind]
        assert entry["ppl_mean"] == pytest.approx(agg["test_perplexity"]["mean"], rel=1e-12)
        assert entry["seconds_mean"] == pytest.approx(agg["train_seconds"]["mean"], rel=1e-12)
        if agg["test_perplexity"]["sd"] is not None:
            assert entry["ppl_sd"] == pytest.approx(agg["test_perplexity"]["sd"], rel=1e-9)


def test_benchmark_becomes_a_table_with_its_machine(tmp_path):
    """The committed bench/bench.json (written by `make bench`): one row per
    browser runtime, the throttled automatic visit and onnxruntime CPU."""
    bench = json.loads((ROOT / "bench" / "bench.json").read_text(encoding="utf-8"))
    path = tmp_path / "bench.json"
    path.write_text(json.dumps(bench))
    t = results_compute(models_dir=tmp_path, export_dir=tmp_path, bench_path=path)["results_bench"]
    assert t["available"] and bench["machine"]["cpu"] in t["machine"]
    available = [n for n in ("wasm", "webgpu") if bench["runtimes"].get(n, {}).get("available")]
    assert set(t["ready_ms"]) == set(available)
    assert t["header"][0] == "runtime" and t["header"][5:8] == [f"{LABELS[k]}, ms/call" for k in KINDS]
    assert len(t["rows"]) == len(available) + bool(bench.get("throttled")) + 1
    for row, name in zip(t["rows"], available):
        r = bench["runtimes"][name]
        assert row[1] == f"{r['first_visit_bytes'] / 1e6:.1f} MB" and row[2] == f"{r['ready_ms'] / 1000:.1f} s"
        for cell, kind in zip(row[5:8], KINDS):
            want = bench["models"][kind][name]["median_ms_per_call"]
            # shown to 2 decimals below 10 ms, 1 below 100, whole ms above
            assert float(cell.replace(",", "")) == pytest.approx(
                want, abs=0.0051 if want < 10 else 0.051 if want < 100 else 0.51
            )
        # the bracket is the row's own ms/token over the row's own ms/call cells (issue 31 item 15)
        loop_ms = float(row[8].split(" (")[0].replace(",", ""))
        calls = sum(float(c.replace(",", "")) for c in row[5:8])
        assert row[8].endswith(f"({loop_ms / calls:.1f}×)")
    cpu = t["rows"][-1]
    assert cpu[0] == "onnxruntime CPU (Python)"
    for cell, kind in zip(cpu[5:8], KINDS):
        assert float(cell) == pytest.approx(bench["models"][kind]["onnxruntime_cpu_ms_per_call"], abs=0.01)
    del bench["models"]["attn4"]
    path.write_text(json.dumps(bench))
    with pytest.raises(TablesError, match="results_bench.*bench.json") as failed:
        results_compute(models_dir=tmp_path, export_dir=tmp_path, bench_path=path)
    assert isinstance(failed.value.__cause__, InputError)


# ------------------------------------------------------------------ protocol, worked SD, formatting
def test_small_differences_are_written_in_scientific_notation():
    from export.tables.kit.numbers import sci

    assert sci(1.526e-05) == "1.5 × 10⁻⁵"
    assert sci(9.96e-06) == "1.0 × 10⁻⁵"
    assert sci(3.0e-7) == "3.0 × 10⁻⁷" and sci(0.0) == "0"


def test_device_says_thread_or_threads_from_the_number():
    from export.tables.results.measured import device_phrase

    assert device_phrase("cpu (x86_64, 1 threads)") == "CPU (x86_64), 1 thread"
    assert device_phrase("cpu (x86_64, 2 threads)") == "CPU (x86_64), 2 threads"
    s = summary(fake_results(), AUDIT)
    assert s["device"] == "CPU (x86_64), 2 threads" and s["threads"] == [2]


def test_worked_sd_is_the_sample_sd_and_the_reduction():
    from export.tables.results.protocol import worked_sd

    r = fake_results()
    w = worked_sd(r)
    four = [x["test_perplexity"] for x in sorted(r["runs"], key=lambda x: x["seed"]) if x["kind"] == "attn4"]
    one = [x["test_perplexity"] for x in r["runs"] if x["kind"] == "attn1"]
    assert w["values"] == four and w["mean"] == pytest.approx(statistics.mean(four))
    assert w["sd"] == pytest.approx(statistics.stdev(four)) and w["n_minus_1"] == 2
    assert w["sum_squares"] / 2 == pytest.approx(w["variance"])
    expected = (statistics.mean(one) - statistics.mean(four)) / statistics.mean(one) * 100
    assert w["reduction_percent"] == pytest.approx(expected)
    assert summary(r, AUDIT)["attn4_vs_attn1_ppl_reduction_percent"] == pytest.approx(expected)
    assert worked_sd({"runs": []})["available"] is False


def test_uniform_quarter_targets_give_perplexity_four():
    u = toy.uniform_toy()
    assert u["probability"] == 0.25 and u["cross_entropy"] == pytest.approx(math.log(4))
    assert u["perplexity"] == pytest.approx(4.0, abs=1e-12)
    # the uniform case has as many targets as the worked table (the slide once said 4 of a 3-row table)
    t = toy.perplexity_toy()
    assert t["uniform"]["targets"] == len(t["rows"]) == len(toy.TOY_PROBABILITIES)


def test_per_step_rows_are_attend_window_by_window(table):
    """The per-step rows are what training used: attend's final query of the
    window ending at each token. The last one-pass row equals the last per-step
    row; the agreement counts are recounted here."""
    from export.decoding import context_window

    t = table("results_per_step")
    assert t["available"]
    sources = Sources()
    for kind, d in t["kinds"].items():
        model, _ = load_checkpoint(kind)
        ctx, _ = sources.prompt_context(kind, t["prompt"])
        history = ctx["history"]
        n = len(history)
        agree = rows = 0
        for hd in d["heads"]:
            for i in range(n):
                window = torch.tensor([context_window(history[: i + 1], model.config.w)])
                with torch.no_grad():
                    _, weights = model.attend(window)
                expected = weights[0, hd["head"] - 1, window[0].ne(PAD_ID)].tolist()
                assert hd["per_step"][i][: i + 1] == pytest.approx(expected, abs=1e-6)
                assert all(x == 0 for x in hd["per_step"][i][i + 1 :] + hd["one_pass"][i][i + 1 :])
                one = hd["one_pass"][i][: i + 1]
                if i >= 1:
                    rows += 1
                    agree += one.index(max(one)) == expected.index(max(expected))
            assert hd["one_pass"][-1] == pytest.approx(hd["per_step"][-1], abs=1e-5)
        assert (d["agree"], d["rows"]) == (agree, rows)


def test_protocol_matches_what_the_runs_recorded(table):
    from models.corpus import PROFILES

    path = MODELS.results
    recorded = json.loads(path.read_text(encoding="utf-8"))
    audit = json.loads(MODELS.audit.read_text(encoding="utf-8"))
    t = table("results_protocol")
    course = PROFILES["course"]
    assert t["batch_size"] == course.batch_size == recorded["runs"][0]["batch_size"]
    assert (
        t["steps"] == course.steps and t["validation_windows"] == recorded["validation_windows"] == course.val_windows
    )
    assert t["vocab_size"] == audit["vocab_size"] and t["train_stories"] == audit["splits"]["train"]["documents"]
    for r in recorded["runs"]:
        assert t["optimizer"][r["kind"]] == {"lr": r["lr"], "weight_decay": r["weight_decay"]}
    assert t["attn_settings_shared"]
    assert t["smoke"]["steps"] == PROFILES["smoke"].steps


def test_forward_paths_agree_on_the_committed_checkpoints(table, course_corpus):
    """forward (final query only) and forward_details give the same logits on
    the trained checkpoints, to a relative tolerance (an absolute 1e-5 fails
    on trained weights: their logits reach tens)."""
    X, _ = course_corpus.windows("validation")
    X = X[torch.randperm(len(X), generator=torch.Generator().manual_seed(0))[:256]].long()
    for kind in ("attn1", "attn4"):
        model, _ = load_checkpoint(kind)
        with torch.no_grad():
            fast, details = model(X), model.forward_details(X)["logits"]
        scale = float(details.abs().max())
        assert scale > 5
        assert float((fast - details).abs().max()) / scale < 2e-6, kind
    t = table("results_attention")
    assert t["logits_max_rel_diff"] < 2e-6 and "× 10⁻" in t["diff_text"]["logits"]


def test_perplexity_chart_axis_does_not_start_at_zero_and_whiskers_show():
    path = MODELS.results
    r = json.loads(path.read_text(encoding="utf-8"))
    s = summary(r, AUDIT)
    svg = ET.fromstring(charts(r, s)["ppl_svg"])
    panels = svg.findall(f"{SVG}g[@class='panel']")
    assert len(panels) == 2
    for panel in panels:
        ticks = [
            float(t.text) for t in panel.findall(f"{SVG}g[@class='ticks']/{SVG}text") if t.get("text-anchor") == "end"
        ]
        assert min(ticks) > 0
    zoom = panels[1]
    lengths = {g.get("data-kind"): float(g.get("data-length")) for g in zoom.findall(f"{SVG}g[@class='sd']")}
    assert set(lengths) == {"attn1", "attn4"} and all(v >= 4 for v in lengths.values())
