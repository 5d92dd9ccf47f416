"""Doctests of modules that need an optional extra are left out when the extra is not installed."""

from __future__ import annotations

import importlib.util

collect_ignore_glob: list[str] = []
if importlib.util.find_spec("scipy") is None or importlib.util.find_spec("numpy") is None:
    collect_ignore_glob.append("frame_eval/compare/*.py")  # the [stats] extra
if importlib.util.find_spec("matplotlib") is None:
    collect_ignore_glob.append("frame_eval/plots.py")  # the [plot] extra
