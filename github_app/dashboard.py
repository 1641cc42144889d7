"""The dashboard (SPEC §10 "Dashboard"; README "Dashboard"): `/`, `/campaigns/{id}`, `/api/v1/...`, `/login`.

`/` lists repositories, pull-request checks and campaigns with their scores and a chart; `/campaigns/{id}`
serves the campaign's own self-contained report.html; `/api/v1/...` answers the same views as JSON. When
`PROCTOR_DASHBOARD_TOKEN` is set, every one of these routes depends on `TokenGate`: the token as
`Authorization: Bearer …` or in the cookie `/login` sets, compared in constant time. `/healthz` (in `web`)
stays open for load balancers.
"""

from __future__ import annotations

import hmac
from pathlib import Path
from typing import Annotated, Any
from urllib.parse import parse_qs

from fastapi import APIRouter, Cookie, Depends, FastAPI, HTTPException, Query, Request
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from core.campaign.report.html import CSP as REPORT_CSP
from core.errors import Locked
from github_app import dashboard_data, dashboard_html
from github_app.store import Store

COOKIE = "proctor_dashboard"
_MAX_LOGIN_BODY = 4096
_bearer = HTTPBearer(auto_error=False)
PrQuery = Annotated[int | None, Query(ge=1, description="a pull-request number")]
_HEADERS = {
    "Content-Security-Policy": dashboard_html.CSP,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-store",
}


class TokenGate:
    """The dependency every dashboard route has: nothing to check without a token, else bearer or cookie."""

    def __init__(self, token: str) -> None:
        self.token = token

    def matches(self, given: str) -> bool:
        return hmac.compare_digest(given.encode(), self.token.encode())

    def __call__(
        self,
        request: Request,
        bearer: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)],
        cookie: Annotated[str | None, Cookie(alias=COOKIE)] = None,
    ) -> None:
        if not self.token:
            return
        given = bearer.credentials if bearer is not None else cookie or ""
        if not self.matches(given):
            path = request.url.path
            raise Locked(
                path + (f"?{request.url.query}" if request.url.query else ""), path.startswith("/api/")
            )


def _html(body: str, status: int = 200) -> HTMLResponse:
    return HTMLResponse(body, status_code=status, headers=_HEADERS)


def local_path(target: str) -> str:
    """Where a login may lead: a path on this server only (never `//host` or a scheme: no open redirect)."""
    if not target.startswith("/") or target.startswith(("//", "/\\")) or any(ord(ch) < 32 for ch in target):
        return "/"
    return target


def _locked(_request: Request, exc: Exception) -> Response:
    assert isinstance(exc, Locked)
    if exc.api:
        return JSONResponse(
            {"error": "PROCTOR_DASHBOARD_TOKEN is set: send it as Authorization: Bearer <token>"},
            status_code=401,
            headers={"WWW-Authenticate": "Bearer"},
        )
    response = _html(dashboard_html.render_login(local_path(exc.path)), 401)
    response.headers["WWW-Authenticate"] = "Bearer"
    return response


def _login_router(gate: TokenGate) -> APIRouter:
    router = APIRouter()

    @router.get("/login", response_model=None)
    def login_form(next: str = "/") -> Response:
        if not gate.token:
            return RedirectResponse(local_path(next), status_code=303)
        return _html(dashboard_html.render_login(local_path(next)))

    @router.post("/login", response_model=None)
    async def login(request: Request) -> Response:
        body = (await request.body())[:_MAX_LOGIN_BODY].decode("utf-8", "replace")
        form = {key: values[0] for key, values in parse_qs(body).items()}
        target = local_path(form.get("next", "/"))
        if not gate.token:
            return RedirectResponse(target, status_code=303)
        if not gate.matches(form.get("token", "")):
            return _html(dashboard_html.render_login(target, "That is not the dashboard token."), 401)
        response = RedirectResponse(target, status_code=303)
        response.set_cookie(
            COOKIE,
            gate.token,
            httponly=True,
            samesite="strict",
            secure=request.url.scheme == "https",
            path="/",
        )
        return response

    @router.post("/logout")
    def logout() -> RedirectResponse:
        response = RedirectResponse("/login", status_code=303)
        response.delete_cookie(COOKIE, path="/")
        return response

    return router


def _pages(store: Store, data_dir: Path | None, gate: TokenGate) -> APIRouter:
    router = APIRouter(dependencies=[Depends(gate)])

    @router.get("/")
    def index(repo: str | None = None, pr: PrQuery = None) -> HTMLResponse:
        view = dashboard_data.overview(store, data_dir, repo, pr)
        return _html(dashboard_html.render_overview(view, repo, pr))

    @router.get("/campaigns/{campaign_id}")
    def campaign_report(campaign_id: str) -> HTMLResponse:
        campaign = store.campaign(campaign_id)
        report = dashboard_data.report_file(campaign, data_dir) if campaign is not None else None
        if campaign is None or report is None:
            message = "No such campaign." if campaign is None else "This campaign has no report yet."
            return _html(dashboard_html.render_message("Not found", message), 404)
        headers = _HEADERS | {"Content-Security-Policy": REPORT_CSP}
        return HTMLResponse(report.read_text("utf-8", "replace"), headers=headers)

    return router


def _api(store: Store, data_dir: Path | None, gate: TokenGate) -> APIRouter:
    router = APIRouter(prefix="/api/v1", dependencies=[Depends(gate)])

    @router.get("/overview")
    def overview(repo: str | None = None, pr: PrQuery = None) -> dict[str, Any]:
        return dashboard_data.overview(store, data_dir, repo, pr).to_json()

    @router.get("/repositories")
    def repositories() -> list[dict[str, Any]]:
        return [r.to_json() for r in dashboard_data.overview(store, data_dir).repos]

    @router.get("/pulls")
    def pulls(repo: str | None = None, pr: PrQuery = None) -> list[dict[str, Any]]:
        return [p.to_json() for p in dashboard_data.overview(store, data_dir, repo, pr).pulls]

    @router.get("/campaigns")
    def campaigns(repo: str | None = None, pr: PrQuery = None) -> list[dict[str, Any]]:
        return [c.to_json() for c in dashboard_data.overview(store, data_dir, repo, pr).campaigns]

    @router.get("/campaigns/{campaign_id}")
    def campaign(campaign_id: str) -> dict[str, Any]:
        found = store.campaign(campaign_id)
        if found is None:
            raise HTTPException(404, f"no campaign {campaign_id!r}")
        return dashboard_data.campaign_view(found, data_dir).to_json()

    return router


def install(app: FastAPI, store: Store, token: str = "", data_dir: Path | None = None) -> None:
    """Mount the dashboard on the app: the login routes, the pages and the JSON API behind `TokenGate`."""
    gate = TokenGate(token)
    app.add_exception_handler(Locked, _locked)
    app.include_router(_login_router(gate))
    app.include_router(_pages(store, data_dir, gate))
    app.include_router(_api(store, data_dir, gate))
