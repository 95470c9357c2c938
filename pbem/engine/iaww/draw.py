"""It's a Wonderful World drawn as a picture: each empire as a
tableau, the viewer's own cards as cards, from the seat's view only.

Reads nothing but the view (and the static card data of :mod:`.data`), so it
shows exactly what the text board shows; the same view gives the same bytes.
Resources keep the game's colour convention (materials grey, energy black,
science green, gold yellow, exploration blue, Krystallium red) and each also
has its own shape (a brick, a bolt, an atom, an ingot, a compass needle, a
crystal), so nothing depends on colour alone. Card types take the colour and
shape of the resource of the same place in the order, as on the cards.
"""
from __future__ import annotations

from importlib import resources
from typing import Any, Callable, Mapping, Sequence

from ..base import name_seats
from . import texts
from .i18n import _, amount, card_name, empire_name, english, game_title, ngettext, res_of, word
from .render import _names as _names_i18n, seat_label
from ..drawing import (
    INK, LAYOUTS, LINE, MUTED, NARROW_WIDTH, PAPER, Svg, colour, dark, fit, icon, moves_attr, tint, wrap,
)
from .data import CARDS, EMPIRE_FACES, FIN, GEN, KRY, RESOURCES, TYPES

W = 1120
M = 14  # outer margin
CW, CH = 146, 166  # a full card
GAP = 8
TW, TH = 146, 48  # a constructed card (tile)
MW, MH = 146, 58  # a card under construction, small (others' tableaux)

RES_NAME = RESOURCES
KIND_NAME = RESOURCES + ("Krystallium", "financier", "general")
# per kind (five resources, Krystallium): fill, edge, glyph colour, light tint (empty slots, card
# headers), and a shade for text on white
RES_FILL = ("#9A9A9A", "#1E1E1E", "#2E7D32", "#F2C200", "#1565C0", "#C62828")
RES_EDGE = ("#5F5F5F", "#000000", "#1B5E20", "#9C7C00", "#0D3C78", "#7F1515")
RES_GLYPH = ("#FFFFFF", "#FFFFFF", "#FFFFFF", "#4A3A00", "#FFFFFF", "#FFFFFF")
RES_TINT = ("#ECECEC", "#DCDCDC", "#DDEFDD", "#FBF1C7", "#D9E6F6", "#F7DADA")
RES_INK = ("#555555", "#111111", "#1B5E20", "#7A6000", "#0D3C78", "#8E1B1B")
# the lit top face of a cube placed on a card (its side face is the edge colour)
RES_TOP = ("#CDCDCD", "#5C5C5C", "#74B877", "#FAE27C", "#6CA6E6", "#E77B7B")
FIN_FILL, GEN_FILL = "#3E5C76", "#6B4E16"
# the glyph of each kind in a 0 0 20 20 box, drawn in the glyph colour
GLYPH = (
    '<path d="M5 6.5 H15 V9.5 H5 Z M5 10.5 H9.5 V13.5 H5 Z M10.5 10.5 H15 V13.5 H10.5 Z"/>',  # brick
    '<path d="M11.5 3 L5.5 11 H9.5 L8 17 L14.5 8.6 H10.6 Z"/>',  # bolt
    '<circle cx="10" cy="10" r="2"/><ellipse cx="10" cy="10" rx="6" ry="2.6" fill="none" stroke-width="1.4"'
    ' stroke="currentColor"/><ellipse cx="10" cy="10" rx="2.6" ry="6" fill="none" stroke-width="1.4"'
    ' stroke="currentColor"/>',  # atom
    '<path d="M4 14 L6.5 7 H13.5 L16 14 Z"/>',  # ingot
    '<path d="M10 3 L14.5 16 L10 12.8 L5.5 16 Z"/>',  # compass needle
    '<path d="M10 3 L15 8.5 L10 17 L5 8.5 Z"/><path d="M5 8.5 H15" stroke="currentColor" stroke-opacity=".4"/>',
)
FIN_GLYPH = '<path d="M7.5 7 V5.5 H12.5 V7 H15.5 V14.5 H4.5 V7 Z M9 7 H11 V6.6 H9 Z"/>'  # briefcase
GEN_GLYPH = '<path d="M5 8 L10 11.5 L15 8 V10.6 L10 14 L5 10.6 Z M5 4.6 L10 8.1 L15 4.6 V7.2 L10 10.7 L5 7.2 Z"/>'


# ---------------------------------------------------------------- icons


def _cube_symbol(svg: Svg, kind: int, empty: bool) -> str:
    """A resource cube (kind 0-4) or Krystallium (5): a rounded square in
    the kind's colour with its glyph; ``empty``: the outline of a slot."""
    if empty:
        body = (f'<rect x="1.5" y="1.5" width="17" height="17" rx="3.5" fill="{RES_TINT[kind]}" fill-opacity=".55"'
                f' stroke="{RES_EDGE[kind] if kind != 0 else "#7A7A7A"}" stroke-width="1.4" stroke-dasharray="3 1.6"/>'
                f'<g fill="{RES_INK[kind]}" color="{RES_INK[kind]}" opacity=".8">{GLYPH[kind]}</g>')
    else:
        body = (f'<rect x="1" y="1" width="18" height="18" rx="3.5" fill="{RES_FILL[kind]}" stroke="{RES_EDGE[kind]}"'
                f' stroke-width="1.2"/><g fill="{RES_GLYPH[kind]}" color="{RES_GLYPH[kind]}">{GLYPH[kind]}</g>')
    return svg.symbol(f"{'slot' if empty else 'cube'}-{kind}", "0 0 20 20", body)


def _paid_symbol(svg: Svg, kind: int) -> str:
    """A cube placed on a slot of a card under construction, as a player sees it on the real card:
    a solid block of the kind's colour, its top and side faces showing, the glyph on its front; unlike
    the flat, pale, dashed empty slot even where it is drawn a few pixels wide."""
    # the glyph on the front face, sized by a symbol of its own (no nested document, no scaling)
    glyph = svg.symbol(f"glyph-{kind}", "0 0 20 20",
                       f'<g fill="{RES_GLYPH[kind]}" color="{RES_GLYPH[kind]}">{GLYPH[kind]}</g>')
    body = (f'<path d="M1 5 L5 1 H19 V15 L15 19 H1 Z" fill="{RES_EDGE[kind]}"/>'
            f'<path d="M1.8 5 L5.3 1.7 H18 L14.7 5 Z" fill="{RES_TOP[kind]}"/>'
            f'<rect x="1" y="5" width="14" height="14" fill="{RES_FILL[kind]}" stroke="{RES_EDGE[kind]}"'
            f' stroke-width="1"/>'
            f'<use href="#{glyph}" x="1" y="5" width="14" height="14"/>')
    return svg.symbol(f"paid-{kind}", "0 0 20 20", body)


def _token_symbol(svg: Svg, kind: int, empty: bool) -> str:
    """A financier (FIN) or general (GEN) token, or its empty slot."""
    fill = FIN_FILL if kind == FIN else GEN_FILL
    glyph = FIN_GLYPH if kind == FIN else GEN_GLYPH
    if empty:
        body = (f'<circle cx="10" cy="10" r="8.5" fill="#FFFFFF" stroke="{fill}" stroke-width="1.4"'
                f' stroke-dasharray="3 1.6"/><g fill="{fill}" opacity=".8">{glyph}</g>')
    else:
        body = f'<circle cx="10" cy="10" r="9" fill="{fill}"/><g fill="#FFFFFF">{glyph}</g>'
    return svg.symbol(f"{'tslot' if empty else 'token'}-{kind}", "0 0 20 20", body)


def slot_icon(svg: Svg, kind: int, x: float, y: float, size: float, *, empty: bool = False,
              paid: bool = False) -> None:
    """Any of the eight slot kinds (five resources, Krystallium, financier, general); ``paid``: a
    resource slot of a card under construction with its cube on it."""
    if paid and kind not in (FIN, GEN):
        sid = _paid_symbol(svg, kind)
    else:
        sid = _token_symbol(svg, kind, empty) if kind in (FIN, GEN) else _cube_symbol(svg, kind, empty)
    svg.use(sid, x, y, size, size)


def _star(svg: Svg, x: float, y: float, size: float) -> None:
    icon(svg, "star", x, y, size, "#B8860B")


def _recycle(svg: Svg, x: float, y: float, size: float) -> None:
    sid = svg.symbol("recycle", "0 0 20 20",
                     '<g fill="none" stroke="#444" stroke-width="2" stroke-linecap="round">'
                     '<path d="M4.5 9 A6 6 0 0 1 15 6.5"/><path d="M15.5 11 A6 6 0 0 1 5 13.5"/></g>'
                     '<path d="M16.5 3 L16.5 8.5 L11.2 7.4 Z M3.5 17 L3.5 11.5 L8.8 12.6 Z" fill="#444"/>')
    svg.use(sid, x, y, size, size)


def _type_badge(svg: Svg, typ: str, x: float, y: float, size: float) -> None:
    """A card type: the shape and colour of the resource in its place (structure = materials ...)."""
    svg.use(_cube_symbol(svg, TYPES.index(typ), False), x, y, size, size)




def _load_widths() -> dict[str, tuple[int, int]]:
    raw = resources.files(__package__).joinpath("data", "widths.csv").read_text(encoding="utf-8")
    out = {}
    for line in raw.splitlines():
        if line and not line.startswith(("#", "code")):
            code, regular, bold = line.split(",")
            out[chr(int(code, 16))] = (int(regular), int(bold))
    return out


_WIDTHS = _load_widths()


def _width(text: str, size: float, bold: bool = False) -> float:
    """The width of ``text`` in DejaVu Sans as rendered (data/widths.csv): where a name must fit a box,
    a Cyrillic name runs about a tenth wider than :func:`_text_w` guesses."""
    k = 1 if bold else 0
    return sum(_WIDTHS.get(ch, (620, 660))[k] for ch in str(text)) * size / 1000


def _text_w(text: str, size: float, bold: bool = False) -> float:
    """A rough width of ``text`` in DejaVu Sans (the drawing's first font), never less than its measured
    width in a translation (Cyrillic runs wider than the guess, and a label met the chip after it)."""
    guess = len(str(text)) * size * (0.66 if bold else 0.62)
    return guess if english() else max(guess, _width(text, size, bold))


def _wrap_w(text: str, width: float, size: float, bold: bool = False) -> list[str]:
    """``text`` in rows that each fit ``width``: broken at spaces, and a word too long for a row after
    its hyphens (Роботы-помощники); a longer word still stays whole."""
    rows: list[str] = []
    for para in str(text).split("\n"):
        row = ""
        for token in para.split():
            parts = [token]
            if _width(token, size, bold) > width and "-" in token.strip("-"):
                bits = token.split("-")
                parts = [b + "-" for b in bits[:-1]] + [bits[-1]]
            for n, w in enumerate(parts):
                glue = " " if n == 0 else ""
                if row and _width(f"{row}{glue}{w}", size, bold) > width:
                    rows.append(row)
                    row = w
                else:
                    row = f"{row}{glue}{w}" if row else w
        rows.append(row)
    return rows


def _chars(width: float, size: float, bold: bool = False) -> int:
    """How many characters of that rough width go into ``width``."""
    return max(1, int(width / (size * (0.66 if bold else 0.62))))


def _type_rows(text: str, x: float, back: float, right: float | None) -> tuple[str, list[str]]:
    """A card type's name written at ``x`` with room up to ``right``: what fits there, and the rows
    that go below from ``back`` (a second line rather than a name cut with an ellipsis)."""
    if right is None or x + _width(text, 11) <= right:
        return text, []
    words = text.split()
    first = ""
    while words and x + _width(f"{first} {words[0]}".strip(), 11) <= right:
        first = f"{first} {words.pop(0)}".strip()
    return first, _wrap_w(" ".join(words), right - back, 11)


def _type_word(svg: Svg, text: str, x: float, back: float, y: float, right: float | None, **a: object) -> int:
    """:func:`_type_rows` drawn from baseline ``y``; returns how many rows went below it."""
    first, below = _type_rows(text, x, back, right)
    if first:
        svg.text(x, y, first, size=11, **a)
    for n, row in enumerate(below, 1):
        svg.text(back, y + 13 * n, row, size=11, **a)
    return len(below)


# ---------------------------------------------------------------- card fields


def _makes(svg: Svg, x: float, y: float, card, size: float = 15, words: bool = True,
           right: float | None = None) -> float:
    """What a constructed card adds to production, as cubes; returns the x after it. A card type's
    name too long for the room left before ``right`` goes on below (see :func:`_type_rows`)."""
    if card.prod_per is not None:
        res, typ = card.prod_per
        slot_icon(svg, res, x, y, size)
        svg.text(x + size + 3, y + size * 0.8, _("per"), size=11, fill=MUTED)
        _type_badge(svg, typ, x + size + 26, y + 1, size - 2)
        if not words:
            return x + size * 2 + 28
        wx, back = _makes_word_at(card, x, size)
        _type_word(svg, word(typ), wx, back, y + size * 0.8, right, fill=INK)
        return wx + _text_w(word(typ), 11)
    for r, n in enumerate(card.prod):
        for _i in range(n):
            slot_icon(svg, r, x, y, size)
            x += size + 1
        if n:
            x += 3
    return x


def _vp_word_at(card, x: float, size: float) -> tuple[float, float]:
    """Where :func:`_vp` writes a card type's name (points per card of a type), and where its rows below go."""
    per = _("%(num)d per", num=card.vp_per[0])
    back = x + size + 2
    return back + _text_w(per, 11) + 2 + size, back


def _makes_word_at(card, x: float, size: float) -> tuple[float, float]:
    """Where :func:`_makes` writes a card type's name (production per card of a type), and its rows below."""
    return x + size * 2 + 27, x + size + 3


def _vp(svg: Svg, x: float, y: float, card, size: float = 15, big: bool = True, right: float | None = None) -> float:
    if card.vp_per is None and not card.vp:
        return x
    _star(svg, x, y, size)
    x += size + 2
    back = x
    if card.vp_per is None:
        svg.text(x, y + size * 0.8, card.vp, size=12 if big else 11, weight="bold")
        return x + _text_w(str(card.vp), 12, True) + 4
    q, what = card.vp_per
    if what in ("financier", "general"):
        svg.text(x, y + size * 0.8, _("+%(num)d per", num=q), size=11)
        x += _text_w(_("+%(num)d per", num=q), 11) + 2
        slot_icon(svg, FIN if what == "financier" else GEN, x, y, size)
        return x + size + 3
    svg.text(x, y + size * 0.8, _("%(num)d per", num=q), size=11)
    x += _text_w(_("%(num)d per", num=q), 11) + 2
    _type_badge(svg, what, x, y + 1, size - 2)
    if big:
        _type_word(svg, word(what), x + size, back, y + size * 0.8, right)
        x += _text_w(word(what), 11)
    return x + size + 3


def _bonus(svg: Svg, x: float, y: float, card, size: float = 15) -> float:
    for kind, n in zip((KRY, FIN, GEN), card.bonus):
        for _i in range(n):
            slot_icon(svg, kind, x, y, size)
            x += size + 1
    return x


def _slots(svg: Svg, x: float, y: float, card, filled: Sequence[int] | None, size: float, step: float, *,
           site: bool = True) -> float:
    """The cost of a card as its slots: on a card under construction (``site``) the paid ones with their
    cubes (or tokens) on them, the others empty; on a card not begun, its price in the kinds' shapes."""
    for k, n in enumerate(card.cost):
        have = filled[k] if filled else 0
        for j in range(n):
            slot_icon(svg, k, x, y, size, empty=j >= have, paid=site and j < have)
            x += step
    return x


# ---------------------------------------------------------------- cards


def _open(svg: Svg, moves: list[str], key: str, title: str) -> None:
    svg.open(data_moves=moves_attr(moves), id=svg.id(key) if moves else None)
    svg.title(title)


def _card_title(c: Mapping[str, Any], *, built: bool = False) -> str:
    """A card in words, for its tooltip (what a screen reader says of it)."""
    card = CARDS[c["id"]]
    bits = [f"{card_name(card.id)} ({word(card.type)})"]
    cost = ", ".join(amount(n, KIND_NAME[k]) for k, n in enumerate(card.cost) if n)
    if "filled" in c:
        bits.append(ngettext("%(filled)d of %(num)d slot filled (cost %(cost)s)",
                             "%(filled)d of %(num)d slots filled (cost %(cost)s)", card.slots,
                             filled=sum(c["filled"]), cost=cost))
    elif not built:
        bits.append(_("cost %(cost)s", cost=cost))
    if card.prod_per is not None:
        bits.append(_("produces 1 %(res)s per %(type)s card", res=word(RES_NAME[card.prod_per[0]]),
                      type=word(card.prod_per[1])))
    elif any(card.prod):
        bits.append(_("produces %(what)s", what=", ".join(amount(n, RES_NAME[r])
                                                           for r, n in enumerate(card.prod) if n)))
    if c.get("vp"):
        bits.append(texts.short(c["vp"]))
    if not built:
        if any(card.bonus):
            if english():
                bonus = ", ".join(f"{n} {KIND_NAME[k]}{'s' * (n > 1 and k != KRY)}"
                                  for k, n in zip((KRY, FIN, GEN), card.bonus) if n)
            else:
                bonus = ", ".join(amount(n, KIND_NAME[k]) for k, n in zip((KRY, FIN, GEN), card.bonus) if n)
            bits.append(_("bonus %(bonus)s", bonus=bonus))
        bits.append(_("recycles for 1 %(res)s", res=word(RES_NAME[card.recycle])))
    return "; ".join(bits)


def draw_card(svg: Svg, x: float, y: float, c: Mapping[str, Any], *, no: int | None = None,
              moves: list[str] = (), key: str = "", mark: str = "", accent: str | None = None) -> None:
    """A card as a card: name and type, cost slots (filled ones as cubes when
    under construction), production, victory points, construction bonus and
    the recycling cube."""
    card = CARDS[c["id"]]
    t = TYPES.index(card.type)
    title = _card_title(c) + (f" - {mark}" if mark else "")
    _open(svg, list(moves), key or f"card-{c.get('inst', c['id'])}", title)
    svg.rect(x, y, CW, CH, rx=7, fill="#FFFFFF", stroke=accent or RES_EDGE[t], stroke_width=3 if accent else 1.4)
    svg.rect(x + 1.5, y + 1.5, CW - 3, 38, rx=6, fill=RES_TINT[t])
    _type_badge(svg, card.type, x + 6, y + 6, 14)
    name = card_name(card.id)
    rows = wrap(name, 15)
    size = 12 if max(len(r) for r in rows) <= 14 else 11  # one long word (Cryopreservation)
    room = CW - 27
    if len(rows) > 2 or max(_width(r, size, True) for r in rows) > room:
        # measured rows that fit the header, three if need be, rather than a name cut short or running out
        rows, size = _wrap_w(name, room, 12, True), 12
        if len(rows) > 2 or max(_width(r, size, True) for r in rows) > room:
            rows, size = _wrap_w(name, room, 11, True), 11
    ty, step = (y + 24, 15) if len(rows) == 1 else (y + 17, 15) if len(rows) == 2 else (y + 13, 12)
    for row in rows:
        svg.text(x + 24, ty, row, size=size, weight="bold")
        ty += step
    typename = word(card.type)
    svg.text(x + 7, y + 54, typename, size=11, fill=MUTED)
    if no is not None:
        # a narrower number badge beside a long type name (превозно средство)
        bw = 24 if _text_w(typename, 11) <= CW - 44 else 20
        svg.rect(x + CW - 6 - bw, y + 43, bw, 15, rx=7.5, fill=INK)
        svg.text(x + CW - 6 - bw / 2, y + 54.5, no, size=11, anchor="middle", fill="#FFFFFF", weight="bold")
    # cost
    filled = c.get("filled")
    # a card in hand shows its price in the kinds' shapes; under construction, a paid slot has its cube
    # on it and an empty one is an outline
    _slots(svg, x + 6, y + 61, card, card.cost if filled is None else filled, 15, 17, site=filled is not None)
    if filled and c.get("wild"):
        svg.text(x + CW - 6, y + 89, _("incl. %(num)d K as wild", num=c["wild"]), size=11, anchor="end",
                 fill=RES_INK[5])
    svg.line(x + 6, y + 93, x + CW - 6, y + 93, stroke="#DDDDDD")
    # makes, VP, bonus; a type's name that takes a second row moves the points down (production per
    # type) or up (points per type: the bonus row is below), never both on one card
    right = x + CW - 6
    vy = y + 118
    if card.prod_per is not None:
        vy += 13 * len(_type_rows(word(card.prod_per[1]), *_makes_word_at(card, x + 17, 15), right)[1])
    if card.vp_per is not None and card.vp_per[1] not in ("financier", "general"):
        vy -= 4 * len(_type_rows(word(card.vp_per[1]), *_vp_word_at(card, x + 6, 15), right)[1])
    if card.prod_per is not None or any(card.prod):
        svg.text(x + 6, y + 110, "+", size=13, weight="bold", fill=MUTED)
        _makes(svg, x + 17, y + 98, card, right=right)
    if card.vp or card.vp_per:
        _vp(svg, x + 6, vy, card, right=right)
    if any(card.bonus):
        svg.text(x + 6, y + CH - 10, _("bonus"), size=11, fill=MUTED)
        _bonus(svg, x + 42, y + CH - 22, card, 14)
    _recycle(svg, x + CW - 40, y + CH - 24, 16)
    slot_icon(svg, card.recycle, x + CW - 22, y + CH - 24, 16)
    if mark:
        svg.rect(x + 20, y + CH - 6, CW - 40, 18, rx=9, fill=accent or INK)
        svg.text(x + CW / 2, y + CH + 7, mark, size=11, anchor="middle", fill="#FFFFFF", weight="bold")
    svg.close()


TILE_TEXT = TW - 16  # the room for a name in a small tile


def _tile_rows(name: str) -> tuple[list[str], float]:
    """A card's name in a small tile, and its size: smaller when long, on two rows when longer still
    (rather than cut with an ellipsis)."""
    if len(name) <= 15 and _width(name, 12, True) <= TILE_TEXT:
        return [name], 12
    if _width(name, 11, True) <= TILE_TEXT:
        return [name], 11
    return _wrap_w(name, TILE_TEXT, 11, True), 11


def _tile_extra(name: str) -> float:
    """How much taller a small tile is for its name's rows beyond the first."""
    return 10 * (len(_tile_rows(name)[0]) - 1)


def _tile_name(svg: Svg, x: float, y: float, name: str) -> None:
    """The name's rows from baseline ``y`` (two units higher when there are several, 12 apart)."""
    rows, size = _tile_rows(name)
    if len(rows) > 1:
        y -= 2
    for row in rows:
        svg.text(x, y, row, size=size, weight="bold")
        y += 12


def draw_tile(svg: Svg, x: float, y: float, c: Mapping[str, Any], moves: list[str] = ()) -> None:
    """A constructed card: its name, what it makes and what it scores."""
    card = CARDS[c["id"]]
    t = TYPES.index(card.type)
    dy = _tile_extra(card_name(card.id))
    _open(svg, list(moves), f"built-{c['inst']}", _card_title(c, built=True))
    svg.rect(x, y, TW, TH + dy, rx=5, fill="#FFFFFF", stroke=RES_EDGE[t], stroke_width=1)
    svg.rect(x, y, 7, TH + dy, rx=3, fill=RES_FILL[t])
    _tile_name(svg, x + 12, y + 16, card_name(card.id))
    nx = _makes(svg, x + 12, y + 25 + dy, card, 14, words=False) if (card.prod_per or any(card.prod)) else x + 12
    if card.vp or card.vp_per:
        _vp(svg, nx + 4 if nx > x + 12 else nx, y + 25 + dy, card, 14, big=False)
    svg.close()


def _mini_site_h(s: Mapping[str, Any], compact: bool) -> float:
    """The height of a small card under construction: ``compact`` (the narrow layout) leaves out the
    row kept for the Krystallium note when there is none or it fits beside the slots."""
    card = CARDS[s["id"]]
    dy = _tile_extra(card_name(card.id))
    if not compact:
        return MH + dy
    return 46 + dy + (0 if _wild_beside(s) else 14)


def _wild_beside(s: Mapping[str, Any]) -> bool:
    """Whether a small card's Krystallium note (if any) fits on its row of slots."""
    if not s.get("wild"):
        return True
    card = CARDS[s["id"]]
    step = 15 if card.slots <= 8 else 14
    return 12 + card.slots * step + 6 + _width(_("%(num)d K wild", num=s["wild"]), 11) <= MW - 4


def draw_mini_site(svg: Svg, x: float, y: float, s: Mapping[str, Any], *, compact: bool = False) -> None:
    """A card under construction in a small tableau: name and slots, the paid ones with their cubes."""
    card = CARDS[s["id"]]
    t = TYPES.index(card.type)
    dy = _tile_extra(card_name(card.id))
    h = _mini_site_h(s, compact)
    svg.open()
    svg.title(_card_title(s))
    svg.rect(x, y, MW, h, rx=5, fill="#FFFFFF", stroke=RES_EDGE[t], stroke_width=1, stroke_dasharray="4 2")
    svg.rect(x, y, 7, h, rx=3, fill=RES_FILL[t], fill_opacity=".55")
    _tile_name(svg, x + 12, y + 17, card_name(card.id))
    step = 15 if card.slots <= 8 else 14
    _slots(svg, x + 12, y + 26 + dy, card, s["filled"], 14, step)
    if s.get("wild"):
        wy = y + 37 + dy if compact and _wild_beside(s) else y + h - 4
        svg.text(x + MW - 4, wy, _("%(num)d K wild", num=s["wild"]), size=11, anchor="end", fill=RES_INK[5])
    svg.close()


def _grid(items: Sequence[Any], per: int, width: float, height, gap: float) -> list[tuple[float, float]]:
    """Where each of ``items`` goes in rows of ``per``, ``width`` apart, each row as tall as its
    tallest (``height(item)``) plus ``gap``; the last entry is (0, the height of them all)."""
    out, top, row = [], 0.0, 0.0
    for n, item in enumerate(items):
        if n and n % per == 0:
            top += row + gap
            row = 0.0
        out.append(((n % per) * width, top))
        row = max(row, height(item))
    out.append((0.0, top + row + gap if items else 0.0))
    return out


# ---------------------------------------------------------------- moves


def _cid(ref: str) -> str:
    return ref.split("#")[0]


class _Places:
    """Where each card of the viewer's own board is, for the clickable moves."""

    def __init__(self, view: Mapping[str, Any]) -> None:
        you = view.get("you") or {}
        seat = view.get("seat")
        me = next((p for p in view.get("seats", ()) if p["seat"] == seat), None)
        self.hand = [c["inst"] for c in you.get("hand") or ()]
        self.revealed = [c["inst"] for c in you.get("revealed") or ()]
        self.plan = [c["inst"] for c in (you.get("to_plan") or you.get("solo_hand") or ())]
        self.sites = [(s["inst"], s.get("ref", s["inst"])) for s in (me or {}).get("sites", ())]
        self.built = [c["inst"] for c in (me or {}).get("built", ())]
        self.moves: dict[str, list[str]] = {}

    def _first(self, insts: list[str], cid: str) -> str | None:
        return next((i for i in insts if _cid(i) == cid), None)

    def target(self, ref: str) -> str | None:
        if ref.lower() == "e":
            return "empire"
        for inst, r in self.sites:
            if ref in (inst, r):
                return f"site-{inst}"
        if "#" in ref:
            return f"plan-{ref}" if ref in self.plan else None
        inst = self._first(self.plan, ref)
        return f"plan-{inst}" if inst else None

    def card(self, where: str, insts: list[str], cid: str) -> str | None:
        inst = self._first(insts, cid)
        return f"{where}-{inst}" if inst else None

    def keys(self, move: str) -> list[str]:
        """The elements a move concerns: draft pick -> the card in hand, C/R -> the
        card to decide, a cube, Krystallium, token, discard or build -> the card
        it goes to (or the empire card); done and auto -> their buttons."""
        text = move.strip()
        head, _x, rest = text.partition(" ")
        low = head.lower()
        if low == "pick":
            return [k for k in [self.card("hand", self.hand, rest)] if k]
        if low == "keep":
            return [k for k in [self.card("revealed", self.revealed, rest)] if k]
        if low in ("c", "r"):
            cid = rest.partition(">")[0]
            k = self.card("plan", self.plan, cid)
            if k is None and low == "c":  # named by an action before its C: under construction, or done
                k = next((f"site-{inst}" for inst, _i in self.sites if _cid(inst) == cid), None) \
                    or self.card("built", self.built, cid)
            return [k] if k else []
        if low == "swap":
            return [k for k in (self.card("plan", self.plan, c) for c in rest.split(",")) if k]
        if low == "sci":
            return [f"token-{rest}"]
        if low in ("done", "auto"):
            return [low]
        if low in ("discard", "build"):
            k = self.target(rest)
            return [k] if k else []
        if ">" in text:
            ref = text.partition(">")[2].partition(":")[0]
            k = self.target(ref)
            return [k] if k else []
        return []

    def add(self, moves: Sequence[str]) -> None:
        for m in moves:
            for k in self.keys(m) or ["other"]:
                self.moves.setdefault(k, []).append(m)

    def get(self, key: str) -> list[str]:
        return self.moves.get(key, [])


# ---------------------------------------------------------------- the picture


def _behind(svg: Svg, index: int, x: float, y: float, w: float, h: float, **a: object) -> None:
    """A rectangle drawn under what is already drawn from ``index`` on (its size known only now)."""
    svg.rect(x, y, w, h, **a)
    svg.parts.insert(index, svg.parts.pop())


def _names(view: Mapping[str, Any], text: str) -> str:
    if english():
        return name_seats(text, view.get("names"))
    return _names_i18n(view, text)


def _to_move(view: Mapping[str, Any]) -> list[int] | None:
    if "to_move" in view:
        return list(view["to_move"])
    if view.get("over"):
        return []
    return None  # a decision view: whose turn it is is left out


NM = 8  # the narrow layout's outer margin
NPAD = 12  # the narrow layout's padding inside a seat's panel: two full cards fill what is left
# where a part of the narrow column below the head stands under the part above (_Drawing.part): the
# same for every part, so that the cut under a part (its band's bottom) does not depend on which part
# comes next (a seat's panel is followed by another seat's in one seat's picture, by the track in
# another's); each part's first line is further down than this, its band starts with that space
NGAP = 7


class _Drawing:
    """The picture of a view, in one of the two layouts: "wide", the desktop page's landscape board,
    and "narrow", the same parts stacked in a column drawing.NARROW_WIDTH units wide for a phone's page
    and the mail. Each part draws at an origin and a width; the layouts compose them."""

    def __init__(self, view: Mapping[str, Any], moves: Sequence[str], layout: str = "wide") -> None:
        if layout not in LAYOUTS:
            raise ValueError(f"unknown layout {layout!r}")
        self.narrow = layout == "narrow"
        self.W = NARROW_WIDTH if self.narrow else W
        self.M = NM if self.narrow else M
        self.v = view
        # ids of their own, so that a page holding both drawings of a view has each id once
        self.svg = Svg(self.W, 100, id_prefix="iaww-n" if self.narrow else "iaww")
        self.places = _Places(view)
        self.places.add(moves)
        self.y = 0.0
        self.to_move = _to_move(view)
        self.seat = view.get("seat")
        self.n = int(view.get("players") or len(view.get("seats", ())))

    # ------------------------------------------------------------ helpers
    @property
    def right(self) -> float:
        return self.W - self.M

    def name(self, i: int) -> str:
        return fit(seat_label(self.v, i), 24)

    def you(self, i: int) -> str:
        """A seat's name, marked "(you)" for the viewer."""
        if i == self.seat:
            return _("%(name)s (you)", name=self.name(i))
        return self.name(i)

    def rows(self, text: str, chars: int, size: float, bold: bool = False, width: float | None = None) -> list[str]:
        """A paragraph's rows: ``chars`` characters wide in the wide layout, measured to ``width`` (the
        column's, by default) in the narrow one."""
        if not self.narrow:
            return wrap(text, chars)
        return _wrap_w(text, self.W - 2 * self.M if width is None else width, size, bold)

    def heading(self, x: float, y: float, text: str, size: float, width: float, **a: object) -> float:
        """A bold heading at baseline ``y``, on more rows in the narrow layout when it is longer than
        ``width``; returns the baseline of its last row."""
        rows = [text] if not self.narrow else _wrap_w(text, width, size, True)
        for n, row in enumerate(rows):
            self.svg.text(x, y + n * (size + 5), row, size=size, weight="bold", **a)
        return y + (len(rows) - 1) * (size + 5)

    def chips(self, x: float, y: float, items: Sequence[tuple[int, str]], *, size: float = 12,
              indent: float | None = None) -> tuple[float, float]:
        """Players' names as chips, wrapping onto a new line at the right edge; returns the end."""
        indent = self.M + 20 if indent is None else indent
        for i, text in items:
            if x + 15 + _text_w(text, size, True) > self.right and x > indent:
                x, y = indent, y + size + 9
            x = self.chip(x, y, i, text, size=size)
        return x, y

    def chip(self, x: float, y: float, i: int, text: str, *, size: float = 12) -> float:
        """A player's name in their colour, with a coloured dot; returns the x after."""
        svg = self.svg
        svg.circle(x + 6, y - size * 0.35, 5.5, fill=colour(i))
        svg.text(x + 15, y, text, size=size, weight="bold", fill=dark(i))
        return x + 15 + _text_w(text, size, True) + 12

    # ------------------------------------------------------------ header
    def deck_info(self) -> str:
        v = self.v
        return (_("Solo scenario %(scenario)s \u00b7 ", scenario=v["scenario"]) if v.get("scenario") else "") + \
            _("Face %(face)s \u00b7 deck %(deck)s \u00b7 discard %(discard)s", face=v.get("face", ""),
              deck=v.get("deck", 0), discard=v.get("discard", 0))

    def header(self) -> None:
        """The wide layout's head: title, deck, the round and phase track, who acts, this step."""
        svg = self.svg
        svg.text(M, 30, game_title(), size=20, weight="bold")
        svg.text(W - M, 30, self.deck_info(), size=12, anchor="end", fill=MUTED)
        self.track(M, 46, W - M)
        self.status(92)
        self.phase_line()

    def head_narrow(self) -> None:
        """The narrow layout's head: title, the round and step in words, who acts, this step (the track
        and the deck come at the end). Who acts and this step are bands of their own (see draw): they
        are what differs from one seat's picture to another's (the viewer's name "(you)", where the
        viewer passes the hand), and the title above is the same for every seat."""
        svg, v = self.svg, self.v
        svg.text(self.M, 26, game_title(), size=18, weight="bold")
        y = 26
        if not v.get("over"):
            step = v.get("step_name", "") if english() else texts.step_name(v.get("step_name", ""), capital=False)
            status = _("Round %(round)s of 4, %(step)s", round=v.get("round"), step=step)
            for row in _wrap_w(status, self.W - 2 * self.M, 13, True):
                y += 20
                svg.text(self.M, y, row, size=13, weight="bold")
        self.y = y
        # cut halfway between the title's last line and the names, and between the names and this
        # step's line (which begins 15 units under the names' baseline, status() leaving 10)
        if v.get("over") or self.to_move is not None:
            self.part(lambda: self.status(self.y + 22), 9)
        else:
            self.y += 32  # nobody named: the space status() leaves
        if v.get("passing") or v.get("production") is not None:
            self.part(self.phase_line, 3)
        else:
            self.y += 2

    def track(self, x0: float, y: float, right: float) -> float:
        """The round and phase track from ``x0``, on more rows where it meets ``right``; returns its bottom."""
        svg, v = self.svg, self.v
        x = x0

        def room(w: float) -> None:
            nonlocal x, y
            if x + w > right and x > x0:
                x, y = x0, y + 34

        svg.text(x, y + 14, _("Round"), size=12, fill=MUTED)
        x += 46
        rnd = int(v.get("round") or 1)
        for r in range(1, 5):
            on = r == rnd and not v.get("over")
            svg.circle(x + 10, y + 10, 10, fill=INK if on else ("#BBBBBB" if r < rnd or v.get("over") else "#FFFFFF"),
                       stroke=INK, stroke_width=1)
            svg.text(x + 10, y + 14.5, r, size=12, anchor="middle", weight="bold", fill="#FFFFFF" if on else INK)
            x += 26
        x += 16
        phase, step = v.get("phase"), int(v.get("step") or 0)
        solo = self.n == 1
        stages = ([("plan", 0, _("Planning A")), ("plan", 1, _("Planning B"))] if solo
                  else [("draft", None, _("Draft")), ("plan", None, _("Planning"))])
        for ph, st, label in stages:
            on = phase == ph and (st is None or st == step)
            w = _text_w(label, 12, True) + 18
            room(w)
            svg.rect(x, y, w, 22, rx=11, fill=INK if on else "#FFFFFF", stroke=INK, stroke_width=1)
            svg.text(x + w / 2, y + 15.5, label, size=12, anchor="middle", weight="bold",
                     fill="#FFFFFF" if on else INK)
            x += w + 6
        production = _("Production")
        pw = max(82, _text_w(production, 12, phase == "prod") + 2)  # "Производство" is longer than the English
        room(pw + 150)
        svg.text(x + 4, y + 15.5, production, size=12, fill=INK, weight="bold" if phase == "prod" else None)
        x += pw
        for r in range(5):
            on = phase == "prod" and step == r
            if on:
                svg.rect(x - 3, y - 3, 28, 28, rx=6, fill="#FFFFFF", stroke=INK, stroke_width=2.5)
            slot_icon(svg, r, x, y, 22, empty=not on and not (phase == "prod" and r < step))
            x += 30
        room(_text_w(_("Scoring"), 12, bool(v.get("over"))) + 8)
        svg.text(x + 8, y + 15.5, _("Scoring"), size=12, weight="bold" if v.get("over") else None,
                 fill=INK if v.get("over") else MUTED)
        return y + 25

    def status(self, y: float) -> None:
        """Who acts, or who won, from baseline ``y``."""
        svg, v, m = self.svg, self.v, self.M
        if v.get("over"):
            out = v.get("outcome") or {}
            win = sorted(out.get("winners") or ())
            head = _("Game over \u2014 winner:") if len(win) == 1 else _("Game over \u2014 winners:")
            svg.text(m, y, head, size=13, weight="bold")
            x = m + (_text_w("Game over - winners:", 13, True) if english() else _text_w(head, 13, True)) + 8
            x, y = self.chips(x, y, [(i, self.name(i)) for i in win], size=13)
        elif self.to_move is not None:
            svg.text(m, y, _("Waiting for"), size=13, fill=MUTED)
            x = m + (84 if english() else _text_w(_("Waiting for"), 13) + 10)
            x, y = self.chips(x, y, [(i, self.you(i)) for i in self.to_move], size=13)
            if not self.to_move:
                svg.text(x, y, _("nobody"), size=13)
        self.y = y + 10

    def phase_line(self) -> None:
        """What happens in this step: the draft's direction, or the step's production and supremacy."""
        svg, v, m = self.svg, self.v, self.M
        y = self.y + 18
        if v.get("passing"):
            p = v["passing"]
            arrow = _("\u2192 next player (left)") if p["direction"] == "left" else _("\u2190 previous player (right)")
            step = v.get("step_name", "draft").capitalize()
            if not english():
                step = texts.step_name(v.get("step_name", "draft"))
            line = _("%(step)s: after each pick the hands pass %(arrow)s", step=step, arrow=arrow)
            if "to" in p:
                line += _("; you pass to %(to)s, you get %(from)s's hand", to=self.name(p["to"]),
                          **{"from": self.name(p["from"])})
            y = svg.lines(m, y, self.rows(line, 150, 12), size=12, gap=16) - 16
            self.y = y + 6
        elif v.get("production") is not None:
            r = int(v.get("step") or 0)
            slot_icon(svg, r, m, y - 13, 17)
            x = m + 22
            produced = _("%(res)s produced:", res=word(RES_NAME[r]).capitalize())
            svg.text(x, y, produced, size=12, weight="bold")
            x += (_text_w(f"{RES_NAME[r]} produced:", 12, True) if english() else _text_w(produced, 12, True)) + 8
            x, y = self.chips(x, y, [(i, f"{self.name(i)} {n}") for i, n in enumerate(v["production"])])
            sup = v.get("supremacy", -1)
            reward = word(v.get("supremacy_reward") or "") or _("financier or general")
            line = (_("\u2014 supremacy: %(name)s (+1 %(reward)s)", name=self.name(sup), reward=reward)
                    if sup is not None and sup >= 0 else _("\u2014 supremacy: nobody"))
            if x + _text_w(line, 12, True) > self.right:
                x, y = m + 20, y + 21
            rows = [line] if not self.narrow else _wrap_w(line, self.right - x, 12, True)
            for n, row in enumerate(rows):
                if sup is not None and sup >= 0:
                    svg.text(x, y + 16 * n, row, size=12, weight="bold", fill=dark(sup))
                else:
                    svg.text(x, y + 16 * n, row, size=12, fill=MUTED)
            self.y = y + 16 * (len(rows) - 1) + 6
        else:
            self.y += 2

    def rest_narrow(self) -> None:
        """The narrow layout's tail: the deck and the round and phase track."""
        y = self.y + 26
        y = self.svg.lines(self.M, y, _wrap_w(self.deck_info(), self.W - 2 * self.M, 12), size=12, gap=16,
                           fill=MUTED)
        self.y = self.track(self.M, y - 4, self.right)

    # ------------------------------------------------------------ final score
    def scores(self) -> None:
        out = self.v.get("outcome")
        if not out:
            return
        if self.narrow:
            self.scores_narrow(out)
            return
        svg = self.svg
        y = self.y + 14
        cols = [(_("Player"), 0), (_("fixed"), 250), (_("types"), 320), (_("generals"), 390),
                (_("financiers"), 470), (_("total"), 560), (_("cards"), 620), (_("tokens"), 680)]
        # a column moves right when its heading would meet the one before (генералы, финансисты)
        shift, end = 0.0, 0.0
        for n, (label, dx) in enumerate(cols[1:], 1):
            left = dx + shift + 50 - _width(label, 12, True)
            if n > 1 and left < end + 8:
                shift += end + 8 - left
            cols[n] = (label, dx + shift)
            end = dx + shift + 50
        rows = list(out.get("ranking") or range(self.n))
        h = 26 + 22 * len(rows)
        svg.rect(M, y, 770 + shift, h + 8, rx=6, fill="#FFFFFF", stroke=LINE)
        x0 = M + 12
        for label, dx in cols:
            svg.text(x0 + dx + (0 if dx == 0 else 50), y + 19, label, size=12, weight="bold",
                     anchor="start" if dx == 0 else "end", fill=MUTED)
        yy = y + 19
        for rank, i in enumerate(rows, 1):
            yy += 22
            b = (out.get("breakdown") or [{}] * self.n)[i]
            lead = f"{rank}. {self.name(i)}"
            x = self.chip(x0, yy, i, lead, size=12)
            if i in (out.get("winners") or ()):
                _star(svg, x - 6, yy - 13, 16)
            for (label, dx), key in zip(cols[1:], ("fixed", "type", "generals", "financiers", "total",
                                                   "developments", "tokens")):
                svg.text(x0 + dx + 50, yy, b.get(key, ""), size=12, anchor="end",
                         weight="bold" if key == "total" else None)
        self.notes(out, y + h + 8)

    def scores_narrow(self, out: Mapping[str, Any]) -> None:
        """The final score as a block per player (rank, name and total, then the parts of the total),
        where the wide layout has a table too wide for the column."""
        svg, m = self.svg, self.M
        w = self.W - 2 * m
        y = self.y + 14
        start = len(svg.parts)
        parts = ((_("fixed"), "fixed"), (_("types"), "type"), (_("generals"), "generals"),
                 (_("financiers"), "financiers"), (_("cards"), "developments"), (_("tokens"), "tokens"))
        x0 = m + 10
        yy = y + 2
        for rank, i in enumerate(list(out.get("ranking") or range(self.n)), 1):
            yy += 22
            b = (out.get("breakdown") or [{}] * self.n)[i]
            x = self.chip(x0, yy, i, f"{rank}. {self.name(i)}", size=13)
            if i in (out.get("winners") or ()):
                _star(svg, x - 6, yy - 13, 16)
            svg.text(m + w - 10, yy, _("%(num)s VP", num=b.get("total", "")), size=13, anchor="end", weight="bold")
            x, yy = x0 + 15, yy + 17
            for label, key in parts:
                item = f"{label} {b.get(key, '')}"
                if x + _width(item, 12) > m + w - 10 and x > x0 + 15:
                    x, yy = x0 + 15, yy + 16
                svg.text(x, yy, item, size=12, fill=MUTED)
                x += _width(item, 12) + 12
            yy += 4
        _behind(svg, start, m, y, w, yy - y + 8, rx=6, fill="#FFFFFF", stroke=LINE)
        self.notes(out, yy + 8)

    def notes(self, out: Mapping[str, Any], ny: float) -> None:
        for note in out.get("notes") or ():
            for row in self.rows(texts.note(note), 120, 12):
                ny += 16
                self.svg.text(self.M, ny, row, size=12, fill=MUTED)
        self.y = ny + 4

    # ------------------------------------------------------------ the viewer's decisions
    def yours(self) -> None:
        """What the viewer is to do, with the done and auto buttons, then the cards to decide about."""
        v, svg = self.v, self.svg
        you = v.get("you")
        if not you or v.get("over"):
            return
        narrow, m = self.narrow, self.M
        x0, w = m, self.W - 2 * m
        y = self.y + 14
        todo = texts.todo(you.get("todo") or "")
        cubes = list(you.get("cubes") or ())
        rows = wrap(todo, 105)[:3] if not narrow else _wrap_w(todo, w - 24, 13, True)
        start = len(svg.parts)
        other = self.places.get("other")
        if other:
            _open(svg, other, "other-moves", _("Other moves"))
        ty = y + 20
        for row in rows:
            svg.text(x0 + 12, ty, row, size=13, weight="bold")
            ty += 17
        if other:
            svg.close()
        bottom = ty - 12
        if any(cubes):
            x = x0 + 12
            svg.text(x, ty + 9, _("To place:"), size=12, fill=MUTED)
            x += 64 if english() else _text_w(_("To place:"), 12) + 8
            for r, n in enumerate(cubes):
                for _i in range(n):
                    if narrow and x + 20 > x0 + w - 12:
                        x, ty = x0 + 12, ty + 24
                    slot_icon(svg, r, x, ty - 6, 20)
                    x += 22
                if n:
                    x += 6
            bottom = ty + 16
        if you.get("sci"):
            if narrow:
                ty += 30 if any(cubes) else 0
                x = x0 + 12
            else:
                x = W - M - 390
            svg.text(x, ty + 9, _("Science supremacy:"), size=12, fill=MUTED)
            x += _text_w(_("Science supremacy:"), 12) + 8
            for kind, tok in ((FIN, "financier"), (GEN, "general")):
                label = word(tok)
                bw = 24 + _text_w(label, 12) + 10
                if narrow and x - 3 + bw > x0 + w - 8:
                    x, ty = x0 + 12, ty + 30
                mv = self.places.get(f"token-{tok}")
                _open(svg, mv, f"token-{tok}", _("Take a %(token)s for the science supremacy", token=res_of(tok)))
                svg.rect(x - 3, ty - 8, bw, 24, rx=12, fill="#FFFFFF", stroke=INK)
                slot_icon(svg, kind, x, ty - 6, 20)
                svg.text(x + 24, ty + 9, label, size=12)
                svg.close()
                x += 24 + _text_w(label, 12) + 20
            bottom = ty + 16
        # done / auto buttons (the notation's words, which every language accepts): at the top right of
        # the box, in the narrow layout on a row of their own below what it says
        bx = x0 + w - 12
        by = y + 8 if not narrow else bottom + 8
        buttons = False
        for btn, tip in (("auto", _("auto: the default for everything left")), ("done", _("done: end this step"))):
            mv = self.places.get(btn)
            if not mv:
                continue
            buttons = True
            bw = _text_w(btn, 13, True) + 24
            bx -= bw
            _open(svg, mv, f"btn-{btn}", tip)
            svg.rect(bx, by, bw, 26, rx=13, fill=INK)
            svg.text(bx + bw / 2, by + 18, btn, size=13, anchor="middle", weight="bold", fill="#FFFFFF")
            svg.close()
            bx -= 8
        if not narrow:
            h = max(12 + 17 * len(rows) + (26 if any(cubes) or you.get("sci") else 0) + 6, 44)
        else:
            h = (by + 26 if buttons else bottom) + 10 - y
        _behind(svg, start, x0, y, w, h, rx=6, fill="#FFFFFF", stroke=colour(self.seat), stroke_width=2)
        self.y = y + h
        # the cards to decide about
        if you.get("hand"):
            self.card_row(_("Your hand \u2014 pick one"), you["hand"], "hand",
                          mark=lambda c: _("your pick") if c.get("picked") else "")
        plan = you.get("to_plan") or you.get("solo_hand")
        if plan:
            if you.get("solo_hand"):
                head = _("Your hand \u2014 construct (C) or recycle (R) each")
            else:
                head = _("Your draft area \u2014 construct (C) or recycle (R) each")
            self.card_row(head, plan, "plan")
        if you.get("revealed"):
            self.card_row(_("Revealed \u2014 keep one"), you["revealed"], "revealed")

    def card_row(self, head: str, cards: Sequence[Mapping[str, Any]], where: str, *, mark=None) -> None:
        """Cards as cards under a heading, as many to a row as the width takes (two in the narrow layout)."""
        svg = self.svg
        x0, width = (M, W - 2 * M) if not self.narrow else (NM + NPAD, NARROW_WIDTH - 2 * (NM + NPAD))
        y = self.heading(x0, self.y + 26, head, 14, width)
        y += 10
        per = max(1, int((width + GAP) // (CW + GAP)))
        for n, c in enumerate(cards):
            col, row = n % per, n // per
            x = x0 + col * (CW + GAP)
            yy = y + row * (CH + GAP + 10)
            m = mark(c) if mark else ""
            key = f"{where}-{c['inst']}"
            draw_card(svg, x, yy, c, no=c.get("no", n + 1), moves=self.places.get(key), key=key, mark=m,
                      accent=colour(self.seat) if m else None)
        rows = (len(cards) + per - 1) // per
        self.y = y + rows * (CH + GAP + 10) - GAP

    def empire_box(self, x: float, y: float, p: Mapping[str, Any], w: float) -> float:
        """The empire card: name, face bonus, production, empire cubes, Krystallium,
        tokens; returns its height."""
        svg = self.svg
        i = p["seat"]
        face = self.v.get("face") or "A"
        ef = EMPIRE_FACES.get((p.get("empire_id", ""), face))
        mine = i == self.seat and not self.v.get("over")
        moves = self.places.get("empire") if mine else []
        h = 150
        ename = empire_name(p["empire"])
        _open(svg, moves, "empire" if mine else f"empire-{i}",
              _("%(empire)s (empire card, face %(face)s): %(cubes)s of 5 cubes", empire=ename, face=face,
                cubes=p["empire_cubes"])
              + (f"; {texts.short(p['empire_vp'])}" if p.get("empire_vp") else ""))
        svg.rect(x, y, w, h, rx=7, fill="#FFFFFF", stroke=dark(i), stroke_width=1.5)
        svg.text(x + 10, y + 19, fit(ename, 26), size=13, weight="bold", fill=dark(i))
        svg.text(x + w - 8, y + 19, _("face %(face)s", face=face), size=11, anchor="end", fill=MUTED)
        if ef is not None and ef.vp_per:
            q, what = ef.vp_per
            _star(svg, x + 10, y + 26, 14)
            per = _("+%(num)d per", num=q) if what in ("financier", "general") else _("%(num)d per", num=q)
            if what in ("financier", "general"):
                svg.text(x + 27, y + 38, per, size=11)
                slot_icon(svg, FIN if what == "financier" else GEN, x + 27 + _text_w(per, 11) + 2, y + 26, 14)
            else:
                svg.text(x + 27, y + 38, per, size=11)
                _type_badge(svg, what, x + 27 + _text_w(per, 11) + 2, y + 27, 13)
                svg.text(x + 27 + _text_w(per, 11) + 18, y + 38, word(what), size=11)
        # production per resource
        svg.text(x + 10, y + 60, _("Produces"), size=11, fill=MUTED)
        px = x + 10
        now = int(self.v.get("step") or 0) if self.v.get("phase") == "prod" else -1
        for r, n in enumerate(p.get("produces") or (0,) * 5):
            if r == now:  # the step being produced
                svg.rect(px - 3, y + 63, (w - 20) / 5 - 2, 24, rx=5, fill=RES_TINT[r], stroke=RES_EDGE[r],
                         stroke_width=1.5)
            slot_icon(svg, r, px, y + 66, 18)
            svg.text(px + 21, y + 80, n, size=13, weight="bold", fill=INK if n else "#888888")
            px += (w - 20) / 5
        # empire cubes
        svg.text(x + 10, y + 104, _("Empire cubes"), size=11, fill=MUTED)
        ex = x + 10 + _text_w(_("Empire cubes"), 11) + 6
        for k in range(5):
            filled = k < int(p.get("empire_cubes") or 0)
            svg.rect(ex, y + 93, 14, 14, rx=3, fill="#8D8574" if filled else "#FFFFFF", stroke="#8D8574",
                     stroke_dasharray=None if filled else "3 1.5")
            ex += 16
        svg.text(ex + 2, y + 104, "\u2192", size=12, fill=MUTED)
        slot_icon(svg, 5, ex + 16, y + 92, 15)
        # Krystallium and tokens
        tx = x + 10
        for kind, n in ((5, p.get("krystallium", 0)), (FIN, p.get("financiers", 0)), (GEN, p.get("generals", 0))):
            slot_icon(svg, kind, tx, y + 118, 20)
            svg.text(tx + 24, y + 134, f"\u00d7{n}", size=14, weight="bold")
            tx += (w - 20) / 3
        svg.close()
        return h


    def panel_head(self, x: float, y: float, w: float, p: Mapping[str, Any], big: bool) -> float:
        """A seat's band: name, empire (wide layout), whether it still has to act, this step's supremacy,
        score; in the narrow layout the marks and score go on rows below when they do not fit beside
        the name. Returns its height."""
        svg = self.svg
        i = p["seat"]
        size = 16 if big else 14
        label = fit(self.you(i), 34)
        score = _("%(num)s VP", num=p.get("score", 0))
        state = None
        if self.to_move is not None and not self.v.get("over"):
            acting = i in self.to_move
            state = _("to act") if acting else _("done")
            sbw = _text_w(state, 12, True) + 16
        sup = self.v.get("phase") == "prod" and self.v.get("supremacy") == i
        if sup:
            # this step's supremacy bonus: its token (the science step's is the winner's choice)
            reward = self.v.get("supremacy_reward")
            kinds = [FIN if reward == "financier" else GEN] if reward else [FIN, GEN]
            pbw = _text_w(_("supremacy"), 12, True) + 26 + 19 * len(kinds)
        # the marks from the right: score (and its star), to act / done, supremacy; in the narrow layout
        # one that does not fit beside the name (or the marks before it) starts a row below
        score_w = _text_w(score, size, True)
        blocks = [("score", score_w + 22)] + ([("state", sbw)] if state else []) + ([("sup", pbw)] if sup else [])
        at: dict[str, tuple[float, float]] = {}
        row, right = 0, x + w - 12
        for key, bw in blocks:
            limit = x + 12 + (_text_w(label, size, True) + 12 if row == 0 else 0)
            if self.narrow and right - bw < limit:
                row, right = row + 1, x + w - 12
            at[key] = (y + 24 * row, right - bw)
            right -= bw + 12
        h = 30 + 24 * row
        svg.rect(x, y, w, h, rx=7, fill=colour(i))
        svg.rect(x, y + h - 10, w, 10, fill=colour(i))
        svg.text(x + 12, y + 21, label, size=size, weight="bold", fill="#FFFFFF")
        if not self.narrow:  # (the narrow layout's empire card says it right below)
            lx = x + 12 + _text_w(label, size, True) + 12
            svg.text(lx, y + 20, empire_name(p["empire"]), size=12, fill="#FFFFFF")
        # score, and whether this seat still has to act
        ry, sx = at["score"]
        svg.text(sx + score_w + 22, ry + 21, score, size=size, anchor="end", weight="bold", fill="#FFFFFF")
        icon(svg, "star", sx, ry + 6, 18, "#FFFFFF")
        if state:
            ry, sx = at["state"]
            svg.rect(sx, ry + 6, sbw, 19, rx=9.5, fill="#FFFFFF" if acting else colour(i),
                     stroke="#FFFFFF", stroke_width=1.2)
            svg.text(sx + sbw / 2, ry + 20, state, size=12, anchor="middle", weight="bold",
                     fill=dark(i) if acting else "#FFFFFF")
        if sup:
            ry, sx = at["sup"]
            svg.open()
            svg.title(_("Supremacy bonus of this step: %(reward)s",
                        reward=word(reward) if reward else _("financier or general")))
            svg.rect(sx, ry + 5, pbw, 21, rx=10.5, fill="#FFFFFF")
            svg.text(sx + 8, ry + 20, _("supremacy"), size=12, weight="bold", fill=dark(i))
            for n, kind in enumerate(kinds):
                slot_icon(svg, kind, sx + pbw - 8 - 19 * (len(kinds) - n), ry + 7, 17)
            svg.close()
        return h

    def tableau(self, p: Mapping[str, Any]) -> None:
        """One empire: the empire card, constructed cards, cards under
        construction, the draft area and (in the draft) the size of the hand.
        The viewer's own tableau shows its cards as cards, the others in small:
        beside their empire card in the wide layout, below it in the narrow one."""
        svg, v = self.svg, self.v
        i = p["seat"]
        mine = i == self.seat
        full = mine and not v.get("over")
        x0, w = self.M, self.W - 2 * self.M
        pad = NPAD if self.narrow else 10
        inner, iw = x0 + pad, w - 2 * pad
        top = self.y + 16
        parts_start = len(svg.parts)
        hh = self.panel_head(x0, top, w, p, mine)
        if not self.narrow:
            ew = 250
            ey = top + 40
            eh = self.empire_box(inner, ey, p, ew)
            # the right-hand column: constructed cards, then (small tableaux) the rest
            rx = inner + ew + 14
            rw = x0 + w - 10 - rx
            y = self.built(rx, ey, rw, p)
        else:
            ey = top + hh + 10
            eh = self.empire_box(inner, ey, p, iw)
            rx, rw = inner, iw
            y = self.built(rx, ey + eh + 8, rw, p)
        you = v.get("you") or {}
        draft = list(p.get("draft") or ())
        if mine and v.get("phase") == "plan" and you.get("to_plan"):
            draft = []  # drawn above as the cards to decide
        if not full:
            y = self.small_sites(rx, y + 6, rw, p)
            y = self.draft_chips(rx, y, rw, p, draft)
            y = max(y, ey + eh) + 12
        else:
            y = max(y, ey + eh) + 4
            sites = p.get("sites") or ()
            y = self.heading(inner, y + 20, _("Under construction \u2014 %(num)d", num=len(sites)), 13, iw,
                             fill=dark(i))
            y += 8
            if not sites:
                svg.text(inner, y + 16, _("none"), size=12, fill=MUTED)
                y += 26
            per = max(1, int((iw + GAP) // (CW + GAP)))
            for n, s in enumerate(sites):
                key = f"site-{s['inst']}"
                draw_card(svg, inner + (n % per) * (CW + GAP), y + (n // per) * (CH + GAP), s,
                          no=s.get("no", n + 1), moves=self.places.get(key), key=key)
            y += ((len(sites) + per - 1) // per) * (CH + GAP)
            if draft:
                y = self.heading(inner, y + 20, ngettext("Draft area \u2014 %(num)d picked this round",
                                                         "Draft area \u2014 %(num)d picked this round", len(draft)),
                                 13, iw, fill=dark(i))
                y += 8
                for n, c in enumerate(draft):
                    draw_card(svg, inner + (n % per) * (CW + GAP), y + (n // per) * (CH + GAP), c,
                              key=f"draft-{c['inst']}")
                y += ((len(draft) + per - 1) // per) * (CH + GAP)
            if you.get("pick"):
                y = self.heading(inner, y + 20, _("Your pick (hidden until everyone has picked): %(card)s",
                                                  card=card_name(you["pick"]["id"])), 12, iw, fill=dark(i))
                y += 4
            y += 10
        # the panel behind, now that its height is known
        _behind(svg, parts_start, x0, top, w, y - top, rx=8, fill=tint(i), stroke=colour(i),
                stroke_width=2 if mine else 1.2)
        self.y = y

    def built(self, x: float, y: float, w: float, p: Mapping[str, Any]) -> float:
        """The constructed cards as tiles; returns the y below them."""
        svg = self.svg
        i = p["seat"]
        per = max(1, int((w + GAP) // (TW + GAP)))
        built = p.get("built") or ()
        svg.text(x, y + 12, ngettext("Empire \u2014 %(num)d constructed", "Empire \u2014 %(num)d constructed",
                                     len(built)), size=12, weight="bold", fill=dark(i))
        y += 20
        if not built:
            svg.text(x, y + 12, _("none yet"), size=12, fill=MUTED)
            return y + 20
        at = _grid(built, per, TW + GAP, lambda c: TH + _tile_extra(card_name(c["id"])), 6)
        for c, (dx, dy) in zip(built, at):
            moves = self.places.get(f"built-{c['inst']}") if i == self.seat else []
            draw_tile(svg, x + dx, y + dy, c, moves)
        return y + at[-1][1]

    def small_sites(self, x: float, y: float, w: float, p: Mapping[str, Any]) -> float:
        svg = self.svg
        i = p["seat"]
        sites = p.get("sites") or ()
        y += 14
        svg.text(x, y, _("Under construction \u2014 %(num)d", num=len(sites)), size=12, weight="bold", fill=dark(i))
        y += 8
        if not sites:
            svg.text(x, y + 12, _("none"), size=12, fill=MUTED)
            return y + 20
        per = max(1, int((w + GAP) // (MW + GAP)))
        at = _grid(sites, per, MW + GAP, lambda s: _mini_site_h(s, self.narrow), 6)
        for s, (dx, dy) in zip(sites, at):
            draw_mini_site(svg, x + dx, y + dy, s, compact=self.narrow)
        return y + at[-1][1]

    def draft_chips(self, x0: float, y: float, w: float, p: Mapping[str, Any], draft: list) -> float:
        """Another seat's draft area by name (public once revealed) and, in the draft, its hand size."""
        svg, v = self.svg, self.v
        i = p["seat"]
        hand = v.get("phase") == "draft" and i != self.seat
        if not draft and not hand:
            return y
        y += 22
        x = x0
        if draft:
            head = _("Draft area (%(num)d):", num=len(draft))
            svg.text(x, y, head, size=12, weight="bold", fill=dark(i))
            x += _text_w(head, 12, True) + 8
            for c in draft:
                card = CARDS[c["id"]]
                label = card_name(card.id)  # whole: the chips wrap onto a new row instead
                cw = max(_text_w(label, 12), _width(label, 12)) + 26
                if x + cw > x0 + w:
                    x = x0
                    y += 25
                t = TYPES.index(card.type)
                svg.open()
                svg.title(_card_title(c))
                svg.rect(x, y - 15, cw, 21, rx=4, fill=RES_TINT[t], stroke=RES_EDGE[t], stroke_width=.8)
                _type_badge(svg, card.type, x + 4, y - 12, 14)
                svg.text(x + 21, y, label, size=12)
                svg.close()
                x += cw + 6
        if hand:
            hs = p.get("hand_size", 0)
            label = ngettext("hand: %(num)d card", "hand: %(num)d cards", hs)
            if x + _text_w(label, 12) + 6 > x0 + w:
                x, y = x0, y + 25
            svg.text(x + 6 if draft else x, y, label, size=12, weight="bold", fill=MUTED)
        return y + 8

    def legend(self) -> None:
        """What the shapes mean: each cube kind and token, a paid and an empty slot, recycling, points;
        on more rows where the width ends."""
        svg = self.svg
        y = self.y + 22
        x = self.M
        items = [(lambda x, y, k=k: slot_icon(svg, k, x, y, 16), word(kind)) for k, kind in enumerate(KIND_NAME)]
        items += [(lambda x, y: slot_icon(svg, 2, x, y, 16, paid=True), _("paid slot")),
                  (lambda x, y: slot_icon(svg, 2, x, y, 16, empty=True), _("empty slot")),
                  (lambda x, y: _recycle(svg, x, y, 16), _("recycling")),
                  (lambda x, y: _star(svg, x, y, 16), _("points"))]
        for draw, label in items:
            if x + 19 + _width(label, 11) > self.right and x > self.M:
                x, y = self.M, y + 22
            draw(x, y - 13)
            svg.text(x + 19, y, label, size=11, fill=MUTED)
            x += 19 + _text_w(label, 11) + 10
        self.y = y

    def log(self) -> None:
        lines = list(self.v.get("log") or ())[-6:]
        if not lines:
            return
        svg = self.svg
        y = self.y + 24
        svg.text(self.M, y, _("Last events"), size=12, weight="bold", fill=MUTED)
        for line in lines:
            for row in self.rows(_names(self.v, texts.line(line)), 150, 12):
                y += 16
                svg.text(self.M, y, row, size=12, fill=MUTED)
        self.y = y

    # ------------------------------------------------------------ all
    def part(self, draw: Callable[[], None], gap: float = NGAP) -> None:
        """The narrow column's next part as a band of its own (drawing.Svg.placed): it stands ``gap``
        units below the bottom of the part above, in the space that part and this one leave between
        them (the cut is two units higher: below what the part above draws, above this one's first
        line), and is drawn from its own top, where the running position is ``-gap``, so that it is
        the same markup wherever it stands."""
        def at(top: float) -> float:
            self.y = top - gap
            draw()
            return self.y
        self.y = self.svg.placed(self.y + gap, at)

    def draw(self) -> str:
        v = self.v
        seats = list(v.get("seats") or ())
        order = sorted(seats, key=lambda p: (p["seat"] != self.seat, p["seat"]))
        if not self.narrow:
            self.header()
            self.scores()
            self.yours()
            for p in order:
                self.tableau(p)
            self.legend()
            self.log()
        else:
            # what the viewer acts on first, then their own panel, the others, and the rest; each part
            # a band of its own, cut about halfway into the space above its first line: a move redraws
            # a few of them, and the parts that read the same to every seat are drawn once for all
            self.svg.band(0)
            self.head_narrow()
            if v.get("outcome"):
                self.part(self.scores)
            if v.get("you") and not v.get("over"):
                self.part(self.yours)
            for p in order:
                self.part(lambda p=p: self.tableau(p))
            self.part(self.rest_narrow)
            self.part(self.legend)
            if v.get("log"):
                self.part(self.log)
        self.svg.height = round(self.y + 18)
        _behind(self.svg, 0, 0, 0, self.W, self.svg.height, fill=PAPER)
        return self.svg.finish(self.title(), self.desc())

    def title(self) -> str:
        v = self.v
        step = v.get("step_name", "") if english() else texts.step_name(v.get("step_name", ""), capital=False)
        status = v.get("status") or _("Round %(round)s of 4, %(step)s", round=v.get("round"), step=step)
        return _("%(title)s \u2014 %(status)s", title=game_title(), status=_names(v, status))

    def desc(self) -> str:
        v = self.v
        bits = []
        for p in v.get("seats") or ():
            # the constructed cards agree with their number ("построено 3" / "построена 1")
            bits.append(ngettext("%(name)s (%(empire)s) %(score)s VP, %(num)d constructed, %(sites)d under "
                                 "construction",
                                 "%(name)s (%(empire)s) %(score)s VP, %(num)d constructed, %(sites)d under "
                                 "construction", len(p.get("built") or ()),
                                 name=self.name(p["seat"]), empire=empire_name(p["empire"]), score=p.get("score", 0),
                                 sites=len(p.get("sites") or ())))
        if v.get("over"):
            win = sorted((v.get("outcome") or {}).get("winners") or ())
            if win:
                first = _("The game is over, won by %(names)s.", names=_(" and ").join(self.name(i) for i in win))
            else:
                first = _("The game is over.")
        else:
            step = v.get("step_name", "") if english() else texts.step_name(v.get("step_name", ""), capital=False)
            first = _("Round %(round)s of 4, %(step)s.", round=v.get("round"), step=step)
        return f"{first} " + "; ".join(bits) + "."


def draw_svg(view: Mapping[str, Any], moves: Sequence[str] = (), layout: str = "wide") -> str:
    """The view as an SVG picture (see :mod:`pbem.engine.drawing`), in either layout."""
    return _Drawing(view, moves, layout).draw()
