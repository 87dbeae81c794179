"""Prediction in Python from the model JSON equals odt predict."""

import csv
import io
import json

import numpy as np

from conftest import need, run_odt

from odtkit import DecisionDiagramClassifier, OptimalTreeClassifier


def odt_predict(odt, model, X, tmp_path, proba=False):
    """odt predict with MODEL on the rows X, written as a CSV whose header
    holds the model's feature names."""
    mpath = tmp_path / "model.json"
    mpath.write_text(json.dumps(model))
    dpath = tmp_path / "rows.csv"
    with open(dpath, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(model["features"])
        for row in X:
            w.writerow([repr(float(v)) for v in row])
    args = ["predict", "--model", str(mpath), str(dpath)]
    if proba:
        args.insert(1, "--proba")
    return run_odt(odt, *args)


def check_same(odt, est, X, tmp_path):
    labels = odt_predict(odt, est.model_, X, tmp_path).split()
    assert len(labels) == X.shape[0]
    assert [str(v) for v in est.predict(X)] == labels
    rows = list(csv.reader(io.StringIO(odt_predict(odt, est.model_, X, tmp_path, proba=True))))
    header, values = rows[0], np.array(rows[1:], dtype=float)
    col = {str(c): k for k, c in enumerate(est.classes_)}
    ours = est.predict_proba(X)[:, [col[h] for h in header]]
    np.testing.assert_allclose(ours, values, rtol=1e-9, atol=1e-12)


def test_tree_iris_equals_odt_predict(odt, iris, tmp_path):
    _, X, y = iris
    est = OptimalTreeClassifier(max_depth=3).fit(X, y)
    rng = np.random.default_rng(1)
    # training rows, rows between the training values, rows on the thresholds
    thresholds = [nd["threshold"] for nd in est.model_["nodes"] if "threshold" in nd]
    assert thresholds
    Xt = np.vstack([X, X + rng.normal(0, 0.3, X.shape), np.full((1, 4), thresholds[0])])
    check_same(odt, est, Xt, tmp_path)


def test_weighted_labels_equal_odt_predict(odt, vote, tmp_path):
    _, X, y = vote
    labels = np.array(["republican", "democrat"])[y]
    w = np.linspace(0.5, 2.0, X.shape[0])
    est = OptimalTreeClassifier(backend="dl85", max_depth=3).fit(X, labels, sample_weight=w)
    assert est.optimal_
    check_same(odt, est, X, tmp_path)


def test_diagram_equals_odt_predict(odt, iris, tmp_path):
    _, X, y = iris
    sub = np.r_[0:10, 50:60, 100:110]
    est = DecisionDiagramClassifier(skeleton=(1, 2), backend="sat-odd").fit(X[sub], y[sub])
    assert est.model_["kind"] == "diagram"
    check_same(odt, est, X, tmp_path)


def test_oblique_equals_odt_predict(odt, has_highs, iris, tmp_path):
    need(has_highs, "odt is built without HiGHS: no milp-odd solve")
    _, X, y = iris
    sub = np.r_[0:8, 50:58, 100:108, 20:30, 70:80, 120:130]
    est = DecisionDiagramClassifier(skeleton=(1, 2), alpha=0.0, backend="milp-odd", time_limit=20,
                                    options={"splits": "multivariate"}).fit(X[sub], y[sub])
    assert any("weights" in nd for nd in est.model_["nodes"])
    check_same(odt, est, X, tmp_path)


def test_text_and_dot_as_odt_renders(odt, iris, tmp_path):
    path, X, y = iris
    est = OptimalTreeClassifier(backend="dl85", max_depth=2).fit(X, y)
    # odt's own rendering of the same data (features named 0..3 in iris.csv)
    text = run_odt(odt, "solve", "-q", "--backend", "dl85", "--depth", "2", path)
    model = dict(est.model_, features=["0", "1", "2", "3"])
    from odtkit._model import to_dot, to_text
    body = text[text.index("\n\n") + 2:] if "\n\n" in text else text
    assert to_text(model).strip() in body
    dot = run_odt(odt, "solve", "-q", "--backend", "dl85", "--depth", "2", "--format", "dot", path)
    assert to_dot(model) == dot
