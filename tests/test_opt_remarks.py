"""The optimiser's remarks speak of the source (docs/optimiser.md, Remarks): names the compiler
made are spelt as what they stand for, versions of a loop get no "not vectorised" of their own,
a pass's own assignments (its names, a loop's last value) are not reported as removed, and each
remark is made once."""
from __future__ import annotations

import re

from inca.compiler.incaq.pipeline import compile_source
from inca.compiler.opt.pipeline import Level, Trace
from inca.compiler.opt.remarks import Names, Remarks
from inca.lang.diagnostics import Loc, Source

O2 = Level(2)
SCALE = ("param N = 64\ninput n: i64 = 40\ninput X: f64[N]\noutput Y: f64[N]\n"
         "for i in 0 .. n do {\n    Y[i] = X[i] * 2.0 + 1.0\n}\n")
UNPACK = ("param N = 64\ninput h: i64 = 40\ninput b: i64 = 8\ninput st: i64 = 10\n"
          "input P: f64[N]\ninout M: f64[N * 2]\n"
          "for i in 0 .. h / 8 do {\n    d = (i / b) * st + i % b\n    M[d] = P[i]\n}\n")


def remarks(text: str, level: Level = O2) -> list[str]:
    trace = Trace()
    compile_source(Source("k.incaq", text), level=level, trace=trace)
    return trace.remarks.text().splitlines()


def made_names(lines: list[str]) -> list[str]:
    """Names in remarks that look like a pass's fresh names (a stem and a number)."""
    return [m for line in lines for m in re.findall(r"\b(?:lane|chunk|chunks|bucket|i_q|i_r|"
                                                    r"i_lane|i_chunk|d_)\d+\b", line)]


def test_a_strip_mined_loop_says_what_was_done_once_and_of_the_source():
    found = remarks(SCALE)
    assert found == [
        "k.incaq:5:1: remark: [stripmine] loop over i strip-mined: chunks of 16 for the loop "
        "passes, the last 16 once more, when it runs at least 16 times (its trip count is known "
        "only at run time)",
        "k.incaq:5:1: remark: [vectorise] vectorised over the chunks of i (16 elements)"]


def test_blocks_speak_of_the_blocks_of_the_source_loop():
    found = remarks(UNPACK)
    assert not made_names(found), found
    assert not any("(missed)" in r for r in found), found
    assert any("[blocks] loop over i made blocks of b iterations" in r for r in found)
    assert any("vectorised over the chunks of a block of i (16 elements)" in r for r in found)
    assert len(found) == len(set(found))
    # the copy strength makes of d for its version of the loop is spelt d
    assert any(r.endswith("[propagate] d computed in the indices that read it") for r in found), found


def test_a_loop_that_cannot_be_versioned_says_why():
    # from 1 up to a bare scalar stripmine leaves the loop as written and says why (vectorise's
    # "its trip count is not known at compile time" was all a user saw)
    found = remarks(SCALE.replace("0 .. n", "1 .. n"))
    assert any(r.startswith("k.incaq:5:1: remark (missed): [stripmine] loop over i not strip-mined: "
                            "up to n from 1, counting its trips costs three instructions") for r in found)
    assert not any("[vectorise]" in r for r in found), found


def test_remarks_of_a_pass_run_on_its_own_name_everything():
    # without the source's names (a pass run alone, as the tests of one pass do), every name is
    # the source's and nothing is respelt
    r = Remarks(pass_name="p")
    assert not r.made("lane1") and r.say("lane1") == "lane1"
    r.done(None, "x")
    r.done(None, "x")
    r.missed(None, "x")
    assert [(x.kind, x.message) for x in r.items] == [("done", "x"), ("missed", "x")]


def test_phrases_nest_and_replace_whole_names_only():
    r = Remarks(pass_name="p", names=Names(source=frozenset({"i", "b"})))
    r.call("i_r1", "a block of i")
    r.call("lane1", "the chunks of i_r1")
    assert r.made("lane1") and not r.made("i")
    assert r.say("lane1") == "the chunks of a block of i"
    r.done(Loc("k.incaq", 1, 1), "over lane1 and lane10 and i_r1x")
    assert r.items[0].message == "over the chunks of a block of i and lane10 and i_r1x"
    trial = r.trial()
    trial.done(Loc("k.incaq", 1, 1), "over lane1 and lane10 and i_r1x")
    trial.done(Loc("k.incaq", 2, 1), "y")
    r.adopt(trial)
    assert [x.message for x in r.items][1:] == ["y"]


def test_a_reduction_kept_in_order_is_not_also_not_vectorised():
    # reduce says the f64 sum stays in order (use -Ofast); vectorise then has nothing to add
    text = ("input A: f64[16]\ninput B: f64[16]\noutput c: f64\n"
            "for i in 0 .. 16 do {\n    c = c + A[i] * B[i]\n}\n")
    found = remarks(text)
    assert "k.incaq:4:1: remark (missed): [reduce] f64 reduction over i kept in order: use -Ofast " \
           "to reassociate" in found
    assert not any("[vectorise]" in r for r in found), found
