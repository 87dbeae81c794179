"""Data as users hold it: DataFrames with string, category and bool
columns read by odt as categories, scipy sparse input, and no file left
behind on any exit."""

import csv
import json
import os
import signal
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest

from conftest import TESTDATA, run_odt, shared_dir, solve_json
from odtkit import OptimalTreeClassifier

pd = pytest.importorskip("pandas")


def stringified(path, label=None):
    """The CSV file at PATH as a DataFrame of strings ("v" + value) and its
    label column (kept as written)."""
    df = pd.read_csv(path, dtype=str, encoding="utf-8-sig")
    label = label or df.columns[-1]
    y = df.pop(label)
    return df.apply(lambda c: "v" + c.str.strip()), y


def write_frame(df, y, path):
    out = df.copy()
    out["target"] = y.values
    out.to_csv(path, index=False)
    return path


def tree_shape(model, perm=None):
    """Each node's test (feature, category or threshold, successors) or its
    leaf counts, the counts reordered by PERM when given."""
    out = []
    for nd in model["nodes"]:
        if "class" in nd:
            c = nd.get("counts") or []
            out.append(("leaf", tuple(c[i] for i in perm) if perm else tuple(c)))
        else:
            out.append((nd["feature"], nd.get("category"), nd.get("threshold"), nd["low"], nd["high"]))
    return out


def check_same_as_file(odt, df, y, path, **params):
    """A fit on the DataFrame equals odt solve on the same data as a file:
    same backend, status, optimum, bound and tree (categories by name)."""
    c = OptimalTreeClassifier(**params).fit(df, y)
    flags = []
    if "max_depth" in params:
        flags += ["--depth", str(params["max_depth"])]
    if "backend" in params:
        flags += ["--backend", params["backend"]]
    doc = solve_json(odt, "--threads", "1", *flags, str(path))
    assert c.backend_ == doc["backend"]
    assert c.status_ == doc["status"] == "optimal"
    assert c.result_["objective"] == doc["objective"] and c.result_["lower_bound"] == doc["lower_bound"]
    assert c.error_ == doc["errors"]
    assert c.is_categorical_.all()
    theirs = doc["model"]
    # odt names the file's classes by label; ours are the same classes in the same order
    perm = [theirs["classes"].index(str(k)) for k in c.model_["classes"]]
    assert tree_shape(c.model_) == tree_shape(theirs, perm)
    assert any("category" in nd for nd in c.model_["nodes"])
    return c, doc


def test_string_frame_equals_odt_solve_on_the_file(odt, tmp_path):
    """monk1 (StrongTree's categorical benchmark) with every value a string."""
    df, y = stringified(os.path.join(TESTDATA, "monk1.csv"))
    path = write_frame(df, y, tmp_path / "monk1-strings.csv")
    c, doc = check_same_as_file(odt, df, y, path)
    assert c.backend_ == "dl85"  # auto with categorical columns
    # the same optimum as the numeric file, whose columns odt reads as numbers
    num = solve_json(odt, "--threads", "1", os.path.join(TESTDATA, "monk1.csv"))
    assert num["optimal"]
    # one-value-per-test on categories can only match or beat thresholds on codes
    assert doc["objective"] <= num["objective"]
    # and the Python predictions are odt predict's on the file
    mfile = tmp_path / "m.json"
    mfile.write_text(json.dumps(doc))
    labels = run_odt(odt, "predict", "--model", str(mfile), str(path)).split()
    assert [str(v) for v in c.predict(df)] == labels


@pytest.mark.parametrize("name", ["strongtree/car-evaluation-s1.csv", "strongtree/monk2-s1.csv",
                                  "cp4im/tic-tac-toe.txt"])
def test_shared_categorical_files(odt, tmp_path, name):
    """The binary columns of StrongTree and CP4IM files as strings ("v0",
    "v1"): the fit is odt solve on the same strings, and reaches the
    optimum of the numeric file."""
    path = shared_dir(os.path.join("data", name))
    if path.endswith(".txt"):
        d = np.loadtxt(path, dtype=int)
        df = pd.DataFrame({f"f{j}": [f"v{v}" for v in d[:, j + 1]] for j in range(d.shape[1] - 1)})
        y = pd.Series(d[:, 0].astype(str))
        numeric = ["--data-format", "text", path]
    else:
        df, y = stringified(path)
        numeric = [path]
    sfile = write_frame(df, y, tmp_path / "strings.csv")
    c, doc = check_same_as_file(odt, df, y, sfile, backend="dl85", max_depth=3)
    num = solve_json(odt, "--threads", "1", "--backend", "dl85", "--depth", "3", *numeric)
    assert num["optimal"] and doc["objective"] == num["objective"]


def test_category_bool_and_object_columns():
    rng = np.random.default_rng(3)
    n = 200
    colour = rng.choice(["red", "green", "blue"], n)
    size = pd.Categorical(rng.choice(["S", "M", "L"], n))
    flag = rng.random(n) < 0.5
    weight = rng.normal(size=n)
    y = np.where((colour == "red") & flag, "yes", "no")
    df = pd.DataFrame({"colour": colour, "size": size, "flag": flag, "weight": weight})
    c = OptimalTreeClassifier(max_depth=2).fit(df, y)
    assert list(c.is_categorical_) == [True, True, True, False]
    assert c.optimal_ and c.error_ == 0
    tests = {(c.model_["features"][nd["feature"]], nd.get("category")) for nd in c.model_["nodes"]
             if "class" not in nd}
    assert ("colour", "red") in tests
    assert ("flag", "True") in tests or ("flag", "False") in tests
    assert (c.predict(df) == y).all()
    # column order is checked by name, as scikit-learn does
    with pytest.raises(ValueError):
        c.predict(df[["size", "colour", "flag", "weight"]])


# Values that need quoting or that odt's CSV reader changes: commas,
# quotes, line breaks (CR LF read as LF), white space at the ends (trimmed),
# "?" and the empty text (a category), None and NaN (missing: the empty text).
TRICKY = ["a,b", 'say "hi"', "two\nlines", "cr\r\nlf", "  padded ", "?", "", None, "plain",
          "tab\tinside", "é ünï", "x\x1cy"]


CANON = {"a,b": "a,b", 'say "hi"': 'say "hi"', "two\nlines": "two\nlines", "cr\r\nlf": "cr\nlf",
         "  padded ": "padded", "?": "?", "": "", None: "", "plain": "plain", "tab\tinside": "tab\tinside",
         "é ünï": "é ünï", "x\x1cy": "x\x1cy"}


@pytest.mark.parametrize("targets", [{"a,b", 'say "hi"', "two\nlines", "cr\nlf"},
                                     {"padded", "?", "", "tab\tinside"},
                                     {"é ünï", "x\x1cy", "plain", "?"}])
def test_tricky_categories_reach_odt_intact(targets):
    rng = np.random.default_rng(len(targets))
    col = [TRICKY[i % len(TRICKY)] for i in range(5 * len(TRICKY))]
    y = np.array([int(CANON[v] in targets) for v in col])
    df = pd.DataFrame({"c": pd.Series(col, dtype=object), "noise": rng.integers(0, 2, len(col))})
    c = OptimalTreeClassifier(backend="dl85", max_depth=4).fit(df, y)
    # a chain of four tests fits: odt verified it on the values as it read them,
    # and Python, applying it to the values as it maps them, agrees
    assert c.optimal_ and c.error_ == 0
    assert (c.predict(df) == y).all()
    cats = {nd["category"] for nd in c.model_["nodes"] if "category" in nd}
    assert cats and cats <= set(CANON.values())


def test_same_text_categories_refused():
    df = pd.DataFrame({"c": ["a", " a", "b", "b"]})
    with pytest.raises(ValueError, match=r"column 'c'.*'a'.*' a'"):
        OptimalTreeClassifier().fit(df, [0, 1, 0, 1])
    df = pd.DataFrame({"c": pd.Series([1, "1", "b", "b"], dtype=object)})
    with pytest.raises(ValueError, match="same category"):
        OptimalTreeClassifier().fit(df, [0, 1, 0, 1])


def test_unseen_category_predicts_as_odt_predict(odt, tmp_path):
    df, y = stringified(os.path.join(TESTDATA, "monk1.csv"))
    c = OptimalTreeClassifier(backend="dl85", max_depth=3).fit(df, y)
    rng = np.random.default_rng(0)
    new = df.sample(40, random_state=1).reset_index(drop=True)
    for col in new.columns:
        new.loc[rng.random(len(new)) < 0.4, col] = "never-seen"
    mfile = tmp_path / "m.json"
    mfile.write_text(json.dumps(c.model_))
    rows = tmp_path / "rows.csv"
    new.to_csv(rows, index=False, quoting=csv.QUOTE_MINIMAL)
    cols = ",".join(new.columns)
    labels = run_odt(odt, "predict", "--model", str(mfile), "--categorical", cols, str(rows)).split()
    assert [str(v) for v in c.predict(new)] == labels


def test_sparse_input_and_sparse_one_hot_pipeline(iris):
    sp = pytest.importorskip("scipy.sparse")
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import OneHotEncoder
    _, X, y = iris
    dense = OptimalTreeClassifier(max_depth=2).fit(X, y)
    for fmt in ("csr", "csc", "coo"):
        s = OptimalTreeClassifier(max_depth=2).fit(sp.csr_matrix(X).asformat(fmt), y)
        assert s.model_ == dense.model_
        assert (s.predict(sp.csr_matrix(X)) == dense.predict(X)).all()
    df, yy = stringified(os.path.join(TESTDATA, "monk1.csv"))
    pipe = make_pipeline(OneHotEncoder(handle_unknown="ignore"),
                         OptimalTreeClassifier(backend="dl85", max_depth=3))
    pipe.fit(df, yy)
    direct = OptimalTreeClassifier(backend="dl85", max_depth=3).fit(df, yy)
    assert pipe[-1].objective_ == direct.objective_  # one-hot columns: the same tests
    assert (pipe.predict(df) == direct.predict(df)).all()


def test_sparse_too_large_is_refused_with_its_size():
    sp = pytest.importorskip("scipy.sparse")
    X = sp.random(2000, 1000, density=0.001, format="csr", random_state=0)
    y = np.arange(2000) % 2
    with pytest.raises(ValueError, match=r"2000 x 1000.*15\.3 MB.*memory_limit=10 MB"):
        OptimalTreeClassifier(memory_limit=10).fit(X, y)


def test_zero_weights_refused_without_internal_paths(iris):
    _, X, y = iris
    with pytest.raises(ValueError) as e:
        OptimalTreeClassifier().fit(X, y, sample_weight=np.zeros(len(y)))
    msg = str(e.value)
    assert "sample_weight" in msg
    assert "/" not in msg and "data.csv" not in msg and "odtkit-" not in msg
    # errors odt itself reports name "the data", not a path of this package
    with pytest.raises(ValueError) as e:
        OptimalTreeClassifier(backend="sat-depth", objective="min-depth", max_depth=None,
                              options={"drop-conflicts": "maybe"}).fit(X, y)
    assert "/dev/stdin" not in str(e.value) and "odtkit-" not in str(e.value)


FIT_SCRIPT = """
import sys
sys.path[:0] = %r
from test_limits import hard_rows
from odtkit import OptimalTreeClassifier
X, y = hard_rows()
print("fitting", flush=True)
OptimalTreeClassifier(backend="dl85", max_depth=6).fit(X, y)
print("finished", flush=True)
"""


def _odt_child(pid, deadline=60):
    from test_limits import _children
    end = time.monotonic() + deadline
    while time.monotonic() < end:
        kids = _children(pid)
        if kids:
            return kids[0]
        time.sleep(0.05)
    return None


@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGTERM])
def test_nothing_left_behind_when_python_is_killed(tmp_path, sig):
    from test_limits import _alive
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    script = tmp_path / "fit.py"
    script.write_text(textwrap.dedent(FIT_SCRIPT % [os.path.dirname(os.path.abspath(__file__))]))
    env = dict(os.environ, TMPDIR=str(tmp), TEMP=str(tmp), TMP=str(tmp))
    p = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True, env=env)
    child = _odt_child(p.pid)
    assert child is not None, "odt did not start"
    time.sleep(0.3)
    assert _alive(child)
    p.send_signal(sig)
    p.communicate(timeout=30)
    for _ in range(100):
        if not _alive(child):
            break
        time.sleep(0.05)
    survived = _alive(child)
    if survived:
        os.kill(child, signal.SIGKILL)
    assert not survived, f"odt {child} survived its Python"
    assert sorted(os.listdir(tmp)) == [], "files left behind in TMPDIR"


def test_no_file_written_by_a_fit(iris, tmp_path, monkeypatch):
    import tempfile
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    _, X, y = iris
    seen = []

    def spy(*a, **k):
        seen.append(a)
        raise AssertionError("a fit made a temporary file")
    for name in ("mkdtemp", "mkstemp", "NamedTemporaryFile", "TemporaryDirectory"):
        monkeypatch.setattr(tempfile, name, spy)
    OptimalTreeClassifier(max_depth=2).fit(X, y)
    assert not seen and os.listdir(tmp_path) == []
