"""Cost profiles (MODEL.md 3): presets, per-class costs by hand, custom profiles from TOML files
and --param, and rejection of bad parameters with a hint."""
from __future__ import annotations

import json
from fractions import Fraction as F

import pytest

from inca.compiler.assembler import assemble_text
from inca.interpreter import cli
from inca.interpreter.loader import execute
from inca.interpreter.profiles import (HOST_PARAMS, PRESETS, RANGES, SCRATCHPAD_PARAMS, format_number,
                                      load_profile, make_profile)
from inca.lang.diagnostics import DiagnosticError
from inca.lang.isa import OpClass
from inca.lang.tuples import encode

PUTL, ALU, BLEZ, JMP, END = OpClass.PUTL, OpClass.ALU, OpClass.BLEZ, OpClass.JMP, OpClass.END

# a tiny program: PUTL, ALU with an immediate, ALU with a location, BLEZ (falls through), JMP, END
TINY = """\
.output x i64
1 PUTL x, 5
2 ADD x, x, 1
3 ADD x, x, x
4 BLEZ x, 6
5 JMP 6
6 END
"""


def test_presets_exist_with_their_parameters():
    assert set(PRESETS) == {"scratchpad", "base", "scratchpad-400g", "scratchpad-1000g"}
    sp = load_profile("scratchpad")
    assert sp.memory == "scratchpad" and sp.capacity == 1 << 20
    assert dict(sp.params) == {"link_gbps": F("102.4"), "msg_bits": 512, "L": 0, "m": 1,
                               "vec_fixed": F("4.5"), "elem_gap": F(1, 3), "scratchpad_bytes": 1048576}
    assert load_profile("scratchpad-400g")["link_gbps"] == 400
    assert load_profile("scratchpad-1000g")["link_gbps"] == 1000
    base = load_profile("base")
    assert base.memory == "host" and base.capacity is None
    assert dict(base.params) == {"op_ns": 310, "fetch_ns": 250, "elem_ns": F(1, 2)}


def test_scratchpad_costs_by_class():
    p = load_profile("scratchpad")  # g = o = 512 / 102.4 = 5 ns
    assert [p.cost(c, False, None) for c in (PUTL, ALU, BLEZ, JMP, END)] == [11, 12, 11, 10, 0]
    assert p.cost(ALU, True, None) == 12  # immediates make no difference on the NIC
    for n in (1, 3, 16, 1024):
        for c, scalar in ((PUTL, 11), (ALU, 12)):
            assert p.cost(c, False, n) == max(scalar, F(9, 2) + F(n, 3))
    assert p.cost(PUTL, False, 1) == 11 and p.cost(ALU, False, 20) == 12  # 4.5 + 20/3 < 12
    assert p.cost(ALU, False, 23) == F(9, 2) + F(23, 3)  # 12.17 ns: the vector rule takes over


@pytest.mark.parametrize("name,g", [("scratchpad-400g", F(128, 100)), ("scratchpad-1000g", F(512, 1000))])
def test_faster_links(name, g):
    p = load_profile(name)
    costs = [p.cost(c, False, None) for c in (PUTL, ALU, BLEZ, JMP)]
    assert costs == [2 * g + 1, 2 * g + 2, 2 * g + 1, 2 * g]
    assert p.cost(ALU, False, 30) == F(9, 2) + 10  # vector costs do not scale with the link


def test_base_costs():
    p = load_profile("base")
    assert p.cost(PUTL, False, None) == 310 and p.cost(PUTL, True, None) == 310
    assert p.cost(ALU, True, None) == 310 and p.cost(ALU, False, None) == 560
    assert p.cost(BLEZ, False, None) == 310 and p.cost(JMP, False, None) == 310
    assert p.cost(END, False, None) == 0
    assert p.cost(ALU, False, 8) == 560 + 4 and p.cost(PUTL, False, 3) == 310 + F(3, 2)


@pytest.mark.parametrize("profile,expected", [
    ("scratchpad", 11 + 12 + 12 + 11 + 10),
    ("base", 310 + 310 + 560 + 310 + 310),
    ("scratchpad-400g", 5 * F(256, 100) + 1 + 2 + 2 + 1),
    ("scratchpad-1000g", 5 * F(1024, 1000) + 1 + 2 + 2 + 1),
])
def test_tiny_program_time(run_asm, profile, expected):
    r = run_asm(TINY, profile=profile)
    assert r.outputs["x"] == 12
    assert r.by_class == {"PUTL": 1, "ALU": 2, "BLEZ": 1, "JMP": 1}
    assert r.instructions == r.messages == 5
    assert r.memory_accesses == 1 + 2 + 2 + 1 + 0
    assert r.time_ns == expected


@pytest.mark.parametrize("overrides,costs", [
    ({"L": "2"}, [13, 14, 13, 12]),
    ({"m": "3"}, [13, 16, 13, 10]),
    ({"msg_bits": "1024"}, [21, 22, 21, 20]),
    ({"link_gbps": "51.2", "L": "0.5"}, [21.5, 22.5, 21.5, 20.5]),
])
def test_overridden_parameters(overrides, costs):
    p = load_profile("scratchpad", overrides)
    assert [p.cost(c, False, None) for c in (PUTL, ALU, BLEZ, JMP)] == [F(str(c)) for c in costs]


def test_vector_parameters_override():
    p = load_profile("scratchpad", {"vec_fixed": "10", "elem_gap": "0.25"})
    assert p.cost(ALU, False, 8) == 12
    b = load_profile("base", {"elem_ns": "2", "fetch_ns": "0"})
    assert b.cost(ALU, False, 8) == 310 + 16


def test_toml_profile(tmp_path):
    path = tmp_path / "my-nic.toml"
    path.write_text('name = "my-nic"\nbase = "scratchpad-400g"\nm = 2\nelem_gap = "1/4"\nL = 0.5\n')
    p = load_profile(str(path))
    assert p.name == "my-nic" and p.memory == "scratchpad"
    assert p["link_gbps"] == 400 and p["m"] == 2 and p["elem_gap"] == F(1, 4) and p["L"] == F(1, 2)
    assert p.cost(ALU, False, None) == F(1, 2) + F(256, 100) + 4
    # --param wins over the file, which wins over its base preset
    q = load_profile(str(path), {"m": "0", "link_gbps": "102.4"})
    assert q.cost(ALU, False, None) == F(1, 2) + 10
    assert q.describe() == ("my-nic (scratchpad): link_gbps=102.4 msg_bits=512 L=0.5 m=0 vec_fixed=4.5 "
                            "elem_gap=0.25 scratchpad_bytes=1048576")


def test_toml_profile_defaults(tmp_path):
    path = tmp_path / "plain.toml"
    path.write_text("link_gbps = 204.8\n")
    p = load_profile(str(path))
    assert p.name == "plain" and p.cost(JMP, False, None) == 5  # base defaults to scratchpad
    host = tmp_path / "host.toml"
    host.write_text('base = "base"\nop_ns = 300\n')
    assert load_profile(str(host)).cost(ALU, False, None) == 550


def _diag(fn, *args):
    with pytest.raises(DiagnosticError) as e:
        fn(*args)
    (d,) = e.value.diagnostics
    return d


def test_unknown_parameters_are_rejected_with_a_hint(tmp_path):
    d = _diag(load_profile, "scratchpad", {"link_gps": "400"})
    assert d.message == "unknown parameter 'link_gps' for a scratchpad profile"
    assert d.hint == "did you mean 'link_gbps'?"
    assert d.render() == ("inca: error: unknown parameter 'link_gps' for a scratchpad profile\n"
                          "hint: did you mean 'link_gbps'?")
    d = _diag(load_profile, "base", {"link_gbps": "400"})  # a scratchpad parameter on a host profile
    assert d.message == "unknown parameter 'link_gbps' for a host profile"
    assert d.hint == "parameters: op_ns, fetch_ns, elem_ns"
    path = tmp_path / "typo.toml"
    path.write_text("vec_fix = 3\n")
    d = _diag(load_profile, str(path))
    assert d.message == "unknown parameter 'vec_fix' for a scratchpad profile"
    assert d.hint == "did you mean 'vec_fixed'?" and d.file == str(path)


@pytest.mark.parametrize("key,value,message", [
    ("m", "fast", "parameter m='fast' is not a number"),
    ("m", "1/0", "parameter m='1/0' is not a number"),
    ("m", "inf", "parameter m='inf' is not a number"),
    ("L", "-1", "parameter L=-1 is out of range"),
    ("link_gbps", "0", "parameter link_gbps=0 is out of range"),
    ("msg_bits", "0", "parameter msg_bits=0 is out of range"),
    # regressions: an OverflowError after the outputs were printed, or a hang in Fraction()
    ("m", "1e400", "parameter m=1e400 is out of range"),
    ("link_gbps", "1e-400", "parameter link_gbps=1e-400 is out of range"),
    ("link_gbps", "1e-308", "parameter link_gbps=1e-308 is out of range"),
    ("L", "1e100000000", "parameter L=1e100000000 is out of range"),
    ("L", "1" * 5000, "parameter L=" + "1" * 40 + "... is out of range"),
    # a fraction of a byte or bit was truncated silently where it was used
    ("scratchpad_bytes", "1.5", "parameter scratchpad_bytes=1.5 is not a whole number"),
    ("msg_bits", "3/2", "parameter msg_bits=3/2 is not a whole number"),
])
def test_bad_parameter_values(key, value, message):
    assert _diag(load_profile, "scratchpad", {key: value}).message == message


@pytest.mark.parametrize("key,lo,hi,hint", [
    ("link_gbps", "0.001", "1e6", "link_gbps is from 0.001 to 1000000 (Gb/s)"),
    ("L", "0", "1e9", "L is from 0 to 1000000000 (ns)"),
    ("scratchpad_bytes", "0", str(2**40), "scratchpad_bytes is a whole number from 0 to 1099511627776 (bytes)"),
])
def test_parameter_ranges_are_inclusive_and_named_in_the_hint(key, lo, hi, hint):
    for ok in (lo, hi):
        assert load_profile("scratchpad", {key: ok})[key] == F(ok)
    for bad in (str(F(lo) - F(1, 10**6)), f"{hi}1"):
        assert _diag(load_profile, "scratchpad", {key: bad}).hint == hint


def test_every_way_of_making_a_profile_checks_the_ranges(tmp_path):
    toml = tmp_path / "tiny.toml"
    toml.write_text("link_gbps = 1e-308\n")  # regression: OverflowError after the outputs
    assert _diag(load_profile, str(toml)).message == "parameter link_gbps=1e-308 is out of range"
    assert _diag(load_profile, "base", {"op_ns": "1e10"}).hint == "op_ns is from 0 to 1000000000 (ns)"
    assert set(RANGES) == set(SCRATCHPAD_PARAMS) | set(HOST_PARAMS)
    for name in PRESETS:  # the presets themselves are in range
        load_profile(name)


def test_bad_profiles(tmp_path):
    d = _diag(load_profile, "scratchpd")
    assert d.message == "unknown profile 'scratchpd'" and d.hint == "did you mean 'scratchpad'?"
    assert _diag(load_profile, "fast").hint.startswith("profiles: scratchpad, base,")
    assert _diag(load_profile, str(tmp_path / "none.toml")).message == "no such file"
    bad = tmp_path / "bad.toml"
    bad.write_text("link_gbps = = 3\n")
    assert _diag(load_profile, str(bad)).message.startswith("not valid TOML")
    wrong = tmp_path / "wrong.toml"
    wrong.write_text('base = "fastest"\n')
    assert _diag(load_profile, str(wrong)).message == "unknown base profile 'fastest'"


def test_capacity_parameter():
    text = ".var T f64[16]\n.var U f64[16]\nEND\n"
    prof = load_profile("scratchpad", {"scratchpad_bytes": "200"})
    with pytest.raises(DiagnosticError) as e:
        execute(encode(assemble_text(text, "cap.incaa")), prof)
    (d,) = e.value.diagnostics
    # the whole program's need is reported, not whichever buffer happened to overflow
    assert d.message == "the program's data needs 256 bytes but the scratchpad of profile 'scratchpad' holds 200 bytes"
    assert d.hint == ("use a smaller payload, a profile with a larger scratchpad_bytes, "
                      "or the base profile (data in host memory)")


def test_number_formatting():
    assert [format_number(F(x)) for x in ("102.4", "1/3", "1.28", "1e3", "0", "4.5", "1/8")] == \
        ["102.4", "1/3", "1.28", "1000", "0", "4.5", "0.125"]
    p = make_profile("x", "scratchpad", {"elem_gap": "0.125"})
    assert p.as_json()["params"]["elem_gap"] == "0.125"


# ---- through inca run -------------------------------------------------------------------------

def test_cli_profile_file_and_params(tmp_path, capsys):
    prog = tmp_path / "tiny.incaa"
    prog.write_text(TINY)
    prof = tmp_path / "slow.toml"
    prof.write_text('name = "slow"\nL = 100\n')
    assert cli.main(["run", str(prog), "--profile", str(prof), "--param", "m=0", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["time_ns"] == 5 * 100 + 5 * 10  # L + 2g per tuple, no memory time
    assert doc["profile"] == {"name": "slow", "memory": "scratchpad", "params": {
        "link_gbps": "102.4", "msg_bits": "512", "L": "100", "m": "0", "vec_fixed": "4.5", "elem_gap": "1/3",
        "scratchpad_bytes": "1048576"}}
    assert cli.main(["run", str(prog), "--profile", "base"]) == 0
    out = capsys.readouterr().out
    assert "time            1.80 us (1800 ns)" in out
    assert "profile         base (host): op_ns=310 fetch_ns=250 elem_ns=0.5" in out


def test_cli_rejects_unknown_param(tmp_path, capsys):
    prog = tmp_path / "tiny.incaa"
    prog.write_text(TINY)
    assert cli.main(["run", str(prog), "--param", "elem_gapp=1"]) == 1
    assert capsys.readouterr().err == ("inca: error: unknown parameter 'elem_gapp' for a scratchpad profile\n"
                                       "hint: did you mean 'elem_gap'?\n")
