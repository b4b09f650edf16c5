"""python -m tools.derive [--inventory DIR] [--curated FILE]  (or: python tools/derive_rules.py)"""

from __future__ import annotations

import argparse
import collections
import sys
from pathlib import Path

from hipconv.errors import RuleSchemaError
from tools.derive import __doc__ as DOC
from tools.derive.contracts import write_contracts
from tools.derive.core import Family
from tools.derive.curated import Curated
from tools.derive.families import check_rules, derive
from tools.derive.host_math import write_host_math
from tools.derive.inventory import Inventory
from tools.derive.libspec import SYMBOL_LIBS
from tools.derive.overloads import write_overloads
from tools.derive.simd import write_simd
from tools.derive.symbols import symbol_rows
from tools.derive.write import check_with_loader, write_data, write_rules

REPO = Path(__file__).resolve().parents[2]


def family_report(families: list[Family]) -> list[str]:
    out = [f"{'file':<16}{'rules':>7}{'supported':>11}{'unsupported':>13}{'deprecated':>12}"]
    for fam in families:
        c = collections.Counter(r.get("status", "supported") for r in fam.rules)
        out.append(f"{fam.file:<16}{len(fam.rules):>7}{c['supported']:>11}{c['unsupported']:>13}{c['deprecated']:>12}")
    return out


def library_report(families: list[Family], rows: list[str], missing: list[str]) -> list[str]:
    last: dict[str, str] = {}  # CUDA name -> status of its last (non-include) rule
    for fam in families:
        for r in fam.rules:
            if r["kind"] != "include":
                last[r["cuda"]] = r.get("status", "supported")
    per: dict[str, collections.Counter[str]] = collections.defaultdict(collections.Counter)
    for row in rows:
        lib, name, _ = row.split("\t")
        c = per[lib]
        c["symbols"] += 1
        if name in last:
            c["ruled"] += 1
            c["unsupported" if last[name] in ("unsupported", "removed") else "supported"] += 1
    for m in missing:
        per[m.split("\t")[0]]["missing"] += 1
    out = [f"{'library':<15}{'symbols':>8}{'ruled':>7}{'supported':>10}{'unsupported':>12}{'twin-no-rule':>13}"]
    for lib in SYMBOL_LIBS:
        c = per[lib]
        out.append(
            f"{lib:<15}{c['symbols']:>8}{c['ruled']:>7}{c['supported']:>10}{c['unsupported']:>12}{c['missing']:>13}"
        )
    return out


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(prog="python -m tools.derive", description=(DOC or "").split("\n\n")[0])
    ap.add_argument(
        "--inventory",
        type=Path,
        default=REPO.parent / "shared" / "api-inventory",
        help="the API inventories (default: ../shared/api-inventory)",
    )
    ap.add_argument(
        "--curated",
        type=Path,
        default=REPO / "tools" / "curated.yaml",
        help="the hand-checked facts (default: tools/curated.yaml)",
    )
    return ap.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    try:
        cur = Curated.load(args.curated)
    except RuleSchemaError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if not (args.inventory / "MANIFEST.json").is_file():
        print(f"error: no API inventory at {args.inventory} (MANIFEST.json missing)", file=sys.stderr)
        return 2
    inv = Inventory.load(args.inventory)
    run = derive(inv, cur)
    write_contracts(run.deriver, run.families, REPO / "hipconv" / "data")
    write_host_math(inv, REPO / "hipconv" / "data")
    write_simd(run.deriver, REPO / "hipconv" / "data")
    write_overloads(run.deriver, run.families, REPO / "hipconv" / "data")
    problems = run.deriver.problems + check_rules(run.families, inv)
    written = write_rules(run.families, REPO / "rules")
    symbols, missing_twins = symbol_rows(run.deriver, run.families)
    write_data(inv, cur, REPO / "hipconv" / "data", symbols, run.families, run.conversions)
    try:
        check_with_loader(written)
    except RuleSchemaError as exc:
        problems.append(f"the rule loader rejects the written rules: {exc}")

    print("\n".join(family_report(run.families)))
    print("\n".join(library_report(run.families, symbols, missing_twins)))
    print(f"library symbols with a HIP twin but no rule: {len(missing_twins)}")
    for m in missing_twins:
        print("  ", m.replace("\t", " "))
    missed = run.host.missed_twins(run.families)
    print(f"runtime/driver names with a mechanical HIP twin but no rule: {len(missed)}")
    for m in missed:
        print("  ", m)
    for p in problems:
        print("PROBLEM:", p, file=sys.stderr)
    return 1 if problems or missed or missing_twins else 0
