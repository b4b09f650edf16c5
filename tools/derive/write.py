"""Writing rules/*.yaml and hipconv/data/*, deterministically; and checking the rule files with
hipconv's own loader, so that what the derivation writes is what hipconv accepts."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from hipconv.rules.load import load_rules
from tools.derive.core import Family
from tools.derive.curated import Curated
from tools.derive.inventory import RELEASES, Inventory
from tools.derive.records import IDENT, Rule
from tools.derive.symbols import miopen_arity

SCHEMA_LINE = "# yaml-language-server: $schema=schema.json\n"


class FlowDict(dict[str, Any]):
    pass


class FlowList(list[Any]):
    pass


class RuleDumper(yaml.SafeDumper):
    pass


def _flow_mapping(dumper: yaml.SafeDumper, value: FlowDict) -> yaml.Node:
    return dumper.represent_mapping("tag:yaml.org,2002:map", value, flow_style=True)


def _flow_sequence(dumper: yaml.SafeDumper, value: FlowList) -> yaml.Node:
    return dumper.represent_sequence("tag:yaml.org,2002:seq", value, flow_style=True)


RuleDumper.add_representer(FlowDict, _flow_mapping)
RuleDumper.add_representer(FlowList, _flow_sequence)


def flow(rule: Rule) -> Rule:
    return {
        k: FlowDict(v) if isinstance(v, dict) else FlowList(v) if isinstance(v, list) else v for k, v in rule.items()
    }


def rule_text(fam: Family) -> str:
    fam.rules.sort(key=lambda r: (r["cuda"], r.get("rocm", {}).get("since", ""), r.get("id", "")))
    doc = {"defaults": FlowDict({"library": fam.library, "status": "supported"}), "rules": [flow(r) for r in fam.rules]}
    body = yaml.dump(doc, Dumper=RuleDumper, sort_keys=False, width=1 << 16, allow_unicode=True)
    return SCHEMA_LINE + fam.header_comment + body


def write_text(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8", newline="\n")
    return path


def write_lines(path: Path, lines: list[str]) -> Path:
    return write_text(path, "".join(line + "\n" for line in lines))


def write_rules(families: list[Family], rules_dir: Path) -> list[Path]:
    rules_dir.mkdir(parents=True, exist_ok=True)
    return [write_text(rules_dir / fam.file, rule_text(fam)) for fam in families]


def cuda_names(inv: Inventory, cur: Curated) -> list[str]:
    """cuda-13.names: `library<TAB>name` of the CUDA identifiers that ROCm 6.3 does not spell the same."""
    latest = inv.latest
    return sorted(
        {
            f"{r['lib']}\t{r['name']}"
            for recs in inv.cuda.by_lib.values()
            for r in recs
            if IDENT.match(r["name"]) and not latest.has(r["name"]) and r["name"] not in cur.ignore
        }
    )


def write_data(inv: Inventory, cur: Curated, out: Path, symbols: list[str]) -> list[Path]:
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for rel in RELEASES:
        written.append(write_lines(out / f"hip-{rel}.names", inv.hip[rel].plain_names()))
        written.append(write_lines(out / f"hip-{rel}.headers", inv.hip[rel].headers(inv.entry_headers[rel])))
    written.append(write_lines(out / "cuda-13.names", cuda_names(inv, cur)))
    written.append(write_lines(out / "cuda-13.symbols", symbols))
    written.append(write_lines(out / f"miopen-{RELEASES[-1]}.arity", miopen_arity(inv)))
    return written


def check_with_loader(paths: list[Path]) -> int:
    """Load the written rule files with hipconv's loader (RuleSchemaError with every problem); the rule count."""
    return len(load_rules(paths))
