"""The GitHub App face of Proctor (SPEC §10): FastAPI webhook receiver and job handlers over `core`.

Not part of this release yet; `proctor-app` says so and exits 2.
"""
