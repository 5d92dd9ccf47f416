"""Regenerate the bundled sample data in examples/data/ (deterministic, stdlib only).

    python examples/make_sample_data.py

Writes a TREC qrels file, a TREC run file holding two systems, and a
classification predictions CSV with two models. The data is synthetic: a
better system (``dense``) and a weaker one (``bm25``) ranking documents for
40 queries with graded judgements (0-3, and a few -1).
"""

from __future__ import annotations

import random
from pathlib import Path

DATA = Path(__file__).resolve().parent / "data"


def make_ranking(rng: random.Random) -> tuple[list[str], list[str]]:
    qrels, run = [], []
    for q in range(401, 441):
        docs = [f"D{q}-{d:03d}" for d in range(rng.randint(60, 120))]
        truth = {}
        for doc in rng.sample(docs, 30):
            truth[doc] = rng.choices([-1, 0, 1, 2, 3], weights=[1, 14, 8, 4, 2])[0]
            qrels.append(f"{q} 0 {doc} {truth[doc]}")
        for system, skill in (("bm25", 0.6), ("dense", 1.2)):
            scored = [(round(rng.gauss(skill * max(truth.get(d, 0), 0), 1.0), 2), d) for d in docs]
            scored.sort(key=lambda pair: (-pair[0], pair[1]))
            for rank, (score, doc) in enumerate(scored[:50], start=1):
                run.append(f"{q} Q0 {doc} {rank} {score} {system}")
    return qrels, run


def make_predictions(rng: random.Random) -> list[str]:
    rows = ["model,segment,label,prob,pred,species_true,species_pred"]
    species = ["cat", "dog", "rabbit"]
    for model, noise in (("logreg", 1.0), ("boosted", 0.6)):
        for i in range(600):
            label = rng.random() < 0.3
            prob = 1 / (1 + 2.718281828 ** -(rng.gauss(1.5 if label else -1.5, 1.6 * noise)))
            truth = rng.choices(species, weights=[5, 4, 1])[0]
            guess = truth if rng.random() > 0.25 * noise else rng.choice(species)
            segment = "web" if i % 3 else "app"
            rows.append(f"{model},{segment},{str(label).lower()},{prob:.4f},{str(prob >= 0.5).lower()},"
                        f"{truth},{guess}")
    return rows


def main() -> None:
    rng = random.Random(20261122)
    DATA.mkdir(exist_ok=True)
    qrels, run = make_ranking(rng)
    (DATA / "qrels.txt").write_text("\n".join(qrels) + "\n")
    (DATA / "runs.txt").write_text("\n".join(run) + "\n")
    (DATA / "predictions.csv").write_text("\n".join(make_predictions(rng)) + "\n")


if __name__ == "__main__":
    main()
