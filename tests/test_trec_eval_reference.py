"""Reproduce trec_eval 10.0's own expected outputs (../shared/trec_eval) to 4 decimals."""

from __future__ import annotations

from pathlib import Path

import pytest

import frame_eval as fe
from frame_eval.registry import parse_measures

# trec_eval measure families that frame_eval implements (lines for others are skipped)
SUPPORTED = ("num_q", "num_ret", "num_rel", "num_rel_ret", "map", "Rprec", "recip_rank",
             "P_", "recall_", "ndcg", "ndcg_cut_", "map_cut_", "success_", "iprec_at_recall_")


def supported(name: str) -> bool:
    def is_cut(text: str) -> bool:
        return text.isdigit() or (text.replace(".", "", 1).isdigit() and name.startswith("iprec"))

    return any(name == s or (s.endswith("_") and name.startswith(s) and is_cut(name[len(s):]))
               for s in SUPPORTED)


def read_expected(path: Path) -> dict[tuple[str, str], float]:
    expected = {}
    for line in path.read_text().splitlines():
        name, query, value = line.split()
        if supported(name):
            expected[(name, query)] = float(value)
    return expected


CASES = {
    "out.test": ("qrels.test", "results.test", {}),
    "out.test.aq": ("qrels.test", "results.test", {}),
    "out.test.aqc": ("qrels.test", "results.trunc", {"complete": True}),
    "out.test.aqcM": ("qrels.test", "results.trunc", {"complete": True, "depth": 100}),
    "out.test.aql": ("qrels.rel_level", "results.test", {"rel": 2}),
    "out.test.meas_params": ("qrels.test", "results.test", {}),
}


@pytest.mark.parametrize("expected_file", sorted(CASES))
@pytest.mark.parametrize("lazy", [False, True])
def test_reproduces_trec_eval(trec_dir: Path, expected_file: str, lazy: bool) -> None:
    qrels_file, run_file, options = CASES[expected_file]
    options = dict(options)
    rel = options.pop("rel", 1)
    expected = read_expected(trec_dir / expected_file)
    names = sorted({name for name, _ in expected})
    measures = {}
    for name in names:
        (m,) = parse_measures(name)
        if rel != 1 and "rel" in {p.name for p in m.spec.params}:
            m = fe.measure(m.spec, cutoff=m.cutoff, **{**dict(m.params), "rel": rel})
        measures[name] = m
    run = fe.read_trec_run(trec_dir / run_file)
    qrels = fe.read_trec_qrels(trec_dir / qrels_file)
    if lazy:
        run, qrels = run.lazy(), qrels.lazy()
    ms = list(measures.values())
    per_query = run.ireval.evaluate(qrels, ms, **options)
    summary = run.ireval.summarize(qrels, ms, **options)
    if lazy:
        per_query, summary = per_query.collect(), summary.collect()
    got = {(m, q): v for q, m, v in per_query.iter_rows()}
    got.update({(m, "all"): v for m, v, _ in summary.iter_rows()})
    checked = 0
    for (name, query), value in expected.items():
        key = (measures[name].name, query)
        assert key in got, f"{name} for query {query} missing from frame_eval's output"
        assert got[key] == pytest.approx(value, abs=5.01e-5), f"{name} {query}"
        checked += 1
    assert checked == len(expected) > 0
    # and no extra queries: frame_eval evaluates exactly trec_eval's queries
    expected_queries = {q for _, q in expected} - {"all"}
    if expected_queries:
        assert {q for _, q in got} - {"all"} == expected_queries
