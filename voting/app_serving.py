"""How a file of an app build is sent to the vote screen's frame: sandboxed, private, with no cookie of the site.

`Content-Security-Policy: sandbox allow-scripts allow-forms` (never `allow-same-origin`) puts the document in
an opaque origin whatever frames it or however it is opened (a new tab included): its scripts run, its forms
submit, but `document.cookie` of the site is out of reach and a request it makes to the site is cross-site,
so it carries no session. The vote screen frames it with the same `sandbox` attribute.

An opaque origin has no `localStorage`; an app that keeps its data there (the usual static app) would throw
on load. Every HTML document therefore starts with a small shim: when `localStorage` is not available it is
replaced by an in-memory store kept in `window.name`, which lives as long as the frame, so an app finds its
data again after a reload, and nothing leaves the frame.

Every HTML document, script and style sheet of a build is also sent with a comment of its own for the pair
(`serving_mark`, from the site's secret and the alias): the same build is otherwise the same bytes for every
voter, and a voter who kept a digest of each file that a reveal named would recognise the build in the next
pair. The comment changes nothing the app does. It only stops a digest of a file as served from matching; a
voter who takes the comment out again, or compares pictures, fonts or data files (sent as they are), or the
app's look, can still tell a build they have seen (docs/vote-screen.md, "What still tells an app").

The same script keeps an app's `focus()` from scrolling until a moment after the app has loaded. Many apps
focus a field as they render; in a frame that scrolls the voter's page to the app (on a phone, down past the
task and its scenarios), and the vote screen (`static/js/vote.js`) takes the focus back but cannot undo the
scroll. Once the app has loaded, its focus() is its own again.
"""

from __future__ import annotations

import mimetypes
import re
from pathlib import PurePath, PurePosixPath

from django.conf import settings
from django.core.files.storage import Storage
from django.http import FileResponse, HttpResponse
from django.utils.crypto import salted_hmac
from django.utils.csp import CSP

from runs.stored_files import streamed

APP_CSP = {
    "sandbox": ["allow-scripts", "allow-forms"],
    "frame-ancestors": [CSP.SELF, *settings.CSRF_TRUSTED_ORIGINS],
}

STORAGE_SHIM = b"""<script>(function () {
  try { if (window.localStorage) return; } catch (e) {}
  var KEY = "app-storage:", data = {};
  try { if (window.name.indexOf(KEY) === 0) data = JSON.parse(window.name.slice(KEY.length)) || {}; } catch (e) {}
  function save() { window.name = KEY + JSON.stringify(data); }
  var store = {
    getItem: function (k) { k = String(k); return Object.prototype.hasOwnProperty.call(data, k) ? data[k] : null; },
    setItem: function (k, v) { data[String(k)] = String(v); save(); },
    removeItem: function (k) { delete data[String(k)]; save(); },
    clear: function () { data = {}; save(); },
    key: function (i) { var ks = Object.keys(data); return i < ks.length ? ks[i] : null; },
    get length() { return Object.keys(data).length; }
  };
  try { Object.defineProperty(window, "localStorage", { value: store, configurable: true }); } catch (e) {}
})();
(function () {
  var focus = HTMLElement.prototype.focus;
  HTMLElement.prototype.focus = function (options) {
    return focus.call(this, Object.assign({}, options, { preventScroll: true }));
  };
  addEventListener("load", function () { setTimeout(function () { HTMLElement.prototype.focus = focus; }, 500); });
})();</script>
"""
_DOCTYPE = re.compile(rb"^\s*(\xef\xbb\xbf)?\s*<!doctype[^>]*>", re.IGNORECASE)
_TYPES = {".js": "text/javascript", ".mjs": "text/javascript", ".css": "text/css", ".json": "application/json"}
# Files sent with the pair's comment added at their end (a block comment is harmless in either).
_MARKED = {".js", ".mjs", ".css"}


def content_type_of(path: PurePath) -> str:
    suffix = path.suffix.lower()
    if suffix in (".html", ".htm"):
        return "text/html; charset=utf-8"
    guessed = _TYPES.get(suffix) or mimetypes.guess_type(path.name)[0] or "application/octet-stream"
    return f"{guessed}; charset=utf-8" if guessed.startswith("text/") else guessed


def serving_mark(alias: str) -> str:
    """The comment text of one side of one pair: from the site's secret and the alias, so it says nothing."""
    return salted_hmac("voting.app_serving", alias, algorithm="sha256").hexdigest()[:32]


def with_storage_shim(html: bytes, mark: str = "") -> bytes:
    """The document with the shim, then the pair's comment, right after its doctype (so standards mode is
    kept), or at its start."""
    match = _DOCTYPE.match(html)
    cut = match.end() if match else 0
    comment = f"<!-- {mark} -->\n".encode() if mark else b""
    return html[:cut] + b"\n" + STORAGE_SHIM + comment + html[cut:]


def app_file_response(storage: Storage, name: str, *, private_seconds: int, mark: str = "") -> HttpResponse:
    """The stored file `name` of a build, from `storage`: documents, scripts and style sheets (which get the
    shim or the pair's comment, and which a build's size limit keeps small) read whole, anything else streamed
    from the storage as it is read."""
    path = PurePosixPath(name)
    content_type = content_type_of(path)
    response: HttpResponse
    handle = storage.open(name, "rb")
    if content_type.startswith("text/html"):
        with handle:
            response = HttpResponse(with_storage_shim(handle.read(), mark), content_type=content_type)
    elif mark and path.suffix.lower() in _MARKED:
        with handle:
            response = HttpResponse(handle.read() + f"\n/* {mark} */\n".encode(), content_type=content_type)
    else:
        response = FileResponse(streamed(handle), content_type=content_type)
        response["Content-Length"] = str(handle.size)
        response.headers.pop("Content-Disposition", None)
    response["Cache-Control"] = f"private, max-age={private_seconds}"
    response["Referrer-Policy"] = "no-referrer"
    if not content_type.startswith("text/html"):
        # A sandboxed document's module scripts are fetched with CORS from origin "null"; no credentials.
        response["Access-Control-Allow-Origin"] = "*"
    return response
