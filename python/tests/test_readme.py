"""The README's Python example runs, and its Slurm recipe is the script that
scripts/slurm-test.sh submits."""

import contextlib
import io
import os
import re

import pytest

from conftest import REPO


def _readme():
    with open(os.path.join(REPO, "README.md"), encoding="utf-8") as f:
        return f.read()


def _section(text, title):
    start = text.index(f"\n## {title}\n")
    end = text.find("\n## ", start + 1)
    return text[start:end if end >= 0 else len(text)]


def test_readme_python_example_runs():
    pytest.importorskip("sklearn")
    block = re.search(r"```python\n(.*?)```", _section(_readme(), "Python"), re.S)
    assert block, "the README's Python section has no python block"
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(block.group(1), "README.md", "exec"), {})
    first = out.getvalue().splitlines()[0]
    assert first.startswith("True "), f"the example printed {first!r}; want optimal_ True first"


def test_readme_slurm_recipe_is_the_tested_script():
    with open(os.path.join(REPO, "scripts", "slurm-bench.sbatch"), encoding="utf-8") as f:
        script = f.read()
    section = _section(_readme(), "Scaling out a bench")
    assert "scripts/slurm-bench.sbatch" in section
    blocks = re.findall(r"```bash\n(.*?)```", section, re.S)
    assert script in blocks, "the README's Slurm block differs from scripts/slurm-bench.sbatch"
    with open(os.path.join(REPO, "scripts", "slurm-test.sh"), encoding="utf-8") as f:
        test = f.read()
    assert re.search(r"sbatch --wait .*scripts/slurm-bench\.sbatch", test.replace("\\\n", " "))
