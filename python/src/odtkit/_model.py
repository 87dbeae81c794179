"""Applying and rendering models in odt's model JSON (format odtkit-graph-1)."""

from __future__ import annotations

import json
from typing import Optional

import numpy as np

_FORMAT = "odtkit-graph-1"


class CompiledModel:
    """A model JSON turned into flat arrays, applied to many rows at once."""

    def __init__(self, model: dict):
        if not isinstance(model, dict) or model.get("format") != _FORMAT:
            raise ValueError(f"not an odt model (format {_FORMAT!r} expected)")
        nodes = model["nodes"]
        ids = [nd["id"] for nd in nodes]
        pos = {i: k for k, i in enumerate(ids)}
        n = len(nodes)
        self.n_features = len(model.get("features", []))
        self.n_classes = len(model.get("classes", []))
        self.root = pos[model["root"]]
        self.leaf = np.zeros(n, dtype=bool)
        self.feature = np.zeros(n, dtype=np.intp)
        self.threshold = np.zeros(n, dtype=np.float64)
        self.low = np.zeros(n, dtype=np.intp)
        self.high = np.zeros(n, dtype=np.intp)
        self.klass = np.zeros(n, dtype=np.intp)
        self.counts = np.zeros((n, self.n_classes), dtype=np.float64)
        self.category = {}   # node -> category string
        self.oblique = {}    # node -> weight vector
        for k, nd in enumerate(nodes):
            if "class" in nd:
                self.leaf[k] = True
                self.klass[k] = nd["class"]
                c = nd.get("counts")
                if c:
                    self.counts[k, :len(c)] = c
                else:
                    self.counts[k, nd["class"]] = 1.0
                continue
            self.low[k] = pos[nd["low"]]
            self.high[k] = pos[nd["high"]]
            self.threshold[k] = nd.get("threshold", 0.0)
            if "weights" in nd:
                w = np.zeros(self.n_features)
                for f, v in nd["weights"].items():
                    w[int(f)] = v
                self.oblique[k] = w
            else:
                self.feature[k] = nd["feature"]
                if "category" in nd:
                    self.category[k] = str(nd["category"])
        self.max_steps = n

    def _table(self, X):
        from ._data import Table
        if isinstance(X, Table):
            return X
        X = np.asarray(X)
        if X.dtype == object:
            X = X.astype(np.float64)
        return Table(X)

    def _go_high(self, t, active: np.ndarray, nodes: np.ndarray) -> np.ndarray:
        """Whether each row active[i], at node nodes[i], goes to high."""
        num = t.num
        with np.errstate(invalid="ignore"):
            go_high = num[active, self.feature[nodes]] > self.threshold[nodes]
        for k, w in self.oblique.items():
            sel = nodes == k
            if sel.any():
                go_high[sel] = num[active[sel]] @ w > self.threshold[k]
        for k, cat in self.category.items():
            sel = nodes == k
            if sel.any():
                col = t.cat.get(self.feature[k])
                # a category test on a numeric column sends every row low, as odt does
                go_high[sel] = (col[active[sel]] == cat) if col is not None else False
        return go_high

    def leaves(self, X, path: bool = False):
        """The node (position in model['nodes']) each row of X (a Table or
        a float matrix) reaches; with PATH also the (row, node) pairs of the
        nodes each row visits, root and leaf included."""
        t = self._table(X)
        rows = t.num.shape[0]
        cur = np.full(rows, self.root, dtype=np.intp)
        visits_r, visits_n = [np.arange(rows)], [cur.copy()]
        for _ in range(self.max_steps + 1):
            active = np.flatnonzero(~self.leaf[cur])
            if active.size == 0:
                if path:
                    return cur, np.concatenate(visits_r), np.concatenate(visits_n)
                return cur
            nodes = cur[active]
            go_high = self._go_high(t, active, nodes)
            cur[active] = np.where(go_high, self.high[nodes], self.low[nodes])
            if path:
                visits_r.append(active)
                visits_n.append(cur[active].copy())
        raise ValueError("model graph has a cycle")

    def flows(self, X, y_index: np.ndarray, weights: Optional[np.ndarray], n_classes: int):
        """Per node, the weight of each class (index into the caller's
        classes) among the rows of X that reach it, and among those it sends
        to high."""
        t = self._table(X)
        rows = t.num.shape[0]
        w = np.ones(rows) if weights is None else np.asarray(weights, dtype=np.float64)
        n = len(self.leaf)
        at = np.zeros((n, n_classes))
        high = np.zeros((n, n_classes))
        cur = np.full(rows, self.root, dtype=np.intp)
        np.add.at(at, (cur, y_index), w)
        for _ in range(self.max_steps + 1):
            active = np.flatnonzero(~self.leaf[cur])
            if active.size == 0:
                return at, high
            nodes = cur[active]
            go_high = self._go_high(t, active, nodes)
            up = active[go_high]
            np.add.at(high, (cur[up], y_index[up]), w[up])
            cur[active] = np.where(go_high, self.high[nodes], self.low[nodes])
            np.add.at(at, (cur[active], y_index[active]), w[active])
        raise ValueError("model graph has a cycle")

    def predict(self, X) -> np.ndarray:
        """Class indices (into model['classes']) of the rows of X."""
        return self.klass[self.leaves(X)]

    def proba(self, X) -> np.ndarray:
        """Leaf class counts normalised per row; a leaf without counts (or with
        zero weight) puts all mass on its class."""
        leaf = self.leaves(X)
        c = self.counts[leaf]
        s = c.sum(axis=1)
        empty = s <= 0
        if empty.any():
            c[empty] = 0.0
            c[empty, self.klass[leaf[empty]]] = 1.0
            s[empty] = 1.0
        return c / s[:, None]

    def reachable(self) -> np.ndarray:
        """Which nodes can be reached from the root."""
        seen = np.zeros(len(self.leaf), dtype=bool)
        stack = [self.root]
        while stack:
            k = stack.pop()
            if seen[k]:
                continue
            seen[k] = True
            if not self.leaf[k]:
                stack += [self.low[k], self.high[k]]
        return seen

    def depth(self) -> int:
        """The number of tests on the longest path from the root to a leaf."""
        memo = {}

        def d(k):
            if self.leaf[k]:
                return 0
            if k not in memo:
                memo[k] = 1 + max(d(self.low[k]), d(self.high[k]))
            return memo[k]
        return d(self.root)

    def n_leaves(self) -> int:
        """The number of leaf nodes reachable from the root (a leaf shared by
        several parents in a diagram counts once)."""
        return int(np.sum(self.reachable() & self.leaf))

    def error_reduction(self, at: np.ndarray, high: np.ndarray) -> np.ndarray:
        """Per feature, the training error its tests remove (see
        feature_importances_), from flows()."""
        def err(c):
            return c.sum(axis=-1) - c.max(axis=-1)
        low = at - high
        gain = np.maximum(err(at) - err(high) - err(low), 0.0)
        out = np.zeros(self.n_features)
        for k in np.flatnonzero(~self.leaf):
            if gain[k] == 0:
                continue
            if k in self.oblique:
                w = np.abs(self.oblique[k])
                if w.sum() > 0:
                    out += gain[k] * w / w.sum()
            else:
                out[self.feature[k]] += gain[k]
        return out


def _g(x: float) -> str:
    """Go's strconv.FormatFloat(x, 'g', 6, 64)."""
    s = "%.6g" % x
    if "e" in s:
        mant, exp = s.split("e")
        sign = exp[0]
        digits = exp[1:].lstrip("0")
        if len(digits) < 2:
            digits = digits.rjust(2, "0")
        s = f"{mant}e{sign}{digits}"
    return s


def _condition(model: dict, nd: dict, high: bool) -> str:
    feats = model.get("features", [])

    def name(f):
        return feats[f] if 0 <= f < len(feats) else f"x{f}"

    if "weights" in nd:
        parts = []
        for i, f in enumerate(sorted(nd["weights"], key=int)):
            w = nd["weights"][f]
            if i == 0 and w < 0:
                parts.append("-")
            elif i > 0:
                parts.append(" - " if w < 0 else " + ")
            parts.append(f"{_g(abs(w))}*{name(int(f))}")
        return "".join(parts) + (" > " if high else " <= ") + _g(nd["threshold"])
    if "category" in nd:
        return name(nd["feature"]) + (" == " if high else " != ") + str(nd["category"])
    return name(nd["feature"]) + (" > " if high else " <= ") + _g(nd["threshold"])


def _class_name(model: dict, c: int) -> str:
    classes = model.get("classes", [])
    return str(classes[c]) if 0 <= c < len(classes) else str(c)


class _Classes:
    """How leaves name their class and counts: with the caller's classes
    (every class, in the caller's order, each count labelled), or, without
    them, the model's classes and its counts as odt prints them."""

    def __init__(self, model: dict, classes=None, class_index=None):
        self.model = model
        self.classes = None if classes is None else [str(c) for c in classes]
        self.index = None if class_index is None else [int(k) for k in class_index]

    def name(self, nd: dict) -> str:
        c = nd["class"]
        if self.classes is not None and self.index is not None and 0 <= c < len(self.index):
            return self.classes[self.index[c]]
        return _class_name(self.model, c)

    def counts(self, nd: dict) -> Optional[str]:
        c = nd.get("counts")
        if c is None:
            return None
        if self.classes is None or self.index is None:
            return "[" + " ".join(_g(v) for v in c) + "]"
        full = [0.0] * len(self.classes)
        for j, v in enumerate(c):
            if j < len(self.index):
                full[self.index[j]] = v
        return "(" + ", ".join(f"{name}: {_g(v)}" for name, v in zip(self.classes, full)) + ")"


def _indegree(model: dict) -> dict:
    indeg = {nd["id"]: 0 for nd in model["nodes"]}
    for nd in model["nodes"]:
        if "class" not in nd:
            indeg[nd["low"]] += 1
            indeg[nd["high"]] += 1
    return indeg


def to_text(model: dict, classes=None, class_index=None) -> str:
    """The model as indented text, one condition per line (odt solve's
    layout). A leaf shows its class and training counts: with CLASSES (the
    caller's labels) and CLASS_INDEX (each model class's position in them),
    every class's count labelled, in the order of CLASSES; without, the
    model's counts as odt prints them. A diagram node with several parents
    (a test or a leaf) is printed once, labelled [nK], and referred to as
    "-> [nK]" afterwards."""
    names = _Classes(model, classes, class_index)
    by_id = {nd["id"]: nd for nd in model["nodes"]}
    indeg = _indegree(model)
    printed = set()
    out = []

    def walk(i, depth):
        pad = "  " * depth
        nd = by_id[i]
        label = ""
        if indeg[i] > 1:
            if i in printed:
                out.append(f"{pad}-> [n{i}]")
                return
            printed.add(i)
            label = f" [n{i}]"
        if "class" in nd:
            counts = names.counts(nd)
            out.append(f"{pad}class: {names.name(nd)}{label}" + (f" {counts}" if counts else ""))
            return
        out.append(f"{pad}{_condition(model, nd, False)}{label}")
        walk(nd["low"], depth + 1)
        out.append(f"{pad}{_condition(model, nd, True)}{label}")
        walk(nd["high"], depth + 1)

    walk(model["root"], 0)
    return "\n".join(out) + "\n"


def to_dot(model: dict, classes=None, class_index=None) -> str:
    """The model in Graphviz DOT, each node once (a diagram's shared nodes
    have several incoming edges); edges are labelled with their condition,
    leaves with their class and counts as in to_text."""
    names = _Classes(model, classes, class_index)
    out = ["digraph odtkit {", '  node [fontname="Helvetica"];']
    for nd in model["nodes"]:
        i = nd["id"]
        if "class" in nd:
            counts = names.counts(nd)
            label = names.name(nd) + ("\n" + counts if counts else "")
            out.append(f"  n{i} [shape=box, style=rounded, label={json.dumps(label)}];")
            continue
        out.append(f"  n{i} [shape=ellipse, label={json.dumps(_condition(model, nd, True) + ' ?')}];")
        out.append(f'  n{i} -> n{nd["low"]} [label="no", style=dashed];')
        out.append(f'  n{i} -> n{nd["high"]} [label="yes"];')
    out.append("}")
    return "\n".join(out) + "\n"
