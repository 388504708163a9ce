"""inca.interpreter: the reference INCA NIC model, its API, cost profiles and the inca tool."""
