"""Integrity (SPEC §4): Kapso-compatible fingerprints, the guard, safe materialization.

Submodules: `git` (hardened git), `manifest` (manifest, fingerprint, snapshot), `guard` (IN001–IN011),
`materialize` (trees from git objects, trusted-suite overlay), `hooks` and `gitattr` (IN007/IN011 and IN008 analysis),
`classify` (the path rules they share), `findings`. Nothing is imported here, so `proctor guard` only pays
for what it uses.
"""
