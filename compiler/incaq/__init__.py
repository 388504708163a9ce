"""INCA-Q, the kernel language: its syntax tree (``ast``) and parser (``parser``)."""
