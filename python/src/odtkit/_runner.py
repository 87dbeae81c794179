"""Finding and running the ``odt`` program."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
from typing import Optional, Sequence

ENV_VAR = "ODTKIT_ODT"
_BUNDLED = os.path.join(os.path.dirname(os.path.abspath(__file__)), "bin", "odt")

# odt's exit codes: 0 success (optimal or not), 1 runtime failure, 2 bad usage
# or input, 130 interrupted with nothing to report.
EXIT_BAD_INPUT = 2


def find_odt() -> str:
    """Return the path of the ``odt`` program to run.

    It is, in this order: the file named by the environment variable
    ``ODTKIT_ODT``; the binary bundled in this package (``odtkit/bin/odt``);
    ``odt`` on the ``PATH``. A missing one raises ``FileNotFoundError`` naming
    the three places.
    """
    env = os.environ.get(ENV_VAR)
    if env:
        if os.path.isfile(env) and os.access(env, os.X_OK):
            return env
        raise FileNotFoundError(
            f"{ENV_VAR}={env!r} is not an executable file; point it at an odt binary "
            "(go build -o odt ./cmd/odt) or unset it")
    for name in (_BUNDLED, _BUNDLED + ".exe"):
        if os.path.isfile(name) and os.access(name, os.X_OK):
            return name
    on_path = shutil.which("odt")
    if on_path:
        return on_path
    raise FileNotFoundError(
        "no odt program found: looked at the environment variable "
        f"{ENV_VAR} (unset), the binary bundled in the package ({_BUNDLED}: absent), "
        "and 'odt' on the PATH (absent); install the package with Go available "
        "(pip install ./python builds odt into it), or set ODTKIT_ODT")


def _load_prctl():
    if not sys.platform.startswith("linux"):
        return None
    try:
        import ctypes
        return ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None


_PRCTL = _load_prctl()
_PR_SET_PDEATHSIG = 1


def _die_with_parent() -> None:
    """In the child before exec: get SIGKILL when the parent dies, so a
    Python process killed outright (SIGKILL, an unhandled SIGTERM) leaves no
    odt behind."""
    _PRCTL(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)


def _message(stderr: str) -> str:
    lines = [ln for ln in stderr.strip().splitlines() if ln.strip()]
    return "\n".join(lines[-5:]) if lines else "(no message)"


def run(args: Sequence[str], timeout: Optional[float] = None,
        odt: Optional[str] = None) -> subprocess.CompletedProcess:
    """Run ``odt ARGS`` and return the completed process.

    The child runs in its own process group, so a Ctrl-C at the terminal
    reaches only Python; a ``KeyboardInterrupt`` (or any other exception)
    while waiting kills the whole group, reaps it and re-raises. Exit code 2
    (bad usage or bad input) raises ``ValueError`` with odt's message; any
    other non-zero exit raises ``RuntimeError``.
    """
    exe = odt or find_odt()
    cmd = [exe, *args]
    proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True,
                            preexec_fn=_die_with_parent if _PRCTL else None)
    try:
        out, err = proc.communicate(timeout=timeout)
    except BaseException:
        _kill_group(proc)
        raise
    if proc.returncode == EXIT_BAD_INPUT:
        raise ValueError(_message(err))
    if proc.returncode != 0:
        what = (f"killed by signal {-proc.returncode}" if proc.returncode < 0
                else f"exit code {proc.returncode}")
        raise RuntimeError(f"odt {args[0] if args else ''} failed ({what}): {_message(err)}")
    return subprocess.CompletedProcess(cmd, proc.returncode, out, err)


def _kill_group(proc: subprocess.Popen) -> None:
    """Kill the child's process group and wait for the child."""
    try:
        if hasattr(os, "killpg"):
            os.killpg(proc.pid, signal.SIGKILL)
        else:
            proc.kill()
    except (ProcessLookupError, PermissionError):
        pass
    try:
        proc.communicate(timeout=5)
    except Exception:  # the pipes may already be closed
        try:
            proc.wait(timeout=5)
        except Exception:
            pass
