"""A position's text drawn as an RGB image (``render_mode="rgb_array"`` for every game).

Every game has a text view (``state.observation(None)["text"]``, what a
spectator sees); drawing it in a monospaced font gives an image for any game,
board or not, without a renderer per game. The font is DejaVu Sans Mono, which
ships with matplotlib (a boardlab dependency); Pillow comes with matplotlib too.
"""

from __future__ import annotations

import functools
from pathlib import Path

import numpy as np

#: text and background colours
INK = (24, 24, 24)
PAPER = (250, 248, 240)


@functools.lru_cache(maxsize=4)
def _font(size: int):
    import matplotlib
    from PIL import ImageFont

    path = Path(matplotlib.get_data_path()) / "fonts" / "ttf" / "DejaVuSansMono.ttf"
    return ImageFont.truetype(str(path), size)


def text_image(text: str, size: int = 18, margin: int = 12) -> np.ndarray:
    """``text`` (lines as they are, tabs as spaces) on a light background: uint8 ``(height, width, 3)``."""
    from PIL import Image, ImageDraw

    font = _font(size)
    lines = text.expandtabs(4).splitlines() or [""]
    ascent, descent = font.getmetrics()
    line_height = ascent + descent + 2
    width = max(int(font.getlength(line)) for line in lines)
    image = Image.new("RGB", (width + 2 * margin, line_height * len(lines) + 2 * margin), PAPER)
    draw = ImageDraw.Draw(image)
    for row, line in enumerate(lines):
        draw.text((margin, margin + row * line_height), line, font=font, fill=INK)
    return np.asarray(image, dtype=np.uint8).copy()
