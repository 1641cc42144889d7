"""The dashboard opened in headless Chromium over real HTTP, with and without PROCTOR_DASHBOARD_TOKEN.

Without the token every page and API route answers 401 and shows nothing recorded; with it (as a bearer
header, or through the /login form and its cookie) `/` and a campaign's report load with no console error, no
CSP violation and no injected markup, and their charts have a visible mark per campaign or candidate.
Screenshots are left in the test's tmp_path (dashboard-*.png) for a person to look at.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from core.campaign.report.model import build_model
from tests.github_app import dashboard_state
from tests.github_app.dashboard_browser import Browser, Page
from tests.github_app.dashboard_state import TOKEN, Seeded

PNG = b"\x89PNG\r\n\x1a\n"
SCORED_CAMPAIGNS = 3  # c-demo, c-forty, c-hostile; c-running has no scoreboard


@pytest.fixture(scope="module")
def seeded(tmp_path_factory: pytest.TempPathFactory) -> Seeded:
    return dashboard_state.seed(tmp_path_factory.mktemp("dashboard"))


@pytest.fixture(scope="module")
def base_url(seeded: Seeded) -> Iterator[str]:
    with dashboard_state.serving(dashboard_state.web(seeded)) as url:
        yield url


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Browser]:
    chrome = Browser(tmp_path_factory.mktemp("chromium"))
    yield chrome
    chrome.close()


def _shot(page: Page, out: Path) -> None:
    page.screenshot(out)
    data = out.read_bytes()
    assert data.startswith(PNG) and len(data) > 5000, f"{out} is not a real screenshot"


@pytest.mark.parametrize("path", ["/", "/?repo=octo/demo", "/campaigns/c-demo", "/api/v1/overview"])
def test_without_the_token_nothing_is_shown(browser: Browser, base_url: str, path: str) -> None:
    page = browser.page()
    visit = page.goto(base_url + path)
    assert visit.status == 401
    assert visit.seen["marks"] == []
    assert "octo/demo" not in visit.seen["text"] and "c-demo" not in visit.seen["text"]
    wrong = browser.page()
    wrong.headers({"Authorization": "Bearer not-the-token"})
    assert wrong.goto(base_url + path).status == 401


def test_with_the_bearer_token_the_overview_loads_cleanly_and_draws_the_chart(
    browser: Browser, base_url: str, tmp_path: Path
) -> None:
    page = browser.page()
    page.headers({"Authorization": f"Bearer {TOKEN}"})
    visit = page.goto(base_url + "/")
    assert visit.status == 200
    assert visit.errors == []
    seen = visit.seen
    assert len(seen["marks"]) == SCORED_CAMPAIGNS and all("baseline" in m for m in seen["marks"])
    assert seen["images"] == 0 and seen["scripts"] == 0 and seen["pwned"] == 0, "candidate markup got in"
    for text in ("octo/demo", "acme/tool", "c-forty", "auc 0.8805", "candidate/honest"):
        assert text in seen["text"]
    assert seen["scrollWidth"] <= seen["innerWidth"]
    _shot(page, tmp_path / "dashboard-overview.png")


def test_the_overview_fits_a_phone(browser: Browser, base_url: str, tmp_path: Path) -> None:
    page = browser.page(width=375, height=800)
    page.headers({"Authorization": f"Bearer {TOKEN}"})
    visit = page.goto(base_url + "/")
    assert visit.status == 200 and visit.errors == []
    assert len(visit.seen["marks"]) == SCORED_CAMPAIGNS
    assert visit.seen["scrollWidth"] <= visit.seen["innerWidth"], "the page scrolls sideways on a phone"
    _shot(page, tmp_path / "dashboard-phone.png")


def test_a_campaign_report_is_served_with_its_chart(
    browser: Browser, base_url: str, seeded: Seeded, tmp_path: Path
) -> None:
    page = browser.page()
    page.headers({"Authorization": f"Bearer {TOKEN}"})
    visit = page.goto(base_url + "/campaigns/c-demo")
    assert visit.status == 200
    assert visit.errors == [], "the report's own CSP or script failed when served by the dashboard"
    rows = build_model(seeded.results["c-demo"]).rows
    assert len(visit.seen["marks"]) == len(rows) and all(visit.seen["marks"])
    assert "Campaign c-demo" in visit.seen["text"]
    _shot(page, tmp_path / "dashboard-campaign.png")
    hostile = page.goto(base_url + "/campaigns/c-hostile")
    assert hostile.status == 200 and hostile.errors == []
    assert hostile.seen["images"] == 0 and hostile.seen["pwned"] == 0


def test_the_login_form_sets_a_cookie_that_opens_everything(browser: Browser, base_url: str) -> None:
    page = browser.page()
    locked = page.goto(base_url + "/?repo=octo/demo")
    assert locked.status == 401 and "PROCTOR_DASHBOARD_TOKEN" in locked.seen["text"]
    fill = "document.querySelector('input[name=token]').value = {!r}; document.querySelector('form').submit()"
    refused = page.submit(fill.format("wrong"))
    assert refused.status == 401 and "not the dashboard token" in refused.seen["text"]
    opened = page.submit(fill.format(TOKEN))
    assert opened.status == 200 and opened.errors == []
    assert opened.seen["path"] == "/" and "Showing octo/demo." in opened.seen["text"], "login lost `next`"
    assert len(opened.seen["marks"]) == 2  # octo/demo's two campaigns
    assert opened.seen["cookie"] == "", "the session cookie must be HttpOnly"
    api = page.goto(base_url + "/api/v1/campaigns?repo=acme/tool")
    assert api.status == 200 and '"campaign_id":"c-hostile"' in api.seen["text"]
    assert page.goto(base_url + "/campaigns/c-forty").status == 200


def test_the_probe_sees_injected_markup_when_a_page_does_not_escape(browser: Browser) -> None:
    """The control for the escaping checks above: the same payload, written raw, does inject."""
    from urllib.parse import quote

    from tests.core.report import factory

    raw = browser.page().goto("data:text/html," + quote(f"<p>{factory.HOSTILE}</p>"))
    assert raw.seen["images"] == 1 and raw.seen["pwned"] in (1, 2)
