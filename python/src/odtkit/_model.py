"""Applying and rendering models in odt's model JSON (format odtkit-graph-1)."""

from __future__ import annotations

import json
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

    def leaves(self, X: np.ndarray) -> np.ndarray:
        """The node (position in model['nodes']) each row of X reaches."""
        X = np.asarray(X)
        rows = X.shape[0]
        cur = np.full(rows, self.root, dtype=np.intp)
        for _ in range(self.max_steps + 1):
            active = np.flatnonzero(~self.leaf[cur])
            if active.size == 0:
                return cur
            nodes = cur[active]
            values = X[active, self.feature[nodes]]
            if X.dtype == object:
                values = values.astype(np.float64)
            go_high = values > self.threshold[nodes]
            for k, w in self.oblique.items():
                sel = nodes == k
                if sel.any():
                    s = X[active[sel]].astype(np.float64) @ w
                    go_high[sel] = s > self.threshold[k]
            for k, cat in self.category.items():
                sel = nodes == k
                if sel.any():
                    go_high[sel] = np.array([str(v) == cat for v in X[active[sel], self.feature[k]]])
            cur[active] = np.where(go_high, self.high[nodes], self.low[nodes])
        raise ValueError("model graph has a cycle")

    def predict(self, X: np.ndarray) -> np.ndarray:
        """Class indices (into model['classes']) of the rows of X."""
        return self.klass[self.leaves(X)]

    def proba(self, X: np.ndarray) -> np.ndarray:
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


def _counts(nd: dict, sep: str) -> str:
    c = nd.get("counts")
    if c is None:
        return ""
    return sep + "[" + " ".join(_g(v) for v in c) + "]"


def to_text(model: dict) -> str:
    """The model as indented text, one condition per line (as odt solve prints
    it); a diagram node with several parents is printed once, labelled [nK],
    and referred to as "-> [nK]" afterwards."""
    by_id = {nd["id"]: nd for nd in model["nodes"]}
    indeg = {i: 0 for i in by_id}
    for nd in model["nodes"]:
        if "class" not in nd:
            indeg[nd["low"]] += 1
            indeg[nd["high"]] += 1
    printed = set()
    out = []

    def walk(i, depth):
        pad = "  " * depth
        nd = by_id[i]
        if "class" in nd:
            out.append(f"{pad}class: {_class_name(model, nd['class'])}{_counts(nd, ' ')}")
            return
        label = ""
        if indeg[i] > 1:
            if i in printed:
                out.append(f"{pad}-> [n{i}]")
                return
            printed.add(i)
            label = f" [n{i}]"
        out.append(f"{pad}{_condition(model, nd, False)}{label}")
        walk(nd["low"], depth + 1)
        out.append(f"{pad}{_condition(model, nd, True)}{label}")
        walk(nd["high"], depth + 1)

    walk(model["root"], 0)
    return "\n".join(out) + "\n"


def to_dot(model: dict) -> str:
    """The model in Graphviz DOT; edges are labelled with their condition."""
    out = ["digraph odtkit {", '  node [fontname="Helvetica"];']
    for nd in model["nodes"]:
        i = nd["id"]
        if "class" in nd:
            label = _class_name(model, nd["class"]) + _counts(nd, "\n")
            out.append(f"  n{i} [shape=box, style=rounded, label={json.dumps(label)}];")
            continue
        out.append(f"  n{i} [shape=ellipse, label={json.dumps(_condition(model, nd, True) + ' ?')}];")
        out.append(f'  n{i} -> n{nd["low"]} [label="no", style=dashed];')
        out.append(f'  n{i} -> n{nd["high"]} [label="yes"];')
    out.append("}")
    return "\n".join(out) + "\n"

