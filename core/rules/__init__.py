"""Static rules (SPEC §3.2). One module per rule; `registry.RULES` is the sorted table of all of them."""
