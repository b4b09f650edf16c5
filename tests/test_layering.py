"""The package's layering, read from the source with ast (nothing is imported):

- the translator (hipconv/translate/) and the rules (hipconv/rules/) never import the layers built on
  them (hipconv.scan, hipconv.builder, hipconv.commands, hipconv.cli), not even lazily inside a function;
- no import cycle among hipconv's modules (imports run at import time: module level, class bodies,
  if/try blocks; not function bodies), the imports of `if TYPE_CHECKING:` blocks included: a cycle that
  only type checking sees is still two modules that cannot be read one without the other;
- no module over MAX_MODULE_LINES lines and no function over MAX_FUNCTION_LINES lines, in hipconv/ and
  tools/, except those in LONG_MODULES and LONG_FUNCTIONS (name -> why it stays long);
- edges that ran backwards stay straight: api.py imports no hipconv.cli, discover imports no
  hipconv.translate, __version__ is defined in the leaf hipconv/version.py only and nothing imports the
  package root for it, only hipconv/file_kinds.py keeps a table of file suffixes, and no package
  directory is named like build output.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "hipconv"
TOOLS = PACKAGE.parent / "tools"
BENCH = PACKAGE.parent / "bench"
EXCLUDED = (PACKAGE / "data",)
LOWER_LAYERS = ("hipconv.translate", "hipconv.rules")
UPPER_LAYERS = ("hipconv.scan", "hipconv.builder", "hipconv.commands", "hipconv.cli")
MAX_MODULE_LINES = 450
MAX_FUNCTION_LINES = 60
LONG_FUNCTIONS: dict[str, str] = {}  # "hipconv.module.Class.function": "why it is allowed to be long"
LONG_MODULES = {  # "hipconv.module": "why it is allowed to be long"
    "hipconv.diagnostics": "the table of diagnostic codes, one record per code with its example: data, not logic",
}


@dataclass(frozen=True)
class Import:
    target: str  # the hipconv module imported (a submodule when `from package import submodule`)
    line: int
    at_import_time: bool  # False inside a function body or an `if TYPE_CHECKING:` block
    type_only: bool = False  # inside an `if TYPE_CHECKING:` block (at module level): counts for cycles


def module_files() -> dict[str, Path]:
    """Dotted module name -> file, for every module under hipconv/ (packages by their __init__.py)."""
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        if any(path.is_relative_to(excluded) for excluded in EXCLUDED):
            continue
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


@cache
def modules() -> dict[str, Path]:
    return module_files()


@cache
def sized_modules() -> dict[str, Path]:
    """The modules the size limits apply to: hipconv's and those of tools/ (by dotted name, tools.x.y)."""
    found = dict(modules())
    for path in sorted(TOOLS.rglob("*.py")):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


@cache
def tree_of(name: str) -> ast.Module:
    path = sized_modules()[name]
    return ast.parse(path.read_text(encoding="utf-8"), filename=str(path))


def is_package(name: str) -> bool:
    return modules()[name].name == "__init__.py"


def _absolute(module: str, node: ast.ImportFrom) -> str:
    """The absolute module name `from <node.module>` refers to, resolving relative imports from `module`."""
    if not node.level:
        return node.module or ""
    base = module.split(".") if is_package(module) else module.split(".")[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join([*base, node.module] if node.module else base)


def _exists(name: str) -> bool:
    """A hipconv module, or a package without __init__.py (a namespace package such as hipconv.scan)."""
    return name in modules() or (name.startswith("hipconv") and (PACKAGE.parent / name.replace(".", "/")).is_dir())


def _targets(module: str, node: ast.Import | ast.ImportFrom) -> Iterator[str]:
    """The hipconv modules an import statement loads (`from pkg import sub` loads pkg.sub when it is a module)."""
    if isinstance(node, ast.Import):
        names = [alias.name for alias in node.names]
    else:
        base = _absolute(module, node)
        names = [f"{base}.{alias.name}" if _exists(f"{base}.{alias.name}") else base for alias in node.names]
    for name in names:
        while name and not _exists(name):  # `import hipconv.x.y` of a name that is not a module: its package
            name = name.rpartition(".")[0]
        if name and name.split(".")[0] == "hipconv":
            yield name


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _walk(module: str, body: list[ast.stmt], at_import_time: bool, type_only: bool = False) -> Iterator[Import]:
    for node in body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield from (Import(t, node.lineno, at_import_time, type_only) for t in _targets(module, node))
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            yield from _walk(module, node.body, False)
        elif isinstance(node, ast.If) and _is_type_checking(node):
            yield from _walk(module, node.body, False, at_import_time)
            yield from _walk(module, node.orelse, at_import_time)
        else:  # class bodies, if/try/with/for blocks, match cases...: look inside each block
            for field in ("body", "orelse", "finalbody", "handlers", "cases"):
                for child in getattr(node, field, []) or []:
                    inner = [child] if isinstance(child, ast.stmt) else child.body  # except handlers, match cases
                    yield from _walk(module, inner, at_import_time, type_only)


@cache
def imports(module: str) -> tuple[Import, ...]:
    return tuple(dict.fromkeys(_walk(module, tree_of(module).body, True)))


def in_layer(module: str, layers: tuple[str, ...]) -> bool:
    return any(module == layer or module.startswith(layer + ".") for layer in layers)


def test_the_walk_sees_every_kind_of_import() -> None:
    assert {"hipconv", "hipconv.translate.lexer", "hipconv.rules.load"} <= set(modules())
    assert any(i.target == "hipconv.translate.lexer" for i in imports("hipconv.translate.syntax"))
    source = (
        "import os\nfrom hipconv.scan import checks\nfrom hipconv import builder\n"
        "def f():\n    from ..commands import translate\n"
        "if TYPE_CHECKING:\n    import hipconv.cli\n"
        "class C:\n    try:\n        from . import syntax\n"
        "    except ImportError:\n        from .edits import Edit\n"
    )
    walked = list(_walk("hipconv.translate.lexer", ast.parse(source).body, True))
    assert {i.target for i in walked if i.type_only} == {"hipconv.cli"}  # for the cycle check only
    found = {(i.target, i.at_import_time) for i in walked}
    assert found == {
        ("hipconv.scan.checks", True),
        ("hipconv.builder", True),
        ("hipconv.commands.translate", False),
        ("hipconv.cli", False),
        ("hipconv.translate.syntax", True),
        ("hipconv.translate.edits", True),
    }


def test_translate_and_rules_do_not_import_upper_layers() -> None:
    offenders = [
        f"{modules()[m].relative_to(PACKAGE.parent)}:{i.line}: {m} imports {i.target}"
        + ("" if i.at_import_time else " (inside a function)")
        for m in sorted(modules())
        if in_layer(m, LOWER_LAYERS)
        for i in imports(m)
        if in_layer(i.target, UPPER_LAYERS)
    ]
    assert not offenders, "lower layers import upper layers:\n" + "\n".join(offenders)


def import_graph() -> dict[str, set[str]]:
    """Module -> the modules it loads at import time, or would without `if TYPE_CHECKING:`. Importing a.b.c
    also runs a/__init__.py and a/b/__init__.py, except the packages the importer is itself inside (those
    are already loading)."""
    graph: dict[str, set[str]] = {m: set() for m in modules()}
    for module in modules():
        own = {module.rsplit(".", n)[0] for n in range(module.count(".") + 1)}
        for i in imports(module):
            if not (i.at_import_time or i.type_only):
                continue
            parts = i.target.split(".")
            for n in range(1, len(parts) + 1):
                loaded = ".".join(parts[:n])
                if loaded in modules() and loaded not in own:
                    graph[module].add(loaded)
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """One cycle per strongly connected component with more than one module (Tarjan), as a path."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph[node]):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1 or node in graph[node]:
                components.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return [_path_through(graph, component) for component in components]


def _path_through(graph: dict[str, set[str]], component: list[str]) -> list[str]:
    """A shortest cycle inside the component, from its first module back to it (breadth-first)."""
    start, members = component[0], set(component)
    parent: dict[str, str | None] = {start: None}
    frontier = [start]
    while frontier:
        following = []
        for node in frontier:
            for nxt in sorted(graph[node] & members):
                if nxt == start:
                    path = [node]
                    while (up := parent[path[-1]]) is not None:
                        path.append(up)
                    return [*reversed(path), start]
                if nxt not in parent:
                    parent[nxt] = node
                    following.append(nxt)
        frontier = following
    return component


def test_cycle_finder_finds_a_cycle() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a", "d"}, "d": set(), "e": {"e"}}
    assert sorted(cycles(graph)) == [["a", "b", "c", "a"], ["e", "e"]]


def test_no_import_cycles() -> None:
    found = cycles(import_graph())
    listed = "\n".join(" -> ".join(c) for c in found)
    assert not found, "import cycles (module-level imports, type-only ones included):\n" + listed


def test_no_long_modules() -> None:
    sizes = {m: len(p.read_text(encoding="utf-8").splitlines()) for m, p in sized_modules().items()}
    long = [
        f"{sized_modules()[m].relative_to(PACKAGE.parent)}: {n} lines"
        for m, n in sorted(sizes.items())
        if n > MAX_MODULE_LINES and m not in LONG_MODULES
    ]
    assert not long, f"modules over {MAX_MODULE_LINES} lines (split them, or add to LONG_MODULES with why):\n" + (
        "\n".join(long)
    )
    assert not set(LONG_MODULES) - set(sizes), "LONG_MODULES names modules that do not exist"


def functions(module: str) -> Iterator[tuple[str, ast.FunctionDef | ast.AsyncFunctionDef]]:
    """(qualified name, node) of every function and method of the module, nested ones included."""

    def walk(node: ast.AST, prefix: str) -> Iterator[tuple[str, ast.FunctionDef | ast.AsyncFunctionDef]]:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                yield f"{prefix}.{child.name}", child
                yield from walk(child, f"{prefix}.{child.name}")
            elif isinstance(child, ast.ClassDef):
                yield from walk(child, f"{prefix}.{child.name}")
            else:
                yield from walk(child, prefix)

    return walk(tree_of(module), module)


def test_no_long_functions() -> None:
    long = {}
    for module in sorted(sized_modules()):
        for name, node in functions(module):
            lines = node.end_lineno - node.lineno + 1
            if lines > MAX_FUNCTION_LINES and name not in LONG_FUNCTIONS:
                where = sized_modules()[module].relative_to(PACKAGE.parent)
                long[name] = f"{where}:{node.lineno}: {name}: {lines} lines"
    assert not long, (
        f"functions over {MAX_FUNCTION_LINES} lines (shorten them, or add to LONG_FUNCTIONS with why):\n"
        + "\n".join(long.values())
    )
    stale = sorted(set(LONG_FUNCTIONS) - {name for m in sized_modules() for name, _ in functions(m)})
    assert not stale, f"LONG_FUNCTIONS names functions that do not exist: {stale}"


def bare_codes(name: str) -> list[str]:
    """The string constants in a module that are a bare diagnostic code ("HC007"): code names a code by
    its constant in hipconv.diagnostics, so a typo is an import error instead of a silent new code."""
    return [
        f"{name}:{node.lineno}: {node.value}"
        for node in ast.walk(tree_of(name))
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and re.fullmatch(r"HC\d{3}", node.value)
    ]


def test_bare_code_finder_finds_one() -> None:
    tree_of.cache_clear()
    assert bare_codes("hipconv.diagnostics"), "diagnostics.py defines the constants: the finder must see them"


def test_no_bare_diagnostic_codes() -> None:
    found = [hit for name in modules() if name != "hipconv.diagnostics" for hit in bare_codes(name)]
    assert not found, "use the code's constant from hipconv.diagnostics:\n" + "\n".join(found)


def _imported(module: str, layer: str) -> list[str]:
    """Where `module` imports `layer` (or a module inside it), at import time or inside a function."""
    return [
        f"{modules()[module].relative_to(PACKAGE.parent)}:{i.line}: {i.target}"
        for i in imports(module)
        if in_layer(i.target, (layer,))
    ]


def test_api_does_not_import_the_command_line() -> None:
    """The Python API sits beside the command line, not on it: settings_from lives in hipconv.config."""
    assert not _imported("hipconv.api", "hipconv.cli")


def test_discover_does_not_import_the_translator() -> None:
    """Discovery runs before the translator and hands it jobs; what both need is in a lower leaf (results.py)."""
    assert not _imported("hipconv.discover", "hipconv.translate")


def _defines(name: str, variable: str) -> bool:
    return any(
        isinstance(target, ast.Name) and target.id == variable
        for node in ast.walk(tree_of(name))
        if isinstance(node, (ast.Assign, ast.AnnAssign))
        for target in (node.targets if isinstance(node, ast.Assign) else [node.target])
    )


def test_the_version_lives_in_a_leaf() -> None:
    """hipconv/version.py defines __version__ and imports nothing of hipconv's; no module imports the package
    root (hipconv/__init__.py, which re-exports the version and loads the API lazily) to get it."""
    assert [m for m in modules() if _defines(m, "__version__")] == ["hipconv.version"]
    assert not imports("hipconv.version")
    root = [f"{m}:{i.line}" for m in sorted(modules()) if m != "hipconv" for i in imports(m) if i.target == "hipconv"]
    assert not root, "import hipconv.version, not the package root:\n" + "\n".join(root)


FILE_KINDS = PACKAGE / "file_kinds.py"
TELLING_SUFFIXES = frozenset(
    {".cu", ".cuh", ".hip", ".c", ".cc", ".cp", ".cpp", ".cxx", ".h", ".hh", ".hpp", ".inl", ".inc"}
)


def suffix_tables(path: Path) -> list[str]:
    """A table of file suffixes in a module: a name ending in SUFFIXES assigned, or a set, list, tuple or
    dict literal holding two or more source suffixes (".cu", ".h", ...)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            found += [
                f"{node.lineno}: {t.id}" for t in targets if isinstance(t, ast.Name) and t.id.endswith("SUFFIXES")
            ]
        elif isinstance(node, (ast.Set, ast.List, ast.Tuple, ast.Dict)):
            items = node.keys if isinstance(node, ast.Dict) else node.elts
            strings = {i.value for i in items if isinstance(i, ast.Constant) and isinstance(i.value, str)}
            if len(strings & TELLING_SUFFIXES) >= 2:
                found.append(f"{node.lineno}: {sorted(strings & TELLING_SUFFIXES)}")
    return [f"{path.relative_to(PACKAGE.parent)}:{hit}" for hit in found]


def test_the_suffix_table_finder_finds_one() -> None:
    assert len(suffix_tables(FILE_KINDS)) >= 3  # its table of suffixes and the *_SUFFIXES it derives


def test_one_table_of_file_suffixes() -> None:
    """Only hipconv/file_kinds.py says which suffix is which kind of file (six tables used to disagree)."""
    paths = [*sorted(PACKAGE.rglob("*.py")), *sorted(TOOLS.rglob("*.py")), *sorted(BENCH.rglob("*.py"))]
    found = [hit for path in paths if path != FILE_KINDS for hit in suffix_tables(path)]
    assert not found, "ask hipconv.file_kinds instead of keeping a table of suffixes:\n" + "\n".join(found)


def test_no_package_is_named_like_build_output() -> None:
    """Tools and ignore files skip build/ and dist/ folders (a Python .gitignore's unanchored build/)."""
    named = [p for p in PACKAGE.rglob("*") if p.is_dir() and p.name in ("build", "dist") and any(p.rglob("*.py"))]
    assert not named, f"rename these packages: {named}"


# Public names that several modules define on purpose, each meaning the same kind of thing in its module.
SHARED_NAMES = {
    "T": "a TypeVar, local to the generic functions of its module",
    "CODE": "a matcher's own diagnostic code (translate/*: one per construct)",
    "NOTE_CODE": "a matcher's own note code",
    "RULE_ID": "the rule id a matcher's edits carry",
    "WORDS": "the words that gate a matcher (translate.words prefilter)",
    "match": "a matcher's entry point (translate/matchers/*, registered in matchers.MATCHERS)",
}


def public_definitions() -> dict[str, list[str]]:
    """Public name -> the modules that define it at module level (classes, functions, assignments)."""
    found: dict[str, list[str]] = {}
    for name in modules():
        for node in tree_of(name).body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                defined = [node.name]
            elif isinstance(node, ast.Assign):
                defined = [t.id for t in node.targets if isinstance(t, ast.Name)]
            elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
                defined = [node.target.id]
            else:
                continue
            for public in (d for d in defined if not d.startswith("_") and d != "__version__"):
                found.setdefault(public, []).append(name)
    return found


def test_each_public_name_means_one_thing() -> None:
    colliding = {n: m for n, m in public_definitions().items() if len(m) > 1 and n not in SHARED_NAMES}
    assert not colliding, "public names defined in several modules (rename one, or list it in SHARED_NAMES):\n" + (
        "\n".join(f"{n}: {', '.join(m)}" for n, m in sorted(colliding.items()))
    )


def one_home_breaches() -> list[str]:
    """Where a module other than the idea's home codes a full lane mask as a number (translate.full_masks) or
    defines a function that finds where a statement starts or ends (translate.statements) other than by
    calling the one there (FileView.statement_start)."""
    masks, bounds = {0xFFFFFFFF, 0xFFFFFFFFFFFFFFFF}, re.compile(r"statement_(start|begin|end|last)")
    found = []
    for name in modules():
        for node in ast.walk(tree_of(name)):
            mask = isinstance(node, ast.Constant) and type(node.value) is int and node.value in masks
            statement = isinstance(node, ast.FunctionDef) and bounds.search(node.name)
            if statement and name != "hipconv.translate.statements":
                calls = (n.func.id for n in ast.walk(node) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name))
                statement = not any(bounds.search(c) for c in calls)
            if mask and name != "hipconv.translate.full_masks" or statement and name != "hipconv.translate.statements":
                found.append(f"{name}:{node.lineno}")  # type: ignore[attr-defined]
    return found


def test_full_masks_and_statement_bounds_have_one_home() -> None:
    """scan/ and translate/ share one implementation of each (#25): a second copy drifts from the first."""
    assert not one_home_breaches(), "\n".join(one_home_breaches())
