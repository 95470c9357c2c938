"""Spyrium's board as a picture: an SVG drawn from a seat's view only.

What it shows: the 3x3 market with every card (name, price, kind, symbols,
VP, effect, tokens, workers beside it), the workers on the 12 spaces in their
colours, the current and the next event, the score and residence tracks,
each player's resources, workers, district and techniques, a pending choice,
and the final scores. It reads nothing but the view (and the fixed market
geometry), so it cannot show what the view hides; the same view gives the
same bytes.

Clickable moves: every legal move in ``moves`` goes, as ``data-moves``, on
the one element it concerns (see :func:`targets`): a placement or an Earn
money on its space, an activation on its card, a building use on the lot,
an event use on the event, a pass on the pass button, an answer to a pending
question on that choice.

Two layouts of the same parts (drawing.LAYOUTS): "wide", the desktop page's
board (the market with the events beside it, then the tracks and the
players), and "narrow", a column drawing.NARROW_WIDTH units wide for a
phone's page and the mail's picture (the pending choice, the market and the
events, the viewer's panel, the other players, then the tracks and the
supply), no text under drawing.MIN_TEXT units. Each part is one function
that draws at an origin and a width; the market's grid measures its rows in
the narrow column, where a card is a third of a phone's width.
"""
from __future__ import annotations

import re
from typing import Any, Mapping, Sequence

from ..base import seat_label
from ..drawing import INK, LAYOUTS, LINE, MUTED, NARROW_WIDTH, PAPER, Svg, icon, moves_attr, num
from . import notation
from .i18n import (N_, _, game_title, tr, card_label, card_name, choice_said, pending_said, shown, tr_bonus, tr_breakdown,
                   tr_card_text, tr_summary)
from .render import short_label, worker_counts
from .data import SPACE_NAME, SPACES
from .state import ACT, EARN, EVENT, PASS, PLACE, USE

# ---------------------------------------------------------------- colours
# Spyrium names its seats by colour (Red, Blue ...), so the drawing keeps those
# colours; the shades are Okabe-Ito's, told apart with the common colour-vision
# deficiencies. (fill, dark for text and outlines, light tint for areas)
SEAT_COLOURS = {
    "Red": ("#D55E00", "#8A3C00", "#F8E3D6"),
    "Blue": ("#0072B2", "#004A75", "#DCEBF6"),
    "Green": ("#009E73", "#006148", "#D6F0E8"),
    "Yellow": ("#EBD234", "#6B5F00", "#FBF5CF"),
    "Black": ("#2B2B2B", "#000000", "#E6E6E6"),
}
INITIAL = {"Red": "R", "Blue": "B", "Green": "G", "Yellow": "Y", "Black": "K"}
KIND_FILL = {"character": ("#F4ECDA", "#E4D3AE"), "building": ("#E6EFE2", "#C9DCC0"),
             "technique": ("#E4E9F4", "#C5D0E6")}
EVENT_FILL = ("#F3E6EE", "#DEC3D4")
TOKEN_FILL = "#4A4A4A"
COIN, CRYSTAL, STAR = "#D9A400", "#7B4FA0", "#C98A00"
SYMBOL_NAME = {"mine": N_("mine"), "factory": N_("factory"), "research": N_("research")}
SYMBOL_SHORT = {"mine": N_("mine"), "factory": N_("fact."), "research": N_("res.")}
KIND_NAME = {"character": N_("character"), "building": N_("building"), "technique": N_("technique")}

W = 1060          # the width of the drawing
M = 16            # the margin
CW, CH = 212, 140  # a market card
SW, SH = 62, 50   # a space between two cards: across (horizontal) and between rows (vertical)
MARKET_W = 3 * CW + 2 * SW
MARKET_H = 3 * CH + 2 * SH
RX = M + MARKET_W + 16   # the right-hand column (events, tokens)
RW = W - M - RX
LW, LH = 162, 110  # a card in a player's district

# the narrow column: its margin, a market card's width and the space beside it (a worker wide),
# the spaces' inset in their gap; the cards' rows are as tall as their texts need
NM = 6
NSW = 24
NCW = (NARROW_WIDTH - 2 * NM - 2 * NSW) / 3
NLW = (NARROW_WIDTH - 2 * NM - 24 - 8) / 2

# ---------------------------------------------------------------- text widths
# DejaVu Sans advance widths in ems (the font the drawing asks for first; others are narrower)
_NARROW = set("iljI.,:;!|'` \u00a0")
_SEMI = set("frt()[]-/\"")
_WIDE = set("mwMW@%")


def text_width(text: str, size: float, bold: bool = False) -> float:
    em = 0.0
    for ch in str(text):
        if ch in _NARROW:
            em += 0.32
        elif ch in _SEMI:
            em += 0.42
        elif ch in _WIDE:
            em += 0.95
        elif ch.isupper():
            em += 0.72
        else:
            em += 0.63
    return em * size * (1.08 if bold else 1.0)


def wrap_width(text: str, width: float, size: float, bold: bool = False) -> list[str]:
    """``text`` in lines no wider than ``width`` at ``size`` (a longer word is cut)."""
    lines: list[str] = []
    line = ""
    for word in str(text).split():
        trial = f"{line} {word}" if line else word
        if line and text_width(trial, size, bold) > width:
            lines.append(line)
            line = word
        else:
            line = trial
    if line:
        lines.append(line)
    return [fit_width(x, width, size, bold) for x in lines]


def fit_width(text: str, width: float, size: float, bold: bool = False) -> str:
    text = str(text)
    if text_width(text, size, bold) <= width:
        return text
    while text and text_width(text + "…", size, bold) > width:
        text = text[:-1]
    return text.rstrip() + "…"


def _clip(lines: list[str], n: int, width: float, size: float) -> list[str]:
    """At most ``n`` lines; the last one ends with an ellipsis after a whole word when cut
    (the element's title has the whole text)."""
    if len(lines) <= n:
        return lines
    words = lines[n - 1].split()
    while len(words) > 1 and text_width(" ".join(words) + " …", size) > width:
        words.pop()
    return lines[: n - 1] + [" ".join(words) + " …"]


_VOWELS = set("aeiouyàèéìòùáíóúаеёиоуыэюяѣ")
_NO_START = set("ьъй'’-")  # a line does not start with these


def _hyphenate(word: str, width: float, size: float, bold: bool = False) -> list[str]:
    """A word wider than ``width`` in pieces that fit, each but the last ending with a hyphen, broken
    between syllables as the common rule finds them (between two consonants, or after a vowel before
    a consonant and a vowel: "Проек-тирование", "Capitaliz-zazione", "Automa-zione"), leaving at least
    three letters to the next line; at the widest place that fits where no such place does."""
    pieces: list[str] = []
    while text_width(word, size, bold) > width and len(word) > 4:
        a = word.lower()
        fits = [i for i in range(2, len(word) - 2)
                if text_width(word[:i] + "-", size, bold) <= width and a[i] not in _NO_START]
        if not fits:
            break

        def vowel(i: int) -> bool:
            return a[i] in _VOWELS

        good = [i for i in fits if a[i - 1].isalpha() and a[i].isalpha() and a[i + 1].isalpha()
                and ((not vowel(i - 1) and not vowel(i)) or (vowel(i - 1) and not vowel(i) and vowel(i + 1)))]
        i = max(good) if good else max(fits)
        pieces.append(word[:i] + "-")
        word = word[i:]
    return pieces + [word]


_GLUE = re.compile(r"(?<=\d) (?=\S{1,3}(?: |$))")


def _glued(text: str) -> str:
    """A number held to the short word after it ("1 S", "+2 VP"): a narrow line never ends between them."""
    return _GLUE.sub("\u00a0", text)


def _wrap_words(text: str, width: float, size: float, bold: bool = False) -> list[str]:
    """``text`` in lines no wider than ``width``, a word too long for a line hyphenated: nothing cut."""
    lines: list[str] = []
    line = ""
    for word in [w for w in str(text).split(" ") if w]:  # a no-break space holds its words together
        trial = f"{line} {word}" if line else word
        if text_width(trial, size, bold) <= width:
            line = trial
            continue
        if line:
            lines.append(line)
        *whole, line = _hyphenate(word, width, size, bold)
        lines += whole
    return lines + ([line] if line else [])


def _name_lines(candidates: Sequence[str], width: float, size: float, bold: bool = True,
                most: int = 2) -> list[str]:
    """A name where it has ``width``: the first of its forms (the name, then shorter ones) that
    fits one line, else the first that fits ``most`` lines broken between words, else one
    hyphenated; cut with "…" only if no form fits at all."""
    for c in candidates:
        if text_width(c, size, bold) <= width:
            return [c]
    for c in candidates:
        rows = wrap_width(c, width, size, bold)
        if len(rows) <= most and not any(r.endswith("…") for r in rows) and len(" ".join(rows)) == len(c):
            return rows
    for c in candidates:
        rows = _wrap_words(c, width, size, bold)
        if len(rows) <= most and all(text_width(r, size, bold) <= width for r in rows):
            return rows
    return _clip(_wrap_words(candidates[-1], width, size, bold), most, width, size)


def _pack(pieces: Sequence[str], width: float, size: float, first: float | None = None) -> list[str]:
    """Short pieces ("building", "mine", "period A") joined with " · " into lines no wider than
    ``width`` (the first line ``first``, if given), so that no line starts with the dot; a piece too
    wide alone is broken between its words."""
    rows: list[str] = []
    row = ""
    for piece in pieces:
        room = width if rows or first is None else first
        trial = f"{row} · {piece}" if row else piece
        if text_width(trial, size) <= room:
            row = trial
            continue
        if row:
            rows.append(row)
        *whole, row = _wrap_words(piece, width if rows or first is None else first, size)
        rows += whole
    return rows + ([row] if row else [])


# ---------------------------------------------------------------- moves


def targets(moves: Sequence[str], view: Mapping[str, Any] | None = None) -> dict[tuple, list[str]]:
    """Each legal move (notation) under the element it concerns:
    ("space", "4-5") for place and earn, ("card", q) for act, ("lot", k) for use,
    ("event",) for event, ("pass",) for pass, ("answer", word) for the answer to
    a pending question; anything else under ("other",)."""
    out: dict[tuple, list[str]] = {}
    pending = bool(view and view.get("pending"))
    for text in moves:
        toks = notation._tokens(text)
        if toks and toks[0] in notation.PHASE2:
            toks = toks[1:]
        verb = notation.VERBS.get(toks[0]) if toks else None
        space = notation._space(toks[1]) if len(toks) > 1 else None  # None, or -1 for no space
        key: tuple = ("other",)  # drawn nowhere (the tests check that no legal move lands here)
        if pending and toks and verb is None:
            key = ("answer", toks[0])
        elif verb in (PLACE, EARN) and space is not None and space >= 0:
            key = ("space", SPACE_NAME[space])
        elif verb == ACT and len(toks) > 1 and toks[1].isdigit():
            key = ("card", int(toks[1]))
        elif verb == USE and len(toks) > 1 and toks[1].isdigit():
            key = ("lot", int(toks[1]))
        elif verb == EVENT:
            key = ("event",)
        elif verb == PASS:
            key = ("pass",)
        out.setdefault(key, []).append(text)
    return out


# ---------------------------------------------------------------- helpers


def _seat_colour(view, s: int) -> tuple[str, str, str]:
    return SEAT_COLOURS.get(view["colours"][s], SEAT_COLOURS["Black"])


def _who(view, s: int) -> str:
    """'Ann (Red)', or 'Red' when the services gave no name."""
    colour = tr(view["colours"][s])
    label = seat_label(view, s)
    return colour if label == f"Player {s + 1}" else _("%(player)s (%(colour)s)", player=label, colour=colour)


def _worker(svg: Svg, view, s: int, x: float, y: float, size: float = 18) -> None:
    fill, darkc, _tint = _seat_colour(view, s)
    icon(svg, "worker", x, y, size, fill, stroke=darkc, stroke_width=1.2)


def _disc(svg: Svg, view, s: int, cx: float, cy: float, r: float = 9) -> None:
    """A seat's marker: a disc in its colour with its initial."""
    fill, darkc, _tint = _seat_colour(view, s)
    colour = view["colours"][s]
    svg.circle(cx, cy, r, fill=fill, stroke=darkc, stroke_width=1.2)
    ink = "#000000" if colour == "Yellow" else "#FFFFFF"
    svg.text(cx, cy + r * 0.42, INITIAL.get(colour, "?"), size=max(11, r * 1.2), anchor="middle",
             weight="bold", fill=ink)


def _token(svg: Svg, cx: float, cy: float, value: object, r: float = 10) -> None:
    svg.circle(cx, cy, r, fill=TOKEN_FILL, stroke="#FFFFFF", stroke_width=1.5)
    svg.text(cx, cy + 4.5, value, size=13, anchor="middle", weight="bold", fill="#FFFFFF")


def _pill(svg: Svg, x: float, y: float, text: str, *, fill: str, ink: str, size: float = 12,
          bold: bool = False, stroke: str | None = None) -> float:
    """A rounded label from ``x`` with its middle at ``y``; returns its right edge."""
    w = text_width(text, size, bold) + 14
    svg.rect(x, y - 10, w, 20, rx=10, fill=fill, stroke=stroke)
    svg.text(x + 7, y + size * 0.36, text, size=size, fill=ink, weight="bold" if bold else None)
    return x + w


def _res(svg: Svg, x: float, y: float, kind: str, fill: str, text: str, size: float = 13) -> float:
    """An icon and its number on baseline ``y``; returns where the next one may start."""
    icon(svg, kind, x, y - 14, 17, fill)
    svg.text(x + 21, y, text, size=size, weight="bold")
    return x + 21 + text_width(text, size, True) + 14


def _group(svg: Svg, moves: list[str] | None, gid: str, title: str) -> None:
    svg.open(data_moves=moves_attr(moves or ()), id=svg.id(gid))
    svg.title(title)


# ---------------------------------------------------------------- market


class Grid:
    """Where the market stands: three columns of cards ``cw`` wide and ``sw`` apart (the spaces
    between neighbours in a row), rows of the heights ``rows``, ``gaps`` apart (the spaces between
    neighbours in a column); a space's area is inset from its gap by ``inset``."""

    def __init__(self, x: float, top: float, cw: float, sw: float, rows: Sequence[float], gaps: Sequence[float],
                 inset: float) -> None:
        self.x, self.top, self.cw, self.sw, self.inset = x, top, cw, sw, inset
        self.rows, self.gaps = tuple(rows), tuple(gaps)
        self.narrow = cw < 150  # a card a third of a phone's width: its texts stacked, not side by side

    def card(self, q: int) -> tuple[float, float, float, float]:
        """The area of the card at position ``q``: x, y, w, h."""
        r, c = divmod(q - 1, 3)
        return (self.x + c * (self.cw + self.sw), self.top + sum(self.rows[:r]) + sum(self.gaps[:r]),
                self.cw, self.rows[r])

    def space(self, q1: int, q2: int) -> tuple[float, float, float, float, bool]:
        """The area of the space between positions q1 < q2: x, y, w, h, across (side by side)."""
        x1, y1, w1, h1 = self.card(q1)
        i = self.inset
        if q2 == q1 + 1:
            return x1 + w1 + i, y1 + i, self.sw - 2 * i, h1 - 2 * i, True
        return x1 + i, y1 + h1 + i, w1 - 2 * i, self.gaps[(q1 - 1) // 3] - 2 * i, False

    @property
    def bottom(self) -> float:
        return self.top + sum(self.rows) + sum(self.gaps)


def _wide_grid(top: float) -> Grid:
    return Grid(M, top, CW, SW, (CH,) * 3, (SH,) * 2, 4)


def _narrow_grid(view, top: float) -> Grid:
    """The narrow column's market: each row as tall as its longest card or its most crowded space
    beside a card needs, each gap between rows as its most crowded space needs."""
    scratch = Svg(NARROW_WIDTH, 100, id_prefix="measure")
    probe = Grid(NM, 0, NCW, NSW, (1000,) * 3, (100,) * 2, 2)
    rows, gaps = [], []
    for r in range(3):
        need = 96.0
        for q in range(3 * r + 1, 3 * r + 4):
            need = max(need, _market_card(scratch, view, probe, q, view["market"][q - 1], None))
        for i, (q1, q2) in enumerate(SPACES):
            if q2 == q1 + 1 and (q1 - 1) // 3 == r:
                groups = _worker_groups(view["spaces"][i]["workers"])
                need = max(need, 30 + sum(20 if n == 1 else 33 for _s, n in groups) + 4)
        rows.append(need)
    for r in range(2):
        most = 1
        for i, (q1, q2) in enumerate(SPACES):
            if q2 == q1 + 3 and (q1 - 1) // 3 == r:
                groups = _worker_groups(view["spaces"][i]["workers"])
                most = max(most, len(_space_rows(groups, NCW - 4 - 26 - 4, len(groups))[0]))
        gaps.append(8 + 20 * most)
    return Grid(NM, top, NCW, NSW, rows, gaps, 2)


def _symbols(symbols: Sequence[str], short: bool = False) -> str:
    return " + ".join(_((SYMBOL_SHORT if short else SYMBOL_NAME).get(s, s)) for s in symbols)


def _first_fit(candidates: Sequence[str], width: float, size: float, bold: bool = False) -> str:
    """The first of ``candidates`` that fits ``width``, else the last one cut."""
    for c in candidates:
        if text_width(c, size, bold) <= width:
            return c
    return fit_width(candidates[-1], width, size, bold)


def _kind_lines(card) -> list[str]:
    """The card's kind, symbols and period, longest first."""
    period = _("period %(period)s", period=card['period']) if card.get("period") not in (None, "-") else ""
    kind = tr(KIND_NAME[card["kind"]]) if card["kind"] in KIND_NAME else card["kind"]
    if card["kind"] != "building":
        return [" · ".join([kind] + ([period] if period else [])), kind]
    sym = _symbols(card["symbols"])
    full = [kind] + ([sym] if sym else [])
    out = [" · ".join(full + ([period] if period else [])), " · ".join(full)]
    if sym:
        out += [sym, _symbols(card["symbols"], True)]
    return out


def _kind_rows(card, width: float, size: float) -> list[str]:
    """The card's kind, symbols and period in at most two lines of ``width``: the period left out,
    then the symbols shortened, where they do not fit."""
    period = _("period %(period)s", period=card['period']) if card.get("period") not in (None, "-") else ""
    kind = tr(KIND_NAME[card["kind"]]) if card["kind"] in KIND_NAME else card["kind"]
    sym = _symbols(card["symbols"]) if card["kind"] == "building" else ""
    short = _symbols(card["symbols"], True) if card["kind"] == "building" else ""
    tries = [[kind, sym, period], [kind, sym], [kind, short], [short or kind]]
    for pieces in tries:
        rows = _pack([p for p in pieces if p], width, size)
        if len(rows) <= 2:
            return rows
    return _pack([short or kind], width, size)[:2]


def _card_names(card) -> list[str]:
    # the price stands beside the name, so "Mine", not "Mine £5"; "Quarters" when the name is long
    return [card_name(card["name"]), short_label(card["short"]).removesuffix(f" £{card['price']}")]


def _market_card(svg: Svg, view, g: Grid, q: int, card, moves: list[str] | None) -> float:
    """The card at position ``q`` in its area of the grid; returns the height its texts need
    (the narrow grid measures its rows with it)."""
    x, y, w, h = g.card(q)
    if card is None:
        svg.rect(x + 1, y + 1, w - 2, h - 2, rx=8, fill="none", stroke=LINE, stroke_dasharray="6 5")
        svg.text(x + w / 2, y + h / 2 + 5, _("%(pos)d · empty", pos=q), size=12 if g.narrow else 13,
                 anchor="middle", fill=MUTED)
        return 40
    body, band = KIND_FILL.get(card["kind"], ("#FFFFFF", "#DDDDDD"))
    _group(svg, moves, f"card-{q}", _("Card %(pos)d: %(card)s, £%(price)d %(kind)s. %(text)s", pos=q,
                                      card=card_label(card['label']), price=card['price'],
                                      kind=tr(KIND_NAME[card['kind']]) if card['kind'] in KIND_NAME else card['kind'],
                                      text=tr_card_text(card['text'])))
    price = f"£{card['price']}"
    if g.narrow:  # the name under the number and the price, on two lines if it needs them
        names = _name_lines(_card_names(card), w - 10, 12)
        bh = 22 + 14 * len(names)
    else:  # the name beside them
        names = _name_lines(_card_names(card), CW - 32 - text_width(price, 15, True) - 18, 15)
        bh = 30 + 16 * (len(names) - 1)
    svg.rect(x, y, w, h, rx=8, fill=body, stroke=LINE, stroke_width=1.2)
    svg.path(f"M{num(x)} {num(y + bh)} V{num(y + 8)} Q{num(x)} {num(y)} {num(x + 8)} {num(y)} "
             f"H{num(x + w - 8)} Q{num(x + w)} {num(y)} {num(x + w)} {num(y + 8)} V{num(y + bh)} Z", fill=band)
    svg.line(x, y + bh, x + w, y + bh, stroke=LINE, stroke_width=0.8)
    beside = _("%(n)d beside", n=card.get("beside", 0))
    vp = _("%(vp)d VP", vp=card['vp']) if card["kind"] == "building" else ""
    if not g.narrow:
        dy = bh - 30
        svg.circle(x + 16, y + 15, 10, fill="#FFFFFF", stroke=LINE)
        svg.text(x + 16, y + 19.5, q, size=12, anchor="middle", weight="bold")
        svg.text(x + CW - 9, y + 21, price, size=15, anchor="end", weight="bold")
        svg.lines(x + 32, y + 21, names, size=15, gap=16, weight="bold")
        svg.text(x + 10, y + 48 + dy, _first_fit(_kind_lines(card), CW - 80, 12), size=12, fill=MUTED)
        if vp:
            icon(svg, "star", x + CW - 14 - text_width(vp, 12, True) - 16, y + 36 + dy, 14, STAR)
            svg.text(x + CW - 10, y + 48 + dy, vp, size=12, anchor="end", weight="bold")
        rows = _clip(wrap_width(tr_summary(card["summary"]), CW - 20, 13), 2 if dy else 3, CW - 20, 13)
        svg.lines(x + 10, y + 70 + dy, rows, size=13, gap=16)
        svg.text(x + 10, y + CH - 11, beside, size=11, fill=MUTED)
        for i, t in enumerate(reversed(card["tokens"])):
            _token(svg, x + CW - 16 - i * 23, y + CH - 16, t)
        svg.close()
        return CH
    # narrow: number and price, the name, kind, VP and reminder in lines of 11, tokens and "beside" at the foot
    svg.circle(x + 11, y + 11, 8.5, fill="#FFFFFF", stroke=LINE)
    svg.text(x + 11, y + 15, q, size=11, anchor="middle", weight="bold")
    svg.text(x + w - 5, y + 16, price, size=13, anchor="end", weight="bold")
    svg.lines(x + 5, y + 34, names, size=12, gap=14, weight="bold")
    yy = svg.lines(x + 5, y + bh + 14, _kind_rows(card, w - 10, 11), size=11, gap=13, fill=MUTED)
    if vp:
        icon(svg, "star", x + 5, yy - 10, 12, STAR)
        svg.text(x + 20, yy, vp, size=11, weight="bold")
        yy += 14
    rows = _clip(_wrap_words(_glued(tr_summary(card["summary"])), w - 10, 11), 6, w - 10, 11)
    yy = svg.lines(x + 5, yy + 2, rows, size=11, gap=13) - 13  # the last baseline
    # the tokens from the right, 21 apart: beside "n beside" if there is room, else in rows above it
    tokens = list(reversed(card["tokens"]))
    per_row = int((w - 30) // 21) + 1
    lines = [tokens[i:i + per_row] for i in range(0, len(tokens), per_row)]
    one_row = len(lines) == 1 and text_width(beside, 11) + 8 + 21 * len(tokens) <= w - 8
    svg.text(x + 5, y + h - 7, beside, size=11, fill=MUTED)
    for r, line in enumerate(lines):
        for i, t in enumerate(line):
            _token(svg, x + w - 15 - i * 21, y + h - (14 if one_row else 36 + 22 * (len(lines) - 1 - r)), t)
    svg.close()
    return yy - y + 4 + (26 if one_row or not tokens else 26 + 22 * len(lines))


def _worker_groups(workers: Sequence[int]) -> list[tuple[int, int]]:
    """(seat, how many) of the workers on a space, in seat order."""
    counts: dict[int, int] = {}
    for s in workers:
        counts[s] = counts.get(s, 0) + 1
    return sorted(counts.items())


def _group_width(n: int, compact: bool) -> float:
    """The width of one seat's workers on a space between two rows: each drawn, or one and "×n"."""
    if n == 1 or (n == 2 and not compact):
        return 19 * n + 4
    return 20 + text_width(f"×{n}", 12, True) + 6


def _space_rows(groups: list[tuple[int, int]], room: float, most: int) -> tuple[list[list[tuple[int, int]]], bool]:
    """The seats' workers on a space between two rows in lines (at most ``most``) that fit ``room``,
    and whether they are drawn compact (one figure and "×n")."""
    compact = sum(_group_width(n, False) for _s, n in groups) > room
    k = 1
    while True:
        size = -(-len(groups) // k) if groups else 1
        rows = [groups[i:i + size] for i in range(0, len(groups), size)] or [groups]
        if k >= min(most, len(groups)) or all(sum(_group_width(n, True) for _s, n in r) <= room for r in rows):
            return rows, compact
        k += 1


def _space(svg: Svg, view, g: Grid, idx: int, workers: list[int], moves: list[str] | None) -> None:
    q1, q2 = SPACES[idx]
    name = SPACE_NAME[idx]
    x, y, w, h, across = g.space(q1, q2)
    market = view["market"]
    is_open = market[q1 - 1] is not None or market[q2 - 1] is not None
    groups = _worker_groups(workers)
    who = ", ".join(f"{_who(view, s)}" + (f" ×{n}" if n > 1 else "") for s, n in groups)
    if who:
        title = _("Space %(space)s (between cards %(a)d and %(b)d): %(who)s", space=name, a=q1, b=q2, who=who)
    else:
        title = _("Space %(space)s (between cards %(a)d and %(b)d): no worker", space=name, a=q1, b=q2)
    if not is_open:
        title += _("; closed")
    _group(svg, moves, f"space-{name}", title)
    svg.rect(x, y, w, h, rx=6, fill="#EFE9DD" if is_open else "#F4F2EE", stroke=LINE if moves else "#C8C1B3",
             stroke_width=1.2 if moves else 0.8, stroke_dasharray=None if is_open else "4 4")
    if across:
        svg.text(x + w / 2, y + 15, name, size=11, anchor="middle", fill=MUTED)
        top = y + 22
        if g.narrow:  # a column one worker wide: each seat's workers as one figure, their number under it
            for s, n in groups:
                _worker(svg, view, s, x + w / 2 - 9, top)
                if n > 1:
                    svg.text(x + w / 2, top + 30, f"×{n}", size=11, anchor="middle", weight="bold",
                             fill=_seat_colour(view, s)[1])
                top += 20 if n == 1 else 33
        else:
            step = min(21, (h - 26) / max(1, len(groups)))
            for i, (s, n) in enumerate(groups):
                yy = top + i * step
                if n == 1:
                    _worker(svg, view, s, x + w / 2 - 9, yy)
                elif n == 2:
                    _worker(svg, view, s, x + w / 2 - 19, yy)
                    _worker(svg, view, s, x + w / 2 + 1, yy)
                else:
                    _worker(svg, view, s, x + 5, yy)
                    svg.text(x + 25, yy + 14, f"×{n}", size=12, weight="bold", fill=_seat_colour(view, s)[1])
    else:
        lx, wx = (5, 26) if g.narrow else (8, 36)
        svg.text(x + lx, y + h / 2 + 4, name, size=11, fill=MUTED)
        rows, compact = _space_rows(groups, w - wx - 4, len(groups) if g.narrow else 2)
        for r, row in enumerate(rows):
            xx = x + wx
            yy = y + h / 2 - 9 if len(rows) == 1 else y + 2 + r * 20
            for s, n in row:
                if n == 1 or (n == 2 and not compact):
                    for _i in range(n):
                        _worker(svg, view, s, xx, yy)
                        xx += 19
                    xx += 4
                else:
                    _worker(svg, view, s, xx, yy)
                    svg.text(xx + 20, yy + 14, f"×{n}", size=12, weight="bold", fill=_seat_colour(view, s)[1])
                    xx += _group_width(n, True)
    svg.close()


def _market(svg: Svg, view, g: Grid, tg) -> None:
    for q in range(1, 10):
        _market_card(svg, view, g, q, view["market"][q - 1], tg.get(("card", q)))
    for i, sp in enumerate(view["spaces"]):
        _space(svg, view, g, i, list(sp["workers"]), tg.get(("space", SPACE_NAME[i])))


# ---------------------------------------------------------------- events and supply


def _event_card(svg: Svg, view, x: float, w: float, y: float, ev, heading: str, text: str,
                moves: list[str] | None, gid: str | None, lines_max: int) -> float:
    rows = _clip(wrap_width(text, w - 20, 12), lines_max, w - 20, 12) if text else []
    used = [s for s, p in enumerate(view["seats"]) if p["event_used"]] if gid == "event" else []
    names = _name_lines([card_name(ev["name"])], w - 50, 15)
    dy = 17 * (len(names) - 1)
    h = 56 + dy + 15 * len(rows) + (26 if gid == "event" else 0) + 4
    body, band = EVENT_FILL
    if gid:
        if ev.get("token"):
            title = _("%(heading)s: %(event)s (token %(token)s)", heading=heading, event=card_name(ev['name']),
                      token=ev['token'])
        else:
            title = _("%(heading)s: %(event)s", heading=heading, event=card_name(ev['name']))
        title += f". {tr_card_text(ev['text'])}"
        if used:
            title += " " + _("Used this round by %(players)s.", players=", ".join(_who(view, s) for s in used))
        _group(svg, moves, gid, title)
    svg.rect(x, y, w, h, rx=8, fill=body, stroke=LINE, stroke_width=1.2)
    svg.text(x + 10, y + 17, heading, size=12, fill=MUTED, weight="bold")
    svg.lines(x + 10, y + 38, names, size=15, gap=17, weight="bold")
    if ev.get("token"):
        _token(svg, x + w - 18, y + 33, ev["token"], r=11)
    svg.lines(x + 10, y + 58 + dy, rows, size=12, gap=15)
    if gid == "event":
        yy = y + h - 14
        if used:
            label = _("used by")
            svg.text(x + 10, yy + 4, label, size=11, fill=MUTED)
            dx = max(68, text_width(label, 11) + 22)  # the discs after the words, however long
            for i, s in enumerate(used):
                _disc(svg, view, s, x + dx + i * 22, yy, 9)
        else:
            svg.text(x + 10, yy + 4, _("not used yet this round"), size=11, fill=MUTED)
    if gid:
        svg.close()
    return y + h


def _events(svg: Svg, view, x: float, w: float, top: float, tg, narrow: bool = False) -> float:
    """The round's event (a move may use it) and the next one, from ``top``; returns the bottom.
    Narrow, the next event shows its reminder, as the round's does (its title has the whole text)."""
    y = top
    if view["event"]:
        y = _event_card(svg, view, x, w, y, view["event"], _("Event, round %(round)d", round=view['round']),
                        tr_summary(view["event"]["summary"]),
                        tg.get(("event",)), "event", 3) + 12
        if view.get("pending") and next(iter(targets([view["pending"]["move"]]))) == ("event",):
            darkc = _seat_colour(view, view["pending"]["seat"])[1]
            svg.rect(x - 3, top - 3, w + 6, y - 12 - top + 6, rx=10, fill="none", stroke=darkc, stroke_width=3,
                     stroke_dasharray="8 4")
    if view["future_event"]:
        future = view["future_event"]
        text = tr_summary(future["summary"]) if narrow and future.get("summary") else tr_card_text(future["text"])
        y = _event_card(svg, view, x, w, y, future, _("Next event"), text, None, "next-event", 7) + 12
    return y


def _supply(svg: Svg, view, x: float, w: float, y: float) -> float:
    """The token supply, the discard pile and the decks; returns the bottom."""
    counts = {v: view["discard"].count(v) for v in (1, 2, 3)}
    rows = [_("%(n)d face down", n=view['supply_count'])]
    disc = "  ".join(f"{v}×{n}" for v, n in counts.items() if n) or _("none")
    decks = view["deck_counts"]
    h = 112
    svg.open(id=svg.id("supply"))
    svg.title(_("Tokens: %(n)d face down; discard pile: %(discard)s. Decks: A %(a)d, B %(b)d, C %(c)d; "
                "events left %(events)d.", n=view['supply_count'],
                discard=" ".join(map(str, view["discard"])) or _("none"), a=decks['A'], b=decks['B'],
                c=decks['C'], events=view['events_left']))
    svg.rect(x, y, w, h, rx=8, fill="#FFFFFF", stroke=LINE)
    svg.text(x + 10, y + 18, _("Tokens"), size=12, fill=MUTED, weight="bold")
    icon(svg, "token", x + 10, y + 26, 16, TOKEN_FILL)
    svg.text(x + 32, y + 39, rows[0], size=13)
    svg.text(x + 10, y + 60, fit_width(_("discard: %(tokens)s", tokens=disc), w - 20, 13), size=13)
    svg.text(x + 10, y + 82, _("Decks"), size=12, fill=MUTED, weight="bold")
    svg.text(x + 10, y + 101, _("A %(a)d · B %(b)d · C %(c)d · events %(events)d", a=decks['A'], b=decks['B'],
                                c=decks['C'], events=view['events_left']),
             size=13)
    svg.close()
    return y + h


# ---------------------------------------------------------------- tracks


def _stack(svg: Svg, view, cx: float, base: float, seats: list[int]) -> None:
    for i, s in enumerate(seats):
        _disc(svg, view, s, cx, base - 10 - i * 17, 8.5)


def _score_track(svg: Svg, view, x: float, w: float, top: float, tight: bool = False) -> float:
    """The score track across ``w`` from ``x``; returns the bottom. Its markers stand above it, each
    lifted above any it would cover; ``tight``, the room above is as high as they stand, else as high
    as every seat's marker lifted."""
    seats = view["seats"]
    n = len(seats)
    hi = max(p["vp"] for p in seats)
    span = max(40, ((hi + 6) // 10 + 1) * 10)
    x0, x1 = x + 14, x + w - 14
    step = (x1 - x0) / span
    heading, note = _("Score track (VP)"), _("bonus tiles at 8 and 20")
    nx = x + max(128, text_width(heading, 13, True) + 6)
    below = nx + text_width(note, 12) > x + w  # the note under the heading where it does not fit beside it
    # each marker at its score, lifted above any marker it would cover (a long track packs scores close)
    placed: list[tuple[int, float, int]] = []
    for s in sorted(range(n), key=lambda s: (seats[s]["vp"], s)):
        xx = x0 + min(seats[s]["vp"], span) * step
        level = 0
        while any(lv == level and abs(px - xx) < 18 for _s, px, lv in placed):
            level += 1
        placed.append((s, xx, level))
    levels = max(lv for _s, _x, lv in placed) + 1 if tight else n
    base = top + 24 + 17 * levels + (16 if below else 0)
    svg.text(x, top + 14, heading, size=13, weight="bold")
    svg.text(x if below else nx, top + (30 if below else 14), note, size=12, fill=MUTED)
    svg.open(id=svg.id("score-track"))
    svg.title(_("Score track: %(scores)s", scores=", ".join(_("%(player)s %(vp)d VP", player=_who(view, s), vp=p['vp'])
                                                            for s, p in enumerate(seats))))
    svg.rect(x0 - 6, base, x1 - x0 + 12, 10, rx=5, fill="#E8E2D4", stroke=LINE, stroke_width=0.8)
    for v in range(span + 1):
        xx = x0 + v * step
        big = v % 5 == 0
        svg.line(xx, base + 10, xx, base + (17 if big else 13), stroke=LINE, stroke_width=1 if big else 0.6)
        if v % 10 == 0 or v in (8, 20):
            if v == 10 and 2 * step < 12:  # "8" and "10" would touch on a short track
                continue
            bonus = v in (8, 20)
            svg.text(xx, base + 30, v, size=11, anchor="middle", fill=INK if bonus else MUTED,
                     weight="bold" if bonus else None)
    for v in (8, 20):
        xx = x0 + v * step
        svg.rect(xx - 3, base, 6, 10, fill=COIN)
    for s, xx, level in placed:
        _disc(svg, view, s, xx, base - 10 - level * 17, 8.5)
    svg.close()
    return base + 40


def _residence_track(svg: Svg, view, x: float, w: float, top: float) -> float:
    """The residence track, 2 to 7, across ``w`` from ``x``; returns the bottom."""
    seats = view["seats"]
    n = len(seats)
    base = top + 24 + 17 * n
    svg.text(x, top + 14, _("Residence track (income)"), size=13, weight="bold")
    svg.open(id=svg.id("residence-track"))
    svg.title(_("Residence track: %(places)s", places=", ".join(f"{_who(view, s)} {p['residence']}"
                                                                for s, p in enumerate(seats))))
    cw = w / 6
    for i, v in enumerate(range(2, 8)):
        xx = x + i * cw
        svg.rect(xx + 1, base - 17 * n - 6, cw - 2, 17 * n + 16, rx=4, fill="#F1ECE1", stroke="#D6CFBF")
        svg.text(xx + cw / 2, base + 30, v, size=11, anchor="middle", fill=MUTED)
        _stack(svg, view, xx + cw / 2, base + 8, [s for s, p in enumerate(seats) if p["residence"] == v])
    svg.close()
    return base + 40


# ---------------------------------------------------------------- players


_TURNED = {"Lobbying": "lobbying_used", "Commerce": "commerce_used", "Taylorism": "taylorism_used"}


def _mini_plan(w: float, head: str, name: str | Sequence[str], summary: str, turned: bool, free: bool = False):
    """How a card of a player's district lays out ``w`` wide: its name beside the head where one of
    its forms fits there, else on its own line or two under it (the reminder then has fewer lines);
    returns (name beside the head or None, the name's lines, how far that pushes the rest down, the
    reminder's lines, the height it needs). A ``free`` card (narrow: its height follows its text) keeps
    four lines of its reminder; a wide one's height is fixed."""
    hw = text_width(head, 11, True)
    names = [name] if isinstance(name, str) else list(name)
    beside = next((n for n in names if text_width(n, 13, True) <= w - 19 - hw), None)
    rows = [beside] if beside is not None else _name_lines(names, w - 14, 13)
    dy = 0 if beside is not None else 15 * len(rows)
    text = _clip(wrap_width(summary, w - 14, 12), 4 if free else max(1, 3 - round(dy / 15)), w - 14, 12)
    need = 56 + dy + 14.5 * (len(text) - 1) + 8 + (14 if turned else 0)
    return beside, rows, dy, text, need


def _mini_card(svg: Svg, view, x: float, y: float, *, w: float = LW, h: float = LH, free: bool = False, head: str,
               name: str | Sequence[str], line2: str | Sequence[str], summary: str,
               turned: bool, fill: tuple[str, str], title: str, moves: list[str] | None, gid: str) -> None:
    body, band = fill
    beside, rows, dy, text, _need = _mini_plan(w, head, name, summary, turned, free)
    bh = 22 + dy
    _group(svg, moves, gid, title)
    svg.rect(x, y, w, h, rx=6, fill="#EEEEEE" if turned else body, stroke=LINE, stroke_width=1.2 if moves else 0.9)
    svg.path(f"M{num(x)} {num(y + bh)} V{num(y + 6)} Q{num(x)} {num(y)} {num(x + 6)} {num(y)} "
             f"H{num(x + w - 6)} Q{num(x + w)} {num(y)} {num(x + w)} {num(y + 6)} V{num(y + bh)} Z",
             fill="#D4D4D4" if turned else band)
    svg.text(x + 7, y + 16, head, size=11, fill=MUTED, weight="bold")
    if beside is not None:
        svg.text(x + 12 + text_width(head, 11, True), y + 16, beside, size=13, weight="bold")
    else:
        svg.lines(x + 7, y + 32, rows, size=13, gap=15, weight="bold")
    lines2 = [line2] if isinstance(line2, str) else list(line2)
    svg.text(x + 7, y + 38 + dy, _first_fit(lines2, w - 14, 12), size=12, fill=MUTED)
    svg.lines(x + 7, y + 56 + dy, text, size=12, gap=14.5)
    if turned:
        svg.text(x + w - 7, y + h - 8, _("turned"), size=11, anchor="end", weight="bold", fill="#6B4A00")
    svg.close()


def _flow(items: Sequence[tuple[float, float]], left: float, right: float) -> list[tuple[float, int]]:
    """Where items of the given (width, gap after) stand in lines from ``left`` to ``right``:
    (x, line) each, a new line where one would pass ``right``."""
    out, x, line = [], left, 0
    for w, gap in items:
        if x > left and x + w > right:
            x, line = left, line + 1
        out.append((x, line))
        x += w + gap
    return out


def _player(svg: Svg, view, s: int, x0: float, w0: float, y: float, tg, narrow: bool = False) -> float:
    """A seat's panel ``w0`` wide from ``x0``: its name and flags, resources, workers, district and
    techniques; returns the bottom. Narrow, the flags go under the name and the rest in lines."""
    p = view["seats"][s]
    fill, darkc, tintc = _seat_colour(view, s)
    me = view.get("seat") == s
    right = x0 + w0
    lots, techs = p["lots"], p.get("technique_info") or [{"name": t, "summary": "", "text": ""}
                                                          for t in p["techniques"]]
    ncards = len(lots) + len(techs)
    mw = NLW if narrow else LW
    per_row = int((w0 - 16 + 8) // (mw + 8))
    rows = -(-ncards // per_row)
    cards = []
    for lot in lots:
        sym, short = _symbols(lot["symbols"]), _symbols(lot["symbols"], True)
        vp = _("%(vp)d VP", vp=lot['vp'])
        line2 = (f"£{lot['price']} · {vp}" + (f" · {sym}" if sym else ""),
                 vp + (f" · {sym}" if sym else ""),
                 vp + (f" · {short}" if short else ""))
        label = card_label(lot["label"])
        title = (_("%(player)s, lot %(lot)d: %(card)s (%(vp)d VP, turned)", player=_who(view, s), lot=lot['lot'],
                   card=label, vp=lot['vp']) if lot["turned"] else
                 _("%(player)s, lot %(lot)d: %(card)s (%(vp)d VP)", player=_who(view, s), lot=lot['lot'], card=label,
                   vp=lot['vp']))
        names = [label, short_label(lot["short"])]
        if _first_fit(line2, mw - 14, 12).startswith("£"):  # the price shown under it: the name may go without
            names += [n.removesuffix(f" £{lot['price']}") for n in names]
        cards.append(dict(head=_("Lot %(lot)d", lot=lot['lot']), name=names, line2=line2,
                          summary=tr_summary(lot.get("summary", "")), turned=lot["turned"],
                          fill=KIND_FILL["building"], title=title + f". {tr_card_text(lot.get('text', ''))}",
                          moves=tg.get(("lot", lot["lot"])) if me else None, gid=f"lot-{s}-{lot['lot']}"))
    for t in techs:
        turned = bool(t["name"] in _TURNED and p[_TURNED[t["name"]]])
        kept = p["kept_tokens"] if t["name"] == "Commerce" else ()
        line2 = (_("technique"),)
        tokens = ' '.join(map(str, kept)) or _("none")
        if t["name"] == "Commerce":
            line2 = (_("technique · kept %(tokens)s", tokens=tokens), _("kept %(tokens)s", tokens=tokens))
        name = card_name(t["name"])
        title = (_("%(player)s, technique %(card)s (turned)", player=_who(view, s), card=name) if turned
                 else _("%(player)s, technique %(card)s", player=_who(view, s), card=name))
        if t["name"] == "Commerce":
            title += _(", kept tokens %(tokens)s", tokens=tokens)
        cards.append(dict(head=_("Tech"), name=name, line2=line2, summary=tr_summary(t.get("summary", "")),
                          turned=turned, fill=KIND_FILL["technique"],
                          title=title + f". {tr_card_text(t.get('text', ''))}",
                          moves=None, gid=f"tech-{s}-{t['name'].lower()}"))
    # wide, every card is as tall; narrow, a panel's cards are as tall as its fullest one needs
    lh = LH if not narrow else max([70.0] + [_mini_plan(mw, c["head"], c["name"], c["summary"], c["turned"], True)[4]
                                             for c in cards])
    # the flags, and the pass button after them
    flags: list[tuple[str, str, str]] = []
    if view.get("turn") == s:
        flags.append((_("to move"), fill if view["colours"][s] != "Yellow" else darkc, "#FFFFFF"))
    if me:
        flags.append((_("you"), "#FFFFFF", INK))
    if view["first"] == s:
        flags.append((_("first player"), "#FFFFFF", INK))
    if not view["over"]:
        flags.append((_("Phase I") if p['phase'] == 1 else _("Phase II"), "#FFFFFF", INK))
        if p["passed"]:
            flags.append((_("passed"), "#FFFFFF", INK))
        if p["event_used"]:
            flags.append((_("event used"), "#FFFFFF", INK))
    pass_moves = tg.get(("pass",)) if me else None
    widths = [text_width(t, 12, True) + 14 for t, _bg, _ink in flags]
    bw = text_width("pass", 13, True) + 20
    # the resources, the workers' line and where the cards start
    texts = [f"£{p['money']}", _("%(spy)d S", spy=p['spyrium']), _("%(vp)d VP", vp=p['vp'])]
    res = _("residence %(res)d", res=p['residence'])
    bonus = _("bonus: %(bonus)s", bonus=tr_bonus(p['bonus']))
    new_lot = _("new lot £%(cost)d", cost=p.get('new_lot_cost', 0)) if lots and not view["over"] else None
    w = p["workers"]
    workers = _("%(active)s · %(market)d on the market · %(used)s · %(building)d on buildings · %(owned)s, "
                "%(reserve)d in reserve", market=w['market'], building=w['building'], reserve=w['reserve'],
                **worker_counts(w))
    icons_w = 17 * w["active"] + (6 if w["active"] else 0)
    if narrow:
        flag_at = _flow([(fw, 6) for fw in widths], x0 + 10, right - 10)
        flag_lines = flag_at[-1][1] + 1 if flags else 0
        ry = y + 34 + 24 * flag_lines + 22
        items = [(21 + text_width(t, 13, True), 14) for t in texts] + [(text_width(res, 13), 16)]
        bonus_rows = wrap_width(bonus, w0 - 24, 13)
        items += [(text_width(b, 13), 16) for b in bonus_rows]
        if new_lot:
            items.append((text_width(new_lot, 13), 16))
        res_at = _flow(items, x0 + 12, right - 12)
        wy = ry + 22 * res_at[-1][1] + 26
        # the first line beside the workers, the others under them
        worker_rows = _pack(workers.split(" · "), w0 - 24, 12, first=w0 - 24 - icons_w)
        cy = wy + 16 * (len(worker_rows) - 1) + 12
    else:
        ry, wy, cy = y + 58, y + 84, y + 96
    none = (_("no building and no technique yet (a first lot is free)") if me
            else _("no building and no technique yet"))
    none_rows = wrap_width(none, w0 - 24, 13) if narrow else [none]
    h = (cy - y) + 4 + (rows * (lh + 8) if rows else 30 + 16 * (len(none_rows) - 1)) + 4
    svg.open(id=svg.id(f"player-{s}"))
    svg.rect(x0, y, w0, h, rx=10, fill="#FFFFFF", stroke=darkc if me or view.get("turn") == s else LINE,
             stroke_width=2.5 if view.get("turn") == s else 1.2)
    svg.path(f"M{num(x0)} {num(y + 34)} V{num(y + 10)} Q{num(x0)} {num(y)} {num(x0 + 10)} {num(y)} "
             f"H{num(right - 10)} Q{num(right)} {num(y)} {num(right)} {num(y + 10)} V{num(y + 34)} Z", fill=tintc)
    _disc(svg, view, s, x0 + 20, y + 17, 10)
    name = seat_label(view, s)
    colour = tr(view["colours"][s])
    room = 300 if not narrow else w0 - 38 - 8 - text_width(colour, 13) - 10 - (bw + 10 if pass_moves else 0)
    shown = fit_width(name, room, 16, True)
    svg.text(x0 + 38, y + 23, shown, size=16, weight="bold", fill=darkc)
    svg.text(x0 + 38 + text_width(shown, 16, True) + 8, y + 23, colour, size=13, fill=MUTED)
    if pass_moves:
        _group(svg, pass_moves, f"pass-{s}", _("Pass: end your round"))
        svg.rect(right - 10 - bw, y + 6, bw, 22, rx=11, fill=INK)
        svg.text(right - 10 - bw / 2, y + 22, "pass", size=13, anchor="middle", weight="bold", fill="#FFFFFF")
        svg.close()
    if narrow:
        for (t, bg, ink), (fx, line) in zip(flags, flag_at):
            _pill(svg, fx, y + 48 + 24 * line, t, fill=bg, ink=ink, bold=True, stroke=LINE)
    else:  # right to left, before the pass button
        fx = right - 10
        fx -= sum(widths) + 6 * (len(flags) - 1)
        if pass_moves:
            fx -= bw + 10
        for (t, bg, ink), fw in zip(flags, widths):
            _pill(svg, fx, y + 17, t, fill=bg, ink=ink, bold=True, stroke=LINE)
            fx += fw + 6
    # resources
    if narrow:
        kinds = (("coin", COIN), ("crystal", CRYSTAL), ("star", STAR))
        for (kind, colour_), t, (x, line) in zip(kinds, texts, res_at):
            _res(svg, x, ry + 22 * line, kind, colour_, t)
        rest = [(res, INK)] + [(b, MUTED) for b in bonus_rows] + ([(new_lot, MUTED)] if new_lot else [])
        for (t, ink), (x, line) in zip(rest, res_at[3:]):
            svg.text(x, ry + 22 * line, t, size=13, fill=ink)
    else:
        x = x0 + 12
        x = _res(svg, x, ry, "coin", COIN, texts[0])
        x = _res(svg, x, ry, "crystal", CRYSTAL, texts[1])
        x = _res(svg, x, ry, "star", STAR, texts[2])
        svg.text(x, ry, res, size=13)
        x += text_width(res, 13) + 16
        svg.text(x, ry, bonus, size=13, fill=MUTED)
        if new_lot:
            svg.text(right - 12, ry, new_lot, size=13, anchor="end", fill=MUTED)
    # workers
    x = x0 + 12
    for _i in range(w["active"]):
        _worker(svg, view, s, x, wy - 15, 18)
        x += 17
    x += 6 if w["active"] else 0
    if narrow:
        svg.text(x, wy, worker_rows[0], size=12)
        svg.lines(x0 + 12, wy + 16, worker_rows[1:], size=12, gap=16)
    else:
        svg.text(x, wy, workers, size=13)
    # district and techniques
    for i, card in enumerate(cards):
        _mini_card(svg, view, x0 + 12 + (i % per_row) * (mw + 8), cy + (i // per_row) * (lh + 8), w=mw, h=lh,
                   free=narrow, **card)
    if not ncards:
        svg.lines(x0 + 12, cy + 26 - (8 if narrow else 0), none_rows, size=13, gap=16, fill=MUTED)
    svg.close()
    return y + h + 10


# ---------------------------------------------------------------- pending and outcome


def _mark_pending(svg: Svg, view, g: Grid) -> None:
    """A frame in the deciding seat's colour around the market card or space its unfinished move concerns."""
    key = next(iter(targets([view["pending"]["move"]])))
    fill, darkc, _tint = _seat_colour(view, view["pending"]["seat"])
    if key[0] == "card" and 1 <= key[1] <= 9:
        x, y, w, h = g.card(key[1])
        svg.rect(x - 3, y - 3, w + 6, h + 6, rx=10, fill="none", stroke=darkc, stroke_width=3,
                 stroke_dasharray="8 4")
    elif key[0] == "space":
        q1, q2 = map(int, key[1].split("-"))
        x, y, w, h, _across = g.space(q1, q2)
        svg.rect(x - 3, y - 3, w + 6, h + 6, rx=8, fill="none", stroke=darkc, stroke_width=3, stroke_dasharray="8 4")


def _pending(svg: Svg, view, x: float, w: float, y: float, tg, narrow: bool = False) -> float:
    """The unfinished move's question and its answers; narrow, an answer's text wraps instead of being cut."""
    pend = view["pending"]
    s = pend["seat"]
    choices = pend.get("choices") or []
    if choices:
        head = _("%(player)s must %(what)s:", player=_who(view, s), what=pending_said(pend, 'ask'))
    else:
        head = _("%(player)s must %(what)s", player=_who(view, s), what=pending_said(pend, 'question'))
    head_rows = wrap_width(head, w - 24, 14, True)
    items = []
    for c in choices:
        text = choice_said(c)
        if not c["possible"]:
            text = _("not possible: %(why)s", why=text)
        label = shown(c["answer"])  # the answer in the reader's words; a click fills in the notation
        aw = text_width(label, 13, True) + 20
        room = w - aw - 40
        items.append((c, label, text, aw, wrap_width(text, room, 13) if narrow else [fit_width(text, room, 13)]))
    h = 16 + 19 * len(head_rows) + sum(26 + 17 * (len(rows) - 1) for *_x, rows in items) + 8
    _fill, darkc, tintc = _seat_colour(view, s)
    svg.open(id=svg.id("pending"))
    svg.rect(x, y, w, h, rx=8, fill=tintc, stroke=darkc, stroke_width=1.5)
    yy = svg.lines(x + 12, y + 22, head_rows, size=14, gap=19, weight="bold")
    for c, label, text, aw, rows in items:
        moves = tg.get(("answer", c["answer"]))
        _group(svg, moves, f"answer-{c['answer']}", f"{label}: {text}")
        svg.rect(x + 12, yy - 15, aw, 22, rx=11, fill=INK if moves else "#FFFFFF", stroke=LINE)
        svg.text(x + 12 + aw / 2, yy + 1, label, size=13, anchor="middle", weight="bold",
                 fill="#FFFFFF" if moves else INK)
        svg.lines(x + 22 + aw, yy + 1, rows, size=13, gap=17, fill=INK if c["possible"] else MUTED)
        svg.close()
        yy += 26 + 17 * (len(rows) - 1)
    svg.close()
    return y + h + 12


def _outcome(svg: Svg, view, x: float, w: float, y: float, narrow: bool = False) -> float:
    """The final scores; narrow, each seat's breakdown goes under its name."""
    o = view["outcome"]
    lines = []
    for s in o["ranking"]:
        b = o["breakdown"][s]
        detail = " + ".join(f"{tr_breakdown(k)} {v}" for k, v in b.items() if k != "total")
        lines.append(wrap_width(detail, w - 44, 12) if narrow else [fit_width(detail, w - 346 - 90, 13)])
    steps = [30 + 16 * len(d) if narrow else 30 for d in lines]
    notes = [r for note in o["notes"] for r in (wrap_width(_(note), w - 28, 13) if narrow else [_(note)])]
    h = 46 + sum(steps) + 18 * len(notes) + 8
    svg.open(id=svg.id("outcome"))
    svg.title(_("Final scores: %(scores)s", scores=", ".join(f"{_who(view, s)} {o['scores'][s]}" for s in o["ranking"])))
    svg.rect(x, y, w, h, rx=10, fill="#FFFFFF", stroke=LINE, stroke_width=1.2)
    svg.text(x + 14, y + 28, _("Final scores"), size=18, weight="bold")
    yy = y + 58
    for s, detail, step in zip(o["ranking"], lines, steps):
        _fill, darkc, tintc = _seat_colour(view, s)
        win = s in o["winners"]
        svg.rect(x + 8, yy - 19, w - 16, step - 4, rx=5, fill=tintc if win else "#F7F5F0")
        _disc(svg, view, s, x + 24, yy - 6, 9)
        score = str(o["scores"][s])
        wins = _("wins")
        if narrow:
            sw = text_width(score, 15, True)
            room = w - 42 - 14 - sw - 10 - (text_width(wins, 13, True) + 28 if win else 0)
            svg.text(x + 42, yy, fit_width(_who(view, s), room, 14, True), size=14, weight="bold", fill=darkc)
            svg.text(x + w - 14, yy, score, size=15, anchor="end", weight="bold")
            svg.lines(x + 42, yy + 18, detail, size=12, gap=16)
            if win:
                wx = x + w - 14 - sw - 10 - text_width(wins, 13, True)
                icon(svg, "star", wx - 20, yy - 15, 16, STAR)
                svg.text(wx, yy, wins, size=13, weight="bold")
        else:
            svg.text(x + 42, yy, fit_width(_who(view, s), 260, 14, True), size=14, weight="bold", fill=darkc)
            svg.text(x + 330, yy, score, size=15, anchor="end", weight="bold")
            svg.text(x + 346, yy, detail[0], size=13)
            if win:
                icon(svg, "star", x + w - 86, yy - 15, 16, STAR)
                svg.text(x + w - 66, yy, wins, size=13, weight="bold")
        yy += step
    for note in notes:
        svg.text(x + 14, yy, note, size=13, fill=MUTED)
        yy += 18
    svg.close()
    return y + h + 12


# ---------------------------------------------------------------- the drawing


def _desc(view) -> str:
    seats = view["seats"]
    if view["over"] and view.get("outcome"):
        o = view["outcome"]
        scores = ", ".join(f"{_who(view, s)} {o['scores'][s]}" for s in o["ranking"])
        return _("%(status)s. Final scores: %(scores)s.", status=view['status'], scores=scores)
    scores = ", ".join(_("%(player)s %(vp)d VP", player=_who(view, s), vp=p['vp']) for s, p in enumerate(seats))
    return _("%(title)s, %(status)s. Score track: %(scores)s.", title=game_title(), status=view['status'],
             scores=scores)


def _wide(svg: Svg, view, tg) -> float:
    """The desktop board: the market with the events and the supply beside it (or the final scores),
    the pending choice, the tracks side by side, then every seat's panel in seat order."""
    svg.text(M, 30, game_title(), size=22, weight="bold")
    status_rows = wrap_width(view["status"], W - 2 * M - 130, 14)
    svg.lines(M + 118, 29, status_rows[:2], size=14, gap=18)
    y = 30 + 18 * max(1, min(2, len(status_rows))) + 4
    if not view["over"]:
        top = y + 6
        grid = _wide_grid(top)
        _market(svg, view, grid, tg)
        if view.get("pending"):
            _mark_pending(svg, view, grid)
        _supply(svg, view, RX, RW, _events(svg, view, RX, RW, top, tg))
        y = top + MARKET_H + 14
    else:
        y = _outcome(svg, view, M, W - 2 * M, y + 6)
    if view.get("pending"):
        y = _pending(svg, view, M, W - 2 * M, y, tg)
    y = max(_score_track(svg, view, M, MARKET_W, y), _residence_track(svg, view, RX, RW, y))
    for s in range(view["players"]):
        y = _player(svg, view, s, M, W - 2 * M, y, tg)
    return y


def _narrow_market(svg: Svg, view, y: float, tg) -> float:
    """The narrow column's market from ``y``, a band a row of cards (with the spaces between them) and
    a band each gap between rows (with the spaces across it): a worker placed changes one of the five.
    A question pending about a card or a space frames it across a cut, so the market is then one band.
    Returns where the events go."""
    shape = _narrow_grid(view, 0)
    if view.get("pending"):
        def whole(top: float) -> float:
            grid = _narrow_grid(view, top)
            _market(svg, view, grid, tg)
            _mark_pending(svg, view, grid)
            return grid.bottom + 12
        return svg.placed(y, whole)

    def part(r: int, gap: bool, offset: float):
        def draw(_top: float) -> float:
            grid = Grid(NM, -offset, NCW, NSW, shape.rows, shape.gaps, 2)  # this part's top at 0
            for q in range(3 * r + 1, 3 * r + 4) if not gap else ():
                _market_card(svg, view, grid, q, view["market"][q - 1], tg.get(("card", q)))
            for i, (q1, q2) in enumerate(SPACES):
                if (q1 - 1) // 3 == r and (q2 == q1 + 3) == gap:
                    _space(svg, view, grid, i, list(view["spaces"][i]["workers"]), tg.get(("space", SPACE_NAME[i])))
            return 0
        return draw

    # a row's cards fill it to its edges and a gap's spaces are inset 2 from the rows: each cut lies
    # 1 unit from both (the first is the column's usual 2 above the market)
    top = 0.0
    for r in range(3):
        svg.placed(y + top, part(r, False, top), cut=2 if r == 0 else 1)
        top += shape.rows[r]
        if r < 2:
            svg.placed(y + top + 1, part(r, True, top + 1), cut=0)
            top += shape.gaps[r]
    return y + shape.bottom + 12


def _narrow(svg: Svg, view, tg) -> float:
    """The phone's column: the final scores or the pending choice, the market and the events (what the
    player acts on), the viewer's panel, the other seats', then the tracks and the supply. Each part
    is a band of its own, drawn from its own top (drawing.Svg.placed): a move redraws a few of them."""
    x, w = NM, NARROW_WIDTH - 2 * NM
    svg.band(0)
    svg.text(x, 25, game_title(), size=20, weight="bold")
    y = svg.lines(x, 46, wrap_width(view["status"], w, 13), size=13, gap=17) - 17 + 12
    if view["over"]:
        y = svg.placed(y, lambda top: _outcome(svg, view, x, w, top, narrow=True))
    if view.get("pending"):
        y = svg.placed(y, lambda top: _pending(svg, view, x, w, top, tg, narrow=True))
    if not view["over"]:
        y = _narrow_market(svg, view, y, tg)
        y = svg.placed(y, lambda top: _events(svg, view, x, w, top, tg, narrow=True))
    me = view.get("seat")
    order = ([me] if me is not None else []) + [s for s in range(view["players"]) if s != me]
    for s in order:
        y = svg.placed(y, lambda top, s=s: _player(svg, view, s, x, w, top, tg, narrow=True))
    y = svg.placed(y, lambda top: _score_track(svg, view, x, w, top, tight=True))
    y = svg.placed(y, lambda top: _residence_track(svg, view, x, w, top))
    if not view["over"]:
        y = svg.placed(y, lambda top: _supply(svg, view, x, w, top + 4) + 10)
    return y


def draw_svg(view: Mapping[str, Any], moves: Sequence[str] = (), layout: str = "wide") -> str:
    if layout not in LAYOUTS:
        raise ValueError(f"unknown layout {layout!r}")
    tg = targets(moves, view)
    narrow = layout == "narrow"
    # the narrow drawing's ids differ from the wide one's: a page may hold both
    svg = Svg(NARROW_WIDTH if narrow else W, 2000, id_prefix="spyn" if narrow else "spy")
    parts_before = len(svg.parts)
    y = _narrow(svg, view, tg) if narrow else _wide(svg, view, tg)
    svg.height = y + 6
    paper = f'<rect x="0" y="0" width="{num(svg.width)}" height="{num(svg.height)}" fill="{PAPER}"/>'
    svg.parts.insert(parts_before, paper)  # the height is known only now
    return svg.finish(f"{game_title()} — {view['status']}", _desc(view))
