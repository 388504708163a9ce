"""Shared test options and fixtures.

``pytest --update-goldens`` rewrites the expected stderr files under ``tests/errors/`` from the
current output instead of comparing against them (see ``test_cli.py``).

Hypothesis draws the same examples on every run of the default suite (``derandomize``), so a
commit's result does not depend on luck; ``INCA_HYPOTHESIS=explore`` draws new ones each run
(with the long runs' ``INCA_*_EXAMPLES`` variables, the way to look for new failures).
"""
from __future__ import annotations

import os
import shutil
import tempfile

import pytest
from hypothesis import settings

settings.register_profile("suite", derandomize=True)
settings.register_profile("explore", derandomize=False)
settings.load_profile("explore" if os.environ.get("INCA_HYPOTHESIS") == "explore" else "suite")


def pytest_configure(config):
    """Every ``inca report`` of the suite (in-process or a subprocess) caches in a folder of its
    own, never in the user's cache."""
    config._inca_cache = tempfile.mkdtemp(prefix="incac-test-cache-")
    os.environ["XDG_CACHE_HOME"] = config._inca_cache


def pytest_unconfigure(config):
    shutil.rmtree(getattr(config, "_inca_cache", ""), ignore_errors=True)


def pytest_addoption(parser):
    parser.addoption("--update-goldens", action="store_true", default=False,
                     help="rewrite tests/errors/*.err from the tools' current stderr")


@pytest.fixture
def update_goldens(request) -> bool:
    """True when the run should rewrite golden files instead of checking them."""
    return request.config.getoption("--update-goldens")


@pytest.fixture
def run_asm():
    """Assemble INCA-A text, run it on the NIC model and return the RunResult.

    ``run_asm(text, inputs=None, profile="scratchpad", max_steps=10_000, trace=None)``
    """
    from inca.compiler.assembler import assemble_text
    from inca.interpreter.loader import execute
    from inca.interpreter.profiles import load_profile
    from inca.lang.tuples import encode

    def run(text: str, inputs: dict | None = None, profile: str = "scratchpad",
            max_steps: int = 10_000, trace=None, defines: dict | None = None):
        prog = assemble_text(text, "t.incaa", defines)
        return execute(encode(prog), load_profile(profile), inputs, max_steps, trace)

    return run
