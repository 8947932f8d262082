#!/usr/bin/env python3
"""Draws Hibi's app icons (the brand square with 日) as PNGs for the web app manifest.

Run from the repository root with the project venv: .venv/bin/python scripts/make-icons.py
The PNGs are committed; run again only when the icon changes. Needs Pillow and a CJK font (fc-match).
"""
import pathlib
import subprocess

from PIL import Image, ImageDraw, ImageFont

ROOT = pathlib.Path(__file__).resolve().parent.parent
OUT = ROOT / "Resources" / "web" / "icons"
BRAND = (194, 65, 12)  # #c2410c: white on it is 5.2:1


def font(size):
    path = subprocess.run(["fc-match", "-f", "%{file}", "Noto Sans CJK JP:bold"], capture_output=True, text=True).stdout.strip()
    return ImageFont.truetype(path, size) if path else ImageFont.load_default()


def draw(size, maskable):
    image = Image.new("RGBA", (size, size), BRAND + (255,) if maskable else (0, 0, 0, 0))
    canvas = ImageDraw.Draw(image)
    if not maskable:
        canvas.rounded_rectangle([0, 0, size - 1, size - 1], radius=size * 14 // 64, fill=BRAND)
    # A maskable icon keeps its mark inside the middle 80% (the safe zone a launcher may crop to).
    glyph = font(int(size * (0.42 if maskable else 0.56)))
    canvas.text((size / 2, size / 2), "日", font=glyph, fill="white", anchor="mm")
    return image


if __name__ == "__main__":
    OUT.mkdir(parents=True, exist_ok=True)
    for size in (192, 512):
        draw(size, False).save(OUT / f"icon-{size}.png", optimize=True)
        draw(size, True).save(OUT / f"maskable-{size}.png", optimize=True)
    print("icons written to", OUT)
