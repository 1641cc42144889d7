"""## What it does
Flags network access in the suite: importing or calling `requests`, `httpx`, `urllib.request`, `aiohttp`,
`socket`, `http.client` or `urllib3`, and reading data from an `http(s)://` URL.

## Why is this bad?
A score that depends on a remote service changes when the service does, fails when the network is down,
and lets data (or a candidate's answers) leave the sandbox. Campaign sandboxes may have no network at all.

## Example
```python
import requests
labels = requests.get("https://example.com/labels.json").json()
```

Use instead:
```python
labels = json.loads(Path("/srv/holdout/labels.json").read_text())
```

## References
- SPEC §3.2, SPEC §4.3 (sandbox)
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterator

from core.diagnostics import Diagnostic, Severity
from core.rules.evaluator.context import EvaluatorContext

CODE = "EV011"
NAME = "network-access"
SEVERITY = Severity.WARNING
FIX_TITLE = None

NETWORK_MODULES = ("requests", "httpx", "urllib.request", "aiohttp", "socket", "http.client", "urllib3")
URL_READERS = ("read", "load", "open", "urlretrieve", "fetch", "download")


def _network(module: str) -> str | None:
    for root in NETWORK_MODULES:
        if module == root or module.startswith(root + "."):
            return root
    return None


def check(ctx: EvaluatorContext) -> Iterator[Diagnostic]:
    rule = sys.modules[__name__]
    for imp in ctx.imports:
        modules: list[str] = []
        if isinstance(imp, ast.Import):
            modules = [a.name for a in imp.names]
        elif imp.level == 0 and imp.module:
            modules = [imp.module, *(f"{imp.module}.{a.name}" for a in imp.names)]
        hits = {m for m in (_network(x) for x in modules) if m}
        if hits:
            yield ctx.diagnostic(
                rule, imp, f"imports `{sorted(hits)[0]}`: the evaluator should not use the network"
            )
    for call in ctx.calls:
        name = ctx.call_name(call)
        module = _network(name) if name else None
        if module is not None:
            yield ctx.diagnostic(rule, call, f"`{name}()` accesses the network")
            continue
        label = (name or (call.func.attr if isinstance(call.func, ast.Attribute) else "")).rsplit(".", 1)[-1]
        if call.args and any(word in label.lower() for word in URL_READERS):
            url = ctx.string_value(call.args[0])
            if url is not None and url.lower().startswith(("http://", "https://", "ftp://")):
                yield ctx.diagnostic(rule, call, f"`{label}()` reads from the network ({url[:60]})")
