"""solve, export, decode and backends: the odt commands as Python functions."""

from __future__ import annotations

import json
import os
import tempfile
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Sequence

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


def problem_args(options: Optional[Dict[str, Any]] = None, **problem: Any) -> List[str]:
    """The odt flags of a problem given as keywords (max_depth=3, backend="dl85",
    time_limit=10.0 (seconds), skeleton=(1, 2, 2), ...) and backend options
    (a dict of --opt key=value). None leaves a flag at odt's default."""
    args: List[str] = []
    for key, value in problem.items():
        if key not in _FLAGS:
            raise TypeError(f"unknown problem keyword {key!r}; known: {', '.join(sorted(_FLAGS))}, options")
        if value is None:
            continue
        flag = _FLAGS[key]
        if key == "time_limit":
            value = f"{max(0, int(round(float(value) * 1000)))}ms"
        elif key == "skeleton":
            value = ",".join(str(int(w)) for w in value)
        elif isinstance(value, bool):
            raise ValueError(f"{key}={value!r}: a number or string is expected")
        elif isinstance(value, (float, np.floating)):
            value = repr(float(value))
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
    feature and class names; ``raw`` is the whole result JSON as odt wrote it.
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

    def predict(self, X) -> np.ndarray:
        """The model's class labels for the rows of X (columns as in training)."""
        if self.model is None:
            raise ValueError(f"no model to predict with (status {self.status})")
        X = as_matrix(X)[0]
        compiled = _model.CompiledModel(self.model)
        return self.classes[self.class_index[compiled.predict(X)]]

    def to_text(self) -> str:
        return _model.to_text(self.model) if self.model else "model: none found\n"

    def to_dot(self) -> str:
        return _model.to_dot(self.model) if self.model else ""


def as_matrix(X):
    """X as a 2-D float array and its column names (None unless X has string
    column names, as a pandas DataFrame does)."""
    names = None
    cols = getattr(X, "columns", None)
    if cols is not None and len(cols) and all(isinstance(c, str) for c in cols):
        names = [str(c) for c in cols]
    arr = np.asarray(X, dtype=np.float64)
    if arr.ndim != 2:
        raise ValueError(f"X must be 2-dimensional, got shape {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise ValueError("X holds NaN or infinite values")
    return arr, names


@dataclass
class Prepared:
    """Training rows ready for odt: class indices, weights (None when every row
    weighs 1), and the rows kept (zero-weight rows are left out)."""

    X: np.ndarray
    y_index: np.ndarray
    weights: Optional[np.ndarray]
    classes: np.ndarray


def prepare(X: np.ndarray, y, sample_weight=None, class_weight=None) -> Prepared:
    y = np.asarray(y)
    if y.ndim != 1:
        y = y.ravel()
    if y.shape[0] != X.shape[0]:
        raise ValueError(f"X has {X.shape[0]} rows, y has {y.shape[0]}")
    classes, y_index = np.unique(y, return_inverse=True)
    w = np.ones(X.shape[0]) if sample_weight is None else np.asarray(sample_weight, dtype=np.float64).ravel()
    if w.shape[0] != X.shape[0]:
        raise ValueError(f"sample_weight has {w.shape[0]} values for {X.shape[0]} rows")
    if not np.all(np.isfinite(w)) or np.any(w < 0):
        raise ValueError("sample_weight must be finite and non-negative")
    if class_weight is not None:
        w = w * class_weights(class_weight, classes, y_index)[y_index]
    keep = w > 0
    if not keep.all():
        X, y_index, w = X[keep], y_index[keep], w[keep]
    weights = None if np.all(w == 1.0) else w
    return Prepared(X, y_index, weights, classes)


def class_weights(class_weight, classes: np.ndarray, y_index: np.ndarray) -> np.ndarray:
    """One weight per class: "balanced" is n / (k * n_c) as in scikit-learn
    (classes absent from y get 1), a dict maps labels to weights."""
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
            if c in index:
                out[index[c]] = float(v)
        return out
    raise ValueError(f"class_weight={class_weight!r}: 'balanced', a dict or None expected")


def _data_args(p: Prepared) -> List[str]:
    args = ["--label", _data.LABEL]
    if p.weights is not None:
        args += ["--weight", _data.WEIGHT]
    return args


def _write(dirname: str, p: Prepared) -> str:
    path = os.path.join(dirname, "data.csv")
    _data.write_csv(path, p.X, p.y_index, p.weights)
    return path


def result_from_json(doc: dict, classes: np.ndarray, feature_names: Optional[List[str]],
                     n_features: int) -> Result:
    """A Result from odt's result JSON, its model renamed to the caller's classes
    and features."""
    model = doc.get("model")
    names = list(feature_names) if feature_names else _data.column_names(n_features)
    index = None
    if model is not None:
        # odt names the classes by the label column's values: indices into classes
        index = np.array([int(c) for c in model["classes"]], dtype=np.intp)
        model = dict(model)
        model["features"] = names
        model["classes"] = [str(classes[k]) for k in index]
    return Result(
        status=doc.get("status", ""), optimal=bool(doc.get("optimal", False)),
        objective=doc.get("objective"), lower_bound=doc.get("lower_bound"),
        errors=doc.get("errors"), backend=doc.get("backend", ""),
        seconds=float(doc.get("seconds", 0.0)), model=model, classes=classes,
        feature_names=names, raw=doc, class_index=index)


def solve(X, y, *, sample_weight=None, class_weight=None, options=None, **problem) -> Result:
    """Learn a model of X, y with ``odt solve`` and return its Result.

    Problem keywords: backend, objective, max_depth, min_support, leaf_cost,
    max_nodes, skeleton, alpha, time_limit (seconds), memory_limit (MB),
    threads, seed; ``options`` is a dict of backend options (--opt). Bad input
    raises ValueError with odt's message, a failed solve RuntimeError.
    """
    Xf, names = as_matrix(X)
    p = prepare(Xf, y, sample_weight, class_weight)
    return solve_prepared(p, names, Xf.shape[1], dict(problem, options=options))


def solve_prepared(p: Prepared, names: Optional[List[str]], n_features: int,
                   problem: Dict[str, Any]) -> Result:
    """Run odt solve on prepared rows; PROBLEM holds the problem keywords and
    "options"."""
    problem = dict(problem)
    flags = problem_args(problem.pop("options", None), **problem)
    with tempfile.TemporaryDirectory(prefix="odtkit-") as d:
        data = _write(d, p)
        out = os.path.join(d, "result.json")
        _runner.run(["solve", "-q", "--format", "json", "-o", out, *_data_args(p), *flags, data])
        with open(out) as f:
            doc = json.load(f)
    return result_from_json(doc, p.classes, names, n_features)


def export(X, y, to: str, backend: str, path: Optional[str] = None, *, sample_weight=None,
           class_weight=None, options=None, **problem):
    """Write the formulation of BACKEND for X, y in format TO (dimacs, mps, lp,
    wcnf or opb) as ``odt export`` does. With PATH the file is written there
    and PATH is returned; without, the file's text is returned. Decode an
    external solver's answer with ``decode`` and the same arguments."""
    Xf, _ = as_matrix(X)
    p = prepare(Xf, y, sample_weight, class_weight)
    flags = problem_args(options, backend=backend, **problem)
    with tempfile.TemporaryDirectory(prefix="odtkit-") as d:
        data = _write(d, p)
        out = os.path.abspath(path) if path else os.path.join(d, "formulation")
        _runner.run(["export", "--to", to, "-o", out, *_data_args(p), *flags, data])
        if path:
            return path
        with open(out) as f:
            return f.read()


def decode(X, y, solution: str, backend: str, *, sample_weight=None, class_weight=None,
           options=None, **problem) -> Result:
    """Read an external solver's answer (the file SOLUTION) to the formulation
    ``export`` wrote with the same arguments, as ``odt decode`` does: the model
    is verified on X, y and returned as a Result."""
    Xf, names = as_matrix(X)
    p = prepare(Xf, y, sample_weight, class_weight)
    flags = problem_args(options, backend=backend, **problem)
    with tempfile.TemporaryDirectory(prefix="odtkit-") as d:
        data = _write(d, p)
        out = os.path.join(d, "result.json")
        _runner.run(["decode", "--format", "json", "-o", out, *_data_args(p), *flags,
                     data, os.path.abspath(solution)])
        with open(out) as f:
            doc = json.load(f)
    return result_from_json(doc, p.classes, names, Xf.shape[1])


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
