"""The perplexity toy of the results deck: three target probabilities, their
losses, cross-entropy and perplexity, and the uniform case where perplexity
is exactly the number of choices (``results_perplexity_toy``)."""

from __future__ import annotations

import math

from ..kit.registry import table

TOY_PROBABILITIES = (0.5, 0.25, 0.125)


@table("results_perplexity_toy")
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
        "uniform": uniform_toy(targets=len(probabilities)),
    }


def uniform_toy(n: int = 4, targets: int = len(TOY_PROBABILITIES)) -> dict:
    """Every one of ``targets`` observed targets (as many as the toy table has)
    gets probability 1/n: each loss is ln n, and the perplexity is exactly n."""
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
