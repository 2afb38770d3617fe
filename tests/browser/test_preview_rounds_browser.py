"""A round not yet published, in Chromium at 1280x900, on the demo's data (ARTB's Round 3 is in preview):
staff (an editor, a reviewer) follow every link of its board and reach a page, never "not found"; the public
and a vendor get "not found" from each of those addresses; and the vendor whose agent ran in the round reads
its own run page, the run as JSON and the run among the task's runs."""

import pytest
from django.contrib.auth.models import Group, User

from leaderboard.models import Membership, Organization
from tests.browser.conftest import SIZES
from tests.builders.review import make_user

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
PASSWORD = "a-browser-test-password"
BOARD = "/b/artb/r/2026-r3/"  # the demo's round in preview
VENDOR_ORG = "Cirrus Labs"  # makes Nimbus Agent, one of Round 3's agents
RUN = "/b/artb/r/2026-r3/runs/artb-r3-nimbus-flight-compare/"
# Every link of a page, as the browser resolves it (an SVG link's href is not a string: read the attribute).
LINKS = "as => [...new Set(as.map(a => new URL(a.getAttribute('href'), location.href).href.split('#')[0]))]"


def _site_user(email: str, group: str, org: str | None = None) -> User:
    """A site account (signed in by its email, which is its username)."""
    user = User.objects.create_user(email, email, PASSWORD)
    user.groups.add(Group.objects.get(name=group))
    if org:
        Membership.objects.create(user=user, organization=Organization.objects.get(name=org))
    return user


def _signed_in(browser, live_server, username: str):
    page = browser.new_context(viewport=SIZES["desktop"]).new_page()
    if username:
        page.goto(f"{live_server.url}/admin/login/" if "@" not in username else f"{live_server.url}/signin/")
        if "@" in username:
            page.get_by_label("Email").fill(username)
            page.get_by_label("Password").fill(PASSWORD)
            page.get_by_role("button", name="Sign in").click()
            page.wait_for_url(f"{live_server.url}/")
        else:
            page.fill("#id_username", username)
            page.fill("#id_password", PASSWORD)
            page.click("input[type=submit]")
            page.wait_for_url(f"{live_server.url}/admin/")
    return page


def _statuses(page, urls: list[str]) -> dict[str, int]:
    """Each address as this page's account gets it (its cookies), redirects not followed."""
    return {url: page.request.get(url, max_redirects=0).status for url in urls}


@pytest.mark.parametrize("role", ["Editors", "Reviewers"])
def test_staff_follow_every_link_of_the_preview_board_and_nobody_else_reaches_them(live_server, browser, demo, role):
    make_user("staffer", role, password=PASSWORD)
    _site_user("vera@example.com", "Vendors", VENDOR_ORG)
    staff = _signed_in(browser, live_server, "staffer")
    assert staff.goto(live_server.url + BOARD).status == 200
    assert "Not public." in staff.locator(".not-public").inner_text()
    links = [u for u in staff.eval_on_selector_all("a[href]", LINKS) if u.startswith(live_server.url)]
    preview = [u for u in links if "2026-r3" in u]
    # The board's own pages of the round: its agents, head-to-heads, CSVs, tasks, changelog and trade-offs.
    for part in ("/agents/", "/compare/", "board.csv", "/tasks/", "tasks.csv", "/changelog/", "/tradeoffs/"):
        assert any(part in u for u in preview), part
    missing = {u: s for u, s in _statuses(staff, links).items() if s >= 400}
    assert not missing, missing
    # One step further: an agent's page of the round and every link on it (its run pages, its tasks).
    staff.goto(next(u for u in preview if "/agents/nimbus/" in u))
    assert "Not public." in staff.locator(".not-public").first.inner_text()
    deeper = [u for u in staff.eval_on_selector_all("a[href]", LINKS) if u.startswith(live_server.url)]
    assert any("/runs/" in u for u in deeper)
    missing = {u: s for u, s in _statuses(staff, deeper).items() if s >= 400}
    assert not missing, missing
    assert staff.goto(live_server.url + RUN).status == 200
    assert "only staff see this page" in staff.locator(".not-public").inner_text()

    # The public and a vendor get "not found" from every address of the round the board links to (the vendor
    # reads its own agent's results on its preview pages, not here).
    anonymous = _signed_in(browser, live_server, "")
    vendor = _signed_in(browser, live_server, "vera@example.com")
    for page in (anonymous, vendor):
        seen = {u: s for u, s in _statuses(page, preview).items() if s != 404}
        assert not seen, seen
    assert _statuses(anonymous, [live_server.url + RUN, live_server.url + RUN.rstrip("/") + ".json"]) == {
        live_server.url + RUN: 404,
        live_server.url + RUN.rstrip("/") + ".json": 404,
    }


def test_a_vendor_reads_its_preview_run_as_json_and_among_the_tasks_runs(live_server, browser, demo):
    _site_user("vera@example.com", "Vendors", VENDOR_ORG)
    _site_user("otto@example.com", "Vendors", "Harborline Systems")  # another agent of the round
    page = _signed_in(browser, live_server, "vera@example.com")
    assert page.goto(live_server.url + RUN).status == 200
    with page.expect_response("**/artb-r3-nimbus-flight-compare.json") as answer:
        page.get_by_role("link", name="This run as JSON").click()
    assert answer.value.status == 200
    doc = answer.value.json()
    assert doc["id"] == "artb-r3-nimbus-flight-compare" and doc["round"] == "2026-r3"
    page.goto(live_server.url + RUN)
    page.get_by_role("link", name="All runs of this task").click()
    page.wait_for_url("**/b/artb/tasks/flight-compare/?agent=nimbus*")
    # The preview round's section comes first, marked, with the vendor's own run and nobody else's.
    first = page.locator("main section[aria-labelledby^='round-']").first
    assert first.locator("h2").inner_text().startswith("Runs in Round 3")
    assert "Not public." in first.locator(".not-public").inner_text()
    assert first.locator("tbody tr").count() == 1
    assert first.locator("tbody th").inner_text().startswith("Nimbus")
    first.locator(f"a[href='{RUN}']").first.click()
    page.wait_for_url("**" + RUN)

    # Another vendor reads neither the run nor its JSON, and the task page shows it no Round 3 run of Nimbus.
    other = _signed_in(browser, live_server, "otto@example.com")
    json_url = live_server.url + RUN.rstrip("/") + ".json"
    assert _statuses(other, [live_server.url + RUN, json_url]) == {live_server.url + RUN: 404, json_url: 404}
    other.goto(live_server.url + "/b/artb/tasks/flight-compare/")
    assert "artb-r3-nimbus" not in other.content()
