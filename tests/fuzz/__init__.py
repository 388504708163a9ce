"""A fuzz harness for the tools (incac, inca run, inca report, inca repl).

Not a test module: ``tests/test_fuzz_tools.py`` runs a short campaign in the default suite and
``bench/fuzz_tools.py`` a long one. The pieces:

- :mod:`.seeds`: the valid inputs every mutation starts from, and the scratch folder they run in;
- :mod:`.mutators`: deterministic mutations of text, JSON, REPL scripts and command lines;
- :mod:`.execute`: one input run in-process through the tools' ``main(argv)``, classified;
- :mod:`.campaign`: worker processes with a time and memory bound, counts, findings on disk.

Every input is a pure function of (campaign seed, target, index), so a finding is reproduced by
those three values alone (``bench/fuzz_tools.py --replay TARGET:SEED:INDEX``).
"""
