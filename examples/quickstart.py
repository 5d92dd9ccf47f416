"""frame_eval quickstart: evaluate the bundled sample data and print tidy results.

    python examples/quickstart.py

The data in examples/data/ is synthetic (see make_sample_data.py): two
retrieval systems over 40 queries with graded judgements, and two
classifiers' predictions.
"""

from __future__ import annotations

from pathlib import Path

import polars as pl

import frame_eval as fe

DATA = Path(__file__).resolve().parent / "data"
pl.Config.set_tbl_rows(12)


def ranking() -> None:
    runs = fe.scan_trec_run(DATA / "runs.txt").rename({"run_id": "system"})
    qrels = fe.scan_trec_qrels(DATA / "qrels.txt")

    print("Mean over queries, per system (LazyFrame in, LazyFrame out):")
    summary = runs.ireval.summarize(qrels, ["AP", "nDCG@10", "P@5", "RR", "R@100", "NumQ"], by="system")
    print(summary.collect().pivot("metric", index="system", values="value"))

    print("\nPer query, one column per measure:")
    per_query = runs.ireval.evaluate(qrels, ["AP", "nDCG@10", "P@5"], by="system", shape="wide")
    print(per_query.collect().head(4))

    print("\nThe same measures as expressions over the judged frame, next to your own:")
    judged = runs.ireval.judge(qrels, by="system")
    wins = (
        judged.group_by("system", "query_id")
        .agg(fe.ranking.ap(), fe.ranking.ndcg(k=10), fe.ranking.rr())
        .with_columns((pl.col("AP") > pl.col("AP").median().over("query_id")).alias("above_median"))
        .group_by("system")
        .agg(pl.col("above_median").mean().alias("share_of_queries_above_median"), pl.col("RR").mean())
        .sort("system")
    )
    print(wins.collect())


def classification() -> None:
    preds = pl.read_csv(DATA / "predictions.csv")  # model, segment, label, prob, pred, species_*

    print("\nConfusion counts per model (binary: label is Boolean, positive is True):")
    with pl.Config(tbl_cols=10):
        print(preds.ireval.confusion(actual="label", predicted="pred", by="model"))

    print("\nA few rates per model and segment, one column each:")
    rates = preds.ireval.rates(
        actual="label", predicted="pred", by=["model", "segment"],
        metrics=["precision", "recall", "F1", "MCC"],
    )
    print(rates.pivot("metric", index=["model", "segment"], values="value"))

    print("\nThree species, macro-averaged over the classes of each model:")
    species = preds.ireval.rates(
        actual="species_true", predicted="species_pred", by="model",
        metrics=["precision", "recall", "F1", "accuracy"], average="macro",
    )
    print(species.pivot("metric", index="model", values="value"))

    print("\nRanking quality of the scores: ROC AUC, average precision, PR AUC, equal error rate:")
    scores = preds.ireval.scores(actual="label", score="prob", by="model", score_range=(0, 1))
    print(scores.pivot("metric", index="model", values="value"))


if __name__ == "__main__":
    ranking()
    classification()
