"""HIP's vector-type operators -> hipconv/data/hip.vector-ops (`python -m tools.derive.vector_ops`).

CUDA declares no operators for float4, int2, ...; projects define their own (NVIDIA's helper_math.h
and its copies). HIP's vector types (HIP_vector_type, hip/amd_detail/amd_hip_vector_types.h) come
with operators, so such a definition collides with HIP's (an ambiguous call, or one that HIP's would
serve the same). The API inventories do not record operators, so this reads them from the real HIP
header trees here (Debian's HIP 5.2, ROCm 6.3: header_guards.HIP_TREES): for every vector type of the
release's inventory, every operator and operand form, one generated C++ program applies HIP's operator
alone to known values and compares each component with the same operation done on the scalars (the
scalar broadcast to every component): HIP "serves" a form where the expression compiles, has the type a
project's definition has (the vector; a reference to the left operand for a compound assignment) and
gives exactly the scalar results. A form whose probe does not compile (HIP lacks it, or its body fails
for that element type: `%` on floats) or computes something else is not served.

Releases without a header tree here get the verdict of the trees around them: one between two probed
releases that agree gets theirs, one after the newest probed release gets that release's (as the
host-only inventories carry 6.3's device code forward); one between two that disagree gets "not
served", so the project's definition is kept there.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tempfile
from collections.abc import Mapping
from pathlib import Path

from tools.derive.header_guards import HIP_TREES
from tools.derive.write import span_list

REPO = Path(__file__).resolve().parents[2]
INVENTORY = REPO.parent / "shared" / "api-inventory"
OUTPUT = REPO / "hipconv" / "data" / "hip.vector-ops"
RELEASES_FILE = REPO / "hipconv" / "data" / "hip.releases"
BINARY_OPS = ("+", "-", "*", "/", "%", "^", "|", "&", "<<", ">>")
UNARY_OPS = ("-", "~")
# operand forms: vector OP vector, vector OP scalar, scalar OP vector (each giving the vector), the
# compound assignments vector OP= vector / scalar (giving a reference to the left operand), unary OP vector
FORMS = ("vv", "vs", "sv", "vv=", "vs=", "u")
_ALIAS = re.compile(r"using (\w+) = HIP_vector_type<([\w ]+), (\d)>")
# component values: the left operand, the right operand, and the scalar (exact in every element type;
# positive, so that shifts and unsigned arithmetic stay defined)
_FLOAT_VALUES = ((1.5, -2.25, 3.0, 0.1), (0.3, 4.0, -1.5, 7.0), 0.7)
_INT_VALUES = ((7, 12, 5, 9), (2, 3, 4, 1), 3)
Values = tuple[tuple[float, ...], tuple[float, ...], float]
Case = tuple[str, str, str]  # (operator, form, vector type)
# the element types narrower than int, whose scalar arithmetic (a project's helper body: `a.x << b.x`) is
# done in the promoted int, and their width and least value
_NARROW = {"char": (8, -128), "signed char": (8, -128), "short": (16, -32768)}
_NARROW_UNSIGNED = {"unsigned char": 8, "unsigned short": 16}
# what each further set of values checks (the last column of hipconv/data/hip.vector-ops where it fails)
SHIFT_COUNTS = "shift-counts"  # counts from the element's width up to 31, defined in the promoted int
MIN_BY_MINUS_ONE = "min-by-minus-one"  # MIN / -1 and MIN % -1, defined in the promoted int
_FIELDS = "xyzw"
# how each probed tree is compiled for the host (the operators are __host__ __device__, one body)
COMPILERS = {
    "5.2": ["env", "HIP_PLATFORM=amd", "hipcc", "-x", "hip", "--offload-arch=gfx90a", "--cuda-host-only"],
    "6.3": [
        "clang++-19",
        "-x",
        "hip",
        "--offload-arch=gfx90a",
        "--cuda-host-only",
        "-nogpulib",
        f"--rocm-path={HIP_TREES['6.3'].parent}",
        "-isystem",
        str(HIP_TREES["6.3"]),
    ],
}


def vector_types(release_dir: Path) -> dict[str, tuple[str, int]]:
    """name -> (element type, rank) of every vector type alias of a release's inventory."""
    found = {}
    for line in (release_dir / "hip_runtime.jsonl").read_text(encoding="utf-8").splitlines():
        match = _ALIAS.fullmatch(json.loads(line).get("signature", ""))
        if match:
            found[match[1]] = (match[2], int(match[3]))
    return found


def _literal(value: float, element: str) -> str:
    return f"({element})({value!r})"


def _vector(name: str, element: str, rank: int, values: tuple[float, ...]) -> str:
    """A vector of the values, each read through a volatile (opaque), so that the compiler cannot fold HIP's
    operator on constants: a shift past the element's width folds to anything."""
    sets = " ".join(f"v.{f} = opaque({_literal(values[i], element)});" for i, f in enumerate(_FIELDS[:rank]))
    return f"[] {{ {name} v{{}}; {sets} return v; }}()"


def value_sets(op: str, element: str) -> list[tuple[str, Values]]:
    """(what it checks, values) of each set of operands a probe tries, in order: the plain values, then, for
    an element type narrower than int, the operands where computing in the element type (HIP's
    ext_vector_type operators) and in the promoted int (the scalar expression, as a project's helper body
    computes it) differ: shift counts from the width up to 31, and MIN / -1 (issue #39 item 1)."""
    if element in ("float", "double"):
        return [("values", _FLOAT_VALUES)]
    sets: list[tuple[str, Values]] = [("values", _INT_VALUES)]
    width = _NARROW[element][0] if element in _NARROW else _NARROW_UNSIGNED.get(element)
    if op in ("<<", ">>") and width is not None:
        counts = (width - 1, width, width + 1, 31)
        sets.append((SHIFT_COUNTS, ((7, 5, 100, 1), counts, width)))  # a OP count, a OP= count
        sets.append((SHIFT_COUNTS, (counts, counts, 7)))  # s OP count (the `sv` form)
    if op in ("/", "%") and element in _NARROW:
        least = _NARROW[element][1]
        sets.append((MIN_BY_MINUS_ONE, ((least, least, 7, least), (-1, -1, -1, 1), -1)))
        sets.append((MIN_BY_MINUS_ONE, ((-1, -1, -1, -1), (-1, -1, -1, -1), least)))  # MIN OP a (`sv`)
    return sets


def probe(index: int, op: str, form: str, name: str, element: str, rank: int) -> str:
    """One line of C++: a function that applies HIP's operator to each set of values (value_sets) and
    (value set n) returns whether every component equals the scalar result, -1 past the last set."""
    sets = value_sets(op, element)
    bodies = [_probe_body(op, form, name, element, rank, values) for _, values in sets]
    tries = " ".join(f"case {n}: return [] {{ {body} }}();" for n, body in enumerate(bodies, 1))
    return f"static int probe{index}(int n) {{ switch (n) {{ {tries} }} return -1; }}"


def _probe_body(op: str, form: str, name: str, element: str, rank: int, values: Values) -> str:
    """The statements that apply HIP's operator to one set of values and return whether it computes the same."""
    left, right, scalar = values
    a, b = _vector(name, element, rank, left), _vector(name, element, rank, right)
    s = _literal(scalar, element)
    expr, want = {
        "vv": ("a OP b", name),
        "vs": ("a OP s", name),
        "sv": ("s OP a", name),
        "vv=": ("a OP= b", f"{name}&"),
        "vs=": ("a OP= s", f"{name}&"),
        "u": ("OP a", name),
    }[form]
    expr = expr.replace("OP", op)
    checks = []
    for i, f in enumerate(_FIELDS[:rank]):
        x, y = _literal(left[i], element), _literal(scalar if "s" in form else right[i], element)
        scalar_expr = {"sv": f"{y} {op} {x}", "u": f"{op}{x}"}.get(form, f"{x} {op} {y}")
        checks.append(f"({element})(r.{f}) == ({element})({scalar_expr})")
    same = " && &r == &a" if form.endswith("=") else ""
    return (
        f"{name} a = {a}; {name} b = {b}; {element} s = {s}; (void)b; (void)s; "
        f'static_assert(std::is_same<decltype({expr}), {want}>::value, "type"); '
        f"auto&& r = {expr}; return {' && '.join(checks)}{same};"
    )


def probes(types: Mapping[str, tuple[str, int]]) -> list[tuple[str, str, str]]:
    """Every (operator, form, vector type) to probe."""
    out = []
    for name in sorted(types):
        out += [(op, form, name) for op in BINARY_OPS for form in FORMS if form != "u"]
        out += [(op, "u", name) for op in UNARY_OPS]
    return out


_FIRST_LINE = 7  # the line of probe 0, after program()'s five #include lines and `opaque`
# each set of values of a probe runs in a child process: one that traps (an integer division that
# overflows in the element type) counts as differing
_RUNNER = (
    "static int run(int (*probe)(int)) { for (int n = 1;; ++n) { std::fflush(stdout); pid_t pid = fork(); "
    "if (pid == 0) { int r = probe(n); _exit(r < 0 ? 2 : r ? 0 : 1); } int status = 0; waitpid(pid, &status, 0); "
    "if (WIFEXITED(status) && WEXITSTATUS(status) == 2) return 0; "
    "if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) return n; } }"
)


def program(cases: list[tuple[str, str, str]], types: Mapping[str, tuple[str, int]], skip: set[int]) -> str:
    """The probe program: line k + 1 of the body is probe k; main prints `index result` for each probe that
    compiles: 0 when it holds, n when value set n differs or traps."""
    head = ["#include <hip/hip_runtime.h>", "#include <cstdio>", "#include <type_traits>"]
    head += ["#include <sys/wait.h>", "#include <unistd.h>"]
    head += ["template <class T> static T opaque(T x) { volatile T v = x; return v; }"]
    lines = [
        probe(k, op, form, name, *types[name]) if k not in skip else "" for k, (op, form, name) in enumerate(cases)
    ]
    calls = [f'  std::printf("%d %d\\n", {k}, run(probe{k}));' for k in range(len(cases)) if k not in skip]
    return "\n".join([*head, *lines, _RUNNER, "int main() {", *calls, "  return 0;", "}"]) + "\n"


def failing_probes(command: list[str], source: Path, count: int) -> set[int]:
    """The probes (by index) that do not compile: those whose line a diagnostic names."""
    done = subprocess.run(
        [*command, "-fsyntax-only", "-w", "-ferror-limit=0", str(source)],
        capture_output=True,
        text=True,
        check=False,
    )
    lines = {int(m) for m in re.findall(rf"{re.escape(source.name)}:(\d+):", done.stderr)}
    return {n - _FIRST_LINE for n in lines if _FIRST_LINE <= n < _FIRST_LINE + count}


def served(
    release: str, tree_command: list[str], types: Mapping[str, tuple[str, int]]
) -> tuple[set[Case], dict[str, set[Case]]]:
    """The (operator, form, vector type) that the release's HIP serves exactly, and, by what differs (the
    name of the first set of values of value_sets that differs), those it declares that compute otherwise."""
    cases = probes(types)
    with tempfile.TemporaryDirectory(prefix=f"hipconv-vector-ops-{release}-") as work:
        source, binary = Path(work) / "probe.hip", Path(work) / "probe"
        source.write_text(program(cases, types, set()), encoding="utf-8")
        skip = failing_probes(tree_command, source, len(cases))
        source.write_text(program(cases, types, skip), encoding="utf-8")
        subprocess.run([*tree_command, "-w", str(source), "-o", str(binary)], check=True, capture_output=True)
        ran = subprocess.run([str(binary)], capture_output=True, text=True, check=True)
    same: set[Case] = set()
    differs: dict[str, set[Case]] = {}
    for line in ran.stdout.splitlines():
        index, result = (int(word) for word in line.split())
        case = cases[index]
        if result == 0:
            same.add(case)
        else:
            name = value_sets(case[0], types[case[2]][0])[result - 1][0]
            differs.setdefault(name, set()).add(case)
    return same, differs


def releases() -> list[str]:
    return [line.split("\t")[0] for line in RELEASES_FILE.read_text(encoding="utf-8").splitlines() if line]


def infer(measured: Mapping[str, set[Case]], bundled: list[str]) -> dict[str, set[Case]]:
    """Every bundled release's verdicts from the probed ones (see the module's docstring)."""
    probed = [r for r in bundled if r in measured]
    out: dict[str, set[Case]] = {}
    for rel in bundled:
        before = [r for r in probed if bundled.index(r) <= bundled.index(rel)]
        after = [r for r in probed if bundled.index(r) >= bundled.index(rel)]
        if not before:
            out[rel] = set()
        elif not after:
            out[rel] = set(measured[before[-1]])
        else:
            out[rel] = measured[before[-1]] & measured[after[0]]
    return out


def rows(verdicts: Mapping[str, set[tuple[str, str, str]]], bundled: list[str], differs: str = "") -> list[str]:
    """`operator<TAB>form<TAB>vector types<TAB>releases` lines: the types served in the same releases, together;
    with `<TAB>differs` after them when they are the types HIP declares the operator for but that differ there."""
    where: dict[tuple[str, str, str], list[str]] = {}
    for rel in bundled:
        for case in verdicts[rel]:
            where.setdefault(case, []).append(rel)
    grouped: dict[tuple[str, str, str], list[str]] = {}
    for (op, form, name), rels in where.items():
        grouped.setdefault((op, form, span_list(sorted(rels, key=bundled.index), tuple(bundled))), []).append(name)
    tail = f"\t{differs}" if differs else ""
    return sorted(
        f"{op}\t{form}\t{','.join(sorted(names))}\t{rels}{tail}" for (op, form, rels), names in grouped.items()
    )


def derive(inventory: Path = INVENTORY) -> str:
    """The text of hipconv/data/hip.vector-ops, probing every header tree of COMPILERS."""
    bundled = releases()
    folders = {"5.2": "hip-5.2", "6.3": "hip"}
    probed = {rel: served(rel, COMPILERS[rel], vector_types(inventory / folders[rel])) for rel in COMPILERS}
    lines = rows(infer({rel: same for rel, (same, _) in probed.items()}, bundled), bundled)
    for name in sorted({name for _, differs in probed.values() for name in differs}):
        measured = {rel: differs.get(name, set()) for rel, (_, differs) in probed.items()}
        lines += rows(infer(measured, bundled), bundled, name)
    return "".join(f"{row}\n" for row in sorted(lines))


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    text = derive()
    if args == ["--check"]:
        current = OUTPUT.read_text(encoding="utf-8") if OUTPUT.is_file() else ""
        print("up to date" if current == text else f"{OUTPUT} is stale: run python -m tools.derive.vector_ops")
        return 0 if current == text else 1
    OUTPUT.write_text(text, encoding="utf-8")
    print(f"wrote {OUTPUT.relative_to(REPO)} ({text.count(chr(10))} lines)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
