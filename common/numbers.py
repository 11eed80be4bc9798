"""How the course writes a number, in one place (content/notation.toml): digits
grouped with a comma from 1,000 on, ints and floats alike (4,000; 5,250;
2,224.5), a float with fixed decimals, a true minus sign (−) and no sign on a
zero. The site's formatter (site_builder/values.fmt) and the figures' cell
text (export/tables/kit/cells.number) both write numbers with ``written``."""

from __future__ import annotations


def written(value: int | float, digits: int = 0, group: bool = True) -> str:
    """An int as it is, a float with ``digits`` decimals; grouped from 1,000 on
    unless ``group`` is False (a list of IDs or a shape: [2, 4000])."""
    comma = "," if group else ""
    text = f"{value:{comma}d}" if isinstance(value, int) else f"{value:{comma}.{digits}f}"
    if set(text) <= set("-0.,"):
        text = text.lstrip("-")
    return text.replace("-", "−")
