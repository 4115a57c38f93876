"""The shape of the package: one concept a module, arrows one way. No import cycle; the reference (and so
`response-schema parse`) loads no harness module; the walk knows nothing of tracing."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "src" / "response_schema"
HARNESS_FACING = {"pytest_plugin", "playground"}  # they serve the harness's users and may import it


def module_imports() -> dict[str, set[str]]:
    """Each module of the package (dotted, below response_schema) and the package modules it imports at its top."""
    graph: dict[str, set[str]] = {}
    for path in PACKAGE.rglob("*.py"):
        name = ".".join(path.relative_to(PACKAGE).with_suffix("").parts).removesuffix(".__init__")
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        found: set[str] = set()
        for node in ast.parse(path.read_text(encoding="utf-8")).body:  # the top level only: not inside functions
            if isinstance(node, ast.ImportFrom) and node.level:
                base = package.split(".") if package else []
                base = base[: len(base) - (node.level - 1)] if node.level > 1 else base
                target = ".".join([*base, node.module] if node.module else base)
                found |= {f"{target}.{alias.name}" if not node.module else target for alias in node.names}
        graph[name] = {target.strip(".") for target in found}
    modules = set(graph)
    return {name: {t for t in targets if t in modules and t != name} for name, targets in graph.items()}


def test_no_import_cycle() -> None:
    graph = module_imports()
    state: dict[str, str] = {}

    def visit(name: str, trail: list[str]) -> None:
        state[name] = "open"
        for target in sorted(graph[name]):
            assert state.get(target) != "open", "import cycle: " + " -> ".join([*trail, name, target])
            if target not in state:
                visit(target, [*trail, name])
        state[name] = "done"

    for name in sorted(graph):
        if name not in state:
            visit(name, [])


def test_the_reference_imports_no_harness_module() -> None:
    graph = module_imports()
    for name, targets in graph.items():
        if not name.startswith("harness") and name not in HARNESS_FACING:
            assert not any(target.startswith("harness") for target in targets), (name, targets)


def test_parse_loads_no_harness_module() -> None:
    result = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "response_schema", "parse", "smollm3", "-"],
        input=b"Hello", capture_output=True, timeout=60,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    loaded = [line for line in result.stderr.decode().splitlines() if "response_schema.harness" in line]
    assert loaded == []


def test_the_walk_knows_nothing_of_tracing() -> None:
    """No name in walk.py's code speaks of traces, records, offsets or spans, and nothing is overloaded: it
    tells an observer what happens through one hook (Walk.saw), and trace.py does the rest."""
    tree = ast.parse((PACKAGE / "walk.py").read_text(encoding="utf-8"))
    names = {node.id for node in ast.walk(tree) if isinstance(node, ast.Name)}
    names |= {node.attr for node in ast.walk(tree) if isinstance(node, ast.Attribute)}
    names |= {node.arg for node in ast.walk(tree) if isinstance(node, ast.arg)}
    names |= {node.name for node in ast.walk(tree) if isinstance(node, (ast.FunctionDef, ast.ClassDef))}
    for word in ("trace", "record", "offset", "span", "overload"):
        assert not [name for name in names if word in name.lower()], word
