"""The shared kit of the tables, used by every deck package:

- ``registry``: ``@table(NAME, needs=[...])`` and ``@value``; computes each
  table once per run, dependencies first;
- ``sources``: ``Sources``, the run's inputs, each loaded once (models folder,
  export JSON, bench.json, the prepared course corpus); ``unavailable`` and
  ``file_absent`` for tables whose input does not exist yet;
- ``draw``: the one module that writes SVG markup (``Drawing``, ``Figure``,
  ``flow``, ``chart``); colours from common/palette.py;
- ``charts``: ticks, frames, axes and legends of the charts;
- ``heads``: the head figures Part III and the results deck share;
- ``cells``: vectors and small matrices as coloured cells, one colour ramp per meaning;
- ``scales``: the named, rounded colour scales, one per run of heatmaps (weights 0 to 1);
- ``table_cells``: a table's numeric columns drawn as cells (``table_figure``);
- ``bars``: the one bar module, where a distribution's shape is the point:
  horizontal bars with their values on one scale (``bars``: series side by
  side or grouped, highlighted and blocked rows, an axis) and rows of column
  bars over a sentence (``column_rows``);
- ``panels``: heatmaps, matrices of ``cells`` side by side under one legend;
- ``cell_panels``: several small matrices of cells side by side, one scale and
  one legend (``natural_size``: a figure never shown above its own size);
- ``tokens``: token IDs as cards, brackets under them, (window, target) rows;
- ``numbers``: how small numbers are written on slides.
"""
