"""The admin's change forms as a browser posts them: read a form page, change some fields, post it back."""

from __future__ import annotations

from html.parser import HTMLParser


class AdminForm(HTMLParser):
    """The change form's fields as a browser would post them (inputs, checked boxes, selects, textareas)."""

    def __init__(self) -> None:
        super().__init__()
        self.data: dict[str, str] = {}
        self._select: str | None = None
        self._textarea: str | None = None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        name = a.get("name")
        if tag == "input" and name and a.get("type") not in ("submit", "button", "file"):
            if a.get("type") == "checkbox":
                if "checked" in a:
                    self.data[name] = a.get("value") or "on"
            else:
                self.data[name] = a.get("value") or ""
        elif tag == "select" and name:
            self._select = name
            self.data.setdefault(name, "")
        elif tag == "option" and self._select and "selected" in a:
            self.data[self._select] = a.get("value") or ""
        elif tag == "textarea" and name:
            self._textarea = name
            self.data[name] = ""

    def handle_endtag(self, tag):
        if tag == "select":
            self._select = None
        elif tag == "textarea":
            self._textarea = None

    def handle_data(self, data):
        if self._textarea:
            self.data[self._textarea] += data


def admin_form(client, url: str) -> dict[str, str]:
    """The fields of the form at `url` (as `client` sees it) with the values a browser would post unchanged."""
    parser = AdminForm()
    parser.feed(client.get(url).content.decode())
    return parser.data
