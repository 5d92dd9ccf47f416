"""Classification API: textbook examples, names, expressions vs namespaces, laziness, pandas, errors."""

from __future__ import annotations

from typing import Any

import pandas as pd
import polars as pl
import pytest
from polars.testing import assert_frame_equal

import frame_eval as fe
from frame_eval import classification as C


def from_cells(cells: dict[tuple[Any, Any], int], **extra: Any) -> pl.DataFrame:
    """A predictions frame with ``count`` rows for each (actual, predicted) cell."""
    actual = [a for (a, _), k in cells.items() for _ in range(k)]
    predicted = [p for (_, p), k in cells.items() for _ in range(k)]
    return pl.DataFrame({"label": actual, "pred": predicted, **extra})


# the cancer screening example: TP 20, FP 180, FN 10, TN 1820
CANCER = from_cells({(True, True): 20, (False, True): 180, (True, False): 10, (False, False): 1820})

# three classes; rows of the table are predictions, columns the actual class
THREE = from_cells({
    ("Woman", "Woman"): 13, ("Man", "Woman"): 4, ("Child", "Woman"): 2,
    ("Woman", "Man"): 2, ("Man", "Man"): 15, ("Child", "Man"): 1,
    ("Woman", "Child"): 5, ("Man", "Child"): 1, ("Child", "Child"): 57,
})

PREDS = pl.DataFrame({
    "model": ["a"] * 6 + ["b"] * 6,
    "label": [1, 1, 1, 0, 0, 0] * 2,
    "pred": [1, 1, 0, 1, 0, 0, 1, 0, 0, 0, 0, 0],
    "prob": [0.9, 0.8, 0.3, 0.8, 0.2, 0.1, 0.7, 0.4, 0.4, 0.4, 0.1, 0.6],
})


def test_the_calls_of_the_issue_work_as_written() -> None:
    preds = PREDS
    assert preds.ireval.confusion(actual="label", predicted="pred", by="model").height == 2
    assert preds.ireval.rates(actual="label", predicted="pred", by="model").height == 2 * 21
    macro = preds.ireval.rates(actual="label", predicted="pred", metrics=["recall", "F2"], average="macro")
    assert macro["metric"].to_list() == ["recall", "F2"]
    assert preds.ireval.confusion_matrix(actual="label", predicted="pred", by="model").height == 2 * 4
    assert preds.ireval.roc(actual="label", score="prob", by="model").height == 5 + 4
    assert preds.ireval.pr_curve(actual="label", score="prob", by="model").height == 5 + 4
    agg = preds.group_by("model").agg(
        C.confusion("label", "pred"), C.recall("label", "pred"), C.roc_auc("label", "prob")
    )
    assert agg.columns == ["model", "confusion", "recall", "ROC_AUC"]


# -- textbook examples ---------------------------------------------------------------------------

def test_cancer_screening_example() -> None:
    counts = CANCER.ireval.confusion("label", "pred").row(0, named=True)
    assert counts == {"tp": 20, "fp": 180, "fn": 10, "tn": 1820, "p": 30, "n": 2000, "pp": 200,
                      "pn": 1830, "total": 2030}
    got = dict(CANCER.ireval.rates("label", "pred").rows())
    assert round(got["precision"], 3) == 0.100  # PPV 10%
    assert round(got["NPV"], 3) == 0.995  # 99.5%
    assert round(got["recall"], 3) == 0.667  # TPR 66.7%
    assert round(got["specificity"], 2) == 0.91  # TNR 91%
    assert round(got["accuracy"], 3) == 0.906  # 90.6%
    exact = {
        "FNR": 10 / 30, "FPR": 180 / 2000, "FDR": 180 / 200, "FOR": 10 / 1830, "error_rate": 190 / 2030,
        "prevalence": 30 / 2030, "F1": 40 / 230, "balanced_accuracy": (20 / 30 + 1820 / 2000) / 2,
        "informedness": 20 / 30 + 1820 / 2000 - 1, "markedness": 20 / 200 + 1820 / 1830 - 1,
        "LR+": (20 / 30) / (180 / 2000), "LR-": (10 / 30) / (1820 / 2000), "DOR": 20 * 1820 / (180 * 10),
        "FM": 20 / (200 * 30) ** 0.5, "CSI": 20 / 210,
        "MCC": (20 * 1820 - 180 * 10) / (200 * 30 * 2000 * 1830) ** 0.5,
    }
    for name, value in exact.items():
        assert got[name] == pytest.approx(value, abs=1e-12), name
    assert list(got) == list(C.DEFAULT_RATES)


def test_three_class_example() -> None:
    matrix = THREE.ireval.confusion_matrix("label", "pred")
    assert matrix.columns == ["actual", "predicted", "count"] and matrix.height == 9
    cell = {(a, p): k for a, p, k in matrix.rows()}
    assert [cell[(a, "Woman")] for a in ("Woman", "Man", "Child")] == [13, 4, 2]  # predicted Woman
    assert [cell[(a, "Man")] for a in ("Woman", "Man", "Child")] == [2, 15, 1]
    assert [cell[(a, "Child")] for a in ("Woman", "Man", "Child")] == [5, 1, 57]
    woman = THREE.ireval.confusion("label", "pred").filter(pl.col("class") == "Woman").row(0, named=True)
    assert (woman["tp"], woman["fp"], woman["fn"], woman["tn"]) == (13, 6, 7, 74)
    assert THREE.ireval.confusion("label", "pred", positive="Woman").row(0)[:4] == (13, 6, 7, 74)
    accuracy = THREE.ireval.rates("label", "pred", metrics=["accuracy"], average="micro")
    assert accuracy.rows() == [("accuracy", pytest.approx(0.85, abs=1e-12))]
    assert THREE.select(C.accuracy("label", "pred", average="macro")).item() == pytest.approx(0.85)


def test_enum_labels_keep_their_order() -> None:
    order = pl.Enum(["Woman", "Man", "Child"])
    frame = THREE.with_columns(pl.col("label", "pred").cast(order))
    matrix = frame.ireval.confusion_matrix("label", "pred")
    assert matrix.schema["actual"] == order
    assert matrix["count"].to_list() == [13, 2, 5, 4, 15, 1, 2, 1, 57]
    assert frame.ireval.confusion("label", "pred")["class"].to_list() == ["Woman", "Man", "Child"]


# -- output shapes and edge-case policies --------------------------------------------------------

def test_output_columns_and_types() -> None:
    counts = PREDS.ireval.confusion("label", "pred", by="model")
    assert counts.columns == ["model", "tp", "fp", "fn", "tn", "p", "n", "pp", "pn", "total"]
    assert all(dtype == pl.Int64 for dtype in counts.schema.dtypes()[1:])
    assert counts.rows() == [("a", 2, 1, 1, 2, 3, 3, 3, 3, 6), ("b", 1, 0, 2, 3, 3, 3, 1, 5, 6)]
    per_class = PREDS.ireval.confusion("label", "pred", by="model", positive=None)
    assert per_class.columns[:2] == ["model", "class"] and per_class.height == 4
    rates = PREDS.ireval.rates("label", "pred", by="model", metrics=["recall", "F2"], average="macro")
    assert rates.columns == ["model", "metric", "value"] and rates["metric"].to_list() == ["recall", "F2"] * 2
    curve = PREDS.ireval.roc("label", "prob", by="model")
    assert curve.columns[:2] == ["model", "threshold"]
    assert curve.columns[2:] == ["tp", "fp", "fn", "tn", "tpr", "fpr", "precision", "recall"]
    # ties form one point: model b has 0.4 three times
    assert curve.filter(model="b")["threshold"].to_list() == [0.7, 0.6, 0.4, 0.1]
    assert curve.filter(model="b", threshold=0.4).row(0, named=True)["tp"] == 3


def test_zero_division_policy() -> None:
    nothing_predicted = pl.DataFrame({"label": [1, 0, 0], "pred": [0, 0, 0]})
    names = ["precision", "F1", "LR+", "MCC"]
    got = dict(nothing_predicted.ireval.rates("label", "pred", metrics=names).rows())
    assert got == {"precision": None, "F1": 0.0, "LR+": None, "MCC": None}
    filled = dict(nothing_predicted.ireval.rates(
        "label", "pred", metrics=["precision", "LR+", "MCC"], zero_division=1).rows())
    assert filled == {"precision": 1.0, "LR+": 1.0, "MCC": 1.0}
    assert nothing_predicted.select(C.precision("label", "pred", zero_division=0)).item() == 0.0
    one_class = pl.DataFrame({"label": [1, 1], "prob": [0.2, 0.3]})
    undefined = one_class.select(C.roc_auc("label", "prob"), C.equal_error_rate("label", "prob"))
    assert undefined.row(0) == (None, None)
    assert one_class.select(C.average_precision("label", "prob")).item() == 1.0


def test_scores_by_hand() -> None:
    a = PREDS.filter(model="a")
    # positives 0.9, 0.8, 0.3; negatives 0.8, 0.2, 0.1: 7.5 of 9 pairs ordered right
    assert a.select(C.roc_auc("label", "prob")).item() == pytest.approx(7.5 / 9, abs=1e-15)
    # thresholds 0.9 (1/1), 0.8 (2/3), 0.3 (3/4): recall steps of 1/3
    assert a.select(C.average_precision("label", "prob")).item() == pytest.approx((1 + 2 / 3 + 3 / 4) / 3)
    # at 0.8: FPR 1/3, FNR 1/3, a point on the line
    assert a.select(C.equal_error_rate("label", "prob")).item() == pytest.approx(1 / 3, abs=1e-15)
    # Youden's J: 1/3 at 0.9 and at 0.8, 2/3 at 0.3
    assert a.select(C.best_threshold("label", "prob")).item() == 0.3
    ties = pl.DataFrame({"label": [1, 0, 1, 0], "prob": [0.9, 0.8, 0.7, 0.6]})  # J: 1/2, 0, 1/2, 0
    assert ties.select(C.best_threshold("label", "prob")).item() == 0.9  # equally good: the higher wins


@pytest.mark.parametrize(
    ("labels", "eer"),
    [
        # (FPR, FNR) points (0, 2/3), (0, 1/3), (1/3, 1/3): the last lies on FPR = FNR
        ([1, 1, 0, 0, 1, 0], 1 / 3),
        # (0, 1/2), (1/3, 1/2), (2/3, 1/2): FPR passes 1/2 halfway along the last segment
        ([1, 0, 0, 0, 1], 1 / 2),
        # (0, 1/2), (1/2, 1/2): a point on the line after the first
        ([1, 0, 1, 0], 1 / 2),
        # a perfect ranking: (0, 1/2), (0, 0): the second point is on the line, at 0
        ([1, 1, 0, 0], 0.0),
        # the worst ranking: (1/2, 1), (1, 1): the second point is on the line, at 1
        ([0, 0, 1, 1], 1.0),
    ],
)
def test_equal_error_rate_by_hand(labels: list[int], eer: float) -> None:
    frame = pl.DataFrame({"label": labels, "prob": list(range(len(labels), 0, -1))})
    assert frame.select(C.equal_error_rate("label", "prob")).item() == pytest.approx(eer, abs=1e-15)


def test_equal_error_rate_with_ties() -> None:
    # a positive and a negative tie at each score: one jump from the origin to (1/2, 1/2)
    diagonal = pl.DataFrame({"label": [1, 0, 1, 0], "prob": [1, 1, 2, 2]})
    assert diagonal.select(C.equal_error_rate("label", "prob")).item() == pytest.approx(0.5)
    # one tie of everything: the only segment runs from the origin to (1, 1), FPR = FNR at 1/2
    straight = pl.DataFrame({"label": [1, 0], "prob": [1.0, 1.0]})
    assert straight.select(C.equal_error_rate("label", "prob")).item() == pytest.approx(0.5)


def test_one_vs_rest_rows_equal_binary_rows() -> None:
    per_class = THREE.ireval.rates("label", "pred", positive=None)
    for label in ("Woman", "Man", "Child"):
        binary = THREE.ireval.rates("label", "pred", positive=label)
        got = per_class.filter(pl.col("class") == label).drop("class")
        assert_frame_equal(got, binary)


# -- names ---------------------------------------------------------------------------------------

@pytest.mark.parametrize(
    ("name", "canonical"),
    [
        ("TPR", "recall"), ("sensitivity", "recall"), ("hit_rate", "recall"), ("hit rate", "recall"),
        ("miss_rate", "FNR"), ("TNR", "specificity"), ("fall-out", "FPR"), ("fall_out", "FPR"),
        ("PPV", "precision"), ("F1", "F1"), ("F2", "F2"), ("F0.5", "F0.5"), ("F(beta=3)", "F3"),
        ("f_score", "F1"), ("Youden's J", "informedness"), ("LR+", "LR+"), ("LR-", "LR-"),
        ("positive_likelihood_ratio", "LR+"), ("diagnostic_odds_ratio", "DOR"), ("threat_score", "CSI"),
        ("fowlkes_mallows", "FM"), ("TP", "TP"), ("support", "P"), ("ROC AUC", "ROC_AUC"),
        ("AUROC", "ROC_AUC"), ("AP", "average_precision"), ("PR AUC", "PR_AUC"),
        ("equal_error_rate", "EER"), ("best_threshold(criterion=f1)", "best_threshold(criterion=f1)"),
    ],
)
def test_names_and_synonyms(name: str, canonical: str) -> None:
    (m,) = fe.parse_measures(name, "classification")
    assert m.name == canonical


def test_classification_names_do_not_touch_ranking_names() -> None:
    assert fe.parse_measures("recall", "classification")[0].spec.kind == "classification"
    assert fe.parse_measures("recall", "ranking")[0].name == "R"
    assert fe.parse_measures("AP", "ranking")[0].name == "AP"
    families = fe.measures("classification")
    expected = ("TP", "total", "recall", "FOR", "F", "MCC", "LR+", "CSI", "ROC_AUC", "EER", "best_threshold")
    for family in expected:
        assert family in families
    with pytest.raises(ValueError, match=r"unknown classification measure 'recal'.*recall"):
        fe.parse_measures("recal", "classification")
    with pytest.raises(ValueError, match="criterion='best' is not one of"):
        fe.parse_measures("best_threshold(criterion=best)", "classification")


def test_measure_values_work_as_expressions_on_counts() -> None:
    counts = CANCER.ireval.confusion("label", "pred")
    f2 = fe.measure("F", kind="classification", beta=2)
    assert counts.select(f2.expr()).item() == pytest.approx(5 * 20 / (5 * 20 + 4 * 10 + 180))
    assert CANCER.select(f2.expr(actual="label", predicted="pred")).item() == counts.select(f2.expr()).item()


# -- expressions, namespaces, laziness, pandas ---------------------------------------------------

def test_expressions_in_agg_select_and_over() -> None:
    agg = PREDS.group_by("model", maintain_order=True).agg(
        C.confusion("label", "pred"), C.recall("label", "pred"), C.roc_auc("label", "prob")
    )
    counts = PREDS.ireval.confusion("label", "pred", by="model")
    assert_frame_equal(agg.select("model", "confusion").unnest("confusion"), counts)
    recall = PREDS.ireval.rates("label", "pred", by="model", metrics=["recall"])
    assert agg["recall"].to_list() == recall["value"].to_list()
    over = PREDS.with_columns(C.recall("label", "pred").over("model"))
    firsts = over.group_by("model", maintain_order=True).agg(pl.col("recall").first())
    assert firsts["recall"].equals(agg["recall"])
    whole = PREDS.select(C.recall("label", "pred"), C.tp("label", "pred"), C.total("label", "pred"))
    assert whole.row(0) == (3 / 6, 3, 12)


def test_counting_expressions_agree_with_confusion() -> None:
    counts = CANCER.ireval.confusion("label", "pred").row(0, named=True)
    functions = {"tp": C.tp, "fp": C.fp, "fn": C.fn, "tn": C.tn, "p": C.p, "n": C.n, "pp": C.pp,
                 "pn": C.pn, "total": C.total}
    for name, fn in functions.items():
        assert CANCER.select(fn("label", "pred")).item() == counts[name], name


def test_every_rate_function_matches_the_rates_table() -> None:
    table = dict(CANCER.ireval.rates("label", "pred").rows())
    functions = {
        "recall": C.recall, "FNR": C.fnr, "specificity": C.specificity, "FPR": C.fpr,
        "precision": C.precision, "FDR": C.fdr, "NPV": C.npv, "FOR": C.false_omission_rate,
        "accuracy": C.accuracy, "error_rate": C.error_rate, "prevalence": C.prevalence, "F1": C.f1,
        "balanced_accuracy": C.balanced_accuracy,
        "MCC": C.mcc, "informedness": C.informedness, "markedness": C.markedness, "LR+": C.lr_plus,
        "LR-": C.lr_minus, "DOR": C.diagnostic_odds_ratio, "FM": C.fowlkes_mallows, "CSI": C.threat_score,
    }
    assert set(functions) == set(table)
    for name, fn in functions.items():
        assert CANCER.select(fn("label", "pred")).item() == table[name], name


@pytest.mark.parametrize(
    ("method", "args", "options"),
    [
        ("confusion", ("label", "pred"), {"by": "model"}),
        ("confusion", ("label", "pred"), {"by": "model", "positive": None}),
        ("rates", ("label", "pred"), {"by": "model"}),
        ("rates", ("label", "pred"), {"by": "model", "metrics": ["recall", "F2"], "average": "weighted"}),
        ("rates", ("label", "pred"), {"positive": None, "zero_division": 0}),
        ("confusion_matrix", ("label", "pred"), {"by": "model"}),
        ("roc", ("label", "prob"), {"by": "model"}),
        ("pr_curve", ("label", "prob"), {"score_range": (0, 1)}),
    ],
)
def test_eager_lazy_and_pandas_agree_and_inputs_stay_unchanged(
    method: str, args: tuple[str, ...], options: dict[str, Any]
) -> None:
    frame = PREDS.clone()
    pandas_frame = PREDS.to_pandas()
    pandas_before = pandas_frame.copy()
    eager = getattr(frame.ireval, method)(*args, **options)
    lazy = getattr(frame.lazy().ireval, method)(*args, **options)
    assert isinstance(eager, pl.DataFrame) and isinstance(lazy, pl.LazyFrame)
    assert_frame_equal(lazy.collect(), eager)
    from_pandas = getattr(pandas_frame.ireval, method)(*args, **options)
    assert isinstance(from_pandas, pd.DataFrame)
    assert_frame_equal(pl.from_pandas(from_pandas), eager, check_dtypes=False)
    assert_frame_equal(frame, PREDS)
    pd.testing.assert_frame_equal(pandas_frame, pandas_before)


def test_string_and_boolean_labels_through_pandas() -> None:
    frame = pd.DataFrame({"label": ["cat", "dog", "dog"], "pred": ["cat", "cat", "dog"]})
    rates = frame.ireval.rates("label", "pred", metrics=["recall"])
    assert rates.to_dict("list") == {"class": ["cat", "dog"], "metric": ["recall"] * 2, "value": [1.0, 0.5]}
    flags = pd.DataFrame({"label": [True, False], "pred": [True, True]})
    assert flags.ireval.confusion("label", "pred")[["tp", "fp"]].iloc[0].tolist() == [1, 1]


# -- validation ----------------------------------------------------------------------------------

def test_null_labels_name_the_column_at_collect_time() -> None:
    bad = PREDS.with_columns(
        pl.when(pl.col("prob") == 0.3).then(None).otherwise(pl.col("label")).alias("label")
    )
    with pytest.raises(ValueError, match=r"1 null values in predictions column 'label' \(first at row 2,"):
        bad.ireval.rates("label", "pred")
    lazy = bad.lazy().ireval.confusion("label", "pred", by="model")  # no error yet: nothing collected
    with pytest.raises(ValueError, match="null values in predictions column 'label'"):
        lazy.collect()
    with pytest.raises(ValueError, match="null values in predictions column 'pred'"):
        PREDS.with_columns(pl.lit(None, pl.Int64).alias("pred")).ireval.confusion_matrix("label", "pred")
    with pytest.raises(ValueError, match="NaN values in predictions column 'prob'"):
        PREDS.with_columns(pl.lit(float("nan")).alias("prob")).ireval.roc("label", "prob")


def test_wrong_label_types_name_the_column() -> None:
    with pytest.raises(TypeError, match=r"predictions column 'label' must hold class labels .*got Float64"):
        PREDS.with_columns(pl.col("label").cast(pl.Float64)).ireval.rates("label", "pred")
    same_kind = r"columns 'label' \(Int64\) and 'pred' \(String\) must hold the same kind"
    with pytest.raises(TypeError, match=same_kind):
        PREDS.with_columns(pl.col("pred").cast(pl.String)).ireval.confusion("label", "pred")
    with pytest.raises(TypeError, match="predictions column 'prob' must be numeric, got String"):
        PREDS.with_columns(pl.col("prob").cast(pl.String)).ireval.roc("label", "prob")
    with pytest.raises(TypeError, match=r"positive='yes' is not a possible label of predictions column"):
        PREDS.ireval.rates("label", "pred", positive="yes")
    with pytest.raises(ValueError, match="predictions has no column 'truth'"):
        PREDS.ireval.confusion("truth", "pred")


def test_integer_labels_beyond_0_1_need_a_choice() -> None:
    three = PREDS.with_columns(
        pl.when(pl.col("prob") > 0.85).then(2).otherwise(pl.col("label")).alias("label")
    )
    with pytest.raises(ValueError, match=r"1 values in predictions column 'label' are neither 0 nor 1 .*2\)"):
        three.ireval.confusion("label", "pred")
    assert three.ireval.confusion("label", "pred", positive=None)["class"].to_list() == [0, 1, 2]
    assert three.ireval.rates("label", "pred", metrics=["recall"], average="macro").height == 1
    assert three.ireval.rates("label", "pred", metrics=["recall"], positive=2).height == 1


def test_score_outside_declared_range_names_the_column() -> None:
    bad = PREDS.with_columns(pl.when(pl.col("prob") == 0.6).then(1.2).otherwise(pl.col("prob")).alias("prob"))
    bad.ireval.roc("label", "prob")  # no range declared: fine
    message = r"1 values in predictions column 'prob' are outside the declared score range \[0.0, 1.0\]"
    with pytest.raises(ValueError, match=message + r" \(first at row 11, counting from 0: 1.2\)"):
        bad.ireval.roc("label", "prob", score_range=(0, 1))
    lazy = bad.lazy().ireval.pr_curve("label", "prob", score_range=(0, 1))
    with pytest.raises(ValueError, match="outside the declared score range"):
        lazy.collect()
    with pytest.raises(ValueError, match="score_range must have low <= high"):
        PREDS.ireval.roc("label", "prob", score_range=(1, 0))


def test_argument_errors() -> None:
    with pytest.raises(ValueError, match=r"average must be None \(or .binary.*\), .micro., .macro. or"):
        PREDS.ireval.rates("label", "pred", average="samples")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"either positive= .* or average="):
        PREDS.ireval.rates("label", "pred", positive=1, average="macro")
    with pytest.raises(ValueError, match="ROC_AUC is computed from scores"):
        PREDS.ireval.rates("label", "pred", metrics=["recall", "ROC AUC"])
    with pytest.raises(ValueError, match=r"zero_division must be None .* or a number"):
        PREDS.ireval.rates("label", "pred", zero_division="warn")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="by column 'class' clashes"):
        PREDS.rename({"model": "class"}).ireval.rates("label", "pred", by="class")
    strings = PREDS.with_columns(pl.col("label", "pred").cast(pl.String))
    with pytest.raises(ValueError, match="holds String labels: pass positive=<label>"):
        strings.ireval.roc("label", "prob")
    assert strings.ireval.roc("label", "prob", positive="1").height == PREDS["prob"].n_unique()
    with pytest.raises(ValueError, match=r"positive=None .* is for frame.ireval.rates"):
        C.recall("label", "pred", positive=None)
    with pytest.raises(ValueError, match="beta must be a number >= 0"):
        C.fbeta("label", "pred", beta=-1)


def test_per_class_curves_need_labels_of_the_right_type() -> None:
    mapping = {0: "prob", 1: "prob"}
    curves = PREDS.ireval.roc("label", mapping, by="model")
    assert curves.columns[:3] == ["model", "class", "threshold"]
    with pytest.raises(TypeError, match="score key='x' is not a possible label of predictions column"):
        PREDS.ireval.roc("label", {"x": "prob"})
