"""A fit equals odt solve on the same rows: the same objective, bound, proof
and tree, for a DP, a SAT and a MILP backend."""

import pytest

from conftest import need, run_odt, solve_json

from odtkit import OptimalTreeClassifier

CASES = [
    # (backend, data fixture, depth); milp-flowoct at depth 1: deeper proofs take seconds to minutes
    ("dl85", "vote", 2),
    ("dl85", "iris", 3),
    ("sat-odt", "vote", 2),
    ("sat-odt", "iris", 2),
    ("milp-flowoct", "iris", 1),
]


def _shape(model):
    """The tree without names: each node's test or its leaf counts."""
    out = []
    for nd in model["nodes"]:
        if "class" in nd:
            out.append(("leaf", tuple(nd.get("counts") or ())))
        else:
            out.append((nd["feature"], nd["threshold"], nd["low"], nd["high"]))
    return out


@pytest.mark.parametrize("backend,data,depth", CASES)
def test_fit_equals_odt_solve(request, odt, has_highs, backend, data, depth, tmp_path):
    if backend.startswith("milp"):
        need(has_highs, "odt is built without HiGHS: milp-flowoct cannot solve")
    path, X, y = request.getfixturevalue(data)
    doc = solve_json(odt, "--backend", backend, "--depth", str(depth), "--threads", "1", path)
    c = OptimalTreeClassifier(backend=backend, max_depth=depth).fit(X, y)
    assert c.backend_ == doc["backend"] == backend
    assert c.status_ == doc["status"] == "optimal"
    assert c.optimal_ is True and doc["optimal"] is True
    # objective_ in fixed units: the training error rate (odt's count / rows)
    assert c.result_["objective"] == doc["objective"]
    assert c.objective_ == pytest.approx(doc["objective"] / doc["rows"], rel=1e-12)
    assert c.lower_bound_ == pytest.approx(doc["lower_bound"] / doc["rows"], rel=1e-12)
    assert c.result_["errors"] == doc["errors"] == c.error_
    assert c.accuracy_ == pytest.approx(1 - doc["errors"] / doc["rows"])
    # the file's classes in the order first seen, ours sorted: compare counts per class label
    theirs = doc["model"]
    perm = [theirs["classes"].index(str(k)) for k in c.model_["classes"]]
    tshape = [("leaf", tuple(s[1][i] for i in perm)) if s[0] == "leaf" else s for s in _shape(theirs)]
    assert _shape(c.model_) == tshape
    # and the same predictions as odt predict with odt's own model on the file
    mfile = tmp_path / "m.json"
    import json
    mfile.write_text(json.dumps(doc))
    labels = run_odt(odt, "predict", "--model", str(mfile), path).split()
    assert [str(v) for v in c.predict(X)] == labels
