"""Predictions on the slides (issue 34 item 2): `m.predict(...)` asks the learner
to guess before the slide's widget or figure answers, and holds the answer,
computed from the deck's tables at build time.

    m.predict('bank-top', 'Which word will “bank” weight most?',
              choices='part2_bank.cheque.tokens', values='part2_bank.cheque.weights',
              measure='weight')

``pick`` says which choice is right: "max" (the choice whose value is largest,
one value per choice), "min" (smallest), or "change" (two values, before and
after, and two choices: the first right when the value rises, the second when
it falls; ``labels`` names the two moments). A tie, a missing value or choices
that do not match the values stop the build.

The box is one block: the question, the choices as text, an empty widget
element (web/widgets/prediction.js turns it into buttons, in place of the
choices' line, and hides the answer until a pick or a skip), then the answer in a closed
<details>: the right choice and every value, each printed with its table path
(provenance: span.v data-source), so the site tests check them against the
JSON. Without JavaScript, and in the reading view, the question comes first and
the answer is folded beneath it; exercise.css unfolds it in print and ?print-pdf.
"""

from __future__ import annotations

import json
import re

from markupsafe import Markup, escape

from .values import is_plain_number, resolve, source_of

ID = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")
PICKS = ("max", "min", "change")


def _listed(data: dict, x, what: str) -> tuple[list, list]:
    """A list given as a source string, a tracked list or a list of items ->
    (values, sources), one source per item (None for a plain string)."""
    if isinstance(x, str):
        value, source = resolve(data, x)
        if not isinstance(value, list):
            raise ValueError(f"m.predict: {what} {x!r} is not a list")
        return list(value), [f"{source}.{i}" for i in range(len(value))]
    if isinstance(x, (list, tuple)):
        source = source_of(x)
        if source is not None:
            return list(x), [f"{source}.{i}" for i in range(len(x))]
        out = [
            resolve(data, item) if isinstance(item, str) and what == "values" else (item, source_of(item)) for item in x
        ]
        return [v for v, _ in out], [s for _, s in out]
    raise ValueError(f"m.predict: {what} must be a list or a source string 'TABLE.key' (got {x!r})")


def correct_choice(values: list[float], pick: str) -> int:
    """The index of the right choice (see the module's docstring)."""
    if pick == "change":
        before, after = values
        if before == after:
            raise ValueError("m.predict: the value does not change, so neither choice is right")
        return 0 if after > before else 1
    best = max(values) if pick == "max" else min(values)
    if values.count(best) != 1:
        raise ValueError(f"m.predict: two choices share the {pick} value {best!r}; no single answer")
    return values.index(best)


def prediction_box(
    provenance,
    ident: str,
    question: str,
    choices,
    values,
    pick: str = "max",
    measure: str = "",
    digits: int = 3,
    labels=None,
    note: str | None = None,
) -> Markup:
    data = provenance.data
    if not ID.match(ident or ""):
        raise ValueError(f'm.predict: the id {ident!r} needs a-z, 0-9 and "-"')
    if pick not in PICKS:
        raise ValueError(f"m.predict: pick={pick!r} is not one of {', '.join(PICKS)}")
    names, _ = _listed(data, choices, "choices")
    nums, sources = _listed(data, values, "values")
    if not all(isinstance(n, str) and n for n in names):
        raise ValueError(f"m.predict {ident}: every choice is a word (got {names!r})")
    if len(set(names)) != len(names):
        raise ValueError(f"m.predict {ident}: two choices read the same ({names!r})")
    if not all(is_plain_number(n) for n in nums) or None in sources:
        raise ValueError(
            f"m.predict {ident}: every value is a number read from a table (source strings 'TABLE.key'), got {nums!r}"
        )
    if pick == "change":
        if len(nums) != 2 or len(names) != 2:
            raise ValueError(f"m.predict {ident}: pick='change' takes two values (before, after) and two choices")
        if labels is None or len(labels) != 2:
            raise ValueError(f"m.predict {ident}: pick='change' needs labels=[before, after]")
    elif len(names) != len(nums) or len(names) < 2:
        raise ValueError(f"m.predict {ident}: {len(names)} choices but {len(nums)} values (one value per choice)")
    right = correct_choice(list(nums), pick)
    shown = [provenance.sourced(s, digits) for s in sources]
    noun = f"{escape(measure)} " if measure else ""
    if pick == "change":
        result = (
            f"<strong>{escape(names[right])}</strong>: {noun}{shown[0]} ({escape(labels[0])}) → "
            f"{shown[1]} ({escape(labels[1])})."
        )
        rest = ""
    else:
        result = f"<strong>{escape(names[right])}</strong>, {noun}{shown[right]}."
        items = " · ".join(f'<span data-choice="{i}">{escape(n)} {shown[i]}</span>' for i, n in enumerate(names))
        rest = f'<p class="pr-values">Every choice: {items}</p>'
    options = ", ".join(escape(n) for n in names[:-1]) + f" or {escape(names[-1])}"
    qid = f"pr-{ident}-q"
    html = (
        f'<div class="prediction" id="pr-{ident}" data-prediction="{ident}" data-pick="{pick}" '
        f'data-correct="{right}" data-choices="{escape(json.dumps(names, ensure_ascii=False))}" '
        f'data-values="{escape(json.dumps(sources))}" data-digits="{digits}" role="group" aria-labelledby="{qid}">'
        f'<p class="pr-ask" id="{qid}"><span class="pr-kind">Predict</span> · {escape(question)}</p>'
        f'<p class="pr-options">Choose: {options}.</p>'
        f'<div class="widget pr-pick" data-widget="prediction"></div>'
        f'<details class="pr-answer" data-prediction-answer><summary>Answer</summary>'
        f'<p class="pr-result">{result}</p>{rest}'
        + (f'<p class="pr-note">{escape(note)}</p>' if note else "")
        + "</details></div>"
    )
    return Markup(html)
