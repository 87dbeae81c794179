"""odtkit.solve, export, decode, backends, the binary's lookup and errors."""

import json
import os
import shutil
import subprocess

import numpy as np
import pytest

import odtkit
from odtkit import _runner
from conftest import need, run_odt


def test_solve_result(vote):
    _, X, y = vote
    r = odtkit.solve(X, y, backend="dl85", max_depth=2)
    assert r.status == "optimal" and r.optimal
    assert r.objective == r.lower_bound == r.errors
    assert r.model["kind"] == "tree"
    assert np.sum(r.predict(X) != y) == r.errors
    assert r.raw["backend"] == "dl85"
    assert "class:" in r.to_text() and r.to_dot().startswith("digraph")


def test_solve_sparse_and_options(iris):
    _, X, y = iris
    plain = odtkit.solve(X, y, backend="dl85", max_depth=3)
    sparse = odtkit.solve(X, y, backend="dl85", max_depth=3, leaf_cost=0.05, max_nodes=2)
    n_tests = sum("class" not in nd for nd in sparse.model["nodes"])
    assert n_tests <= 2
    assert sparse.errors >= plain.errors
    with pytest.raises(ValueError, match="nope"):
        odtkit.solve(X, y, backend="dl85", options={"nope": 1})


def test_backends_registry(odt):
    bs = odtkit.backends()
    raw = json.loads(run_odt(odt, "backends", "--format", "json"))
    assert [b.name for b in bs] == [b["name"] for b in raw]
    by = {b.name: b for b in bs}
    assert by["dl85"].family == "dp" and by["dl85"].exact and "error" in by["dl85"].objectives
    assert by["sat-odd"].family == "sat" and "diagram" in by["sat-odd"].objectives
    assert by["cart"].exact is False
    assert any(p.name == "cache-mb" for p in by["dl85"].params)


def test_export_decode_dimacs(vote, tmp_path):
    need(shutil.which("minisat"), "minisat is not installed")
    _, X, y = vote
    X, y = X[:60], y[:60]
    cnf = tmp_path / "f.cnf"
    assert odtkit.export(X, y, to="dimacs", backend="sat-depth", max_depth=3, path=str(cnf)) == str(cnf)
    assert cnf.read_text().startswith("c ")
    text = odtkit.export(X, y, to="dimacs", backend="sat-depth", max_depth=3)
    header = [ln for ln in text.splitlines() if ln.startswith("p cnf")]
    assert header and header[0] in cnf.read_text()
    out = tmp_path / "f.out"
    subprocess.run(["minisat", str(cnf), str(out)], capture_output=True)
    r = odtkit.decode(X, y, str(out), backend="sat-depth", max_depth=3)
    assert r.model is not None and r.errors == 0
    assert np.array_equal(r.predict(X), y)


def test_export_wcnf_and_mps_text(iris):
    _, X, y = iris
    wcnf = odtkit.export(X[:40], y[:40], to="wcnf", backend="sat-odt", max_depth=2)
    assert "p wcnf" in wcnf or "\nh " in wcnf
    mps = odtkit.export(X[:40], y[:40], to="mps", backend="milp-odd", skeleton=(1, 2), alpha=0.01)
    assert "ROWS" in mps and "COLUMNS" in mps


def test_bad_input_is_value_error(iris):
    _, X, y = iris
    with pytest.raises(ValueError) as e:
        odtkit.solve(X, y, backend="no-such-backend")
    assert "no-such-backend" in str(e.value)
    with pytest.raises(ValueError):
        odtkit.solve(X, y, max_depth=-1)
    with pytest.raises(ValueError):
        odtkit.solve(X[:1], y[:1])
    with pytest.raises(ValueError):
        odtkit.solve(np.array([[np.nan, 1.0], [1.0, 2.0]]), [0, 1])


def test_runtime_failure_is_runtime_error(monkeypatch, tmp_path, vote):
    _, X, y = vote
    # odt's exit code 1 (a runtime failure) and a death by signal
    fake = tmp_path / "odt"
    fake.write_text("#!/bin/sh\necho 'odt solve: backend dl85: out of luck' >&2\nexit 1\n")
    fake.chmod(0o755)
    monkeypatch.setenv("ODTKIT_ODT", str(fake))
    with pytest.raises(RuntimeError, match="out of luck"):
        odtkit.solve(X, y)
    fake.write_text("#!/bin/sh\nkill -9 $$\n")
    with pytest.raises(RuntimeError, match="signal 9"):
        odtkit.solve(X, y)


def test_find_odt_order(monkeypatch, tmp_path, odt):
    fake = tmp_path / "odt"
    fake.write_text("#!/bin/sh\n")
    fake.chmod(0o755)
    monkeypatch.setenv("ODTKIT_ODT", str(fake))
    assert odtkit.find_odt() == str(fake)
    monkeypatch.setenv("ODTKIT_ODT", str(tmp_path / "missing"))
    with pytest.raises(FileNotFoundError, match="ODTKIT_ODT"):
        odtkit.find_odt()
    monkeypatch.delenv("ODTKIT_ODT")
    monkeypatch.setattr(_runner, "_BUNDLED", str(tmp_path / "bin" / "odt"))
    monkeypatch.setenv("PATH", str(tmp_path))
    assert odtkit.find_odt() == str(fake)  # on the PATH
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    with pytest.raises(FileNotFoundError) as e:
        odtkit.find_odt()
    msg = str(e.value)
    assert "ODTKIT_ODT" in msg and "bundled" in msg and "PATH" in msg


def test_without_scikit_learn(iris):
    """numpy alone is enough: the estimators keep fit, predict, score and params."""
    path = os.path.dirname(os.path.abspath(odtkit.__file__))
    code = f"""
import sys
sys.modules["sklearn"] = None   # import sklearn fails
sys.path.insert(0, {os.path.dirname(path)!r})
import numpy as np
from odtkit import OptimalTreeClassifier
d = np.loadtxt({iris[0]!r}, delimiter=",", skiprows=1)
c = OptimalTreeClassifier(max_depth=2).set_params(backend="dl85").fit(d[:, :4], d[:, 4])
assert c.get_params()["backend"] == "dl85"
print(c.optimal_, c.score(d[:, :4], d[:, 4]), c.predict_proba(d[:1, :4]).shape)
"""
    p = subprocess.run([os.sys.executable, "-c", code], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    assert p.stdout.split() == ["True", "0.96", "(1,", "3)"]
