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
# Words in a call's name that say it reads data from its first argument (`pd.read_csv`, `np.loadtxt`,
# `np.genfromtxt`, `np.fromfile`, `open_url`, `Image.open`, `load_dataset`, `get_file`...).
URL_READERS = (
    "read",
    "load",
    "open",
    "retrieve",
    "fetch",
    "download",
    "fromtxt",
    "fromfile",
    "fromregex",
    "from_csv",
    "from_json",
    "from_url",
    "url",
    "get_file",
    "import",
    "scan_",
)
# Keywords that name where any call reads from; PATH_KEYWORDS only count for reader-like calls.
SOURCE_KEYWORDS = frozenset({"url", "uri", "origin", "source_url"})
PATH_KEYWORDS = frozenset({"fname", "path", "filepath_or_buffer", "filename", "file", "io", "source"})
# Calls that mention a URL without reading it (their name can still contain a reader word: `urlparse`).
NOT_READERS = frozenset({"print", "echo", "format", "join", "startswith", "endswith", "split", "replace"})
NOT_READER_PREFIXES = ("urlparse", "urlsplit", "urljoin", "urlencode", "urlunparse", "urlunsplit", "quote")
URL_SCHEMES = ("http://", "https://", "ftp://")


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
        func = call.func
        local = (
            func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
        )
        label = (name or local).rsplit(".", 1)[-1]
        url = _url_argument(ctx, call, label)
        if url is not None:
            yield ctx.diagnostic(rule, call, f"`{label}()` reads from the network ({url[:60]})")


def _url_argument(ctx: EvaluatorContext, call: ast.Call, label: str) -> str | None:
    """The URL a reader-like call is given: its first argument, or a keyword naming where to read from."""
    lower = label.lower()
    if not lower or lower in NOT_READERS or lower.startswith(NOT_READER_PREFIXES):
        return None
    reader = any(word in lower for word in URL_READERS)
    candidates = [call.args[0]] if call.args and reader else []
    candidates += [
        kw.value for kw in call.keywords if kw.arg in SOURCE_KEYWORDS or (reader and kw.arg in PATH_KEYWORDS)
    ]
    for expr in candidates:
        url = ctx.string_value(expr)
        if url is not None and url.lower().startswith(URL_SCHEMES):
            return url
    return None
