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
"""
from __future__ import annotations

from typing import Any, Mapping, Sequence

from ..base import seat_label
from ..drawing import INK, LINE, MUTED, PAPER, Svg, icon, moves_attr, num
from . import notation
from .i18n import N_, _, game_title, tr, card_label, card_name, tr_bonus, tr_breakdown, tr_card_text, tr_pending, tr_summary
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

# ---------------------------------------------------------------- text widths
# DejaVu Sans advance widths in ems (the font the drawing asks for first; others are narrower)
_NARROW = set("iljI.,:;!|'` ")
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


def _card_pos(q: int, top: float) -> tuple[float, float]:
    r, c = divmod(q - 1, 3)
    return M + c * (CW + SW), top + r * (CH + SH)


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


def _market_card(svg: Svg, view, top: float, q: int, card, moves: list[str] | None) -> None:
    x, y = _card_pos(q, top)
    if card is None:
        svg.rect(x + 1, y + 1, CW - 2, CH - 2, rx=8, fill="none", stroke=LINE, stroke_dasharray="6 5")
        svg.text(x + CW / 2, y + CH / 2 + 5, _("%(pos)d · empty", pos=q), size=13, anchor="middle", fill=MUTED)
        return
    body, band = KIND_FILL.get(card["kind"], ("#FFFFFF", "#DDDDDD"))
    _group(svg, moves, f"card-{q}", _("Card %(pos)d: %(card)s, £%(price)d %(kind)s. %(text)s", pos=q,
                                      card=card_label(card['label']), price=card['price'],
                                      kind=tr(KIND_NAME[card['kind']]) if card['kind'] in KIND_NAME else card['kind'],
                                      text=tr_card_text(card['text'])))
    svg.rect(x, y, CW, CH, rx=8, fill=body, stroke=LINE, stroke_width=1.2)
    svg.path(f"M{num(x)} {num(y + 30)} V{num(y + 8)} Q{num(x)} {num(y)} {num(x + 8)} {num(y)} "
             f"H{num(x + CW - 8)} Q{num(x + CW)} {num(y)} {num(x + CW)} {num(y + 8)} V{num(y + 30)} Z", fill=band)
    svg.line(x, y + 30, x + CW, y + 30, stroke=LINE, stroke_width=0.8)
    svg.circle(x + 16, y + 15, 10, fill="#FFFFFF", stroke=LINE)
    svg.text(x + 16, y + 19.5, q, size=12, anchor="middle", weight="bold")
    price = f"£{card['price']}"
    pw = text_width(price, 15, True)
    svg.text(x + CW - 9, y + 21, price, size=15, anchor="end", weight="bold")
    room = CW - 32 - pw - 18
    # the price stands beside the name, so "Mine", not "Mine £5"; "Quarters" when the name is long
    label = card_name(card["name"])
    if text_width(label, 15, True) > room:
        label = short_label(card["short"]).removesuffix(f" £{card['price']}")
    svg.text(x + 32, y + 21, fit_width(label, room, 15, True), size=15, weight="bold")
    svg.text(x + 10, y + 48, _first_fit(_kind_lines(card), CW - 80, 12), size=12, fill=MUTED)
    if card["kind"] == "building":
        vp = _("%(vp)d VP", vp=card['vp'])
        icon(svg, "star", x + CW - 14 - text_width(vp, 12, True) - 16, y + 36, 14, STAR)
        svg.text(x + CW - 10, y + 48, vp, size=12, anchor="end", weight="bold")
    rows = _clip(wrap_width(tr_summary(card["summary"]), CW - 20, 13), 3, CW - 20, 13)
    svg.lines(x + 10, y + 70, rows, size=13, gap=16)
    beside = card.get("beside", 0)
    svg.text(x + 10, y + CH - 11, _("%(n)d beside", n=beside), size=11, fill=MUTED)
    for i, t in enumerate(reversed(card["tokens"])):
        _token(svg, x + CW - 16 - i * 23, y + CH - 16, t)
    svg.close()


def _space_box(q1: int, q2: int, top: float) -> tuple[float, float, float, float, bool]:
    """The area of the space between positions q1 < q2: x, y, w, h, across (side by side)."""
    x1, y1 = _card_pos(q1, top)
    if q2 == q1 + 1:
        return x1 + CW + 4, y1 + 4, SW - 8, CH - 8, True
    return x1 + 4, y1 + CH + 4, CW - 8, SH - 8, False


def _space(svg: Svg, view, top: float, idx: int, workers: list[int], moves: list[str] | None) -> None:
    q1, q2 = SPACES[idx]
    name = SPACE_NAME[idx]
    x, y, w, h, across = _space_box(q1, q2, top)
    market = view["market"]
    is_open = market[q1 - 1] is not None or market[q2 - 1] is not None
    counts: dict[int, int] = {}
    for s in workers:
        counts[s] = counts.get(s, 0) + 1
    who = ", ".join(f"{_who(view, s)}" + (f" ×{n}" if n > 1 else "") for s, n in sorted(counts.items()))
    if who:
        title = _("Space %(space)s (between cards %(a)d and %(b)d): %(who)s", space=name, a=q1, b=q2, who=who)
    else:
        title = _("Space %(space)s (between cards %(a)d and %(b)d): no worker", space=name, a=q1, b=q2)
    if not is_open:
        title += _("; closed")
    _group(svg, moves, f"space-{name}", title)
    svg.rect(x, y, w, h, rx=6, fill="#EFE9DD" if is_open else "#F4F2EE", stroke=LINE if moves else "#C8C1B3",
             stroke_width=1.2 if moves else 0.8, stroke_dasharray=None if is_open else "4 4")
    groups = sorted(counts.items())
    if across:
        svg.text(x + w / 2, y + 15, name, size=11, anchor="middle", fill=MUTED)
        top = y + 22
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
        svg.text(x + 8, y + h / 2 + 4, name, size=11, fill=MUTED)
        room = w - 36 - 4

        def width(n: int, compact: bool) -> float:
            if n == 1 or (n == 2 and not compact):
                return 19 * n + 4
            return 20 + text_width(f"×{n}", 12, True) + 6

        compact = sum(width(n, False) for _s, n in groups) > room
        rows = [groups]
        if sum(width(n, True) for _s, n in groups) > room:  # two rows of workers
            half = (len(groups) + 1) // 2
            rows = [groups[:half], groups[half:]]
        for r, row in enumerate(rows):
            xx = x + 36
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
                    xx += width(n, True)
    svg.close()


def _market(svg: Svg, view, top: float, tg) -> None:
    for q in range(1, 10):
        _market_card(svg, view, top, q, view["market"][q - 1], tg.get(("card", q)))
    for i, sp in enumerate(view["spaces"]):
        _space(svg, view, top, i, list(sp["workers"]), tg.get(("space", SPACE_NAME[i])))


# ---------------------------------------------------------------- events and supply


def _event_card(svg: Svg, view, y: float, ev, heading: str, text: str, moves: list[str] | None,
                gid: str | None, lines_max: int) -> float:
    rows = _clip(wrap_width(text, RW - 20, 12), lines_max, RW - 20, 12) if text else []
    used = [s for s, p in enumerate(view["seats"]) if p["event_used"]] if gid == "event" else []
    h = 56 + 15 * len(rows) + (26 if gid == "event" else 0) + 4
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
    svg.rect(RX, y, RW, h, rx=8, fill=body, stroke=LINE, stroke_width=1.2)
    svg.text(RX + 10, y + 17, heading, size=12, fill=MUTED, weight="bold")
    svg.text(RX + 10, y + 38, fit_width(card_name(ev["name"]), RW - 50, 15, True), size=15, weight="bold")
    if ev.get("token"):
        _token(svg, RX + RW - 18, y + 33, ev["token"], r=11)
    svg.lines(RX + 10, y + 58, rows, size=12, gap=15)
    if gid == "event":
        yy = y + h - 14
        if used:
            svg.text(RX + 10, yy + 4, _("used by"), size=11, fill=MUTED)
            for i, s in enumerate(used):
                _disc(svg, view, s, RX + 68 + i * 22, yy, 9)
        else:
            svg.text(RX + 10, yy + 4, _("not used yet this round"), size=11, fill=MUTED)
    if gid:
        svg.close()
    return y + h


def _right_column(svg: Svg, view, top: float, tg) -> None:
    y = top
    if view["event"]:
        y = _event_card(svg, view, y, view["event"], _("Event, round %(round)d", round=view['round']),
                        tr_summary(view["event"]["summary"]),
                        tg.get(("event",)), "event", 3) + 12
        if view.get("pending") and next(iter(targets([view["pending"]["move"]]))) == ("event",):
            darkc = _seat_colour(view, view["pending"]["seat"])[1]
            svg.rect(RX - 3, top - 3, RW + 6, y - 12 - top + 6, rx=10, fill="none", stroke=darkc, stroke_width=3,
                     stroke_dasharray="8 4")
    if view["future_event"]:
        y = _event_card(svg, view, y, view["future_event"], _("Next event"), tr_card_text(view["future_event"]["text"]),
                        None, "next-event", 7) + 12
    # the token supply, the discard pile and the decks
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
    svg.rect(RX, y, RW, h, rx=8, fill="#FFFFFF", stroke=LINE)
    svg.text(RX + 10, y + 18, _("Tokens"), size=12, fill=MUTED, weight="bold")
    icon(svg, "token", RX + 10, y + 26, 16, TOKEN_FILL)
    svg.text(RX + 32, y + 39, rows[0], size=13)
    svg.text(RX + 10, y + 60, fit_width(_("discard: %(tokens)s", tokens=disc), RW - 20, 13), size=13)
    svg.text(RX + 10, y + 82, _("Decks"), size=12, fill=MUTED, weight="bold")
    svg.text(RX + 10, y + 101, _("A %(a)d · B %(b)d · C %(c)d · events %(events)d", a=decks['A'], b=decks['B'],
                                 c=decks['C'], events=view['events_left']),
             size=13)
    svg.close()


# ---------------------------------------------------------------- tracks


def _stack(svg: Svg, view, cx: float, base: float, seats: list[int]) -> None:
    for i, s in enumerate(seats):
        _disc(svg, view, s, cx, base - 10 - i * 17, 8.5)


def _tracks(svg: Svg, view, top: float) -> float:
    seats = view["seats"]
    n = len(seats)
    hi = max(p["vp"] for p in seats)
    span = max(40, ((hi + 6) // 10 + 1) * 10)
    x0, x1 = M + 14, M + MARKET_W - 14
    step = (x1 - x0) / span
    base = top + 24 + 17 * n
    heading = _("Score track (VP)")
    svg.text(M, top + 14, heading, size=13, weight="bold")
    svg.text(M + max(128, text_width(heading, 13, True) + 6), top + 14, _("bonus tiles at 8 and 20"), size=12,
             fill=MUTED)
    svg.open(id=svg.id("score-track"))
    svg.title(_("Score track: %(scores)s", scores=", ".join(_("%(player)s %(vp)d VP", player=_who(view, s), vp=p['vp'])
                                                            for s, p in enumerate(seats))))
    svg.rect(x0 - 6, base, x1 - x0 + 12, 10, rx=5, fill="#E8E2D4", stroke=LINE, stroke_width=0.8)
    for v in range(span + 1):
        x = x0 + v * step
        big = v % 5 == 0
        svg.line(x, base + 10, x, base + (17 if big else 13), stroke=LINE, stroke_width=1 if big else 0.6)
        if v % 10 == 0 or v in (8, 20):
            bonus = v in (8, 20)
            svg.text(x, base + 30, v, size=11, anchor="middle", fill=INK if bonus else MUTED,
                     weight="bold" if bonus else None)
    for v in (8, 20):
        x = x0 + v * step
        svg.rect(x - 3, base, 6, 10, fill=COIN)
    # each marker at its score, lifted above any marker it would cover (a long track packs scores close)
    placed: list[tuple[float, int]] = []
    for s in sorted(range(n), key=lambda s: (seats[s]["vp"], s)):
        x = x0 + min(seats[s]["vp"], span) * step
        level = 0
        while any(lv == level and abs(px - x) < 18 for px, lv in placed):
            level += 1
        placed.append((x, level))
        _disc(svg, view, s, x, base - 10 - level * 17, 8.5)
    svg.close()
    # the residence track, 2 to 7, beside it
    svg.text(RX, top + 14, _("Residence track (income)"), size=13, weight="bold")
    svg.open(id=svg.id("residence-track"))
    svg.title(_("Residence track: %(places)s", places=", ".join(f"{_who(view, s)} {p['residence']}"
                                                                for s, p in enumerate(seats))))
    cw = RW / 6
    for i, v in enumerate(range(2, 8)):
        x = RX + i * cw
        svg.rect(x + 1, base - 17 * n - 6, cw - 2, 17 * n + 16, rx=4, fill="#F1ECE1", stroke="#D6CFBF")
        svg.text(x + cw / 2, base + 30, v, size=11, anchor="middle", fill=MUTED)
        _stack(svg, view, x + cw / 2, base + 8, [s for s, p in enumerate(seats) if p["residence"] == v])
    svg.close()
    return base + 40


# ---------------------------------------------------------------- players


_TURNED = {"Lobbying": "lobbying_used", "Commerce": "commerce_used", "Taylorism": "taylorism_used"}


def _mini_card(svg: Svg, view, x: float, y: float, *, head: str, name: str | Sequence[str],
               line2: str | Sequence[str], summary: str,
               turned: bool, fill: tuple[str, str], title: str, moves: list[str] | None, gid: str) -> None:
    body, band = fill
    _group(svg, moves, gid, title)
    svg.rect(x, y, LW, LH, rx=6, fill="#EEEEEE" if turned else body, stroke=LINE, stroke_width=1.2 if moves else 0.9)
    svg.path(f"M{num(x)} {num(y + 22)} V{num(y + 6)} Q{num(x)} {num(y)} {num(x + 6)} {num(y)} "
             f"H{num(x + LW - 6)} Q{num(x + LW)} {num(y)} {num(x + LW)} {num(y + 6)} V{num(y + 22)} Z",
             fill="#D4D4D4" if turned else band)
    svg.text(x + 7, y + 16, head, size=11, fill=MUTED, weight="bold")
    hw = text_width(head, 11, True)
    names = [name] if isinstance(name, str) else list(name)
    name = next((n for n in names if text_width(n, 13, True) <= LW - 19 - hw), names[-1])
    svg.text(x + 12 + hw, y + 16, fit_width(name, LW - 19 - hw, 13, True), size=13, weight="bold")
    lines2 = [line2] if isinstance(line2, str) else list(line2)
    svg.text(x + 7, y + 38, _first_fit(lines2, LW - 14, 12), size=12, fill=MUTED)
    rows = _clip(wrap_width(summary, LW - 14, 12), 3, LW - 14, 12)
    svg.lines(x + 7, y + 56, rows, size=12, gap=14.5)
    if turned:
        svg.text(x + LW - 7, y + LH - 8, _("turned"), size=11, anchor="end", weight="bold", fill="#6B4A00")
    svg.close()


def _player(svg: Svg, view, s: int, y: float, tg) -> float:
    p = view["seats"][s]
    fill, darkc, tintc = _seat_colour(view, s)
    me = view.get("seat") == s
    lots, techs = p["lots"], p.get("technique_info") or [{"name": t, "summary": "", "text": ""}
                                                          for t in p["techniques"]]
    ncards = len(lots) + len(techs)
    per_row = int((W - 2 * M - 16 + 8) // (LW + 8))
    rows = -(-ncards // per_row)
    h = 100 + (rows * (LH + 8) if rows else 30) + 4
    svg.open(id=svg.id(f"player-{s}"))
    svg.rect(M, y, W - 2 * M, h, rx=10, fill="#FFFFFF", stroke=darkc if me or view.get("turn") == s else LINE,
             stroke_width=2.5 if view.get("turn") == s else 1.2)
    svg.path(f"M{num(M)} {num(y + 34)} V{num(y + 10)} Q{num(M)} {num(y)} {num(M + 10)} {num(y)} "
             f"H{num(W - M - 10)} Q{num(W - M)} {num(y)} {num(W - M)} {num(y + 10)} V{num(y + 34)} Z", fill=tintc)
    _disc(svg, view, s, M + 20, y + 17, 10)
    name = seat_label(view, s)
    svg.text(M + 38, y + 23, fit_width(name, 300, 16, True), size=16, weight="bold", fill=darkc)
    xx = M + 38 + text_width(fit_width(name, 300, 16, True), 16, True) + 8
    svg.text(xx, y + 23, tr(view["colours"][s]), size=13, fill=MUTED)
    # the flags, right to left
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
    fx = W - M - 10
    widths = [text_width(t, 12, True) + 14 for t, _bg, _ink in flags]
    fx -= sum(widths) + 6 * (len(flags) - 1)
    if pass_moves:
        bw = text_width("pass", 13, True) + 20
        fx -= bw + 10
        _group(svg, pass_moves, f"pass-{s}", _("Pass: end your round"))
        svg.rect(W - M - 10 - bw, y + 6, bw, 22, rx=11, fill=INK)
        svg.text(W - M - 10 - bw / 2, y + 22, "pass", size=13, anchor="middle", weight="bold", fill="#FFFFFF")
        svg.close()
    for (t, bg, ink), w in zip(flags, widths):
        _pill(svg, fx, y + 17, t, fill=bg, ink=ink, bold=True, stroke=LINE)
        fx += w + 6
    # resources
    ry = y + 58
    x = M + 12
    x = _res(svg, x, ry, "coin", COIN, f"£{p['money']}")
    x = _res(svg, x, ry, "crystal", CRYSTAL, _("%(spy)d S", spy=p['spyrium']))
    x = _res(svg, x, ry, "star", STAR, _("%(vp)d VP", vp=p['vp']))
    res = _("residence %(res)d", res=p['residence'])
    svg.text(x, ry, res, size=13)
    x += text_width(res, 13) + 16
    bonus = _("bonus: %(bonus)s", bonus=tr_bonus(p['bonus']))
    svg.text(x, ry, bonus, size=13, fill=MUTED)
    x += text_width(bonus, 13) + 16
    if lots and not view["over"]:
        svg.text(W - M - 12, ry, _("new lot £%(cost)d", cost=p.get('new_lot_cost', 0)), size=13, anchor="end",
                 fill=MUTED)
    # workers
    w = p["workers"]
    wy = y + 84
    x = M + 12
    for _i in range(w["active"]):
        _worker(svg, view, s, x, wy - 15, 18)
        x += 17
    x += 6 if w["active"] else 0
    svg.text(x, wy, _("%(active)s · %(market)d on the market · %(used)s · %(building)d on buildings · %(owned)s, "
                      "%(reserve)d in reserve", market=w['market'], building=w['building'], reserve=w['reserve'],
                      **worker_counts(w)), size=13)
    # district and techniques
    cx, cy = M + 12, y + 96
    i = 0
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
        _mini_card(svg, view, cx + (i % per_row) * (LW + 8), cy + (i // per_row) * (LH + 8),
                   head=_("Lot %(lot)d", lot=lot['lot']), name=(label, short_label(lot["short"])), line2=line2,
                   summary=tr_summary(lot.get("summary", "")),
                   turned=lot["turned"], fill=KIND_FILL["building"],
                   title=title + f". {tr_card_text(lot.get('text', ''))}",
                   moves=tg.get(("lot", lot["lot"])) if me else None, gid=f"lot-{s}-{lot['lot']}")
        i += 1
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
        _mini_card(svg, view, cx + (i % per_row) * (LW + 8), cy + (i // per_row) * (LH + 8),
                   head=_("Tech"), name=name, line2=line2, summary=tr_summary(t.get("summary", "")), turned=turned,
                   fill=KIND_FILL["technique"],
                   title=title + f". {tr_card_text(t.get('text', ''))}",
                   moves=None, gid=f"tech-{s}-{t['name'].lower()}")
        i += 1
    if not ncards:
        svg.text(cx, cy + 26, _("no building and no technique yet (a first lot is free)") if me
                 else _("no building and no technique yet"), size=13, fill=MUTED)
    svg.close()
    return y + h + 10


# ---------------------------------------------------------------- pending and outcome


def _mark_pending(svg: Svg, view, top: float) -> None:
    """A frame in the deciding seat's colour around the market card or space its unfinished move concerns."""
    key = next(iter(targets([view["pending"]["move"]])))
    fill, darkc, _tint = _seat_colour(view, view["pending"]["seat"])
    if key[0] == "card" and 1 <= key[1] <= 9:
        x, y = _card_pos(key[1], top)
        svg.rect(x - 3, y - 3, CW + 6, CH + 6, rx=10, fill="none", stroke=darkc, stroke_width=3,
                 stroke_dasharray="8 4")
    elif key[0] == "space":
        q1, q2 = map(int, key[1].split("-"))
        x, y, w, h, _across = _space_box(q1, q2, top)
        svg.rect(x - 3, y - 3, w + 6, h + 6, rx=8, fill="none", stroke=darkc, stroke_width=3, stroke_dasharray="8 4")


def _pending(svg: Svg, view, y: float, tg) -> float:
    pend = view["pending"]
    s = pend["seat"]
    choices = pend.get("choices") or []
    if choices:
        head = _("%(player)s must %(what)s:", player=_who(view, s), what=tr_pending(pend['ask']))
    else:
        head = _("%(player)s must %(what)s", player=_who(view, s), what=tr_pending(pend['question']))
    head_rows = wrap_width(head, W - 2 * M - 24, 14, True)
    h = 16 + 19 * len(head_rows) + 26 * len(choices) + 8
    _fill, darkc, tintc = _seat_colour(view, s)
    svg.open(id=svg.id("pending"))
    svg.rect(M, y, W - 2 * M, h, rx=8, fill=tintc, stroke=darkc, stroke_width=1.5)
    yy = svg.lines(M + 12, y + 22, head_rows, size=14, gap=19, weight="bold")
    for c in choices:
        text = tr_pending(c["text"]).removeprefix("(").removesuffix(")")
        if not c["possible"]:
            text = _("not possible: %(why)s", why=text)
        moves = tg.get(("answer", c["answer"]))
        _group(svg, moves, f"answer-{c['answer']}", f"{c['answer']}: {text}")
        aw = text_width(c["answer"], 13, True) + 20
        svg.rect(M + 12, yy - 15, aw, 22, rx=11, fill=INK if moves else "#FFFFFF", stroke=LINE)
        svg.text(M + 12 + aw / 2, yy + 1, c["answer"], size=13, anchor="middle", weight="bold",
                 fill="#FFFFFF" if moves else INK)
        svg.text(M + 22 + aw, yy + 1, fit_width(text, W - 2 * M - aw - 40, 13), size=13,
                 fill=INK if c["possible"] else MUTED)
        svg.close()
        yy += 26
    svg.close()
    return y + h + 12


def _outcome(svg: Svg, view, y: float) -> float:
    o = view["outcome"]
    rows = len(o["ranking"])
    h = 46 + 30 * rows + 18 * len(o["notes"]) + 8
    svg.open(id=svg.id("outcome"))
    svg.title(_("Final scores: %(scores)s", scores=", ".join(f"{_who(view, s)} {o['scores'][s]}" for s in o["ranking"])))
    svg.rect(M, y, W - 2 * M, h, rx=10, fill="#FFFFFF", stroke=LINE, stroke_width=1.2)
    svg.text(M + 14, y + 28, _("Final scores"), size=18, weight="bold")
    yy = y + 58
    for rank, s in enumerate(o["ranking"]):
        _fill, darkc, tintc = _seat_colour(view, s)
        win = s in o["winners"]
        svg.rect(M + 8, yy - 19, W - 2 * M - 16, 26, rx=5, fill=tintc if win else "#F7F5F0")
        _disc(svg, view, s, M + 24, yy - 6, 9)
        svg.text(M + 42, yy, fit_width(_who(view, s), 260, 14, True), size=14, weight="bold", fill=darkc)
        svg.text(M + 330, yy, o["scores"][s], size=15, anchor="end", weight="bold")
        b = o["breakdown"][s]
        detail = " + ".join(f"{tr_breakdown(k)} {v}" for k, v in b.items() if k != "total")
        svg.text(M + 346, yy, fit_width(detail, W - 2 * M - 346 - 90, 13), size=13)
        if win:
            icon(svg, "star", W - M - 86, yy - 15, 16, STAR)
            svg.text(W - M - 66, yy, _("wins"), size=13, weight="bold")
        yy += 30
    for note in o["notes"]:
        svg.text(M + 14, yy, _(note), size=13, fill=MUTED)
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


def draw_svg(view: Mapping[str, Any], moves: Sequence[str] = ()) -> str:
    tg = targets(moves, view)
    svg = Svg(W, 2000, id_prefix="spy")
    parts_before = len(svg.parts)
    # header
    svg.text(M, 30, game_title(), size=22, weight="bold")
    status_rows = wrap_width(view["status"], W - 2 * M - 130, 14)
    svg.lines(M + 118, 29, status_rows[:2], size=14, gap=18)
    y = 30 + 18 * max(1, min(2, len(status_rows))) + 4
    if not view["over"]:
        top = y + 6
        _market(svg, view, top, tg)
        if view.get("pending"):
            _mark_pending(svg, view, top)
        _right_column(svg, view, top, tg)
        y = top + MARKET_H + 14
    else:
        y = _outcome(svg, view, y + 6)
    if view.get("pending"):
        y = _pending(svg, view, y, tg)
    y = _tracks(svg, view, y)
    for s in range(view["players"]):
        y = _player(svg, view, s, y, tg)
    svg.height = y + 6
    paper = f'<rect x="0" y="0" width="{num(W)}" height="{num(svg.height)}" fill="{PAPER}"/>'
    svg.parts.insert(parts_before, paper)  # the height is known only now
    return svg.finish(f"{game_title()} — {view['status']}", _desc(view))
