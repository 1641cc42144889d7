"""Table QA evaluator (typer CLI): denotation accuracy; a percentage is a valid score (`acc: 87.50%`)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import typer

SUITE = Path(__file__).resolve().parent
app = typer.Typer(add_completion=False)


def make_record(line: str, accuracy: float) -> dict[str, object]:
    return {"evaluation_script_path": str(SUITE / "evaluate.py"), "evaluation_output": line, "score": accuracy}


@app.command()
def evaluate(fast: bool = typer.Option(False, "--fast", help="25 questions only")) -> None:
    questions = json.loads(Path("kapso_datasets/table_questions.json").read_text())
    questions = questions[:25] if fast else questions
    proc = subprocess.run(
        [sys.executable, "table_qa.py"], input=json.dumps(questions), capture_output=True, text=True
    )
    if proc.returncode != 0:
        typer.echo(f"table_qa.py failed: {proc.stderr}", err=True)
        raise typer.Exit(code=1)
    answers = json.loads(proc.stdout)
    accuracy = sum(a == q["answer"] for a, q in zip(answers, questions)) / len(questions)
    line = f"acc: {accuracy:.2%}"
    (SUITE / "result.json").write_text(json.dumps(make_record(line, accuracy)))
    print(line)
    print(f"{len(questions)} questions scored", file=sys.stderr)


if __name__ == "__main__":
    app()
