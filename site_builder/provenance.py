"""Where every number printed on a page comes from.

The deck's tables reach Jinja tracked (values.track): every int, float and list
read from ``data`` knows its JSON path. Printing one (``{{ data.t.n }}``,
``m.num``, ``m.len``, ``m.ids``) records (path, digits, kind, text) here and
leaves a marker in the text: ``\\ue000<n>\\ue001``, two private-use characters
around the record's index, which no deck text contains and which Markdown
leaves alone. ``resolve_markers`` turns each marker into
``<span class="v" data-source=...>`` in HTML (the bare text inside a tag's
attribute) and ``\\htmlData{source=...}`` in TeX, so the site tests compare
every printed number with its JSON value. A number with no path (typed, or
computed in Jinja) stops the build.

A string printed from a table (a story) is text, not markup: a ``$`` in it
prints as a dollar sign instead of opening math.

``compare`` is ``m.compare``: the direction word for two table values,
computed from them, in a ``<span class="cmp">`` that names both paths and,
in the named form, which one is the sentence's subject.
"""

from __future__ import annotations

import re

import jinja2
from markupsafe import Markup, escape

from .values import TFloat, TInt, TList, fmt, is_plain_number, resolve, source_of

MARKER = re.compile("\ue000(\\d+)\ue001")
# m.compare's words: the first word of `less` must say "smaller", of `more` "larger",
# so swapping them (a deck that says four heads "raise" a smaller perplexity) stops the build
LESS_WORDS = {
    "lower",
    "lowers",
    "smaller",
    "fewer",
    "less",
    "shorter",
    "below",
    "under",
    "cuts",
    "reduces",
    "drops",
    "falls",
    "decreases",
}
MORE_WORDS = {
    "higher",
    "raises",
    "raise",
    "larger",
    "more",
    "greater",
    "longer",
    "above",
    "over",
    "increases",
    "grows",
    "rises",
}


class Provenance:
    """The values one page printed. ``start`` begins a page with its tracked tables."""

    def __init__(self):
        self.data: dict = {}
        self.printed: list[tuple[str, str, str, str]] = []  # (source, digits, kind, text) per marker

    def start(self, data: dict) -> None:
        self.data, self.printed = data, []

    def _marker(self, source: str, digits, kind: str, text: str) -> Markup:
        self.printed.append((source, str(digits), kind, text))
        return Markup(f"\ue000{len(self.printed) - 1}\ue001")

    def sourced(self, x, digits=4, kind="num") -> Markup:
        """A value (source string or tracked value) printed with its path: m.num,
        m.ids, m.shape, m.len. An untracked number has no path and stops the build."""
        value, source = resolve(self.data, x)
        if source is None:
            raise ValueError(
                f"a value with no table path was printed ({value!r}): pass a source string "
                f"'TABLE.key' or a value read from `data`, never a typed or Jinja-computed number "
                f"(compute it in export/tables)"
            )
        if kind == "len":
            return self._marker(source, "len", "len", fmt(len(value)))
        if kind == "abs":  # the size of a signed value, when a word (m.compare) already says its direction
            return self._marker(source, digits, "abs", fmt(abs(value), digits))
        if kind == "name":  # a number that names something (a random seed: seed 2017), never grouped
            return self._marker(source, 0, "name", fmt(value, 0, group=False))
        return self._marker(source, digits, kind, fmt(value, digits))

    def compare(self, a=None, b=None, less=None, more=None, same=None, subject=None, than=None) -> Markup:
        """The word for how the sentence's subject stands to the value it is
        compared with: ``less`` when subject < than, ``more`` when subject > than,
        ``same`` when equal. Both values need a table path.

        Name the subject: ``m.compare(subject='t.four', than='t.one', less='lower',
        more='higher')``. The span then carries data-subject and data-than, and
        site_builder/comparisons.py stops the build when the value a sentence
        states just before the word is the ``than`` value (the sentence compares
        the other way round). The old positional form ``m.compare(a, b, ...)``
        (a is the subject) still renders, without that check."""
        named = subject is not None or than is not None
        if named:
            if subject is None or than is None or a is not None or b is not None:
                raise ValueError("m.compare: name both values, subject= and than= (and no positional values)")
            a, b = subject, than
        if a is None or b is None or less is None or more is None:
            raise ValueError("m.compare needs subject=, than=, less= and more=")
        va, sa = resolve(self.data, a)
        vb, sb = resolve(self.data, b)
        if sa is None or sb is None or not is_plain_number(va) or not is_plain_number(vb):
            raise ValueError(f"m.compare needs two numbers read from tables (got {a!r}, {b!r})")
        for word, allowed, side in ((less, LESS_WORDS, "subject < than"), (more, MORE_WORDS, "subject > than")):
            if word.split()[0].lower() not in allowed:
                raise ValueError(
                    f"m.compare: {word!r} is not a word for {side} (use one of "
                    f"{', '.join(sorted(allowed))}); the words say how the subject stands to `than`"
                )
        if va == vb and same is None:
            raise ValueError(f"m.compare: {sa} equals {sb} and no word for 'same' was given")
        word = less if va < vb else more if va > vb else same
        words = "|".join([less, more, same or ""])
        named_attrs = f' data-subject="{escape(sa)}" data-than="{escape(sb)}"' if named else ""
        return Markup(
            f'<span class="cmp" data-a="{escape(sa)}" data-b="{escape(sb)}"{named_attrs} '
            f'data-words="{escape(words)}">{escape(word)}</span>'
        )

    @jinja2.pass_context
    def finalize(self, ctx, value):
        """Jinja's finalize for deck bodies: ``{{ value }}`` of a tracked int or
        list of numbers prints with its path; a float (whose decimals m.num fixes)
        or an untracked number stops the build."""
        if ctx.name == "macros.j2":
            return value
        if isinstance(value, (TInt, TFloat)):
            if isinstance(value, TFloat):
                raise ValueError(
                    f"{source_of(value)}: print a float with m.num(value, digits), which fixes its decimals"
                )
            return self._marker(source_of(value), 0, "num", fmt(value))
        if isinstance(value, TList) and all(is_plain_number(v) for v in value):
            return self._marker(source_of(value), 4, "list", fmt(value))
        if is_plain_number(value):
            raise ValueError(
                f"the number {value!r} has no table path (typed or computed in Jinja): print values "
                f"read from `data` or with m.num('TABLE.key'); compute derived numbers in export/tables"
            )
        if isinstance(value, str) and not isinstance(value, Markup) and "$" in value:
            # text from a table (a story) is data, never math: its $ prints as a dollar sign
            return Markup(str(escape(value)).replace("$", "&#36;"))
        return value

    def resolve_markers(self, text: str, tex: bool = False) -> str:
        """Markers -> spans naming their path (``tex``: \\htmlData for KaTeX)."""

        def sub(m):
            source, digits, kind, txt = self.printed[int(m.group(1))]
            if tex:  # a thousands comma as {,}: TeX spaces a bare comma as punctuation ("4, 000")
                num = txt if kind == "list" else txt.replace(",", "{,}")
                return f"\\htmlData{{source={source}, digits={digits}, kind={kind}}}{{{num}}}"
            start = m.start()
            if text.rfind("<", 0, start) > text.rfind(">", 0, start):  # inside a tag: an attribute value
                return txt
            return (
                f'<span class="v" data-source="{escape(source)}" data-digits="{digits}" '
                f'data-kind="{kind}">{escape(txt)}</span>'
            )

        return MARKER.sub(sub, text)
