"""Build step of the odtkit Python package: compiles the odt program with Go
into the package (odtkit/bin/odt).

Environment:
  ODTKIT_SOURCE     the odtkit Go module (default: the folder above this one)
  GO                the go command (default: go on the PATH, then /usr/local/go/bin/go)
  ODTKIT_GO_TAGS    build tags; default "highs" when `pkg-config --exists highs`
                    succeeds, else none (the pure-Go build, without the MILP solves)
  ODTKIT_NO_BINARY  set to 1 to build without the binary (odt is then found
                    through ODTKIT_ODT or the PATH)
"""

import os
import shutil
import subprocess
import sys

from setuptools import Distribution, setup
from setuptools.command.build_py import build_py

HERE = os.path.dirname(os.path.abspath(__file__))


def _go():
    go = os.environ.get("GO") or shutil.which("go")
    if not go and os.access("/usr/local/go/bin/go", os.X_OK):
        go = "/usr/local/go/bin/go"
    return go


def _tags():
    tags = os.environ.get("ODTKIT_GO_TAGS")
    if tags is not None:
        return tags
    try:
        ok = subprocess.run(["pkg-config", "--exists", "highs"]).returncode == 0
    except OSError:
        ok = False
    return "highs" if ok else ""


class BuildWithOdt(build_py):
    """build_py, then `go build -o BUILD/odtkit/bin/odt ./cmd/odt`."""

    def run(self):
        super().run()
        if os.environ.get("ODTKIT_NO_BINARY") == "1":
            print("odtkit: ODTKIT_NO_BINARY=1: no odt binary bundled", file=sys.stderr)
            return
        src = os.path.abspath(os.environ.get("ODTKIT_SOURCE") or os.path.join(HERE, ".."))
        if not os.path.isfile(os.path.join(src, "go.mod")) or not os.path.isdir(os.path.join(src, "cmd", "odt")):
            raise SystemExit(
                f"odtkit: no odtkit Go source at {src} (go.mod and cmd/odt); build from a clone "
                "(pip install ./python), set ODTKIT_SOURCE to one, or set ODTKIT_NO_BINARY=1")
        go = _go()
        if not go:
            raise SystemExit(
                "odtkit: Go is needed to build the odt binary into the package and no 'go' was found "
                "(PATH, /usr/local/go/bin, $GO); install Go 1.26 or set ODTKIT_NO_BINARY=1")
        out = os.path.join(os.path.abspath(self.build_lib), "odtkit", "bin", "odt")
        os.makedirs(os.path.dirname(out), exist_ok=True)
        tags = _tags()
        cmd = [go, "build"]
        env = dict(os.environ)
        if tags:
            cmd += ["-tags", tags]
        else:
            env.setdefault("CGO_ENABLED", "0")  # a static binary
        cmd += ["-o", out, "./cmd/odt"]
        print(f"odtkit: {' '.join(cmd)} (in {src})", file=sys.stderr)
        subprocess.check_call(cmd, cwd=src, env=env)
        os.chmod(out, 0o755)


cmdclass = {"build_py": BuildWithOdt}

try:
    from wheel.bdist_wheel import bdist_wheel

    class PlatformWheel(bdist_wheel):
        """A wheel for this platform (it holds a native binary) and any Python 3."""

        def finalize_options(self):
            super().finalize_options()
            self.root_is_pure = False

        def get_tag(self):
            _, _, plat = super().get_tag()
            return "py3", "none", plat

    cmdclass["bdist_wheel"] = PlatformWheel
except ImportError:  # wheel is only needed to build wheels
    pass

class BinaryDistribution(Distribution):
    """The package holds a native program: a platform build, not a pure one."""

    def has_ext_modules(self):
        return True


setup(cmdclass=cmdclass, distclass=BinaryDistribution)
