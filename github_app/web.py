"""The HTTP face: `POST /webhook`, `GET /healthz`, and the dashboard (`github_app.dashboard`) (SPEC §10 "Webhook").

Statuses: 413 over 25 MiB (by Content-Length before reading, and by counting while streaming), 401 for a
missing, wrong or SHA-1-only signature, 400 for malformed headers or JSON, 200 for a redelivered
`X-GitHub-Delivery`, 202 for everything accepted (including events nobody handles). The delivery and its
job are committed before the answer; a failure of the app's own storage is a 503 (GitHub redelivers), never
a 500.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse
from starlette.concurrency import run_in_threadpool
from starlette.requests import ClientDisconnect

from core.errors import WebhookRejected
from github_app import dashboard, feedback
from github_app.feedback import FeedbackApi
from github_app.queue import JobQueue
from github_app.router import Router
from github_app.store import Store
from github_app.webhook import MAX_BODY_BYTES, parse_event

log = logging.getLogger("proctor.app.web")


def _answer(code: int, **fields: Any) -> JSONResponse:
    return JSONResponse(fields, status_code=code)


async def _read_body(request: Request) -> bytes:
    length = request.headers.get("content-length")
    if length is not None:
        if not length.strip().isdigit():
            raise WebhookRejected(400, "Content-Length is not a number")
        if int(length) > MAX_BODY_BYTES:
            raise WebhookRejected(413, f"body of {int(length)} bytes is over the {MAX_BODY_BYTES}-byte limit")
    body = bytearray()
    try:
        async for chunk in request.stream():
            body += chunk
            if len(body) > MAX_BODY_BYTES:
                raise WebhookRejected(413, f"body is over the {MAX_BODY_BYTES}-byte limit")
    except ClientDisconnect:
        raise WebhookRejected(400, "the client closed the connection before the body was complete") from None
    return bytes(body)


def create_app(
    secret: str,
    store: Store,
    queue: JobQueue,
    router: Router,
    dashboard_token: str = "",
    data_dir: Path | None = None,
    feedback_api: FeedbackApi | None = None,
) -> FastAPI:
    app = FastAPI(title="Proctor GitHub App", docs_url=None, redoc_url=None, openapi_url=None)
    dashboard.install(app, store, dashboard_token, data_dir)
    if feedback_api is not None:
        feedback.install(app, feedback_api)

    def record(delivery: str, name: str, action: str, body: bytes, job: Any) -> int | None:
        job_id = store.record_delivery(delivery, name, action, body, job)
        if job_id:
            queue.enqueue(job_id)
        return job_id

    @app.post("/webhook")
    async def webhook(request: Request) -> JSONResponse:
        try:
            body = await _read_body(request)
            event = parse_event(dict(request.headers), body, secret)
        except WebhookRejected as exc:
            return _answer(exc.status, error=exc.reason)
        job = router.job_for(event)
        try:
            job_id = await run_in_threadpool(
                record, event.delivery_id, event.name, event.action or "", body, job
            )
        except Exception:  # the app's own storage failed: GitHub redelivers on a 5xx other than 500
            log.exception("could not record delivery %s", event.delivery_id)
            return _answer(503, error="could not record the delivery; redeliver it later")
        if job_id is None:
            return _answer(200, status="duplicate", delivery=event.delivery_id)
        if not job_id:
            log.info("ignored %s.%s (delivery %s)", event.name, event.action, event.delivery_id)
            return _answer(202, status="ignored", delivery=event.delivery_id)
        return _answer(202, status="queued", delivery=event.delivery_id, job=job_id)

    @app.get("/healthz")
    def healthz() -> dict[str, Any]:
        return {"status": "ok", "jobs": store.job_counts()}

    return app
