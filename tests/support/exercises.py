"""The exercise catalogue and what the exercise tests share: the seed the decks
are opened at, the page's own twin of each exercise kind (KIND), and how a
test answers an exercise (its rounding)."""

from __future__ import annotations

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CATALOG = tomllib.loads((ROOT / "content" / "exercises.toml").read_text(encoding="utf-8"))
IDS = sorted(CATALOG)
DECKS = sorted({e["deck"] for e in CATALOG.values()})
SEED = 7

# the kind's settings and its named mistakes for the numbers on the page, from the twin itself
KIND = """async ([id, inputs]) => {
  const m = await import(new URL('../core/exercises.js', location.href).href);
  const kind = m.kindOf(id);
  const slips = kind.mistakes.map((mk) => {
    const value = mk.value(inputs);
    if (value === null) return null;
    const typed = Number(value.toFixed(kind.digits));
    const verdict = m.judge(id, inputs, typed);
    return verdict.mistake === mk ? { name: mk.name, typed: value.toFixed(kind.digits), message: mk.message } : null;
  }).filter(Boolean);
  return { digits: kind.digits, percent: !!kind.percent, slips };
}"""


def box(page, exercise_id: str):
    """The exercise's <details> box."""
    return page.locator(f"details.exercise-box:has([data-exercise='{exercise_id}'])")


def rounded(value: float, digits: int) -> str:
    return f"{value:.{digits}f}"
