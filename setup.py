"""The wheel's packages (the rest of the metadata is in pyproject.toml): every package under metrics/, found rather
than listed so that a module that grows into a package is never left out, and the built-in samples from samples/ as
metrics._samples (with the real TREC DL 2020 collection in samples/dl20/, gzip), so that
``metrics.samples.load_samples()`` and ``metrics.real.DL20`` work wherever the library is installed. ui/, app.py,
tests/ and bench/ stay in the source tree."""

from setuptools import find_packages, setup

setup(
    packages=[*find_packages(include=["metrics", "metrics.*"]), "metrics._samples"],
    package_dir={"metrics._samples": "samples"},
    package_data={"metrics._samples": ["*.json", "dl20/*.gz", "dl20/SOURCES.md"]},
)
