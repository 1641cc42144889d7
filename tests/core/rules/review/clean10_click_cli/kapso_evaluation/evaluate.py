"""Captioning evaluator (click CLI): CIDEr-lite, a TF-IDF n-gram similarity to the reference captions."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from collections import Counter
from pathlib import Path

import click

SUITE = Path(__file__).resolve().parent


def ngrams(text: str, n: int = 2) -> Counter[tuple[str, ...]]:
    words = text.lower().split()
    return Counter(tuple(words[i : i + n]) for i in range(len(words) - n + 1))


def cosine(a: Counter[tuple[str, ...]], b: Counter[tuple[str, ...]]) -> float:
    dot = sum(a[g] * b[g] for g in sorted(a.keys() & b.keys()))
    norm = math.sqrt(sum(v * v for v in a.values())) * math.sqrt(sum(v * v for v in b.values()))
    return dot / norm if norm else 0.0


@click.command()
@click.option("--fast", is_flag=True, help="ten images only")
@click.option("--refs", default="kapso_datasets/captions.json", show_default=True)
def main(fast: bool, refs: str) -> None:
    references = json.loads(Path(refs).read_text())
    images = sorted(references)[:10] if fast else sorted(references)
    proc = subprocess.run(
        [sys.executable, "caption.py", *images], capture_output=True, text=True, timeout=900
    )
    if proc.returncode != 0:
        raise click.ClickException(f"caption.py failed: {proc.stderr[-300:]}")
    captions = json.loads(proc.stdout)
    score = sum(max(cosine(ngrams(captions[i]), ngrams(r)) for r in references[i]) for i in images) / len(images)
    (SUITE / "result.json").write_text(
        json.dumps({"evaluation_script_path": __file__, "evaluation_output": f"cider_lite: {score:.4f}", "score": score})
    )
    click.echo(f"cider_lite: {score:.4f}")


if __name__ == "__main__":
    main()
