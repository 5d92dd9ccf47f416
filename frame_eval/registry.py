"""Measure names: the registry, the parser and the :class:`Measure` value.

A measure is data: a family (``AP``, ``nDCG``, ``recall``...), a few typed
parameters and an optional cutoff. Each family is declared once with
:func:`register`, naming the one function that builds its polars
expression. Names are read by a small hand-written parser, never by
``eval``:

- ir_measures style: ``AP``, ``nDCG@10``, ``AP(rel=2)@100``,
  ``nDCG(gain=exp)@20``;
- trec_eval style: ``map``, ``ndcg_cut.10``, ``P_5``, ``recall.5,100``
  (several cutoffs give several measures);
- family shorthands registered by a module, such as ``F2`` or ``F0.5``.

Lookup is case-insensitive; an unknown name gets an error listing the
closest known names.
"""

from __future__ import annotations

import difflib
import functools
import numbers
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

import polars as pl

__all__ = ["Doc", "Measure", "MeasureSpec", "Param", "measure", "parse_measures", "register", "specs"]

Kind = Literal["ranking", "classification"]


@dataclass(frozen=True)
class Param:
    """One parameter of a measure family: its name, type, default and allowed values."""

    name: str
    type: type
    default: Any
    choices: tuple[Any, ...] | None = None
    doc: str = ""
    check: Callable[[Any], str | None] | None = None  # returns what is wrong with a value, if anything

    def coerce(self, family: str, raw: Any) -> Any:
        """Convert ``raw`` (a parsed string or a Python value) to this parameter's type."""
        try:
            if self.type is bool and isinstance(raw, str):
                if raw.lower() not in {"true", "false", "1", "0"}:
                    raise ValueError(raw)
                value: Any = raw.lower() in {"true", "1"}
            elif self.type is int and isinstance(raw, float) and raw.is_integer():
                value = int(raw)
            elif self.type is float and isinstance(raw, int | float):
                value = float(raw)
            else:
                value = self.type(raw)
        except (TypeError, ValueError):
            raise ValueError(
                f"{family}: parameter {self.name}={raw!r} is not a valid "
                f"{self.type.__name__}; for example {self.name}={self.default!r}"
            ) from None
        if self.choices is not None and value not in self.choices:
            raise ValueError(
                f"{family}: parameter {self.name}={value!r} is not one of {list(self.choices)}"
            )
        problem = self.check(value) if self.check is not None else None
        if problem:
            raise ValueError(f"{family}: parameter {self.name}={value!r} {problem}")
        return value


@dataclass(frozen=True)
class Doc:
    """A family's row in the README's measure table, which ``python -m frame_eval.docs`` writes.

    ``expression``: its expression functions, comma-separated (``"C.f1, C.fbeta"``);
    ``value``: what it computes (Markdown; ``|`` and ``*`` as they read, the table escapes
    them); ``null_when``: when the value is null; ``names``: the first column's names, when
    not the family's name alone (``F1``, ``F2``...); ``accepted``: what the second column
    says after the aliases. Ranking rows: ``trec``, trec_eval's names (Markdown); ``covers``,
    the other families this row documents (``SetR`` in ``SetP``'s row), which need no row.

    >>> Doc("C.tp", "positive rows predicted positive").null_when
    'never'
    """

    expression: str
    value: str
    null_when: str = "never"
    names: tuple[str, ...] = ()
    accepted: str = ""
    trec: str = ""
    covers: tuple[str, ...] = ()


@dataclass(frozen=True)
class MeasureSpec:
    """The declaration of a measure family.

    ``build(columns, cutoff, **params)`` returns the (unaliased) polars
    expression; ``columns`` maps role names (``rank``, ``relevance``,
    ``actual``, ...) to column names. ``aggregate`` says how per-group
    values combine into a summary: ``"mean"``, ``"sum"`` (counts) or ``"gmean"``
    (trec_eval's geometric mean: ``exp(mean(log(max(value, 0.00001))))``).
    ``reads_unjudged`` (default ``True``, the safe choice for a new measure) says that
    a ranking measure may look at unjudged retrieved documents other than the deepest
    one; a measure that declares ``False`` is computed from a compact frame of the
    judged documents only (see ``judged.evaluation_frame``), and the test suite checks
    every built-in that declares it against the full judged frame.
    ``lowest_read(params)`` gives the lowest judgement whose row can change a
    ranking measure's value (``inf``: it reads no judged row, only the deepest
    one); ``evaluate`` drops judgements below what every requested measure
    reads. ``None`` (the default) means every judged row is read.
    ``micro``, for measures that are a ratio of counts, gives the numerator and the
    denominator, which ``summarize(aggregate="micro")`` sums over queries before dividing.
    ``build_cutoffs(columns, cutoffs, **params)``, optional, computes the measure at several
    cutoffs in one pass: one expression whose value per group is the list of the values,
    with the bits of ``build`` at each cutoff (``None``: not for these parameters; see
    ``frame_eval.ranking.batched``). With ``batch_param``, it takes the values of that
    parameter in place of cutoffs (``Rprec_mult``'s multiples), the other parameters alike.
    ``build_parts(columns, cutoff, **params)``, optional, gives the measure as several per-group
    aggregations and an expression that combines their columns into the value, with ``build``'s
    bits (``None``: not for these parameters); ``evaluate`` uses it where per-group steps (sorts,
    running sums) cost more than a few plain sums (nDCG@k: the DCG from one sum per rank).
    ``from_others(params)``, optional, gives the measures the value can be read from and how
    (``11pt_avg`` from ``IPrec`` at its levels): when all of them are computed in the same
    evaluation, the measure is not computed again (the same bits).
    ``doc``: the family's row in the README's measure table (:class:`Doc`).
    """

    name: str
    kind: Kind
    summary: str
    build: Callable[..., pl.Expr]
    params: tuple[Param, ...] = ()
    cutoff: Literal["none", "optional", "required"] = "none"
    cutoff_type: type = int
    aggregate: Literal["mean", "sum", "gmean"] = "mean"
    reads_unjudged: bool = True
    lowest_read: Callable[[Mapping[str, Any]], float] | None = None
    aliases: tuple[str, ...] = ()
    trec_name: str | None = None
    trec_cut_name: str | None = None
    format_name: Callable[[Mapping[str, Any], int | None], str] | None = None
    # for micro averages: (columns, cutoff, **params) -> (numerator, denominator) of one group
    micro: Callable[..., tuple[pl.Expr, pl.Expr]] | None = None
    build_cutoffs: Callable[..., pl.Expr | None] | None = None
    build_parts: Callable[..., tuple[list[pl.Expr], Callable[[list[pl.Expr]], pl.Expr]] | None] | None = None
    batch_param: str | None = None
    from_others: (
        Callable[[Mapping[str, Any]], tuple[list[Measure], Callable[[list[pl.Expr]], pl.Expr]]] | None
    ) = None
    doc: Doc | None = None

    def param(self, name: str) -> Param:
        for p in self.params:
            if p.name == name:
                return p
        known = ", ".join(p.name for p in self.params) or "none"
        raise ValueError(f"{self.name}: unknown parameter {name!r}; known parameters: {known}")


@dataclass(frozen=True)
class Measure:
    """A fully specified measure: family, non-default parameters and cutoff.

    ``str(measure)`` is the canonical name (``nDCG@10``, ``AP(rel=2)``),
    which is also the name of the column or ``metric`` value it produces.
    """

    spec: MeasureSpec
    params: tuple[tuple[str, Any], ...] = ()
    cutoff: float | None = None
    _name: str = field(default="", compare=False, repr=False)
    # the parameters named when the measure was made, defaults included: run-wide options
    # (evaluate's rel=, collection_size=) do not override them
    given: tuple[str, ...] = field(default=(), compare=False, repr=False)

    @property
    def name(self) -> str:
        return self._name

    @property
    def kwargs(self) -> dict[str, Any]:
        """Every parameter with its value, defaults included."""
        values = {p.name: p.default for p in self.spec.params}
        values.update(self.params)
        return values

    @property
    def lowest_read(self) -> float | None:
        """The lowest judgement whose row can change this measure (``None``: every row)."""
        rule = self.spec.lowest_read
        return None if rule is None else rule(self.kwargs)

    def expr(self, **columns: str) -> pl.Expr:
        """The polars aggregation expression for this measure, aliased to its name."""
        return _built(self, tuple(columns.items()))

    def __str__(self) -> str:
        return self._name


@functools.lru_cache(maxsize=4096)
def _built(m: Measure, columns: tuple[tuple[str, str], ...]) -> pl.Expr:
    """A measure's expression, built once per measure and column names: building is pure Python
    and costs more than a small evaluation itself (expressions are immutable, so sharing is safe)."""
    return m.spec.build(dict(columns), m.cutoff, **m.kwargs).alias(m.name)


MAX_CUTOFF = 2**63 - 1  # trec_eval's cutoffs are C longs

_SPECS: dict[str, MeasureSpec] = {}
# lower-cased name -> spec, per kind: "recall" is R@k for rankings and TP / P for classifiers
_LOOKUP: dict[str, dict[str, MeasureSpec]] = {"ranking": {}, "classification": {}}
# a shorthand gives one (family, params) pair, or a list of them for names that stand for
# several measures (trec_eval's ``Rprec_mult.0.2,0.4``)
Shorthand = Callable[[re.Match[str]], tuple[str, dict[str, Any]] | list[tuple[str, dict[str, Any]]]]
_SHORTHANDS: list[tuple[Kind, re.Pattern[str], Shorthand]] = []


def register(spec: MeasureSpec) -> MeasureSpec:
    """Add a measure family; its name and aliases become parseable."""
    keys = [spec.name, *spec.aliases]
    keys += [n for n in (spec.trec_name, spec.trec_cut_name) if n]
    table = _LOOKUP[spec.kind]
    for key in keys:
        previous = table.get(key.lower())
        if previous is not None and previous is not spec:
            raise ValueError(f"measure name {key!r} is taken by {previous.name}")
        table[key.lower()] = spec
    _SPECS[f"{spec.kind}:{spec.name}"] = spec
    _forget()
    return spec


_GROUPS: dict[tuple[Kind, str], tuple[str, ...]] = {}


def register_group(kind: Kind, name: str, members: Iterable[str]) -> None:
    """Make ``name`` (case-insensitive) stand for the measures ``members`` name, in that order
    (trec_eval's ``all_trec``, ``official``, ``set``)."""
    _GROUPS[(kind, name.lower())] = tuple(members)
    _forget()


def groups(kind: Kind = "ranking") -> dict[str, tuple[str, ...]]:
    """Registered group names and the measure names each stands for."""
    return {name: members for (k, name), members in _GROUPS.items() if k == kind}


def register_shorthand(kind: Kind, pattern: str, shorthand: Shorthand) -> None:
    """Accept names matching ``pattern`` (full match, case-insensitive) as ``shorthand(match)``.

    ``shorthand`` returns the family name and its parameters, e.g. ``F2`` gives
    ``("F", {"beta": 2.0})``; a ``"cutoff"`` entry is taken as the cutoff. A list of such
    pairs makes the name stand for several measures.
    """
    _SHORTHANDS.append((kind, re.compile(pattern, re.IGNORECASE), shorthand))
    _forget()


def specs(kind: Kind | None = None) -> list[MeasureSpec]:
    """All registered families, optionally of one kind, in registration order."""
    return [s for s in _SPECS.values() if kind is None or s.kind == kind]


def _format_value(value: Any) -> str:
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _canonical(spec: MeasureSpec, params: Mapping[str, Any], cutoff: float | None) -> str:
    if spec.format_name is not None:
        return spec.format_name(params, cutoff)
    text = spec.name
    shown = [f"{p.name}={_format_value(params[p.name])}" for p in spec.params if p.name in params]
    if shown:
        text += "(" + ",".join(shown) + ")"
    if cutoff is not None:
        text += f"@{_format_value(cutoff)}"
    return text


def measure(
    name: str | MeasureSpec, cutoff: float | None = None, *, kind: Kind = "ranking", **params: Any
) -> Measure:
    """Build a :class:`Measure` from a family name (or spec), cutoff and parameters.

    Parameters equal to their default are dropped, so ``measure("AP", rel=1)``
    and ``measure("AP")`` are the same measure named ``AP``.
    """
    spec = name if isinstance(name, MeasureSpec) else _lookup(name, kind)
    if cutoff is not None:
        if spec.cutoff == "none":
            raise ValueError(f"{spec.name} takes no cutoff (got @{cutoff})")
        cutoff = _check_cutoff(spec, cutoff)
    elif spec.cutoff == "required":
        raise ValueError(f"{spec.name} needs a cutoff, for example {spec.name}@10")
    chosen: dict[str, Any] = {}
    for key, raw in params.items():
        p = spec.param(key)
        value = p.coerce(spec.name, raw)
        if value != p.default:
            chosen[key] = value
    ordered = tuple((p.name, chosen[p.name]) for p in spec.params if p.name in chosen)
    return Measure(spec, ordered, cutoff, _canonical(spec, chosen, cutoff), tuple(params))


def _check_cutoff(spec: MeasureSpec, cutoff: Any) -> float:
    if spec.cutoff_type is float:
        if isinstance(cutoff, bool) or not isinstance(cutoff, int | float) or not 0 <= cutoff <= 1:
            raise ValueError(f"{spec.name}: cutoff must be a number from 0 to 1, got {cutoff!r}")
        return float(cutoff)
    if isinstance(cutoff, bool) or not isinstance(cutoff, numbers.Integral) or cutoff < 1:
        raise ValueError(f"{spec.name}: cutoff must be a positive integer, got {cutoff!r}")
    if cutoff > MAX_CUTOFF:
        raise ValueError(f"{spec.name}: cutoff {cutoff} is larger than {MAX_CUTOFF}, the largest supported")
    return int(cutoff)


def _lookup(name: str, kind: Kind) -> MeasureSpec:
    table = _LOOKUP[kind]
    spec = table.get(name.lower())
    if spec is None:
        close = difflib.get_close_matches(name.lower(), list(table), n=5, cutoff=0.5)
        hint = ", ".join(_display_key(k, kind) for k in close) if close else "none"
        raise ValueError(
            f"unknown {kind} measure {name!r}; closest known names: {hint} "
            f"(frame_eval.measures({kind!r}) lists them all)"
        )
    return spec


def _display_key(key: str, kind: Kind) -> str:
    spec = _LOOKUP[kind][key]
    for candidate in (spec.name, *spec.aliases, spec.trec_name, spec.trec_cut_name):
        if candidate and candidate.lower() == key:
            return candidate
    return key


_IR_FORM = re.compile(
    r"^(?P<name>[A-Za-z_][A-Za-z0-9_-]*?)\s*(?:\((?P<params>[^()]*)\))?\s*(?:@\s*(?P<cut>[\w.]+))?$"
)
_TREC_CUT = re.compile(r"^(?P<name>[A-Za-z_][A-Za-z0-9_]*?)[._](?P<cuts>\d+(?:,\d+)*)$")
_PARAM = re.compile(r"^\s*(?P<key>[A-Za-z_]\w*)\s*=\s*(?P<value>.*?)\s*$")


def _parse_params(text: str, original: str) -> dict[str, Any]:
    params: dict[str, Any] = {}
    if not text.strip():
        return params
    for part in text.split(","):
        m = _PARAM.match(part)
        if m is None:
            raise ValueError(f"cannot read parameter {part.strip()!r} in {original!r}; use key=value")
        value = m.group("value")
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
            value = value[1:-1]
        params[m.group("key")] = value
    return params


def _parse_cutoff(text: str, original: str, spec: MeasureSpec) -> float:
    try:
        value = spec.cutoff_type(text)
    except ValueError:
        raise ValueError(f"cannot read the cutoff {text!r} in {original!r}") from None
    return _check_cutoff(spec, value)


def parse_measures(text: str, kind: Kind = "ranking") -> list[Measure]:
    """Parse one measure name into measures (a trec_eval cutoff list gives several).

    Examples: ``"nDCG@10"``, ``"AP(rel=2)"``, ``"map_cut.5,10"``, ``"P_5"``, ``"F2"``; a group
    name (``"all_trec"``, ``"official"``, ``"set"``) gives each of its measures.
    """
    return list(_parsed(text, kind))


@functools.lru_cache(maxsize=4096)
def _parsed(text: str, kind: Kind) -> tuple[Measure, ...]:
    """:func:`parse_measures`, remembered (measures are immutable); registering forgets it."""
    return tuple(_parse(text, kind))


_generation = [0]  # how often the registry changed: a key for what was built from it


def generation() -> int:
    """A number that changes whenever a measure is registered (plans built before are stale)."""
    return _generation[0]


def _forget() -> None:
    _parsed.cache_clear()
    _built.cache_clear()
    _generation[0] += 1


def _parse(text: str, kind: Kind) -> list[Measure]:
    original = text
    text = text.strip()
    group = _GROUPS.get((kind, text.lower()))
    if group is not None:
        return [m for member in group for m in parse_measures(member, kind)]
    measures: list[Measure]
    trec = _TREC_CUT.match(text)
    spec = _cut_spec(trec.group("name"), kind) if trec else None
    if trec and spec is not None:
        cuts = [_parse_cutoff(c, original, spec) for c in trec.group("cuts").split(",")]
        measures = [measure(spec, cutoff=c) for c in cuts]
    else:
        for pattern_kind, pattern, shorthand in _SHORTHANDS:
            m = pattern.fullmatch(text)
            if pattern_kind == kind and m is not None:
                found = shorthand(m)
                measures = []
                for family, params in found if isinstance(found, list) else [found]:
                    params = dict(params)
                    cutoff = params.pop("cutoff", None)
                    measures.append(measure(family, cutoff, kind=kind, **params))
                break
        else:
            m = _IR_FORM.match(text)
            if m is None:
                raise ValueError(
                    f"cannot read measure name {original!r}; write it like 'nDCG@10' or 'AP(rel=2)'"
                )
            params = _parse_params(m.group("params") or "", original)
            cut = m.group("cut")
            spec = _lookup(m.group("name"), kind)
            cutoff = _parse_cutoff(cut, original, spec) if cut is not None else None
            if cutoff is None and (spec.trec_cut_name or "").lower() == m.group("name").lower():
                raise ValueError(f"{m.group('name')} needs a cutoff, e.g. {m.group('name')}.10")
            measures = [measure(spec, cutoff=cutoff, **params)]
    return measures


def _cut_spec(name: str, kind: Kind) -> MeasureSpec | None:
    spec = _LOOKUP[kind].get(name.lower())
    if spec is None or spec.cutoff == "none":
        return None
    return spec


def from_ir_measures(item: Any, kind: Kind = "ranking") -> list[Measure]:
    """Translate an ir_measures measure object (``nDCG@10``, ``AP(rel=2)``) to frame_eval's.

    Its ``NAME`` names the family and its ``params`` the parameters; ir_measures'
    ``dcg="log2"`` / ``"exp-log2"`` become ``gain="linear"`` / ``"exp"``. A parameter
    frame_eval does not offer is an error naming it.
    """
    params = dict(item.params)
    cutoff = params.pop("cutoff", None)
    if "dcg" in params:
        dcg = params.pop("dcg")
        gains = {"log2": "linear", "exp-log2": "exp"}
        if dcg not in gains:
            raise ValueError(
                f"{item}: ir_measures dcg={dcg!r} has no frame_eval equivalent; use 'log2' or 'exp-log2'"
            )
        params["gain"] = gains[dcg]
    name = str(item.NAME)
    if name == "SetP" and params.pop("relative", False):
        name = "set_relative_P"  # ir_measures' SetRelP is SetP(relative=True)
    params.pop("relative", None)
    spec = _lookup(name, kind)
    if spec.name == "RBP" and "p" not in params:
        params["p"] = 0.8  # ir_measures' default persistence (trec_eval's, and ours, is 0.9)
    known = {p.name for p in spec.params}
    unknown = [k for k in params if k not in known]
    if unknown:
        raise ValueError(
            f"{item}: frame_eval's {spec.name} has no parameter {unknown[0]!r} "
            f"(its parameters: {', '.join(sorted(known)) or 'none'})"
        )
    return [measure(spec, cutoff=cutoff, kind=kind, **params)]


def _is_ir_measures(item: Any) -> bool:
    return type(item).__module__.startswith("ir_measures") and hasattr(item, "NAME")


def resolve_each(
    items: str | Measure | Iterable[str | Measure], kind: Kind = "ranking"
) -> list[tuple[Any, list[Measure]]]:
    """Each item given (a name, a :class:`Measure`, an ir_measures object) with its measures."""
    if isinstance(items, str | Measure) or _is_ir_measures(items):
        items = [items]  # type: ignore[list-item]
    out: list[tuple[Any, list[Measure]]] = []
    for item in items:
        if isinstance(item, str):
            found = parse_measures(item, kind)
        elif isinstance(item, Measure):
            found = [item]
        elif _is_ir_measures(item):
            found = from_ir_measures(item, kind)
        else:
            raise TypeError(
                f"a measure must be a name such as 'nDCG@10', a frame_eval Measure or an ir_measures "
                f"measure, got {type(item).__name__}: {item!r}"
            )
        for ms in found:
            if ms.spec.kind != kind:
                raise ValueError(f"{ms.name} is a {ms.spec.kind} measure, not a {kind} measure")
        out.append((item, found))
    if not out:
        raise ValueError("no measures given; pass names such as ['AP', 'nDCG@10']")
    return out


def resolve(items: str | Measure | Iterable[str | Measure], kind: Kind = "ranking") -> list[Measure]:
    """Turn names and :class:`Measure` values into a de-duplicated list of measures."""
    out: list[Measure] = []
    seen: set[str] = set()
    for _, found in resolve_each(items, kind):
        for ms in found:
            if ms.name not in seen:
                seen.add(ms.name)
                out.append(ms)
    return out
