"""Board drawings as PNG for the mail. Mail clients drop SVG, so
the HTML part of a board mail shows the drawing as an inline PNG (a
``multipart/related`` part named by Content-ID), rendered here with resvg
(resvg-py: the Rust renderer in one wheel, no system libraries), with the
DejaVu fonts shipped beside this module (fonts/, their licence in
fonts/LICENSE) and no system font: the same PNG on every machine, and text
on a server that has no fonts installed.

The mail's drawing is the narrow layout (pbem/engine/drawing.py: a portrait
column 340 units wide, no text under 11), rendered at PBEM_PICTURE_WIDTH
pixels (680: twice its width, sharp on a phone's screen) and shown 340 px
wide (store/outbox.shown_width), so that its text is 11 px or more where a
phone's mail app fits it to the screen. Its text is drawn without
anti-aliasing (at twice the pixels a reader's screen shows, it reads the same,
and the PNG has a third of the bytes); a picture whose PNG would still make
the mail too heavy is rendered without anti-aliasing at all, then at fewer
pixels (:func:`mail_png`), skipping the renderings that the game's last
pictures show would be too heavy (a late game's tall drawing is half a
second a rendering: docs/PERFORMANCE.md, section 6).

A drawing is drawn and rendered once, from the seat's view its mail
stored, in the language of its mail: by the first delivery that needs it,
kept in its ``pictures`` row for every other mail that shows the same
board to a reader of the same language (the seats and observers who see
the same thing), and a while in this process, where a drawing of the same
bytes from another view shares its PNG too. A drawing that
cannot be rendered is logged and the mail goes without it: its HTML and
text boards are complete."""
from __future__ import annotations

import hashlib
import json
import logging
import re
import threading
from collections import OrderedDict, deque
from pathlib import Path

from sqlalchemy import bindparam, select, update

from pbem.config import Settings
from pbem.engine import get_game
from pbem.engine.i18n import language
from pbem.store.db import single_statement
from pbem.store.models import Picture, utcnow
from pbem.store.outbox import picture_cid, picture_layout

log = logging.getLogger("pbem.mail.pictures")

_RECENT = 32  # PNGs kept in this process (a few hundred KB): the rows of one transaction share them
_recent: "OrderedDict[tuple[str, int], bytes]" = OrderedDict()
# PNGs by their drawing's bytes (sha-256), width and budget: the rows of one move whose drawings are
# the same (a seat's and an observer's, a board whose view differs only where the drawing shows nothing)
_drawn: "OrderedDict[tuple[bytes, int, int], bytes]" = OrderedDict()
_drawn_lock = threading.Lock()  # guards both caches
_LOAD = select(Picture.game, Picture.lang, Picture.view, Picture.svg, Picture.png).where(Picture.key == bindparam("key"))


FONTS = sorted(str(p) for p in (Path(__file__).parent / "fonts").glob("*.ttf"))
# the PNG's bytes a board mail may carry: in base64 (4/3, 191 KB), with its text and HTML parts (up to
# 55 KB but for a final mail's whole record) the whole mail stays under 250 KB
PNG_BUDGET = 140_000


# how a picture is rendered: anti-aliased ("smooth"), its text not ("text-crisp": at twice the pixels
# it is shown at, text reads the same, and the PNG has half the bytes), or nothing ("crisp": a third;
# a map's slanted lines show their steps)
QUALITIES = {"smooth": {}, "text-crisp": {"text_rendering": "optimize_speed"},
             "crisp": {"text_rendering": "optimize_speed", "shape_rendering": "crisp_edges"}}


def render_png(svg: str, width: int, *, quality: str = "smooth") -> bytes:
    """The drawing as a PNG ``width`` pixels wide, on white, rendered as :data:`QUALITIES` says."""
    import resvg_py

    return bytes(resvg_py.svg_to_bytes(svg_string=svg, width=width, background="white", skip_system_fonts=True,
                                       font_files=FONTS, font_family="DejaVu Sans",
                                       sans_serif_family="DejaVu Sans", monospace_family="DejaVu Sans Mono",
                                       **QUALITIES[quality]))


def _steps(width: int) -> list[tuple[int, str]]:
    """The renderings a mail's picture tries, best first: PBEM_PICTURE_WIDTH with crisp text, then
    without anti-aliasing, then at 3/4 and 1/2 of the pixels."""
    return [(width, "text-crisp"), (width, "crisp"), (width * 3 // 4, "crisp"), (width // 2, "crisp")]


def mail_png(svg: str, width: int, budget: int = PNG_BUDGET, kind: str | None = None) -> bytes:
    """The PNG of a mail's picture: the first of :func:`_steps` within ``budget`` bytes (else the last),
    rendered once per distinct drawing in this process (:data:`_drawn`: the seats and observers whose
    drawings are the same bytes share it; a drawing that differs by one byte is rendered for itself)."""
    digest = (hashlib.sha256(svg.encode("utf-8")).digest(), width, budget)
    with _drawn_lock:  # a worker's threads share the cache: one may drop the entry another just found
        hit = _drawn.get(digest)
        if hit is not None:
            _drawn.move_to_end(digest)
            return hit
    png = stepped_png(svg, width, budget, kind)[0]
    with _drawn_lock:
        _drawn[digest] = png
        while len(_drawn) > _RECENT:
            _drawn.popitem(last=False)
    return png


def stepped_png(svg: str, width: int, budget: int = PNG_BUDGET, kind: str | None = None) -> tuple[bytes, int]:
    """:func:`mail_png` and which of :func:`_steps` it is (0: the first). A step this drawing's kind
    (``kind``: its game, whose pictures compress alike) shows it surely cannot keep within the budget
    is not rendered at all: each rendering of a tall drawing is a large part of a move's cost, and
    most of a late game's pictures would otherwise be rendered two or three times to keep one."""
    steps = _steps(width)
    aspect = _aspect(svg)
    png, step = b"", 0
    for step, (w, quality) in enumerate(steps):
        if kind and aspect and step < len(steps) - 1 and _surely_over(kind, step, w, aspect, budget):
            continue
        png = render_png(svg, w, quality=quality)
        if kind:
            _learn(kind, step, png)
        if len(png) <= budget:
            break
    return png, step


# the fewest bytes a pixel took in the last renderings of a kind of drawing at each step: a drawing of
# that kind whose pixels at that rate already pass the budget is not rendered at that step (the rate
# of a game's pictures varies a few per cent from one position to the next; the least of the last few
# keeps a margin, so a step is skipped only where its PNG would have been too heavy)
_RATES = 16
_rates: dict[tuple[str, int], deque[float]] = {}


def _learn(kind: str, step: int, png: bytes) -> None:
    pixels = int.from_bytes(png[16:20], "big") * int.from_bytes(png[20:24], "big") if len(png) > 24 else 0
    if pixels:
        if (kind, step) not in _rates and len(_rates) > 64:  # a few games x four steps: bounded all the same
            _rates.clear()
        _rates.setdefault((kind, step), deque(maxlen=_RATES)).append(len(png) / pixels)


def _surely_over(kind: str, step: int, width: int, aspect: float, budget: int) -> bool:
    rates = _rates.get((kind, step))
    if not rates or len(rates) < 2:
        return False
    return width * width * aspect * min(rates) > budget * 1.05


def _aspect(svg: str) -> float | None:
    """The drawing's height per unit of width (its root's viewBox), None if it says none."""
    m = _VIEWBOX.search(svg, 0, 2000)
    if m is None:
        return None
    try:
        w, h = float(m.group(1)), float(m.group(2))
    except ValueError:
        return None
    return h / w if w > 0 and h > 0 else None


_VIEWBOX = re.compile(r'<svg\b[^>]*?\sviewBox="\s*[-\d.]+[\s,]+[-\d.]+[\s,]+([\d.]+)[\s,]+([\d.]+)\s*"')


def png_for(key: str, cfg: Settings, render: bool = True) -> bytes | None:
    """The PNG of picture ``key``, rendered now if no one has yet (and
    ``render``: a mail that waited too long goes without); None if the
    picture is gone (pruned), not rendered, or cannot be rendered."""
    with _drawn_lock:
        hit = _recent.get((key, cfg.picture_width))
        if hit is not None:
            _recent.move_to_end((key, cfg.picture_width))
            return hit
    with single_statement() as conn:
        row = conn.execute(_LOAD, {"key": key}).first()
    if row is None:
        return None
    game, lang, view, svg, png = row
    if png is None or not _is_width(png, cfg.picture_width):
        if not render:
            return None
        try:
            svg = svg or draw(game, view, lang)
            png = mail_png(svg, cfg.picture_width, kind=game)
        except Exception:  # noqa: BLE001 -- a bad drawing must not stop the mail
            log.exception("picture %s could not be drawn or rendered; the mail goes without it", key[:12])
            return None
        with single_statement() as conn:
            conn.execute(update(Picture).where(Picture.key == key).values(svg=svg, png=png, rendered_at=utcnow()))
    with _drawn_lock:
        _recent[(key, cfg.picture_width)] = png
        while len(_recent) > _RECENT:
            _recent.popitem(last=False)
    return png


def draw(game: str, view: str, lang: str = "en") -> str:
    """The SVG of a stored view (JSON), drawn by its game's engine: the seat's view and nothing else,
    in the language of the readers it was stored for (legends, names, title and description), in the
    mail's layout (store/outbox.picture_layout: the narrow one; the row's key says so)."""
    engine = get_game(game)
    with language(lang):
        if picture_layout(game) == "wide":
            return engine.draw_svg(json.loads(view))
        return engine.draw_svg(json.loads(view), layout=picture_layout(game))


def _is_width(png: bytes, width: int) -> bool:
    """A PNG stored at a width no step of :func:`mail_png` gives (the setting changed since) is rendered again."""
    return len(png) > 24 and int.from_bytes(png[16:20], "big") in {w for w, _quality in _steps(width)}


def inline(html: str, key: str, cfg: Settings, render: bool = True) -> tuple[str, bytes | None, str]:
    """A mail's HTML and the picture it shows by Content-ID: (the HTML, the
    PNG, its Content-ID), the HTML without the picture when there is no PNG."""
    cid = picture_cid(key, cfg.domain)
    png = png_for(key, cfg, render=render)
    return (html if png is not None else without_picture(html, cid)), png, cid


def without_picture(html: str, cid: str) -> str:
    """The HTML with the drawing's ``<img>`` taken out (it could not be attached)."""
    return re.sub(r'<div class="picture"[^>]*>\s*<img[^>]*src="cid:' + re.escape(cid) + r'"[^>]*>\s*</div>\s*', "",
                  html)
