"""Tables for the results deck (one head and four heads): the perplexity toy,
the measured runs and charts, one prompt's four attention rows, model sizes
and the browser timings."""

from __future__ import annotations

import math
from pathlib import Path

from ._results_inputs import Inputs, missing
from ._results_machine import benchmark, sizes
from ._results_measured import charts, run_table, summary
from ._results_model import attention_rows
from ._results_protocol import protocol, worked_sd

TOY_PROBABILITIES = (0.5, 0.25, 0.125)


def perplexity_toy(probabilities=TOY_PROBABILITIES) -> dict:
    losses = [-math.log(p) for p in probabilities]
    cross_entropy = sum(losses) / len(losses)
    geometric_mean = math.prod(probabilities) ** (1 / len(probabilities))
    return {
        "probabilities": list(probabilities),
        "losses": losses,
        "cross_entropy": cross_entropy,
        "perplexity": math.exp(cross_entropy),
        "geometric_mean_probability": geometric_mean,
        "reciprocal_geometric_mean": 1 / geometric_mean,
        "rows": [[i + 1, p, l] for i, (p, l) in enumerate(zip(probabilities, losses))],
        "header": ["target", "p(target)", "loss −ln p"],
        "uniform": uniform_toy(),
    }


def uniform_toy(n: int = 4, targets: int = 4) -> dict:
    """Every observed target gets probability 1/n: each loss is ln n, and the
    perplexity is exactly n."""
    p = 1 / n
    losses = [-math.log(p)] * targets
    ce = sum(losses) / targets
    return {
        "n": n,
        "targets": targets,
        "probability": p,
        "loss": losses[0],
        "cross_entropy": ce,
        "perplexity": math.exp(ce),
    }


def compute(
    models_dir: Path | None = None, export_dir: Path | None = None, bench_path: Path | None = None
) -> dict[str, object]:
    inputs = Inputs()
    if models_dir is not None:
        inputs.models_dir = Path(models_dir)
    if export_dir is not None:
        inputs.export_dir = Path(export_dir)
    if bench_path is not None:
        inputs.bench_path = Path(bench_path)
    results, audit = inputs.results(), inputs.audit()
    if results is None or not results.get("runs"):
        gone = missing(inputs.folder.results)
        measured = {"results_summary": gone, "results_runs": gone, "results_charts": gone}
    else:
        s = summary(results, audit)
        measured = {
            "results_summary": s,
            "results_runs": run_table(results, audit),
            "results_charts": charts(results, s),
        }
    return {
        "results_perplexity_toy": perplexity_toy(),
        **measured,
        "results_attention": attention_rows(inputs),
        "results_sizes": sizes(inputs, results),
        "results_bench": benchmark(inputs),
        "results_protocol": protocol(results, audit),
        "results_worked": worked_sd(results),
    }
