"""PTX by its grammar (HC311): an inline-asm template is PTX when one of its statements is a PTX instruction
(`[@guard] opcode.modifier... operands;`) or a PTX state-space declaration (`.reg .b32 r;`), or when it names a
PTX special register (`%%laneid`).

Source of the data: NVIDIA, "Parallel Thread Execution ISA", version 8.5 (CUDA 12.5): the instruction mnemonics of
chapter 9.7 (Instructions), by its sections; the special registers of chapter 10; the type, state-space and
instruction modifiers of chapters 5 and 9.7. Written from the document, not from another translator.
x86 (`pause`, `lock; addl`), Arm (`dmb ish`, `add.w`) and AMD GCN (`s_waitcnt`, `v_mov_b32`) templates are not
PTX: their mnemonics are not PTX's, or carry no PTX modifier.
"""

from __future__ import annotations

import re

OPCODES: dict[str, frozenset[str]] = {  # family (the ISA's section) -> the mnemonics before their first `.`
    "integer arithmetic": frozenset(
        "add sub mul mad mul24 mad24 sad div rem abs neg min max popc clz bfind fns brev bfe bfi szext bmsk "
        "dp4a dp2a addc subc madc".split()
    ),
    "floating point": frozenset("testp copysign fma rcp sqrt rsqrt sin cos lg2 ex2 tanh".split()),
    "comparison and selection": frozenset("set setp selp slct".split()),
    "logic and shift": frozenset("and or xor not cnot lop3 shf shl shr".split()),
    "data movement and conversion": frozenset(
        "mov shfl prmt ld ldu st prefetch prefetchu isspacep cvta cvt cp mapa getctarank applypriority discard "
        "createpolicy multimem tensormap movmatrix".split()
    ),
    "texture and surface": frozenset("tex tld4 txq istypep suld sust sured suq".split()),
    "control flow": frozenset("bra brx call ret exit".split()),
    "parallel synchronization and communication": frozenset(
        "bar barrier membar fence atom red vote match activemask redux elect mbarrier griddepcontrol".split()
    ),
    "warp-level matrix": frozenset("wmma mma ldmatrix stmatrix wgmma".split()),
    "video": frozenset(
        "vadd vsub vabsdiff vmin vmax vshl vshr vmad vset vadd2 vsub2 vavrg2 vabsdiff2 vmin2 vmax2 vset2 vadd4 "
        "vsub4 vavrg4 vabsdiff4 vmin4 vmax4 vset4".split()
    ),
    "miscellaneous": frozenset("brkpt nanosleep pmevent trap setmaxnreg stacksave stackrestore alloca".split()),
}
_MNEMONICS = frozenset().union(*OPCODES.values())
# PTX instructions written without a modifier, whose mnemonic no other inline-asm dialect has
_BARE = frozenset({"exit", "trap", "brkpt", "pmevent", "bra"})
MODIFIERS = frozenset(  # a modifier after the mnemonic that says "PTX": types, state spaces, instruction options
    "s8 s16 s32 s64 u8 u16 u32 u64 b8 b16 b32 b64 b128 f16 f16x2 bf16 bf16x2 tf32 f32 f64 e4m3 e5m2 e4m3x2 "
    "e5m2x2 pred v2 v4 v8 "
    "global shared local const param tex generic cta cluster gpu sys gl warp "
    "rn rz rm rp rna rni rzi rmi rpi approx full ftz sat lo hi wide cc uni sync aligned arrive red "
    "and or xor popc add inc dec exch cas min max nc ca cg cs lu cv wb wt volatile relaxed acquire release "
    "acq_rel sc up down bfly idx any all ballot eq ne lt le gt ge ltu leu gtu geu equ neu num nan ls hs "
    "l r clamp wrap wait launch_dependents async commit_group wait_group wait_all bulk 1d 2d 3d a1d a2d cube "
    "acube 2dms a2dms trap zero x4 x2 x1 trans m8n8 m16n8k16 m16n8k8 m16n16k16 row col".split()
)
SPECIAL_REGISTERS = frozenset(  # chapter 10, without their `%`
    "tid ntid laneid warpid nwarpid ctaid nctaid smid nsmid gridid is_explicit_cluster clusterid nclusterid "
    "cluster_ctaid cluster_nctaid cluster_ctarank cluster_nctarank lanemask_eq lanemask_le lanemask_lt "
    "lanemask_ge lanemask_gt clock clock_hi clock64 globaltimer globaltimer_lo globaltimer_hi total_smem_size "
    "aggr_smem_size dynamic_smem_size current_graph_exec reserved_smem_offset_begin reserved_smem_offset_end "
    "reserved_smem_offset_cap".split()
)
_DECLARATIONS = frozenset({"reg", "pred", "local", "shared", "param"})  # `.reg .b32 r;` (x86 has .byte, .text)
_ESCAPES = re.compile(r"\\[ntrvf]|\\\"|%%")
_GUARD = re.compile(r"^@!?%?[A-Za-z_$][\w$]*\s+")
_LABEL = re.compile(r"^[A-Za-z_$][\w$]*:(?!:)\s*")
_INSTRUCTION = re.compile(r"^([a-z][a-z0-9_]*)((?:\.[A-Za-z0-9_:]+)*)(\s|$)")
_SPECIAL = re.compile(
    r"%(" + "|".join(sorted(SPECIAL_REGISTERS, key=len, reverse=True)) + r"|pm[0-7](?:_64)?"
    r"|envreg\d+)\b"
)


def ptx_instruction(template: str) -> str | None:
    """The first PTX statement of an inline-asm template, as written in C between the quotes (escapes and `%%`
    not yet undone),
    shortened to its mnemonic and modifiers (`rcp.approx.f32`, `.reg`, `%laneid`); None when it is not PTX."""
    text = _ESCAPES.sub(lambda m: {"%%": "%", "\\n": "\n"}.get(m.group(), " "), template)
    for statement in re.split(r"[;\n{}]", text):
        found = _statement(statement.strip())
        if found:
            return found
    special = _SPECIAL.search(text)
    return special.group() if special else None


def _statement(statement: str) -> str | None:
    statement = _GUARD.sub("", _LABEL.sub("", statement))
    if statement.startswith("."):
        directive = statement[1:].split(maxsplit=1)[0] if len(statement) > 1 else ""
        return f".{directive}" if directive in _DECLARATIONS else None
    match = _INSTRUCTION.match(statement)
    if match is None or match.group(1) not in _MNEMONICS:
        return None
    modifiers = match.group(2).split(".")[1:]
    if any(m in MODIFIERS for m in modifiers) or not modifiers and match.group(1) in _BARE:
        return match.group(1) + match.group(2)
    return None
