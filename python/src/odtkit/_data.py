"""Writing training data as the CSV files ``odt`` reads."""

from __future__ import annotations

from typing import Optional

import numpy as np

LABEL = "y"
WEIGHT = "w"


def column_names(n_features: int) -> list:
    """The CSV header names of the feature columns: x0, x1, ..."""
    return [f"x{j}" for j in range(n_features)]


def write_csv(path: str, X: np.ndarray, y_index: Optional[np.ndarray] = None,
              weights: Optional[np.ndarray] = None) -> None:
    """Write X (float matrix), the label column (class indices) and the weight
    column to PATH as CSV with a header.

    Floats are written with 17 significant digits, so odt reads back exactly
    the same doubles and its thresholds compare with the Python values as they
    compare with its own.
    """
    n, m = X.shape
    header = column_names(m)
    cols = [X]
    fmt = ["%.17g"] * m
    if y_index is not None:
        header.append(LABEL)
        cols.append(y_index.reshape(-1, 1).astype(np.float64))
        fmt.append("%d")
    if weights is not None:
        header.append(WEIGHT)
        cols.append(weights.reshape(-1, 1).astype(np.float64))
        fmt.append("%.17g")
    table = np.hstack(cols) if len(cols) > 1 else X
    with open(path, "w", newline="") as f:
        f.write(",".join(header) + "\n")
        if n:
            np.savetxt(f, table, fmt=fmt, delimiter=",")

