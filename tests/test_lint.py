"""The code is clean under the project's ruff configuration (pyproject.toml,
[tool.ruff]): CI runs it here, so a lint error fails the test suite."""
import importlib.util
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@pytest.mark.skipif(importlib.util.find_spec("ruff") is None,
                    reason="ruff is not installed (pip install -e '.[test]')")
def test_ruff_is_clean():
    r = subprocess.run([sys.executable, "-m", "ruff", "check", "--no-cache", ROOT],
                       capture_output=True, text=True, cwd=ROOT)
    assert r.returncode == 0, r.stdout + r.stderr
