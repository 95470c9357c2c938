"""The toolkit the games draw their boards with: an SVG written
as text, from a seat's view only, in pbem's own plain style.

A drawing is a picture of the same view the text board shows: each game's
``draw.py`` reads nothing but the view (so it can never show what the view
hides) and the legal moves the page offers the viewer (``moves``: notation
strings; each one is put on the element it concerns as ``data-moves``, so a
click on the board fills the move box; mail drawings get none). The output
is deterministic (same view, same bytes: the golden tests compare it), has
a ``<title>`` and a ``<desc>`` (what a screen reader says; the text board
stays the complete account), uses no external resource, no script and no
CSS beyond presentation attributes, so that it renders the same in a
browser and in the mail's PNG (resvg).
"""
from __future__ import annotations

import json
import re
from typing import Callable, Iterable, Mapping, Sequence

from .i18n import _

FONT = "DejaVu Sans, Verdana, Arial, sans-serif"

# Player colours, seat order: distinguishable for the common colour-vision deficiencies (Okabe-Ito),
# each with a light tint for areas and a dark shade for text on white.
PLAYER_COLOURS = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00")
PLAYER_TINTS = ("#DCEBF6", "#F8E3D6", "#D6F0E8", "#F5E6EF", "#FBEFD5")
PLAYER_DARK = ("#004A75", "#8A3C00", "#006148", "#8A4271", "#8A5E00")
INK = "#222222"
MUTED = "#555555"  # the faintest text colour used: 7.4:1 on white
PAPER = "#FBF8F1"
LINE = "#8A8375"

# Two layouts of every drawing. "wide" is the desktop page's landscape board. "narrow" is the same
# parts stacked in a portrait column NARROW_WIDTH units wide, for a phone: shown one unit to one CSS
# pixel (a 390-px screen less the page's margins), and in the mail as a PNG rendered at twice that
# width but displayed at it, so that no text is smaller than MIN_TEXT pixels on the screen it is read on.
LAYOUTS = ("wide", "narrow")
NARROW_WIDTH = 340
MIN_TEXT = 11


def colour(seat: int) -> str:
    return PLAYER_COLOURS[seat % len(PLAYER_COLOURS)]


def tint(seat: int) -> str:
    return PLAYER_TINTS[seat % len(PLAYER_TINTS)]


def dark(seat: int) -> str:
    return PLAYER_DARK[seat % len(PLAYER_DARK)]


def num(x: float) -> str:
    """A coordinate as short, stable text: 12, 12.5, never 12.499999999."""
    r = round(float(x), 1)
    return str(int(r)) if r == int(r) else f"{r:.1f}"


def esc(text: object) -> str:
    s = str(text)
    return (s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")
            .replace("\x00", ""))


def attrs(values: Mapping[str, object]) -> str:
    out = []
    for k, v in values.items():
        if v is None or v is False:
            continue
        name = k.rstrip("_")
        name = "xml:" + name[4:] if name.startswith("xml_") else name.replace("_", "-")
        out.append(f' {name}="{num(v) if isinstance(v, float) else esc(v)}"')
    return "".join(out)


def moves_attr(moves: Iterable[str]) -> str | None:
    """The ``data-moves`` value of an element: the legal moves it stands for, as a JSON list."""
    found = list(dict.fromkeys(moves))
    return json.dumps(found, ensure_ascii=False) if found else None


def wrap(text: str, width: int) -> list[str]:
    """``text`` in lines of at most ``width`` characters, broken at spaces (a longer word stays whole)."""
    lines: list[str] = []
    for para in str(text).split("\n"):
        line = ""
        for word in para.split():
            if line and len(line) + 1 + len(word) > width:
                lines.append(line)
                line = word
            else:
                line = f"{line} {word}" if line else word
        lines.append(line)
    return lines


def fit(text: str, width: int) -> str:
    """``text`` cut to ``width`` characters, with an ellipsis when cut."""
    text = str(text)
    return text if len(text) <= width else text[: max(1, width - 1)].rstrip() + "…"


class Svg:
    """An SVG document written in order. Elements take keyword attributes
    (``class_`` for class, ``data_moves`` for data-moves; None leaves one out)."""

    def __init__(self, width: float, height: float, *, id_prefix: str = "b") -> None:
        self.width, self.height, self.prefix = width, height, id_prefix
        self.defs: list[str] = []
        self.parts: list[str] = []
        self._symbols: set[str] = set()
        self.picks = 0  # groups that offer moves (a click picks one)

    def id(self, name: str) -> str:
        return f"{self.prefix}-{name}"

    # ------------------------------------------------------------ shapes
    def add(self, raw: str) -> None:
        self.parts.append(raw)

    def rect(self, x: float, y: float, w: float, h: float, **a: object) -> None:
        self.parts.append(f"<rect{attrs(dict(x=x, y=y, width=w, height=h, **a))}/>")

    def circle(self, cx: float, cy: float, r: float, **a: object) -> None:
        self.parts.append(f"<circle{attrs(dict(cx=cx, cy=cy, r=r, **a))}/>")

    def line(self, x1: float, y1: float, x2: float, y2: float, **a: object) -> None:
        self.parts.append(f"<line{attrs(dict(x1=x1, y1=y1, x2=x2, y2=y2, **a))}/>")

    def path(self, d: str, **a: object) -> None:
        self.parts.append(f"<path{attrs(dict(d=d, **a))}/>")

    def polygon(self, points: Sequence[tuple[float, float]], **a: object) -> None:
        pts = " ".join(f"{num(x)},{num(y)}" for x, y in points)
        self.parts.append(f"<polygon{attrs(dict(points=pts, **a))}/>")

    def polyline(self, points: Sequence[tuple[float, float]], **a: object) -> None:
        pts = " ".join(f"{num(x)},{num(y)}" for x, y in points)
        self.parts.append(f"<polyline{attrs(dict(points=pts, fill='none', **a))}/>")

    def text(self, x: float, y: float, text: object, *, size: float = 12, anchor: str = "start",
             weight: str | None = None, fill: str = INK, **a: object) -> None:
        anchor_attr = anchor if anchor != "start" else None
        values = dict(x=x, y=y, font_size=size, text_anchor=anchor_attr, font_weight=weight, fill=fill, **a)
        self.parts.append(f"<text{attrs(values)}>{esc(text)}</text>")

    def lines(self, x: float, y: float, rows: Sequence[str], *, size: float = 12, gap: float | None = None,
              **a: object) -> float:
        """Several lines of text from baseline ``y``; returns the baseline after the last."""
        step = gap if gap is not None else size * 1.25
        for row in rows:
            self.text(x, y, row, size=size, **a)
            y += step
        return y

    def band(self, y: float) -> None:
        """A cut across the whole drawing at ``y``: what was drawn before lies above it, what is drawn
        after lies below it. A renderer may render each part between cuts on its own and reuse the
        parts that did not change since it last rendered them (the mail's pictures,
        pbem/mail/pictures.py); a browser reads the mark as a comment."""
        self.parts.append(f"<!--band {num(y)}-->")

    def placed(self, y: float, draw: Callable[[float], float], cut: float = 2) -> float:
        """A part of the drawing as a band of its own: ``draw(0)`` draws it from its own top and
        returns its bottom, and it is shown at ``y`` (a group moved down; the cut is ``cut`` units
        above, in the gap between parts, where an edge's stroke does not reach). A part drawn the
        same way is the same markup wherever it stands, so a renderer that keeps bands reuses it when
        a part above it grew. Returns the part's bottom in the drawing."""
        self.band(y - cut)
        self.parts.append(f'<g transform="translate(0,{num(y)})">')
        end = draw(0)
        self.parts.append("</g>")
        return round(y, 1) + end

    # ------------------------------------------------------------ groups
    def open(self, **a: object) -> None:
        """A group; with ``data_moves`` it is clickable on the web (class "pick" added)."""
        if a.get("data_moves"):
            self.picks += 1
            a["class_"] = ("pick " + str(a.get("class_") or "")).strip()
            a.setdefault("tabindex", "0")
            a.setdefault("role", "button")
        self.parts.append(f"<g{attrs(a)}>")

    def close(self) -> None:
        self.parts.append("</g>")

    def title(self, text: str) -> None:
        """A tooltip / accessible name for the element just opened."""
        self.parts.append(f"<title>{esc(text)}</title>")

    # ------------------------------------------------------------ symbols
    def symbol(self, name: str, view_box: str, body: str) -> str:
        """Define ``name`` once (in <defs>); returns its id for :meth:`use`."""
        sid = self.id(name)
        if name not in self._symbols:
            self._symbols.add(name)
            self.defs.append(f'<symbol id="{sid}" viewBox="{view_box}">{body}</symbol>')
        return sid

    def use(self, sid: str, x: float, y: float, w: float, h: float, **a: object) -> None:
        self.parts.append(f"<use{attrs(dict(href='#' + sid, x=x, y=y, width=w, height=h, **a))}/>")

    # ------------------------------------------------------------ the document
    def finish(self, title: str, desc: str) -> str:
        t, d = self.id("title"), self.id("desc")
        # an image's children are presentational (ARIA): with elements to click inside, a group
        role = "group" if self.picks else "img"
        head = (f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {num(self.width)} {num(self.height)}" '
                f'width="{num(self.width)}" height="{num(self.height)}" role="{role}" '
                f'aria-labelledby="{t} {d}" font-family="{esc(FONT)}" class="board-drawing">'
                f'<title id="{t}">{esc(title)}</title><desc id="{d}">{esc(desc)}</desc>')
        defs = f"<defs>{''.join(self.defs)}</defs>" if self.defs else ""
        return _spaced_paths(head + defs + "".join(self.parts)) + "</svg>\n"


_PATH_DATA = re.compile(r'(\sd=")([^"]*)(")')
_COMMAND = re.compile(r"([MmLlHhVvCcSsQqTtAaZz])(?=[-.\d])")


def _spaced_paths(doc: str) -> str:
    """Path data with a space after each command ("M 10 1 L 17 7"): the same shape, and no word in the
    markup that reads like a game's value ("M10", "L17": a card's id) to whoever reads the page's source."""
    return _PATH_DATA.sub(lambda m: m.group(1) + _COMMAND.sub(r"\1 ", m.group(2)) + m.group(3), doc)


# ---------------------------------------------------------------- shared icons
# Our own simple shapes (no publisher art), drawn in a 0 0 20 20 box; fill is given by the caller.

ICONS = {
    "worker": '<circle cx="10" cy="5" r="4"/><path d="M3 19 Q3 10 10 10 Q17 10 17 19 Z"/>',
    "cube": '<path d="M10 1 L18 5 L18 15 L10 19 L2 15 L2 5 Z"/>'
            '<path d="M2 5 L10 9 L18 5 M10 9 L10 19" fill="none" stroke="#000" stroke-opacity=".35"/>',
    "token": '<circle cx="10" cy="10" r="8.5"/><circle cx="10" cy="10" r="5" fill="none" stroke="#fff" stroke-opacity=".7"/>',
    "ticket": '<path d="M1 5 H19 V8 A2 2 0 0 0 19 12 V15 H1 V12 A2 2 0 0 0 1 8 Z"/>',
    "coin": '<circle cx="10" cy="10" r="8.5"/><circle cx="10" cy="10" r="6" fill="none" stroke="#000" stroke-opacity=".3"/>',
    "crystal": '<path d="M10 1 L17 7 L10 19 L3 7 Z"/><path d="M3 7 H17 M10 1 L7 7 L10 19 L13 7 Z" fill="none" stroke="#fff" stroke-opacity=".6"/>',
    "star": '<path d="M10 1 L12.6 7 L19 7.4 L14 11.6 L15.6 18.5 L10 14.8 L4.4 18.5 L6 11.6 L1 7.4 L7.4 7 Z"/>',
    "pawn": '<circle cx="10" cy="5" r="4"/><path d="M6 19 L8 10 H12 L14 19 Z"/><rect x="4" y="17" width="12" height="3" rx="1"/>',
}


def icon(svg: Svg, name: str, x: float, y: float, size: float, fill: str, **a: object) -> None:
    """One of :data:`ICONS` at ``x, y`` (top left), ``size`` square."""
    sid = svg.symbol(f"icon-{name}", "0 0 20 20", ICONS[name])
    svg.use(sid, x, y, size, size, fill=fill, **a)


def text_board(title: str, text: str, *, columns: int = 78) -> str:
    """The drawing of a game that has no drawing of its own: its text board as a picture."""
    rows = [r for line in text.splitlines() for r in (wrap(line, columns) if line.strip() else [""])]
    svg = Svg(columns * 7.3 + 24, len(rows) * 15 + 24)
    svg.rect(0, 0, svg.width, svg.height, fill=PAPER)
    svg.lines(12, 24, rows, size=12, gap=15, font_family="DejaVu Sans Mono, monospace", xml_space="preserve")
    return svg.finish(title, _("The text board, drawn as it reads."))
