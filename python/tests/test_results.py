"""What a fit reports, as pydl8.5 and pystreed users read it: objective_ in
fixed units, error_, accuracy_, runtime_, progress with verbose=1, and
certified_ when the optimum's proofs are checked."""

import os

import numpy as np
import pytest

from odtkit import OptimalTreeClassifier


def test_objective_in_fixed_units(iris):
    _, X, y = iris
    plain = OptimalTreeClassifier(backend="dl85", max_depth=2).fit(X, y)
    # the training error rate, not a count
    assert plain.objective_ == pytest.approx(plain.error_ / 150)
    assert plain.lower_bound_ == pytest.approx(plain.objective_)
    # with a leaf cost: the same rate plus the cost of the leaves, so a tiny
    # leaf cost changes the objective by a tiny amount
    sparse = OptimalTreeClassifier(backend="dl85", max_depth=2, leaf_cost=1e-6).fit(X, y)
    assert sparse.objective_ == pytest.approx(sparse.error_ / 150 + 1e-6 * sparse.get_n_leaves())
    assert abs(sparse.objective_ - plain.objective_) < 1e-4
    # weighted: weighted errors over the total weight
    w = np.where(y == 2, 2.0, 1.0)
    wt = OptimalTreeClassifier(backend="dl85", max_depth=2).fit(X, y, sample_weight=w)
    wrong = wt.predict(X) != y
    assert wt.objective_ == pytest.approx(w[wrong].sum() / w.sum())


def test_error_accuracy_runtime(iris):
    _, X, y = iris
    c = OptimalTreeClassifier(backend="dl85", max_depth=3).fit(X, y)
    assert c.error_ == int(np.sum(c.predict(X) != y)) == c.result_["errors"]
    assert c.accuracy_ == pytest.approx(c.score(X, y))
    assert 0 < c.runtime_ == c.result_["seconds"]


def test_verbose_streams_progress(iris, capsys):
    _, X, y = iris
    OptimalTreeClassifier(backend="dl85", max_depth=3, verbose=1).fit(X, y)
    err = capsys.readouterr().err
    lines = err.splitlines()
    assert any("incumbent objective" in ln for ln in lines)
    done = [ln for ln in lines if "done:" in ln]
    assert done and "lower bound" in done[0] and "status optimal" in done[0]
    assert "/dev/stdin" not in err
    OptimalTreeClassifier(backend="dl85", max_depth=3).fit(X, y)
    assert capsys.readouterr().err == ""


def test_certified_fit(vote, tmp_path):
    _, X, y = vote
    cert = tmp_path / "cert"
    c = OptimalTreeClassifier(backend="sat-odt", max_depth=2, certify=str(cert)).fit(X[:120], y[:120])
    assert c.optimal_ and c.certified_ is True
    assert c.certificate_["dir"] == str(cert) and os.path.isdir(cert)
    assert str(c.error_) in c.certificate_["claim"]
    # not asked for: not certified
    c = OptimalTreeClassifier(backend="sat-odt", max_depth=2).fit(X[:120], y[:120])
    assert c.optimal_ and c.certified_ is False and c.certificate_ is None
    # a backend without certificates says so
    with pytest.raises(ValueError, match="certify"):
        OptimalTreeClassifier(backend="dl85", certify=str(tmp_path / "c2")).fit(X, y)


def test_certificate_fields_odt_adds_are_kept(monkeypatch, iris):
    """Fields odt's certificate gains later pass through."""
    from odtkit import _api
    doc = {"backend": "sat-odt", "status": "optimal", "optimal": True, "objective": 2, "lower_bound": 2,
           "errors": 2, "rows": 150, "seconds": 0.1, "model": None, "certified": True,
           "certificate": {"dir": "d", "claim": "c", "future_field": [1, 2]}}
    r = _api.result_from_json(doc, np.array([0, 1]), None, 4)
    assert r.certified and r.certificate["future_field"] == [1, 2]
