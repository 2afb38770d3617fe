"""A run's app as a static build: checked, stored file by file in the "app_builds" storage, found again.

A build is `index.html` plus its assets, from an uploaded zip (`app_build_from_zip`) or a folder next to a
bundle (`app_build_from_folder`). Bad input is refused with a clear message (AppBuildError) and writes
nothing: a build over APP_BUILD_MAX_BYTES or APP_BUILD_MAX_FILES, a path that climbs out (`..`, an absolute
path, a backslash), a symlink, a name given twice or that is also another file's folder, a name too long for a
file system, an entry point that is missing or not HTML, and a zip that cannot be read (damaged, encrypted,
compressed in a way Python does not read). A build whose files all sit in one top folder is taken from inside
it.

The files go to `app-builds/<random>/` in the "app_builds" storage (the local disk under MEDIA_ROOT, or object
storage shared by every app server), a name that says nothing about the run. They are served
only through a vote matchup's aliases (`voting.views.preview_app`), never as plain media.
"""

from __future__ import annotations

import hashlib
import lzma
import secrets
import shutil
import stat
import zipfile
import zlib
from collections.abc import Iterable
from pathlib import Path, PurePosixPath
from typing import IO

from django.conf import settings
from django.core.files.base import ContentFile
from django.core.files.storage import FileSystemStorage, Storage, storages
from django.db import transaction

from leaderboard.stale import snapshots_mark_stale

from ..models import AppBuild, Run

BUILDS_DIR = "app-builds"
ENTRY = "index.html"
# Longest name part and whole path, in UTF-8 bytes: well under the usual file system limits (255 and 4096), so a
# build stored below MEDIA_ROOT/app-builds/<random>/ always fits.
MAX_PART_BYTES = 200
MAX_PATH_BYTES = 1000
# What reading a damaged or unusual zip raises (beyond AppBuildError): a bad CRC or header (BadZipFile), an
# encrypted member (RuntimeError), an unknown compression (NotImplementedError), a broken stream (zlib.error,
# lzma.LZMAError, EOFError, OSError from bz2), an undecodable name (UnicodeDecodeError, a ValueError).
ZIP_ERRORS = (
    zipfile.BadZipFile,
    RuntimeError,
    NotImplementedError,
    zlib.error,
    lzma.LZMAError,
    EOFError,
    OSError,
    ValueError,
)


# The compression methods read here. Python's zipfile inflates deflate no further than a read asks (give or take
# 4 KB), but bzip2, lzma and zstandard (which importing Inspect patches in) all the compressed input a read takes
# at once, however much it makes: a few kilobytes of bzip2 make gigabytes before the size limit is compared.
INFLATED_IN_STEPS = (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED)
METHOD_NAMES = {zipfile.ZIP_BZIP2: "bzip2", zipfile.ZIP_LZMA: "lzma", 93: "zstandard"}


class AppBuildError(ValueError):
    """A build that cannot be used; the message says why."""


def _limits() -> tuple[int, int]:
    return settings.APP_BUILD_MAX_BYTES, settings.APP_BUILD_MAX_FILES


def _shown(name: str) -> str:
    """A member's name for a message: quoted, and cut short when it is very long."""
    return repr(name if len(name) <= 80 else name[:60] + "..." + name[-17:])


def _safe_name(name: str) -> str:
    """The build-relative path of a member, or AppBuildError when it could land outside the build or is too
    long for a file system."""
    if not name or "\\" in name or "\x00" in name or name.startswith("/") or (len(name) > 1 and name[1] == ":"):
        raise AppBuildError(f"{_shown(name)}: not a relative path inside the build")
    parts = PurePosixPath(name).parts
    if any(p in ("..", ".", "") for p in parts) or not parts:
        raise AppBuildError(f"{_shown(name)}: a path with '..' or '.' is refused")
    if any(len(p.encode("utf-8", "surrogateescape")) > MAX_PART_BYTES for p in parts):
        raise AppBuildError(f"{_shown(name)}: a file or folder name over {MAX_PART_BYTES} bytes is refused")
    if len(name.encode("utf-8", "surrogateescape")) > MAX_PATH_BYTES:
        raise AppBuildError(f"{_shown(name)}: a path over {MAX_PATH_BYTES} bytes is refused")
    return "/".join(parts)


def _check_tree(names: Iterable[str]) -> None:
    """AppBuildError when a (safe) name is given twice, or is a file and also the folder of another file
    (`a` and `a/b`): they cannot both be stored."""
    files: set[str] = set()
    folders: dict[str, str] = {}  # folder -> a file inside it
    for name in names:
        if name in files:
            raise AppBuildError(f"{_shown(name)}: the same file is in the build twice")
        files.add(name)
        parts = name.split("/")
        for i in range(1, len(parts)):
            folders.setdefault("/".join(parts[:i]), name)
    for name in files:
        if name in folders:
            raise AppBuildError(f"{_shown(name)}: a file and also the folder of {_shown(folders[name])}")


def _add(files: dict[str, bytes], name: str, data: bytes) -> None:
    max_bytes, max_files = _limits()
    files[_safe_name(name)] = data
    if len(files) > max_files:
        raise AppBuildError(f"more than {max_files} files (APP_BUILD_MAX_FILES)")
    if sum(map(len, files.values())) > max_bytes:
        raise AppBuildError(f"over {max_bytes} bytes (APP_BUILD_MAX_BYTES)")


def read_zip(fileobj: IO[bytes]) -> dict[str, bytes]:
    """The files of a zip, checked: no symlink, no climbing path, stored or deflated, within the limits (checked
    against the sizes the zip declares before anything is inflated, then against the bytes actually inflated:
    no read inflates much past what the build may still hold)."""
    max_bytes, max_files = _limits()
    try:
        archive = zipfile.ZipFile(fileobj)
    except ZIP_ERRORS as exc:
        raise AppBuildError(f"not a readable zip file ({str(exc) or type(exc).__name__})") from None
    with archive:
        members = [m for m in archive.infolist() if not m.is_dir()]
        for m in members:
            if stat.S_ISLNK(m.external_attr >> 16):
                raise AppBuildError(f"{_shown(m.filename)}: a symlink is refused")
        _check_tree(_safe_name(m.filename) for m in members)
        if len(members) > max_files:
            raise AppBuildError(f"more than {max_files} files (APP_BUILD_MAX_FILES)")
        if sum(m.file_size for m in members) > max_bytes:
            raise AppBuildError(f"over {max_bytes} bytes (APP_BUILD_MAX_BYTES)")
        files: dict[str, bytes] = {}
        left = max_bytes
        for m in members:
            if m.compress_type not in INFLATED_IN_STEPS:
                method = METHOD_NAMES.get(m.compress_type, f"method {m.compress_type}")
                raise AppBuildError(
                    f"{_shown(m.filename)}: compressed in a way that cannot be read ({method}); use deflate or none"
                )
            try:
                with archive.open(m) as f:
                    data = f.read(left + 1)  # one byte past what the build may still hold says it is over
            except ZIP_ERRORS as exc:
                raise AppBuildError(f"{_shown(m.filename)}: {_zip_problem(exc)}") from None
            _add(files, m.filename, data)
            left -= len(data)
    return files


def _zip_problem(exc: BaseException) -> str:
    """What is wrong with a zip member, from what reading it raised."""
    if isinstance(exc, RuntimeError) and "encrypted" in str(exc):
        return "encrypted (a password-protected zip is refused)"
    if isinstance(exc, NotImplementedError):
        return f"compressed in a way that cannot be read ({exc}); use deflate or none"
    if isinstance(exc, EOFError):
        return "damaged (the zip ends inside this file)"
    return f"damaged ({str(exc) or type(exc).__name__})"


def read_folder(folder: Path) -> dict[str, bytes]:
    """The files of a folder, checked the same way (a symlink, or anything neither a file nor a folder, anywhere
    inside is refused; sizes are checked before anything is read)."""
    try:
        return _read_folder(folder)
    except OSError as exc:
        raise AppBuildError(f"{_shown(folder.name)}: cannot be read ({exc.strerror or exc})") from None


def _read_folder(folder: Path) -> dict[str, bytes]:
    max_bytes, max_files = _limits()
    if folder.is_symlink() or not folder.is_dir():
        raise AppBuildError(f"{_shown(folder.name)}: not a folder")
    found: list[tuple[str, Path]] = []
    size = 0
    for path in sorted(folder.rglob("*")):
        rel = path.relative_to(folder).as_posix()
        if path.is_symlink():
            raise AppBuildError(f"{_shown(rel)}: a symlink is refused")
        _safe_name(rel)
        if path.is_dir():
            continue
        if not path.is_file():
            raise AppBuildError(f"{_shown(rel)}: not a file or a folder")
        found.append((rel, path))
        size += path.stat().st_size
        if len(found) > max_files:
            raise AppBuildError(f"more than {max_files} files (APP_BUILD_MAX_FILES)")
        if size > max_bytes:
            raise AppBuildError(f"over {max_bytes} bytes (APP_BUILD_MAX_BYTES)")
    files: dict[str, bytes] = {}
    for rel, path in found:
        try:
            data = path.read_bytes()
        except OSError as exc:
            raise AppBuildError(f"{_shown(rel)}: cannot be read ({exc.strerror or exc})") from None
        _add(files, rel, data)
    return files


def checked_build(files: dict[str, bytes]) -> dict[str, bytes]:
    """The build's files with `index.html` at the top (taken from a single top folder if need be), or
    AppBuildError when there is no HTML entry point or a name cannot be stored."""
    _check_tree(_safe_name(name) for name in files)
    if ENTRY not in files:
        tops = {name.split("/", 1)[0] for name in files}
        if len(tops) == 1 and all("/" in n for n in files):
            top = tops.pop()
            files = {name.split("/", 1)[1]: data for name, data in files.items()}
            if ENTRY not in files:
                raise AppBuildError(f"no {ENTRY} at the top of the build or of {top}/")
        else:
            raise AppBuildError(f"no {ENTRY} at the top of the build")
    head = files[ENTRY][:2048]
    try:
        text = head.decode("utf-8", errors="strict" if len(head) < 2048 else "ignore").lstrip("\ufeff \t\r\n")
    except UnicodeDecodeError:
        raise AppBuildError(f"{ENTRY} is not HTML (not UTF-8 text)") from None
    if not text.startswith("<") or "\x00" in text:
        raise AppBuildError(f"{ENTRY} is not HTML (it must start with a tag)")
    return files


def _digest(files: dict[str, bytes]) -> str:
    h = hashlib.sha256()
    for name in sorted(files):
        h.update(name.encode() + b"\x00" + hashlib.sha256(files[name]).digest())
    return h.hexdigest()


def builds_storage() -> Storage:
    """The "app_builds" storage of settings.STORAGES: the local disk, or object storage every server shares."""
    return storages["app_builds"]


def app_build_save(*, run: Run, files: dict[str, bytes]) -> AppBuild:
    """Check `files` and store them as `run`'s build, replacing any earlier one (its files are removed once the
    new row is committed). A build identical to the stored one is left as it is."""
    files = checked_build(files)
    digest = _digest(files)
    storage = builds_storage()
    old = AppBuild.objects.filter(run=run).first()
    if old is not None and old.sha256 == digest and storage.exists(f"{old.directory}/{ENTRY}"):
        return old
    directory = f"{BUILDS_DIR}/{secrets.token_hex(16)}"
    written: list[str] = []
    try:
        for name, data in files.items():
            written.append(storage.save(f"{directory}/{name}", ContentFile(data)))
            if written[-1] != f"{directory}/{name}":
                raise AppBuildError(f"{_shown(name)}: cannot be stored under its own name")
        with transaction.atomic():
            AppBuild.objects.filter(run=run).delete()
            build = AppBuild.objects.create(
                run=run, directory=directory, files=len(files), size=sum(map(len, files.values())), sha256=digest
            )
            # What the vote screen can show of this run changed, not what its board counts.
            snapshots_mark_stale(round_ids=[run.round_id], boards=False)
    except BaseException:
        _delete_names(storage, written)
        raise
    if old is not None:
        transaction.on_commit(lambda: build_delete_files(old))
    return build


def _delete_names(storage: Storage, names: Iterable[str]) -> None:
    for name in names:
        try:
            storage.delete(name)
        except OSError:
            pass


def _walk(storage: Storage, folder: str) -> list[str]:
    try:
        folders, names = storage.listdir(folder)
    except (FileNotFoundError, NotADirectoryError):
        return []
    found = [f"{folder}/{name}" for name in names]
    for sub in folders:
        found += _walk(storage, f"{folder}/{sub}")
    return found


def build_delete_files(build: AppBuild) -> None:
    """Remove every stored file of `build` (and, on the local disk, its emptied folders)."""
    storage = builds_storage()
    _delete_names(storage, _walk(storage, build.directory))
    if isinstance(storage, FileSystemStorage):
        shutil.rmtree(Path(storage.path(build.directory)), ignore_errors=True)


def app_build_from_zip(*, run: Run, fileobj: IO[bytes]) -> AppBuild:
    return app_build_save(run=run, files=read_zip(fileobj))


def app_build_from_folder(*, run: Run, folder: Path) -> AppBuild:
    return app_build_save(run=run, files=read_folder(folder))


def app_build_file(build: AppBuild, path: str) -> str | None:
    """The storage name of the file at `path` inside the build (the entry point for an empty path or a
    folder), or None: never a file outside the build's folder (a name that climbs out is refused)."""
    try:
        rel = _safe_name(path) if path else ENTRY
    except AppBuildError:
        return None
    storage = builds_storage()
    candidates = [f"{build.directory}/{rel}"]
    if rel != ENTRY and not rel.endswith(f"/{ENTRY}"):
        candidates.append(f"{build.directory}/{rel}/{ENTRY}")
    for name in candidates:
        if _is_file(storage, name):
            return name
    return None


def _is_file(storage: Storage, name: str) -> bool:
    if isinstance(storage, FileSystemStorage):  # never through a symlink, never outside the storage's folder
        target = Path(storage.path(name))
        root = Path(storage.path(BUILDS_DIR)).resolve()
        return target.is_file() and not target.is_symlink() and target.resolve().is_relative_to(root)
    return storage.exists(name)
