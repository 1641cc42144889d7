"""Start Proctor's language server from the libraries bundled next to this file (bundled/libs).

The extension runs `python -I proctor_lsp.py`: isolated mode keeps the user's site-packages, PYTHONPATH and
working directory off sys.path, so only the bundled lsp_server, core and their dependencies are imported.
The evaluator that `proctor.verify` runs is a separate process and sees none of this.
"""

import os
import sys

LIBS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "libs")

if __name__ == "__main__":
    sys.path.insert(0, LIBS)
    from lsp_server.__main__ import main

    sys.exit(main())
