"""One checkpoint -> one FP32 ONNX file.

Input ``context_ids`` int64 [batch, 64] (dynamic batch). Outputs ``logits``
[batch, C] and, for the attention models, ``attention`` [batch, heads, 64]:
the final query's weights over the 64 slots, and ``attention_matrix``
[batch, heads, 64, 64]: every query row of the causal attention, future and
PAD keys masked, a PAD query's row all zero (the rows of ``forward_details``).
The logits come from the final query only, as in ``forward``; the lab asks
for ``attention_matrix`` only when it draws the full matrix.

Each attention model also gets a second graph, ``<kind>.heads.onnx``, that
the lab fetches only when a learner first switches a head off: the same
outputs and one more input, ``head_mask`` float32 [batch, heads] (1 = on,
0 = off: that head's message is zero before W_O). With every head on its
outputs are bit-identical to the first graph's (the export checks it), so the
first graph, and every number measured on it, stays as it was. Hidden words
need no graph of their own: the lab feeds their slots as PAD, which masks
them as keys exactly like PAD (export/ablation.py).
"""

from __future__ import annotations

import contextlib
import io
import logging
import math
import warnings
from pathlib import Path

import numpy as np
import onnx
import torch

OPSET = 18
INPUT = "context_ids"
HEAD_MASK = "head_mask"


def causal_matrix(model: torch.nn.Module, ids: torch.Tensor) -> torch.Tensor:
    """The weights of ``forward_details`` without its per-row logits:
    [B, heads, T, T], future and PAD keys masked, PAD query rows all zero."""
    B, T = ids.shape
    E = model.embed(ids)
    Q = model.split_heads(model.W_Q(E), model.d_k)
    K = model.split_heads(model.W_K(E), model.d_k)
    scores = Q @ K.transpose(-2, -1) / math.sqrt(model.d_k)
    future = torch.ones(T, T, dtype=torch.bool, device=ids.device).triu(1)
    blocked = future[None, None] | ids.eq(model.pad_id)[:, None, None, :]
    pad_row = ids.eq(model.pad_id)[:, None, :, None]
    masked = scores.masked_fill(blocked, float("-inf"))
    return masked.masked_fill(pad_row, 0.0).softmax(-1).masked_fill(pad_row, 0.0)


class FinalQuery(torch.nn.Module):
    """Wraps an attention model so that the graph returns logits, the final
    query's attention weights and the full causal attention matrix."""

    def __init__(self, model: torch.nn.Module):
        super().__init__()
        self.model = model

    def forward(self, context_ids: torch.Tensor):
        logits, weights = self.model.attend(context_ids)
        return logits, weights, causal_matrix(self.model, context_ids)


class HeadSwitch(FinalQuery):
    """FinalQuery with a head mask: a switched-off head's message is zero
    before W_O. An on head is multiplied by exactly 1, so with every head on
    the outputs are those of FinalQuery, bit for bit."""

    def forward(self, context_ids: torch.Tensor, head_mask: torch.Tensor):
        m = self.model
        E = m.embed(context_ids)
        q = m.split_heads(m.W_Q(E[:, -1:]), m.d_k)
        K = m.split_heads(m.W_K(E), m.d_k)
        V = m.split_heads(m.W_V(E), m.d_v)
        scores = q @ K.transpose(-2, -1) / math.sqrt(m.d_k)
        pad = context_ids.eq(m.pad_id)[:, None, None, :]
        A = scores.masked_fill(pad, float("-inf")).softmax(-1)
        heads = (A @ V) * head_mask[:, :, None, None]
        message = heads.transpose(1, 2).flatten(start_dim=2)
        final = E[:, -1] + m.W_O(message)[:, 0]
        logits = m.vocab_head(torch.relu(m.hidden_layer(final)))
        return logits, A[:, :, 0], causal_matrix(m, context_ids)


def heads_file(kind: str) -> str:
    """The file name of an attention model's head-switch graph."""
    return f"{kind}.heads.onnx"


STACK_TRACE = "pkg.torch.onnx.stack_trace"


def output_names(kind: str) -> list[str]:
    return ["logits"] if kind == "mlp" else ["logits", "attention", "attention_matrix"]


def export_onnx(model: torch.nn.Module, kind: str, path: Path, heads: bool = False) -> None:
    """Write ``model`` as a single self-contained ONNX file at ``path``; with
    ``heads``, an attention model's head-switch graph (input ``head_mask`` too)."""
    model = model.eval()
    module = model if kind == "mlp" else HeadSwitch(model) if heads else FinalQuery(model)
    w = model.config.w
    example = torch.full((2, w), 4, dtype=torch.int64)
    example[0, : w // 2] = model.config.pad_id
    args, names, dynamic = (example,), [INPUT], ({0: torch.export.Dim("batch")},)
    if heads:
        batch = torch.export.Dim("batch")
        args = (example, torch.ones(2, model.config.n_heads))
        names, dynamic = [INPUT, HEAD_MASK], ({0: batch}, {0: batch})
    logging.getLogger("torch.onnx").setLevel(logging.ERROR)
    logging.getLogger("torch.export").setLevel(logging.ERROR)
    with warnings.catch_warnings(), contextlib.redirect_stdout(io.StringIO()):
        warnings.simplefilter("ignore")
        torch.onnx.export(
            module,
            args,
            str(path),
            input_names=names,
            output_names=output_names(kind),
            opset_version=OPSET,
            dynamo=True,
            external_data=False,
            dynamic_shapes=dynamic,
        )
    proto = onnx.load(str(path))
    _drop_stack_traces(proto)
    onnx.save(proto, str(path))
    onnx.checker.check_model(proto)
    _check_interface(proto, kind, model.config, names)


def _drop_stack_traces(proto: onnx.ModelProto) -> None:
    """Remove the exporter's per-node Python stack traces: they hold absolute
    source paths and line numbers, so the file's bytes (and the sizes the
    slides quote) would change with the checkout's location and any edit."""
    for node in proto.graph.node:
        kept = [p for p in node.metadata_props if p.key != STACK_TRACE]
        del node.metadata_props[:]
        node.metadata_props.extend(kept)


def _check_interface(proto: onnx.ModelProto, kind: str, config, names: list[str]) -> None:
    def dims(value):
        return [d.dim_param or d.dim_value for d in value.type.tensor_type.shape.dim]

    inputs = {v.name: v for v in proto.graph.input}
    outputs = {v.name: v for v in proto.graph.output}
    assert list(inputs) == names, f"{kind}: unexpected inputs {list(inputs)}"
    assert inputs[INPUT].type.tensor_type.elem_type == onnx.TensorProto.INT64
    assert dims(inputs[INPUT])[1] == config.w, f"{kind}: context width {dims(inputs[INPUT])}"
    assert list(outputs) == output_names(kind), f"{kind}: unexpected outputs {list(outputs)}"
    assert isinstance(dims(inputs[INPUT])[0], str), f"{kind}: batch dimension is not dynamic"
    assert dims(outputs["logits"])[1] == config.C
    if kind != "mlp":
        assert dims(outputs["attention"])[1:] == [config.n_heads, config.w]
        assert dims(outputs["attention_matrix"])[1:] == [config.n_heads, config.w, config.w]
    if HEAD_MASK in inputs:
        assert inputs[HEAD_MASK].type.tensor_type.elem_type == onnx.TensorProto.FLOAT
        assert dims(inputs[HEAD_MASK])[1:] == [config.n_heads], f"{kind}: head mask {dims(inputs[HEAD_MASK])}"


def ort_session(path: Path):
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.log_severity_level = 3
    return ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])


def ort_run(session, contexts: np.ndarray, names: list[str] | None = None, mask=None) -> dict[str, np.ndarray]:
    """Run a graph on a batch of contexts; ``mask`` [batch, heads] feeds a head-switch graph's head_mask."""
    names = names or [o.name for o in session.get_outputs()]
    feeds = {INPUT: np.asarray(contexts, dtype=np.int64)}
    if mask is not None:
        feeds[HEAD_MASK] = np.asarray(mask, dtype=np.float32)
    values = session.run(names, feeds)
    return dict(zip(names, values))
