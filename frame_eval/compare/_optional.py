"""Optional imports of the comparison tools: SciPy and NumPy come with ``frame-eval[stats]``."""

from __future__ import annotations

import importlib
from typing import Any


def need(module: str, extra: str = "stats", purpose: str = "significance tests and intervals") -> Any:
    """Import ``module`` or raise an ``ImportError`` that names the extra to install."""
    try:
        return importlib.import_module(module)
    except ImportError as error:
        raise ImportError(
            f"{purpose} need {module.split('.')[0]}; install it with: pip install \"frame-eval[{extra}]\""
        ) from error
