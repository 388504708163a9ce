"""Packaging for incac, the INCA toolchain.

The repository's top-level folders are mapped into one import namespace, ``inca``:
``compiler/`` is ``inca.compiler``, ``interpreter/`` is ``inca.interpreter`` and so on.
"""
import re

from setuptools import setup

PACKAGES = {
    "inca.lang": "lang",
    "inca.compiler": "compiler",
    "inca.interpreter": "interpreter",
    "inca.stdlib": "stdlib",
}

VERSION = re.search(r'__version__ = "(.+)"', open("lang/__init__.py", encoding="utf-8").read()).group(1)

setup(
    name="incac",
    version=VERSION,
    description="Compiler, NIC model and cost model for INCA (In-Network Compute Assistance) kernels",
    long_description=open("README.md", encoding="utf-8").read(),
    long_description_content_type="text/markdown",
    python_requires=">=3.11",
    packages=list(PACKAGES),
    package_dir=PACKAGES,
    package_data={"inca.lang": ["*.lark"], "inca.stdlib": ["*.incaq"]},
    install_requires=["lark>=1.1.9,<2", "prompt_toolkit>=3.0.36,<4"],
    extras_require={
        # matplotlib is here so the test suite exercises `inca report --plot` too
        "test": ["pytest>=7.4,<10", "hypothesis>=6.90,<7", "matplotlib>=3.7,<4"],
        "plot": ["matplotlib>=3.7,<4"],
    },
    entry_points={
        "console_scripts": [
            "incac = inca.compiler.driver:main",
            "inca = inca.interpreter.cli:main",
        ]
    },
)
