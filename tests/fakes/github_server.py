"""A stateful fake of the GitHub REST API and git smart HTTP, on loopback, for PyGithub over real HTTP.

Serves what the app uses: installation tokens (the app JWT is verified with the App's public key), check
runs (create, update; annotations appended per request as GitHub does), issue comments (list, create,
update) and reactions to them, pull requests (as the test registers them, or created, listed and edited
through the API as a delivery does: the head branch must exist in the git remote, one open pull request per
head and base, the head sha follows the branch), and `git http-backend` over local bare repositories
under `git_root`, which requires the current installation token as Basic `x-access-token:<token>`.
Request bodies are validated against the schemas vendored from `@octokit/openapi` (github_schemas.json,
see vendor_github.py), and GitHub's limits answer 422: 50 annotations per request, title 255, summary and
text 65,535, comment body 65,536, enums. `fail_next` injects faults (502, 403/429 with Retry-After).
Every request is recorded, so a test can assert that no token ever reached a text GitHub received.
"""

from __future__ import annotations

import base64
import json
import os
import re
import subprocess
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import jsonschema
import jwt

SCHEMAS: dict[str, Any] = json.loads((Path(__file__).parent / "github_schemas.json").read_text())
LIMITS = {"title": 255, "summary": 65_535, "text": 65_535}
COMMENT_LIMIT = 65_536
ANNOTATIONS_PER_REQUEST = 50


@dataclass
class Fault:
    status: int
    headers: Mapping[str, str]
    method: str | None
    path_contains: str
    body: dict[str, Any] = field(default_factory=lambda: {"message": "injected fault"})


@dataclass
class Recorded:
    method: str
    path: str
    headers: dict[str, str]
    body: bytes
    status: int = 0


@dataclass
class CheckRunState:
    id: int
    repo: str
    name: str
    head_sha: str
    status: str
    conclusion: str | None
    external_id: str
    details_url: str
    output: dict[str, Any]
    annotations: list[dict[str, Any]]
    history: list[str]


class FakeGitHub:
    def __init__(self, public_key: str, app_id: int, git_root: Path) -> None:
        self.public_key, self.app_id, self.git_root = public_key, app_id, git_root
        self.lock = threading.RLock()
        self.requests: list[Recorded] = []
        self.faults: list[Fault] = []
        self.tokens: dict[str, float] = {}
        self.token_grants = 0
        self.check_runs: dict[int, CheckRunState] = {}
        self.comments: dict[int, dict[str, Any]] = {}
        self.pulls: dict[tuple[str, int], dict[str, Any]] = {}
        self.reactions: list[tuple[str, int, str]] = []  # (repo, comment id, content)
        self.violations: list[str] = []
        self.git_protocol_v2 = True  # False: an old server that serves only advertised refs (protocol v0)
        self._ids = 1000
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self._thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> FakeGitHub:
        self._thread.start()
        return self

    def __exit__(self, *_exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()

    # -- what tests use

    def clone_url(self, repo: str) -> str:
        return f"{self.url}/git/{repo}.git"

    def fail_next(
        self,
        status: int,
        *,
        times: int = 1,
        headers: Mapping[str, str] | None = None,
        method: str | None = None,
        path_contains: str = "",
        body: dict[str, Any] | None = None,
    ) -> None:
        with self.lock:
            for _ in range(times):
                fault = Fault(status, dict(headers or {}), method, path_contains)
                if body is not None:
                    fault.body = body
                self.faults.append(fault)

    def take_fault(self, method: str, path: str) -> Fault | None:
        """The first injected fault that matches this request, removed (each answers one request)."""
        with self.lock:
            for fault in self.faults:
                if (fault.method is None or fault.method == method) and fault.path_contains in path:
                    self.faults.remove(fault)
                    return fault
        return None

    def runs_for(self, head_sha: str) -> list[CheckRunState]:
        with self.lock:
            return [r for r in self.check_runs.values() if r.head_sha == head_sha]

    def comments_on(self, repo: str, number: int) -> list[dict[str, Any]]:
        with self.lock:
            return [c for c in self.comments.values() if c["_repo"] == repo and c["_number"] == number]

    def pulls_from(self, repo: str, branch: str) -> list[dict[str, Any]]:
        """Pull requests of `repo` whose head is `branch` (created by the app), oldest first."""
        with self.lock:
            return [
                _fresh_pull(self, p)
                for (r, _n), p in sorted(self.pulls.items())
                if r == repo and p["head"].get("ref") == branch
            ]

    def close_pull(self, repo: str, number: int) -> None:
        """What a person pressing "Close pull request" (without merging) does."""
        with self.lock:
            self.pulls[(repo, number)]["state"] = "closed"

    def branch_sha(self, repo: str, branch: str) -> str | None:
        return _branch_sha(self, repo, branch)

    def next_id(self) -> int:
        with self.lock:
            self._ids += 1
            return self._ids

    def issue_token(self) -> str:
        with self.lock:
            self.token_grants += 1
            token = f"ghs_fake{self.token_grants:04d}{os.urandom(8).hex()}"
            self.tokens[token] = time.time() + 3600
            return token

    def token_ok(self, token: str) -> bool:
        with self.lock:
            return self.tokens.get(token, 0) > time.time()


def _handler(fake: FakeGitHub) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *_args: object) -> None:
            pass

        def _body(self) -> bytes:
            length = int(self.headers.get("Content-Length") or 0)
            return self.rfile.read(length) if length else b""

        def _send(self, status: int, data: Any = None, headers: Mapping[str, str] | None = None) -> None:
            raw = json.dumps(data if data is not None else {}).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json; charset=utf-8")
            self.send_header("Content-Length", str(len(raw)))
            for k, v in (headers or {}).items():
                self.send_header(k, v)
            self.end_headers()
            self.wfile.write(raw)
            fake.requests[-1].status = status

        def _dispatch(self, method: str) -> None:
            body = self._body()
            path = self.path
            with fake.lock:
                fake.requests.append(Recorded(method, path, dict(self.headers), body))
            if path.startswith("/git/"):
                self._git(method, body)
                return
            fault = fake.take_fault(method, path)
            if fault is not None:
                self._send(fault.status, fault.body, fault.headers)
                return
            self._send(*_answer(fake, method, path, self.headers.get("Authorization", ""), body))

        def _git(self, method: str, body: bytes) -> None:
            if not fake.token_ok(_basic_token(self.headers.get("Authorization", ""))):
                self.send_response(401)
                self.send_header("WWW-Authenticate", 'Basic realm="GitHub"')
                self.send_header("Content-Length", "0")
                self.end_headers()
                fake.requests[-1].status = 401
                return
            status, headers, payload = _http_backend(fake, method, self.path, self.headers, body)
            self.send_response(status)
            for name, value in headers:
                self.send_header(name, value)
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)
            fake.requests[-1].status = status

        def do_GET(self) -> None:
            self._dispatch("GET")

        def do_POST(self) -> None:
            self._dispatch("POST")

        def do_PATCH(self) -> None:
            self._dispatch("PATCH")

    return Handler


def _answer(fake: FakeGitHub, method: str, path: str, auth: str, body: bytes) -> tuple[int, Any]:
    """A REST request's status and JSON; a refusal is GitHub's `{"message": ...}` (422s are recorded)."""
    try:
        return _route(fake, method, path, auth, body)
    except _Refused as exc:
        if exc.status == 422:
            fake.violations.append(f"{method} {path}: {exc.message}")
        return exc.status, {"message": exc.message}


def _basic_token(auth: str) -> str:
    """The token of Basic `x-access-token:<token>` (how git sends the installation token); "" otherwise."""
    if not auth.startswith("Basic "):
        return ""
    user, _, token = base64.b64decode(auth[6:]).decode().partition(":")
    return token if user == "x-access-token" else ""


def _http_backend(
    fake: FakeGitHub, method: str, raw_path: str, headers: Any, body: bytes
) -> tuple[int, list[tuple[str, str]], bytes]:
    """One smart-HTTP request through `git http-backend` over the bare repositories in `git_root`."""
    path, _, query = raw_path[len("/git") :].partition("?")
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "GIT_PROJECT_ROOT": str(fake.git_root),
        "GIT_HTTP_EXPORT_ALL": "1",
        "REQUEST_METHOD": method,
        "PATH_INFO": path,
        "QUERY_STRING": query,
        "CONTENT_TYPE": headers.get("Content-Type", ""),
        "CONTENT_LENGTH": str(len(body)),
        "GIT_PROTOCOL": headers.get("Git-Protocol", "") if fake.git_protocol_v2 else "",
        "REMOTE_USER": "x-access-token",
        "HTTP_CONTENT_ENCODING": headers.get("Content-Encoding", ""),
    }
    proc = subprocess.run(["git", "http-backend"], input=body, env=env, capture_output=True, check=False)
    head, _, payload = proc.stdout.partition(b"\r\n\r\n")
    status = 200
    found: list[tuple[str, str]] = []
    for line in head.decode("latin-1").split("\r\n"):
        name, _, value = line.partition(":")
        if name.lower() == "status":
            status = int(value.strip().split()[0])
        elif name:
            found.append((name, value.strip()))
    return status, found, payload


def app_key_pair() -> tuple[str, str]:
    """A fresh RSA key pair (private PEM, public PEM): the app signs its JWTs, this fake verifies them."""
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import rsa

    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    private = key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    ).decode()
    public = (
        key.public_key()
        .public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
        .decode()
    )
    return private, public


class _Refused(Exception):
    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status, self.message = status, message


def _validate(key: str, data: Any) -> None:
    try:
        jsonschema.Draft7Validator(SCHEMAS[key]).validate(data)
    except jsonschema.ValidationError as exc:
        raise _Refused(422, f"Invalid request: {exc.message} at {list(exc.absolute_path)}") from None


def _check_output(data: Mapping[str, Any]) -> None:
    output = data.get("output")
    if not isinstance(output, dict):
        return
    for name, limit in LIMITS.items():
        if len(str(output.get(name, ""))) > limit:
            raise _Refused(422, f"output.{name} is longer than {limit} characters")
    if len(output.get("annotations", [])) > ANNOTATIONS_PER_REQUEST:
        raise _Refused(422, f"more than {ANNOTATIONS_PER_REQUEST} annotations in one request")


def _app_auth(fake: FakeGitHub, auth: str) -> None:
    if not auth.startswith("Bearer "):
        raise _Refused(401, "A JSON web token could not be decoded")
    try:
        claims = jwt.decode(auth[7:], fake.public_key, algorithms=["RS256"])
    except jwt.PyJWTError as exc:
        raise _Refused(401, f"A JSON web token could not be decoded: {exc}") from None
    if str(claims.get("iss")) != str(fake.app_id):
        raise _Refused(401, "Integration not found")


def _token_auth(fake: FakeGitHub, auth: str) -> None:
    scheme, _, token = auth.partition(" ")
    if scheme.lower() not in ("token", "bearer") or not fake.token_ok(token):
        raise _Refused(401, "Bad credentials")


_ROUTES = [
    ("POST", re.compile(r"^/app/installations/(\d+)/access_tokens$"), "token"),
    ("POST", re.compile(r"^/repos/([^/]+/[^/]+)/check-runs$"), "create_run"),
    ("PATCH", re.compile(r"^/repos/([^/]+/[^/]+)/check-runs/(\d+)$"), "update_run"),
    ("GET", re.compile(r"^/repos/([^/]+/[^/]+)/issues/(\d+)/comments$"), "list_comments"),
    ("POST", re.compile(r"^/repos/([^/]+/[^/]+)/issues/(\d+)/comments$"), "create_comment"),
    ("PATCH", re.compile(r"^/repos/([^/]+/[^/]+)/issues/comments/(\d+)$"), "update_comment"),
    ("GET", re.compile(r"^/repos/([^/]+/[^/]+)/pulls/(\d+)$"), "get_pull"),
    ("GET", re.compile(r"^/repos/([^/]+/[^/]+)/pulls$"), "list_pulls"),
    ("POST", re.compile(r"^/repos/([^/]+/[^/]+)/pulls$"), "create_pull"),
    ("PATCH", re.compile(r"^/repos/([^/]+/[^/]+)/pulls/(\d+)$"), "update_pull"),
    ("POST", re.compile(r"^/repos/([^/]+/[^/]+)/issues/comments/(\d+)/reactions$"), "create_reaction"),
    ("GET", re.compile(r"^/repos/([^/]+/[^/]+)/commits/([0-9a-f]{40})/check-runs$"), "list_runs"),
]


def _route(fake: FakeGitHub, method: str, full_path: str, auth: str, raw: bytes) -> tuple[int, Any]:
    path, _, query = full_path.partition("?")
    for verb, pattern, name in _ROUTES:
        match = pattern.match(path)
        if verb == method and match:
            data = json.loads(raw) if raw else {}
            if name == "token":
                _app_auth(fake, auth)
                _validate("POST /app/installations/{installation_id}/access_tokens", data)
                expires = (datetime.now(UTC) + timedelta(hours=1)).strftime("%Y-%m-%dT%H:%M:%SZ")
                return 201, {"token": fake.issue_token(), "expires_at": expires, "permissions": {}}
            _token_auth(fake, auth)
            with fake.lock:
                return globals()[f"_{name}"](fake, *match.groups(), data, query)
    raise _Refused(404, f"Not Found: {method} {path}")


def _run_json(run: CheckRunState) -> dict[str, Any]:
    return {
        "id": run.id,
        "name": run.name,
        "head_sha": run.head_sha,
        "status": run.status,
        "conclusion": run.conclusion,
        "external_id": run.external_id,
        "details_url": run.details_url,
        "output": {**run.output, "annotations_count": len(run.annotations)},
        "url": f"/repos/{run.repo}/check-runs/{run.id}",
    }


def _apply_run(run: CheckRunState, data: Mapping[str, Any]) -> None:
    if run.status == "completed" and data.get("status") not in (None, "completed"):
        raise _Refused(422, "a completed check run cannot go back to " + str(data.get("status")))
    if "conclusion" in data:
        run.status, run.conclusion = "completed", data["conclusion"]
    elif "status" in data:
        run.status = data["status"]
    if data.get("status") == "completed" and run.conclusion is None:
        raise _Refused(422, "conclusion is required when status is completed")
    run.history.append(run.status)
    output = data.get("output")
    if isinstance(output, dict):
        run.annotations.extend(output.get("annotations", []))
        run.output = {k: v for k, v in output.items() if k != "annotations"}


def _create_run(fake: FakeGitHub, repo: str, data: dict[str, Any], _q: str) -> tuple[int, Any]:
    _validate("POST /repos/{owner}/{repo}/check-runs", data)
    _check_output(data)
    run = CheckRunState(
        fake.next_id(),
        repo,
        data["name"],
        data["head_sha"],
        "queued",
        None,
        data.get("external_id", ""),
        data.get("details_url", ""),
        {},
        [],
        [],
    )
    _apply_run(run, data)
    fake.check_runs[run.id] = run
    return 201, _run_json(run)


def _update_run(fake: FakeGitHub, repo: str, run_id: str, data: dict[str, Any], _q: str) -> tuple[int, Any]:
    _validate("PATCH /repos/{owner}/{repo}/check-runs/{check_run_id}", data)
    _check_output(data)
    run = fake.check_runs.get(int(run_id))
    if run is None or run.repo != repo:
        raise _Refused(404, "Not Found")
    _apply_run(run, data)
    return 200, _run_json(run)


def _comment_json(comment: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in comment.items() if not k.startswith("_")}


def _list_comments(fake: FakeGitHub, repo: str, number: str, _d: Any, query: str) -> tuple[int, Any]:
    params = dict(p.partition("=")[::2] for p in query.split("&") if p)
    per_page, page = int(params.get("per_page", 30)), int(params.get("page", 1))
    found = [_comment_json(c) for c in fake.comments_on(repo, int(number))]
    return 200, found[(page - 1) * per_page : page * per_page]


def _create_comment(
    fake: FakeGitHub, repo: str, number: str, data: dict[str, Any], _q: str
) -> tuple[int, Any]:
    _validate("POST /repos/{owner}/{repo}/issues/{issue_number}/comments", data)
    if len(data["body"]) > COMMENT_LIMIT:
        raise _Refused(422, f"body is too long (maximum is {COMMENT_LIMIT} characters)")
    comment_id = fake.next_id()
    comment = {
        "id": comment_id,
        "body": data["body"],
        "user": {"login": "proctor[bot]", "type": "Bot", "id": 1},
        "_repo": repo,
        "_number": int(number),
        "_edits": 0,
    }
    fake.comments[comment_id] = comment
    return 201, _comment_json(comment)


def _update_comment(
    fake: FakeGitHub, repo: str, comment_id: str, data: dict[str, Any], _q: str
) -> tuple[int, Any]:
    _validate("PATCH /repos/{owner}/{repo}/issues/comments/{comment_id}", data)
    if len(data["body"]) > COMMENT_LIMIT:
        raise _Refused(422, f"body is too long (maximum is {COMMENT_LIMIT} characters)")
    comment = fake.comments.get(int(comment_id))
    if comment is None or comment["_repo"] != repo:
        raise _Refused(404, "Not Found")
    comment["body"] = data["body"]
    comment["_edits"] += 1
    return 200, _comment_json(comment)


def _get_pull(fake: FakeGitHub, repo: str, number: str, _d: Any, _q: str) -> tuple[int, Any]:
    pull = fake.pulls.get((repo, int(number)))
    if pull is None:
        raise _Refused(404, "Not Found")
    return 200, _fresh_pull(fake, pull)


def _branch_sha(fake: FakeGitHub, repo: str, branch: str) -> str | None:
    proc = subprocess.run(
        [
            "git",
            f"--git-dir={fake.git_root / repo}.git",
            "rev-parse",
            "--verify",
            "-q",
            f"refs/heads/{branch}",
        ],
        capture_output=True,
        check=False,
    )
    return proc.stdout.decode().strip() or None if proc.returncode == 0 else None


def _fresh_pull(fake: FakeGitHub, pull: dict[str, Any]) -> dict[str, Any]:
    """An open pull request's head sha is its branch's (GitHub follows pushes); a closed one's stays."""
    if pull.get("state") == "open" and pull.get("_api"):
        sha = _branch_sha(fake, pull["base"]["repo"]["full_name"], pull["head"]["ref"])
        if sha:
            pull["head"]["sha"] = sha
    return {k: v for k, v in pull.items() if not k.startswith("_")}


def _list_pulls(fake: FakeGitHub, repo: str, _d: Any, query: str) -> tuple[int, Any]:
    from urllib.parse import parse_qs

    params = {k: v[0] for k, v in parse_qs(query).items()}
    state = params.get("state", "open")
    owner, _, branch = params.get("head", ":").partition(":")
    found = [
        _fresh_pull(fake, p)
        for (r, _n), p in sorted(fake.pulls.items())
        if r == repo
        and (state == "all" or p.get("state", "open") == state)
        and (not branch or (p["head"].get("ref") == branch and repo.split("/")[0] == owner))
    ]
    per_page, page = int(params.get("per_page", 30)), int(params.get("page", 1))
    return 200, found[(page - 1) * per_page : page * per_page]


def _create_pull(fake: FakeGitHub, repo: str, data: dict[str, Any], _q: str) -> tuple[int, Any]:
    _validate("POST /repos/{owner}/{repo}/pulls", data)
    head, base = str(data["head"]).split(":")[-1], str(data["base"])
    head_sha, base_sha = _branch_sha(fake, repo, head), _branch_sha(fake, repo, base)
    if head_sha is None or base_sha is None:
        raise _Refused(422, f"Validation Failed: head {head!r} or base {base!r} is not a branch")
    for (r, _n), p in fake.pulls.items():
        if (
            r == repo
            and p.get("state") == "open"
            and p["head"].get("ref") == head
            and p["base"].get("ref") == base
        ):
            raise _Refused(
                422, f"Validation Failed: A pull request already exists for {repo.split('/')[0]}:{head}."
            )
    number = max([n for (r, n) in fake.pulls if r == repo] + [99]) + 1
    repository = {"full_name": repo, "clone_url": fake.clone_url(repo)}
    pull = {
        "number": number,
        "state": "open",
        "title": data.get("title", ""),
        "body": data.get("body", ""),
        "merged_at": None,
        "head": {"ref": head, "sha": head_sha, "repo": repository},
        "base": {"ref": base, "sha": base_sha, "repo": repository},
        "html_url": f"{fake.url}/{repo}/pull/{number}",
        "_api": True,
        "_edits": 0,
    }
    fake.pulls[(repo, number)] = pull
    return 201, _fresh_pull(fake, pull)


def _update_pull(fake: FakeGitHub, repo: str, number: str, data: dict[str, Any], _q: str) -> tuple[int, Any]:
    _validate("PATCH /repos/{owner}/{repo}/pulls/{pull_number}", data)
    pull = fake.pulls.get((repo, int(number)))
    if pull is None:
        raise _Refused(404, "Not Found")
    for key in ("title", "body", "state"):
        if key in data:
            pull[key] = data[key]
    pull["_edits"] = int(pull.get("_edits", 0)) + 1
    return 200, _fresh_pull(fake, pull)


def _create_reaction(
    fake: FakeGitHub, repo: str, comment_id: str, data: dict[str, Any], _q: str
) -> tuple[int, Any]:
    _validate("POST /repos/{owner}/{repo}/issues/comments/{comment_id}/reactions", data)
    fake.reactions.append((repo, int(comment_id), str(data["content"])))
    return 201, {"id": fake.next_id(), "content": data["content"]}


def _list_runs(fake: FakeGitHub, repo: str, sha: str, _d: Any, query: str) -> tuple[int, Any]:
    params = dict(p.partition("=")[::2] for p in query.split("&") if p)
    runs = [
        _run_json(r)
        for r in fake.check_runs.values()
        if r.repo == repo and r.head_sha == sha and r.name == params.get("check_name", r.name)
    ]
    return 200, {"total_count": len(runs), "check_runs": runs}
