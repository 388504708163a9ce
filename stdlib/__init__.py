"""inca.stdlib: reusable INCA-Q modules (the .incaq files in this folder)."""
