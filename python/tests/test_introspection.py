"""Introspection as scikit-learn users expect it: depth, leaves, feature
importances, apply, decision_path, and text and Graphviz output with class
names and counts in classes_ order (a diagram's shared nodes once)."""

import doctest
import re

import numpy as np
import pytest

from odtkit import DecisionDiagramClassifier, OptimalTreeClassifier, _estimators

# iris's classes renamed so that odt's order (first seen: zeta, alpha, mid)
# differs from classes_ (sorted: alpha, mid, zeta)
NAMES = np.array(["zeta", "alpha", "mid"])


def leaf_lines(text):
    return [ln.strip() for ln in text.splitlines() if ln.strip().startswith("class:")]


def test_text_labels_counts_in_classes_order(iris):
    _, X, y = iris
    labels = NAMES[y]
    c = OptimalTreeClassifier(backend="dl85", max_depth=2).fit(X, labels)
    assert list(c.classes_) == ["alpha", "mid", "zeta"]
    lines = leaf_lines(c.to_text())
    assert len(lines) == c.get_n_leaves()
    leaves = c.apply(X)
    for k in np.unique(leaves):
        rows = leaves == k
        counts = [int(np.sum(labels[rows] == name)) for name in c.classes_]
        want = ", ".join(f"{name}: {n}" for name, n in zip(c.classes_, counts))
        winner = c.predict(X[rows][:1])[0]
        assert f"class: {winner} ({want})" in lines
    dot = c.to_dot()
    assert dot.count("shape=box") == c.get_n_leaves()
    assert "zeta: 50" in dot or "zeta: 49" in dot


def test_depth_leaves_apply_decision_path(iris):
    sp = pytest.importorskip("scipy.sparse")
    _, X, y = iris
    c = OptimalTreeClassifier(backend="dl85", max_depth=3).fit(X, y)
    nodes = c.model_["nodes"]
    assert c.get_depth() == 3
    assert c.get_n_leaves() == sum("class" in nd for nd in nodes)
    leaves = c.apply(X)
    assert leaves.shape == (150,) and all("class" in nodes[k] for k in leaves)
    # a leaf's class is the prediction
    pos = {str(k): i for i, k in enumerate(c.classes_)}
    assert all(pos[c.model_["classes"][nodes[k]["class"]]] == pos[str(p)]
               for k, p in zip(leaves, c.predict(X)))
    path = c.decision_path(X)
    assert sp.isspmatrix_csr(path) and path.shape == (150, len(nodes))
    dense = path.toarray()
    root = [i for i, nd in enumerate(nodes) if nd["id"] == c.model_["root"]][0]
    assert (dense[:, root] == 1).all()
    assert (dense[np.arange(150), leaves] == 1).all()
    # each path is the root, then each node's chosen successor, down to the leaf
    for i in range(0, 150, 7):
        on = set(np.flatnonzero(dense[i]))
        k, seen = root, [root]
        while "class" not in nodes[k]:
            nxt = [j for j in (nodes[k]["low"], nodes[k]["high"]) if j in on]
            assert len(nxt) == 1
            k = nxt[0]
            seen.append(k)
        assert set(seen) == on and k == leaves[i]


def test_feature_importances_are_error_reductions(iris):
    _, X, y = iris
    c = OptimalTreeClassifier(backend="dl85", max_depth=3).fit(X, y)
    imp = c.feature_importances_
    assert imp.shape == (4,) and imp.sum() == pytest.approx(1.0) and (imp >= 0).all()
    used = {nd["feature"] for nd in c.model_["nodes"] if "class" not in nd}
    assert set(np.flatnonzero(imp > 0)) <= used
    # in a tree the reductions add up to the root's error (50 + 50 of the
    # 150 rows are not the majority) minus the tree's training errors
    assert c._error_reduction.sum() == pytest.approx(100 - c.error_)
    # the root's test alone: one split of iris removes 50 errors
    one = OptimalTreeClassifier(backend="dl85", max_depth=1).fit(X, y)
    assert one._error_reduction.sum() == pytest.approx(50)
    assert np.count_nonzero(one.feature_importances_) == 1


def test_feature_importances_weighted(iris):
    _, X, y = iris
    w = np.where(y == 0, 3.0, 1.0)
    c = OptimalTreeClassifier(backend="dl85", max_depth=1).fit(X, y, sample_weight=w)
    # the root test separates class 0 (weight 150) from the rest (weight 100)
    assert c._error_reduction.sum() == pytest.approx(100 - (c.result_["objective"] - 0))


def test_diagram_text_shows_shared_nodes_once(vote):
    _, X, y = vote
    d = DecisionDiagramClassifier(skeleton=(1, 2, 2), backend="sat-odd", time_limit=60).fit(
        X[:80], np.array(["republican", "democrat"])[y[:80]])
    nodes = d.model_["nodes"]
    indeg = {nd["id"]: 0 for nd in nodes}
    for nd in nodes:
        if "class" not in nd:
            indeg[nd["low"]] += 1
            indeg[nd["high"]] += 1
    shared = [i for i, k in indeg.items() if k > 1]
    assert shared, "this diagram shares no node; the test needs one"
    text = d.to_text()
    # every leaf once, with its counts; a shared node labelled once, referred to after
    assert len(leaf_lines(text)) == d.get_n_leaves()
    for i in shared:
        assert len(re.findall(rf"\[n{i}\]$", text, re.M)) >= 1
        assert len(re.findall(rf"-> \[n{i}\]$", text, re.M)) == indeg[i] - 1
    dot = d.to_dot()
    assert len(re.findall(r"^  n\d+ \[shape", dot, re.M)) == len(nodes)
    assert d.get_depth() <= 3
    # the leaves' counts add up to the rows once each: no leaf counted twice
    total = sum(int(n) for ln in leaf_lines(text) for n in re.findall(r": (\d+)", ln))
    assert total == 80


def test_help_says_what_replaces_tree_():
    doc = OptimalTreeClassifier.__doc__
    for word in ("get_depth()", "get_n_leaves()", "feature_importances_", "apply(X)", "decision_path(X)",
                 "to_text()", "to_dot()", "tree_", "export_text", "plot_tree", "categorical",
                 "status_", "cancelled", "verbose", "random_state", "certified_", "objective_",
                 "error_", "accuracy_", "runtime_", "max_depth", "None"):
        assert word in doc, word
    assert not hasattr(OptimalTreeClassifier(), "tree_")


def test_docstring_example_runs():
    pytest.importorskip("pandas")
    finder = doctest.DocTestFinder()
    runner = doctest.DocTestRunner()
    for t in finder.find(_estimators.OptimalTreeClassifier, "OptimalTreeClassifier", globs={}):
        if t.name == "OptimalTreeClassifier":
            assert t.examples
            runner.run(t)
    assert runner.failures == 0 and runner.tries > 0
