"""The library installs: ``pip install .`` and ``pip install -e .`` give ``import metrics``, ``python -m metrics``,
``python -m metrics.check``, the ``ir-metrics`` scripts and the built-in samples, run from another directory.

Offline and fast: each install goes into a fresh venv that sees this interpreter's packages through a ``.pth`` file
(numpy, pyarrow, setuptools, pip), with ``--no-index --no-deps --no-build-isolation``. The source is copied first,
so a build never leaves ``build/`` or ``*.egg-info`` in the working tree.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import sysconfig
import tomllib
import venv
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
QRELS = REPO / "tests" / "data" / "trec_eval" / "qrels.test"
RUN = REPO / "tests" / "data" / "trec_eval" / "results.test"
#: What a wheel is built from (pyproject.toml's readme is README.md; setup.py names the packages).
SOURCE = ("pyproject.toml", "setup.py", "README.md", "metrics", "samples")

pytestmark = pytest.mark.slow


def _copy_source(target: Path) -> Path:
    target.mkdir()
    for name in SOURCE:
        source = REPO / name
        if source.is_dir():
            shutil.copytree(source, target / name, ignore=shutil.ignore_patterns("__pycache__", "_samples"))
        else:
            shutil.copy2(source, target / name)
    return target


def _venv_seeing_this_interpreter(path: Path) -> Path:
    """A venv without pip of its own; a .pth file lends it this interpreter's site-packages. Returns its python."""
    venv.EnvBuilder(with_pip=False).create(path)
    python = path / "bin" / "python"
    purelib = subprocess.run([python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                             capture_output=True, text=True, check=True).stdout.strip()
    (Path(purelib) / "borrowed.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    return python


def _install(tmp_path: Path, *pip_args: str) -> Path:
    source = _copy_source(tmp_path / "source")
    python = _venv_seeing_this_interpreter(tmp_path / "venv")
    subprocess.run([python, "-m", "pip", "install", "--quiet", "--no-index", "--no-deps", "--no-build-isolation",
                    *pip_args, str(source)], check=True, capture_output=True, text=True)
    return python


#: When a command is given up on. Not a wait: a command ends when it is done. On two cores shared with other test runs
#: a fresh interpreter importing every ui module took more than 120 s.
COMMAND_SECONDS = 600


def _run(*command: str | Path, cwd: Path) -> str:
    result = subprocess.run([str(part) for part in command], cwd=cwd, capture_output=True, text=True,
                            timeout=COMMAND_SECONDS)
    assert result.returncode == 0, result.stderr
    return result.stdout


def _elsewhere(tmp_path: Path) -> Path:
    """A directory with no metrics/ in it, so that only the installed package can be imported."""
    folder = tmp_path / "elsewhere"
    folder.mkdir()
    return folder


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> tuple[Path, Path]:
    tmp_path = tmp_path_factory.mktemp("installed")
    return _install(tmp_path), _elsewhere(tmp_path)


def test_pip_install_gives_the_library_where_the_source_is_not(installed):
    python, cwd = installed
    where = _run(python, "-c", "import metrics; print(metrics.__file__)", cwd=cwd)
    assert "site-packages" in where and not where.startswith(str(REPO))
    value = _run(python, "-c", "import metrics; print(metrics.evaluate({'q': {'a': 1}}, {'q': {'a': 1.0, 'b': 0.5}},"
                 " ['P.2'])['q']['P_2'])", cwd=cwd)
    assert value.strip() == "0.5"


def test_the_installed_command_lines_match_trec_eval(installed):
    python, cwd = installed
    expected = "P_5                   \tall\t0.2667"  # tests/data/trec_eval: trec_eval -m P.5
    assert _run(python, "-m", "metrics", "-m", "P.5", QRELS, RUN, cwd=cwd).strip() == expected
    assert _run(python.parent / "ir-metrics", "-m", "P.5", QRELS, RUN, cwd=cwd).strip() == expected
    check = _run(python.parent / "ir-metrics-check", QRELS, RUN, "--measure", "P@5", "--value", "0.2667", cwd=cwd)
    assert "trec_eval defaults" in check


def test_the_installed_package_carries_the_samples_and_the_real_collection_but_not_the_app(installed):
    python, cwd = installed
    shown = _run(python, "-c", "from metrics.samples import load_samples; print(len(load_samples()))", cwd=cwd)
    assert int(shown) == len(list((REPO / "samples").glob("*.json"))) - 1  # index.json lists them
    real = _run(python, "-c", "from metrics.real import DL20; print(DL20.folder.parent.name, len(DL20.qrels().qids),"
                " len(DL20.run('SPLADE++')))", cwd=cwd)
    assert real.split() == ["_samples", "54", "5400"]  # TREC DL 2020 ships inside the package, gzip
    missing = _run(python, "-c",
                   "import importlib.util as u; print([m for m in ('ui', 'app', 'tests') if u.find_spec(m)])",
                   cwd=cwd)
    assert missing.strip() == "[]"


def _engine_snippet(folder: Path) -> tuple[Path, str]:
    """The explorer's "engine snippet" download for sweet pastry under exponential gain (pytrec_eval cannot express
    it, so the snippet calls metrics.evaluate), saved where no metrics/ folder is."""
    import metrics
    from metrics.export import reproduction_snippet

    qrels = {"sweet pastry": {"donut": 1, "muffin": 1, "scone": 1}}
    run = {"sweet pastry": {"donut": 0.95, "bagel": 0.9, "muffin": 0.8, "croissant": 0.7}}
    conventions = metrics.Conventions(gain="exponential")
    path = folder / "snippet.py"
    path.write_text(reproduction_snippet(qrels, run, ["ndcg_cut.4"], conventions), encoding="utf-8")
    expected = metrics.evaluate(qrels, run, ["ndcg_cut.4"], gain="exponential")["sweet pastry"]["ndcg_cut_4"]
    return path, f"ndcg_cut_4\tsweet pastry\t{expected:.4f}"


def test_the_engine_snippet_runs_from_any_directory_once_the_package_is_installed(installed):
    python, cwd = installed
    snippet, expected = _engine_snippet(cwd)
    assert _run(python, snippet, cwd=cwd).strip() == expected


def test_the_engine_snippet_without_the_package_says_in_one_line_what_to_install(tmp_path):
    python = _venv_seeing_this_interpreter(tmp_path / "venv")  # numpy and pyarrow, but no metrics
    snippet, _ = _engine_snippet(_elsewhere(tmp_path))
    assert "\n# Needs this project's `metrics` package" in snippet.read_text(encoding="utf-8")
    done = subprocess.run([python, snippet], cwd=snippet.parent, capture_output=True, text=True,
                          timeout=COMMAND_SECONDS)
    assert (done.returncode, done.stdout) == (1, "")
    assert done.stderr.splitlines() == ["This snippet needs IR Metrics Explorer's engine: run `pip install .` in a "
                                        "clone of the project, then run it again with that Python."]


def test_an_editable_install_imports_the_source_tree(tmp_path):
    python = _install(tmp_path, "--editable")
    where = _run(python, "-c", "import metrics, metrics.samples as s; print(metrics.__file__, s.SAMPLES_FOLDER)",
                 cwd=_elsewhere(tmp_path))
    module, samples = where.split()
    assert Path(module).is_relative_to(tmp_path / "source") and Path(samples) == tmp_path / "source" / "samples"


def test_the_real_collection_stays_a_few_hundred_kilobytes_of_gzip_with_its_sources():
    folder = REPO / "samples" / "dl20"
    files = sorted(path.name for path in folder.iterdir())
    assert files == ["SOURCES.md", "dl20-passage.qrels.gz", "dl20.BM25.run.gz", "dl20.BM25_RM3.run.gz",
                     "dl20.D_BERT_KD_TASB.run.gz", "dl20.OPEN_AI_ADA2.run.gz", "dl20.SPLADE_P_P_ENSEMBLE_DISTIL.run.gz"]
    assert sum(path.stat().st_size for path in folder.iterdir()) < 1_000_000


def _requirement_names(lines: list[str]) -> dict[str, str]:
    return {line.split(">")[0].split("=")[0].strip().lower(): line.strip() for line in lines}


def test_requirements_txt_is_the_core_and_the_app_extra_of_pyproject():
    """`make app` installs requirements.txt; `pip install ".[app]"` must give the same packages."""
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    declared = _requirement_names(project["dependencies"] + project["optional-dependencies"]["app"])
    listed = _requirement_names([line.split(" #")[0] for line in (REPO / "requirements.txt").read_text().splitlines()
                                 if line.strip() and not line.startswith("#")])
    assert listed == declared


def test_requirements_dev_txt_is_the_dev_extra_of_pyproject():
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    declared = _requirement_names([spec for spec in project["optional-dependencies"]["dev"]
                                   if not spec.startswith(project["name"])])
    lines = (REPO / "requirements-dev.txt").read_text().splitlines()
    listed = _requirement_names([line.split(" #")[0] for line in lines
                                 if line.strip() and not line.startswith(("#", "-r"))])
    assert listed == declared


@pytest.fixture(scope="module")
def imported_everything() -> list[str]:
    """One fresh interpreter imports every metrics module but metrics.dask (the [dask] extra) and prints the optional
    packages that brought in; then it imports the app and every ui module and prints the Dask modules loaded by then.
    (One interpreter for both tests: importing every ui module costs seconds of CPU.)"""
    code = ("import sys, pkgutil, importlib, metrics\n"
            "def import_all(package):\n"
            "    for info in pkgutil.walk_packages(package.__path__, package.__name__ + '.'):\n"
            "        if not info.name.endswith('__main__') and info.name != 'metrics.dask':\n"
            "            importlib.import_module(info.name)\n"
            "import_all(metrics)\n"
            "roots = {name.split('.')[0] for name in sys.modules}\n"
            "print(sorted(roots & {'streamlit', 'plotly', 'pandas', 'pytrec_eval', 'scipy', 'dask', 'distributed'}))\n"
            "import app, ui\n"
            "import_all(ui)\n"
            "print(sorted(name for name in sys.modules if name.split('.')[0] in ('dask', 'distributed')))")
    return _run(sys.executable, "-c", code, cwd=REPO).splitlines()


def test_the_metrics_package_imports_nothing_outside_its_declared_dependencies(imported_everything):
    """The core install is numpy and pyarrow: importing every metrics module needs nothing else."""
    assert imported_everything[0] == "[]"


def test_the_library_and_the_app_never_import_dask(imported_everything):
    """Dask is the optional [dask] extra: only `import metrics.dask` brings it in."""
    assert imported_everything[1] == "[]"


def test_metrics_dask_without_dask_says_how_to_install_it_in_one_line():
    code = ("import sys; sys.modules['dask'] = None\n"  # as if dask were not installed
            "try:\n"
            "    import metrics.dask\n"
            "except ImportError as error:\n"
            "    print(error)\n")
    assert _run(sys.executable, "-c", code, cwd=REPO) == (
        'metrics.dask needs Dask: pip install ".[dask]" (dask[dataframe] and distributed)\n')


def test_python_m_metrics_compare_without_scipy_compares_and_asks_for_the_extra_only_where_needed():
    """`pip install .` brings numpy and pyarrow only: the t and randomisation tests and the bootstrap intervals need
    nothing more; the Wilcoxon test asks for the extra in one line, never a traceback."""
    data = REPO / "tests" / "data" / "trec_eval"
    code = ("import runpy, sys; sys.modules['scipy'] = None\n"  # as if it were not installed
            "sys.argv = ['metrics.compare', *sys.argv[1:]]\n"
            "runpy.run_module('metrics.compare', run_name='__main__', alter_sys=True)\n")
    files = [str(data / "qrels.test"), str(data / "results.test"), str(data / "results.trunc")]
    result = subprocess.run([sys.executable, "-c", code, *files, "--resamples", "200"], cwd=REPO,
                            capture_output=True, text=True, timeout=COMMAND_SECONDS)
    # results.trunc lacks query 302: the one line on stderr says so (it is not a failure to import anything)
    assert (result.returncode, result.stderr) == (0, (
        "python -m metrics.compare: warning: run 'results.trunc' lacks 1 judged query (302): every run's mean is "
        "over the 2 queries all runs answer; -c scores a missing query 0 instead\n")), result.stderr
    assert "Superscripts" in result.stdout
    result = subprocess.run([sys.executable, "-c", code, *files, "--test", "wilcoxon"], cwd=REPO,
                            capture_output=True, text=True, timeout=COMMAND_SECONDS)
    assert (result.returncode, result.stdout) == (2, "")
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr, result.stderr
    assert result.stderr == ('python -m metrics.compare: metrics.compare (the Wilcoxon test) needs scipy: '
                             'pip install ".[stats]"\n')


def test_evaluate_runs_without_pandas_names_the_extra_that_installs_it():
    code = ("import sys; sys.modules['pandas'] = None\n"  # as if it were not installed
            "import metrics\n"
            "try:\n"
            "    metrics.evaluate_runs({'q': {'d': 1}}, {'a': {'q': {'d': 1.0}}}, ['map'])\n"
            "except ImportError as error:\n"
            "    print(type(error).__name__, isinstance(error, metrics.InputError), error)\n")
    assert _run(sys.executable, "-c", code, cwd=REPO) == (
        'MissingDependency True metrics.evaluate_runs needs pandas: pip install ".[app]"\n')
