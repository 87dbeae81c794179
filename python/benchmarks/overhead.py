"""Python overhead per fit: OptimalTreeClassifier.fit against the same
`odt solve` run directly, on the data files given (default: iris and vote).

    python overhead.py [--repeat N] [--backend dl85] [--depth 3] [FILE...]

For each file it times N fits and N `odt solve -q --format json` processes
(same binary, backend, depth, one thread), alternating, and prints the median
wall time of each and their difference: the cost of the Python layer (writing
the CSV, reading the result JSON, building the predictor).
"""

import argparse
import os
import statistics
import subprocess
import time

import numpy as np

import odtkit

HERE = os.path.dirname(os.path.abspath(__file__))
TESTDATA = os.path.join(HERE, "..", "..", "testdata")


def load(path):
    if path.endswith(".csv"):
        d = np.loadtxt(path, delimiter=",", skiprows=1)
        return d[:, :-1], d[:, -1]
    d = np.loadtxt(path)
    return d[:, 1:], d[:, 0]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=30)
    ap.add_argument("--backend", default="dl85")
    ap.add_argument("--depth", type=int, default=3)
    ap.add_argument("files", nargs="*", default=[os.path.join(TESTDATA, f) for f in ("iris.csv", "vote.txt")])
    a = ap.parse_args()
    odt = odtkit.find_odt()
    print(f"odt: {odt}; backend {a.backend}, depth {a.depth}, {a.repeat} runs each")
    print(f"{'data':10} {'rows':>5} {'odt solve ms':>13} {'fit ms':>8} {'overhead ms':>12} {'predict ms':>11}")
    for path in a.files:
        X, y = load(path)
        cmd = [odt, "solve", "-q", "--format", "json", "--backend", a.backend, "--depth", str(a.depth),
               "--threads", "1", path]
        cli, fit, pred = [], [], []
        for _ in range(a.repeat):
            t = time.perf_counter()
            subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
            cli.append(time.perf_counter() - t)
            t = time.perf_counter()
            c = odtkit.OptimalTreeClassifier(backend=a.backend, max_depth=a.depth).fit(X, y)
            fit.append(time.perf_counter() - t)
            t = time.perf_counter()
            c.predict(X)
            pred.append(time.perf_counter() - t)
        mc, mf = statistics.median(cli) * 1e3, statistics.median(fit) * 1e3
        print(f"{os.path.basename(path):10} {len(y):5d} {mc:13.1f} {mf:8.1f} {mf - mc:12.1f} "
              f"{statistics.median(pred) * 1e3:11.2f}")


if __name__ == "__main__":
    main()
