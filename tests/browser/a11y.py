"""The accessibility check of the browser tests: axe-core (shipped inside the `axe-playwright-python` package, so
nothing is downloaded) run over the page as the browser shows it, failing on any WCAG 2.0, 2.1 or 2.2 A or AA
violation."""

from __future__ import annotations

from axe_playwright_python.sync_playwright import Axe

# axe tags each rule with the WCAG version that added it: 2.1 and 2.2 rules (autocomplete values, target size)
# carry only their own tag, so every version is listed.
WCAG_A_AA = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"]
# The apps on the vote screen are the agents' work shown in sandboxed frames, not the site's pages: axe checks
# the frame elements themselves (their titles) but does not go inside them.
OPTIONS = {"runOnly": {"type": "tag", "values": WCAG_A_AA}, "resultTypes": ["violations"], "iframes": False}


def violations(page) -> list[str]:
    """One line per WCAG 2.x A/AA violation on the page: the rule's id, its help text and the elements (CSS)."""
    found = Axe().run(page, options=OPTIONS).response["violations"]
    return [
        f"{v['id']}: {v['help']} ({v['impact']}) at {'; '.join(' '.join(map(str, n['target'])) for n in v['nodes'])}"
        for v in found
    ]


def assert_accessible(page) -> None:
    found = violations(page)
    assert not found, f"{page.url} breaks WCAG 2.x A/AA:\n" + "\n".join(found)
