"""The package keeps the shape ARCHITECTURE.md draws: layers, no cycles, small modules."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "judgekit"
ARCHITECTURE = ROOT / "ARCHITECTURE.md"

MAX_MODULE_LINES = 400
MAX_FUNCTION_LINES = 60
LONG_REASON = "# long:"


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


MODULES = {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def imported_modules(name: str, path: Path) -> Iterator[str]:
    """Every judgekit module ``name`` imports, at any depth of its code."""
    is_package = path.name == "__init__.py"
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = name.split(".") if is_package else name.split(".")[:-1]
            if node.level:
                base = base[: len(base) - node.level + 1]
                prefix = ".".join([*base, *([node.module] if node.module else [])])
            else:
                prefix = node.module or ""
            targets = [f"{prefix}.{alias.name}" for alias in node.names]
        else:
            continue
        for target in targets:
            while target not in MODULES and "." in target:
                target = target.rsplit(".", 1)[0]
            if target in MODULES and target != name:
                yield target


IMPORTS = {name: set(imported_modules(name, path)) for name, path in MODULES.items()}


def package_of(module: str) -> str:
    """``judgekit.store.schema`` → ``store``; the root ``judgekit`` is its own package."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "judgekit"


def layers() -> dict[str, int]:
    """The layer of each package, read from the table in ARCHITECTURE.md."""
    table = ARCHITECTURE.read_text(encoding="utf-8").split("```")[1].strip("\n").splitlines()
    header, rule, rows = table[0], table[1], table[2:]
    package_column = slice(header.index("package"), header.index("what"))
    assert set(rule) <= {"─", " "}, rule
    layer_of: dict[str, int] = {}
    current: int | None = None
    for row in rows:
        number, packages = row[: package_column.start].strip(), row[package_column].strip()
        if number:
            current = int(number)
        if not packages:
            continue  # the description of the row above, continued
        assert current is not None, row
        for package in packages.split(","):
            layer_of[package.strip()] = current
    return layer_of


LAYERS = layers()


def test_every_package_has_a_layer() -> None:
    packages = {package_of(m) for m in MODULES}
    assert packages - set(LAYERS) == set(), "packages missing from ARCHITECTURE.md"
    assert set(LAYERS) - packages == set(), "ARCHITECTURE.md names packages that do not exist"


def test_imports_go_down_the_layers() -> None:
    wrong = []
    for module, targets in sorted(IMPORTS.items()):
        source = package_of(module)
        for target in sorted(targets):
            destination = package_of(target)
            if source == destination:
                continue
            same_foundation = LAYERS[source] == LAYERS[destination] == 0
            if LAYERS[destination] < LAYERS[source] or same_foundation:
                continue
            wrong.append(
                f"{module} (layer {LAYERS[source]}) imports {target} (layer {LAYERS[destination]})"
            )
    assert wrong == []


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for successor in sorted(graph.get(node, ())):
            if successor not in index:
                visit(successor)
                low[node] = min(low[node], low[successor])
            elif successor in on_stack:
                low[node] = min(low[node], index[successor])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_no_module_imports_in_a_circle() -> None:
    assert cycles(IMPORTS) == []


def test_the_cycle_finder_finds_a_cycle() -> None:
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_the_layer_table_is_read() -> None:
    assert LAYERS["_util"] == LAYERS["errors"] == 0
    assert LAYERS["cli"] > LAYERS["demo"] > LAYERS["judgekit"] > LAYERS["report"]
    assert LAYERS["store"] == LAYERS["graders"] == 2


@pytest.mark.parametrize("module", sorted(MODULES))
def test_modules_are_small(module: str) -> None:
    lines = MODULES[module].read_text(encoding="utf-8").count("\n")
    assert lines <= MAX_MODULE_LINES, f"{module}: {lines} lines"


def body_lines(node: ast.FunctionDef | ast.AsyncFunctionDef) -> int:
    body = node.body
    first = body[0]
    if (
        len(body) > 1
        and isinstance(first, ast.Expr)
        and isinstance(first.value, ast.Constant)
        and isinstance(first.value.value, str)
    ):
        first = body[1]
    assert node.end_lineno is not None
    return node.end_lineno - first.lineno + 1


def test_functions_are_short_or_say_why() -> None:
    long = []
    for module, path in MODULES.items():
        source = path.read_text(encoding="utf-8")
        lines = source.splitlines()
        for node in ast.walk(ast.parse(source)):
            if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            if body_lines(node) <= MAX_FUNCTION_LINES:
                continue
            assert node.end_lineno is not None
            text = lines[node.lineno - 1 : node.end_lineno]
            if not any(line.strip().startswith(LONG_REASON) for line in text):
                long.append(f"{module}.{node.name}: {body_lines(node)} lines")
    assert long == []


def test_sql_lives_in_the_store() -> None:
    """Only store/ talks to a database: SQLAlchemy and sqlite3 are imported nowhere else."""
    drivers = ("sqlalchemy", "sqlite3")
    outside = []
    for module, path in MODULES.items():
        if package_of(module) == "store":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0:
                names = [node.module or ""]
            else:
                continue
            outside += [f"{module} imports {n}" for n in names if n.split(".")[0] in drivers]
    assert outside == []


def test_commands_do_not_import_each_other() -> None:
    """A command is options, a library call and printing: what two commands share lives in
    the library or in cli/options.py, never in another command's module."""
    commands = {m for m in MODULES if package_of(m) == "cli" and m.endswith("_cmd")}
    crossing = [
        f"{module} imports {target}"
        for module in sorted(commands)
        for target in sorted(IMPORTS[module] & commands)
    ]
    assert crossing == []


def test_numbers_are_formatted_by_number_format() -> None:
    """Only _util/number_format.py turns a float into text with a format spec (``:.2f``,
    ``:g``, ``:.1%``, in an f-string, a ``str.format`` template or ``%``), so one value
    prints the same in every command; everything else calls its functions."""
    import re

    spec = re.compile(r"[eEfFgG%]$")
    template = re.compile(r"\{[^{}:]*:(?:[^{}]?[<>=^])?[-+ ]?z?#?0?\d*[,_]?(?:\.\d+)?[eEfFgG%]\}")
    printf = re.compile(r"%[-+ #0]*\d*(?:\.\d+)?[eEfFgG]")
    ad_hoc = []
    for module, path in MODULES.items():
        if module == "judgekit._util.number_format":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FormattedValue) and node.format_spec is not None:
                text = "".join(
                    part.value if isinstance(part, ast.Constant) else "{}"
                    for part in getattr(node.format_spec, "values", [])
                )
                found = bool(spec.search(text))
            elif isinstance(node, ast.Constant) and isinstance(node.value, str):
                found = bool(template.search(node.value))
            elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod):
                left = node.left
                found = isinstance(left, ast.Constant) and bool(printf.search(str(left.value)))
            else:
                continue
            if found:
                ad_hoc.append(f"{module}:{getattr(node, 'lineno', '?')}")
    assert ad_hoc == []


MAX_CLI_MODULE_LINES = 200


def test_command_modules_stay_thin() -> None:
    """A command is a few lines over library calls: no module of cli/ grows past 200 lines."""
    fat = [
        f"{module}: {lines} lines"
        for module, path in sorted(MODULES.items())
        if package_of(module) == "cli"
        and (lines := path.read_text(encoding="utf-8").count("\n")) > MAX_CLI_MODULE_LINES
    ]
    assert fat == []
