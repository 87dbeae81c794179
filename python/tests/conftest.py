"""Shared fixtures of the odtkit tests.

With ODTKIT_TEST_STRICT=1 (scripts/test.sh sets it when HiGHS is installed)
a test that would skip for lack of a tool fails instead, so CI cannot pass by
skipping.
"""

import json
import os
import subprocess

import numpy as np
import pytest

import odtkit

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
TESTDATA = os.path.join(REPO, "testdata")


def shared_dir(need=""):
    """The path of NEED inside the shared benchmark folder (ODTKIT_SHARED,
    else ../shared beside the repository); the test is skipped when it is
    absent, as a fresh clone has none."""
    base = os.environ.get("ODTKIT_SHARED") or os.path.join(REPO, "..", "shared")
    path = os.path.join(base, need)
    if not os.path.exists(path):
        pytest.skip(f"the shared benchmark folder is not present (looked for {path}; set ODTKIT_SHARED)")
    return path


def need(condition, reason):
    """Skip the test unless CONDITION (fail under ODTKIT_TEST_STRICT=1)."""
    if condition:
        return
    if os.environ.get("ODTKIT_TEST_STRICT") == "1":
        pytest.fail(f"ODTKIT_TEST_STRICT=1 and {reason}")
    pytest.skip(reason)


@pytest.fixture(scope="session")
def odt():
    return odtkit.find_odt()


@pytest.fixture(scope="session")
def has_highs(odt):
    out = subprocess.run([odt, "version"], capture_output=True, text=True).stdout
    tags = [ln for ln in out.splitlines() if ln.startswith("build tags:")]
    return bool(tags) and "highs" in tags[0].split(":", 1)[1].split()


def run_odt(odt, *args):
    """Run odt ARGS and return its stdout (the test fails on a non-zero exit)."""
    p = subprocess.run([odt, *args], capture_output=True, text=True)
    assert p.returncode == 0, f"odt {' '.join(args)}: exit {p.returncode}: {p.stderr}"
    return p.stdout


def solve_json(odt, *args):
    return json.loads(run_odt(odt, "solve", "-q", "--format", "json", *args))


@pytest.fixture(scope="session")
def iris():
    path = os.path.join(TESTDATA, "iris.csv")
    d = np.loadtxt(path, delimiter=",", skiprows=1)
    return path, d[:, :4], d[:, 4].astype(int)


@pytest.fixture(scope="session")
def vote():
    """testdata/vote.txt: label first, then 16 binary features."""
    path = os.path.join(TESTDATA, "vote.txt")
    d = np.loadtxt(path)
    return path, d[:, 1:], d[:, 0].astype(int)
