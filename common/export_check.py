"""Cross-checks of an export folder (metadata.json, vocab.json, presets.json
and the ONNX files) before it is published: by the export stage before its
swap, and by the site build before it copies the export into the site.

Every field the lab reads must be there, and the numbers must agree with each
other: the vocabulary's length and special tokens with vocab_size and
special_ids, each model's bytes and SHA-256 with its file, and each ONNX
graph's input and output shapes with context, vocab_size and the model's
heads. A mismatch raises ExportMismatch naming the file and the field, so a
stale or hand-edited export never reaches a learner as NaN perplexities or a
four-head model that "has no attention".
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

METADATA, VOCAB, PRESETS = "metadata.json", "vocab.json", "presets.json"
SPECIALS = ("PAD", "BOS", "EOS", "UNK")


class ExportMismatch(ValueError):
    """An export file is missing a field or disagrees with another file."""


def _fail(file: str, field: str, what: str):
    raise ExportMismatch(f"{file}: field {field!r} {what} (rerun `python -m export`)")


def _count(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value > 0


def _load(folder: Path, name: str):
    path = folder / name
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ExportMismatch(f"{name}: missing from {folder} (rerun `python -m export`)") from None
    except (ValueError, UnicodeDecodeError) as exc:
        raise ExportMismatch(f"{name}: not valid JSON ({exc}); rerun `python -m export`") from None


def check_metadata_fields(m) -> None:
    """The fields of metadata.json the lab reads, with their types."""
    if not isinstance(m, dict):
        raise ExportMismatch(f"{METADATA}: expected a JSON object, got {type(m).__name__}")
    order = m.get("order")
    if not isinstance(order, list) or not order or not all(isinstance(k, str) for k in order):
        _fail(METADATA, "order", "must be a non-empty list of model names")
    if not isinstance(m.get("models"), dict):
        _fail(METADATA, "models", "must be an object with one entry per model")
    for field in ("vocab_size", "context"):
        if not _count(m.get(field)):
            _fail(METADATA, field, "must be a positive integer")
    special = m.get("special_ids")
    if not isinstance(special, dict) or not all(isinstance(special.get(s), int) for s in SPECIALS):
        _fail(METADATA, "special_ids", f"must give the integer ID of each of {', '.join(SPECIALS)}")
    if not isinstance(m.get("banned_ids"), list) or not all(isinstance(i, int) for i in m["banned_ids"]):
        _fail(METADATA, "banned_ids", "must be a list of IDs")
    if not isinstance(m.get("special_tokens"), list):
        _fail(METADATA, "special_tokens", "must be the list of the special tokens")
    entry = m.get("input")
    if not isinstance(entry, dict) or not isinstance(entry.get("name"), str):
        _fail(METADATA, "input.name", "must name the models' input")
    dataset = m.get("dataset")
    if not isinstance(dataset, dict) or not all(isinstance(dataset.get(k), str) for k in ("name", "attribution")):
        _fail(METADATA, "dataset", "must give the data set's name and attribution")
    for kind in order:
        e = m["models"].get(kind)
        where = f"models.{kind}"
        if not isinstance(e, dict):
            _fail(METADATA, where, "is missing")
        if not isinstance(e.get("file"), str) or "/" in e["file"] or e["file"].startswith("."):
            _fail(METADATA, f"{where}.file", "must be a plain file name")
        if not isinstance(e.get("sha256"), str) or len(e["sha256"]) != 64:
            _fail(METADATA, f"{where}.sha256", "must be 64 hex digits")
        if not _count(e.get("bytes")):
            _fail(METADATA, f"{where}.bytes", "must be a positive integer")
        if not isinstance(e.get("label"), str):
            _fail(METADATA, f"{where}.label", "must be a string")
        if not isinstance(e.get("heads"), int) or isinstance(e["heads"], bool) or e["heads"] < 0:
            _fail(METADATA, f"{where}.heads", "must be the number of attention heads (0 for none)")
        if not isinstance(e.get("outputs"), list) or "logits" not in e["outputs"]:
            _fail(METADATA, f"{where}.outputs", "must list the graph's outputs, logits first")


def check_vocab(m: dict, itos) -> None:
    """vocab.json against metadata.json: its length and its special tokens."""
    if not isinstance(itos, list) or not all(isinstance(t, str) for t in itos):
        raise ExportMismatch(f"{VOCAB}: expected a list of token strings")
    if len(itos) != m["vocab_size"]:
        raise ExportMismatch(
            f"{METADATA} field 'vocab_size' ({m['vocab_size']}) disagrees with {VOCAB}, which holds {len(itos)} "
            f"tokens (rerun `python -m export`)"
        )
    for name, token in zip(SPECIALS, m["special_tokens"], strict=False):
        index = m["special_ids"][name]
        if not 0 <= index < len(itos) or itos[index] != token:
            raise ExportMismatch(f"{VOCAB}: ID {index} is not {token!r} as {METADATA} field 'special_ids.{name}' says")


def check_presets(presets) -> None:
    if not isinstance(presets, list) or not presets:
        raise ExportMismatch(f"{PRESETS}: expected a non-empty list of prompts")
    for i, p in enumerate(presets):
        if not isinstance(p, dict) or not all(isinstance(p.get(k), str) for k in ("id", "label", "prompt")):
            raise ExportMismatch(f"{PRESETS}: entry {i} must have the strings id, label and prompt")


def graph_shapes(path: Path) -> tuple[dict, dict]:
    """({input: (elem_type, dims)}, {output: (elem_type, dims)}) of an ONNX
    file; a dimension is its size or its symbolic name."""
    import onnx  # here: only the checks of ONNX files need it

    try:
        model = onnx.load(str(path), load_external_data=False)
    except Exception as exc:  # noqa: BLE001 (a corrupt protobuf raises several kinds)
        raise ExportMismatch(f"{path.name}: not a readable ONNX file ({exc})") from None

    def shapes(values):
        return {
            v.name: (v.type.tensor_type.elem_type, [d.dim_param or d.dim_value for d in v.type.tensor_type.shape.dim])
            for v in values
        }

    return shapes(model.graph.input), shapes(model.graph.output)


def check_model(folder: Path, m: dict, kind: str) -> None:
    """One model file against its metadata entry: bytes, SHA-256, the graph's shapes."""
    import onnx

    e, where = m["models"][kind], f"models.{kind}"
    path = folder / e["file"]
    if not path.is_file():
        raise ExportMismatch(f"{e['file']}: missing, though {METADATA} field '{where}.file' names it")
    data = path.read_bytes()
    if len(data) != e["bytes"]:
        _fail(METADATA, f"{where}.bytes", f"says {e['bytes']} but {e['file']} holds {len(data)} bytes")
    if hashlib.sha256(data).hexdigest() != e["sha256"]:
        _fail(METADATA, f"{where}.sha256", f"does not match {e['file']}")
    inputs, outputs = graph_shapes(path)
    name, context, vocab, heads = m["input"]["name"], m["context"], m["vocab_size"], e["heads"]
    if list(inputs) != [name] or inputs[name][0] != onnx.TensorProto.INT64 or inputs[name][1][1:] != [context]:
        _fail(METADATA, "context", f"({context}) or 'input' disagrees with the input of {e['file']}: {inputs}")
    if list(outputs) != e["outputs"]:
        _fail(
            METADATA, f"{where}.outputs", f"({e['outputs']}) disagrees with the outputs of {e['file']}: {list(outputs)}"
        )
    expected = {"logits": [vocab]}
    if heads:
        expected |= {"attention": [heads, context], "attention_matrix": [heads, context, context]}
    elif "attention" in outputs:
        _fail(METADATA, f"{where}.heads", f"is 0 but {e['file']} outputs attention")
    for output, dims in expected.items():
        if output not in outputs:
            _fail(METADATA, f"{where}.heads", f"is {heads} but {e['file']} has no output {output!r}")
        if outputs[output][1][1:] != dims:
            field = "vocab_size" if output == "logits" else f"{where}.heads' or 'context"
            _fail(METADATA, field, f"disagrees with {e['file']}: {output} has shape {outputs[output][1]}")


def check_export(folder: Path) -> dict:
    """Cross-check the export in ``folder``; returns its metadata. Raises ExportMismatch."""
    folder = Path(folder)
    m = _load(folder, METADATA)
    check_metadata_fields(m)
    check_vocab(m, _load(folder, VOCAB))
    check_presets(_load(folder, PRESETS))
    for kind in m["order"]:
        check_model(folder, m, kind)
    return m
