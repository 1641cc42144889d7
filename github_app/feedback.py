"""`POST/GET /api/v1/tasks/{owner}/{repo}/{task}/feedback` (SPEC §10 "Prompt tasks and feedback"; README
"Prompt optimization from feedback").

An application logs feedback on a prompt task's outputs with its repository's `X-API-Key`
(`proctor-app keys create OWNER/REPO`): 401 without a valid key, 403 for a key of another repository, 404 for
a task the default branch's config does not declare, 422 naming the field for a bad body. A repeated
`Idempotency-Key` answers the first item again (200; 409 when the body differs) and counts once.

Whenever a task's count reaches a multiple of its `feedback_threshold`, one prompt optimization job is queued.
Exactly one, however many posts race across the line: the job is recorded through `Store.record_delivery`
under the id `prompt:<repo>:<task>:<batch>`, whose unique constraint lets only the first insert through
(a post that sees the count past the line later finds the id taken). No lock in this process is involved.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from typing import Annotated, Any

from fastapi import APIRouter, Depends, FastAPI, Header, HTTPException, Path, Query, Request
from fastapi.responses import JSONResponse
from fastapi.security import APIKeyHeader
from pydantic import BaseModel, ConfigDict, Field, field_validator
from starlette.concurrency import run_in_threadpool

from core.config import TASK_NAME, PromptTaskConfig
from core.errors import ProctorError
from github_app.feedback_store import ApiKey, FeedbackStore, body_hash
from github_app.prompt_tasks import TaskConfigs
from github_app.queue import JobQueue
from github_app.store import NewJob, Store

log = logging.getLogger("proctor.app.feedback")
PROMPT_EVENT = "proctor_prompt_task"
MAX_TEXT = 100_000
_api_key = APIKeyHeader(name="X-API-Key", auto_error=False)
_NAME = r"^[A-Za-z0-9_.-]{1,100}$"
TaskName = Annotated[str, Path(pattern=TASK_NAME)]


class FeedbackIn(BaseModel):
    """One logged output: what went in, what came out, and optionally a score in [0, 1] and who gave it."""

    model_config = ConfigDict(extra="forbid")

    inputs: dict[str, Any] | str = Field(description="The task's inputs: a JSON object or a string.")
    output: str = Field(min_length=1, max_length=MAX_TEXT, description="The output the prompt produced.")
    score: float | None = Field(None, ge=0, le=1, allow_inf_nan=False)
    source: str | None = Field(None, max_length=200, description="Who or what gave the feedback.")

    @field_validator("inputs")
    @classmethod
    def _not_empty(cls, value: dict[str, Any] | str) -> dict[str, Any] | str:
        if not value:
            raise ValueError("inputs must not be empty")
        if len(json.dumps(value)) > MAX_TEXT:
            raise ValueError(f"inputs are over {MAX_TEXT} characters as JSON")
        return value


@dataclass(frozen=True)
class FeedbackApi:
    """What the routes need: the feedback tables, the app store and queue (for the job), the task configs."""

    feedback: FeedbackStore
    store: Store
    queue: JobQueue
    tasks: TaskConfigs


def _api(request: Request) -> FeedbackApi:
    api: FeedbackApi = request.app.state.feedback_api
    return api


def require_key(
    owner: Annotated[str, Path(pattern=_NAME)],
    repo: Annotated[str, Path(pattern=_NAME)],
    api: Annotated[FeedbackApi, Depends(_api)],
    key: Annotated[str | None, Depends(_api_key)],
) -> ApiKey:
    """The repository's key from `X-API-Key`: 401 when missing or unknown, 403 when it is another's."""
    if not key:
        raise HTTPException(
            401, "send the repository's key in the X-API-Key header", {"WWW-Authenticate": "ApiKey"}
        )
    found = api.feedback.key(key)
    if found is None:
        raise HTTPException(401, "the X-API-Key is not a key this app issued", {"WWW-Authenticate": "ApiKey"})
    if found.repo.lower() != f"{owner}/{repo}".lower():
        raise HTTPException(403, f"this key is for {found.repo}, not {owner}/{repo}")
    return found


Key = Annotated[ApiKey, Depends(require_key)]
Api = Annotated[FeedbackApi, Depends(_api)]


def _task(api: FeedbackApi, key: ApiKey, name: str) -> PromptTaskConfig:
    try:
        config = api.tasks.config(key)
    except ProctorError as exc:  # git or the config on the default branch: say which
        raise HTTPException(503, f"cannot read the default branch's config: {exc}") from None
    task = config.prompt_task_named(name)
    if task is None:
        raise HTTPException(
            404, f"no [[prompt_task]] named {name!r} in {key.repo}'s {key.default_branch} config"
        )
    return task


def queue_if_due(api: FeedbackApi, key: ApiKey, task: PromptTaskConfig, last_id: int) -> int | None:
    """Queue the optimization of `task` when its count has reached a new multiple of the threshold.

    Returns the job id when this call queued it; None when nothing is due or another post queued it.
    """
    batch = api.feedback.count(key.repo, task.name) // task.feedback_threshold
    if batch < 1:
        return None
    payload = {
        "action": "optimize",
        "installation": {"id": key.installation_id},
        "repo": key.repo,
        "task": task.name,
        "batch": batch,
        "last_id": last_id,
        "clone_url": key.clone_url,
        "branch": key.default_branch,
    }
    job_id = api.store.record_delivery(
        f"prompt:{key.repo.lower()}:{task.name}:{batch}",
        PROMPT_EVENT,
        "optimize",
        json.dumps(payload).encode(),
        NewJob(repo=key.repo),
    )
    if not job_id:
        return None
    api.queue.enqueue(job_id)
    log.info("feedback on %s/%s reached batch %s: optimization job %s", key.repo, task.name, batch, job_id)
    return job_id


def _post(
    api: FeedbackApi, key: ApiKey, name: str, body: FeedbackIn, idempotency_key: str | None
) -> JSONResponse:
    task = _task(api, key, name)
    item, new = api.feedback.add(key.repo, task.name, body.model_dump(), idempotency_key)
    if not new:
        if item.body_hash != body_hash(body.model_dump()):
            raise HTTPException(409, "this Idempotency-Key was used for a different body")
        return JSONResponse({"item": item.to_json(), "duplicate": True}, status_code=200)
    job = queue_if_due(api, key, task, item.id)
    count = api.feedback.count(key.repo, task.name)
    answer = {"item": item.to_json(), "duplicate": False, "count": count, "optimization_job": job}
    return JSONResponse(answer, status_code=201)


def _list(api: FeedbackApi, key: ApiKey, name: str, cursor: int, limit: int) -> dict[str, Any]:
    task = _task(api, key, name)
    items = api.feedback.page(key.repo, task.name, cursor, limit + 1)
    more = len(items) > limit
    items = items[:limit]
    return {
        "items": [i.to_json() for i in items],
        "next_cursor": items[-1].id if more and items else None,
        "total": api.feedback.count(key.repo, task.name),
    }


def install(app: FastAPI, api: FeedbackApi) -> None:
    app.state.feedback_api = api
    router = APIRouter(prefix="/api/v1/tasks")
    path = "/{owner}/{repo}/{task}/feedback"

    @router.post(path, status_code=201)
    async def post_feedback(
        task: TaskName,
        body: FeedbackIn,
        key: Key,
        api: Api,
        idempotency_key: Annotated[str | None, Header(max_length=200)] = None,
    ) -> JSONResponse:
        return await run_in_threadpool(_post, api, key, task, body, idempotency_key)

    @router.get(path)
    def list_feedback(
        task: TaskName,
        key: Key,
        api: Api,
        cursor: Annotated[int, Query(ge=0, description="next_cursor of the previous page")] = 0,
        limit: Annotated[int, Query(ge=1, le=500)] = 100,
    ) -> dict[str, Any]:
        return _list(api, key, task, cursor, limit)

    app.include_router(router)
