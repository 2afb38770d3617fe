"""Run transcripts: stored compressed, in pages, through the "transcripts" storage, outside the tables the boards
read; each message also becomes a searchable entry (`SearchEntry`, anchor "m-<index>").

`transcript_write` takes a document already checked (`scoring.transcripts.transcript_problems`, run by the import
before its transaction) and writes it inside the caller's transaction, adding the names of the files it stored
to `written`: the caller deletes them when its transaction fails (`transcript_files_delete`), since Django has no
hook for a rollback. The pages of a transcript it replaces are removed once the transaction commits. So a
failed import leaves nothing behind and a good one leaves no orphan.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import secrets
from typing import Any

from django.conf import settings
from django.core.files.base import ContentFile
from django.core.files.storage import storages
from django.db import transaction

from scoring.transcripts import message_search_text, transcript_facts

from ..models import Run, SearchEntry, SearchKind, Transcript


def _storage():
    return storages["transcripts"]


def transcript_write(run: Run, doc: dict[str, Any], *, source: str, written: list[str]) -> Transcript | None:
    """Store `doc` as `run`'s transcript (replacing one it had) and its messages' search entries; the same
    document again changes nothing (returns None)."""
    digest = hashlib.sha256(json.dumps(doc, sort_keys=True, ensure_ascii=False).encode()).hexdigest()
    if Transcript.objects.filter(run=run, digest=digest).exists():
        return None
    messages: list[dict[str, Any]] = doc.get("messages") or []
    size = settings.TRANSCRIPT_PAGE_SIZE
    prefix = f"transcripts/{secrets.token_hex(16)}"  # a name that says nothing about the run
    storage = _storage()
    raw = stored = 0
    for page, start in enumerate(range(0, max(len(messages), 1), size)):
        body = json.dumps(messages[start : start + size], ensure_ascii=False).encode()
        packed = gzip.compress(body, compresslevel=6)
        written.append(storage.save(f"{prefix}/{page}.json.gz", ContentFile(packed)))
        raw, stored = raw + len(body), stored + len(packed)
    old = Transcript.objects.filter(run=run).first()
    if old is not None:
        old_prefix, old_pages = old.path, _page_count(old)
        transaction.on_commit(lambda: _delete_pages(old_prefix, old_pages))
        old.delete()
    transcript = Transcript.objects.create(
        run=run,
        source=source,
        path=prefix,
        message_count=len(messages),
        page_size=size,
        raw_bytes=raw,
        stored_bytes=stored,
        meta=transcript_facts(doc),
        digest=digest,
    )
    SearchEntry.objects.filter(run=run, kind=SearchKind.MESSAGE).delete()
    SearchEntry.objects.bulk_create(
        [
            SearchEntry(run=run, kind=SearchKind.MESSAGE, anchor=f"m-{i}", text=text)
            for i, m in enumerate(messages)
            if (text := message_search_text(m))
        ],
        batch_size=1000,
    )
    return transcript


def transcript_files_delete(written: list[str]) -> None:
    """Remove files `transcript_write` stored, after the transaction that referenced them failed."""
    storage = _storage()
    for name in written:
        storage.delete(name)


def _page_count(t: Transcript) -> int:
    return max(1, -(-t.message_count // max(t.page_size, 1)))


def _delete_pages(prefix: str, pages: int) -> None:
    storage = _storage()
    for page in range(pages):
        storage.delete(f"{prefix}/{page}.json.gz")


def transcript_page(t: Transcript, page: int) -> list[dict[str, Any]]:
    """The messages of one page (0-based) of a stored transcript."""
    with _storage().open(f"{t.path}/{page}.json.gz", "rb") as f:
        return json.loads(gzip.decompress(f.read()))
