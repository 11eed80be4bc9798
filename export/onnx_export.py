"""One checkpoint -> one FP32 ONNX file.

Input ``context_ids`` int64 [batch, 64] (dynamic batch). Outputs ``logits``
[batch, C] and, for the attention models, ``attention`` [batch, heads, 64]:
the final query's weights over the 64 slots. Like ``forward``, the graph
computes only the final query.
"""

from __future__ import annotations

import contextlib
import io
import logging
import warnings
from pathlib import Path

import numpy as np
import onnx
import torch

OPSET = 18
INPUT = "context_ids"


class FinalQuery(torch.nn.Module):
    """Wraps an attention model so that the graph returns logits and the final
    query's attention weights."""

    def __init__(self, model: torch.nn.Module):
        super().__init__()
        self.model = model

    def forward(self, context_ids: torch.Tensor):
        logits, weights = self.model.attend(context_ids)
        return logits, weights


def output_names(kind: str) -> list[str]:
    return ["logits"] if kind == "mlp" else ["logits", "attention"]


def export_onnx(model: torch.nn.Module, kind: str, path: Path) -> None:
    """Write ``model`` as a single self-contained ONNX file at ``path``."""
    model = model.eval()
    module = model if kind == "mlp" else FinalQuery(model)
    w = model.config["w"]
    example = torch.full((2, w), 4, dtype=torch.int64)
    example[0, : w // 2] = model.config["pad_id"]
    logging.getLogger("torch.onnx").setLevel(logging.ERROR)
    logging.getLogger("torch.export").setLevel(logging.ERROR)
    with warnings.catch_warnings(), contextlib.redirect_stdout(io.StringIO()):
        warnings.simplefilter("ignore")
        torch.onnx.export(module, (example,), str(path), input_names=[INPUT],
                          output_names=output_names(kind), opset_version=OPSET, dynamo=True,
                          external_data=False, dynamic_shapes=({0: torch.export.Dim("batch")},))
    proto = onnx.load(str(path))
    onnx.checker.check_model(proto)
    _check_interface(proto, kind, model.config)


def _check_interface(proto: onnx.ModelProto, kind: str, config: dict) -> None:
    def dims(value):
        return [d.dim_param or d.dim_value for d in value.type.tensor_type.shape.dim]

    inputs = {v.name: v for v in proto.graph.input}
    outputs = {v.name: v for v in proto.graph.output}
    assert list(inputs) == [INPUT], f"{kind}: unexpected inputs {list(inputs)}"
    assert inputs[INPUT].type.tensor_type.elem_type == onnx.TensorProto.INT64
    assert dims(inputs[INPUT])[1] == config["w"], f"{kind}: context width {dims(inputs[INPUT])}"
    assert list(outputs) == output_names(kind), f"{kind}: unexpected outputs {list(outputs)}"
    assert isinstance(dims(inputs[INPUT])[0], str), f"{kind}: batch dimension is not dynamic"
    assert dims(outputs["logits"])[1] == config["C"]
    if kind != "mlp":
        assert dims(outputs["attention"])[1:] == [config["n_heads"], config["w"]]


def ort_session(path: Path):
    import onnxruntime as ort
    options = ort.SessionOptions()
    options.log_severity_level = 3
    return ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])


def ort_run(session, contexts: np.ndarray) -> dict[str, np.ndarray]:
    names = [o.name for o in session.get_outputs()]
    values = session.run(names, {INPUT: np.asarray(contexts, dtype=np.int64)})
    return dict(zip(names, values))
