"""scikit-learn estimators over odt solve."""

from __future__ import annotations

import inspect
import os
from typing import Any, Dict

import numpy as np

from . import _api, _data, _model

try:  # scikit-learn is optional: without it the estimators keep the same interface
    from sklearn.base import BaseEstimator, ClassifierMixin
    from sklearn.utils.multiclass import check_classification_targets
    from sklearn.utils.validation import check_is_fitted, column_or_1d
    try:
        from sklearn.utils.validation import validate_data as _sk_validate_data
    except ImportError:  # scikit-learn < 1.6
        _sk_validate_data = None
    HAVE_SKLEARN = True
except ImportError:  # pragma: no cover - exercised without scikit-learn
    HAVE_SKLEARN = False

    class BaseEstimator:  # the parts of scikit-learn's BaseEstimator used here
        @classmethod
        def _get_param_names(cls):
            sig = inspect.signature(cls.__init__)
            return sorted(p for p in sig.parameters if p != "self")

        def get_params(self, deep=True):
            return {k: getattr(self, k) for k in self._get_param_names()}

        def set_params(self, **params):
            valid = self._get_param_names()
            for k, v in params.items():
                if k not in valid:
                    raise ValueError(f"invalid parameter {k!r} for {type(self).__name__}")
                setattr(self, k, v)
            return self

        def __repr__(self):
            args = ", ".join(f"{k}={v!r}" for k, v in self.get_params().items())
            return f"{type(self).__name__}({args})"

    class ClassifierMixin:
        _estimator_type = "classifier"

        def score(self, X, y, sample_weight=None):
            y = np.asarray(y)
            hit = (self.predict(X) == y).astype(np.float64)
            return float(np.average(hit, weights=sample_weight))


# Checks of scikit-learn's check_estimator that an exact solver cannot pass,
# with the reason.
_XFAIL = {
    "check_class_weight_classifiers":
        "it expects class weights 1000 : 0.0001 on very noisy blobs to make the classifier "
        "predict the heavy class on 87 % of held-out rows; the exact minimum-weighted-error "
        "model still classifies every light training row that no heavy row shares a leaf "
        "with, so it predicts the heavy class on fewer held-out rows (no regularisation "
        "beyond max_depth, min_support and leaf_cost, which the check does not set)",
}


_COMMON_DOC = """
    Data. ``X`` is a numeric array, a scipy sparse matrix (densified, as odt
    reads every value, when it fits the memory limit; refused with its size
    otherwise), or a pandas DataFrame. A DataFrame's columns of dtype
    object, category, bool or string are passed to odt as categorical
    columns: no one-hot encoding is needed, and each test of such a column
    is ``column == value``. Categories are compared as text, ``str(value)``
    trimmed of white space at both ends (as odt reads a CSV field); a
    missing value (None, NaN) is a category of its own; two distinct values
    with the same text are refused. ``predict`` applies the tests to new
    rows the way ``odt predict`` does: a category not seen in training
    equals no tested value, so it takes the ``!=`` branch of every test of
    its column. The data reaches odt through a pipe: no file is written.

    Limits and interruption. ``time_limit`` (seconds, above 0; None: none)
    and ``memory_limit`` (MB; None: odt's default, 80 % of the machine's
    memory) stop odt's search with the best model found (``status_``
    ``time-limit`` or ``memory-limit``, ``optimal_`` False). Ctrl-C during a
    fit sends odt SIGINT, as at the command line: the fit returns the best
    model found so far with ``status_ == "cancelled"``, and raises
    ``KeyboardInterrupt`` only when odt had found none; a second Ctrl-C
    kills odt at once. ``verbose=1`` streams odt's progress to stderr: each
    improving model (time, objective, shape) and the final status with its
    lower bound. ``random_state`` (an int) is odt's ``--seed``, used by
    randomised backends (milp-odd's construction heuristic, HiGHS); the
    exact searches are deterministic. ``certify`` (a directory, SAT
    backends on odtkit's own CDCL solver) writes and checks the LRAT proofs
    of the optimum: ``certified_`` is then True and ``certificate_`` says
    what was proven and where.

    Parameters are checked before odt runs; each wrong one raises a
    ValueError naming it (negative or all-zero class weights, a
    non-positive time or memory limit, a non-integer depth, a min_support
    above the number of rows, ...).

    Fitted attributes: ``classes_``, ``n_features_in_``,
    ``feature_names_in_`` (DataFrame input), ``is_categorical_`` (per
    feature), ``model_`` (the model JSON, format odtkit-graph-1, with your
    feature and class names), ``status_`` (``optimal``, ``time-limit``,
    ``memory-limit``, ``cancelled``, ...), ``optimal_`` (True only when
    proven), ``objective_`` and ``lower_bound_`` (fixed units: for the error
    objective the weighted training error rate, errors / total weight, plus
    ``leaf_cost`` × leaves when a leaf cost is set; for diagrams odt's
    diagram objective, an error rate plus the node penalty; for min-depth
    and min-size the depth or number of tests), ``error_`` (misclassified
    training rows), ``accuracy_`` (1 - error_ / rows), ``runtime_`` (odt's
    seconds), ``backend_`` (the backend that ran), ``certified_``,
    ``certificate_`` (a dict, None unless certified), ``result_`` (the whole
    result JSON), ``feature_importances_``.

    Introspection, as scikit-learn's trees: ``get_depth()``,
    ``get_n_leaves()``, ``apply(X)`` (per row, the index in
    ``model_["nodes"]`` of the leaf it reaches), ``decision_path(X)`` (a
    sparse CSR indicator, rows by ``model_["nodes"]``),
    ``feature_importances_`` (per feature, the weighted training error its
    tests remove, normalised to sum to 1: at each test, the errors of the
    rows reaching it as one leaf minus those of its two branches as leaves;
    an oblique test shares its reduction among its features in proportion
    to their absolute weights), ``to_text()`` (one condition per line;
    leaves with their class and the training count of every class,
    labelled, in the order of ``classes_``) and ``to_dot()`` (Graphviz). In
    a diagram each shared node is shown once (``[nK]``, then ``-> [nK]``).
    There is no ``tree_``: scikit-learn's Tree cannot hold a categorical
    test nor a shared node, so ``sklearn.tree.export_text``, ``plot_tree``
    and ``export_graphviz`` do not apply; use ``to_text()`` and
    ``to_dot()`` (rendered with Graphviz's ``dot``).
"""


class _OdtClassifier(ClassifierMixin, BaseEstimator):
    """Shared fitting and prediction of the odt estimators."""

    def _problem(self) -> Dict[str, Any]:
        raise NotImplementedError

    def _seed(self):
        rs = getattr(self, "random_state", None)
        if rs is None:
            return None
        if isinstance(rs, np.random.RandomState):
            return int(rs.randint(np.iinfo(np.int32).max))
        return _data.check_integral("random_state", rs, 0)

    def _options(self):
        opts = dict(self.options or {})
        if getattr(self, "certify", None) is not None:
            if not isinstance(self.certify, (str, os.PathLike)) or not str(self.certify):
                raise ValueError(f"certify={self.certify!r}: a directory path to write the certificate to "
                                 "(or None) is expected")
            opts["certify"] = os.path.abspath(os.fspath(self.certify))
        return opts

    def _verbose(self) -> int:
        v = getattr(self, "verbose", 0)
        return _data.check_integral("verbose", int(v) if isinstance(v, (bool, np.bool_)) else v, 0)

    # -- input validation ------------------------------------------------
    def _check_names(self, X, reset: bool):
        """n_features_in_ and feature_names_in_ set (reset) or checked, for
        input that does not go through scikit-learn's numeric validation."""
        if HAVE_SKLEARN:
            try:
                from sklearn.utils.validation import _check_feature_names, _check_n_features
            except ImportError:  # scikit-learn < 1.6: methods of BaseEstimator
                self._check_feature_names(X, reset=reset)
                self._check_n_features(X, reset=reset)
            else:
                _check_feature_names(self, X, reset=reset)
                _check_n_features(self, X, reset=reset)
            return
        names = None
        cols = getattr(X, "columns", None)
        if cols is not None and len(cols) and all(isinstance(c, str) for c in cols):
            names = np.asarray([str(c) for c in cols], dtype=object)
        m = np.shape(X)[1] if len(np.shape(X)) == 2 else None
        if reset:
            self.n_features_in_ = m
            if names is not None:
                self.feature_names_in_ = names
            elif hasattr(self, "feature_names_in_"):
                del self.feature_names_in_
            return
        if m != self.n_features_in_:
            raise ValueError(f"X has {m} features, but {type(self).__name__} "
                             f"is expecting {self.n_features_in_} features as input")
        if hasattr(self, "feature_names_in_") and names is not None \
                and list(names) != list(self.feature_names_in_):
            raise ValueError("The feature names should match those that were passed during fit")

    def _table(self, X, reset: bool) -> _data.Table:
        """X as odt's table: categorical frames by their dtypes (at fit) or
        the mask found at fit; everything else as numbers through
        scikit-learn's validation, sparse input densified."""
        categorical = None if reset else getattr(self, "is_categorical_", None)
        if (reset and _data.has_categories(X)) or (not reset and categorical is not None and categorical.any()):
            if len(np.shape(X)) != 2:
                raise ValueError(f"X must be 2-dimensional, got shape {np.shape(X)}")
            self._check_names(X, reset)
            if reset and np.shape(X)[0] < 2:
                raise ValueError(f"Found array with {np.shape(X)[0]} sample(s) while a minimum of 2 is required.")
            return _data.to_table(X, categorical, check=reset)
        if HAVE_SKLEARN:
            kw = dict(dtype=np.float64, ensure_min_samples=2 if reset else 1, accept_sparse=True)
            if _sk_validate_data is not None:
                Xv = _sk_validate_data(self, X, reset=reset, **kw)
            else:
                Xv = self._validate_data(X, reset=reset, **kw)
        else:
            self._check_names(X, reset)
            Xv = X
        if _api.is_sparse(Xv):
            Xv = _api.densify(Xv, self.memory_limit)
        t = _api.as_table(Xv)
        return t

    def fit(self, X, y, sample_weight=None):
        """Learn the model of X, y (optionally weighted) with odt solve."""
        problem = _api.check_problem(self._problem())
        seed, options, verbose = self._seed(), self._options(), self._verbose()
        if y is None:
            raise ValueError(f"{type(self).__name__} requires y to be passed, but the target y is None")
        table = self._table(X, reset=True)
        if HAVE_SKLEARN:
            y = column_or_1d(y, warn=True)
            check_classification_targets(y)
        else:
            y = np.asarray(y).ravel()
        if y.shape[0] != table.shape[0]:
            raise ValueError(f"X has {table.shape[0]} rows, y has {y.shape[0]}")
        if sample_weight is not None:
            sample_weight = np.asarray(sample_weight, dtype=np.float64)
            if sample_weight.ndim != 1 or sample_weight.shape[0] != table.shape[0]:
                raise ValueError(f"sample_weight.shape == {sample_weight.shape}, expected ({table.shape[0]},)")
        names = list(self.feature_names_in_) if hasattr(self, "feature_names_in_") else None
        p = _api.prepare(table, y, sample_weight, self.class_weight)
        problem.update(seed=seed, options=options)
        res = _api.solve_prepared(p, names, table.shape[1], problem, verbose=verbose)
        self.classes_ = p.classes
        self.is_categorical_ = table.categorical
        self.result_ = res.raw
        self.status_ = res.status
        self.optimal_ = res.optimal
        self.backend_ = res.backend
        self.runtime_ = res.seconds
        self.certified_ = res.certified
        self.certificate_ = res.certificate
        if res.model is None:
            why = ("the problem has no solution" if res.status == "infeasible"
                   else "raise time_limit or memory_limit")
            raise RuntimeError(f"odt solve found no model (status {res.status}): {why}")
        self.model_ = res.model
        self._compiled = _model.CompiledModel(res.model)
        self._order = res.class_index
        self.objective_, self.lower_bound_ = _fixed_units(res, p.total_weight)
        rows = int(res.raw.get("rows") or len(p.y_index))
        self.error_ = int(res.errors) if res.errors is not None else None
        self.accuracy_ = 1.0 - self.error_ / rows if self.error_ is not None and rows else None
        at, high = self._compiled.flows(p.X, p.y_index, p.weights, len(p.classes))
        self._error_reduction = self._compiled.error_reduction(at, high)
        total = self._error_reduction.sum()
        self.feature_importances_ = (self._error_reduction / total if total > 0
                                     else np.zeros_like(self._error_reduction))
        return self

    def _fitted(self):
        if HAVE_SKLEARN:
            check_is_fitted(self, "model_")
        elif not hasattr(self, "model_"):
            raise AttributeError(f"this {type(self).__name__} is not fitted yet; call fit first")

    def predict(self, X):
        """The predicted class of each row of X."""
        self._fitted()
        return self.classes_[self._order[self._compiled.predict(self._table(X, reset=False))]]

    def predict_proba(self, X):
        """Per row, the training class distribution of its leaf (columns in the
        order of classes_)."""
        self._fitted()
        t = self._table(X, reset=False)
        p = self._compiled.proba(t)
        out = np.zeros((t.shape[0], len(self.classes_)))
        out[:, self._order] = p
        return out

    def apply(self, X):
        """Per row of X, the index in ``model_["nodes"]`` of the leaf it reaches."""
        self._fitted()
        return self._compiled.leaves(self._table(X, reset=False))

    def decision_path(self, X):
        """A scipy CSR matrix of shape (rows, len(model_["nodes"])) whose
        entry (i, k) is 1 when row i passes through node k, as scikit-learn's
        decision_path."""
        self._fitted()
        from scipy.sparse import csr_matrix
        t = self._table(X, reset=False)
        _, r, k = self._compiled.leaves(t, path=True)
        n = len(self.model_["nodes"])
        m = csr_matrix((np.ones(len(r), dtype=np.int64), (r, k)), shape=(t.shape[0], n))
        m.sum_duplicates()
        m.sort_indices()
        return m

    def get_depth(self) -> int:
        """The number of tests on the longest root-to-leaf path."""
        self._fitted()
        return self._compiled.depth()

    def get_n_leaves(self) -> int:
        """The number of leaves (a diagram's shared leaf counts once)."""
        self._fitted()
        return self._compiled.n_leaves()

    def to_text(self) -> str:
        """The fitted model as indented text: one condition per line, each
        leaf with its class and the training count (weighted) of every class
        in the order of classes_; a diagram's shared node once."""
        self._fitted()
        return _model.to_text(self.model_, self.classes_, self._order)

    def to_dot(self) -> str:
        """The fitted model in Graphviz DOT, each node once."""
        self._fitted()
        return _model.to_dot(self.model_, self.classes_, self._order)

    def _xfail_checks(self):
        checks = dict(_XFAIL)
        if self.time_limit is not None:
            checks["check_fit_idempotent"] = (
                "with a time limit a fit returns the best model found in that time, which "
                "depends on the machine's speed and load; without one the fit is deterministic")
        return checks

    # scikit-learn < 1.6 reads expected failures from these tags; 1.6 and later
    # from check_estimator's expected_failed_checks (the tests pass _xfail_checks).
    def _more_tags(self):
        return {"_xfail_checks": self._xfail_checks(), "X_types": ["2darray", "sparse"]}

    # scikit-learn 1.6 and later: scipy sparse input is accepted (densified).
    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags


def _fixed_units(res, total_weight: float):
    """objective_ and lower_bound_: odt's error count as a rate of the total
    weight for the error objective without leaf cost (with one, odt's
    objective is that rate plus the leaf cost already); otherwise odt's."""
    problem = res.raw.get("problem") or {}
    obj, lb = res.objective, res.lower_bound
    if (problem.get("objective") or "error") == "error" and not problem.get("leaf_cost") and total_weight > 0:
        obj = None if obj is None else obj / total_weight
        lb = None if lb is None else lb / total_weight
    return obj, lb


class OptimalTreeClassifier(_OdtClassifier):
    """A classification tree that is optimal for its objective, learned by odt.

    Parameters mirror ``odt solve``: ``backend`` (see ``odtkit.backends()``;
    "auto" picks contree for numeric data, dl85 with categorical columns),
    ``max_depth`` (an integer, 0 a single leaf; None: no depth cap, i.e. for
    the error objective the largest depth at which a deeper tree could still
    be better: rows / min_support - 1, lowered by odt to the data's number
    of distinct tests, the leaves a leaf_cost pays for and max_nodes; the
    search can then be long, so give a time_limit, max_nodes or leaf_cost),
    ``objective`` ("error", "min-depth", "min-size"), ``time_limit``
    (seconds), ``memory_limit`` (MB), ``min_support`` (least rows in a
    leaf), ``leaf_cost`` (errors/weight + leaf_cost × leaves), ``max_nodes``
    (internal nodes), ``threads``, ``class_weight`` (None, "balanced" or a
    dict), ``options`` (backend options, a dict of ``--opt`` values),
    ``random_state``, ``verbose`` and ``certify`` (below).

    Example on categorical columns (strings, no one-hot encoding):

    >>> import pandas as pd
    >>> from odtkit import OptimalTreeClassifier
    >>> df = pd.DataFrame({"outlook": ["sunny", "rain", "overcast", "sunny", "rain", "overcast"],
    ...                    "windy": [True, False, True, False, True, False]})
    >>> play = ["no", "yes", "yes", "yes", "no", "yes"]
    >>> tree = OptimalTreeClassifier(max_depth=2).fit(df, play)
    >>> tree.optimal_, tree.backend_, tree.error_
    (True, 'dl85', 0)
    >>> print(tree.to_text(), end="")
    outlook != overcast
      windy != True
        class: yes (no: 0, yes: 2)
      windy == True
        class: no (no: 2, yes: 0)
    outlook == overcast
      class: yes (no: 0, yes: 2)
    >>> tree.predict(pd.DataFrame({"outlook": ["snow"], "windy": [False]}))  # unseen: != every value
    array(['yes'], dtype='<U3')
    """

    def __init__(self, backend="auto", max_depth=3, objective="error", time_limit=None,
                 memory_limit=None, min_support=1, leaf_cost=0.0, max_nodes=None, threads=1,
                 class_weight=None, options=None, random_state=None, verbose=0, certify=None):
        self.backend = backend
        self.max_depth = max_depth
        self.objective = objective
        self.time_limit = time_limit
        self.memory_limit = memory_limit
        self.min_support = min_support
        self.leaf_cost = leaf_cost
        self.max_nodes = max_nodes
        self.threads = threads
        self.class_weight = class_weight
        self.options = options
        self.random_state = random_state
        self.verbose = verbose
        self.certify = certify

    def _problem(self):
        if self.objective not in ("error", "min-depth", "min-size"):
            raise ValueError(f"objective={self.objective!r}: one of error, min-depth, min-size is expected "
                             "(DecisionDiagramClassifier learns diagrams)")
        return dict(backend=self.backend, max_depth=self.max_depth, objective=self.objective,
                    time_limit=self.time_limit, memory_limit=self.memory_limit,
                    min_support=self.min_support, leaf_cost=self.leaf_cost or None,
                    max_nodes=self.max_nodes, threads=self.threads)


# The default time limit of a diagram fit, in seconds.
DIAGRAM_TIME_LIMIT = 60.0


class DecisionDiagramClassifier(_OdtClassifier):
    """An optimal decision diagram on a skeleton of layer widths, learned by odt.

    The objective (Florio et al., 2023) is error rate + alpha × (internal nodes
    − 1) / (skeleton nodes − 1). "auto" picks milp-odd (HiGHS build), sat-odd
    with row weights. Proving a diagram optimal can take far longer than a
    tree, so ``time_limit`` is 60 seconds by default (None: no limit): a fit
    then returns the best diagram found, ``optimal_`` False and its
    ``lower_bound_``. The other parameters are those of
    OptimalTreeClassifier.
    """

    def __init__(self, skeleton=(1, 2, 2), alpha=0.01, backend="auto", time_limit=DIAGRAM_TIME_LIMIT,
                 memory_limit=None, threads=1, class_weight=None, options=None, random_state=None,
                 verbose=0, certify=None):
        self.skeleton = skeleton
        self.alpha = alpha
        self.backend = backend
        self.time_limit = time_limit
        self.memory_limit = memory_limit
        self.threads = threads
        self.class_weight = class_weight
        self.options = options
        self.random_state = random_state
        self.verbose = verbose
        self.certify = certify

    def _problem(self):
        return dict(backend=self.backend, skeleton=self.skeleton, alpha=self.alpha,
                    time_limit=self.time_limit, memory_limit=self.memory_limit,
                    threads=self.threads)


# The parts of the documentation both estimators share.
OptimalTreeClassifier.__doc__ += _COMMON_DOC
DecisionDiagramClassifier.__doc__ += _COMMON_DOC
