"""What a voter does before voting: look at both apps (the vote buttons sleep until each has been on screen)."""

from __future__ import annotations

from playwright.sync_api import expect


def see_both_apps(page) -> None:
    """Scroll each app of the pair on screen in turn, long enough to count as seen, then back to where the page
    was; the vote buttons are awake afterwards."""
    scrolled = page.evaluate("scrollY")
    for side in page.locator("#vote-stage .side[data-side]").all():
        app = side.locator(".live-wrap, .shots").first if side.locator(".live-wrap, .shots").count() else side
        app.evaluate("e => e.scrollIntoView({block: 'center'})")
        page.wait_for_timeout(1_200)
    expect(page.locator("#vote-stage form.vote-bar button[aria-disabled]")).to_have_count(0, timeout=5_000)
    page.evaluate("y => window.scrollTo(0, y)", scrolled)
