"""The optimiser (-O1, -O2, -Ofast): loop-level passes over the checked AST, then a lowering
that adds vector statements, in-place evaluation and rotated loops. See docs/optimiser.md."""
