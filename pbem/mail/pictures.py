"""Board drawings as PNG for the mail. Mail clients drop SVG, so
the HTML part of a board mail shows the drawing as an inline PNG (a
``multipart/related`` part named by Content-ID), rendered here with resvg
(the Python package resvg: the Rust renderer in one wheel, no system
libraries), with the DejaVu fonts shipped beside this module (fonts/, their
licence in fonts/LICENSE), read once per thread, and no system font: the
same PNG on every machine, and text on a server that has no fonts installed.

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
bytes from another view shares its PNG too. A drawing cut into bands (the
narrow layout's parts: drawing.Svg.band) is rendered band by band, and each
band is kept in this process and put into every later picture that shows
it the same (:func:`banded_png`): the seats of a move, the game's next
moves. A drawing that
cannot be rendered is logged and the mail goes without it: its HTML and
text boards are complete."""
from __future__ import annotations

import hashlib
import json
import logging
import math
import re
import struct
import threading
import zlib
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
# a map's slanted lines show their steps). Said on the drawing's root element, where every element
# inherits it (no drawing sets either of its own)
QUALITIES = {"smooth": "", "text-crisp": ' text-rendering="optimizeSpeed"',
             "crisp": ' text-rendering="optimizeSpeed" shape-rendering="crispEdges"'}

# resvg's options hold the fonts, read once per thread (a renderer's options may only be used by the
# thread that made them); reading them again for every rendering was half of a band's time
_local_fonts = threading.local()


def _options():
    options = getattr(_local_fonts, "options", None)
    if options is None:
        from resvg import usvg

        options = usvg.Options.default()
        for path in FONTS:
            if Path(path).name != "DejaVuSans-Bold.ttf":
                options.load_font_file(path)
                continue
            data = Path(path).read_bytes()  # read once: the face as it is, and as a family of its own
            options.load_font_data(data)
            bold = _bold_as_family(data)
            if bold is not None:
                options.load_font_data(bold)
        options.font_family = "DejaVu Sans"
        _local_fonts.options = options
    return options


# The renderer lays out a text whose weight is not the normal one (font-weight="bold") three to four times
# as slowly as a text at normal weight, whatever faces it has: 200 bold labels took 80 ms to read, 200 at
# normal weight 24. Nearly half of a board's labels are bold, and laying its text out was most of the
# time it took to read a drawing. So the bold face is also given to the renderer as a family of its own
# at normal weight (BOLD_FAMILY: the same file, only its family name and weight class changed), and a
# bold label asks for that family instead (_as_bold_family): the same glyphs from the same face, the same
# PNG byte for byte (tests/mail/test_renderer.py), a board read in a third less time.
BOLD_FAMILY = "DejaVu Bold"


def _bold_as_family(data: bytes) -> bytes | None:
    """DejaVu Sans Bold's font file with its family named BOLD_FAMILY and its weight normal; None for
    a file that is not laid out as that font's (its family named in its name table, an OS/2 table)."""
    tables = {}
    for i in range(int.from_bytes(data[4:6], "big")):
        entry = data[12 + 16 * i:28 + 16 * i]
        tables[entry[:4]] = (int.from_bytes(entry[8:12], "big"), int.from_bytes(entry[12:16], "big"))
    if b"name" not in tables or b"OS/2" not in tables:
        return None
    out = bytearray(data)
    at, length = tables[b"name"]
    names = bytes(out[at:at + length])
    # the same length (11 letters), so no offset in the file moves: in UTF-16 (Windows' records) and
    # in Mac Roman (the Macintosh's); the unique and full names change alike, which no one reads here
    renamed = (names.replace("DejaVu Sans".encode("utf-16-be"), BOLD_FAMILY.encode("utf-16-be"))
               .replace(b"DejaVu Sans", BOLD_FAMILY.encode("ascii")))
    if renamed == names:
        return None
    out[at:at + length] = renamed
    weight = tables[b"OS/2"][0] + 4  # usWeightClass
    out[weight:weight + 2] = (400).to_bytes(2, "big")
    return bytes(out)


_TEXT = re.compile(r"<text\b[^>]*>")
_FONT_ELSEWHERE = re.compile(r"<style\b|\sstyle=|<(?!text\b)[A-Za-z][^>]*\sfont-(?:family|weight|style)=")
_DEJAVU_ROOT = re.compile(r'\sfont-family="DejaVu Sans(?:,[^"]*)?"')


def _as_bold_family(svg: str, root: "re.Match[str]") -> str:
    """The drawing with each bold text of DejaVu Sans asking for BOLD_FAMILY at normal weight instead.
    Only where nothing else could set a text's font: the root's family DejaVu Sans, no other element
    (no group, no style) saying a family, a weight or a style; a text that names its own family or
    style stays as it is."""
    if ' font-weight="bold"' not in svg or not _DEJAVU_ROOT.search(root.group(0)) \
            or _FONT_ELSEWHERE.search(svg, root.end()):
        return svg

    def one(tag: "re.Match[str]") -> str:
        t = tag.group(0)
        if ' font-weight="bold"' not in t or "font-family=" in t or "font-style=" in t:
            return t
        return t.replace(' font-weight="bold"', f' font-family="{BOLD_FAMILY}"', 1)

    return _TEXT.sub(one, svg)


def _f32(x: float) -> float:
    return struct.unpack("f", struct.pack("f", x))[0]


def _fit_width(w: int, h: int, width: int) -> tuple[int, float, float]:
    """The height in pixels of a drawing ``w`` by ``h`` (its size rounded up to whole units) scaled to
    ``width`` pixels, and the scales across and down, in the single precision resvg computes them in."""
    height = math.ceil(_f32(_f32(float(width) * h) / w))
    return height, _f32(float(width) / w), _f32(float(height) / h)


def render_png(svg: str, width: int | None = None, *, quality: str = "smooth") -> bytes:
    """The drawing as a PNG ``width`` pixels wide (default: its own size), on white, rendered as
    :data:`QUALITIES` says, with the fonts shipped here; ValueError if it cannot be rendered."""
    import resvg
    from resvg import usvg

    attrs = QUALITIES[quality]
    root = _ROOT.search(svg)
    if root is not None:
        svg = _as_bold_family(svg, root)  # changes only what follows the root element: root.end() still holds
        if attrs:
            end = root.end() - (2 if root.group(0).endswith("/>") else 1)
            svg = svg[:end] + attrs + svg[end:]
    try:
        tree = usvg.Tree.from_str(svg, _options())
        w, h = tree.int_size()
        width = width or w
        height, sx, sy = _fit_width(w, h, width)
        return bytes(resvg.render(tree, (sx, 0.0, 0.0, 0.0, sy, 0.0), bg_size=(width, height),
                                  bg_color=(255, 255, 255, 255)))
    except Exception as e:
        raise ValueError(f"the drawing cannot be read or rendered: {e}") from None
    except BaseException as e:  # the renderer's Rust code panics on a drawing it cannot read
        if type(e).__name__ != "PanicException":
            raise
        raise ValueError(f"the drawing cannot be read or rendered: {e}") from None


# ---------------------------------------------------------------- drawings rendered band by band
# A drawing cut into bands (drawing.Svg.band: the parts of the mail's column, one under another) is
# rendered a band at a time, and the PNG put together from the bands' pixels without rendering or
# compressing them again: each band's rows are kept in this process, compressed on their own, under the
# band's own bytes. A move changes a few parts of the board (the market, the mover's panel, the
# status), so the next picture of the game, and every other seat's picture of the same move, renders
# only the bands it does not share with a picture rendered before. The bands' PNGs are made of the
# same pixels as the whole drawing's: the cuts lie between the parts, where the drawing is paper.

_MARK = re.compile(r"<!--band (-?[\d.]+)-->")
_ROOT = re.compile(r'<svg\b[^>]*>')
_HEAD = re.compile(r'<title id="[^"]*">[^<]*</title><desc id="[^"]*">[^<]*</desc>(<defs>.*?</defs>)?'
                   r'<rect x="0" y="0" width="[\d.]+" height="[\d.]+" fill="(#[0-9A-Fa-f]{3,8})"/>', re.S)
_BOX = re.compile(r'viewBox="0 0 ([\d.]+) ([\d.]+)" width="[\d.]+" height="[\d.]+"')
_PNG = b"\x89PNG\r\n\x1a\n"
_PIECES_BYTES = 48 << 20  # the bands' compressed rows kept in this process: some hundreds of pictures' worth


class _Piece:
    """A band's pixel rows ready to join others: compressed on their own and flushed to a byte
    boundary (a deflate stream that the next band's continues), with what the PNG's checksum needs."""

    __slots__ = ("rows", "length", "adler", "data")

    def __init__(self, rows: int, length: int, adler: int, data: bytes) -> None:
        self.rows, self.length, self.adler, self.data = rows, length, adler, data


class Kept:
    """The bands this process rendered (their :class:`_Piece`), most recently used last, up to
    ``limit`` bytes of compressed rows."""

    def __init__(self, limit: int = _PIECES_BYTES) -> None:
        self.pieces: "OrderedDict[tuple[bytes, int, str], _Piece]" = OrderedDict()
        self.size, self.limit = 0, limit

    def get(self, key: tuple[bytes, int, str]) -> "_Piece | None":
        with _drawn_lock:
            hit = self.pieces.get(key)
            if hit is not None:
                self.pieces.move_to_end(key)
            return hit

    def put(self, key: tuple[bytes, int, str], piece: "_Piece") -> None:
        with _drawn_lock:
            if key not in self.pieces:
                self.pieces[key] = piece
                self.size += len(piece.data)
                while self.size > self.limit and self.pieces:
                    self.size -= len(self.pieces.popitem(last=False)[1].data)


kept = Kept()  # a bench or a test may put another in its place


_TAG = re.compile(r"<(/?)([A-Za-z][\w:-]*)\b[^>]*?(/?)>")
_ID = re.compile(r'\sid="([^"]+)"')
_REF = re.compile(r'(?:href="#|url\(#)([^")]+)')


def _definitions(defs: str) -> dict[str, str] | None:
    """The drawing's definitions (symbols, gradients: the children of its ``<defs>``) by their id;
    None if one has no id or the markup is not a list of elements."""
    inner = defs[len("<defs>"):-len("</defs>")] if defs else ""
    out: dict[str, str] = {}
    depth = start = last = 0
    for tag in _TAG.finditer(inner):
        if depth == 0:
            if inner[last:tag.start()].strip() or tag.group(1):
                return None
            start = tag.start()
        depth += -1 if tag.group(1) else 0 if tag.group(3) else 1
        if depth == 0:
            ident = _ID.search(inner, start, inner.index(">", start))
            if ident is None:
                return None
            out[ident.group(1)] = inner[start:tag.end()]
            last = tag.end()
    return out if depth == 0 and not inner[last:].strip() else None


def _needs(body: str, definitions: dict[str, str]) -> str | None:
    """The ``<defs>`` a band's markup needs: the definitions it refers to (and those they refer to),
    in the order of their ids, whatever order the drawing defined them in and whatever else it
    defined; None if it refers to something that is not a definition (it is rendered whole)."""
    wanted, todo = set(), _REF.findall(body)
    while todo:
        ident = todo.pop()
        if ident not in wanted:
            if ident not in definitions:
                return None
            wanted.add(ident)
            todo += _REF.findall(definitions[ident])
    return "<defs>" + "".join(definitions[i] for i in sorted(wanted)) + "</defs>" if wanted else ""


def bands(svg: str) -> tuple[str, dict[str, str], str, float, list[tuple[float, float, str]]] | None:
    """A banded drawing's parts: its root tag, its definitions by id, its paper's colour, its width
    and its bands (top, bottom, markup), top to bottom; None for a drawing that is not cut into bands,
    or whose opening is not the one :class:`pbem.engine.drawing.Svg` writes (it is rendered whole)."""
    first = _MARK.search(svg)
    root = _ROOT.match(svg)
    if first is None or root is None or not svg.endswith("</svg>\n"):
        return None
    head = _HEAD.fullmatch(svg, root.end(), first.start())
    box = _BOX.search(root.group(0))
    if head is None or box is None:
        return None
    width, height = float(box.group(1)), float(box.group(2))
    cuts = _MARK.split(svg[first.start():len(svg) - len("</svg>\n")])[1:]
    tops = [float(y) for y in cuts[0::2]]
    tops[0] = 0.0
    ends = tops[1:] + [height]
    definitions = _definitions(head.group(1) or "")
    if any(b < a for a, b in zip(tops, ends)) or ends[-1] < tops[-1] or definitions is None:
        return None
    return root.group(0), definitions, head.group(2), width, list(zip(tops, ends, cuts[1::2]))


def banded_png(svg: str, width: int, quality: str = "smooth", budget: int | None = None) -> bytes | None:
    """The drawing's PNG ``width`` pixels wide as :func:`render_png` gives it, put together from its
    bands where it has them (each rendered only if this process has not rendered the same band at
    the same width and quality before). With a ``budget``, None without rendering anything when the
    bands already kept pass it on their own (the PNG would be heavier still)."""
    parts = bands(svg)
    if parts is None:
        return render_png(svg, width, quality=quality)
    root, definitions, paper, units, rows = parts
    scale = width / units
    todo: list[tuple[str, int]] = []
    for n, (top, end, body) in enumerate(rows):
        # the whole drawing's rows as resvg sizes it: its height rounded to whole units, scaled, rounded up
        r0 = math.floor(top * scale + 0.5)
        r1 = math.ceil(math.floor(end + 0.5) * scale) if n == len(rows) - 1 else math.floor(end * scale + 0.5)
        if r1 <= r0:
            continue
        y, h = r0 / scale, (r1 - r0) / scale
        paper_h = min(h, end - y) if n == len(rows) - 1 else h
        body, y = _local(body, y)
        defs = _needs(body, definitions)
        if defs is None:
            return render_png(svg, width, quality=quality)
        # the band's size in whole pixels, its box mapped onto them as they are (resvg rounds a size up
        # and centres the drawing in what it added): the rows past the band's own are dropped (_piece)
        tall = math.ceil(h * scale)
        band = (_BOX.sub(f'viewBox="0 {y!r} {units!r} {tall / scale!r}" width="{width}" height="{tall}" '
                         f'preserveAspectRatio="none"', root, 1) + defs
                + f'<rect x="0" y="{y!r}" width="{units!r}" height="{paper_h!r}" fill="{paper}"/>' + body + "</svg>")
        todo.append((band, r1 - r0))
    keys = [(hashlib.sha256(band.encode("utf-8")).digest(), width, quality) for band, _rows in todo]
    found = [kept.get(key) for key in keys]
    if budget is not None:
        # the bands kept, and the others at the bytes a row those took: a step whose PNG that makes
        # heavier than the budget by a tenth is not rendered (the seats of a move share most bands,
        # so the second seat's picture knows most of its weight before anything is rendered)
        known = [(len(p.data), rows) for p, (_band, rows) in zip(found, todo) if p is not None]
        weight, known_rows = sum(b for b, _r in known), sum(r for _b, r in known)
        missing = sum(rows for p, (_band, rows) in zip(found, todo) if p is None)
        if weight > budget or (known_rows > missing and weight + missing * weight / known_rows > 1.1 * budget):
            return None
    pieces = []
    for key, (band, band_rows), piece in zip(keys, todo, found):
        if piece is None:
            piece = _piece(render_png(band, width, quality=quality), width, band_rows)
            if piece is None:  # a band whose pixels are not the rows expected: the drawing is rendered whole
                return render_png(svg, width, quality=quality)
            kept.put(key, piece)
        pieces.append(piece)
    return _joined(width, pieces)


_PLACED = re.compile(r'<g transform="translate\(0,(-?[\d.]+)\)">')
_GROUP = re.compile(r"<g[\s>]|</g>")


def _local(body: str, top: float) -> tuple[str, float]:
    """A band that is one group moved down (drawing.Svg.placed) in its own units, and its top in
    them: the same part at another height is the same band. Any other band is left as it is."""
    m = _PLACED.match(body)
    if m is None or not body.endswith("</g>"):
        return body, top
    depth = 0
    for tag in _GROUP.finditer(body):
        depth += -1 if tag.group(0) == "</g>" else 1
        if depth == 0 and tag.end() != len(body):  # the group ends before the band does
            return body, top
    return "<g>" + body[m.end():], top - float(m.group(1))


def _piece(png: bytes, width: int, rows: int) -> _Piece | None:
    """A band's PNG (8-bit RGBA, as resvg writes it) as a :class:`_Piece`; None if it is not that."""
    chunks, at = [], 8
    if png[:8] != _PNG:
        return None
    while at + 8 <= len(png):
        size, kind = int.from_bytes(png[at:at + 4], "big"), png[at + 4:at + 8]
        chunks.append((kind, png[at + 8:at + 8 + size]))
        at += 12 + size
    ihdr = chunks[0][1] if chunks and chunks[0][0] == b"IHDR" else b""
    # a band's canvas is its height in pixels rounded up: a row past the band's own is left out
    if len(ihdr) != 13 or ihdr[:4] != width.to_bytes(4, "big") or ihdr[8:] != bytes((8, 6, 0, 0, 0)) \
            or not rows <= int.from_bytes(ihdr[4:8], "big") <= rows + 2:
        return None
    stride = 1 + 4 * width
    raw = bytearray(zlib.decompress(b"".join(data for kind, data in chunks if kind == b"IDAT"))[:rows * stride])
    if len(raw) != rows * stride:
        return None
    # the band's first row was filtered against a row of zeros (the top of an image); below another
    # band it follows that band's last row, so it is given a filter that looks at no row above
    if raw[0] == 2:  # "up" from zeros is the row itself
        raw[0] = 0
    elif raw[0] == 4:  # "Paeth" from zeros predicts the pixel to the left: "sub"
        raw[0] = 1
    elif raw[0] == 3:  # "average" from zeros: half the pixel to the left, undone here
        for i in range(5, stride):
            raw[i] = (raw[i] + (raw[i - 4] >> 1)) & 0xFF
        raw[0] = 0
    packer = zlib.compressobj(6, zlib.DEFLATED, -15, 9)
    data = packer.compress(raw) + packer.flush(zlib.Z_SYNC_FLUSH)
    return _Piece(rows, len(raw), zlib.adler32(raw), data)


def _adler_joined(first: int, second: int, length: int) -> int:
    """The Adler-32 of two byte strings one after the other, from theirs and the second's length (as
    zlib's adler32_combine computes it)."""
    base = 65521
    rem = length % base
    s1 = first & 0xFFFF
    s2 = rem * s1 % base
    s1 = (s1 + (second & 0xFFFF) + base - 1) % base
    s2 = (s2 + (first >> 16) + (second >> 16) + base - rem) % base
    return (s2 << 16) | s1


def _chunk(kind: bytes, data: bytes) -> bytes:
    return len(data).to_bytes(4, "big") + kind + data + zlib.crc32(data, zlib.crc32(kind)).to_bytes(4, "big")


def _joined(width: int, pieces: list[_Piece]) -> bytes:
    """One PNG of the pieces' rows, one under another: their deflate streams in one zlib stream."""
    adler = 1
    for p in pieces:
        adler = _adler_joined(adler, p.adler, p.length)
    stream = b"\x78\x9c" + b"".join(p.data for p in pieces) + b"\x03\x00" + adler.to_bytes(4, "big")
    rows = sum(p.rows for p in pieces)
    return (_PNG + _chunk(b"IHDR", struct.pack(">IIBBBBB", width, rows, 8, 6, 0, 0, 0)) + _chunk(b"IDAT", stream)
            + _chunk(b"IEND", b""))


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


def stepped_png(svg: str, width: int, budget: int = PNG_BUDGET, kind: str | None = None,
                banded: bool = True) -> tuple[bytes, int]:
    """:func:`mail_png` and which of :func:`_steps` it is (0: the first). A step this drawing's kind
    (``kind``: its game, whose pictures compress alike) shows it surely cannot keep within the budget
    is not rendered at all: each rendering of a tall drawing is a large part of a move's cost, and
    most of a late game's pictures would otherwise be rendered two or three times to keep one. A
    drawing cut into bands is rendered band by band (:func:`banded_png`), unless ``banded`` is False
    (a bench's "before")."""
    steps = _steps(width)
    aspect = _aspect(svg)
    png, step = b"", 0
    for step, (w, quality) in enumerate(steps):
        if kind and aspect and step < len(steps) - 1 and _surely_over(kind, step, w, aspect, budget):
            continue
        if not banded:
            png = render_png(svg, w, quality=quality)
        else:  # a step whose bands kept already pass the budget is not rendered (but the last)
            banded_step = banded_png(svg, w, quality, budget if step < len(steps) - 1 else None)
            if banded_step is None:
                continue
            png = banded_step
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
