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
    sets = " ".join(f"v.{f} = {_literal(values[i], element)};" for i, f in enumerate(_FIELDS[:rank]))
    return f"[] {{ {name} v{{}}; {sets} return v; }}()"


def probe(index: int, op: str, form: str, name: str, element: str, rank: int) -> str:
    """One line of C++: a function that applies HIP's operator and compares it with the scalar results."""
    floating = element in ("float", "double")
    left, right, scalar = _FLOAT_VALUES if floating else _INT_VALUES
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
        f"static bool probe{index}() {{ {name} a = {a}; {name} b = {b}; {element} s = {s}; (void)b; (void)s; "
        f'static_assert(std::is_same<decltype({expr}), {want}>::value, "type"); '
        f"auto&& r = {expr}; return {' && '.join(checks)}{same}; }}"
    )


def probes(types: Mapping[str, tuple[str, int]]) -> list[tuple[str, str, str]]:
    """Every (operator, form, vector type) to probe."""
    out = []
    for name in sorted(types):
        out += [(op, form, name) for op in BINARY_OPS for form in FORMS if form != "u"]
        out += [(op, "u", name) for op in UNARY_OPS]
    return out


def program(cases: list[tuple[str, str, str]], types: Mapping[str, tuple[str, int]], skip: set[int]) -> str:
    """The probe program: line k + 1 of the body is probe k; main prints the index of each probe that holds."""
    head = ["#include <hip/hip_runtime.h>", "#include <cstdio>", "#include <type_traits>"]
    lines = [
        probe(k, op, form, name, *types[name]) if k not in skip else "" for k, (op, form, name) in enumerate(cases)
    ]
    calls = [f'  if (probe{k}()) std::printf("%d\\n", {k});' for k in range(len(cases)) if k not in skip]
    return "\n".join(head + lines + ["int main() {", *calls, "  return 0;", "}"]) + "\n"


def failing_probes(command: list[str], source: Path, count: int) -> set[int]:
    """The probes (by index) that do not compile: those whose line a diagnostic names."""
    done = subprocess.run(
        [*command, "-fsyntax-only", "-w", "-ferror-limit=0", str(source)],
        capture_output=True,
        text=True,
        check=False,
    )
    lines = {int(m) for m in re.findall(rf"{re.escape(source.name)}:(\d+):", done.stderr)}
    return {n - 4 for n in lines if 4 <= n < 4 + count}  # the probes start on line 4


def served(release: str, tree_command: list[str], types: Mapping[str, tuple[str, int]]) -> set[tuple[str, str, str]]:
    """The (operator, form, vector type) that the release's HIP serves exactly."""
    cases = probes(types)
    with tempfile.TemporaryDirectory(prefix=f"hipconv-vector-ops-{release}-") as work:
        source, binary = Path(work) / "probe.hip", Path(work) / "probe"
        source.write_text(program(cases, types, set()), encoding="utf-8")
        skip = failing_probes(tree_command, source, len(cases))
        source.write_text(program(cases, types, skip), encoding="utf-8")
        subprocess.run([*tree_command, "-w", str(source), "-o", str(binary)], check=True, capture_output=True)
        ran = subprocess.run([str(binary)], capture_output=True, text=True, check=True)
    return {cases[int(k)] for k in ran.stdout.split()}


def releases() -> list[str]:
    return [line.split("\t")[0] for line in RELEASES_FILE.read_text(encoding="utf-8").splitlines() if line]


Case = tuple[str, str, str]  # (operator, form, vector type)


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


def rows(verdicts: Mapping[str, set[tuple[str, str, str]]], bundled: list[str]) -> list[str]:
    """`operator<TAB>form<TAB>vector types<TAB>releases` lines: the types served in the same releases, together."""
    where: dict[tuple[str, str, str], list[str]] = {}
    for rel in bundled:
        for case in verdicts[rel]:
            where.setdefault(case, []).append(rel)
    grouped: dict[tuple[str, str, str], list[str]] = {}
    for (op, form, name), rels in where.items():
        grouped.setdefault((op, form, span_list(sorted(rels, key=bundled.index), tuple(bundled))), []).append(name)
    return sorted(f"{op}\t{form}\t{','.join(sorted(names))}\t{rels}" for (op, form, rels), names in grouped.items())


def derive(inventory: Path = INVENTORY) -> str:
    """The text of hipconv/data/hip.vector-ops, probing every header tree of COMPILERS."""
    bundled = releases()
    folders = {"5.2": "hip-5.2", "6.3": "hip"}
    measured = {rel: served(rel, COMPILERS[rel], vector_types(inventory / folders[rel])) for rel in COMPILERS}
    return "".join(f"{row}\n" for row in rows(infer(measured, bundled), bundled))


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
