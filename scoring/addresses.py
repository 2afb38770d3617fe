"""Which addresses from a bundle may become a link or a frame: the one rule for bundle validation, the run page
and the vote screen.

An address from outside is shown to every reader as a link (evidence) or opened in a frame (a preview), so a
`javascript:` or `data:` one would run its script on the site, and a `file:` or `ftp:` one points somewhere no
reader should be sent. Only two kinds pass:

- a web address: `http` or `https` with a host;
- a path on this site (`/media/evidence/...`), which is how the download gives a stored evidence file, so that
  importing the download again finds it. Never `//host` or `/\\host`, which a browser reads as another host.

Browsers drop tabs and line breaks inside an address and spaces around it before reading its scheme
(`java\\tscript:`); an address with any space or control character is refused outright, so there is nothing
for a browser to read differently from this check.
"""

from __future__ import annotations

import re

# `http` or `https` (any case), `//`, perhaps a user, then a host (a name or a bracketed IPv6 address), perhaps
# a port, and then the end or a path, query or fragment.
WEB_ADDRESS = re.compile(
    r"^https?://(?:[^/?#@]*@)?(?:\[[0-9A-Fa-f:.]+\]|[^/?#@:\[\]]+)(?::[0-9]*)?(?:[/?#]|$)", re.IGNORECASE
)


def _plain(url: str) -> bool:
    """No space, control character or backslash anywhere (a real address has them percent-encoded)."""
    return bool(url) and not any(ch <= " " or ch == "\x7f" or ch == "\\" for ch in url)


def is_web_address(url: str) -> bool:
    """An `http` or `https` address with a host: the only kind a preview may be framed from."""
    return isinstance(url, str) and _plain(url) and WEB_ADDRESS.match(url) is not None


def is_site_path(url: str) -> bool:
    """A path on this site (`/media/...`): no scheme, no host."""
    return isinstance(url, str) and _plain(url) and url.startswith("/") and not url.startswith("//")


def is_link_address(url: str) -> bool:
    """What an evidence link may point to: a web address or a path on this site."""
    return is_web_address(url) or is_site_path(url)
