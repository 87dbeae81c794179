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


def _script(tmp_path, body):
    """A Python script that fits with the SIGINT handler of an interactive terminal (a
    shell's background job inherits SIGINT ignored, and Python then raises
    no KeyboardInterrupt)."""
    script = tmp_path / "fit.py"
    script.write_text(textwrap.dedent("""
        import signal, sys
        signal.signal(signal.SIGINT, signal.default_int_handler)
        sys.path[:0] = %r
        from test_limits import hard_rows
        from odtkit import OptimalTreeClassifier
        X, y = hard_rows()
        try:
    """ % [os.path.dirname(os.path.abspath(__file__))]) + textwrap.indent(textwrap.dedent(body), "    ") +
        textwrap.dedent("""
        except KeyboardInterrupt:
            print("interrupted", flush=True)
            raise
        print("finished", flush=True)
    """))
    return script


def _start(script, env=None):
    p = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True, env=env)
    child = None
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and child is None:
        kids = _children(p.pid)
        if kids:
            child = kids[0]
        time.sleep(0.05)
    assert child is not None, "odt did not start"
    return p, child


def _finish(p, child):
    try:
        out, err = p.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        p.kill()  # the odt child dies with it (parent-death signal) or is killed below
        out, err = p.communicate()
        if _alive(child):
            os.kill(child, signal.SIGKILL)
        raise AssertionError(f"the Python process did not stop on SIGINT within 30 s: {out} {err}")
    for _ in range(50):
        if not _alive(child):
            break
        time.sleep(0.1)
    survived = _alive(child)
    if survived:
        os.kill(child, signal.SIGKILL)
    assert not survived, f"odt child {child} survived the interrupt"
    return out, err


def test_ctrl_c_keeps_the_best_tree(tmp_path):
    """Ctrl-C reaches odt as SIGINT: the fit returns the best tree found so
    far, status cancelled, as odt solve does."""
    script = _script(tmp_path, """
        c = OptimalTreeClassifier(backend="dl85", max_depth=6, verbose=1).fit(X, y)
        print("status", c.status_, c.optimal_, c.error_, int((c.predict(X) != y).sum()), flush=True)
    """)
    p, child = _start(script)
    # wait for odt's first improving tree (verbose=1 streams odt's progress)
    seen = ""
    deadline = time.monotonic() + 60
    while "incumbent objective" not in seen and time.monotonic() < deadline:
        seen += p.stderr.readline()
    assert "incumbent objective" in seen, seen
    time.sleep(0.2)
    assert _alive(child)
    p.send_signal(signal.SIGINT)
    out, err = _finish(p, child)
    assert p.returncode == 0, err
    words = [ln.split() for ln in out.splitlines() if ln.startswith("status")][0]
    assert words[1:3] == ["cancelled", "False"]
    assert words[3] == words[4]  # the tree kept is the one odt verified
    assert "finished" in out and "interrupted" not in out
    assert "/dev/stdin" not in seen + err


def _fake_odt(tmp_path, on_int):
    """An odt that reads its input, then waits; ON_INT is its SIGINT trap."""
    fake = tmp_path / "odt"
    fake.write_text("#!/bin/sh\ntrap '%s' INT\ncat > /dev/null\nsleep 60 &\nwait $!\nwait $!\n" % on_int)
    fake.chmod(0o755)
    return dict(os.environ, ODTKIT_ODT=str(fake))


def test_ctrl_c_before_any_tree_raises(tmp_path):
    (tmp_path / "result.json").write_text(
        '{"backend": "dl85", "status": "cancelled", "optimal": false, "rows": 300, "model": null}')
    nothing = f"kill $!; cat {tmp_path / 'result.json'}; exit 0"
    p, child = _start(_script(tmp_path, "OptimalTreeClassifier().fit(X, y)\n"), _fake_odt(tmp_path, nothing))
    time.sleep(0.3)
    p.send_signal(signal.SIGINT)
    out, err = _finish(p, child)
    assert "interrupted" in out and "finished" not in out
    assert "KeyboardInterrupt" in err and p.returncode != 0


def test_second_ctrl_c_kills_odt(tmp_path):
    p, child = _start(_script(tmp_path, "OptimalTreeClassifier().fit(X, y)\n"), _fake_odt(tmp_path, ""))
    time.sleep(0.3)
    p.send_signal(signal.SIGINT)  # odt ignores it
    time.sleep(0.5)
    assert _alive(child) and p.poll() is None
    p.send_signal(signal.SIGINT)
    out, err = _finish(p, child)
    assert "interrupted" in out and "KeyboardInterrupt" in err
