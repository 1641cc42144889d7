"""Draw media/icon.png (128x128): a check mark on a clipboard, anti-aliased, with the standard library only."""

from __future__ import annotations

import math
import struct
import zlib
from pathlib import Path

SIZE = 128
OUT = Path(__file__).resolve().parent.parent / "media" / "icon.png"
BACKGROUND = (31, 78, 121)
BOARD = (236, 240, 244)
CLIP = (120, 144, 166)
CHECK = (46, 160, 67)


def rounded_box(x: float, y: float, x0: float, y0: float, x1: float, y1: float, r: float) -> float:
    """Signed distance to a rounded rectangle (negative inside)."""
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    hx, hy = (x1 - x0) / 2 - r, (y1 - y0) / 2 - r
    dx, dy = abs(x - cx) - hx, abs(y - cy) - hy
    return math.hypot(max(dx, 0.0), max(dy, 0.0)) + min(max(dx, dy), 0.0) - r


def segment(x: float, y: float, ax: float, ay: float, bx: float, by: float, width: float) -> float:
    px, py, vx, vy = x - ax, y - ay, bx - ax, by - ay
    t = max(0.0, min(1.0, (px * vx + py * vy) / (vx * vx + vy * vy)))
    return math.hypot(px - t * vx, py - t * vy) - width / 2


def coverage(distance: float) -> float:
    return max(0.0, min(1.0, 0.5 - distance))


def pixel(x: float, y: float) -> tuple[int, int, int, int]:
    layers = [
        (BACKGROUND, rounded_box(x, y, 4, 4, 124, 124, 24)),
        (BOARD, rounded_box(x, y, 30, 24, 98, 112, 8)),
        (CLIP, rounded_box(x, y, 48, 16, 80, 34, 6)),
        (CHECK, min(segment(x, y, 44, 70, 59, 86, 12), segment(x, y, 59, 86, 86, 52, 12))),
    ]
    red = green = blue = alpha = 0.0
    for (r, g, b), distance in layers:
        a = coverage(distance)
        red, green, blue = red * (1 - a) + r * a, green * (1 - a) + g * a, blue * (1 - a) + b * a
        alpha = alpha * (1 - a) + a
    if alpha > 0:  # the sums above are premultiplied by alpha
        red, green, blue = red / alpha, green / alpha, blue / alpha
    return round(red), round(green), round(blue), round(alpha * 255)


def png(width: int, height: int, rows: list[bytes]) -> bytes:
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    raw = b"".join(b"\x00" + row for row in rows)
    header = struct.pack(">IIBBBBB", width, height, 8, 6, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(raw, 9))
        + chunk(b"IEND", b"")
    )


def main() -> None:
    rows = [b"".join(bytes(pixel(x + 0.5, y + 0.5)) for x in range(SIZE)) for y in range(SIZE)]
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_bytes(png(SIZE, SIZE, rows))
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
