"""The protocol's fields found in its text (data, split, seed, metric, direction, print format), and the
workspace paths a brief names."""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

from core.brief.markdown import ProtocolText, find_protocol_lines, read_sections, visible_lines
from core.brief.metric_names import METRIC_WORDS
from core.brief.model import Field, Protocol
from core.brief.vocabulary import (
    BACKTICKED,
    DATA_EXTENSIONS,
    DATA_KV,
    DATASET_NAME,
    DIRECTION,
    DIRECTION_KV,
    FILL_IN,
    FIXED_SPLIT_FILE,
    KEYS,
    LEAD_IDENTIFIER,
    LEAD_PHRASE,
    NOT_DATA_SEGMENTS,
    PATH_TOKEN,
    PINNED_SHARD,
    PLACEHOLDER,
    PRINT_AFTER_VERB,
    PRINT_PLACEHOLDER,
    PRINT_QUOTED,
    RATIO,
    RATIO_DASH,
    SEED,
    SEED_AFTER,
    SPLIT_OTHER,
    TOKEN,
    ratios,
)
from core.diagnostics import Position, Range


def _earliest(candidates: Iterator[tuple[int, int]]) -> tuple[int, int] | None:
    best: tuple[int, int] | None = None
    for start, end in candidates:
        if best is None or start < best[0] or (start == best[0] and end > best[1]):
            best = (start, end)
    return best


def _overlaps(start: int, end: int, spans: Sequence[tuple[int, int]]) -> bool:
    return any(start < s_end and s_start < end for s_start, s_end in spans)


def _find_print_format(text: str) -> tuple[str, int, int, int, int] | None:
    """(value, start, end, name_start, name_end) of the earliest `name: value` print shape."""
    best: tuple[str, int, int, int, int] | None = None
    for pattern in (PRINT_QUOTED, PRINT_AFTER_VERB, PRINT_PLACEHOLDER):
        for match in pattern.finditer(text):
            name = match.group("name")
            if re.fullmatch(KEYS, name, re.IGNORECASE):
                continue
            value = f"{name}: {match.group('value')}"
            start = match.start("name")
            candidate = (value, start, match.end("value"), start, match.end("name"))
            if best is None or start < best[1]:
                best = candidate
            break
    return best


def _is_path_like(token: str, quoted: bool) -> bool:
    if PLACEHOLDER.match(token) or re.fullmatch(r"[\d./%:-]+", token):
        return False
    if "://" in token:
        return True
    segments = [s for s in token.split("/") if s]
    if "/" in token:
        if not segments or all(s.lower() in NOT_DATA_SEGMENTS or METRIC_WORDS.fullmatch(s) for s in segments):
            return False
        if quoted or token.endswith("/") or token.startswith((".", "~")):
            return True
        last = segments[-1]
        return bool(
            re.search(r"\.[A-Za-z0-9]{1,10}$", last)
            or "_" in segments[0]
            or "data" in segments[0].lower()
            or len(segments) >= 3
        )
    extension = token.rsplit(".", 1)[-1].lower() if "." in token else ""
    return extension in DATA_EXTENSIONS and bool(re.match(r"[\w\-]", token))


_Found = tuple[str, int, int]  # (value, start, end) in the text


def _find_data(text: str, avoid: Sequence[tuple[int, int]]) -> _Found | None:
    """The data the protocol names, by the strongest clue first: `data: X`, a backticked path with spaces,
    a path-like token, then a dataset's name."""
    for finder in (_data_key_value, _backticked_path, _path_token, _dataset_name):
        found = finder(text, avoid)
        if found is not None:
            return found
    return None


def _data_key_value(text: str, avoid: Sequence[tuple[int, int]]) -> _Found | None:
    for match in DATA_KV.finditer(text):
        value = match.group("value").rstrip(".:!?")
        if value and not PLACEHOLDER.match(value):
            return value, match.start("value"), match.start("value") + len(value)
    return None


def _backticked_path(text: str, avoid: Sequence[tuple[int, int]]) -> _Found | None:
    """`kapso_datasets/my data.csv`: spaces kept."""
    for match in BACKTICKED.finditer(text):
        value = match.group(1)
        if " " not in value.strip() or "/" not in value or "<" in value or ":" in value:
            continue
        if not _overlaps(match.start(1), match.end(1), avoid) and _is_path_like(
            value.replace(" ", "_"), True
        ):
            return value, match.start(1), match.end(1)
    return None


def _path_token(text: str, avoid: Sequence[tuple[int, int]]) -> _Found | None:
    for match in TOKEN.finditer(text):
        if _overlaps(match.start(), match.end(), avoid):
            continue
        token = match.group(0).rstrip(".:!?")
        quoted = match.start() > 0 and text[match.start() - 1] in "`'\""
        if token and _is_path_like(token, quoted):
            return token, match.start(), match.start() + len(token)
    return None


def _dataset_name(text: str, avoid: Sequence[tuple[int, int]]) -> _Found | None:
    """A dataset named in words, unless the words are a metric, a split part or start with a/this/each."""
    for match in DATASET_NAME.finditer(text):
        group = next(g for g in ("name", "name2", "name3") if match.group(g))
        name = match.group(group)
        if _overlaps(match.start(group), match.end(group), avoid) or PLACEHOLDER.match(name):
            continue
        words = name.lower().split()
        if METRIC_WORDS.fullmatch(name) or (words and words[-1] in NOT_DATA_SEGMENTS | {"held-out", "cv"}):
            continue
        if words and words[0] in {"a", "an", "this", "that", "each", "every", "our"}:
            continue
        return name, match.start(group), match.end(group)
    return None


def placeholder_for(protocol: Protocol, field_name: str) -> str | None:
    """The unfilled `<field_name: ...>` blank in the protocol, or None."""
    return next((p for p in protocol.placeholders if p[1:].lower().startswith(field_name)), None)


def _find_fixed_split(text: str) -> tuple[int, int] | None:
    """A split fixed in advance: a pre-split file named as the test/dev/answer part, or a pinned shard."""
    found = FIXED_SPLIT_FILE.search(text) or PINNED_SHARD.search(text)
    return found.span() if found else None


def _find_split(text: str, avoid: Sequence[tuple[int, int]]) -> tuple[int, int] | None:
    def candidates() -> Iterator[tuple[int, int]]:
        for match in RATIO.finditer(text):
            if ratios(match.group("ratio")) is not None and not _overlaps(match.start(), match.end(), avoid):
                yield match.start(), match.end()
        for match in RATIO_DASH.finditer(text):
            parts = re.split(r"[-:–]", match.group("ratio"))
            if abs(sum(float(p) for p in parts) - 100) <= 0.5 and not _overlaps(
                match.start(), match.end(), avoid
            ):
                yield match.start(), match.end()
        for match in SPLIT_OTHER.finditer(text):
            if not _overlaps(match.start(), match.end(), avoid):
                yield match.start(), match.end()

    found = _earliest(candidates())
    if found is None:
        return None
    start, end = found
    while start < end and text[start] in " \t":
        start += 1
    lead = re.match(r"(?:the|a|an|our|its)\s+", text[start:end], re.IGNORECASE)
    if lead:
        start += lead.end()
    return start, end


def _find_metric(text: str, avoid: Sequence[tuple[int, int]]) -> tuple[str, int, int] | None:
    kv = re.search(
        r"\bmetric\s*[:=]\s*[`'\"]?(?P<value>[A-Za-z_][\w.@\-]*(?:[ \t]+[A-Za-z_][\w@\-]*){0,2})", text, re.I
    )
    if kv:
        value = kv.group("value")
        head = METRIC_WORDS.match(value)
        value = head.group(0) if head else value.split()[0]
        if not PLACEHOLDER.match(value):
            return value, kv.start("value"), kv.start("value") + len(value)
    for match in METRIC_WORDS.finditer(text):
        if not _overlaps(match.start(), match.end(), avoid):
            return match.group(0), match.start(), match.end()
    for pattern in (LEAD_IDENTIFIER, LEAD_PHRASE):
        lead = pattern.match(text)
        if lead is None:
            continue
        group = "quoted" if lead.groupdict().get("quoted") else "value"
        if not _overlaps(lead.start(group), lead.end(group), avoid):
            return lead.group(group), lead.start(group), lead.end(group)
    return None


def parse_protocol(lines: Sequence[str], fenced: set[int]) -> Protocol | None:
    found = find_protocol_lines(lines, fenced)
    if found is None:
        return None
    number, match, segments = found
    label_start = match.start("label")
    label_text = match.group("label").rstrip()
    label_range = Range.of(number, label_start, number, label_start + len(label_text))
    if not segments:
        end = label_range.end
        return Protocol(
            Range(label_range.start, end), label_range, "", None, None, None, None, None, None, None, end
        )
    body = ProtocolText(segments)
    text = body.text

    printed = _find_print_format(text)
    print_field = body.field(printed[0], printed[1], printed[2]) if printed else None
    print_name_range = body.range(printed[3], printed[4]) if printed else None
    avoid: list[tuple[int, int]] = [(printed[1], printed[2])] if printed else []

    # A blank left by a fix (`<split: e.g. 80/20, ...>`) states nothing: read the text without it.
    blanks = [m for m in FILL_IN.finditer(text) if not _overlaps(m.start(), m.end(), avoid)]
    placeholders = tuple(m.group(0) for m in blanks)
    written = text
    for m in blanks:
        text = text[: m.start()] + " " * (m.end() - m.start()) + text[m.end() :]

    data = _find_data(text, avoid)
    data_field = body.field(data[0], data[1], data[2]) if data else None
    if data:
        avoid.append((data[1], data[2]))

    split = _find_split(text, avoid) or _find_fixed_split(text)
    split_field = body.field(text[split[0] : split[1]].strip(), split[0], split[1]) if split else None
    if split:
        avoid.append(split)

    seed_field: Field | None = None
    seed_match = SEED.search(text) or SEED_AFTER.search(text)
    if seed_match:
        seed_field = body.field(seed_match.group("n"), seed_match.start(), seed_match.end())
        avoid.append((seed_match.start(), seed_match.end()))

    direction_field: Field | None = None
    direction_kv = DIRECTION_KV.search(text)
    direction_match = direction_kv or DIRECTION.search(text)
    if direction_match is not None:
        if direction_kv is not None:
            maximize = direction_kv.group("value").lower().startswith("max")
        else:
            maximize = bool(direction_match.group("max"))
        direction_field = body.field(
            "maximize" if maximize else "minimize", direction_match.start(), direction_match.end()
        )
        avoid.append(direction_match.span())

    metric = _find_metric(text, avoid)
    metric_field = body.field(metric[0], metric[1], metric[2]) if metric else None

    last_line, last_col, last_chunk = segments[-1]
    trimmed = re.sub(r"(?:[.。]|\*\*|__)+\s*$", "", last_chunk).rstrip()
    append_at = Position(last_line, last_col + len(trimmed))
    whole = Range(label_range.start, Position(last_line, last_col + len(last_chunk)))
    return Protocol(
        whole,
        label_range,
        written,
        data_field,
        split_field,
        seed_field,
        metric_field,
        direction_field,
        print_field,
        print_name_range,
        append_at,
        placeholders,
    )


def workspace_paths(text: str, roots: Sequence[str], extra: Sequence[Range] = ()) -> list[Field]:
    """Workspace-relative paths the brief names, outside code fences and HTML comments (for BR007).

    A path counts when its first segment is one of `roots` (the data and suite directories), when it is
    back-quoted in a `Data` section, or when `extra` ranges (the protocol's data) cover it. URLs, absolute
    paths, `..` paths, globs and `<placeholders>` are not workspace paths.
    """
    lines, fenced = visible_lines(text)
    root_set = {r.strip("/") for r in roots if r.strip("/")}
    data_lines: set[int] = set()
    for section in read_sections(lines, fenced):
        if section.title.lower().startswith("data"):
            data_lines.update(range(section.range.start.line, section.range.end.line + 1))
    found: dict[tuple[int, int], Field] = {}
    for number, line in enumerate(lines):
        if number in fenced:
            continue
        for match in PATH_TOKEN.finditer(line):
            token = match.group(0).rstrip(".:!?")
            start = match.start()
            if token.startswith("<") and token.endswith(">"):  # a Markdown autolink <path>
                token, start = token[1:-1], start + 1
            if "<" in token or ">" in token:  # a placeholder such as kapso_datasets/<file>
                continue
            quoted = start > 0 and line[start - 1] == "`"
            if not _is_workspace_path(token):
                continue
            first = token.split("/", 1)[0]
            named = first in root_set and "/" in token
            in_data = number in data_lines and quoted and _is_path_like(token, quoted=False)
            covered = _is_path_like(token, quoted) and any(
                r.start.line == number
                and r.start.character <= start
                and start + len(token) <= r.end.character
                for r in extra
            )
            if named or in_data or covered:
                found[(number, start)] = Field(token, Range.of(number, start, number, start + len(token)))
    return [found[key] for key in sorted(found)]


def _is_workspace_path(token: str) -> bool:
    if (
        not token
        or "://" in token
        or token.startswith(("/", "~", "..", "$"))
        or any(c in token for c in "*?")
    ):
        return False
    return not PLACEHOLDER.match(token) and not re.fullmatch(r"[\d./%:-]+", token)
