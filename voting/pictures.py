"""A side's screenshot as the vote screen sends it: decoded and drawn again, with bytes of its own for each pair.

The same screenshot is listed on its run's public page, and once a vote is cast the reveal names the run of
each picture just seen. Sent as stored (or with only its text taken out), the picture's bytes would be the same
for every voter and the same as the public file's: a voter who kept a digest of each picture the reveals named,
or of the public evidence, would know both sides of the next pair before voting. So no byte of the stored file
is sent. The file is decoded (PNG, JPEG, GIF or WebP, with Pillow), turned upright by its EXIF orientation,
brought to sRGB by its colour profile, and a new file is written from its pixels alone: no text chunk, comment,
EXIF, XMP, colour profile (nor the profile's name), data after the end of the image, or anything else the
stored file carried beside the picture. Before it is written, a few pixels are nudged by a step too small to
see, placed and signed by a key made from the site's secret and the pair, the side and the picture's number.
Two voters, two pairs, and the public file therefore never have the same bytes, and without the secret nobody
can redo the nudges to match a file they hold. A JPEG is written again as a JPEG (its nudges strong enough to
outlive the compression), anything else as a PNG.

What no rewriting can hide is the picture itself: a voter who compares what they see with the public
evidence (by eye, or decoded with some tolerance) can still match them, as they could recognise an app's look.
See docs/vote-screen.md ("What still tells an app").
"""

from __future__ import annotations

import io
import random
from dataclasses import dataclass

from django.utils.crypto import salted_hmac
from PIL import Image, ImageCms, ImageOps

# The largest picture decoded: its file, and its width times height (a few kilobytes of PNG can claim a
# picture of billions of pixels, which Pillow would allocate).
MAX_PICTURE_BYTES = 20_000_000
MAX_PICTURE_PIXELS = 40_000_000
READ_FORMATS = ("PNG", "JPEG", "GIF", "WEBP")
JPEG_QUALITY = 90
PNG_COMPRESS_LEVEL = 6
# How many 2 x 2 patches are nudged (at least NUDGES_MIN, one per NUDGE_AREA pixels) and by how much: one step
# of 255 in a PNG; in a JPEG enough that the compression cannot round it away (a 2 x 2 patch 6 steps off moves
# its block's average by 1.5 steps, past the half step that quality 90 rounds to).
NUDGES_MIN = 16
NUDGE_AREA = 20_000
NUDGE_STEP = {"PNG": 1, "JPEG": 6}
SRGB = ImageCms.ImageCmsProfile(ImageCms.createProfile("sRGB"))


class UnreadablePicture(ValueError):
    """A file that is not a picture that can be decoded (cut short, another format, too large)."""


@dataclass(frozen=True)
class Picture:
    data: bytes
    content_type: str


def serving_key(matchup_key: str, side: str, index: int) -> bytes:
    """The key of one picture on one side of one pair: secret, and different for every pair."""
    return salted_hmac("voting.pictures", f"{matchup_key}:{side}:{index}", algorithm="sha256").digest()


def picture_for_voter(data: bytes, *, key: bytes) -> Picture:
    """The picture in `data`, drawn again from its pixels with the nudges `key` places, or `UnreadablePicture`."""
    if len(data) > MAX_PICTURE_BYTES:
        raise UnreadablePicture("the file is too large")
    try:
        with Image.open(io.BytesIO(data), formats=READ_FORMATS) as opened:
            if opened.width * opened.height > MAX_PICTURE_PIXELS:
                raise UnreadablePicture("the picture has too many pixels")
            written_as = "JPEG" if opened.format == "JPEG" else "PNG"
            opened.load()
            pixels = _in_srgb(_upright(opened), opened.info.get("icc_profile"))
    except UnreadablePicture:
        raise
    except Exception as exc:  # a damaged file makes Pillow raise many kinds (OSError, SyntaxError, struct.error...)
        raise UnreadablePicture(str(exc) or type(exc).__name__) from None
    _nudge(pixels, key, NUDGE_STEP[written_as])
    out = io.BytesIO()
    if written_as == "JPEG":
        pixels.save(out, "JPEG", quality=JPEG_QUALITY)
    else:
        pixels.save(out, "PNG", compress_level=PNG_COMPRESS_LEVEL)
    return Picture(out.getvalue(), f"image/{written_as.lower()}")


def _upright(image: Image.Image) -> Image.Image:
    """The picture turned as its EXIF orientation says; as it is when its EXIF cannot be read."""
    try:
        return ImageOps.exif_transpose(image)
    except Exception:  # EXIF is a file format of its own, and a damaged one raises anything
        return image


def _in_srgb(image: Image.Image, profile: bytes | None) -> Image.Image:
    """A new image of only the pixels (RGB, or RGBA when the picture has transparency), in sRGB: nothing of the
    file's `info` (text, comments, EXIF, profile) comes along, since Pillow writes some of it back when saving."""
    alpha = image.mode in ("RGBA", "LA", "PA") or "transparency" in image.info
    mode = "RGBA" if alpha else "RGB"
    converted = None
    if profile:
        try:
            source = ImageCms.ImageCmsProfile(io.BytesIO(profile))
            converted = ImageCms.profileToProfile(image, source, SRGB, outputMode=mode)
        except (ImageCms.PyCMSError, OSError, ValueError):
            converted = None  # a profile that cannot be read, or not for these pixels: the pixels as they are
    converted = (converted or image).convert(mode)
    return Image.frombytes(mode, converted.size, converted.tobytes())


def _nudge(image: Image.Image, key: bytes, step: int) -> None:
    """Move a few 2 x 2 patches, placed by `key`, by `step` in every colour (towards the middle, so no value
    leaves 0..255); transparency is left as it is."""
    rng = random.Random(key)
    width, height = image.size
    count = max(NUDGES_MIN, width * height // NUDGE_AREA)
    px = image.load()
    assert px is not None
    moved: set[tuple[int, int]] = set()  # a pixel in two patches is moved once
    for _ in range(count):
        x, y = rng.randrange(width), rng.randrange(height)
        sign = rng.choice((-1, 1))
        for at in ((x, y), (x + 1, y), (x, y + 1), (x + 1, y + 1)):
            if at[0] < width and at[1] < height and at not in moved:
                moved.add(at)
                value = px[at]
                assert isinstance(value, tuple)
                px[at] = tuple(_moved(c, sign * step) for c in value[:3]) + tuple(value[3:])


def _moved(channel: int, by: int) -> int:
    moved = channel + by
    return moved if 0 <= moved <= 255 else channel - by
