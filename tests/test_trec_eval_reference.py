"""Reproduce trec_eval 10.0's own expected outputs (../shared/trec_eval) to 4 decimals.

Every line of out.test, out.test.a (all_trec), .aq, .aqc, .aqcM, .aql and
.meas_params, runid and relstring aside, read back from the names trec_eval prints.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import frame_eval as fe
from frame_eval.registry import parse_measures

# lines that are not measures of the run (relstring is printed relstring_20)
NOT_MEASURES = ("runid", "relstring")


def read_expected(path: Path) -> dict[tuple[str, str], float]:
    expected = {}
    for line in path.read_text().splitlines():
        name, query, value = line.split()
        if not name.startswith(NOT_MEASURES):
            expected[(name, query)] = float(value)
    return expected


CASES = {
    "out.test": ("qrels.test", "results.test", {}),
    "out.test.a": ("qrels.test", "results.test", {}),
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
    expected = read_expected(trec_dir / expected_file)
    names = sorted({name for name, _ in expected})
    measures = {}
    for name in names:
        (m,) = parse_measures(name)  # the names trec_eval prints read back as one measure each
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
