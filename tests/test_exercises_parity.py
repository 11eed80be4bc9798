"""The exercises' arithmetic, written twice (JavaScript in web/core/exercises*.js,
the Python reference in export/exercises.py), gives the same answers on the
same inputs: on the numbers the browser draws (many seeds per exercise) and on
wider random inputs drawn here. Also: every exercise exists on all three sides
(the JS twin, the Python reference, content/exercises.toml) and sits exactly
once in its deck."""

from __future__ import annotations

import json
import math
import random
import re
import shutil
import subprocess
import tomllib
from pathlib import Path

import pytest

from export.exercises import ANSWERS, answer

ROOT = Path(__file__).resolve().parent.parent
NODE = shutil.which("node")
SEEDS = list(range(150)) + [2**32 - 1, 123456789]
RANDOM_PER_KIND = 100
DECKS = ("maps", "part2", "part3", "results")


def run_node(request: dict, tmp_path: Path) -> dict:
    assert NODE, "Node.js is required for the JavaScript side of these tests"
    fixture = tmp_path / "exercises_request.json"
    fixture.write_text(json.dumps(request), encoding="utf-8")
    with fixture.open(encoding="utf-8") as stdin:
        proc = subprocess.run(
            [NODE, "--no-warnings", str(ROOT / "tests" / "js" / "exercises_node.mjs")],
            stdin=stdin,
            capture_output=True,
            text=True,
            encoding="utf-8",
            timeout=120,
        )
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def u(rng: random.Random, lo: float, hi: float) -> float:
    return rng.uniform(lo, hi)


def vec(rng: random.Random, n: int, lo: float, hi: float) -> list[float]:
    return [rng.uniform(lo, hi) for _ in range(n)]


def wide_inputs(exercise_id: str, rng: random.Random) -> dict:
    """Inputs beyond what the browser draws: more decimals, wider ranges, other sizes."""
    n = rng.randint(2, 8)
    if exercise_id == "story-ids":
        return {"tokens": [rng.randint(1, 40) for _ in range(rng.randint(1, 8))]}
    if exercise_id == "windows-count":
        return {"tokens": [rng.randint(0, 200) for _ in range(rng.randint(1, 8))]}
    if exercise_id == "mlp-hidden-params":
        return {"w": rng.randint(1, 16), "d": rng.randint(1, 32), "h": rng.randint(1, 128)}
    if exercise_id in ("score-scaling", "video-score"):
        m = rng.randint(1, 8)
        return {"q": vec(rng, m, -5, 5), "k": vec(rng, m, -5, 5)}
    if exercise_id == "softmax-weight":
        slot = rng.randrange(n)
        scores = [None if i != slot and rng.random() < 0.3 else u(rng, -6, 6) for i in range(n)]
        return {"scores": scores, "slot": slot}
    if exercise_id == "message-coordinate":
        w = vec(rng, n, 0.01, 1)
        return {"weights": [x / sum(w) for x in w], "values": vec(rng, n, -5, 5)}
    if exercise_id in ("cross-entropy", "perplexity"):
        return {"p": vec(rng, rng.randint(1, 6), 0.001, 0.999)}
    if exercise_id == "sgd-step":
        return {"w": u(rng, -3, 3), "grad": u(rng, -2, 2), "lr": u(rng, 0.001, 1)}
    if exercise_id == "retrieval-temperature":
        return {"scores": vec(rng, n, -3, 5), "T": u(rng, 0.1, 10)}
    if exercise_id == "scaled-softmax":
        return {"raw": vec(rng, n, -3, 6), "d_k": rng.randint(1, 64), "source": rng.randint(1, n)}
    if exercise_id == "residual-update":
        return {
            "e": vec(rng, 4, -3, 3),
            "m": vec(rng, 2, -3, 3),
            "W_O": [vec(rng, 4, -2, 2), vec(rng, 4, -2, 2)],
            "coordinate": rng.randint(1, 4),
        }
    if exercise_id == "causal-mask":
        return {"T": rng.randint(1, 64)}
    if exercise_id == "relu-unit":
        return {"x": vec(rng, n, -3, 3), "w": vec(rng, n, -3, 3), "b": u(rng, -2, 2)}
    if exercise_id == "head-split":
        heads = rng.choice([1, 2, 3, 4, 6, 8])
        return {"B": rng.randint(1, 4), "T": rng.randint(1, 32), "D": heads * rng.randint(1, 16), "heads": heads}
    if exercise_id == "allowed-sources":
        T = rng.randint(2, 32)
        real = rng.randint(1, T)
        return {"T": T, "real": real, "query": rng.randint(1, real)}
    if exercise_id == "never-drawn":
        return {"N": rng.randint(2, 5000), "n": rng.randint(0, 20000)}
    if exercise_id == "mean-sd":
        return {"x": vec(rng, n, 1, 100)}
    if exercise_id == "attention-cost":
        heads = rng.randint(1, 8)
        return {"T": rng.randint(1, 256), "D": heads * rng.randint(1, 32), "heads": heads}
    if exercise_id == "head-width":
        heads = rng.randint(1, 16)
        return {"d": heads * rng.randint(1, 64), "heads": heads}
    if exercise_id == "projection-params":
        heads = rng.randint(1, 8)
        return {"d": heads * rng.randint(1, 16), "heads": heads}
    if exercise_id == "weights-count":
        return {"B": rng.randint(1, 4), "heads": rng.randint(1, 4), "T": rng.randint(1, 16)}
    if exercise_id == "perplexity-from-loss":
        return {"loss": u(rng, 0, 8)}
    if exercise_id == "reduction-percent":
        base = u(rng, 1, 100)
        return {"one_head": base, "four_heads": u(rng, 0.5, base)}
    if exercise_id == "attention-step":
        m = rng.randint(1, 6)
        return {"q": vec(rng, m, -3, 3), "keys": [vec(rng, m, -3, 3) for _ in range(n)], "values": vec(rng, n, -5, 5)}
    if exercise_id == "pad-masked-weight":
        m, pad = rng.randint(1, 6), rng.randint(1, n - 1)
        keys = [vec(rng, m, -3, 3) for _ in range(n)]
        return {"q": vec(rng, m, -3, 3), "keys": keys, "pad": pad, "slot": rng.randint(pad + 1, n)}
    if exercise_id == "masked-row":
        query = rng.randint(1, n)
        return {"scores": vec(rng, n, -6, 6), "query": query, "source": rng.randint(1, query)}
    if exercise_id == "query-projection":
        width = rng.randint(1, 8)
        return {"e": vec(rng, width, -3, 3), "W_Q": [vec(rng, 2, -3, 3) for _ in range(width)], "k": vec(rng, 2, -3, 3)}
    if exercise_id == "two-heads":
        return {
            "scores": [vec(rng, n, -5, 5), vec(rng, n, -5, 5)],
            "values": [vec(rng, n, -3, 3), vec(rng, n, -3, 3)],
            "W_O": vec(rng, 2, -2, 2),
        }
    if exercise_id in ("top-k-renormalised", "top-p-renormalised"):
        w = vec(rng, n, 0.01, 1)
        p = [x / sum(w) for x in w]
        if exercise_id == "top-p-renormalised":
            return {"p": p, "top_p": u(rng, 0.05, 0.99)}
        ranked = sorted(range(n), key=lambda i: -p[i])
        return {"p": p, "token": ranked[rng.randint(0, 1)] + 1}
    if exercise_id == "ablation-interaction":
        on = u(rng, 1, 6)
        return {"on": on, "off": [on + u(rng, -0.1, 1) for _ in range(4)], "all_off": on + u(rng, -0.5, 3)}
    if exercise_id == "paired-gain":
        one = u(rng, 1, 6)
        return {"one_head": one, "four_heads": one - u(rng, -0.5, 1)}
    if exercise_id == "costliest-head":
        on = u(rng, 0.5, 5)
        return {"on": on, "off": [on + u(rng, -0.1, 1) for _ in range(rng.randint(2, 8))]}
    raise AssertionError(f"no wide inputs for {exercise_id}")


def same(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)


@pytest.fixture(scope="module")
def node_side(tmp_path_factory):
    rng = random.Random(24)
    wide = [{"id": i, "inputs": wide_inputs(i, rng)} for i in sorted(ANSWERS) for _ in range(RANDOM_PER_KIND)]
    request = {"draws": [{"id": i, "seeds": SEEDS} for i in sorted(ANSWERS)], "answers": wide}
    return wide, run_node(request, tmp_path_factory.mktemp("exercises"))


def test_every_exercise_is_in_the_twin_the_reference_the_catalog_and_once_in_its_deck(node_side):
    _, got = node_side
    catalog = tomllib.loads((ROOT / "content" / "exercises.toml").read_text(encoding="utf-8"))
    js_ids = [i for deck in DECKS for i in got["kinds"][deck]]
    assert sorted(js_ids) == sorted(ANSWERS) == sorted(catalog)
    for deck in DECKS:
        assert sorted(got["kinds"][deck]) == sorted(i for i in catalog if catalog[i]["deck"] == deck), deck
        assert len(got["kinds"][deck]) >= 5, deck
        text = (ROOT / "content" / "decks" / f"{deck}.md").read_text(encoding="utf-8")
        placed = re.findall(r"^\{\{ m\.exercise\('([a-z0-9-]+)'\) \}\}$", text, flags=re.M)
        assert sorted(placed) == sorted(got["kinds"][deck]), deck
    with pytest.raises(ValueError, match="unknown exercise"):
        answer("no-such-exercise", {})


def test_the_numbers_the_browser_draws_give_the_same_answers_in_python(node_side):
    _, got = node_side
    assert len(got["draws"]) == len(ANSWERS) * len(SEEDS)
    wrong = [
        (d["id"], d["seed"], d["inputs"], d["answer"], answer(d["id"], d["inputs"]))
        for d in got["draws"]
        if not same(d["answer"], answer(d["id"], d["inputs"]))
    ]
    assert not wrong, wrong[:5]
    # the draws are small readable numbers: at most two decimals in what is shown
    for d in got["draws"]:
        for x in json.dumps(d["inputs"]).replace("[", " ").replace("]", " ").replace(",", " ").split():
            if re.fullmatch(r"-?\d+\.\d+", x):
                assert len(x.split(".")[1]) <= 3, (d["id"], d["inputs"])


def test_wider_random_inputs_give_the_same_answers_in_javascript(node_side):
    wide, got = node_side
    assert len(got["answers"]) == len(wide)
    wrong = [
        (case["id"], case["inputs"], js, answer(case["id"], case["inputs"]))
        for case, js in zip(wide, got["answers"], strict=True)
        if js is None or not same(js, answer(case["id"], case["inputs"]))
    ]
    assert not wrong, wrong[:5]


def test_the_python_reference_by_hand():
    """A few answers worked by hand, independently of both implementations."""
    assert answer("story-ids", {"tokens": [5, 7, 4]}) == 18
    assert answer("windows-count", {"tokens": [0, 3, 10]}) == 16
    assert answer("allowed-sources", {"T": 8, "real": 5, "query": 3}) == 3
    assert answer("weights-count", {"B": 2, "heads": 4, "T": 4}) == 128
    assert answer("projection-params", {"d": 8, "heads": 2}) == 256
    assert math.isclose(answer("cross-entropy", {"p": [0.5, 0.25]}), 1.5 * math.log(2), rel_tol=1e-12)
    assert math.isclose(answer("softmax-weight", {"scores": [None, 0.0, 0.0, 0.0], "slot": 2}), 1 / 3, rel_tol=1e-12)
    assert math.isclose(answer("sgd-step", {"w": 0.5, "grad": 0.2, "lr": 0.1}), 0.48, rel_tol=1e-12)
    assert math.isclose(answer("never-drawn", {"N": 2, "n": 3}), 12.5, rel_tol=1e-12)
    # the multi-step ones (issue 34): equal scores share evenly; the mask leaves two sources of 0 and ln 3
    step = {"q": [1.0, 1.0], "keys": [[1.0, 0.0], [0.0, 1.0], [0.5, 0.5]], "values": [3.0, 6.0, 9.0]}
    assert math.isclose(answer("attention-step", step), 6.0, rel_tol=1e-12)
    padded = {"q": [2.0, 0.0], "keys": [[9.0, 9.0], [0.0, 1.0], [0.0, -1.0], [0.0, 2.0]], "pad": 1, "slot": 3}
    assert math.isclose(answer("pad-masked-weight", padded), 1 / 3, rel_tol=1e-12)
    row = {"scores": [0.0, math.log(3), 5.0, 7.0], "query": 2, "source": 2}
    assert math.isclose(answer("masked-row", row), 0.75, rel_tol=1e-12)
    projection = {"e": [1.0, 2.0, 0.0, 0.0], "W_Q": [[1, 0], [0, 1], [5, 5], [5, 5]], "k": [1.0, 1.0]}
    assert math.isclose(answer("query-projection", projection), 3 / math.sqrt(2), rel_tol=1e-12)
    heads = {"scores": [[0.0, 0.0], [0.0, 50.0]], "values": [[1.0, 3.0], [4.0, -2.0]], "W_O": [2.0, 1.0]}
    assert math.isclose(answer("two-heads", heads), 2.0, rel_tol=1e-9)
    probs = [0.1, 0.3, 0.05, 0.5, 0.05]
    assert math.isclose(answer("top-k-renormalised", {"p": probs, "token": 2}), 0.375, rel_tol=1e-12)
    assert math.isclose(answer("top-p-renormalised", {"p": probs, "top_p": 0.85}), 0.5 / 0.9, rel_tol=1e-12)
    ablation = {"on": 4.0, "off": [4.1, 4.2, 4.3, 4.4], "all_off": 5.5}
    assert math.isclose(answer("ablation-interaction", ablation), 0.5, rel_tol=1e-9)
    assert math.isclose(answer("paired-gain", {"one_head": 3.0, "four_heads": 3.0 - math.log(2)}), 50.0, rel_tol=1e-9)
    assert math.isclose(answer("costliest-head", {"on": 1.0, "off": [1.5, 2.0]}), math.e**2 - math.e, rel_tol=1e-12)
