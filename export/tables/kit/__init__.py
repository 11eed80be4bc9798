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
- ``numbers``: how small numbers are written on slides.
"""
