"""What a voter does before voting: use both apps (the vote buttons sleep until the voter has gone into each)."""

from __future__ import annotations

from playwright.sync_api import expect


def use_both_apps(page) -> None:
    """Go into each app of the pair in turn, as a voter trying it does (a click in its frame once it has loaded;
    a side of screenshots only is looked at for a moment), then back to where the page was; the vote buttons are
    awake afterwards."""
    page.locator("#vote-stage form.vote-bar").wait_for()  # the pair's page, loaded
    scrolled = page.evaluate("scrollY")
    for side in page.locator("#vote-stage .side[data-side]").all():
        letter = side.get_attribute("data-side")
        if side.locator("iframe.live").count():
            expect(side.locator("iframe.live[data-settled]")).to_have_count(1, timeout=10_000)
            frame = page.frame_locator(f'iframe[title="App {letter}, live"]')
            frame.locator("body").click(position={"x": 3, "y": 3})
            page.wait_for_timeout(400)
        else:
            side.locator(".shots").first.evaluate("e => e.scrollIntoView({block: 'center'})")
            page.wait_for_timeout(1_200)
    expect(page.locator("#vote-stage form.vote-bar button[aria-disabled]")).to_have_count(0, timeout=5_000)
    page.evaluate("y => window.scrollTo(0, y)", scrolled)
