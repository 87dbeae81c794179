"""Time limits and interruption: a fit stops near its limit with an honest
status, and Ctrl-C kills the odt child and re-raises."""

import os
import signal
import subprocess
import sys
import textwrap
import time

import numpy as np

from odtkit import OptimalTreeClassifier


def hard_rows(n=300, m=12, seed=0):
    """Noisy numeric rows on which dl85 at depth 5 takes far longer than 1 s
    to prove its tree."""
    r = np.random.default_rng(seed)
    X = r.random((n, m))
    y = (X[:, 0] + X[:, 1] * X[:, 2] + r.normal(0, 0.3, n) > 1).astype(int)
    return X, y


def test_time_limit_respected():
    X, y = hard_rows()
    t0 = time.monotonic()
    c = OptimalTreeClassifier(backend="dl85", max_depth=5, time_limit=1.0).fit(X, y)
    wall = time.monotonic() - t0
    assert wall < 1.0 + 1.0, f"fit took {wall:.2f} s with a 1 s limit"
    assert c.status_ == "time-limit"
    assert c.optimal_ is False
    assert c.lower_bound_ < c.objective_
    # the model is the best found, and it is usable
    assert np.sum(c.predict(X) != y) == c.result_["errors"]


def _children(pid):
    out = subprocess.run(["ps", "-o", "pid=", "--ppid", str(pid)], capture_output=True, text=True).stdout
    return [int(p) for p in out.split()]


def _alive(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(")")[-1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def test_keyboard_interrupt_kills_child(tmp_path):
    script = tmp_path / "fit.py"
    # A shell's background job inherits SIGINT ignored, and Python then raises
    # no KeyboardInterrupt: install the handler a terminal session has.
    script.write_text(textwrap.dedent("""
        import signal, sys
        signal.signal(signal.SIGINT, signal.default_int_handler)
        sys.path[:0] = %r
        from test_limits import hard_rows
        from odtkit import OptimalTreeClassifier
        X, y = hard_rows()
        try:
            OptimalTreeClassifier(backend="dl85", max_depth=6).fit(X, y)
        except KeyboardInterrupt:
            print("interrupted", flush=True)
            raise
        print("finished")
    """ % [os.path.dirname(os.path.abspath(__file__))]))
    p = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    child = None
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and child is None:
        kids = _children(p.pid)
        if kids:
            child = kids[0]
        time.sleep(0.05)
    assert child is not None, "odt did not start"
    time.sleep(0.3)
    assert _alive(child)
    p.send_signal(signal.SIGINT)
    try:
        out, err = p.communicate(timeout=20)
    except subprocess.TimeoutExpired:
        p.kill()  # the odt child dies with it (parent-death signal) or is killed below
        out, err = p.communicate()
        if _alive(child):
            os.kill(child, signal.SIGKILL)
        raise AssertionError("the Python process did not stop on SIGINT within 20 s")
    assert "interrupted" in out and "finished" not in out
    assert "KeyboardInterrupt" in err
    assert p.returncode != 0
    for _ in range(50):
        if not _alive(child):
            break
        time.sleep(0.1)
    survived = _alive(child)
    if survived:
        os.kill(child, signal.SIGKILL)
    assert not survived, f"odt child {child} survived the interrupt"
