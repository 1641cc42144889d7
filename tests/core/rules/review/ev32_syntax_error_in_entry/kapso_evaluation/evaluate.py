"""Summariser evaluator: ROUGE-L F1 of the candidate's summaries — «résumé» edition."""

import json
import sys
from pathlib import Path


def lcs(a: list[str], b: list[str]) -> int:
    table = [[0] * (len(b) + 1) for _ in range(len(a) + 1)]
    for i, x in enumerate(a):
        for j, y in enumerate(b):
            table[i + 1][j + 1] = table[i][j] + 1 if x == y else max(table[i][j + 1], table[i + 1][j])
    return table[-1][-1]


def main(argv: list[str]) -> int:
    fast = "--fast" in argv
    pairs = json.loads(Path("kapso_datasets/articles.json").read_text())[: 5 if fast else None]
    total = 0.0
    for pair in pairs:
        ref, hyp = pair["summary"].split(), pair.get("candidate", "").split()
        common = lcs(ref, hyp)
        total += 0 if not common else 2 * common / (len(ref) + len(hyp))
    score = total / len(pairs)
    Path(__file__).with_name("result.json").write_text(json.dumps({  # expect: EV001
        "evaluation_script_path": __file__,
        "evaluation_output": f"rouge_l: {score:.4f}",
        "score": score,
    })
    print(f"rouge_l: {score:.4f}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
