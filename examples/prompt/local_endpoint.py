"""A scripted, offline OpenAI-compatible endpoint for the prompt example: teacher, task model and judge in one.

Nothing here is a language model. Every answer is a deterministic function of the request, written so that the
example behaves like a real prompt campaign in miniature:

- the **task model** (`response_format` name `task_output`, or any other request) follows the instruction in
  the system message literally: the more specific the instruction, the tighter the summary. It counts how many
  of four cues the prompt gives ("ticket", "one sentence", "problem", "leave out") and answers with the whole
  ticket, its first two sentences, its first sentence, that sentence without the greeting, or only its first
  clause;
- the **judge** (`judge_verdict`) scores the candidate output against the reference: accuracy = share of the
  output's words found in the reference, completeness = share of the reference's words found in the output,
  conciseness = reference length / output length (capped at 1), overall = their mean;
- the **teacher** (`prompt_rewrites`) climbs a fixed ladder of ever more specific prompts: it proposes the next
  rungs above the current prompt, skipping any it already proposed.

So a rewrite with a more specific instruction scores higher, as it would with a capable model.

    python examples/prompt/local_endpoint.py [--host 127.0.0.1] [--port 8765]

serves until Ctrl-C; `LocalEndpoint()` does the same in a background thread (`run_demo.py`, the tests).
Usage is reported at about four characters a token, so a priced `[judge]` config is charged as it would be.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import threading
import time
from collections.abc import Mapping, Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

DEFAULT_PORT = 8765

# The teacher's ladder: each rung adds one cue the task model follows.
LADDER = (
    "Summarize the following text.",
    "Summarize the following support ticket.",
    "Summarize the support ticket in one sentence.",
    "Summarize the support ticket in one sentence that states the customer's problem.",
    "Summarize the support ticket in one sentence that states the customer's problem; leave out greetings, "
    "history, requests and side details.",
    "Summarize the support ticket in one sentence that states the customer's problem in plain words; leave out "
    "greetings, history, requests and side details.",
    "You triage support tickets. Summarize the ticket in one sentence that states the customer's problem; "
    "leave out greetings, history, requests and side details.",
)
CUES = ("ticket", "one sentence", "problem", "leave out")
GREETINGS = ("hi", "hello", "dear", "hey")
_WORDS = re.compile(r"[a-z0-9]+")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")


# ------------------------------------------------------------------------------------------------ task model


def specificity(prompt: str) -> int:
    """How many of the cues the prompt gives (0-4): what the scripted task model follows."""
    lowered = prompt.lower()
    return sum(1 for cue in CUES if cue in lowered)


def summarize(prompt: str, ticket: str) -> str:
    """The scripted task model's answer: tighter with every cue the prompt gives."""
    level = specificity(prompt)
    sentences = [s.strip() for s in _SENTENCE_END.split(ticket.strip()) if s.strip()]
    if not sentences:
        return ticket.strip()
    if level == 0:
        return " ".join(sentences)
    if level == 1:
        return " ".join(sentences[:2])
    first = sentences[0]
    if level == 2:
        return first
    head, _, rest = first.partition(", ")
    if rest and head.split() and head.split()[0].lower() in GREETINGS:
        first = rest[:1].upper() + rest[1:]
    if level == 3:
        return first
    clause = first.split(", ")[0].rstrip(".!?")
    return clause + "."


# ------------------------------------------------------------------------------------------------ judge


def _words(text: str) -> list[str]:
    return _WORDS.findall(text.lower())


def _block(text: str, tag: str) -> str | None:
    match = re.search(rf"<{tag}>\n(.*?)\n</{tag}>", text, re.DOTALL)
    return match.group(1) if match else None


def _scale(text: str) -> tuple[float, float]:
    match = re.search(r"on a scale of (0-1|1-5|0-10)", text)
    name = match.group(1) if match else "0-1"
    return {"0-1": (0.0, 1.0), "1-5": (1.0, 5.0), "0-10": (0.0, 10.0)}[name]


def _criteria(text: str) -> list[str]:
    match = re.search(r"for each of these criteria:\n((?:- .*\n?)+)", text)
    if match is None:
        return ["accuracy", "completeness", "conciseness"]
    return [line[2:].strip() for line in match.group(1).splitlines() if line.startswith("- ")]


def quality(output: str, reference: str) -> dict[str, float]:
    """The scripted judge's view of one output, each in [0, 1]."""
    out, ref = _words(output), _words(reference)
    if not out or not ref:
        return {"accuracy": 0.0, "completeness": 0.0, "conciseness": 0.0}
    shared = set(out) & set(ref)
    return {
        "accuracy": len(shared) / len(set(out)),
        "completeness": len(shared) / len(set(ref)),
        "conciseness": min(1.0, len(ref) / len(out)),
    }


def judge(text: str) -> str:
    """A verdict in the requested shape: reasoning first, each requested criterion, overall, on the scale."""
    output = _block(text, "candidate_output") or ""
    reference = _block(text, "reference_answer") or _block(text, "input") or ""
    low, high = _scale(text)
    seen = quality(output, reference)
    overall = sum(seen.values()) / len(seen)
    whole = high > 1.0  # the 1-5 and 0-10 scales take whole numbers

    def on_scale(unit: float) -> float:
        value = low + unit * (high - low)
        return float(round(value)) if whole else round(value, 2)

    scores = {name: on_scale(seen.get(name.lower(), overall)) for name in _criteria(text)}
    reasoning = (
        f"The output has {len(_words(output))} words against the reference's {len(_words(reference))}; "
        f"{seen['completeness']:.0%} of the reference's words are covered and {seen['accuracy']:.0%} of the "
        "output's words are on point."
    )
    return json.dumps({"reasoning": reasoning, "scores": scores, "overall": on_scale(overall)})


def compare(text: str) -> str:
    """A pairwise verdict: the output closer to the reference (or the shorter one) wins."""
    reference = _block(text, "reference_answer") or _block(text, "input") or ""
    a, b = _block(text, "output_A") or "", _block(text, "output_B") or ""
    qa, qb = (sum(quality(x, reference).values()) for x in (a, b))
    winner = "A" if qa > qb + 1e-9 else "B" if qb > qa + 1e-9 else "tie"
    return json.dumps({"reasoning": "compared both outputs with the reference", "winner": winner})


# ------------------------------------------------------------------------------------------------ teacher


def _normal(text: str) -> str:
    return " ".join(text.split())


def rung(prompt: str) -> int:
    """Where `prompt` sits on the ladder (its cue count when it is not a rung)."""
    for index, step in enumerate(LADDER):
        if _normal(step) == _normal(prompt):
            return index
    return specificity(prompt)


def teach(text: str) -> str:
    """Rewrites: the rungs above the current prompt, in order, minus those already proposed."""
    count_match = re.search(r"Write (\d+) distinct rewrites", text)
    count = int(count_match.group(1)) if count_match else 1
    current = _block(text, "current_prompt") or ""
    avoid = {_normal(p) for p in (_block(text, "already_proposed") or "").split("\n---\n") if p.strip()}
    feedback = (_block(text, "evaluator_feedback") or "").splitlines()
    hint = feedback[0] if feedback else "(no feedback yet)"
    proposals = []
    for step in LADDER[rung(current) + 1 :]:
        if _normal(step) in avoid or _normal(step) == _normal(current):
            continue
        proposals.append({"rationale": f"more specific instruction; feedback: {hint}", "prompt": step})
        if len(proposals) == count:
            break
    return json.dumps({"rewrites": proposals})


# ------------------------------------------------------------------------------------------------ dispatch


def _schema_name(body: Mapping[str, Any]) -> str:
    fmt = body.get("response_format")
    if isinstance(fmt, Mapping):
        schema = fmt.get("json_schema")
        if isinstance(schema, Mapping):
            return str(schema.get("name", ""))
    return ""


def _messages(body: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    raw = body.get("messages")
    return [m for m in raw if isinstance(m, Mapping)] if isinstance(raw, list) else []


def answer(body: Mapping[str, Any]) -> str:
    """The assistant's content for one chat-completions request body."""
    messages = _messages(body)
    users = [str(m.get("content", "")) for m in messages if m.get("role") == "user"]
    last_user = users[0] if users else ""
    kind = _schema_name(body)
    if kind == "prompt_rewrites" or "<current_prompt>" in last_user:
        return teach(last_user)
    if kind == "judge_verdict" or "<candidate_output>" in last_user:
        return judge(last_user)
    if kind == "pairwise_verdict" or "<output_A>" in last_user:
        return compare(last_user)
    system = " ".join(str(m.get("content", "")) for m in messages if m.get("role") == "system")
    if system:
        output = summarize(system, last_user)
    else:  # a prompt with its {input} filled in: the ticket is the last paragraph
        prompt, _, ticket = last_user.rpartition("\n\n")
        output = summarize(prompt or last_user, ticket)
    return json.dumps({"output": output}) if kind == "task_output" else output


def completion(body: Mapping[str, Any]) -> dict[str, Any]:
    """A full chat.completion body, with usage estimated at four characters a token."""
    content = answer(body)
    asked = sum(len(str(m.get("content", ""))) for m in _messages(body))
    prompt_tokens, completion_tokens = max(1, asked // 4), max(1, len(content) // 4)
    return {
        "id": "chatcmpl-local",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": str(body.get("model", "")),
        "choices": [
            {"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}
        ],
        "usage": {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens,
        },
    }


# ------------------------------------------------------------------------------------------------ server


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet: the campaign's own output is what matters."""

    def _send(self, status: int, payload: Mapping[str, Any]) -> None:
        data = json.dumps(payload).encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        if not self.path.rstrip("/").endswith("/chat/completions"):
            self._send(404, {"error": {"message": f"no route {self.path}", "type": "invalid_request_error"}})
            return
        try:
            body = json.loads(raw)
        except ValueError:
            body = None
        if not isinstance(body, dict):
            self._send(
                400, {"error": {"message": "the body is not a JSON object", "type": "invalid_request"}}
            )
            return
        self._send(200, completion(body))

    def do_GET(self) -> None:
        if self.path.rstrip("/").endswith("/models"):
            self._send(200, {"object": "list", "data": []})
            return
        self._send(404, {"error": {"message": f"no route {self.path}", "type": "invalid_request_error"}})


class LocalEndpoint:
    """The endpoint in a background thread; port 0 picks a free one."""

    def __init__(self, host: str = "127.0.0.1", port: int = 0) -> None:
        self._server = ThreadingHTTPServer((host, port), _Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, name="local-endpoint", daemon=True)

    @property
    def base_url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}/v1"

    def start(self) -> LocalEndpoint:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)

    def __enter__(self) -> LocalEndpoint:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Serve the prompt example's scripted endpoint.")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=DEFAULT_PORT)
    args = parser.parse_args(argv)
    try:
        server = ThreadingHTTPServer((args.host, args.port), _Handler)
    except OSError as exc:
        print(f"cannot listen on {args.host}:{args.port}: {exc.strerror}", file=sys.stderr)
        return 2
    host, port = server.server_address[:2]
    print(f"serving the scripted endpoint on http://{host!s}:{port}/v1 (Ctrl-C to stop)", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
