"""A side's screenshot as the vote screen sends it: the picture, without the text its file carries beside it.

A screenshot's file may hold text next to the picture: PNG `tEXt`, `zTXt`, `iTXt`, `eXIf` and `tIME` chunks,
JPEG comments and EXIF or XMP segments. A capture tool writes its name there, a window title, an address, a
time: things that can name the run or its agent. The alias sends PNG and JPEG pictures with only what draws
them (critical chunks, colour and animation chunks; JFIF, ICC and Adobe segments), every byte of the image
data as it was. Other formats are sent as they are.

What no rewriting can hide is the picture itself: the same screenshot is listed as evidence on its run's
public page, so a voter who compares pictures (by eye, or decoded) can match them, as they could recognise an
app's look. The aliases keep run ids off the vote page (seed 003); they cannot make public evidence
unrecognisable.
"""

from __future__ import annotations

import struct

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
# Ancillary PNG chunks that change how the picture is drawn (colour, transparency, pixel size, animation);
# every other ancillary chunk is text or a time, and is left out.
PNG_KEPT = {b"tRNS", b"gAMA", b"cHRM", b"sRGB", b"iCCP", b"sBIT", b"pHYs", b"bKGD", b"acTL", b"fcTL", b"fdAT"}
JPEG_START = b"\xff\xd8"
# JPEG segments kept besides the ones that draw the picture: JFIF (APP0), an ICC profile (APP2), Adobe's colour
# transform (APP14). Comments (COM) and the other application segments (EXIF and XMP in APP1, ...) are left out.
JPEG_KEPT_APPS = {0xE0, 0xE2, 0xEE}
# The largest picture that is rewritten in memory; a larger one is not sent.
MAX_PICTURE_BYTES = 20_000_000


class UnreadablePicture(ValueError):
    """A PNG or JPEG whose structure cannot be followed (cut short, say)."""


def without_metadata(data: bytes) -> bytes:
    """`data` (a PNG or a JPEG) with its text left out; any other format unchanged."""
    if data.startswith(PNG_SIGNATURE):
        return _png(data)
    if data.startswith(JPEG_START):
        return _jpeg(data)
    return data


def _png(data: bytes) -> bytes:
    out, at = [PNG_SIGNATURE], len(PNG_SIGNATURE)
    while at < len(data):
        if at + 8 > len(data):
            raise UnreadablePicture("a PNG chunk is cut short")
        (length,) = struct.unpack(">I", data[at : at + 4])
        kind = data[at + 4 : at + 8]
        end = at + 12 + length
        if end > len(data):
            raise UnreadablePicture("a PNG chunk is cut short")
        if kind[0] < 0x61 or kind in PNG_KEPT:  # a critical chunk (upper-case first letter), or one that draws
            out.append(data[at:end])
        at = end
        if kind == b"IEND":
            break
    return b"".join(out)


def _jpeg(data: bytes) -> bytes:
    out, at = [JPEG_START], 2
    while at < len(data):
        if data[at] != 0xFF or at + 2 > len(data):
            raise UnreadablePicture("a JPEG segment does not start with a marker")
        marker = data[at + 1]
        if marker == 0xFF:  # fill byte
            at += 1
            continue
        if marker == 0xD9 or 0xD0 <= marker <= 0xD7 or marker == 0x01:  # no length
            out.append(data[at : at + 2])
            at += 2
            continue
        if at + 4 > len(data):
            raise UnreadablePicture("a JPEG segment is cut short")
        (length,) = struct.unpack(">H", data[at + 2 : at + 4])
        end = at + 2 + length
        if length < 2 or end > len(data):
            raise UnreadablePicture("a JPEG segment is cut short")
        if marker == 0xDA:  # start of scan: the image data follows, kept as it is to the end
            out.append(data[at:])
            break
        if not (marker == 0xFE or (0xE0 <= marker <= 0xEF and marker not in JPEG_KEPT_APPS)):
            out.append(data[at:end])
        at = end
    return b"".join(out)
