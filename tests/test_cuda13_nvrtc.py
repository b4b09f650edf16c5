"""NVRTC's array-of-strings parameters (issue #38): nvrtcCompileProgram's options and nvrtcCreateProgram's
headers and include names are `const char *const *`, which a `char **` (a sample suite's helper builds its
options as `char *[]`) or a `const char *const []` converts to; hiprtc takes `const char **` before ROCm 7.0,
to which neither converts ("no matching function"). The derived rules (tools/derive/calltypes.py, nvrtc among
the checked libraries) cast those arguments where the release takes `const char **`, and nothing from 7.0 on,
whose hiprtc takes `const char *const *` (the hip-7.0 to 7.2 inventories). A null pointer constant is passed
as it is: reinterpret_cast takes no `nullptr`, and a null pointer converts to any pointer parameter."""

from __future__ import annotations

import pytest

from hipconv.api import translate_source

CAST = "const_cast<const char**>(reinterpret_cast<const char* const*>({}))"
HELPER = """#include <nvrtc.h>
#include <vector>
nvrtcResult build(nvrtcProgram prog, std::vector<char *> &argv) {
  return nvrtcCompileProgram(prog, (int)argv.size(), argv.data());
}
nvrtcResult create(nvrtcProgram *prog, const char *src, const char *const *hdrs, const char *const *names) {
  return nvrtcCreateProgram(prog, src, "k.cu", 1, hdrs, names);
}
"""


@pytest.mark.parametrize("rocm", ["5.2", "6.3", "6.4"])
def test_arrays_of_strings_are_cast_before_7_0(rocm: str) -> None:
    out = translate_source(HELPER, rocm_version=rocm).text
    assert f"hiprtcCompileProgram(prog, (int)argv.size(), {CAST.format('argv.data()')})" in out
    assert f'hiprtcCreateProgram(prog, src, "k.cu", 1, {CAST.format("hdrs")}, {CAST.format("names")})' in out


@pytest.mark.parametrize("rocm", ["7.0", "7.2"])
def test_no_cast_where_hiprtc_takes_const_arrays(rocm: str) -> None:
    out = translate_source(HELPER, rocm_version=rocm).text
    assert "hiprtcCompileProgram(prog, (int)argv.size(), argv.data())" in out
    assert 'hiprtcCreateProgram(prog, src, "k.cu", 1, hdrs, names)' in out


@pytest.mark.parametrize("null", ["NULL", "nullptr", "0", "(const char **)0"])
def test_null_pointer_constants_are_not_cast(null: str) -> None:
    src = f"#include <nvrtc.h>\nvoid f(nvrtcProgram p) {{ nvrtcCompileProgram(p, 0, {null}); }}\n"
    out = translate_source(src, rocm_version="6.3").text
    assert f"hiprtcCompileProgram(p, 0, {null});" in out


def test_cast_already_written_is_kept() -> None:
    src = "#include <nvrtc.h>\nvoid f(nvrtcProgram p, char **o) { nvrtcCompileProgram(p, 1, (const char **)o); }\n"
    out = translate_source(src, rocm_version="6.3").text
    assert "hiprtcCompileProgram(p, 1, (const char **)o);" in out
