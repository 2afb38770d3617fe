"""A side's screenshot as the vote screen sends it: the same picture, never the same bytes.

Every screenshot shown blind is also listed, as evidence, on its run's public page. Sent byte for byte, its
size or its hash would find that page, and with it the run (seed 003: "the page never gets run ids"). So each
PNG and JPEG is sent with a random comment of random length added (a PNG `tEXt` chunk after the header chunk,
a JPEG `COM` segment after the start marker): decoders ignore it and the picture is unchanged, but no two
answers share a size or a hash. What stays is the picture itself, which a voter comparing every run page by
eye could recognise, as they could recognise the app.
"""

from __future__ import annotations

import secrets
import struct
import zlib

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
PNG_HEADER_END = len(PNG_SIGNATURE) + 4 + 4 + 13 + 4  # the signature, then IHDR: length, type, 13 bytes, CRC
JPEG_START = b"\xff\xd8"
# The largest picture that is rewritten in memory; a larger one is streamed as it is.
MAX_REWRITTEN_BYTES = 20_000_000


def _comment() -> bytes:
    return secrets.token_hex(8 + secrets.randbelow(57)).encode()


def with_random_comment(data: bytes) -> bytes:
    """`data` with a random comment added when it is a PNG or a JPEG; anything else unchanged."""
    if data.startswith(PNG_SIGNATURE) and data[12:16] == b"IHDR" and len(data) >= PNG_HEADER_END:
        body = b"tEXt" + b"Comment\x00" + _comment()
        chunk = struct.pack(">I", len(body) - 4) + body + struct.pack(">I", zlib.crc32(body))
        return data[:PNG_HEADER_END] + chunk + data[PNG_HEADER_END:]
    if data.startswith(JPEG_START):
        text = _comment()
        return JPEG_START + b"\xff\xfe" + struct.pack(">H", len(text) + 2) + text + data[2:]
    return data
