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
- ``cells``: vectors and small matrices as coloured cells, one scale per meaning;
- ``table_cells``: a table's numeric columns drawn as cells (``table_figure``);
- ``bars``: grouped horizontal bars (``hbars``) and rows of column bars over a
  sentence (``column_rows``), where a distribution's shape is the point;
- ``panels``: heatmaps, matrices of ``cells`` side by side under one legend;
- ``cell_panels``: several small matrices of cells side by side, one scale and
  one legend (``natural_size``: a figure never shown above its own size);
- ``bar_panels``: horizontal bars with their values, one panel per series;
- ``bar_rows``: a distribution as horizontal bars, one row per label;
- ``tokens``: token IDs as cards, brackets under them, (window, target) rows;
- ``numbers``: how small numbers are written on slides.
"""
