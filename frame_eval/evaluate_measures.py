"""The measures an evaluation computes: names resolved to measures, their labels, run-wide options.

:func:`labelled` turns what the caller asked for into ``(measure, label)`` pairs (see
:mod:`frame_eval.evaluate` for the label rules), :func:`with_defaults` fills in trec_eval's
run-wide ``-l`` and ``-N``; the option types and checks shared by every front end live here too.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Any, Literal

from frame_eval.registry import Measure, measure, resolve_each

Shape = Literal["long", "wide"]
Ties = Literal["docid", "expected", "optimistic", "pessimistic"]
Labels = Literal["canonical", "as_given"]
Names = Literal["canonical", "safe"]
Aggregate = Literal["mean", "gmean", "micro"]
MeasureArg = str | Measure | Iterable[str | Measure | Any]


DEFAULT_MEASURES = ("AP", "nDCG", "nDCG@10", "P@10", "R@100", "RR", "Rprec")


def _check_names(keys: Sequence[str], reserved: Sequence[str]) -> None:
    clash = [k for k in keys if k in reserved]
    if clash:
        raise ValueError(
            f"key column {clash[0]!r} clashes with an output column of the same name; rename it"
        )


def _choice(name: str, value: Any, allowed: Sequence[str]) -> None:
    if value not in allowed:
        raise ValueError(f"{name} must be one of {list(allowed)}, got {value!r}")


def safe_name(label: str) -> str:
    """``label`` in letters, digits and underscores: ``nDCG@10`` -> ``nDCG_at_10``.

    >>> safe_name("AP(rel=2)@100"), safe_name("IPrec@0.1"), safe_name("F0.5")
    ('AP_rel_2_at_100', 'IPrec_at_0_1', 'F0_5')
    """
    text = label.replace("@", "_at_")
    text = re.sub(r"[^0-9A-Za-z_]+", "_", text)
    return re.sub(r"_+", "_", text).strip("_")


def labelled(
    measures: MeasureArg, kind: Literal["ranking", "classification"] = "ranking", *,
    labels: Labels = "canonical", names: Names = "canonical",
) -> list[tuple[Measure, str]]:
    """The measures to compute, each with the label it is reported under, in the order given.

    Canonical labels collapse repeats (``["MAP", "AP"]`` gives ``AP`` once); ``as_given``
    keeps one label per name written (a name that stands for several measures, such as
    ``P.5,10``, gives each its canonical label). Two different measures may not end up
    with one label.
    """
    _choice("labels", labels, ("canonical", "as_given"))
    _choice("names", names, ("canonical", "safe"))
    pairs: list[tuple[Measure, str]] = []
    owner: dict[str, Measure] = {}
    for item, found in resolve_each(measures, kind):
        for m in found:
            as_given = labels == "as_given" and isinstance(item, str) and len(found) == 1
            label = item.strip() if as_given else m.name
            if names == "safe":
                label = safe_name(label)
            if label in owner:
                if owner[label] != m:
                    raise ValueError(f"two measures, {owner[label].name} and {m.name}, would both be "
                                     f"labelled {label!r}; ask for one of them, or pass names='canonical'")
                continue
            owner[label] = m
            pairs.append((m, label))
    return pairs


def _unique(pairs: Sequence[tuple[Measure, str]]) -> list[Measure]:
    seen: dict[str, Measure] = {}
    for m, _ in pairs:
        seen.setdefault(m.name, m)
    return list(seen.values())


def with_defaults(m: Measure, rel: int | None, collection_size: int | None) -> Measure:
    """``m`` with the run-wide ``rel`` (trec_eval ``-l``) and ``collection_size`` (``-N``) filled
    in where the measure takes them and was not given its own."""
    names = {p.name for p in m.spec.params}
    extra: dict[str, Any] = {}
    if rel is not None and "rel" in names and "rel" not in m.given:
        extra["rel"] = rel
    if collection_size is not None and "collection_size" in names and "collection_size" not in m.given:
        extra["collection_size"] = collection_size
    if not extra:
        return m
    return measure(m.spec, cutoff=m.cutoff, **{**dict(m.params), **extra})


def _check_option(name: str, value: Any) -> None:
    if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 0):
        raise ValueError(f"{name} must be a whole number from 0 up or None, got {value!r}")
