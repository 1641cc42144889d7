"""The dashboard over HTTP without a browser: the JSON API, filters, 404s, the token rules, escaping."""

from __future__ import annotations

import html
import json
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from core.campaign.report.html import CSP as REPORT_CSP
from github_app.__main__ import build_parser
from tests.core.report import factory
from tests.github_app import dashboard_state
from tests.github_app.dashboard_state import TOKEN, Seeded

BEARER = {"Authorization": f"Bearer {TOKEN}"}


@pytest.fixture(scope="module")
def seeded(tmp_path_factory: pytest.TempPathFactory) -> Seeded:
    return dashboard_state.seed(tmp_path_factory.mktemp("dashboard"))


@pytest.fixture
def client(seeded: Seeded) -> TestClient:
    return TestClient(dashboard_state.web(seeded), follow_redirects=False)


def test_the_overview_api_has_repositories_pulls_and_campaigns_with_scores(client: TestClient) -> None:
    data = client.get("/api/v1/overview", headers=BEARER).json()
    assert [r["repo"] for r in data["repositories"]] == ["acme/tool", "octo/demo"]
    demo = next(r for r in data["repositories"] if r["repo"] == "octo/demo")
    assert demo == {"repo": "octo/demo", "pull_requests": 2, "campaigns": 2, "latest_conclusion": "failure"}
    pr7 = next(p for p in data["pull_requests"] if p["number"] == 7)
    assert pr7["head_sha"] == "a2" * 20 and pr7["title"].startswith("auc 0.8805"), (
        "not the newest check of PR 7"
    )
    campaign = next(c for c in data["campaigns"] if c["campaign_id"] == "c-demo")
    assert campaign["metric"] == "auc" and campaign["baseline_score"] == pytest.approx(0.8582)
    assert campaign["winner_ref"] == "candidate/honest" and campaign["winner_score"] == pytest.approx(0.8805)
    assert campaign["delta"] == pytest.approx(0.0223)
    assert (campaign["candidates"], campaign["rejected"], campaign["failed"]) == (4, 1, 1)
    assert campaign["report_url"] == "/campaigns/c-demo" and campaign["pr_number"] == 7
    running = next(c for c in data["campaigns"] if c["campaign_id"] == "c-running")
    assert running["baseline_score"] is None and running["report_url"] is None


def test_filters_narrow_to_a_repository_and_a_pull_request(client: TestClient) -> None:
    campaigns = client.get("/api/v1/campaigns?repo=OCTO/demo&pr=9", headers=BEARER).json()
    assert [c["campaign_id"] for c in campaigns] == ["c-forty"]
    pulls = client.get("/api/v1/pulls?repo=octo/demo", headers=BEARER).json()
    assert sorted(p["number"] for p in pulls) == [7, 9]
    assert [r["repo"] for r in client.get("/api/v1/repositories", headers=BEARER).json()] == [
        "acme/tool",
        "octo/demo",
    ]
    page = client.get("/?repo=octo/demo&pr=7", headers=BEARER).text
    assert "c-demo" in page and "c-forty" not in page and "acme/tool#2" not in page
    assert client.get("/api/v1/campaigns?pr=zero", headers=BEARER).status_code == 422


def test_one_campaign_and_its_report(client: TestClient, seeded: Seeded) -> None:
    one = client.get("/api/v1/campaigns/c-forty", headers=BEARER).json()
    assert one["candidates"] == 40 and one["winner_score"] == pytest.approx(
        seeded.results["c-forty"].winner.score
    )  # type: ignore[union-attr]
    report = client.get("/campaigns/c-demo", headers=BEARER)
    assert report.status_code == 200
    assert report.text == seeded.results["c-demo"].report_path.read_text("utf-8")
    assert report.headers["content-security-policy"] == REPORT_CSP
    assert client.get("/api/v1/campaigns/nope", headers=BEARER).status_code == 404
    missing = client.get("/campaigns/nope", headers=BEARER)
    assert missing.status_code == 404 and "No such campaign" in missing.text
    unwritten = client.get("/campaigns/c-running", headers=BEARER)
    assert unwritten.status_code == 404 and "no report yet" in unwritten.text


@pytest.mark.parametrize(
    "path", ["/", "/campaigns/c-demo", "/api/v1/overview", "/api/v1/campaigns/c-demo", "/api/v1/pulls"]
)
def test_every_route_but_healthz_needs_the_token(client: TestClient, path: str) -> None:
    bare = client.get(path)
    assert bare.status_code == 401 and bare.headers["www-authenticate"] == "Bearer"
    assert "candidate/honest" not in bare.text and "0.8805" not in bare.text and "octo/demo" not in bare.text
    assert client.get(path, headers={"Authorization": "Bearer " + TOKEN[:-1]}).status_code == 401
    assert client.get(path, headers={"Authorization": f"Basic {TOKEN}"}).status_code == 401
    assert client.get(path, headers=BEARER).status_code == 200
    if path.startswith("/api/"):
        assert bare.json()["error"].startswith("PROCTOR_DASHBOARD_TOKEN is set")
    assert client.get("/healthz").status_code == 200


def test_login_sets_an_http_only_strict_cookie_and_keeps_the_page(client: TestClient) -> None:
    form = client.get("/login?next=/campaigns/c-demo")
    assert form.status_code == 200 and 'name="next" value="/campaigns/c-demo"' in form.text
    wrong = client.post("/login", data={"token": "nope", "next": "/"})
    assert wrong.status_code == 401 and "proctor_dashboard" not in wrong.headers.get("set-cookie", "")
    right = client.post("/login", data={"token": TOKEN, "next": "/campaigns/c-demo"})
    assert right.status_code == 303 and right.headers["location"] == "/campaigns/c-demo"
    cookie = right.headers["set-cookie"].lower()
    assert "httponly" in cookie and "samesite=strict" in cookie and "path=/" in cookie
    assert client.get("/campaigns/c-demo").status_code == 200, "the cookie did not open the page"
    out = client.post("/logout")
    assert out.status_code == 303
    assert client.get("/").status_code == 401


@pytest.mark.parametrize(
    "target", ["//evil.example/", "https://evil.example/", "/\\evil.example", "evil", "/\r\nx"]
)
def test_login_never_leads_off_this_server(client: TestClient, target: str) -> None:
    answer = client.post("/login", data={"token": TOKEN, "next": target})
    assert answer.status_code == 303 and answer.headers["location"] == "/"


def test_without_a_token_everything_is_open(seeded: Seeded) -> None:
    client = TestClient(dashboard_state.web(seeded, token=""), follow_redirects=False)
    assert client.get("/").status_code == 200
    assert client.get("/api/v1/overview").status_code == 200
    assert client.get("/login?next=/campaigns/c-demo").headers["location"] == "/campaigns/c-demo"


def test_text_from_candidates_and_checks_is_escaped(client: TestClient) -> None:
    page = client.get("/", headers=BEARER)
    assert factory.HOSTILE not in page.text
    assert html.escape(factory.HOSTILE) in page.text, "the hostile check title should be shown, as text"
    assert "<script" not in page.text and "<img" not in page.text
    assert "script-src" not in page.headers["content-security-policy"]
    assert "default-src 'none'" in page.headers["content-security-policy"]
    assert page.headers["x-content-type-options"] == "nosniff"


def test_an_unreadable_scoreboard_lists_the_campaign_without_scores(tmp_path: Path) -> None:
    seeded = dashboard_state.seed(tmp_path)
    (seeded.results["c-demo"].scoreboard_path).write_text("{not json", "utf-8")
    client = TestClient(dashboard_state.web(seeded))
    campaign = client.get("/api/v1/campaigns/c-demo", headers=BEARER).json()
    assert campaign["baseline_score"] is None and campaign["report_url"] == "/campaigns/c-demo"
    assert client.get("/", headers=BEARER).status_code == 200
    assert json.loads(client.get("/api/v1/overview", headers=BEARER).text)["campaigns"]


def test_the_app_listens_on_loopback_unless_told() -> None:
    assert build_parser().parse_args([]).host == "127.0.0.1"
    assert build_parser().parse_args(["--host", "0.0.0.0"]).host == "0.0.0.0"
