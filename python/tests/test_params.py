"""Parameters checked in Python (each refusal a ValueError naming it) and
the flags they become."""

import numpy as np
import pytest

from odtkit import DecisionDiagramClassifier, OptimalTreeClassifier, _api, _runner


class Stop(Exception):
    pass


@pytest.fixture
def odt_args(monkeypatch):
    """The arguments of the next odt run, which is not made."""
    calls = []

    def fake(args, **kw):
        calls.append(list(args))
        raise Stop
    monkeypatch.setattr(_runner, "run", fake)

    def args_of(est, X, y):
        with pytest.raises(Stop):
            est.fit(X, y)
        return calls[-1]
    return args_of


def flag(args, name):
    return args[args.index(name) + 1] if name in args else None


@pytest.mark.parametrize("cw,match", [
    ({0: -1}, r"class_weight.*class 0.*-1"),
    ({0: float("nan")}, "class_weight"),
    ({0: 0, 1: 0, 2: 0}, "class_weight.*weighs 0"),
    ("heavy", "class_weight"),
])
def test_class_weight_refused(iris, cw, match):
    _, X, y = iris
    with pytest.raises(ValueError, match=match):
        OptimalTreeClassifier(class_weight=cw).fit(X, y)


def test_class_weight_zero_for_one_class_keeps_it_in_classes(iris):
    _, X, y = iris
    c = OptimalTreeClassifier(class_weight={0: 0}).fit(X, y)
    assert list(c.classes_) == [0, 1, 2]
    assert c.result_["rows"] == 100  # the weight-0 rows are left out, by request


@pytest.mark.parametrize("params,name", [
    (dict(time_limit=-1), "time_limit"),
    (dict(time_limit=0), "time_limit"),
    (dict(time_limit=float("inf")), "time_limit"),
    (dict(time_limit="10s"), "time_limit"),
    (dict(memory_limit=-1), "memory_limit"),
    (dict(memory_limit=0), "memory_limit"),
    (dict(memory_limit=1.5), "memory_limit"),
    (dict(max_depth=2.5), "max_depth"),
    (dict(max_depth="3"), "max_depth"),
    (dict(max_depth=True), "max_depth"),
    (dict(max_depth=-1), "max_depth"),
    (dict(max_nodes=1.5), "max_nodes"),
    (dict(min_support=0), "min_support"),
    (dict(min_support=2.0), "min_support"),
    (dict(leaf_cost=-0.1), "leaf_cost"),
    (dict(threads=-1), "threads"),
    (dict(random_state=-1), "random_state"),
    (dict(random_state="x"), "random_state"),
    (dict(verbose=-1), "verbose"),
    (dict(objective="diagram"), "objective"),
])
def test_tree_parameters_refused_by_name(iris, params, name):
    _, X, y = iris
    with pytest.raises(ValueError, match=name):
        OptimalTreeClassifier(**params).fit(X, y)


@pytest.mark.parametrize("params,name", [
    (dict(skeleton=(2, 2)), "skeleton"),
    (dict(skeleton=(1, 0)), "skeleton"),
    (dict(skeleton=(1, 1.5)), "skeleton"),
    (dict(alpha=-1), "alpha"),
    (dict(time_limit=-5), "time_limit"),
])
def test_diagram_parameters_refused_by_name(iris, params, name):
    _, X, y = iris
    with pytest.raises(ValueError, match=name):
        DecisionDiagramClassifier(**params).fit(X, y)


def test_min_support_above_the_rows(iris):
    _, X, y = iris
    with pytest.raises(ValueError, match=r"min_support=200 .*150 training rows"):
        OptimalTreeClassifier(min_support=200).fit(X, y)
    # the rows that count are those of weight above 0
    w = np.r_[np.ones(100), np.zeros(50)]
    with pytest.raises(ValueError, match=r"min_support=120 .*100 training rows"):
        OptimalTreeClassifier(min_support=120).fit(X, y, sample_weight=w)
    assert OptimalTreeClassifier(min_support=150).fit(X, y).get_n_leaves() == 1


def test_tiny_time_limit_stays_a_limit(odt_args, iris):
    _, X, y = iris
    assert _api.problem_args(time_limit=0.0004) == ["--time-limit", "400us"]
    assert _api.problem_args(time_limit=1e-9) == ["--time-limit", "1us"]
    assert _api.problem_args(time_limit=2.5) == ["--time-limit", "2500000us"]
    assert flag(odt_args(OptimalTreeClassifier(time_limit=0.0004), X, y), "--time-limit") == "400us"


def test_tiny_time_limit_stops_a_long_fit():
    """A 0.4 ms limit on a fit that takes minutes: stopped at once (run in a
    child Python, so that a limit lost would fail the test, not hang it)."""
    import os
    import subprocess
    import sys
    code = """
import sys
sys.path[:0] = %r
from test_limits import hard_rows
from odtkit import OptimalTreeClassifier
X, y = hard_rows()
try:
    c = OptimalTreeClassifier(backend="dl85", max_depth=6, time_limit=0.0004).fit(X, y)
    print(c.status_)
except RuntimeError as e:  # stopped before a first tree
    print("no tree:", e)
""" % [os.path.dirname(os.path.abspath(__file__))]
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    assert p.stdout.startswith("time-limit") or "time-limit" in p.stdout or "no-solution" in p.stdout, p.stdout


def test_max_depth_none_is_the_largest_useful_depth(iris):
    _, X, y = iris
    # 40 rows a leaf at least: no tree of 150 rows is deeper than 2
    c = OptimalTreeClassifier(max_depth=None, min_support=40).fit(X, y)
    assert c.result_["problem"]["max_depth"] == 150 // 40 - 1
    two = OptimalTreeClassifier(max_depth=2, min_support=40).fit(X, y)
    assert c.objective_ == two.objective_ and c.optimal_
    # with a node limit odt searches no deeper than the limit
    c = OptimalTreeClassifier(max_depth=None, max_nodes=2, backend="dl85").fit(X, y)
    assert c.result_["depth_reduced"]["used"] <= 2 and c.optimal_
    assert c.get_depth() <= 2
    # min-depth has no depth cap at all
    c = OptimalTreeClassifier(max_depth=None, objective="min-depth", backend="dl85",
                              options={"drop-conflicts": True}).fit(X[:60], y[:60])
    assert "max_depth" not in c.result_["problem"] or c.result_["problem"]["max_depth"] < 0
    assert c.error_ == 0


def test_random_state_is_the_seed(odt_args, iris):
    _, X, y = iris
    assert flag(odt_args(OptimalTreeClassifier(random_state=7), X, y), "--seed") == "7"
    assert flag(odt_args(DecisionDiagramClassifier(random_state=3), X, y), "--seed") == "3"
    assert flag(odt_args(OptimalTreeClassifier(), X, y), "--seed") is None
    rs = np.random.RandomState(0)
    seed = flag(odt_args(OptimalTreeClassifier(random_state=rs), X, y), "--seed")
    assert seed is not None and int(seed) >= 0


def test_diagram_default_time_limit(odt_args, iris):
    from odtkit._estimators import DIAGRAM_TIME_LIMIT
    _, X, y = iris
    d = DecisionDiagramClassifier()
    assert d.time_limit == DIAGRAM_TIME_LIMIT and 0 < DIAGRAM_TIME_LIMIT < float("inf")
    assert "60 seconds" in DecisionDiagramClassifier.__doc__
    assert flag(odt_args(d, X, y), "--time-limit") == f"{int(DIAGRAM_TIME_LIMIT * 1e6)}us"
    assert flag(odt_args(DecisionDiagramClassifier(time_limit=None), X, y), "--time-limit") is None


def test_verbose_flags(odt_args, iris):
    _, X, y = iris
    assert "-q" in odt_args(OptimalTreeClassifier(), X, y)
    assert "-q" not in odt_args(OptimalTreeClassifier(verbose=1), X, y)


def test_data_goes_on_stdin(monkeypatch, iris):
    _, X, y = iris
    seen = {}

    def fake(args, input=None, **kw):
        seen["args"], seen["input"] = list(args), input
        raise Stop
    monkeypatch.setattr(_runner, "run", fake)
    with pytest.raises(Stop):
        OptimalTreeClassifier().fit(X, y)
    assert seen["args"][-1] == _runner.STDIN_PATH
    lines = seen["input"].decode().splitlines()
    assert lines[0] == "x0,x1,x2,x3,y" and len(lines) == 151
    assert [float(v) for v in lines[1].split(",")[:4]] == list(X[0])
