"""`proctor-app` / `python -m github_app`."""

from __future__ import annotations

import sys


def main() -> int:
    print("proctor-app: the GitHub App is not included in this release of Proctor", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
