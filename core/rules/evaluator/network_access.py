"""## What it does
Flags network access in the suite, at the call: `requests`, `httpx`, `urllib.request` (`urlopen`,
`urlretrieve`), `aiohttp`, `socket`, `http.client` or `urllib3`; dataset and model hubs
(`datasets.load_dataset`, `huggingface_hub`, `from_pretrained("org/model")`, `torch.hub`,
torchvision/torchaudio datasets with `download=True`, `keras.datasets`, `tensorflow_datasets`,
`sklearn.datasets.fetch_*`, `kaggle`, `nltk.download`); `pip install`, `git clone`, `curl` or `wget` run
in a subprocess; and reading data from an `http(s)://` URL. Importing a library is not itself access.

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
- README "`proctor check`: static rules" and README "Running candidates safely"
"""

from __future__ import annotations

import ast
import itertools
import sys
from collections.abc import Iterator
from functools import lru_cache

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
    for call, name in zip(ctx.calls, ctx.call_names, strict=True):
        network, downloads = _by_name(name) if name else (None, False)
        if network is not None:
            yield ctx.diagnostic(rule, call, f"`{name}()` accesses the network")
            continue
        through = hub_download(ctx, call, name) if name and downloads else None
        if through is not None:
            yield ctx.diagnostic(rule, call, f"{through}: the evaluator should not use the network")
            continue
        if not call.args and not call.keywords:
            continue  # nothing to read a URL from
        func = call.func
        local = (
            func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
        )
        label = (name or local).rsplit(".", 1)[-1]
        url = _url_argument(ctx, call, label)
        if url is not None:
            yield ctx.diagnostic(rule, call, f"`{label}()` reads from the network ({shorten(url, 60)})")


# Calls that always fetch from a hub or a download server (by qualified-name prefix).
HUB_PREFIXES = (
    "huggingface_hub.",
    "kaggle.",
    "kagglehub.",
    "openml.",
    "gdown.",
    "wget.",
    "torch.hub.",
    "keras.datasets.",
    "tensorflow.keras.datasets.",
    "tensorflow_datasets.load",
    "tensorflow_datasets.builder",
    "sklearn.datasets.fetch_",
    "nltk.download",
    "spacy.cli.download",
    "gensim.downloader.",
    "keras.utils.get_file",
    "tensorflow.keras.utils.get_file",
)
DOWNLOADING_DATASETS = ("torchvision.datasets.", "torchaudio.datasets.", "torchtext.datasets.")
# `datasets.load_dataset` builders that read local files (`load_dataset("csv", data_files=...)`).
LOCAL_BUILDERS = frozenset(
    {"csv", "json", "parquet", "text", "arrow", "pandas", "imagefolder", "audiofolder", "webdataset", "sql"}
)
SUBPROCESS_CALLS = frozenset(
    {
        "subprocess.run",
        "subprocess.call",
        "subprocess.check_call",
        "subprocess.check_output",
        "subprocess.Popen",
        "os.system",
        "os.popen",
    }
)


@lru_cache(maxsize=4096)
def _by_name(name: str) -> tuple[str | None, bool]:
    """(the network module `name` belongs to, whether `hub_download` can find a download in a call to
    it): decided once per name, most calls are to names that are neither."""
    downloads = (
        name.startswith(HUB_PREFIXES)
        or name.startswith(DOWNLOADING_DATASETS)
        or name == "datasets.load_dataset"
        or name.endswith(".from_pretrained")
        or name in SUBPROCESS_CALLS
    )
    return _network(name), downloads


def hub_download(ctx: EvaluatorContext, call: ast.Call, name: str) -> str | None:
    """What a library call downloads from, or None when it is not a download."""
    if name.startswith(HUB_PREFIXES):
        return f"`{name}()` downloads from a remote hub or server"
    if name.startswith(DOWNLOADING_DATASETS):
        download = next((kw.value for kw in call.keywords if kw.arg == "download"), None)
        if isinstance(download, ast.Constant) and download.value is True:
            return f"`{name}(download=True)` downloads the dataset"
        return None
    if name == "datasets.load_dataset":
        source = ctx.string_value(call.args[0]) if call.args else None
        if source is not None and (source in LOCAL_BUILDERS or source.startswith((".", "/"))):
            return None
        return f"`datasets.load_dataset({source!r})` downloads from the Hugging Face Hub"
    if name.endswith(".from_pretrained"):
        return _from_pretrained(ctx, call, name)
    if name in SUBPROCESS_CALLS:
        return _networked_command(ctx, call)
    return None


def _from_pretrained(ctx: EvaluatorContext, call: ast.Call, name: str) -> str | None:
    if any(kw.arg == "local_files_only" for kw in call.keywords):
        return None
    source = ctx.string_value(call.args[0]) if call.args else None
    if source is None or source.startswith((".", "/", "~")):
        return None
    can_look = ctx.lint.workspace is not None or ctx.lint.exists is not None
    if can_look and ctx.lint.path_exists(source):
        return None  # a model directory in the workspace
    return f"`{name.rsplit('.', 2)[-2]}.from_pretrained({source!r})` downloads from the Hugging Face Hub"


def _command_words(ctx: EvaluatorContext, call: ast.Call) -> list[str]:
    if not call.args:
        return []
    first = call.args[0]
    if isinstance(first, ast.List | ast.Tuple):
        return [w for w in (ctx.string_value(e) for e in first.elts) if w is not None]
    text = ctx.string_value(first)
    return text.split() if text is not None else []


def _networked_command(ctx: EvaluatorContext, call: ast.Call) -> str | None:
    words = [w.rsplit("/", 1)[-1] for w in _command_words(ctx, call)]
    pairs = set(itertools.pairwise(words))
    if ("pip", "install") in pairs or ("pip3", "install") in pairs:
        return "`pip install` in a subprocess downloads packages"
    if ("git", "clone") in pairs or ("git", "fetch") in pairs or ("git", "pull") in pairs:
        return "`git clone` in a subprocess fetches over the network"
    for tool in ("curl", "wget", "huggingface-cli", "kaggle"):
        if tool in words:
            return f"`{tool}` in a subprocess uses the network"
    return None


def shorten(text: str, width: int) -> str:
    """`text`, or its first `width` characters cut at a separator (never mid-word) and marked with `…`."""
    if len(text) <= width:
        return text
    cut = max(text.rfind(sep, 0, width) for sep in "/?&=_-. ")
    return text[: cut if cut > width // 2 else width] + "…"


def _url_argument(ctx: EvaluatorContext, call: ast.Call, label: str) -> str | None:
    """The URL a reader-like call is given: its first argument, or a keyword naming where to read from."""
    if not call.args and not call.keywords:
        return None
    reader = _reader(label)
    if reader is None or (not reader and not call.keywords):
        return None
    candidates = [call.args[0]] if call.args and reader else []
    candidates += [
        kw.value for kw in call.keywords if kw.arg in SOURCE_KEYWORDS or (reader and kw.arg in PATH_KEYWORDS)
    ]
    for expr in candidates:
        url = ctx.string_value(expr)
        if url is not None and url.lower().startswith(URL_SCHEMES):
            return url
    return None


@lru_cache(maxsize=4096)
def _reader(label: str) -> bool | None:
    """Whether a call of this name reads from its first argument; None when it never reads a URL (labels
    repeat: `len`, `float`, `get`... are decided once)."""
    lower = label.lower()
    if not lower or lower in NOT_READERS or lower.startswith(NOT_READER_PREFIXES):
        return None
    return any(word in lower for word in URL_READERS)
