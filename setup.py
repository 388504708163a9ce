"""Packaging for incac, the INCA toolchain.

The repository's top-level folders are mapped into one import namespace, ``inca``:
``compiler/`` is ``inca.compiler``, ``interpreter/`` is ``inca.interpreter`` and so on.
"""
import re

from setuptools import find_packages, setup

# The four top-level folders and the package each one is installed as.
ROOTS = {
    "inca.lang": "lang",
    "inca.compiler": "compiler",
    "inca.interpreter": "interpreter",
    "inca.stdlib": "stdlib",
}
# Every package below them too, found in the tree rather than listed by hand: a hand-written list
# once left out inca.compiler.incaq, so a wheel installed without the INCA-Q compiler.
# (setuptools finds a subpackage's folder through its root's mapping.)
PACKAGES = [*ROOTS, *(f"{package}.{sub}" for package, folder in ROOTS.items()
                      for sub in find_packages(folder))]

VERSION = re.search(r'__version__ = "(.+)"', open("lang/__init__.py", encoding="utf-8").read()).group(1)

setup(
    name="incac",
    version=VERSION,
    description="Compiler, NIC model and cost model for INCA (In-Network Compute Assistance) kernels",
    long_description=open("README.md", encoding="utf-8").read(),
    long_description_content_type="text/markdown",
    python_requires=">=3.11",
    packages=PACKAGES,
    package_dir=ROOTS,
    # paper_figures/: the paper's published figures, a copy of shared/paper/ (see interpreter/paper.py)
    package_data={"inca.lang": ["*.lark"], "inca.stdlib": ["*.incaq"],
                  "inca.interpreter": ["paper_figures/*"]},
    # llvmlite: the llvm engine and the CPU baseline, imported only when they run
    install_requires=["lark>=1.1.9,<2", "prompt_toolkit>=3.0.36,<4", "z3-solver>=4.12,<5",
                      "llvmlite>=0.45,<1"],
    extras_require={
        # matplotlib is here so the test suite exercises `inca report --plot` too: without it that
        # test skips and the plotting code would go unrun in CI (its wheels need no compiler)
        # distributed: the cluster test starts a real Dask scheduler and workers
        # pytest-xdist: the suite runs on every core (`-n auto`), the way to keep it short
        "test": ["pytest>=7.4,<10", "pytest-xdist>=3.5,<4", "hypothesis>=6.90,<7",
                 "matplotlib>=3.7,<4", "distributed>=2024.1,<2027"],
        "plot": ["matplotlib>=3.7,<4"],
        "cluster": ["distributed>=2024.1,<2027"],
    },
    entry_points={
        "console_scripts": [
            "incac = inca.compiler.driver:program",
            "inca = inca.interpreter.cli:program",
        ]
    },
)
