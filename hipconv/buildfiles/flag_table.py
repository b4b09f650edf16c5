"""docs/nvcc-flags.md's nvcc -> hipcc flag table and CUDA library table (`hipconv rules docs`), from nvcc_flags.py."""

from __future__ import annotations

from hipconv.buildfiles.nvcc_flags import FLAGS, LIBRARIES, FlagAction, FlagValue


def flag_table_markdown() -> str:
    """The generated nvcc -> hipcc table (and the library table) of docs/nvcc-flags.md, from FLAGS and LIBRARIES."""
    rows = ["| nvcc | hipcc | note |", "| --- | --- | --- |"]
    for flag in FLAGS:
        spelled = ", ".join(f"`{n}`" for n in flag.names) + (
            " *X*" if flag.value is FlagValue.ANY and not flag.values else ""
        )
        if flag.action is FlagAction.ARCH:
            hip = "`--offload-arch=T` for each target T"
        elif flag.action is FlagAction.LIBRARY:
            hip = "see the library table"
        elif flag.action in (FlagAction.DROP, FlagAction.UNSUPPORTED):
            hip = "dropped" if flag.action is FlagAction.DROP else "not passed on (reported)"
        elif flag.values:
            hip = "; ".join(f"*{v}* → `{' '.join(w)}`" for v, w in flag.values.items())
        else:
            hip = "`" + " ".join(flag.hip).replace("{value}", "X").replace("{item}", "each X") + "`"
        rows.append(f"| {spelled} | {hip} | {flag.note} |")
    rows += [
        "",
        "| CUDA library | `-l` on ROCm | CMake target | ROCm CMake target | package | note |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    for lib in LIBRARIES:
        rows.append(
            f"| `{lib.cuda}` | {f'`{lib.hip}`' if lib.hip else '—'} | "
            f"{', '.join(f'`{t}`' for t in lib.cmake) or '—'} | "
            f"{f'`{lib.hip_cmake}`' if lib.hip_cmake else '—'} | {lib.package or '—'} | {lib.note} |"
        )
    return "\n".join(rows) + "\n"
