"""inca.compiler: INCA-Q and INCA-A to tuple programs (incac)."""
