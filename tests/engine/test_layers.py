"""The house is a stack of layers: every import of metrics/, ui/ and app.py points down (docs/layout.md).

The import graph is read with ``ast`` from the source, every import counted: at the top of a module, inside a
function, under ``if TYPE_CHECKING``; relative imports are resolved against the importing module. A failure names
each offending import as ``file:line``.
"""

from __future__ import annotations

import ast
import functools
from dataclasses import dataclass
from pathlib import Path

from tests.support.paths import REPO

#: The layers, lowest first: a module may import its own layer and those below it, never one above. A module
#: belongs to the layer of the longest name here that is it or one of its packages; every ``__main__`` is a command
#: line whatever its package.
LAYERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("data model", ("metrics.profiles", "metrics.model", "metrics.conventions", "metrics.ids", "metrics.optional")),
    ("registry", ("metrics.measures", "metrics.names")),
    ("engine core", ("metrics.engine",)),
    ("readers", ("metrics.io",)),
    ("front doors", ("metrics", "metrics.evaluate", "metrics.bulk", "metrics.frames", "metrics.stream",
                     "metrics.dask", "metrics.many_runs")),
    ("analyses", ("metrics.whatif", "metrics.check", "metrics.compare", "metrics.holes", "metrics.judging",
                  "metrics.online", "metrics.ann", "metrics.ties", "metrics.explain", "metrics.export",
                  "metrics.samples", "metrics.real", "metrics.reference")),
    ("command lines", ("metrics.cli", "metrics.console", "__main__")),
    ("ui common", ("ui", "ui.common")),
    ("pages", ("ui.explore", "ui.runs", "ui.ann", "ui.lessons")),
    ("router", ("app",)),
)

#: The command-line layer: no other metrics module may import it (the library must work without argparse's world).
COMMAND_LINE = "command lines"

#: The page packages: each is one page, and no page imports another (they switch by script path).
PAGES = ("ui.explore", "ui.runs", "ui.ann", "ui.lessons")

_RANK = {name: rank for rank, (name, _) in enumerate(LAYERS)}
_UI_LAYERS = ("ui common", "pages", "router")


@dataclass(frozen=True)
class Import:
    """One import statement's edge: ``source`` imports ``target`` at ``path:line``."""

    source: str
    target: str
    path: str  # relative to the repository
    line: int

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.source} imports {self.target}"


def module_files(root: Path = REPO) -> dict[str, tuple[Path, bool]]:
    """Module name -> (file, whether it is a package's __init__), for metrics/, ui/ and app.py under ``root``."""
    files = [path for folder in ("metrics", "ui") for path in sorted((root / folder).rglob("*.py"))]
    modules = {}
    for path in [*files, root / "app.py"]:
        if not path.is_file():
            continue
        parts = list(path.relative_to(root).with_suffix("").parts)
        is_package = parts[-1] == "__init__"
        modules[".".join(parts[:-1] if is_package else parts)] = (path, is_package)
    return modules


def import_graph(root: Path = REPO) -> list[Import]:
    """Every import between the project's modules, from anywhere in a module's source, once per statement."""
    modules = module_files(root)
    edges: dict[Import, None] = {}
    for source, (path, is_package) in modules.items():
        where = path.relative_to(root).as_posix()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = _absolute(node, source, is_package)
                # `from package import name`: the submodule when there is one, else the package.
                targets = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules else base
                           for alias in node.names]
            else:
                continue
            for target in targets:
                while target and target not in modules:  # `import a.b.c` of a name inside a module
                    target = target.rpartition(".")[0]
                if target and target != source:
                    edges.setdefault(Import(source, target, where, node.lineno))
    return list(edges)


def _absolute(node: ast.ImportFrom, source: str, is_package: bool) -> str:
    if not node.level:
        return node.module or ""
    package = source.split(".") if is_package else source.split(".")[:-1]
    package = package[:len(package) - (node.level - 1)]
    return ".".join(package + ([node.module] if node.module else []))


def layer_of(module: str) -> str:
    if module.rpartition(".")[2] == "__main__":
        return COMMAND_LINE
    best = max(((len(prefix), name) for name, prefixes in LAYERS for prefix in prefixes
                if module == prefix or module.startswith(prefix + ".")), default=None)
    if best is None:
        raise AssertionError(f"{module} is in no layer: add it to LAYERS in {Path(__file__).name}")
    return best[1]


def _is_ui(edge: Import) -> bool:
    return layer_of(edge.source) in _UI_LAYERS


def _report(edges: list[Import], what: str) -> str:
    return f"{len(edges)} {what}:\n" + "\n".join(f"  {edge}" for edge in edges)


@functools.cache
def project_graph() -> list[Import]:
    """``import_graph()`` parsed once per process, by the first test that asks, not at collection (where every
    pytest-xdist worker would parse every module of the project)."""
    return import_graph()


def graph_edges(ui: bool) -> list[Import]:
    """The project's imports from the engine (``ui=False``) or from ui/ and app.py (``ui=True``)."""
    return [edge for edge in project_graph() if _is_ui(edge) == ui]


def test_every_module_has_a_layer() -> None:
    for module in module_files():
        layer_of(module)


def test_no_metrics_module_imports_a_command_line() -> None:
    offending = [edge for edge in graph_edges(ui=False)
                 if layer_of(edge.target) == COMMAND_LINE and layer_of(edge.source) != COMMAND_LINE]
    assert not offending, _report(offending, "imports of a command-line module from the library (move what they "
                                             "need below metrics/cli.py)")


def test_metrics_imports_point_down() -> None:
    offending = [edge for edge in graph_edges(ui=False) if _RANK[layer_of(edge.target)] > _RANK[layer_of(edge.source)]]
    assert not offending, _report(offending, "imports from a lower layer to a higher one")


def test_the_engine_never_imports_the_ui() -> None:
    offending = [edge for edge in graph_edges(ui=False) if layer_of(edge.target) in _UI_LAYERS]
    assert not offending, _report(offending, "imports of ui/ or app.py from metrics/")


def _cycles(edges: list[Import]) -> list[list[str]]:
    """The import cycles (strongly connected components of more than one module), by Tarjan's algorithm."""
    successors: dict[str, set[str]] = {}
    for edge in edges:
        successors.setdefault(edge.source, set()).add(edge.target)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found = []

    def visit(module: str) -> None:  # the graph is a few hundred modules deep at most
        index[module] = low[module] = len(index)
        stack.append(module)
        on_stack.add(module)
        for target in sorted(successors.get(module, ())):
            if target not in index:
                visit(target)
                low[module] = min(low[module], low[target])
            elif target in on_stack:
                low[module] = min(low[module], index[target])
        if low[module] == index[module]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == module:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for module in sorted(successors):
        if module not in index:
            visit(module)
    return found


def _cycle_report(edges: list[Import], cycles: list[list[str]]) -> str:
    lines = []
    for members in cycles:
        inside = [edge for edge in edges if edge.source in members and edge.target in members]
        lines.append(f"cycle {' / '.join(members)}:\n" + "\n".join(f"  {edge}" for edge in inside))
    return "\n".join(lines)


def test_metrics_has_no_import_cycle() -> None:
    cycles = _cycles(graph_edges(ui=False))
    assert not cycles, _cycle_report(graph_edges(ui=False), cycles)


def test_the_layer_checks_catch_a_cycle_and_an_upward_import() -> None:
    """The checks themselves, on a made-up graph: bulk -> evaluate -> frames -> bulk, and io importing cli."""
    here = "made-up.py"
    made_up = [Import("metrics.bulk", "metrics.evaluate", here, 1),
               Import("metrics.evaluate", "metrics.frames", here, 2),
               Import("metrics.frames", "metrics.bulk", here, 3),
               Import("metrics.io.read", "metrics.cli", here, 4)]
    assert _cycles(made_up) == [["metrics.bulk", "metrics.evaluate", "metrics.frames"]]
    assert [edge.line for edge in made_up if _RANK[layer_of(edge.target)] > _RANK[layer_of(edge.source)]] == [4]
    assert layer_of("metrics.compare.__main__") == COMMAND_LINE
    assert layer_of("metrics.io.trec") == "readers"


def test_ui_imports_point_down() -> None:
    offending = [edge for edge in graph_edges(ui=True) if _RANK[layer_of(edge.target)] > _RANK[layer_of(edge.source)]]
    assert not offending, _report(offending, "imports from a lower layer to a higher one in ui/ and app.py")


def _page(module: str) -> str | None:
    return next((page for page in PAGES if module == page or module.startswith(page + ".")), None)


def test_pages_never_import_each_other() -> None:
    offending = [edge for edge in graph_edges(ui=True)
                 if _page(edge.source) and _page(edge.target) and _page(edge.source) != _page(edge.target)]
    assert not offending, _report(offending, "imports of one page from another (switch pages by script path)")


def test_metrics_ui_and_app_have_no_import_cycle() -> None:
    cycles = _cycles(project_graph())
    assert not cycles, _cycle_report(project_graph(), cycles)


def test_the_graph_sees_imports_inside_functions_and_resolves_relative_ones(tmp_path: Path) -> None:
    """A relative import inside a function, ``from ..`` of a package's submodule, and ``import a.b`` are edges."""
    (tmp_path / "metrics" / "io").mkdir(parents=True)
    (tmp_path / "metrics" / "__init__.py").write_text("")
    (tmp_path / "metrics" / "cli.py").write_text("PROG = 'x'\n")
    (tmp_path / "metrics" / "engine.py").write_text("import metrics.io.trec\n")
    (tmp_path / "metrics" / "io" / "__init__.py").write_text("from . import trec\n")
    (tmp_path / "metrics" / "io" / "trec.py").write_text(
        "def read():\n    from ..cli import PROG\n    from .. import engine\n    return PROG, engine\n")
    edges = {(edge.source, edge.target, edge.path, edge.line) for edge in import_graph(tmp_path)}
    assert edges == {
        ("metrics.engine", "metrics.io.trec", "metrics/engine.py", 1),
        ("metrics.io", "metrics.io.trec", "metrics/io/__init__.py", 1),
        ("metrics.io.trec", "metrics.cli", "metrics/io/trec.py", 2),
        ("metrics.io.trec", "metrics.engine", "metrics/io/trec.py", 3),
    }
