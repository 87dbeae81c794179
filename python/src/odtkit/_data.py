"""Training data as odt reads it: a table of numeric and categorical
columns, written as CSV text on odt's standard input.

Categorical values are compared as text, the text odt reads back from the
CSV: ``str(value)`` with ``\\r\\n`` turned into ``\\n`` (as a CSV reader
reads a quoted line break) and white space trimmed at both ends (odt trims
every CSV field); a missing value (None, NaN, pandas.NA) is the empty text,
a category of its own. Values are quoted whenever they hold a comma, a
quote, a line break or white space, so any text reaches odt intact.
"""

from __future__ import annotations

import math
import numbers
from typing import Dict, List, Optional, Sequence

import numpy as np

LABEL = "y"
WEIGHT = "w"

# White space as odt's CSV reader trims it (Go's unicode.IsSpace): Python's
# str.strip() would also strip the separators U+001C to U+001F.
_GO_SPACE = ("\t\n\v\f\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006"
             "\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000")
_QUOTE_WHEN = set(',"\r\n') | set(_GO_SPACE)


def column_names(n_features: int) -> list:
    """The CSV header names of the feature columns: x0, x1, ..."""
    return [f"x{j}" for j in range(n_features)]


def is_missing(v) -> bool:
    """None, a float NaN, pandas.NA or NaT."""
    if v is None:
        return True
    if isinstance(v, (float, np.floating)):
        return math.isnan(v)
    try:
        import pandas as pd
    except ImportError:  # pragma: no cover
        return False
    try:
        return bool(pd.isna(v)) if np.ndim(v) == 0 else False
    except (TypeError, ValueError):
        return False


def category_text(v) -> str:
    """The text odt sees for the categorical value v (see the module doc)."""
    if is_missing(v):
        return ""
    if isinstance(v, bytes):
        v = v.decode("utf-8", "replace")
    return str(v).replace("\r\n", "\n").strip(_GO_SPACE)


def category_column(values, name: str, check: bool) -> np.ndarray:
    """The texts of one categorical column (an object array of str). With
    CHECK, two distinct values that odt would read as the same category
    (" a" and "a", 1 and "1") are refused with a ValueError naming them."""
    values = list(values)
    texts = np.empty(len(values), dtype=object)
    seen: Dict[object, str] = {}
    first: Dict[str, object] = {}
    for i, v in enumerate(values):
        try:
            key = (type(v), v)
            t = seen.get(key)
        except TypeError:  # unhashable: no cache
            key, t = None, None
        if t is None:
            t = category_text(v)
            if key is not None:
                seen[key] = t
            if check and not is_missing(v):
                other = first.setdefault(t, v)
                if other is not v and not _same(other, v):
                    raise ValueError(
                        f"column {name!r} holds {other!r} and {v!r}, which odt reads as the same category "
                        f"{t!r} (categories are compared as text, trimmed of white space at both ends); "
                        "make them equal or distinct before fitting")
        texts[i] = t
    return texts


def _same(a, b) -> bool:
    try:
        return bool(a == b)
    except Exception:
        return False


class Table:
    """Feature columns ready for odt: ``num`` holds the numeric columns as
    float64 (0 in categorical columns), ``cat`` maps each categorical column
    to its texts; ``names`` are the caller's column names (or None)."""

    def __init__(self, num: np.ndarray, cat: Optional[Dict[int, np.ndarray]] = None,
                 names: Optional[List[str]] = None):
        self.num = num
        self.cat = cat or {}
        self.names = names

    @property
    def shape(self):
        return self.num.shape

    @property
    def categorical(self) -> np.ndarray:
        mask = np.zeros(self.num.shape[1], dtype=bool)
        mask[list(self.cat)] = True
        return mask

    def take(self, rows) -> "Table":
        return Table(self.num[rows], {j: c[rows] for j, c in self.cat.items()}, self.names)


def is_frame(X) -> bool:
    return hasattr(X, "columns") and hasattr(X, "dtypes") and hasattr(X, "iloc")


def frame_categorical(X) -> np.ndarray:
    """Which columns of the DataFrame X odt reads as categories: those of
    dtype object, category, bool or string."""
    import pandas as pd
    api = pd.api.types
    out = []
    for dt in X.dtypes:
        out.append(bool(isinstance(dt, pd.CategoricalDtype) or api.is_bool_dtype(dt)
                        or api.is_object_dtype(dt) or api.is_string_dtype(dt)))
    return np.array(out, dtype=bool)


def has_categories(X) -> bool:
    """Whether X holds columns odt should read as categories: a DataFrame
    with object, category, bool or string columns, or an array of strings."""
    if is_frame(X):
        try:
            return bool(frame_categorical(X).any())
        except ImportError:  # pragma: no cover
            return False
    kind = getattr(getattr(X, "dtype", None), "kind", None)
    return kind in ("U", "S")


def to_table(X, categorical: Optional[np.ndarray], check: bool) -> Table:
    """X (a DataFrame, or an array of strings) as a Table. CATEGORICAL, when
    given, is the mask found at fit time; otherwise it is found from X's
    dtypes. Numeric columns must hold finite numbers."""
    if is_frame(X):
        mask = frame_categorical(X) if categorical is None else np.asarray(categorical, dtype=bool)
        cols = [X.iloc[:, j] for j in range(X.shape[1])]
        labels = [str(c) for c in X.columns]
    else:
        arr = np.asarray(X)
        if arr.ndim != 2:
            raise ValueError(f"X must be 2-dimensional, got shape {arr.shape}")
        mask = np.ones(arr.shape[1], dtype=bool) if categorical is None else np.asarray(categorical, dtype=bool)
        cols = [arr[:, j] for j in range(arr.shape[1])]
        labels = [f"x{j}" for j in range(arr.shape[1])]
    if len(mask) != len(cols):
        raise ValueError(f"X has {len(cols)} features, but the model was fitted with {len(mask)}")
    n = len(cols[0]) if cols else 0
    num = np.zeros((n, len(cols)), dtype=np.float64)
    cat = {}
    for j, col in enumerate(cols):
        if mask[j]:
            values = col.astype(object).tolist() if hasattr(col, "astype") else list(col)
            cat[j] = category_column(values, labels[j], check)
            continue
        try:
            v = np.asarray(col, dtype=np.float64)
        except (TypeError, ValueError) as e:
            raise ValueError(f"column {labels[j]!r} is read as numbers (as it was when the model was "
                             f"fitted, by its dtype) and holds a value that is not a number ({e}); "
                             "convert it to numbers, or to strings to make it categorical") from None
        if not np.all(np.isfinite(v)):
            raise ValueError(f"numeric column {labels[j]!r} holds NaN or infinite values; fill them in, "
                             "or make the column categorical (dtype object or category) so that a missing "
                             "value is a category of its own")
        num[:, j] = v
    return Table(num, cat)


def _quote(t: str) -> str:
    if t and (t[0] in _QUOTE_WHEN or t[-1] in _QUOTE_WHEN or any(c in t for c in ',"\r\n')):
        return '"' + t.replace('"', '""') + '"'
    return t


def _numbers(col: np.ndarray) -> List[str]:
    # repr is the shortest text that reads back as the same double
    return [repr(v) for v in col.tolist()]


def csv_bytes(table: Table, y_index: Optional[np.ndarray] = None,
              weights: Optional[np.ndarray] = None) -> bytes:
    """The table, label column (class indices) and weight column as CSV
    text with a header (feature columns x0, x1, ...)."""
    n, m = table.num.shape
    header = column_names(m)
    cols: List[Sequence[str]] = []
    for j in range(m):
        if j in table.cat:
            cols.append([_quote(t) for t in table.cat[j].tolist()])
        else:
            cols.append(_numbers(table.num[:, j]))
    if y_index is not None:
        header.append(LABEL)
        cols.append([str(int(k)) for k in y_index.tolist()])
    if weights is not None:
        header.append(WEIGHT)
        cols.append(_numbers(np.asarray(weights, dtype=np.float64)))
    lines = [",".join(header)]
    lines.extend(",".join(r) for r in zip(*cols))
    text = "\n".join(lines) + "\n"
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError as e:
        raise ValueError(f"X holds text that is not valid Unicode ({e.reason}: {e.object[e.start:e.end]!r})") from None


def categorical_args(table: Table) -> List[str]:
    """The --categorical flags naming the table's categorical columns."""
    if not table.cat:
        return []
    return ["--categorical", ",".join(f"x{j}" for j in sorted(table.cat))]


def check_integral(name: str, value, least: int, allow_none: bool = False):
    """VALUE as an int of at least LEAST, or a ValueError naming NAME."""
    if value is None and allow_none:
        return None
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
        raise ValueError(f"{name}={value!r}: an integer is expected" + (" (or None)" if allow_none else ""))
    if value < least:
        raise ValueError(f"{name}={value!r}: must be at least {least}")
    return int(value)
