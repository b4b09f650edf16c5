"""Writing rules/*.yaml and hipconv/data/*, deterministically; and checking the rule files with
hipconv's own loader, so that what the derivation writes is what hipconv accepts."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from itertools import takewhile
from pathlib import Path
from typing import Any

import yaml

from hipconv.rules.conversions import SUFFIX as CONVERSION_SUFFIX
from hipconv.rules.load import load_order, load_rules
from hipconv.rules.nodes import load_plain
from hipconv.rules.schema import UNSUPPORTED_FIELDS
from tools.derive.cg_members import cg_members
from tools.derive.conversions import Conversion
from tools.derive.core import Family
from tools.derive.curated import Curated
from tools.derive.device_props import device_props
from tools.derive.enum_values import enumerator_values
from tools.derive.inventory import CUDA_RELEASES, RELEASES, Inventory
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


GROUPED = frozenset(UNSUPPORTED_FIELDS) - {"names"}  # what an `unsupported:` group's names share


def rule_text(fam: Family) -> str:
    fam.rules.sort(key=load_order)
    shared = file_defaults(fam.rules)
    listed, groups = unsupported_groups([beyond_defaults(r, shared) for r in fam.rules])
    doc: dict[str, Any] = {
        "defaults": FlowDict({"library": fam.library, "status": "supported", **shared}),
        "rules": [flow(r) for r in listed],
    }
    if groups:
        doc["unsupported"] = groups
    body = yaml.dump(doc, Dumper=RuleDumper, sort_keys=False, width=1 << 16, allow_unicode=True)
    return SCHEMA_LINE + fam.header_comment + body


def file_defaults(rules: list[Rule]) -> dict[str, str]:
    """The `kind` and `section` a file's defaults set: the most common of its rules' (the first of equals;
    no section when most rules have none)."""
    shared = {}
    for key in ("kind", "section"):
        counts = Counter(str(r.get(key, "")) for r in rules)
        if counts and counts.most_common(1)[0][0]:
            shared[key] = counts.most_common(1)[0][0]
    return shared


def beyond_defaults(rule: Rule, shared: Mapping[str, str]) -> Rule:
    """A rule as written under defaults `shared`: without the values they set, with `section: ''` where the
    rule has none but the defaults do."""
    out = {key: value for key, value in rule.items() if key not in shared or value != shared[key]}
    if "section" in shared and "section" not in rule:
        out["section"] = ""
    return out


def unsupported_groups(rules: list[Rule]) -> tuple[list[Rule], list[dict[str, Any]]]:
    """The rules to write under `rules:`, and the `unsupported:` groups of the others: the unsupported
    rules with nothing but the GROUPED fields, by the values they share (the groups in the order of their
    first name; each group's names sorted, as `rules` is)."""
    listed: list[Rule] = []
    groups: dict[str, dict[str, Any]] = {}
    for rule in rules:
        if rule.get("status") != "unsupported" or not set(rule) <= GROUPED | {"cuda", "status"}:
            listed.append(rule)
            continue
        shared = {key: rule[key] for key in UNSUPPORTED_FIELDS if key in rule}
        group = groups.setdefault(repr(shared), {**flow(shared), "names": []})
        group["names"].append(rule["cuda"])
    return listed, list(groups.values())


def read_family(path: Path) -> Family:
    """A written rule file as the derivation's Family (`unsupported:` names as rules again, the defaults'
    kind and section in each rule, in load order): rule_text of it is the file's text."""
    text = path.read_text(encoding="utf-8")
    doc = load_plain(text)
    defaults = doc["defaults"]
    shared = {key: defaults[key] for key in ("kind", "section") if key in defaults}
    rules = [dict(r) for r in doc.get("rules") or ()]
    for group in doc.get("unsupported") or ():
        grouped = {key: value for key, value in group.items() if key != "names"}
        rules.extend({"cuda": name, "status": "unsupported", **grouped} for name in group["names"])
    for rule in rules:
        for key, value in shared.items():
            rule.setdefault(key, value)
        if rule.get("section") == "":
            del rule["section"]
    comment = "".join(takewhile(lambda line: line.startswith("#"), text.removeprefix(SCHEMA_LINE).splitlines(True)))
    return Family(path.name, defaults["library"], comment, sorted(rules, key=load_order))


def write_text(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8", newline="\n")
    return path


def write_lines(path: Path, lines: list[str]) -> Path:
    return write_text(path, "".join(line + "\n" for line in lines))


def write_rules(families: list[Family], rules_dir: Path) -> list[Path]:
    rules_dir.mkdir(parents=True, exist_ok=True)
    return [write_text(rules_dir / fam.file, rule_text(fam)) for fam in families]


def cuda_names(inv: Inventory, cur: Curated) -> list[str]:
    """cuda.names: `library<TAB>name` of the CUDA identifiers (of every bundled CUDA release) that the newest
    ROCm does not spell the same."""
    latest = inv.latest
    return sorted(
        {
            f"{r['lib']}\t{r['name']}"
            for recs in inv.cuda.by_lib.values()
            for r in recs
            if IDENT.match(r["name"]) and not latest.has(r["name"]) and r["name"] not in cur.ignore
        }
    )


def span_list(releases: list[str], order: tuple[str, ...] = RELEASES) -> str:
    """Releases (a subset of `order`, the ROCm RELEASES or CUDA_RELEASES, in order) as consecutive spans:
    `5.2-6.3,7.0-7.2`, `6.0`."""
    runs: list[list[str]] = []
    for rel in releases:
        if runs and order.index(rel) == order.index(runs[-1][-1]) + 1:
            runs[-1].append(rel)
        else:
            runs.append([rel])
    return ",".join(run[0] if len(run) == 1 else f"{run[0]}-{run[-1]}" for run in runs)


def presence_lines(present: dict[str, tuple[set[str], set[str]]]) -> list[str]:
    """`name<TAB>releases[<TAB>carried]` (hip.names, hip.headers): name -> (the releases that have it,
    those of them that have it only as carried forward from a full inventory)."""
    lines = []
    for name in sorted(present):
        have, carried = present[name]
        row = [name, span_list([r for r in RELEASES if r in have])]
        if carried:
            row.append(span_list([r for r in RELEASES if r in carried]))
        lines.append("\t".join(row))
    return lines


def hip_presence(inv: Inventory) -> tuple[list[str], list[str]]:
    """hip.names and hip.headers: every name and header of every release, with the releases that have it."""
    names: dict[str, tuple[set[str], set[str]]] = {}
    headers: dict[str, tuple[set[str], set[str]]] = {}
    for rel in RELEASES:
        snap = inv.hip[rel]
        carried = snap.carried_names()
        for name in snap.plain_names():
            have, via = names.setdefault(name, (set(), set()))
            have.add(rel)
            if name in carried:
                via.add(rel)
        own = {r["header"] for recs in snap.by_lib.values() for r in recs if r.get("header") and "carried" not in r}
        for header in snap.headers(inv.entry_headers[rel]):
            have, via = headers.setdefault(header, (set(), set()))
            have.add(rel)
            if rel in inv.host_only and header not in own:
                via.add(rel)
    return presence_lines(names), presence_lines(headers)


def release_lines(inv: Inventory) -> list[str]:
    """hip.releases: one bundled release a line, oldest first; a host-only one with the full release it
    carries forward (`6.4<TAB>6.3`)."""
    return [f"{rel}\t{inv.host_only[rel]}" if rel in inv.host_only else rel for rel in RELEASES]


def device_prop_lines(inv: Inventory) -> list[str]:
    """cuda-device-prop.fields: `member<TAB>CUDA releases<TAB>ROCm releases[<TAB>HIP spelling]` (spans; ROCm's
    empty where no release has it; the spelling where hipDeviceProp_t's differs)."""
    return [
        "\t".join(
            [p.member, span_list(p.cuda, CUDA_RELEASES), span_list(p.hip)] + [p.spelling] * (p.spelling != p.member)
        )
        for p in device_props(inv)
    ]


def cg_lines(inv: Inventory, cur: Curated) -> tuple[list[str], list[str]]:
    """cg.members: `member<TAB>scope<TAB>group=releases ...<TAB>HIP alias<TAB>define` (the groups whose HIP class
    has it, space-separated, each with its releases as spans); cg.factories: `function<TAB>form<TAB>groups`."""
    members, factories = cg_members(inv, cur)
    member_lines = [
        "\t".join([m.name, m.scope, " ".join(f"{g}={span_list(r)}" for g, r in m.classes.items()), m.alias, m.define])
        for m in members
    ]
    return member_lines, [f"{f.name}\t{f.form}\t{','.join(f.classes)}" for f in factories]


def enumerator_lines(inv: Inventory, families: list[Family]) -> list[str]:
    """hip.enumerators: `name<TAB>value<TAB>releases` (spans), a line per value a name has in some release."""
    return [f"{name}\t{value}\t{span_list(releases)}" for name, value, releases in enumerator_values(inv, families)]


def write_data(
    inv: Inventory,
    cur: Curated,
    out: Path,
    symbols: list[str],
    families: list[Family],
    conversions: Mapping[str, Conversion],
) -> list[Path]:
    out.mkdir(parents=True, exist_ok=True)
    names, headers = hip_presence(inv)
    members, factories = cg_lines(inv, cur)
    for stale in out.glob(f"*{CONVERSION_SUFFIX}"):
        if stale.name.removesuffix(CONVERSION_SUFFIX) not in conversions:
            stale.unlink()
    return [
        *(write_lines(out / f"{t}{CONVERSION_SUFFIX}", c.lines()) for t, c in sorted(conversions.items())),
        write_lines(out / "hip.releases", release_lines(inv)),
        write_lines(out / "hip.names", names),
        write_lines(out / "hip.headers", headers),
        write_lines(out / "cuda.releases", list(CUDA_RELEASES)),
        write_lines(out / "cuda.names", cuda_names(inv, cur)),
        write_lines(out / "cuda.symbols", symbols),
        write_lines(out / f"miopen-{inv.newest_full}.arity", miopen_arity(inv)),
        write_lines(out / "cuda-device-prop.fields", device_prop_lines(inv)),
        write_lines(out / "hip.enumerators", enumerator_lines(inv, families)),
        write_lines(out / "cg.members", members),
        write_lines(out / "cg.factories", factories),
    ]


def check_with_loader(paths: list[Path]) -> int:
    """Load the written rule files with hipconv's loader (RuleSchemaError with every problem); the rule count."""
    return len(load_rules(paths))
