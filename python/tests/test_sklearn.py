"""The estimators under scikit-learn: its estimator checks, model selection,
pipelines, pickling and DataFrames."""

import inspect
import pickle

import numpy as np
import pytest

sklearn = pytest.importorskip("sklearn")

from sklearn.model_selection import GridSearchCV, cross_val_score  # noqa: E402
from sklearn.pipeline import make_pipeline  # noqa: E402
from sklearn.preprocessing import StandardScaler  # noqa: E402
from sklearn.utils.estimator_checks import parametrize_with_checks  # noqa: E402

from conftest import need  # noqa: E402
from odtkit import DecisionDiagramClassifier, OptimalTreeClassifier  # noqa: E402

# The diagram's checks run with a time limit: proving the optimal diagram of
# the checks' random data takes minutes. "auto" is milp-odd, whose first
# diagram (a construction heuristic) comes within a second on an idle machine.
CHECKED = [
    OptimalTreeClassifier(),
    DecisionDiagramClassifier(time_limit=5),
]


_KW = {}
if "expected_failed_checks" in inspect.signature(parametrize_with_checks).parameters:
    _KW["expected_failed_checks"] = lambda est: est._xfail_checks()  # scikit-learn >= 1.6


@parametrize_with_checks(CHECKED, **_KW)
def test_sklearn_estimator_checks(estimator, check, has_highs):
    if isinstance(estimator, DecisionDiagramClassifier):
        need(has_highs, "odt is built without HiGHS: backend auto (milp-odd) cannot solve diagrams")
    check(estimator)


def test_grid_search_over_depth(iris):
    _, X, y = iris
    gs = GridSearchCV(OptimalTreeClassifier(backend="contree"), {"max_depth": [1, 2, 3]}, cv=3)
    gs.fit(X, y)
    assert gs.best_params_["max_depth"] in (1, 2, 3)
    scores = gs.cv_results_["mean_test_score"]
    # one split cannot separate three classes: depth 1 is the worst
    assert scores[0] < scores[1] and scores[0] < scores[2]
    assert gs.best_estimator_.optimal_
    assert gs.score(X, y) >= 0.95


def test_cross_val_score(vote):
    _, X, y = vote
    s = cross_val_score(OptimalTreeClassifier(backend="dl85", max_depth=2), X, y, cv=3)
    assert s.shape == (3,) and np.all(s > 0.9)


def test_pipeline_with_scaler(iris):
    _, X, y = iris
    pipe = make_pipeline(StandardScaler(), OptimalTreeClassifier(max_depth=2))
    pipe.fit(X, y)
    tree = pipe[-1]
    direct = OptimalTreeClassifier(max_depth=2).fit(X, y)
    # scaling is monotone: the same number of errors, proven either way
    assert tree.optimal_ and direct.optimal_
    assert tree.objective_ == direct.objective_
    assert np.array_equal(pipe.predict(X), direct.predict(X))


def test_pickle_fitted(iris):
    _, X, y = iris
    c = OptimalTreeClassifier(max_depth=2).fit(X, y)
    c2 = pickle.loads(pickle.dumps(c))
    assert c2.get_params() == c.get_params()
    assert c2.model_ == c.model_ and c2.optimal_ == c.optimal_
    assert np.array_equal(c2.predict(X), c.predict(X))
    assert np.array_equal(c2.predict_proba(X), c.predict_proba(X))


def test_dataframe_feature_names(iris):
    pd = pytest.importorskip("pandas")
    _, X, y = iris
    names = ["sepal length", "sepal_width", "petal,length", "petal width"]
    df = pd.DataFrame(X, columns=names)
    labels = np.array(["setosa", "versicolor", "virginica"])[y]
    c = OptimalTreeClassifier(max_depth=2).fit(df, labels)
    assert list(c.feature_names_in_) == names
    assert c.n_features_in_ == 4
    assert c.model_["features"] == names
    assert sorted(c.model_["classes"]) == ["setosa", "versicolor", "virginica"]
    assert list(c.classes_) == ["setosa", "versicolor", "virginica"]
    text = c.to_text()
    assert "petal,length" in text or "petal width" in text
    assert set(c.predict(df)) <= set(c.classes_)
    assert c.score(df, labels) == pytest.approx(144 / 150)
    # columns in another order are refused, as scikit-learn does
    with pytest.raises(ValueError):
        c.predict(df[names[::-1]])


def test_class_weight_balanced_matches_odt(odt, iris):
    from conftest import solve_json
    path, X, y = iris
    keep = np.r_[0:50, 50:70, 100:150]  # 50 / 20 / 50 rows
    c = OptimalTreeClassifier(backend="dl85", max_depth=2, class_weight="balanced").fit(X[keep], y[keep])
    import os
    import tempfile
    with tempfile.TemporaryDirectory() as d:
        f = os.path.join(d, "sub.csv")
        np.savetxt(f, np.c_[X[keep], y[keep]], fmt=["%.17g"] * 4 + ["%d"], delimiter=",",
                   header="a,b,c,d,y", comments="")
        doc = solve_json(odt, "--backend", "dl85", "--depth", "2", "--class-weight", "balanced", f)
    assert c.result_["objective"] == pytest.approx(doc["objective"])
    # balanced weights sum to the number of rows: objective_ is the weighted error rate
    assert c.objective_ == pytest.approx(doc["objective"] / len(keep))
    assert c.optimal_ and doc["optimal"]
