"""The export (python -m export): ONNX files that agree with PyTorch, the JSON
the lab reads, the build runner's skip rule for its stage (unchanged inputs:
skipped; a changed checkpoint or a damaged output: run again), and failures
that name the bad file and leave the previous output intact.

`make test` runs `make site` first, so build/export holds the export of the
committed checkpoints (models/checkpoints)."""

from __future__ import annotations

import dataclasses
import json
import shutil
from pathlib import Path

import numpy as np
import onnx
import pytest
import torch

import export.__main__
from common.files import sha256_file
from common.layout import MODELS, ModelsFolder
from common.runner import Runner
from common.settings import EXPORT_DIR
from common.stages import DATA, stage
from export import pipeline
from export.decoding import generate
from export.onnx_export import ort_run, ort_session
from export.parity import attention_matrices
from models.checkpoints import load_vocab, save_checkpoint
from models.corpus import prepare
from models.nets import KINDS, build, count_parameters
from models.tokenizer import BOS_ID, PAD_ID, UNK_ID


def read(name: str):
    return json.loads((EXPORT_DIR / name).read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def exported() -> Path:
    assert (EXPORT_DIR / "metadata.json").exists(), "build/export is missing: run `make site` (make test does)"
    return EXPORT_DIR


@pytest.fixture(scope="module")
def metadata(exported):
    return read("metadata.json")


@pytest.fixture(scope="module")
def parity(exported):
    return read("parity.json")


@pytest.fixture(scope="module")
def presets(exported):
    return read("presets.json")


def test_every_output_file_is_there(exported):
    for name in pipeline.OUTPUTS:
        assert (exported / name).is_file(), name
    # the runner's record of its last success lists them with their hashes, and they are still those files
    runner = Runner()
    record = runner.read_record(stage("export"))
    assert record, "no record of the export stage: run `make site`"
    assert {f"build/export/{name}" for name in pipeline.OUTPUTS} <= set(record["outputs"])
    assert record["outputs"] == runner.outputs(stage("export"))


def test_onnx_interface(exported, metadata):
    C = metadata["vocab_size"]
    for kind in KINDS:
        proto = onnx.load(str(exported / f"{kind}.onnx"))
        assert max(o.version for o in proto.opset_import if o.domain in ("", "ai.onnx")) >= 17
        assert [i.name for i in proto.graph.input] == ["context_ids"]
        assert proto.graph.input[0].type.tensor_type.elem_type == onnx.TensorProto.INT64
        names = [o.name for o in proto.graph.output]
        assert names == (["logits"] if kind == "mlp" else ["logits", "attention", "attention_matrix"])
        # no source paths inside the file: its bytes do not depend on where the project lives
        assert b"/models/nets.py" not in (exported / f"{kind}.onnx").read_bytes()
        # FP32 weights throughout
        assert all(
            t.data_type == onnx.TensorProto.FLOAT
            for t in proto.graph.initializer
            if t.data_type in (onnx.TensorProto.FLOAT16, onnx.TensorProto.DOUBLE, onnx.TensorProto.FLOAT)
        )
        session = ort_session(exported / f"{kind}.onnx")
        for batch in (1, 5):  # dynamic batch
            ids = np.random.default_rng(batch).integers(4, C, size=(batch, 64))
            out = ort_run(session, ids)
            assert out["logits"].shape == (batch, C)
            if kind != "mlp":
                heads = metadata["models"][kind]["heads"]
                assert out["attention"].shape == (batch, heads, 64)
                np.testing.assert_allclose(out["attention"].sum(-1), 1.0, atol=1e-5)
                assert out["attention_matrix"].shape == (batch, heads, 64, 64)
                # the matrix's last row is the final query's attention
                np.testing.assert_allclose(out["attention_matrix"][:, :, -1], out["attention"], atol=1e-6)


def test_onnxruntime_matches_pytorch_on_parity_contexts(exported, parity, torch_models):
    ids = np.array([c["ids"] for c in parity["contexts"]], dtype=np.int64)
    for kind, model in torch_models.items():
        got = ort_run(ort_session(exported / f"{kind}.onnx"), ids)
        with torch.no_grad():
            if kind == "mlp":
                want = {"logits": model(torch.from_numpy(ids)).numpy()}
            else:
                logits, weights = model.attend(torch.from_numpy(ids))
                want = {"logits": logits.numpy(), "attention": weights.numpy()}
        for name, value in want.items():
            assert np.abs(got[name] - value).max() <= 1e-4, (kind, name)
        # the stored references are PyTorch's own float32 numbers, exactly
        assert np.array_equal(np.array(parity["logits"][kind], dtype=np.float32), want["logits"])
        if kind != "mlp":
            assert np.array_equal(np.array(parity["attention"][kind], dtype=np.float32), want["attention"])
            # PAD slots get exactly zero weight, real slots sum to one
            pads = ids == PAD_ID
            assert np.all(got["attention"][np.broadcast_to(pads[:, None, :], got["attention"].shape)] == 0.0)
            # the full matrix is forward_details' weights: causal, PAD keys masked, PAD query rows zero
            matrix = got["attention_matrix"]
            assert np.abs(matrix - attention_matrices(model, ids.tolist())).max() <= 1e-5, kind
            assert np.all(np.triu(np.ones((64, 64), bool), 1)[None, None] <= (matrix == 0.0))
            assert np.all(matrix[np.broadcast_to(pads[:, None, :, None], matrix.shape)] == 0.0)
            real_rows = matrix.sum(-1)[np.broadcast_to(~pads[:, None, :], matrix.shape[:3])]
            np.testing.assert_allclose(real_rows, 1.0, atol=1e-5)


def test_parity_contexts_cover_the_required_cases(parity, metadata):
    contexts = {c["name"]: c for c in parity["contexts"]}
    assert len(contexts) >= 6
    for c in contexts.values():
        assert len(c["ids"]) == 64 and all(0 <= i < metadata["vocab_size"] for i in c["ids"])
    assert contexts["bos_only"]["ids"] == [PAD_ID] * 63 + [BOS_ID]
    assert PAD_ID not in contexts["full_window"]["ids"]
    short = contexts["short_prompt"]["ids"]
    assert short[0] == PAD_ID and BOS_ID in short and short[-1] != PAD_ID
    assert UNK_ID in contexts["unk_prompt"]["ids"]
    assert contexts["long_cropped"]["history_length"] > 64 and BOS_ID not in contexts["long_cropped"]["ids"]
    assert PAD_ID not in contexts["random_ids"]["ids"]
    for kind in KINDS:
        assert len(parity["logits"][kind]) == len(contexts)
        assert all(len(row) == metadata["vocab_size"] for row in parity["logits"][kind])


def test_reference_continuations_follow_the_decoding_rule(parity, presets, torch_models):
    assert parity["decoding"]["limit"] == 24
    assert parity["decoding"]["sampled"] == {"temperature": 0.9, "seed": 7}
    for kind, model in torch_models.items():
        refs = parity["continuations"][kind]
        assert set(refs) == {p["id"] for p in presets}

        @torch.no_grad()
        def logits_fn(ctx, model=model):
            return model(torch.tensor([ctx]))[0].tolist()

        def without_margin(run):
            return {k: v for k, v in run.items() if k != "min_margin"}

        for p in presets[:2]:  # recompute two presets per model from scratch
            assert generate(logits_fn, p["prompt_ids"], mode="greedy", limit=24) == without_margin(
                refs[p["id"]]["greedy"]
            )
            assert generate(
                logits_fn, p["prompt_ids"], mode="sampled", temperature=0.9, seed=7, limit=24
            ) == without_margin(refs[p["id"]]["sampled"])
            assert generate(
                logits_fn, p["prompt_ids"], mode="sampled", temperature=0.9, seed=7, top_k=20, top_p=0.9, limit=24
            ) == without_margin(refs[p["id"]]["filtered"])
        for ref in refs.values():
            for run in ref.values():
                assert run["stop"] in ("eos", "limit") and len(run["ids"]) <= 24
                assert run["calls"] == len(run["ids"]) + (run["stop"] == "eos")
                assert run["min_margin"] > 0


def test_metadata_describes_each_model(exported, metadata):
    results = json.loads(MODELS.results.read_text(encoding="utf-8"))
    vocab = load_vocab()
    assert metadata["vocab_size"] == len(vocab) == 4000
    assert metadata["context"] == 64
    assert metadata["special_ids"] == {"PAD": 0, "BOS": 1, "EOS": 2, "UNK": 3}
    assert metadata["banned_ids"] == [0, 1, 3]
    assert metadata["order"] == list(KINDS)
    assert json.loads((exported / "vocab.json").read_text(encoding="utf-8")) == vocab.itos
    for kind in KINDS:
        m = metadata["models"][kind]
        path = exported / m["file"]
        assert m["bytes"] == path.stat().st_size
        assert m["sha256"] == sha256_file(path)
        assert m["parameters"] == count_parameters(build(kind))
        info = json.loads(MODELS.info(kind).read_text(encoding="utf-8"))
        assert m["selected_step"] == info["selected_step"]
        assert m["checkpoint_sha256"] == info["sha256"]
        run = next(r for r in results["runs"] if r["kind"] == kind and r["seed"] == 11)
        assert m["seed_run"]["test_loss"] == run["test_loss"]
        assert m["seed_run"]["test_perplexity"] == run["test_perplexity"]
        assert m["seed_run"]["train_seconds"] == run["train_seconds"]
        agg = results["aggregate"][kind]
        assert m["aggregate"]["test_perplexity"] == agg["test_perplexity"]
        assert m["aggregate"]["test_loss"] == agg["test_loss"]
        assert m["aggregate"]["train_seconds"] == agg["train_seconds"]
        assert m["ort_cpu_vs_pytorch"]["max_abs_logits"] <= 1e-4
    assert [metadata["models"][k]["parameters"] for k in KINDS] == [2_332_832, 1_321_120, 1_321_120]
    assert "CDLA-Sharing-1.0" in metadata["dataset"]["attribution"]


def test_presets(presets):
    corpus = prepare("course")
    vocab = load_vocab()
    split_of = {s["text"]: split for split, stories in corpus.stories.items() for s in stories}
    groups = [p["group"] for p in presets]
    assert groups.count("Training story") >= 2
    assert groups.count("Held-out test story") == 1
    assert groups.count("Authored") >= 1
    assert groups.count("Out of domain") >= 2
    for p in presets:
        assert p["prompt_ids"] == vocab.encode(p["prompt"])
        if p["source"]:
            src = p["source"]
            assert src["text"].startswith(p["prompt"].split()[0])
            assert " ".join(src["text"].split()).startswith(" ".join(p["prompt"].split()))
            assert split_of[src["text"]] == src["split"]
            assert src["origin_file"].startswith("TinyStories") and isinstance(src["origin_index"], int)
            assert "CDLA-Sharing-1.0" in src["attribution"]
        else:
            assert p["group"] in ("Authored", "Out of domain")
    test = next(p for p in presets if p["group"] == "Held-out test story")
    shortest = min(len(s["ids"]) for s in corpus.stories["test"])
    assert len(vocab.encode_story(test["source"]["text"])) == shortest
    assert any(p["unknown_tokens"] >= 3 for p in presets if p["group"] == "Out of domain")


# ---------------------------------------------------------------- the cache and failures


@pytest.fixture(scope="module")
def scratch_models(tmp_path_factory) -> ModelsFolder:
    """Course-sized, randomly initialized checkpoints with the real vocabulary
    and the committed results (seed-11 test losses 5, 6, 7), so that the
    exporter can run end to end quickly."""
    folder = ModelsFolder(tmp_path_factory.mktemp("models"))
    folder.checkpoints.mkdir()
    shutil.copyfile(MODELS.vocab, folder.vocab)
    results = json.loads(MODELS.results.read_text(encoding="utf-8"))
    for i, kind in enumerate(KINDS):
        torch.manual_seed(100 + i)
        model = build(kind)
        save_checkpoint(model, {"seed": 11, "selected_step": 750, "profile": "course", "test_loss": 5.0}, folder)
        run = next(r for r in results["runs"] if r["kind"] == kind and r["seed"] == 11)
        run.update(test_loss=5.0 + i, test_perplexity=float(np.exp(5.0 + i)))
    folder.results.write_text(json.dumps(results))
    trace = json.loads(MODELS.trace.read_text(encoding="utf-8"))  # the committed trace, tied to these checkpoints
    for kind in KINDS:
        info = json.loads(folder.info(kind).read_text(encoding="utf-8"))
        trace["runs"][kind].update(checkpoint_sha256=info["sha256"], selected_step=750)
    folder.trace.write_text(json.dumps(trace))
    return folder


def test_export_skips_when_unchanged_and_keeps_output_on_failure(scratch_models, tmp_path, capsys):
    """The export stage as the runner runs it, on the scratch checkpoints."""
    out = tmp_path / "export"
    job = dataclasses.replace(
        stage("export"),
        args=("--models", str(scratch_models.root), "--out", str(out)),
        inputs=(*DATA, str(scratch_models.root)),
        outputs=(str(out),),
    )
    lines = []
    runner = Runner([job], records=tmp_path / "records", log=lines.append)
    assert runner.run() == 0 and "runner: export ran in" in lines[-1]
    meta = json.loads((out / "metadata.json").read_text())
    assert meta["models"]["attn1"]["seed_run"]["test_loss"] == 6.0
    assert meta["models"]["attn1"]["aggregate"]["seeds"] == [11, 29, 47]
    stamp = {p.name: p.stat().st_mtime_ns for p in out.iterdir()}
    assert runner.run() == 0 and lines[-1] == "runner: export skipped: unchanged"
    assert {p.name: p.stat().st_mtime_ns for p in out.iterdir()} == stamp

    # a damaged output is noticed (the record holds every output's hash)
    shutil.copyfile(out / "attn4.onnx", tmp_path / "attn4.onnx")
    (out / "attn4.onnx").write_bytes(b"not a model")
    assert runner.check(job)[1] == f"output changed since its run: {out / 'attn4.onnx'}"
    shutil.copyfile(tmp_path / "attn4.onnx", out / "attn4.onnx")
    assert runner.check(job)[1] is None

    # a changed checkpoint changes the fingerprint, so the export would run again
    torch.manual_seed(999)
    save_checkpoint(build("attn1"), {"seed": 11, "selected_step": 1500, "profile": "course"}, scratch_models)
    assert runner.check(job)[1] == f"input changed: {scratch_models.info('attn1')} (+1)"

    # a corrupt checkpoint stops the export with a message naming the file; the old output stays
    weights = scratch_models.weights("mlp")
    data = bytearray(weights.read_bytes())
    data[len(data) // 2] ^= 0xFF
    weights.write_bytes(bytes(data))
    before = (out / "metadata.json").read_bytes()
    assert export.__main__.main(["--models", str(scratch_models.root), "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert str(weights) in err and "corrupt" in err
    assert (out / "metadata.json").read_bytes() == before
    assert sorted(p.name for p in out.iterdir()) == sorted(stamp)
    assert not (tmp_path / ".export.staging").exists()

    # a missing checkpoint is named too
    scratch_models.info("attn4").unlink()
    assert export.__main__.main(["--models", str(scratch_models.root), "--out", str(out)]) == 2
    assert str(scratch_models.info("attn4")) in capsys.readouterr().err
    assert (out / "metadata.json").read_bytes() == before


def test_head_switch_graphs_are_the_first_graphs_with_a_head_mask(exported, metadata, parity, torch_models):
    """<kind>.heads.onnx: every head on gives the first graph's outputs bit for
    bit; a head off zeroes its message before W_O, as export.ablation does in
    PyTorch. A hidden word fed as PAD is the same as masking it as a key."""
    from export.ablation import ablated_attend, head_mask, hidden_slots

    ids = np.array([c["ids"] for c in parity["contexts"]], dtype=np.int64)
    for kind in ("attn1", "attn4"):
        entry = metadata["models"][kind]["heads_graph"]
        path = exported / entry["file"]
        assert entry["sha256"] == sha256_file(path) and entry["inputs"] == ["context_ids", "head_mask"]
        heads, model = metadata["models"][kind]["heads"], torch_models[kind]
        main = ort_run(ort_session(exported / f"{kind}.onnx"), ids)
        session = ort_session(path)
        on = ort_run(session, ids, mask=np.ones((len(ids), heads)))
        assert all(np.array_equal(on[k], main[k]) for k in main), kind
        for off in ([0], [heads - 1], list(range(heads))):
            got = ort_run(session, ids, mask=np.array([head_mask(heads, off)] * len(ids)))
            want, weights = ablated_attend(model, torch.from_numpy(ids), off)
            assert np.abs(got["logits"] - want.numpy()).max() <= 1e-4, (kind, off)
            assert np.array_equal(got["attention"], main["attention"])  # weights do not depend on W_O
        # hiding history positions 30 and 40 of an 80-token history: PAD in the feed == masked keys
        history = list(range(10, 10 + 80))
        mask = torch.tensor([hidden_slots(len(history), [30, 40, len(history) - 1])])
        assert mask.sum() == 2  # the newest token is never hidden
        window = torch.tensor([history[-64:]])
        fed = window.masked_fill(mask, PAD_ID).numpy()
        got = ort_run(ort_session(exported / f"{kind}.onnx"), fed)
        want, weights = ablated_attend(model, window, (), mask)
        assert np.abs(got["logits"] - want.numpy()).max() <= 1e-4
        assert np.abs(got["attention"] - weights.numpy()).max() <= 1e-6
        assert np.all(got["attention"][0][:, mask[0].numpy()] == 0.0)
