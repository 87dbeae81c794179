"""odtkit: provably optimal decision trees and diagrams, from Python.

The package drives the ``odt`` program (found through the environment
variable ODTKIT_ODT, then the binary bundled in the package, then the PATH):

- ``OptimalTreeClassifier`` and ``DecisionDiagramClassifier``: scikit-learn
  estimators (fit / predict / predict_proba, GridSearchCV, pipelines);
- ``solve``, ``export``, ``decode``: odt solve, export and decode on arrays;
- ``backends``: the registry of solver backends.
"""

from ._api import Backend, Param, Result, backends, decode, export, solve
from ._estimators import DecisionDiagramClassifier, OptimalTreeClassifier
from ._runner import find_odt

__all__ = [
    "Backend", "DecisionDiagramClassifier", "OptimalTreeClassifier", "Param", "Result",
    "backends", "decode", "export", "find_odt", "solve",
]
__version__ = "0.1.0"
