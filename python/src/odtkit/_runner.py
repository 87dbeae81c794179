"""Finding and running the ``odt`` program."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import threading
from typing import Callable, Optional, Sequence

ENV_VAR = "ODTKIT_ODT"
_BUNDLED = os.path.join(os.path.dirname(os.path.abspath(__file__)), "bin", "odt")

# odt's exit codes: 0 success (optimal or not), 1 runtime failure, 2 bad usage
# or input, 130 interrupted with nothing to report.
EXIT_BAD_INPUT = 2
EXIT_INTERRUPTED = 130


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


# odt reads the data from its standard input through this path; messages
# name "the data" instead.
STDIN_PATH = "/dev/stdin"


def _message(stderr: str) -> str:
    lines = [ln.replace(STDIN_PATH, "the data") for ln in stderr.strip().splitlines() if ln.strip()]
    return "\n".join(lines[-5:]) if lines else "(no message)"


class Completed:
    """A finished odt: its exit code, stdout and stderr, and whether it was
    interrupted (sent SIGINT after a KeyboardInterrupt in Python)."""

    def __init__(self, args, returncode, stdout, stderr, interrupted):
        self.args, self.returncode = args, returncode
        self.stdout, self.stderr, self.interrupted = stdout, stderr, interrupted


def run(args: Sequence[str], input: Optional[bytes] = None, odt: Optional[str] = None,
        progress: Optional[Callable[[str], None]] = None, interruptible: bool = False) -> Completed:
    """Run ``odt ARGS`` with INPUT (bytes) on its standard input and return
    the finished process.

    The child runs in its own process group, so a Ctrl-C at the terminal
    reaches only Python. On a ``KeyboardInterrupt`` while odt runs, an
    INTERRUPTIBLE run sends odt SIGINT, as a Ctrl-C at odt's own terminal
    would, and waits for it to write its result (the best model so far); a
    second ``KeyboardInterrupt`` (or any other exception, or a run that is
    not INTERRUPTIBLE) kills the whole group, reaps it and re-raises.
    PROGRESS, when given, receives each line odt writes on stderr as it
    comes. Exit code 2 (bad usage or bad input) raises ``ValueError`` with
    odt's message, 130 (interrupted before anything was found)
    ``KeyboardInterrupt``, any other non-zero exit ``RuntimeError``.
    """
    exe = odt or find_odt()
    cmd = [exe, *args]
    proc = subprocess.Popen(cmd, stdin=subprocess.PIPE if input is not None else subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True,
                            preexec_fn=_die_with_parent if _PRCTL else None)
    out: list = []
    err: list = []
    # The wait for odt's result is on an Event, not on Thread.join: on
    # Python before 3.13 a KeyboardInterrupt inside join() can mark the
    # thread finished while it still runs (CPython gh-90882), and a second
    # join() then returns before the result was read.
    out_read = threading.Event()

    def read_out():
        try:
            out.append(proc.stdout.read())
        finally:
            out_read.set()

    def read_err():
        for line in proc.stderr:
            err.append(line)
            if progress is not None:
                try:
                    progress(line.decode("utf-8", "replace"))
                except Exception:  # a broken progress sink must not stop the run
                    pass

    def write_in():
        try:
            proc.stdin.write(input)
        except OSError:  # odt stopped reading (it failed, or was stopped)
            pass
        finally:
            try:
                proc.stdin.close()
            except OSError:
                pass

    threads = [threading.Thread(target=f, daemon=True) for f in (read_out, read_err)]
    if input is not None:
        threads.append(threading.Thread(target=write_in, daemon=True))
    interrupted = False
    try:
        for t in threads:
            t.start()
        try:
            out_read.wait()
        except KeyboardInterrupt:
            if not interruptible:
                raise
            interrupted = True
            _signal(proc, signal.SIGINT)
            out_read.wait()  # a second KeyboardInterrupt goes to the handler below
        proc.wait()
        for t in threads:
            t.join()
    except BaseException:
        _kill_group(proc)
        raise
    stdout = (out[0] if out else b"").decode("utf-8", "replace")
    stderr = b"".join(err).decode("utf-8", "replace")
    if proc.returncode == EXIT_BAD_INPUT:
        raise ValueError(_message(stderr))
    if interrupted and proc.returncode == EXIT_INTERRUPTED:
        raise KeyboardInterrupt
    if proc.returncode != 0:
        what = (f"killed by signal {-proc.returncode}" if proc.returncode < 0
                else f"exit code {proc.returncode}")
        raise RuntimeError(f"odt {args[0] if args else ''} failed ({what}): {_message(stderr)}")
    return Completed(cmd, proc.returncode, stdout, stderr, interrupted)


def _signal(proc: subprocess.Popen, sig: int) -> None:
    try:
        os.kill(proc.pid, sig)
    except (ProcessLookupError, PermissionError):
        pass


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
        proc.wait(timeout=5)
    except Exception:
        pass
