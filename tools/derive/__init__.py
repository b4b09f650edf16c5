"""Derive hipconv's rule files and name lists from the API inventories.

    python -m tools.derive [--inventory ../shared/api-inventory] [--curated tools/curated.yaml]
    python tools/derive_rules.py [...]        (the same, from anywhere)

Inputs: the JSONL inventories (cuda-11.8/, cuda-12.9/ and cuda/ = CUDA 13.0, merged: a name by its
newest declaration, with its CUDA span in the rules' `nvidia:` block; one set per ROCm release 5.2, 5.7, 6.0, 6.1,
6.2, 6.3 = hip/, 6.4, 7.0, 7.1, 7.2, the last four host-only, what they lack carried forward from
6.3: see inventory.py) and tools/curated.yaml (hand-written facts, each with a note on its evidence;
checked against the schema in tools/derive/curated.py).  Outputs (deterministic, sorted):
rules/*.yaml and hipconv/data/{hip.releases,hip.names,hip.headers,cuda.releases,cuda.names,cuda.symbols,
miopen-6.3.arity,cuda-device-prop.fields,hip.enumerators,cg.members,cg.factories} (formats:
hipconv/data/README.md).

Every HIP name that a rule emits is checked against the HIP snapshot of every release in the
rule's [since, until) range (a function also for a parameter count that fits), and the written
rule files are loaded with hipconv's rule loader; a failed check fails the run.

Modules: inventory (the snapshots), curated (curated.yaml and its schema), records and names
(what records say; mechanical spellings), core (shared state, building and claiming a rule),
spans (per-release spellings), runtime (runtime/driver), device (device, complex, fp16, warp),
device_props (cudaDeviceProp's members in hipDeviceProp_t, for scan check HC314), cg_members (the
cooperative groups' members per HIP release, for HC014/HC015), enum_values (HIP
enumerator values, for case labels),
libraries / cxx / libspec (the C and C++ libraries), cudnn, includes, symbols, write, families
(the run), cli.
"""
