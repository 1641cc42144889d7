"""Fixture candidate: prints its answer."""

print(0.7)
