"""The words and shapes a `Measured by` protocol states its fields with: print formats, directions, seeds,
splits (ratios, k-fold, named and fixed ones), data paths and dataset names, placeholders. Data tables and
patterns only (compiled on first use); `core.brief.fields` finds them in a protocol."""

from __future__ import annotations

import re

from core.patterns import LazyPattern

KEYS = r"(?:data(?:set)?|data[ \t]+file|input|split|seed|random[_ \t]state|metric|direction|goal|rules)"


_VALUE = (
    r"(?:<[^<>\n]{1,40}>|\{[^{}\n]{1,40}\}|[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?%?"
    r"|[0XxN#](?:\.[0-9Xx#N]+)|value|float|number|score|\.\.\.|…)"
)
_NAME = r"[A-Za-z_][A-Za-z0-9_.\-]*"
PRINT_QUOTED = LazyPattern(rf"[`\"'“](?P<name>{_NAME})[ \t]*:[ \t]*(?P<value>{_VALUE})[ \t]*[`\"'”]")
PRINT_AFTER_VERB = LazyPattern(
    r"\b(?:printed|prints?|printing|reported|reports?|emitted|emits?|outputs?|logged|written|shown|displayed)"
    r"(?:[ \t]+(?:as|like))?(?:[ \t]+(?:the|a))?(?:[ \t]+(?:last|final))?(?:[ \t]+line)?[ \t]*:?[ \t]*"
    rf"(?P<name>{_NAME})[ \t]*:[ \t]*(?P<value>{_VALUE})",
    re.IGNORECASE,
)
PRINT_PLACEHOLDER = LazyPattern(
    rf"(?<![\w`])(?P<name>{_NAME})[ \t]*:[ \t]*(?P<value><[^<>\n]{{1,40}}>|\{{[^{{}}\n]{{1,40}}\}})"
)

DIRECTION = LazyPattern(
    r"(?P<max>\b(?:higher|larger|bigger|greater|more)(?:[ \t]+(?:values?|scores?|numbers?))?"
    r"(?:[ \t]+(?:is|are|means)|[ \t]*[=-]|[ \t]*-is-)?[ \t]*better\b|\bthe[ \t]+higher[ \t]+the[ \t]+better\b"
    r"|\bmaximi[sz](?:e|ed|es|ing)\b|\bas[ \t]+high[ \t]+as[ \t]+possible\b)"
    r"|(?P<min>\b(?:lower|smaller|less|fewer)(?:[ \t]+(?:values?|scores?|numbers?))?"
    r"(?:[ \t]+(?:is|are|means)|[ \t]*[=-]|[ \t]*-is-)?[ \t]*better\b|\bthe[ \t]+lower[ \t]+the[ \t]+better\b"
    r"|\bminimi[sz](?:e|ed|es|ing)\b|\bas[ \t]+low[ \t]+as[ \t]+possible\b)",
    re.IGNORECASE,
)
DIRECTION_KV = LazyPattern(
    r"\bdirection\s*[:=]\s*[`'\"]?(?P<value>max(?:imi[sz]e)?|min(?:imi[sz]e)?)\b", re.I
)

SEED = LazyPattern(
    r"\b(?:random[\s_-]?seed|random[\s_-]?state|rng[\s_-]?seed|seed(?:ed|s)?)\b[`'\"]?"
    r"(?:\s*(?:=|:|is|of|to|at|with|set\s+to|fixed\s+(?:at|to)|fixed\s+as)?\s*)[`'\"]?(?P<n>\d+)\b",
    re.IGNORECASE,
)
SEED_AFTER = LazyPattern(r"\b(?P<n>\d+)\s+as\s+(?:the\s+)?(?:random\s+)?seed\b", re.IGNORECASE)

_SPLIT_WORDS = r"(?:stratified|random(?:ly)?|shuffled|grouped|temporal|time-based|chronological|fixed)"
RATIO_CORE = LazyPattern(
    r"(?<![\w./])\d{1,2}(?:\.\d+)?%?[ \t]*/[ \t]*\d{1,2}(?:\.\d+)?%?(?:[ \t]*/[ \t]*\d{1,2}(?:\.\d+)?%?)?(?![\w/])"
    r"|(?<![\w./])0?\.\d+[ \t]*/[ \t]*0?\.\d+(?:[ \t]*/[ \t]*0?\.\d+)?(?![\w/])"
)
RATIO = LazyPattern(
    rf"(?:{_SPLIT_WORDS}[ \t]+)*(?P<ratio>{RATIO_CORE.pattern})"
    rf"(?:[ \t]+(?:{_SPLIT_WORDS}|train[/-]test|train[/-]val(?:idation)?(?:[/-]test)?))*"
    r"(?:[ \t]+(?:split|partition|hold[\s-]?out))?",
    re.IGNORECASE,
)
RATIO_DASH = LazyPattern(
    rf"(?:{_SPLIT_WORDS}[ \t]+)*(?P<ratio>(?<![\w.])\d{{1,2}}[ \t]*[-:–][ \t]*\d{{1,2}}(?![\w]))"
    rf"(?:[ \t]+{_SPLIT_WORDS})*[ \t]+(?:train[/-]test[ \t]+)?split",
    re.IGNORECASE,
)
SPLIT_OTHER = LazyPattern(
    r"\b(?:(?:stratified|grouped|group|repeated|nested|time[\s-]series)\s+)?(?:\d+|k|three|five|ten)[\s-]?folds?"
    r"(?:\s+(?:stratified\s+)?(?:cross[\s-]?validation|cv))?\b"
    r"|\b(?:stratified\s+)?cross[\s-]?validation\b|\bleave[\s-]one[\s-]out\b|\bloocv\b"
    r"|\b\d{1,2}(?:\.\d+)?\s*%\s+(?:of\s+(?:the\s+)?(?:rows|data|samples|examples|records)\s+)?"
    r"(?:held[\s-]out|hold[\s-]?out|as\s+(?:a\s+|the\s+)?(?:test|validation|hold[\s-]?out)(?:\s+set)?"
    r"|test(?:\s+set)?|validation(?:\s+set)?)"
    r"|\btest_size\s*=\s*0?\.\d+"
    r"|\btrain\s*/\s*(?:val(?:idation)?\s*/\s*)?test\b|\btrain\s*/\s*val(?:idation)?\b"
    r"|\b(?:(?:the|a|an|our|its)\s+)?(?:(?:stratified|random|fixed|official|provided|public|private|same)\s+)?"
    r"(?:(?:hold[\s-]?out|held[\s-]out)\s+)?"
    r"(?:hold[\s-]?out|held[\s-]out|validation|val|dev(?:elopment)?|test(?:ing)?|evaluation|eval)"
    r"\s+(?:set|split|fold|partition|data|rows)\b"
    r"|\b(?:time[\s-]based|temporal|chronological|out[\s-]of[\s-]time|random|stratified|group(?:ed)?)\s+split\b"
    r"|\bsplit\s+by\s+(?:date|time|user|group|customer|patient|session)\b"
    r"|\bsplit\s*[:=]\s*[`'\"]?(?:train|test|val(?:idation)?|dev|hold[\s-]?out)\b",
    re.IGNORECASE,
)

DATA_KV = LazyPattern(
    r"\b(?:data(?:set)?|data\s+file|input)\s*[:=]\s*[`'\"]?(?P<value>[^\s`'\",;()<>]+)", re.IGNORECASE
)
TOKEN = LazyPattern(r"[^\s`'\"()\[\],;<>{}|*]+")
DATA_EXTENSIONS = frozenset(
    {
        "csv",
        "tsv",
        "parquet",
        "pq",
        "json",
        "jsonl",
        "ndjson",
        "npz",
        "npy",
        "feather",
        "arrow",
        "h5",
        "hdf5",
        "pkl",
        "pickle",
        "txt",
        "xlsx",
        "xls",
        "zip",
        "gz",
        "bz2",
        "xz",
        "tar",
        "db",
        "sqlite",
        "sqlite3",
        "avro",
        "orc",
        "tfrecord",
        "tfrecords",
        "jpg",
        "jpeg",
        "png",
        "wav",
        "mp3",
        "pt",
        "safetensors",
    }
)
NOT_DATA_SEGMENTS = frozenset(
    {
        "train",
        "test",
        "val",
        "valid",
        "validation",
        "dev",
        "holdout",
        "hold-out",
        "and",
        "or",
        "higher",
        "lower",
        "better",
        "worse",
        "true",
        "false",
        "yes",
        "no",
        "input",
        "output",
        "in",
        "out",
        "min",
        "max",
        "it",
        "he",
        "she",
        "they",
        "read",
        "write",
        "pass",
        "fail",
    }
)
DATASET_NAME = LazyPattern(
    r"\b(?:on|using|over|from|with|against)\s+(?:the\s+)?(?P<name>[\w.\-]+(?:\s+[\w.\-]+){0,3}?)\s+"
    r"(?:dataset|data\s+set|corpus|benchmark)\b"
    r"|\b(?:dataset|corpus|benchmark)\s+[`'\"]?(?P<name2>[\w.\-]+)"
    r"|\bon\s+(?:the\s+)?(?P<name3>[A-Z][A-Za-z]*[A-Z0-9][\w\-]*)",
)
PLACEHOLDER = LazyPattern(r"^(?:<[^<>]*>|\{[^{}]*\}|todo|tbd|\?+|\.\.\.|…|x+)$", re.IGNORECASE)


BACKTICKED = LazyPattern(r"`([^`\n]+)`")


# A blank to fill in: `<split: e.g. 80/20, or the file that holds the test set>`, `<seed: ...>`.
FILL_IN = LazyPattern(r"<(?:split|seed|direction|data|metric)\b[^<>\n]*>", re.IGNORECASE)


RANDOM_SPLIT = LazyPattern(
    r"random|stratif|shuffl|fold|cross[\s-]?valid|\bcv\b|leave[\s-]one|bootstrap|test_size|%", re.IGNORECASE
)
# A file or directory that is itself the held-out part: `kapso_datasets/test.csv`, `answers.jsonl`, `dev/`.
FIXED_SPLIT_FILE = LazyPattern(
    r"(?<![\w.\-])(?:[\w.\-]+/)*(?:[\w\-]*[_\-.])?(?:test|testing|answers?|dev|val|valid|validation|holdout"
    r"|hold[_\-]out|heldout|eval|evaluation|gold|private|public)(?:[_\-.][\w\-]*)?"
    r"(?:\.(?:csv|tsv|jsonl?|parquet|txt|npy|npz|pkl|feather|arrow|conllu?|xml|zip|gz)|/)(?![\w/])",
    re.IGNORECASE,
)
PINNED_SHARD = LazyPattern(r"\b(?:shard|partition|split)\s*[#=:]?\s*[`'\"]?[\w\-]*\d[\w\-]*|\bpinned\b", re.I)


# A metric with no well-known name, right after "Measured by": an identifier (`churn_auc`, `pass@1`, a
# back-quoted name) or a short phrase ending in a measurement word ("churn score", "ranking quality score").
LEAD_IDENTIFIER = LazyPattern(
    r"\s*(?:the\s+)?(?:`(?P<quoted>[A-Za-z_][\w.@\-]*)`|(?P<value>[A-Za-z_][\w.]*(?:[_@][\w.]+)+))"
)
LEAD_PHRASE = LazyPattern(
    r"\s*(?:the\s+|a\s+|an\s+|its\s+|our\s+)?(?P<value>(?:[A-Za-z][\w\-]*\s+){0,3}"
    r"(?:score|rate|error|loss|accuracy|precision|recall|ratio|reward|correlation|distance|similarity|gain))\b",
    re.IGNORECASE,
)


PATH_TOKEN = LazyPattern(r"[^\s`'\"()\[\]{},;|]+")


def ratios(text: str) -> tuple[float, ...] | None:
    parts = [p.strip().rstrip("%") for p in text.split("/")]
    try:
        values = [float(p) for p in parts]
    except ValueError:
        return None
    total = sum(values)
    if abs(total - 100) <= 0.5:
        return tuple(round(v / 100, 6) for v in values)
    if abs(total - 1) <= 0.005:
        return tuple(values)
    return None
