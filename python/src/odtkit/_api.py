"""solve, export, decode and backends: the odt commands as Python functions."""

from __future__ import annotations

import json
import math
import numbers
import os
import sys
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Sequence, Tuple

import numpy as np

from . import _data, _model, _runner

# Problem keywords and the odt flags they become.
_FLAGS = {
    "backend": "--backend",
    "objective": "--objective",
    "max_depth": "--depth",
    "min_support": "--min-support",
    "leaf_cost": "--leaf-cost",
    "max_nodes": "--max-nodes",
    "skeleton": "--skeleton",
    "alpha": "--alpha",
    "time_limit": "--time-limit",
    "memory_limit": "--memory-limit",
    "threads": "--threads",
    "seed": "--seed",
}

OBJECTIVES = ("error", "min-depth", "min-size", "diagram")


def _number(name: str, value, positive: bool = False) -> float:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise ValueError(f"{name}={value!r}: a number is expected")
    v = float(value)
    if not math.isfinite(v) or v < 0 or (positive and v == 0):
        raise ValueError(f"{name}={value!r}: must be a finite number " + ("above 0" if positive else "of at least 0"))
    return v


def check_problem(problem: Dict[str, Any]) -> Dict[str, Any]:
    """The problem keywords checked, each refusal a ValueError naming its
    keyword; None leaves a keyword at odt's default."""
    out = {}
    for key, value in problem.items():
        if key not in _FLAGS:
            raise TypeError(f"unknown problem keyword {key!r}; known: {', '.join(sorted(_FLAGS))}, options")
        if value is None:
            out[key] = None
            continue
        if key in ("max_depth", "max_nodes", "threads"):
            value = _data.check_integral(key, value, 0)
        elif key == "min_support":
            value = _data.check_integral(key, value, 1)
        elif key == "memory_limit":
            value = _data.check_integral(key + " (MB)", value, 1)
        elif key == "seed":
            value = _data.check_integral(key, value, -(1 << 63))
        elif key == "time_limit":
            value = _number("time_limit (seconds)", value, positive=True)
        elif key in ("leaf_cost", "alpha"):
            value = _number(key, value)
        elif key == "skeleton":
            try:
                widths = [_data.check_integral("skeleton width", w, 1) for w in value]
            except TypeError:
                raise ValueError(f"skeleton={value!r}: a sequence of layer widths such as (1, 2, 2) is expected") from None
            if not widths or widths[0] != 1:
                raise ValueError(f"skeleton={value!r}: the first layer is the root and must have width 1")
            value = tuple(widths)
        elif key == "objective":
            if value not in OBJECTIVES:
                raise ValueError(f"objective={value!r}: one of {', '.join(OBJECTIVES)} is expected")
        elif key == "backend":
            if not isinstance(value, str) or not value:
                raise ValueError(f"backend={value!r}: a backend name (odtkit.backends()) or 'auto' is expected")
        out[key] = value
    return out


def problem_args(options: Optional[Dict[str, Any]] = None, **problem: Any) -> List[str]:
    """The odt flags of a problem given as keywords (max_depth=3, backend="dl85",
    time_limit=10.0 (seconds), skeleton=(1, 2, 2), ...) and backend options
    (a dict of --opt key=value). None leaves a flag at odt's default."""
    args: List[str] = []
    for key, value in check_problem(problem).items():
        if value is None:
            continue
        flag = _FLAGS[key]
        if key == "time_limit":
            # in microseconds, rounded up: a limit, however small, stays one
            value = f"{max(1, math.ceil(value * 1e6))}us"
        elif key == "skeleton":
            value = ",".join(str(w) for w in value)
        elif isinstance(value, float):
            value = repr(value)
        args += [flag, str(value)]
    for key, value in (options or {}).items():
        if isinstance(value, bool):
            value = "true" if value else "false"
        args += ["--opt", f"{key}={value}"]
    return args


@dataclass
class Result:
    """What odt solve (or decode) reports.

    ``model`` is the model JSON (format odtkit-graph-1) with the caller's
    feature and class names; ``raw`` is the whole result JSON as odt wrote
    it. ``objective`` and ``lower_bound`` are odt's (an error count for the
    error objective without leaf cost); the estimators' ``objective_`` is in
    fixed units (see ``OptimalTreeClassifier``). ``certified`` is True when
    the bound's proofs were checked (the ``certify`` option), and
    ``certificate`` then describes them.
    """

    status: str
    optimal: bool
    objective: Optional[float]
    lower_bound: Optional[float]
    errors: Optional[float]
    backend: str
    seconds: float
    model: Optional[dict]
    classes: np.ndarray
    feature_names: List[str]
    raw: dict = field(repr=False)
    # for each class of the model, its index in classes
    class_index: Optional[np.ndarray] = field(default=None, repr=False)
    categorical: Optional[np.ndarray] = field(default=None, repr=False)
    certified: bool = False
    certificate: Optional[dict] = field(default=None, repr=False)

    def predict(self, X) -> np.ndarray:
        """The model's class labels for the rows of X (columns as in training)."""
        if self.model is None:
            raise ValueError(f"no model to predict with (status {self.status})")
        table = as_table(X, categorical=self.categorical, check=False)
        compiled = _model.CompiledModel(self.model)
        return self.classes[self.class_index[compiled.predict(table)]]

    def to_text(self) -> str:
        """The model as indented text, leaves with their class and the
        training counts of every class (in the order of classes)."""
        if not self.model:
            return "model: none found\n"
        return _model.to_text(self.model, self.classes, self.class_index)

    def to_dot(self) -> str:
        """The model in Graphviz DOT (each node once)."""
        return _model.to_dot(self.model, self.classes, self.class_index) if self.model else ""


def memory_cap_bytes(memory_limit: Optional[int]) -> Tuple[int, str]:
    """The memory odt may use, in bytes, and how to name it: memory_limit
    (MB), else odt's default, 80 % of the machine's memory."""
    if memory_limit:
        return int(memory_limit) << 20, f"memory_limit={memory_limit} MB"
    try:
        total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):  # pragma: no cover - not POSIX
        return 1 << 62, "no memory limit"
    return total * 8 // 10, f"80 % of this machine's memory ({_size(total)}), odt's default cap"


def _size(n: float) -> str:
    for unit in ("bytes", "KB", "MB", "GB", "TB"):
        if n < 1024 or unit == "TB":
            return f"{n:.0f} {unit}" if unit == "bytes" else f"{n:.1f} {unit}"
        n /= 1024.0
    return f"{n:.1f} TB"  # pragma: no cover


def is_sparse(X) -> bool:
    try:
        import scipy.sparse as sp
    except ImportError:
        return False
    return sp.issparse(X)


def densify(X, memory_limit: Optional[int]):
    """A scipy sparse X as a dense array, refused with a ValueError saying
    how large it would be when it does not fit the memory odt may use (odt
    reads dense rows)."""
    n, m = X.shape
    need = int(n) * int(m) * 8
    cap, what = memory_cap_bytes(memory_limit)
    if need > cap:
        raise ValueError(
            f"X is a sparse {n} x {m} matrix: odt reads every value, and densified it takes "
            f"{_size(need)} (8 bytes a value), more than {what}; select fewer columns or rows, "
            "or raise memory_limit")
    return X.toarray()


def as_table(X, categorical=None, check: bool = True, memory_limit: Optional[int] = None) -> _data.Table:
    """X as a Table: a DataFrame's object, category, bool and string columns
    (or an array of strings) as categories, everything else as finite
    numbers; a scipy sparse matrix is densified within the memory limit.
    CATEGORICAL is the fit's mask when predicting."""
    names = None
    cols = getattr(X, "columns", None)
    if cols is not None and len(cols) and all(isinstance(c, str) for c in cols):
        names = [str(c) for c in cols]
    if is_sparse(X):
        X = densify(X, memory_limit)
    if (categorical is not None and np.any(categorical)) or (categorical is None and _data.has_categories(X)):
        t = _data.to_table(X, categorical, check)
        t.names = names
        return t
    arr = np.asarray(X, dtype=np.float64)
    if arr.ndim != 2:
        raise ValueError(f"X must be 2-dimensional, got shape {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise ValueError("X holds NaN or infinite values")
    return _data.Table(arr, None, names)


def as_matrix(X):
    """X as a 2-D float array and its column names (None unless X has string
    column names, as a pandas DataFrame does)."""
    t = as_table(X)
    if t.cat:
        raise ValueError("X holds categorical columns: use as_table")
    return t.num, t.names


@dataclass
class Prepared:
    """Training rows ready for odt: class indices, weights (None when every row
    weighs 1), and the rows kept (zero-weight rows are left out)."""

    X: _data.Table
    y_index: np.ndarray
    weights: Optional[np.ndarray]
    classes: np.ndarray

    @property
    def total_weight(self) -> float:
        return float(self.weights.sum()) if self.weights is not None else float(len(self.y_index))


def prepare(X, y, sample_weight=None, class_weight=None) -> Prepared:
    """Rows ready for odt: X a Table (or a float matrix), labels as class
    indices, sample and class weights multiplied and checked (each a
    ValueError naming it), zero-weight rows left out."""
    if not isinstance(X, _data.Table):
        X = _data.Table(np.asarray(X, dtype=np.float64))
    n = X.shape[0]
    y = np.asarray(y)
    if y.ndim != 1:
        y = y.ravel()
    if y.shape[0] != n:
        raise ValueError(f"X has {n} rows, y has {y.shape[0]}")
    classes, y_index = np.unique(y, return_inverse=True)
    if sample_weight is None:
        w = np.ones(n)
    else:
        try:
            w = np.asarray(sample_weight, dtype=np.float64).ravel()
        except (TypeError, ValueError):
            raise ValueError("sample_weight: numbers are expected") from None
        if w.shape[0] != n:
            raise ValueError(f"sample_weight has {w.shape[0]} values for {n} rows")
        if not np.all(np.isfinite(w)) or np.any(w < 0):
            raise ValueError("sample_weight must be finite and non-negative")
        if not np.any(w > 0):
            raise ValueError("sample_weight: every weight is 0, so no row is left to learn from")
    if class_weight is not None:
        w = w * class_weights(class_weight, classes, y_index)[y_index]
        if not np.any(w > 0):
            raise ValueError(f"class_weight={class_weight!r} gives every row weight 0: no row is left to learn from")
    keep = w > 0
    if not keep.all():
        X, y_index, w = X.take(keep), y_index[keep], w[keep]
    weights = None if np.all(w == 1.0) else w
    return Prepared(X, y_index, weights, classes)


def class_weights(class_weight, classes: np.ndarray, y_index: np.ndarray) -> np.ndarray:
    """One weight per class: "balanced" is n / (k * n_c) as in scikit-learn
    (classes absent from y get 1), a dict maps labels to weights (finite,
    non-negative, not all 0; labels absent from y are ignored)."""
    if isinstance(class_weight, str):
        if class_weight != "balanced":
            raise ValueError(f"class_weight={class_weight!r}: 'balanced', a dict or None expected")
        counts = np.bincount(y_index, minlength=len(classes)).astype(np.float64)
        out = np.ones(len(classes))
        present = counts > 0
        out[present] = len(y_index) / (present.sum() * counts[present])
        return out
    if isinstance(class_weight, dict):
        out = np.ones(len(classes))
        index = {c: k for k, c in enumerate(classes.tolist())}
        for c, v in class_weight.items():
            if isinstance(v, (bool, np.bool_)) or not isinstance(v, numbers.Real) \
                    or not math.isfinite(float(v)) or float(v) < 0:
                raise ValueError(f"class_weight: the weight of class {c!r} is {v!r}; "
                                 "class weights must be finite and non-negative")
            if c in index:
                out[index[c]] = float(v)
        if not np.any(out[np.unique(y_index)] > 0):
            raise ValueError(f"class_weight={class_weight!r}: every class present in y weighs 0")
        return out
    raise ValueError(f"class_weight={class_weight!r}: 'balanced', a dict or None expected")


def _data_args(p: Prepared) -> List[str]:
    args = ["--data-format", "csv", "--label", _data.LABEL, *_data.categorical_args(p.X)]
    if p.weights is not None:
        args += ["--weight", _data.WEIGHT]
    return args


def result_from_json(doc: dict, classes: np.ndarray, feature_names: Optional[List[str]],
                     n_features: int, categorical: Optional[np.ndarray] = None) -> Result:
    """A Result from odt's result JSON, its model renamed to the caller's classes
    and features. Fields odt adds later are kept in raw."""
    model = doc.get("model")
    names = list(feature_names) if feature_names else _data.column_names(n_features)
    index = None
    if model is not None:
        # odt names the classes by the label column's values: indices into classes
        index = np.array([int(c) for c in model["classes"]], dtype=np.intp)
        model = dict(model)
        model["features"] = names
        model["classes"] = [str(classes[k]) for k in index]
    cert = doc.get("certificate")
    return Result(
        status=doc.get("status", ""), optimal=bool(doc.get("optimal", False)),
        objective=doc.get("objective"), lower_bound=doc.get("lower_bound"),
        errors=doc.get("errors"), backend=doc.get("backend", ""),
        seconds=float(doc.get("seconds", 0.0)), model=model, classes=classes,
        feature_names=names, raw=doc, class_index=index, categorical=categorical,
        certified=bool(doc.get("certified", False)), certificate=dict(cert) if isinstance(cert, dict) else None)


def solve(X, y, *, sample_weight=None, class_weight=None, options=None, verbose=0, **problem) -> Result:
    """Learn a model of X, y with ``odt solve`` and return its Result.

    X may be a DataFrame with categorical (object, category, bool, string)
    columns, or a scipy sparse matrix. Problem keywords: backend, objective,
    max_depth (None: the largest depth that can change the optimum),
    min_support, leaf_cost, max_nodes, skeleton, alpha, time_limit
    (seconds), memory_limit (MB), threads, seed; ``options`` is a dict of
    backend options (--opt). Bad input raises ValueError, a failed solve
    RuntimeError; Ctrl-C keeps the best model found (status "cancelled").
    """
    table = as_table(X, memory_limit=problem.get("memory_limit"))
    p = prepare(table, y, sample_weight, class_weight)
    return solve_prepared(p, table.names, table.shape[1], dict(problem, options=options), verbose=verbose)


def resolve_depth(problem: Dict[str, Any], rows: int) -> Dict[str, Any]:
    """max_depth=None as odt takes it: no flag for min-depth, min-size and
    diagrams (their default is no depth limit); for the error objective the
    largest depth at which a tree can still improve, rows / min_support - 1
    (odt lowers it further to the data's distinct tests, the leaves a
    leaf_cost pays for and max_nodes, and says so in depth_reduced)."""
    problem = dict(problem)
    if "max_depth" in problem and problem["max_depth"] is None:
        objective = problem.get("objective") or "error"
        if objective == "error" and problem.get("skeleton") is None:
            support = problem.get("min_support") or 1
            problem["max_depth"] = max(0, rows // support - 1)
    return problem


def check_support(problem: Dict[str, Any], rows: int) -> None:
    ms = problem.get("min_support")
    if ms is not None and ms > rows:
        raise ValueError(f"min_support={ms} is larger than the {rows} training rows (of weight above 0): "
                         "no leaf can hold that many")


def solve_prepared(p: Prepared, names: Optional[List[str]], n_features: int,
                   problem: Dict[str, Any], verbose=0) -> Result:
    """Run odt solve on prepared rows, the data on odt's standard input and
    the result on its standard output (no file is written); PROBLEM holds
    the problem keywords and "options"."""
    problem = dict(problem)
    options = problem.pop("options", None)
    problem = check_problem(problem)
    rows = len(p.y_index)
    check_support(problem, rows)
    problem = resolve_depth(problem, rows)
    flags = problem_args(options, **problem)
    quiet = [] if verbose else ["-q"]
    progress = _progress_sink() if verbose else None
    done = _runner.run(["solve", *quiet, "--format", "json", *_data_args(p), *flags, _runner.STDIN_PATH],
                       input=_data.csv_bytes(p.X, p.y_index, p.weights), progress=progress,
                       interruptible=True)
    doc = json.loads(done.stdout)
    if done.interrupted and doc.get("model") is None:
        raise KeyboardInterrupt
    return result_from_json(doc, p.classes, names, n_features, p.X.categorical)


def _progress_sink():
    def sink(line: str) -> None:
        sys.stderr.write(line.replace(_runner.STDIN_PATH, "the data"))
        sys.stderr.flush()
    return sink


def export(X, y, to: str, backend: str, path: Optional[str] = None, *, sample_weight=None,
           class_weight=None, options=None, **problem):
    """Write the formulation of BACKEND for X, y in format TO (dimacs, mps, lp,
    wcnf or opb) as ``odt export`` does. With PATH the file is written there
    and PATH is returned; without, the file's text is returned. Decode an
    external solver's answer with ``decode`` and the same arguments."""
    table = as_table(X, memory_limit=problem.get("memory_limit"))
    p = prepare(table, y, sample_weight, class_weight)
    flags = problem_args(options, backend=backend, **problem)
    out = os.path.abspath(path) if path else "-"
    done = _runner.run(["export", "--to", to, "-o", out, *_data_args(p), *flags, _runner.STDIN_PATH],
                       input=_data.csv_bytes(p.X, p.y_index, p.weights))
    return path if path else done.stdout


def decode(X, y, solution: str, backend: str, *, sample_weight=None, class_weight=None,
           options=None, **problem) -> Result:
    """Read an external solver's answer (the file SOLUTION) to the formulation
    ``export`` wrote with the same arguments, as ``odt decode`` does: the model
    is verified on X, y and returned as a Result."""
    table = as_table(X, memory_limit=problem.get("memory_limit"))
    p = prepare(table, y, sample_weight, class_weight)
    flags = problem_args(options, backend=backend, **problem)
    done = _runner.run(["decode", "--format", "json", *_data_args(p), *flags,
                        _runner.STDIN_PATH, os.path.abspath(solution)],
                       input=_data.csv_bytes(p.X, p.y_index, p.weights))
    return result_from_json(json.loads(done.stdout), p.classes, table.names, table.shape[1],
                            p.X.categorical)


@dataclass(frozen=True)
class Param:
    """A backend option (--opt name=value)."""

    name: str
    kind: str
    default: str
    allowed: str
    help: str


@dataclass(frozen=True)
class Backend:
    """A backend of the registry, as ``odt backends --format json`` lists it."""

    name: str
    family: str
    description: str
    paper: str
    objectives: Sequence[str]
    input: str
    exact: bool
    anytime: bool
    params: Sequence[Param]
    raw: dict = field(repr=False, compare=False, hash=False)


def backends() -> List[Backend]:
    """The backends built into the odt program, with family, objectives,
    exactness and options."""
    out = _runner.run(["backends", "--format", "json"]).stdout
    result = []
    for b in json.loads(out):
        params = tuple(Param(p.get("name", ""), p.get("kind", ""), p.get("default", ""),
                             p.get("allowed", ""), p.get("help", "")) for p in b.get("params") or [])
        result.append(Backend(b["name"], b.get("family", ""), b.get("description", ""),
                              b.get("paper", ""), tuple(b.get("objectives") or ()),
                              b.get("input", ""), bool(b.get("exact")), bool(b.get("anytime")),
                              params, b))
    return result
