"""The check behind m.compare's named form: a comparison word must compare the
sentence's subject with the other value, not the other way round.

m.compare(subject=S, than=T, ...) renders the word for how S stands to T. A
sentence that states a number just before the word ("+1.281 nats, less than
the single costs added up (0.904)") makes that number its subject; when that
number is T's, the word compares the wrong way round and the build stops.
"Just before" means: the last printed value in the same sentence (a sentence
ends at . ! ? ; before a space, or at a paragraph, list item, cell or line
break), before the word."""

from __future__ import annotations

import re
from html import unescape

CMP = re.compile(r'<span class="cmp"[^>]*?data-subject="([^"]*)" data-than="([^"]*)"[^>]*>([^<]*)</span>')
VALUE = re.compile(r'<span class="v" data-source="([^"]*)"[^>]*>[^<]*</span>')
BREAK = re.compile(r"<(?:p|li|td|th|div|br|h[1-6]|caption|figcaption|ul|ol|table)\b[^>]*>|</(?:p|li|td|th|div)>")
TAG = re.compile(r"<[^>]+>")
SENTENCE_END = re.compile(r"[.!?;](?:\s|$)")


class ComparisonError(ValueError):
    def __init__(self, message: str, subject: str):
        super().__init__(message)
        self.subject = subject


def value_before(html: str, end: int) -> str | None:
    """The source of the last value printed in the sentence that runs up to ``end``."""
    before = html[:end]
    cut = max((m.end() for m in BREAK.finditer(before)), default=0)
    segment, last, pos = before[cut:], None, 0
    for m in VALUE.finditer(segment):
        if SENTENCE_END.search(unescape(TAG.sub("", segment[pos : m.start()]))):
            last = None
        last, pos = m.group(1), m.end()
    if SENTENCE_END.search(unescape(TAG.sub("", segment[pos:]))):
        return None
    return last


def check(html: str) -> None:
    """Raise ComparisonError at the first named comparison whose sentence states
    the ``than`` value just before the word."""
    for m in CMP.finditer(html):
        subject, than, word = m.group(1), m.group(2), m.group(3)
        if value_before(html, m.start()) == than:
            raise ComparisonError(
                f"m.compare: the sentence states {than} just before “{word}”, so that value is the "
                f"sentence's subject, but m.compare has it as `than` (the word says how {subject} "
                f"stands to {than}): swap subject= and than=, and choose the words for the new order",
                subject,
            )
