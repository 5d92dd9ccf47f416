"""The textbook examples, exactly: a screening test for cancer and a three-class matrix."""

from __future__ import annotations

from fractions import Fraction

import polars as pl
import pytest
from sklearn import metrics as skm

import frame_eval  # noqa: F401
from frame_eval import classification as C


def _frame(cells: dict[tuple[object, object], int], names: tuple[str, str]) -> pl.DataFrame:
    rows = [pair for pair, count in cells.items() for _ in range(count)]
    return pl.DataFrame(rows, schema=list(names), orient="row")


# the screening test: 20 true positives, 180 false positives, 10 false negatives, 1820 true negatives
CANCER = _frame(
    {(True, True): 20, (False, True): 180, (True, False): 10, (False, False): 1820}, ("cancer", "test")
)


def test_cancer_screening_counts() -> None:
    counts = CANCER.ireval.confusion("cancer", "test").row(0, named=True)
    assert counts == {
        "tp": 20, "fp": 180, "fn": 10, "tn": 1820, "p": 30, "n": 2000, "pp": 200, "pn": 1830, "total": 2030
    }


@pytest.mark.parametrize(
    ("name", "exact"),
    [
        ("PPV", Fraction(20, 200)),  # 10 %
        ("NPV", Fraction(1820, 1830)),  # 99.5 %
        ("TPR", Fraction(20, 30)),  # 66.7 %
        ("TNR", Fraction(1820, 2000)),  # 91 %
        ("accuracy", Fraction(1840, 2030)),  # 90.6 %
        ("FPR", Fraction(180, 2000)),
        ("FNR", Fraction(10, 30)),
        ("FDR", Fraction(180, 200)),
        ("FOR", Fraction(10, 1830)),
        ("prevalence", Fraction(30, 2030)),
        ("F1", Fraction(2 * 20, 2 * 20 + 180 + 10)),
        ("LR+", Fraction(20, 30) / Fraction(180, 2000)),
        ("LR-", Fraction(10, 30) / Fraction(1820, 2000)),
    ],
)
def test_cancer_screening_rates(name: str, exact: Fraction) -> None:
    long = CANCER.ireval.rates("cancer", "test", metrics=[name])
    assert long["value"][0] == pytest.approx(float(exact), rel=1e-15)
    lazy = CANCER.lazy().ireval.rates("cancer", "test", metrics=[name]).collect()
    assert lazy.equals(long)


def test_cancer_screening_expressions_and_rounding() -> None:
    got = CANCER.select(
        C.precision("cancer", "test").alias("ppv"), C.npv("cancer", "test").alias("npv"),
        C.recall("cancer", "test").alias("tpr"), C.specificity("cancer", "test").alias("tnr"),
        C.accuracy("cancer", "test").alias("acc"),
    ).row(0, named=True)
    assert {k: round(100 * v, 1) for k, v in got.items()} == {
        "ppv": 10.0, "npv": 99.5, "tpr": 66.7, "tnr": 91.0, "acc": 90.6
    }


# rows predicted Woman 13/4/2, Man 2/15/1, Child 5/1/57 against actual Woman, Man, Child
PREDICTED_BY_ACTUAL = {
    "Woman": {"Woman": 13, "Man": 4, "Child": 2},
    "Man": {"Woman": 2, "Man": 15, "Child": 1},
    "Child": {"Woman": 5, "Man": 1, "Child": 57},
}
PEOPLE = _frame(
    {(actual, predicted): n for predicted, row in PREDICTED_BY_ACTUAL.items() for actual, n in row.items()},
    ("actual", "predicted"),
)


def test_three_class_matrix_cells() -> None:
    matrix = PEOPLE.ireval.confusion_matrix("actual", "predicted")
    assert matrix.columns == ["actual", "predicted", "count"]
    assert matrix.height == 9
    cells = {(a, p): n for a, p, n in matrix.iter_rows()}
    for predicted, row in PREDICTED_BY_ACTUAL.items():
        for actual, n in row.items():
            assert cells[(actual, predicted)] == n
    labels = ["Child", "Man", "Woman"]
    expected = skm.confusion_matrix(PEOPLE["actual"], PEOPLE["predicted"], labels=labels)
    assert [[cells[(a, p)] for p in labels] for a in labels] == expected.tolist()


def test_three_class_accuracy_and_woman_one_vs_rest() -> None:
    for average in ("micro", "macro", "weighted"):
        acc = PEOPLE.ireval.rates("actual", "predicted", metrics=["accuracy"], average=average)
        assert acc["value"][0] == pytest.approx(0.85, rel=1e-15)
    by_expr = PEOPLE.select(C.accuracy("actual", "predicted", average="micro")).item()
    assert by_expr == pytest.approx(0.85, rel=1e-15)
    woman = PEOPLE.ireval.confusion("actual", "predicted").filter(pl.col("class") == "Woman")
    assert woman.select("tp", "fp", "fn", "tn").row(0) == (13, 6, 7, 74)
    binary = PEOPLE.ireval.confusion("actual", "predicted", positive="Woman")
    assert binary.select("tp", "fp", "fn", "tn").row(0) == (13, 6, 7, 74)


def test_three_class_per_class_rates_match_scikit_learn() -> None:
    per_class = PEOPLE.ireval.rates(
        "actual", "predicted", metrics=["precision", "recall", "F1"], positive=None
    )
    precision, recall, f1, _ = skm.precision_recall_fscore_support(
        PEOPLE["actual"], PEOPLE["predicted"], labels=["Child", "Man", "Woman"]
    )
    got = per_class.pivot("metric", index="class", values="value").sort("class")
    assert got["precision"].to_list() == pytest.approx(precision.tolist(), rel=1e-15)
    assert got["recall"].to_list() == pytest.approx(recall.tolist(), rel=1e-15)
    assert got["F1"].to_list() == pytest.approx(f1.tolist(), rel=1e-15)
    # Woman: precision 13/19, recall 13/20
    woman = got.filter(pl.col("class") == "Woman").row(0, named=True)
    assert woman["precision"] == pytest.approx(13 / 19, rel=1e-15)
    assert woman["recall"] == pytest.approx(13 / 20, rel=1e-15)


# -- exact fractions, the expressions and the lazy path ------------------------------------------

DIRECT_RATIOS = {  # a single division each, so the float is the correctly rounded fraction
    C.precision: Fraction(20, 200),
    C.npv: Fraction(1820, 1830),
    C.recall: Fraction(20, 30),
    C.specificity: Fraction(1820, 2000),
    C.accuracy: Fraction(1840, 2030),
}


def test_cancer_screening_expressions_are_the_exact_fractions() -> None:
    got = CANCER.select(fn("cancer", "test").alias(fn.__name__) for fn in DIRECT_RATIOS).row(0)
    for value, exact in zip(got, DIRECT_RATIOS.values(), strict=True):
        assert value == float(exact)
        assert Fraction(value).limit_denominator(10_000) == exact
    table = dict(CANCER.ireval.rates("cancer", "test", metrics=["PPV", "NPV", "TPR", "TNR", "ACC"]).rows())
    assert list(table.values()) == [float(f) for f in DIRECT_RATIOS.values()]


def test_cancer_screening_in_group_by_over_and_lazy() -> None:
    # the same screening in two clinics; the second reports the test the other way round
    clinics = pl.concat([
        CANCER.with_columns(clinic=pl.lit("A")),
        CANCER.with_columns(pl.col("test").not_(), clinic=pl.lit("B")),
    ])
    per_clinic = clinics.group_by("clinic", maintain_order=True).agg(
        C.tp("cancer", "test"), C.fp("cancer", "test"), C.fn("cancer", "test"), C.tn("cancer", "test"),
        C.precision("cancer", "test"),
    )
    assert per_clinic.rows() == [("A", 20, 180, 10, 1820, 0.1), ("B", 10, 1820, 20, 180, 10 / 1830)]
    over = clinics.select("clinic", C.recall("cancer", "test").over("clinic")).unique().sort("clinic")
    assert over.rows() == [("A", 20 / 30), ("B", 10 / 30)]
    lazy = clinics.lazy().ireval.confusion("cancer", "test", by="clinic")
    assert isinstance(lazy, pl.LazyFrame)
    assert lazy.collect().equals(clinics.ireval.confusion("cancer", "test", by="clinic"))
    assert lazy.collect().row(0) == ("A", 20, 180, 10, 1820, 30, 2000, 200, 1830, 2030)


def test_three_class_against_scikit_learn_and_by_expression() -> None:
    labels = ["Child", "Man", "Woman"]
    y, yhat = PEOPLE["actual"].to_list(), PEOPLE["predicted"].to_list()
    assert skm.accuracy_score(y, yhat) == pytest.approx(0.85, rel=1e-15)
    # scikit-learn's one-vs-rest matrices are [[TN, FP], [FN, TP]] per label
    (tn, fp), (fn, tp) = skm.multilabel_confusion_matrix(y, yhat, labels=labels)[labels.index("Woman")]
    assert (tp, fp, fn, tn) == (13, 6, 7, 74)
    woman = PEOPLE.select(
        f("actual", "predicted", positive="Woman") for f in (C.tp, C.fp, C.fn, C.tn, C.total)
    ).row(0)
    assert woman == (13, 6, 7, 74, 100)
    lazy = PEOPLE.lazy().ireval.confusion_matrix("actual", "predicted").collect()
    assert lazy.equals(PEOPLE.ireval.confusion_matrix("actual", "predicted"))
    assert lazy["count"].sum() == 100
    for average in ("micro", "macro", "weighted"):
        f1 = PEOPLE.select(C.f1("actual", "predicted", average=average)).item()
        assert f1 == pytest.approx(skm.f1_score(y, yhat, average=average), rel=1e-12), average
