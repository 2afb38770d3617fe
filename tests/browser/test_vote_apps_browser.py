"""The two apps on the vote screen, used live in a real browser: a voter tries both and votes; a framed app
cannot read the site's cookies, call the site as the voter, or learn which agent built it."""

from __future__ import annotations

import json
import os
import re
import socket
import threading
from datetime import timedelta
from pathlib import Path

import pytest
from playwright.sync_api import expect

from tests.browser.voting import use_both_apps

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

ROOT = Path(__file__).resolve().parents[2]
PASSWORD = "plum-orchard-77-kite"


@pytest.fixture
def demo(transactional_db, settings, tmp_path):
    from bundles.importer import bundle_import

    settings.MEDIA_ROOT = tmp_path / "media"
    doc = json.loads((ROOT / "fixtures" / "appbench.json").read_text())
    doc["votes"] = []
    bundle_import(doc=doc, folder=ROOT / "fixtures")
    return doc


def _sign_up_a_day_ago(page, live_server) -> None:
    from django.contrib.auth import get_user_model
    from django.core import mail

    page.goto(f"{live_server.url}/signup/")
    page.get_by_label("Email").fill("voter@example.com")
    page.get_by_label("Password", exact=True).fill(PASSWORD)
    page.get_by_label("Password again").fill(PASSWORD)
    page.get_by_role("button", name="Sign up").click()
    page.get_by_role("button", name="Sign out").wait_for()
    # The address confirmed: the voter opens the link mailed at sign-up.
    (link,) = re.findall(r"https?://\S+", mail.outbox[-1].body)
    page.goto(link)
    assert "is confirmed" in page.content()
    # The new-account day, waited out: the account is moved a day and a bit into the past.
    user = get_user_model().objects.get(email="voter@example.com")
    user.date_joined -= timedelta(hours=25)
    user.save(update_fields=["date_joined"])


def _use_app(frame, text: str) -> None:
    frame.get_by_label("Your name").fill("Pat")
    frame.get_by_role("button", name="Join").click()
    frame.get_by_label("Message", exact=True).fill(text)
    frame.get_by_role("button", name=re.compile(r"^Send")).click()
    frame.get_by_text(text).wait_for()


def _shoot(page, name: str) -> None:
    """With VOTE_SCREENSHOTS_DIR set (`VOTE_SCREENSHOTS_DIR=docs make test PYTEST_ARGS="-k tries_both"`), the
    screen as the voter sees it, for the docs: one viewport from the top of the task (a full-page capture would
    paint the sticky vote bar across the middle of the apps)."""
    folder = os.environ.get("VOTE_SCREENSHOTS_DIR")
    if not folder:
        return
    Path(folder).mkdir(parents=True, exist_ok=True)
    page.locator(".vote-task").evaluate("e => window.scrollTo(0, e.getBoundingClientRect().top + scrollY - 12)")
    page.wait_for_timeout(300)
    page.screenshot(path=str(Path(folder) / f"{name}.png"))


def _stay_until_seen(page, title: str) -> None:
    """With the focus in an app's frame (`title` "App A, live"), stay there until the page has counted the app as
    used: from one frame straight into the other the page hears nothing and looks every 250 ms at which frame holds
    the focus, so a Tab through an app faster than that (a test's, on a busy machine) would leave it unseen."""
    found = re.fullmatch(r"App ([AB]), live", title or "")
    if found:
        page.locator(f'#vote-stage .side[data-side="{found.group(1)}"][data-used]').wait_for(
            state="attached", timeout=10_000
        )


def _wait_for_both_apps(page) -> None:
    for letter in "AB":
        page.frame_locator(f'iframe[title="App {letter}, live"]').get_by_label("Your name").wait_for()
    # The app has called focus() by now (it does as it renders its name field); the page takes the focus back.
    page.wait_for_function("() => document.activeElement.tagName !== 'IFRAME'", timeout=10_000)
    # Both frames have settled (loaded a moment ago, or on screen for a while): from now on the apps are the
    # voter's, as they are for a person, whose first click comes later than a test's.
    expect(page.locator("#vote-stage iframe.live[data-settled]")).to_have_count(2)


def test_a_voter_tries_both_apps_votes_and_sees_the_reveal(live_server, demo, browser):
    from voting.models import Vote

    names = [a["name"] for a in demo["agents"]]
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    _sign_up_a_day_ago(page, live_server)
    page.goto(f"{live_server.url}/vote/")
    stage = page.locator("#vote-stage")
    assert "Reinvent a messenger" in stage.inner_text()
    assert "Try the same things in both apps" in stage.inner_text()
    assert "Your account is new" not in stage.inner_text()
    before = stage.inner_text()
    assert not [n for n in names if n in before]
    assert not re.search(r"\b\d+ of \d+\b", before)  # no count of the checker
    _wait_for_both_apps(page)
    _use_app(page.frame_locator('iframe[title="App A, live"]'), "hello from A")
    _use_app(page.frame_locator('iframe[title="App B, live"]'), "hello from B")
    # Straight from app A into app B the page hears nothing: it looks every 250 ms at which frame holds the focus.
    # A person stays in B a while; so does this test, until the page has seen B (a busy machine runs that look late).
    expect(stage.locator("form.vote-bar button[aria-disabled]")).to_have_count(0, timeout=15_000)
    _shoot(page, "vote-desktop")
    page.set_viewport_size({"width": 390, "height": 844})
    _shoot(page, "vote-phone")
    page.set_viewport_size({"width": 1280, "height": 900})

    # Full screen and back, by keyboard. While app A fills the window the rest of the page is inert: Tab from
    # its button goes into app A, and nothing behind it (app B, the vote buttons) can be reached.
    toggle = stage.locator("article").nth(0).get_by_role("button", name="Open full screen")
    toggle.click()
    assert page.locator("#live-A").evaluate("e => getComputedStyle(e).position") == "fixed"
    inert = "sel => !!document.querySelector(sel).closest('[inert]')"
    assert page.evaluate(inert, ".vote-bar") and page.evaluate(inert, "#live-B") and page.evaluate(inert, "h1")
    assert not page.evaluate(inert, "#live-A") and not page.evaluate(inert, ".side-tools.fixed")
    page.keyboard.press("Tab")
    # The sandboxed app runs in its own renderer process: the page learns that the focus went into the frame a
    # moment after the key press, later still on a loaded machine. Wait for it (a Tab that goes elsewhere fails).
    page.wait_for_function("() => document.activeElement.title === 'App A, live'", timeout=5_000)
    page.keyboard.press("Shift+Tab")
    # Back on the page (again a moment after the key press, the app being in its own process): Escape then
    # reaches the page, not the app.
    page.wait_for_function("() => document.activeElement.textContent.trim() === 'Close full screen'", timeout=5_000)
    page.keyboard.press("Escape")
    assert page.locator("#live-A").evaluate("e => getComputedStyle(e).position") != "fixed"
    assert page.evaluate("() => document.querySelectorAll('[inert]').length") == 0

    stage.get_by_role("button", name="B is better").click()
    page.get_by_role("link", name="Next pair").wait_for()
    after = stage.inner_text()
    assert len([n for n in names if n in after]) == 2 and "Your vote counts." in after
    vote = Vote.objects.get()
    assert (vote.winner, vote.counts) == ("b", True)
    assert not [e for e in errors if "Content Security Policy" in e], errors


def test_reload_app_starts_an_app_again_with_what_it_saved_and_the_broken_app_loses_it(live_server, demo, browser):
    # The task's scenario: send a message, reload the app, find the message again. "Reload app" loads the same
    # frame again, so a working app finds its saved messages; the demo's app that breaks after a reload (the
    # agent orbit's) does not.
    from django.contrib.auth import get_user_model

    from runs.models import Run
    from tests.builders.voting import matchup_for
    from voting.models import Matchup

    page = browser.new_page(viewport={"width": 1280, "height": 900})
    _sign_up_a_day_ago(page, live_server)
    messenger = Run.objects.filter(task__key="messenger", app_build__isnull=False)
    broken = messenger.filter(entry__agent__slug="orbit").first()
    working = messenger.filter(entry__agent__slug="forge").first()
    matchup_for(get_user_model().objects.get(email="voter@example.com"), broken, working)
    page.goto(f"{live_server.url}/vote/")
    stage = page.locator("#vote-stage")
    _wait_for_both_apps(page)
    for letter in "AB":
        _use_app(page.frame_locator(f'iframe[title="App {letter}, live"]'), f"kept by {letter}?")
    matchup = Matchup.objects.get()
    loads: list[str] = []
    page.on("framenavigated", lambda f: loads.append(f.url) if "/vote/app/" in f.url else None)
    for letter in "AB":
        stage.get_by_role("button", name=f"Reload app {letter}").click()
        # The focus stays on the button while the app loads again, even as the app focuses its own field.
        expect(stage.get_by_role("button", name=f"Reload app {letter}")).to_be_focused()
    working_app = page.frame_locator('iframe[title="App B, live"]')
    working_app.get_by_text("kept by B?").wait_for()
    # The broken app's frame has loaded again (navigated, and its document and scripts are done) and its
    # message is gone.
    broken = next(f for f in page.frames if f.url.endswith(f"/vote/app/{matchup.alias_a}/"))
    assert [u for u in loads if u.endswith(f"/vote/app/{matchup.alias_a}/")], loads
    broken.wait_for_load_state("load")
    assert broken.evaluate("document.readyState") == "complete"
    assert page.frame_locator('iframe[title="App A, live"]').get_by_text("kept by A?").count() == 0


def test_on_a_phone_the_apps_loading_never_scroll_the_page_away_from_the_task(live_server, demo, browser):
    # Every demo app focuses its name field as it loads; on a phone that used to scroll the page down to app A,
    # past the task and its scenarios (the page opened about 700 px down). A frame is inert while it loads.
    page = browser.new_page(viewport={"width": 390, "height": 844})
    _sign_up_a_day_ago(page, live_server)
    page.goto(f"{live_server.url}/vote/")
    _wait_for_both_apps(page)
    page.wait_for_timeout(300)
    assert page.evaluate("scrollY") == 0
    use_both_apps(page)
    page.locator("#vote-stage").get_by_role("button", name="Tie").click()
    page.get_by_role("link", name="Next pair").wait_for()
    _wait_for_both_apps(page)  # the revealed pair's apps load again
    page.evaluate("window.scrollTo(0, 0)")
    page.get_by_role("link", name="Next pair").click()  # the new pair is scrolled to its top
    page.locator("#vote-stage").get_by_role("button", name="Tie").wait_for()
    top = page.evaluate("Math.round(document.getElementById('vote-stage').getBoundingClientRect().top)")
    _wait_for_both_apps(page)
    page.wait_for_timeout(300)
    assert abs(top) <= 1
    assert page.evaluate("Math.round(document.getElementById('vote-stage').getBoundingClientRect().top)") == top


def test_the_vote_screen_works_by_keyboard_alone(live_server, demo, browser):
    from voting.models import Vote

    page = browser.new_page(viewport={"width": 1280, "height": 900})
    _sign_up_a_day_ago(page, live_server)
    page.goto(f"{live_server.url}/vote/")
    page.locator("#vote-stage").wait_for()
    # Every demo app focuses its name field as it loads; the page keeps the focus until the voter goes in.
    _wait_for_both_apps(page)
    page.locator("#scope").focus()
    seen = []
    for _ in range(80):
        page.keyboard.press("Tab")
        seen.append(page.evaluate("() => document.activeElement.title || document.activeElement.textContent.trim()"))
        _stay_until_seen(page, seen[-1])
        if seen[-1] == "A is better":
            break
    # Tab went into app A, then app B, then reached the vote buttons.
    assert seen.index("App A, live") < seen.index("App B, live") < seen.index("A is better")
    page.keyboard.press("Enter")
    page.get_by_role("link", name="Next pair").wait_for()
    assert Vote.objects.get().winner == "a"
    _wait_for_both_apps(page)  # the revealed pair's apps load again and try to take the focus
    # The vote's answer held the next pair: "Next pair" (it has the focus) shows it without asking the server,
    # and the focus moves to the new pair (Tab then goes on into its apps, as from the first pair above).
    asked: list[str] = []
    page.on("request", lambda r: asked.append(r.url) if "/vote/m/" in r.url or r.url.endswith("/vote/") else None)
    expect(page.get_by_role("link", name="Next pair")).to_be_focused()  # htmx focuses it once the swap settles
    page.keyboard.press("Enter")
    page.locator("#vote-stage").get_by_role("button", name="A is better").wait_for()
    assert asked == []
    _wait_for_both_apps(page)
    expect(page.locator("#vote-stage")).to_be_focused()
    # The new pair votes through htmx like the first one (once both its apps are used): its answer is the revealed
    # pair again.
    use_both_apps(page)
    page.locator("#vote-stage").get_by_role("button", name="B is better").click()
    page.get_by_role("link", name="Next pair").wait_for()
    assert list(Vote.objects.order_by("id").values_list("winner", flat=True)) == ["a", "b"]


def test_a_framed_app_cannot_read_the_sites_cookies_or_act_as_the_voter(live_server, demo, browser):
    from voting.models import Matchup, Vote

    page = browser.new_page(viewport={"width": 1280, "height": 900})
    _sign_up_a_day_ago(page, live_server)
    page.goto(f"{live_server.url}/vote/")
    page.frame_locator('iframe[title="App A, live"]').get_by_label("Your name").wait_for()
    site_cookies = {c["name"]: c["value"] for c in page.context.cookies()}
    assert "sessionid" in site_cookies and "csrftoken" in site_cookies
    assert page.evaluate("() => document.cookie").count("csrftoken") == 1  # the site itself can read this one
    matchup = Matchup.objects.get()
    frame = next(f for f in page.frames if f.url.endswith(f"/vote/app/{matchup.alias_a}/"))

    assert frame.evaluate("() => { try { return document.cookie; } catch (e) { return 'refused: ' + e.name; } }") == (
        "refused: SecurityError"
    )
    assert frame.evaluate("() => origin") == "null"
    # Reading a page of the site as the voter: refused by the browser (no CORS) and sent without the session.
    got = frame.evaluate(
        """async () => { try { const r = await fetch('/vote/', {credentials: 'include'});
             return 'read ' + r.status + ' ' + (await r.text()).length; } catch (e) { return 'refused'; } }"""
    )
    assert got == "refused"
    # What the browser sends for the app's requests to the site: never the voter's cookies (the app's origin is
    # opaque, so every request it makes is cross-site and the Lax cookies stay behind).
    sent: dict[str, str] = {}
    page.on("request", lambda r: sent.update({r.url: r.all_headers().get("cookie", "")}) if "probe=" in r.url else None)
    frame.evaluate(
        """async () => { await fetch('/vote/?probe=fetch', {mode: 'no-cors', credentials: 'include'});
             const img = new Image(); img.src = '/vote/?probe=img'; await new Promise(r => img.onerror = r); }"""
    )
    assert {u.split("probe=")[1] for u in sent} == {"fetch", "img"}
    assert not [u for u, cookie in sent.items() if "sessionid" in cookie or "csrftoken" in cookie], sent
    # Voting as the voter from inside the app, even holding the right CSRF token (as if the app had learnt it):
    # the request is cross-site, carries no session and its origin is opaque, so it is refused.
    token = site_cookies["csrftoken"]
    frame.evaluate(
        f"""async () => {{ try {{ await fetch('/vote/m/{matchup.key}/', {{method: 'POST', mode: 'no-cors',
             credentials: 'include', headers: {{'X-CSRFToken': '{token}'}},
             body: new URLSearchParams({{winner: 'a', csrfmiddlewaretoken: '{token}'}})}}); }} catch (e) {{}} }}"""
    )
    assert not Vote.objects.exists()
    # The parent page is out of reach too.
    assert frame.evaluate("() => { try { return parent.document.title; } catch (e) { return e.name; } }") == (
        "SecurityError"
    )
    # The app names nothing: neither its address nor its document says which agent built it.
    run = matchup.run_a
    text = (frame.url + frame.content()).lower()
    for needle in (run.key, run.entry.agent.slug, run.entry.agent.name, run.entry.model):
        assert needle.lower() not in text


def test_an_app_keeps_its_local_storage_across_a_reload_of_its_frame(live_server, demo, browser):
    from voting.models import Matchup

    page = browser.new_page(viewport={"width": 1280, "height": 900})
    _sign_up_a_day_ago(page, live_server)
    page.goto(f"{live_server.url}/vote/")
    page.frame_locator('iframe[title="App A, live"]').get_by_label("Your name").wait_for()
    alias = Matchup.objects.get().alias_a
    frame = next(f for f in page.frames if f.url.endswith(f"/vote/app/{alias}/"))
    frame.evaluate("() => localStorage.setItem('probe', 'kept')")
    frame.evaluate("() => location.reload()")
    page.frame_locator('iframe[title="App A, live"]').get_by_label("Your name").wait_for()
    frame = next(f for f in page.frames if f.url.endswith(f"/vote/app/{alias}/"))
    assert frame.evaluate("() => localStorage.getItem('probe')") == "kept"


@pytest.fixture
def host_that_never_answers():
    """A picture host that takes the connection and never answers (a third-party server that hangs)."""
    server = socket.create_server(("127.0.0.1", 0))
    held: list[socket.socket] = []
    stop = threading.Event()

    def hold() -> None:
        server.settimeout(0.2)
        while not stop.is_set():
            try:
                held.append(server.accept()[0])
            except TimeoutError:
                continue

    thread = threading.Thread(target=hold, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.getsockname()[1]}"
    stop.set()
    thread.join()
    for conn in held:
        conn.close()
    server.close()


def test_an_app_that_never_finishes_loading_is_the_voters_after_a_moment(
    live_server, demo, browser, host_that_never_answers
):
    """The page keeps the focus while a frame loads (an app focusing its own field must not take the voter's
    next key), but not for ever: an app with a picture that never arrives is usable all the same."""
    from runs.models import AppBuild
    from runs.services.app_builds import app_build_file, builds_storage

    for build in AppBuild.objects.all():  # every app shows a picture from a host that never answers
        entry = Path(builds_storage().path(app_build_file(build, "")))
        picture = f'<img src="{host_that_never_answers}/never.png" alt="">'
        entry.write_text(entry.read_text().replace("</body>", f"{picture}</body>"))
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    _sign_up_a_day_ago(page, live_server)
    page.goto(f"{live_server.url}/vote/", wait_until="domcontentloaded")
    app = page.frame_locator('iframe[title="App A, live"]')
    app.get_by_label("Your name").wait_for()
    # The app focused its name field as it rendered; the frame is still loading, so the page kept the focus.
    page.wait_for_function("() => document.activeElement.tagName !== 'IFRAME'", timeout=10_000)
    assert page.locator("iframe.live[data-settled]").count() == 0
    expect(page.locator("#vote-stage iframe.live[data-settled]")).to_have_count(2)  # after a moment on screen
    _use_app(app, "typed while a picture still loads")


def _asleep(page) -> bool:
    return page.locator("#vote-stage form.vote-bar button[aria-disabled='true']").count() == 3


def _try_to_vote_while_asleep(page) -> None:
    """A tap (forced past Playwright's own wait for an enabled button) and Enter on a vote button send nothing."""
    from voting.models import Vote

    bar = page.locator("#vote-stage form.vote-bar")
    bar.get_by_role("button", name="A is better").click(force=True)
    bar.get_by_role("button", name="Tie").focus()
    page.keyboard.press("Enter")
    page.keyboard.press("Space")
    page.wait_for_timeout(500)
    assert Vote.objects.count() == 0
    assert _asleep(page)


@pytest.mark.parametrize("size", [{"width": 390, "height": 844}, {"width": 1366, "height": 900}])
def test_the_vote_buttons_sleep_until_the_voter_has_used_both_apps(live_server, demo, browser, size):
    """Seed 003: people rank the apps "trying the same scenarios in both". Apps on screen are not apps tried: on a
    desktop both stand in the first screen from the start, and the buttons used to wake a second later."""
    from voting.models import Vote

    page = browser.new_page(viewport=size, is_mobile=size["width"] < 500, has_touch=size["width"] < 500)
    _sign_up_a_day_ago(page, live_server)
    page.goto(f"{live_server.url}/vote/", wait_until="domcontentloaded")
    bar = page.locator("#vote-stage form.vote-bar")
    # From the first paint the bar says why its buttons do nothing yet, to the eye and to a screen reader.
    assert _asleep(page)
    wait = bar.locator("[data-vote-wait]")
    described = bar.get_by_role("button", name="A is better").get_attribute("aria-describedby")
    assert described == wait.get_attribute("id")
    assert bar.get_by_role("button", name="A is better").is_visible()  # the sticky bar, in view on a phone too
    _wait_for_both_apps(page)
    # Each app on screen for a while, untouched: the buttons sleep on.
    for letter in "AB":
        page.locator(f"#live-{letter}").scroll_into_view_if_needed()
        page.wait_for_timeout(1_500)
    _try_to_vote_while_asleep(page)
    assert "wake once you have used both apps" in wait.inner_text()
    # Into app A (a click in it, as a voter starting to try it): B is still to be tried.
    page.frame_locator('iframe[title="App A, live"]').get_by_label("Your name").click()
    expect(wait).to_contain_text("used app B too", timeout=5_000)
    _try_to_vote_while_asleep(page)
    # Straight from app A into app B: both used, the buttons wake.
    page.frame_locator('iframe[title="App B, live"]').get_by_label("Your name").click()
    expect(bar.locator("button[aria-disabled]")).to_have_count(0, timeout=5_000)
    expect(wait).to_have_text("You have used both apps: vote when you are ready.")
    bar.get_by_role("button", name="B is better").click()
    page.get_by_role("link", name="Next pair").wait_for()
    assert Vote.objects.get().winner == "b"


def test_on_a_desktop_the_two_apps_start_in_the_first_screen(live_server, demo, browser):
    """At 1366x900, a new voter whose address is not confirmed yet (two notices) on a task with scenarios: the
    notices, the scenarios and the keyboard help are one line each, opened on demand, and both apps start in the
    first screen, with most of each in it (they started at about 680 px)."""
    page = browser.new_page(viewport={"width": 1366, "height": 900})
    page.goto(f"{live_server.url}/signup/?next=/vote/")
    page.get_by_label("Email").fill("voter@example.com")
    page.get_by_label("Password", exact=True).fill(PASSWORD)
    page.get_by_label("Password again").fill(PASSWORD)
    page.get_by_role("button", name="Sign up").click()
    page.wait_for_url("**/vote/")
    page.goto(f"{live_server.url}/vote/")  # the page as it opens again, without the one-time "we sent a link"
    _wait_for_both_apps(page)
    page.evaluate("window.scrollTo(0, 0)")
    for letter in "AB":
        frame = page.locator(f"#live-{letter} iframe.live").bounding_box()
        assert frame is not None and frame["y"] + frame["height"] / 2 <= 900, (letter, frame)
    status = page.locator("#vote-status")
    expect(status).to_contain_text("Your votes count once you confirm your email address")
    expect(status).to_contain_text("Your votes start counting on")
    # Each folded part opens in place with all it said before.
    status.locator("summary").click()
    expect(status.get_by_role("button", name="Send the link again")).to_be_visible()
    expect(status).to_contain_text("a day after you signed up")
    page.locator("#scenarios summary").click()
    expect(page.locator("#scenarios li").first).to_have_text("Sign up with a name of your choice")
    page.locator("#vote-keys summary").click()
    expect(page.locator("#vote-keys")).to_contain_text("Tab moves into app A")


def test_by_keyboard_the_vote_buttons_wake_once_the_focus_has_been_in_both_apps(live_server, demo, browser):
    from voting.models import Vote

    page = browser.new_page(viewport={"width": 390, "height": 844})
    _sign_up_a_day_ago(page, live_server)
    page.goto(f"{live_server.url}/vote/")
    _wait_for_both_apps(page)
    page.evaluate("window.scrollTo(0, 0)")
    _try_to_vote_while_asleep(page)
    # Tab from the task picker into app A, through it, into app B and on to the buttons, as the keyboard help
    # says; going into each app is seeing it.
    page.locator("#scope").focus()
    for _ in range(80):
        page.keyboard.press("Tab")
        _stay_until_seen(page, page.evaluate("() => document.activeElement.title"))
        if page.evaluate("() => document.activeElement.textContent.trim()") == "A is better":
            break
    expect(page.locator("#vote-stage form.vote-bar button[aria-disabled]")).to_have_count(0, timeout=5_000)
    page.keyboard.press("Enter")
    page.get_by_role("link", name="Next pair").wait_for()
    assert Vote.objects.get().winner == "a"
