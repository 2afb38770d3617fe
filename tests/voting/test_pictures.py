"""The screenshot a vote screen sends: the picture without the text its file carries (voting/pictures.py)."""

from __future__ import annotations

import struct

import pytest

from tests.builders.voting import png_chunk, tiny_png
from voting.pictures import UnreadablePicture, without_metadata

SIGNATURE = b"\x89PNG\r\n\x1a\n"


def _png(*chunks: tuple[bytes, bytes]) -> bytes:
    return SIGNATURE + b"".join(png_chunk(kind, body) for kind, body in chunks)


def test_a_png_keeps_what_draws_it_and_loses_its_text_and_time():
    header = tiny_png(3)[8:33]  # the IHDR chunk
    draws = [(b"iCCP", b"sRGB\x00\x00x"), (b"pHYs", b"\x00" * 9), (b"acTL", b"\x00" * 8), (b"tRNS", b"\x01")]
    text = [(b"tEXt", b"Software\x00zephyr"), (b"zTXt", b"k\x00\x00x"), (b"iTXt", b"k\x00\x00\x00\x00\x00v")]
    text += [(b"eXIf", b"MM\x00*"), (b"tIME", b"\x07\xea\x0c\x03\x0c\x00\x00"), (b"prIv", b"vendor")]
    body = [(b"IDAT", b"\x78\x9c\x63\x60\x00\x00\x00\x02\x00\x01"), (b"IEND", b"")]
    picture = SIGNATURE + header + _png(*draws[:2], *text[:3], *draws[2:], *text[3:], *body)[8:]
    assert without_metadata(picture) == SIGNATURE + header + _png(*draws, *body)[8:]


def test_a_jpeg_keeps_jfif_icc_and_adobe_and_loses_comments_exif_and_other_segments():
    def segment(marker: int, body: bytes) -> bytes:
        return bytes([0xFF, marker]) + struct.pack(">H", len(body) + 2) + body

    jfif, icc, adobe = segment(0xE0, b"JFIF\x00"), segment(0xE2, b"ICC_PROFILE\x00"), segment(0xEE, b"Adobe")
    comment, exif, iptc = segment(0xFE, b"by zephyr"), segment(0xE1, b"Exif\x00\x00zz"), segment(0xED, b"Photoshop")
    tables = segment(0xDB, b"\x00" * 4)
    scan = segment(0xDA, b"\x01\x02") + b"\x12\xff\x00\x34\xff\xd0\x56" + b"\xff\xd9"  # data, a restart marker
    picture = b"\xff\xd8" + jfif + comment + exif + b"\xff" + icc + iptc + adobe + tables + scan
    assert without_metadata(picture) == b"\xff\xd8" + jfif + icc + adobe + tables + scan


@pytest.mark.parametrize(
    "data",
    [
        tiny_png(1)[:-6],  # IEND cut short
        tiny_png(1)[:40],  # IDAT cut short
        b"\xff\xd8\xff\xe0\x00\x10JF",  # a segment cut short
        b"\xff\xd8\x00\x00",  # no marker where a segment should start
    ],
)
def test_a_picture_cut_short_is_refused(data):
    with pytest.raises(UnreadablePicture):
        without_metadata(data)


@pytest.mark.parametrize("data", [b"RIFF\x10\x00\x00\x00WEBPVP8 ", b"GIF89a\x01\x00", b""])
def test_other_formats_are_sent_as_they_are(data):
    assert without_metadata(data) == data
