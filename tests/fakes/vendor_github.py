"""Re-create the vendored GitHub fixtures from the npm packages (run by hand, offline tests never call it).

    npm pack @octokit/openapi@23.0.2 @octokit/webhooks-examples@7.6.1
    python tests/fakes/vendor_github.py octokit-openapi-23.0.2.tgz octokit-webhooks-examples-7.6.1.tgz

Writes tests/fakes/github_schemas.json (the request-body schemas of the REST endpoints the app calls, from
`generated/api.github.com.deref.json`) and tests/fakes/github_webhooks/*.json (real example payloads; the
tests mutate them for what the package lacks: fork pull requests, comments on pull requests).
"""

from __future__ import annotations

import json
import sys
import tarfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent
ENDPOINTS = (
    ("POST", "/repos/{owner}/{repo}/check-runs"),
    ("PATCH", "/repos/{owner}/{repo}/check-runs/{check_run_id}"),
    ("POST", "/repos/{owner}/{repo}/issues/{issue_number}/comments"),
    ("PATCH", "/repos/{owner}/{repo}/issues/comments/{comment_id}"),
    ("POST", "/app/installations/{installation_id}/access_tokens"),
    ("POST", "/repos/{owner}/{repo}/pulls"),
    ("PATCH", "/repos/{owner}/{repo}/pulls/{pull_number}"),
    ("POST", "/repos/{owner}/{repo}/issues/comments/{comment_id}/reactions"),
)
# (event, action, file name): the first example of that action that carries an installation
EXAMPLES = (
    ("pull_request", "opened", "pull_request.opened.json"),
    ("pull_request", "synchronize", "pull_request.synchronize.json"),
    ("issue_comment", "created", "issue_comment.created.json"),
    ("check_run", "rerequested", "check_run.rerequested.json"),
    ("check_run", "requested_action", "check_run.requested_action.json"),
    ("ping", None, "ping.json"),
)


def _member(tgz: Path, name: str) -> Any:
    with tarfile.open(tgz) as archive:
        handle = archive.extractfile(name)
        assert handle is not None
        return json.load(handle)


def vendor_schemas(openapi_tgz: Path) -> None:
    spec = _member(openapi_tgz, "package/generated/api.github.com.deref.json")
    out: dict[str, Any] = {"_source": f"@octokit/openapi {spec['info']['version']}"}
    for method, path in ENDPOINTS:
        operation = spec["paths"][path][method.lower()]
        out[f"{method} {path}"] = operation["requestBody"]["content"]["application/json"]["schema"]
    (HERE / "github_schemas.json").write_text(json.dumps(out, indent=1, sort_keys=True) + "\n")


def vendor_examples(examples_tgz: Path) -> None:
    events = {e["name"]: e["examples"] for e in _member(examples_tgz, "package/api.github.com/index.json")}
    for event, action, filename in EXAMPLES:
        chosen = next(
            (x for x in events[event] if x.get("action") == action and "installation" in x),
            next(x for x in events[event] if x.get("action") == action),
        )
        (HERE / "github_webhooks" / filename).write_text(json.dumps(chosen, indent=1) + "\n")


if __name__ == "__main__":
    vendor_schemas(Path(sys.argv[1]))
    vendor_examples(Path(sys.argv[2]))
