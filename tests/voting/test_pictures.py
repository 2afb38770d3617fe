"""The screenshot a vote screen sends (voting/pictures.py): the picture drawn again from its pixels alone, with
nudges placed by the pair's key, and nothing else of the stored file."""

from __future__ import annotations

import io
import struct
import zlib

import pytest
from PIL import Image, ImageChops

from tests.builders.voting import png_chunk, tiny_png
from voting.pictures import MAX_PICTURE_PIXELS, UnreadablePicture, picture_for_voter

SIGNATURE = b"\x89PNG\r\n\x1a\n"


def _chunks(png: bytes) -> list[bytes]:
    kinds, at = [], 8
    while at < len(png):
        (length,) = struct.unpack(">I", png[at : at + 4])
        kinds.append(png[at + 4 : at + 8])
        at += 12 + length
    return kinds


def _segments(jpeg: bytes) -> list[int]:
    """The markers of a JPEG up to its first scan."""
    markers, at = [], 2
    while jpeg[at + 1] != 0xDA:
        markers.append(jpeg[at + 1])
        at += 2 + struct.unpack(">H", jpeg[at + 2 : at + 4])[0]
    return markers


def _image(fmt: str, size=(40, 30), **params) -> bytes:
    image = Image.new("RGB", size, (200, 210, 220))
    image.putpixel((3, 4), (10, 20, 30))
    out = io.BytesIO()
    image.save(out, fmt, **params)
    return out.getvalue()


def test_a_png_is_drawn_again_without_any_chunk_but_those_of_its_pixels():
    plain = _image("PNG")
    extra = [(b"iCCP", b"vendor-profile\x00\x00" + zlib.compress(b"x" * 20)), (b"tEXt", b"Software\x00zephyr")]
    extra += [(b"zTXt", b"k\x00\x00" + zlib.compress(b"v")), (b"iTXt", b"k\x00\x00\x00\x00\x00v")]
    extra += [(b"eXIf", b"MM\x00*"), (b"tIME", b"\x07\xea\x0c\x03\x0c\x00\x00"), (b"prIv", b"vendor")]
    tagged = plain[:33] + b"".join(png_chunk(k, v) for k, v in extra) + plain[33:]
    sent = picture_for_voter(tagged, key=b"k")
    assert sent.content_type == "image/png"
    assert set(_chunks(sent.data)) == {b"IHDR", b"IDAT", b"IEND"}
    assert b"zephyr" not in sent.data and b"vendor" not in sent.data


def test_a_jpeg_is_drawn_again_with_only_its_jfif_header():
    exif = Image.Exif()
    exif[0x0131] = "zephyr capture 1.0"  # Software
    marked = _image("JPEG", comment=b"by zephyr", exif=exif.tobytes()) + b"after the end: zephyr"
    sent = picture_for_voter(marked, key=b"k")
    assert sent.content_type == "image/jpeg"
    assert 0xFE not in _segments(sent.data) and 0xE1 not in _segments(sent.data)  # no comment, no EXIF
    assert sent.data.endswith(b"\xff\xd9") and b"zephyr" not in sent.data


def test_the_same_key_gives_the_same_bytes_and_another_key_others():
    data = _image("PNG")
    first = picture_for_voter(data, key=b"pair 1")
    assert picture_for_voter(data, key=b"pair 1") == first
    assert picture_for_voter(data, key=b"pair 2").data != first.data != data
    # 16 patches of 2 x 2 (40 x 30 pixels is under one per 20,000): at most 64 pixels one step off.
    diff = ImageChops.difference(Image.open(io.BytesIO(data)), Image.open(io.BytesIO(first.data)))
    raw = diff.tobytes()  # RGB: three bytes a pixel
    changed = [raw[i : i + 3] for i in range(0, len(raw), 3) if any(raw[i : i + 3])]
    assert 0 < len(changed) <= 64 and all(max(p) == 1 for p in changed)


def test_the_exif_orientation_is_applied_before_it_is_left_out():
    exif = Image.Exif()
    exif[0x0112] = 6  # rotate 90 degrees clockwise to view
    sent = picture_for_voter(_image("JPEG", size=(40, 30), exif=exif.tobytes()), key=b"k")
    assert Image.open(io.BytesIO(sent.data)).size == (30, 40)


@pytest.mark.parametrize("fmt", ["GIF", "WEBP"])
def test_gif_and_webp_are_sent_as_png(fmt):
    sent = picture_for_voter(_image(fmt), key=b"k")
    assert sent.content_type == "image/png" and Image.open(io.BytesIO(sent.data)).size == (40, 30)


def _huge_png() -> bytes:
    side = int(MAX_PICTURE_PIXELS**0.5) + 1
    header = struct.pack(">IIBBBBB", side, side, 8, 0, 0, 0, 0)
    return SIGNATURE + png_chunk(b"IHDR", header) + png_chunk(b"IDAT", zlib.compress(b"\x00")) + png_chunk(b"IEND", b"")


@pytest.mark.parametrize(
    "data",
    [
        tiny_png(1)[:40],  # IDAT cut short
        b"\xff\xd8\xff\xe0\x00\x10JF",  # a JPEG cut short
        b'<svg xmlns="http://www.w3.org/2000/svg"/>',
        b"BM" + b"\x00" * 60,  # a format not read
        b"",
        _huge_png(),  # a few bytes that claim a picture of 40 million pixels
    ],
)
def test_what_cannot_be_decoded_is_refused(data):
    with pytest.raises(UnreadablePicture):
        picture_for_voter(data, key=b"k")
