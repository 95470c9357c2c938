"""The Squire board as a picture: a real map of the board side with
its cities, routes, exhibits and pawns, the market's price tracks, the
exhibitions, the exhibit discard, each player's gallery, and the viewer's own
message cards, drawn from a seat's view only (RULES.md §2: what the view hides
the drawing cannot show).

The coastlines are Natural Earth land polygons (public domain), clipped and
simplified once by scripts/squire_coastlines.py into data/coast.json; the
cities' latitudes and longitudes are in data/geo.json. A board whose cities
are not all there (replacement data) is drawn on a schematic ring instead.
"""
from __future__ import annotations

import functools
import json
import math
import re
from importlib import resources
from typing import Any, Mapping, Sequence

from ..base import name_seats, seat_label
from ..drawing import (
    ICONS, INK, LAYOUTS, LINE, MUTED, NARROW_WIDTH, PAPER, Svg, colour, dark, fit, icon, moves_attr, num, tint, wrap,
)
from .render import COLOURS, TYPE_COLOUR
from . import texts
from .i18n import N_, _, board as board_name, ngettext

_SCORE_LABELS = {"exhibits": N_("exhibits"), "commissions": N_("commissions"), "leftovers": N_("leftovers"),
                 "total": N_("total")}
_ROUTE_TITLES = {"land": N_("%(route)s: land route, 1 ticket a step"),
                 "sea": N_("%(route)s: sea route, 1 ticket a step")}

W = 1160
PAD = 12
NPAD = 6  # the narrow layout's margin: its parts are NARROW_WIDTH - 2 * NPAD wide
LABEL_GAP = 3.0  # the least room between two cities' labels on the map
CANDIDATES = 90  # the places tried for a label, the best first
SEA = "#DCEAF2"
LAND = "#F1ECDD"
COAST = "#9FB3BF"
SEA_ROUTE = "#2F6690"
LAND_ROUTE = "#5A5348"
CHAR = 0.6  # estimated glyph width, in font sizes (the label test uses the same estimate)
NAME_SIZE = 13
CHIP_H = 17
PAWN = 11
CHIP_W = 28 + 3 + 12 + 2 + 15 + 4  # token, coin, price
MARKER_R = 6.5
YELLOWISH = {"yellow"}


# ---------------------------------------------------------------- static data

@functools.lru_cache(maxsize=None)
def _data(name: str) -> dict:
    return json.loads((resources.files(__package__) / "data" / name).read_text(encoding="utf-8"))


def _type_colour(t: str) -> str:
    return COLOURS.get(TYPE_COLOUR.get(t, ""), "#888888")


def _type_ink(t: str) -> str:
    return INK if TYPE_COLOUR.get(t) in YELLOWISH else "#FFFFFF"


def _region_colour(r: str) -> str:
    return COLOURS.get(r, "#888888")


# our own glyphs of the five exhibit types, drawn in a 0 0 20 20 box (fill given by the caller); a
# type is told by its colour and its glyph, never by a letter (a "P3" would read as a player)
TYPE_GLYPHS = {
    "painting": '<path d="M1.5 3.5 H18.5 V16.5 H1.5 Z M4 6 V14 H16 V6 Z" fill-rule="evenodd"/>'
                '<path d="M5 13.5 L8.5 8.5 L11.5 11.5 L13.5 9.5 L15.5 13.5 Z"/>',
    "ceramics": '<path d="M7 1.5 H13 V3.5 Q12 4.5 12.2 6 Q17 8.5 16.5 13 Q16 18.5 10 18.5 Q4 18.5 3.5 13 '
                'Q3 8.5 7.8 6 Q8 4.5 7 3.5 Z"/>',
    "sculpture": '<circle cx="10" cy="5.5" r="3.6"/><path d="M4.5 14 Q4.5 9.5 10 9.5 Q15.5 9.5 15.5 14 Z"/>'
                 '<rect x="3" y="15" width="14" height="3.5" rx="0.5"/>',
    "rare_book": '<path d="M2 4 Q6 2 9.3 4.5 V18 Q6 15.5 2 17 Z M10.7 4.5 Q14 2 18 4 V17 Q14 15.5 10.7 18 Z"/>',
    "jewellery": '<path d="M5.5 2.5 H14.5 L18.5 7.5 L10 18.5 L1.5 7.5 Z"/>',
}


def glyph(svg: Svg, t: str, x: float, y: float, size: float, fill: str) -> None:
    body = TYPE_GLYPHS.get(t)
    if body is None:
        svg.circle(x + size / 2, y + size / 2, size * 0.35, fill=fill)
        return
    sid = svg.symbol(f"type-{t}", "0 0 20 20", body)
    svg.use(sid, x, y, size, size, fill=fill)


def _type_name(view: Mapping, t: str) -> str:
    return texts.type_title(t, str(view.get("type_names", {}).get(t, t.replace("_", " ").capitalize())))


def _cn(view: Mapping, english: str) -> str:
    """A city's name (English in the view) as the player reads it."""
    if texts.english():
        return english
    for c in view["cities"]:
        if c["name"] == english:
            return texts.city(c["id"], english)
    return english


def _w(text: str, size: float) -> float:
    return len(text) * CHAR * size


def _text_w(text: str, size: float, bold: bool = True) -> float:
    """How wide ``text`` is at ``size``: DejaVu Sans's own advances (data/glyphs.json), a generous guess
    for a letter it does not list. The map's labels are placed by it: a guess per letter ran short of
    bold names, most in Cyrillic, and a translated name reached into its neighbour's label."""
    table = _data("glyphs.json")
    adv, upem = table["bold" if bold else "regular"], table["upem"]
    return sum(adv.get(ch, upem * 0.72) for ch in str(text)) * size / upem


def _bold_w(text: str, size: float) -> float:
    return _text_w(text, size, True)


def _lines_w(text: str, width: float, size: float, bold: bool = True) -> list[str]:
    """``text`` in as few lines as fit ``width`` at ``size`` (broken at spaces): a name wraps
    instead of being cut with an ellipsis."""
    words = str(text).split()
    lines: list[str] = []
    for word in words:
        if lines and _text_w(lines[-1] + " " + word, size, bold) <= width:
            lines[-1] += " " + word
        else:
            lines.append(word)
    return lines or [""]


# ---------------------------------------------------------------- the map's geometry

# The narrow layout's map: a board side in panels as wide as the phone's column, stacked, each showing a
# box of longitudes and latitudes (lon0, lat0, lon1, lat1) at one scale, and the cities named (or, for
# a city no panel names, the first whose box holds it). A route between two panels is drawn as a stub
# out of each with a "to <city>" note, as the wide map draws the Pacific. Whole, either side would be
# drawn at half the wide map's scale or less, where fifteen labels can only stand far from their cities
# (the world: a strip 110 high with London and Paris on one dot): the British Isles are Great Britain
# then Ireland, at the wide map's scale; the world is the Americas, Europe and Africa, then Asia and
# Oceania, each panel at its own scale (about 3 units a degree, Europe and Africa 4.7 for the crowd of
# Europe): a route's step costs one ticket whatever its length, so no distance is read off the map.
NARROW_MAPS = {
    "british": (((-5.7, 50.2, 1.0, 58.0), ()),
                ((-11.3, 51.3, -4.6, 55.6), ("dublin", "belfast", "cork"))),
    "world": (((-140.0, -30.0, -31.0, 50.0), ("san_francisco", "new_york", "rio_de_janeiro")),
              ((-22.0, -42.0, 48.0, 62.0), ("london", "paris", "rome", "cairo", "timbuktu", "cape_town")),
              ((52.0, -42.0, 157.0, 62.0), ("samarkand", "bombay", "calcutta", "beijing", "tokyo", "sydney"))),
}
PANEL_GAP = 8


class Panel:
    """One rectangle of the map (at ``x, y`` in the map, ``w`` by ``h``) and the projection of the box of
    longitudes and latitudes it shows (None: a schematic map)."""

    def __init__(self, x: float, y: float, w: float, h: float, box=None, k: float = 1.0, kx: float = 1.0) -> None:
        self.x, self.y, self.w, self.h, self.box, self.k, self.kx = x, y, w, h, box, k, kx

    def project(self, lon: float, lat: float) -> tuple[float, float]:
        lon0, lat0, lon1, lat1 = self.box
        return (self.x + (lon - lon0) * self.kx * self.k, self.y + (lat1 - lat) * self.k)

    def holds(self, lon: float, lat: float) -> bool:
        lon0, lat0, lon1, lat1 = self.box
        return lon0 <= lon <= lon1 and lat0 <= lat <= lat1

    def rect(self) -> tuple[float, float, float, float]:
        return (self.x, self.y, self.w, self.h)


class Geo:
    """Where each city lies on the map, the coastlines, the label boxes (static per side, layout,
    player count and language: the layout never jumps during a game)."""

    def __init__(self, side: str, city_ids: tuple, names: tuple, routes: tuple, players: int,
                 layout: str = "wide", notes: tuple | None = None, legend_lines: int = 0) -> None:
        geo = _data("geo.json").get(side, {})
        coast = _data("coast.json").get(side)
        self.real = coast is not None and all(c in geo for c in city_ids)
        self.narrow = layout == "narrow"
        if self.narrow:
            self.w = float(NARROW_WIDTH - 2 * NPAD)
        elif side == "british":
            self.w = 660.0
        else:
            self.w = float(W - 2 * PAD)
        self.h = 0.0
        self.panels: list[Panel] = []
        self.rings: list[list[list[tuple[float, float]]]] = []  # per panel
        self.panel_of: dict[str, int] = {}
        self.ll: dict[str, tuple[float, float]] = {}
        if self.real:
            boxes = NARROW_MAPS.get(side, ((coast["box"], ()),)) if self.narrow else ((coast["box"], ()),)
            y = 0.0
            mid = math.radians((coast["box"][1] + coast["box"][3]) / 2)
            kx = math.cos(mid) if side == "british" else 1.0
            for box, _named in boxes:
                lon0, lat0, lon1, lat1 = box
                k = self.w / ((lon1 - lon0) * kx)
                self.panels.append(Panel(0.0, y, self.w, (lat1 - lat0) * k, tuple(box), k, kx))
                y += (lat1 - lat0) * k + PANEL_GAP
            self.h = y - PANEL_GAP
            pos = {}
            for c in city_ids:
                lat, lon = geo[c]
                self.ll[c] = (lon, lat)
                i = next((j for j, (_box, named) in enumerate(boxes) if c in named), None)
                if i is None:
                    i = next((j for j, p in enumerate(self.panels) if p.holds(lon, lat)), None)
                if i is None:  # beyond every panel (replacement data): the panel nearest in longitude
                    i = min(range(len(self.panels)),
                            key=lambda j: abs((self.panels[j].box[0] + self.panels[j].box[2]) / 2 - lon))
                self.panel_of[c] = i
                pos[c] = self.panels[i].project(lon, lat)
            self.pos = _apart(pos, 2 * MARKER_R + (4 if side == "british" else 14))
            for p in self.panels:
                rings = coast["rings"] if p.box == tuple(coast["box"]) else \
                    [c for c in (_clip(r, p.box) for r in coast["rings"]) if len(c) >= 6]
                self.rings.append([[p.project(r[i], r[i + 1]) for i in range(0, len(r), 2)] for r in rings])
        else:
            self.h = 440.0 if self.narrow else 520.0
            self.panels.append(Panel(0.0, 0.0, self.w, self.h))
            self.rings.append([])
            n = len(city_ids)
            edge = 60 if self.narrow else 150
            cx, cy, rx, ry = self.w / 2, self.h / 2, self.w / 2 - edge, self.h / 2 - 70
            self.pos = {c: (cx + rx * math.cos(2 * math.pi * i / n - math.pi / 2),
                            cy + ry * math.sin(2 * math.pi * i / n - math.pi / 2)) for i, c in enumerate(city_ids)}
            self.panel_of = {c: 0 for c in city_ids}
        self.legend = None if self.narrow else self._legend_box(side, players, legend_lines)
        self.note_text = dict(zip(city_ids, notes or tuple(f"to {n}" for n in names)))
        self.routes = self._route_geometry(routes)
        self.labels = self._place_labels(city_ids, names, players)

    def _legend_box(self, side: str, players: int, extra: int = 0) -> tuple[float, float, float, float]:
        w, h = 178.0, 148.0 + 16 * players + 13 * extra
        if side == "world":
            return (4.0, self.h - h - 4, w, h)
        return (4.0, 4.0, w, h)

    @staticmethod
    def block(name: str, players: int) -> tuple[float, float]:
        chip = CHIP_W + players * PAWN + 4
        return (max(_bold_w(name, NAME_SIZE), chip) + 6, NAME_SIZE + 4 + CHIP_H + 4)

    def marker_box(self, c: str) -> tuple[float, float, float, float]:
        x, y = self.pos[c]
        r = MARKER_R + 2
        return (x - r, y - r, 2 * r, 2 * r)

    def _obstacles(self) -> list[tuple]:
        """What a label or a badge keeps clear of besides the cities' markers: the legend, the notes."""
        return ([self.legend] if self.legend else []) + [box for box, _ in self.notes]

    def _route_geometry(self, routes: tuple) -> list[dict]:
        """Each route as drawn: land routes straight, sea routes gently bowed (so that two sea
        routes out of one port stay apart); a route across the map's edge (the Pacific), or between two
        panels of the narrow map, as two stubs, each with a "to <city>" note beside the edge."""
        out = []
        marks = [self.marker_box(c) for c in self.pos]
        self.notes: list[tuple] = []
        for a, b, kind in routes:
            if a not in self.pos or b not in self.pos:
                continue
            p, q = self.pos[a], self.pos[b]
            if self.real and self.narrow and (self.panel_of[a] != self.panel_of[b] or
                                              abs(self.ll[a][0] - self.ll[b][0]) > 180):
                for c, other in ((a, b), (b, a)):
                    pts, side = self._stub(a, b, kind, c)
                    self.notes.append((self._note_box(pts[-1], side, self.note_text[other], marks),
                                       self.note_text[other]))
                    out.append({"a": a, "b": b, "kind": kind, "pts": pts,
                                "d": "M" + " L".join(f"{num(x)} {num(y)}" for x, y in pts)})
                continue
            if self.real and not self.narrow and abs(p[0] - q[0]) > self.w * 0.6:
                (left, ln), (right, rn) = sorted([(p, a), (q, b)])
                for (sx, sy), (tx, ty), other, edge in ((left, (right[0] - self.w, right[1]), rn, 0.0),
                                                       (right, (left[0] + self.w, left[1]), ln, self.w)):
                    ey = sy + (ty - sy) * (edge - sx) / (tx - sx)
                    pts = [(sx, sy), (edge, ey)]
                    text = self.note_text[other]
                    self.notes.append((self._note_box((edge, ey), "left" if edge == 0 else "right", text, marks),
                                       text))
                    out.append({"a": a, "b": b, "kind": kind, "pts": pts,
                                "d": f"M{num(sx)} {num(sy)} L{num(edge)} {num(ey)}"})
                continue
            if kind == "sea":
                mx, my = (p[0] + q[0]) / 2, (p[1] + q[1]) / 2
                dx, dy = q[0] - p[0], q[1] - p[1]
                bend = 0.12 if (a < b) else -0.12
                cx, cy = mx - dy * bend, my + dx * bend
                pts = [((1 - t) ** 2 * p[0] + 2 * (1 - t) * t * cx + t * t * q[0],
                        (1 - t) ** 2 * p[1] + 2 * (1 - t) * t * cy + t * t * q[1]) for t in (i / 16 for i in range(17))]
                d = f"M{num(p[0])} {num(p[1])} Q{num(cx)} {num(cy)} {num(q[0])} {num(q[1])}"
            else:
                pts = [p, q]
                d = f"M{num(p[0])} {num(p[1])} L{num(q[0])} {num(q[1])}"
            out.append({"a": a, "b": b, "kind": kind, "pts": pts, "d": d})
        return out

    def _stub(self, a: str, b: str, kind: str, c: str) -> tuple[list, str]:
        """The part of route ``a``-``b`` that lies in city ``c``'s panel (the nearer way round the globe),
        from ``c`` to the panel's edge, bowed as the whole route would be; and which edge it leaves by."""
        panel = self.panels[self.panel_of[c]]
        other = b if c == a else a
        lon = self.ll[c][0]
        olon, olat = self.ll[other]
        olon += 360 * round((lon - olon) / 360)
        far = panel.project(olon, olat)
        p, q = (self.pos[c], far) if c == a else (far, self.pos[c])
        if kind == "sea":
            mx, my = (p[0] + q[0]) / 2, (p[1] + q[1]) / 2
            dx, dy = q[0] - p[0], q[1] - p[1]
            bend = 0.12 if (a < b) else -0.12
            cx, cy = mx - dy * bend, my + dx * bend
            curve = [((1 - t) ** 2 * p[0] + 2 * (1 - t) * t * cx + t * t * q[0],
                      (1 - t) ** 2 * p[1] + 2 * (1 - t) * t * cy + t * t * q[1]) for t in (i / 32 for i in range(33))]
        else:
            curve = [p, q]
        if c != a:
            curve.reverse()
        pts = [curve[0]]
        for (sx, sy), (tx, ty) in zip(curve, curve[1:]):
            t, side = 1.0, None
            for bound, d0, d1, name in ((panel.x, sx, tx, "left"), (panel.x + panel.w, sx, tx, "right"),
                                        (panel.y, sy, ty, "top"), (panel.y + panel.h, sy, ty, "bottom")):
                if d1 != d0:
                    k = (bound - d0) / (d1 - d0)
                    if 0 <= k < t:
                        t, side = k, name
            pts.append((sx + (tx - sx) * t, sy + (ty - sy) * t))
            if side:
                return pts, side
        return pts, "right"

    def _note_box(self, at: tuple, side: str, text: str, marks: list) -> tuple:
        """Where the "to <city>" note of a stub leaving by ``side`` at ``at`` goes: beside the edge, just
        above or below the stub, clear of the cities' markers and the notes before it."""
        panel = next(p for p in self.panels if p.y - 1 <= at[1] <= p.y + p.h + 1)
        tw, (ex, ey) = _bold_w(text, 11), at
        if side in ("left", "right"):
            x0 = panel.x + 4.0 if side == "left" else panel.x + panel.w - 4 - tw
            spots = [(x0, ey + dy) for dy in (-19, 5, -34, 20, -49, 35, -64, 50)]
        else:
            x0 = min(max(ex - tw / 2, panel.x + 4), panel.x + panel.w - 4 - tw)
            y0 = panel.y + 4 if side == "top" else panel.y + panel.h - 18
            spots = [(min(max(ex + 6, panel.x + 4), panel.x + panel.w - 4 - tw), y0),
                     (min(max(ex - 6 - tw, panel.x + 4), panel.x + panel.w - 4 - tw), y0), (x0, y0)]
        notes = [box for box, _ in self.notes]
        boxes = [(x, min(max(y, panel.y + 2), panel.y + panel.h - 16), tw, 14) for x, y in spots]
        # first where it leaves a city room for its label beside its marker, else just clear of the markers
        for rx, ry in ((40.0, 30.0), (24.0, 12.0), (0.0, 0.0)):
            taken = [(m[0] - rx, m[1] - ry, m[2] + 2 * rx, m[3] + 2 * ry) for m in marks] + notes
            found = next((b for b in boxes if not any(_hit(b, m) for m in taken)), None)
            if found:
                return found
        return boxes[0]

    def _place_labels(self, ids: tuple, names: tuple, players: int) -> dict:
        """A box for each city's label block (name as the reader reads it, exhibit, pawns): beside, above
        or below its marker, within its panel, clear of every marker, the legend and the notes, and no
        two within LABEL_GAP of each other; of those arrangements the cheapest found (_arrange), a place
        costing more the farther it stands from its marker, the more routes it covers, and most when
        another city's marker is nearer to it than its own (a label between two cities reads as the
        wrong one's: Holyhead's stood under Dublin's marker, Cardiff's between Swansea and Bristol)."""
        markers = {c: self.marker_box(c) for c in self.pos}
        lines = [[(rt["pts"][i], rt["pts"][i + 1]) for i in range(len(rt["pts"]) - 1)] for rt in self.routes]
        spans = [_span(pts) for pts in ([p for seg in segs for p in seg] for segs in lines)]
        obstacles = self._obstacles()
        cands: dict[str, list] = {}
        gaps = (2.0, 8.0, 16.0, 28.0, 40.0, 54.0, 70.0) if self.narrow else (2.0, 8.0, 16.0, 28.0, 40.0)
        for c, name in zip(ids, names):
            x, y = self.pos[c]
            bw, bh = self.block(name, players)
            panel = self.panels[self.panel_of.get(c, 0)]
            opts = []
            for gap in gaps:
                g = MARKER_R + gap
                spots = []
                for f, pref in ((0.3, 0), (0.5, 1), (0.7, 1), (0.1, 1), (0.9, 1)):  # beside: f of it above the marker
                    spots += [(x + g, y - bh * f, pref), (x - g - bw, y - bh * f, pref)]
                for f, pref in ((0.5, 1), (0.2, 1), (0.8, 1), (0.05, 2), (0.95, 2)):  # above, below: f of it left
                    spots += [(x - bw * f, y - g - bh, pref + 1), (x - bw * f, y + g, pref)]
                spots += [(x + g * 0.7, y + g * 0.7, 2), (x - g * 0.7 - bw, y + g * 0.7, 2),
                          (x + g * 0.7, y - g * 0.7 - bh, 3), (x - g * 0.7 - bw, y - g * 0.7 - bh, 3)]
                for bx, by, pref in spots:
                    box = (bx, by, bw, bh)
                    if not _within(box, panel.rect()) or any(_hit(box, o) for o in obstacles):
                        continue
                    if any(_hit(box, m) for m in markers.values()):
                        continue
                    own = _dist(box, (x, y))
                    nearest = min((_dist(box, p) for k, p in self.pos.items() if k != c), default=own + 99)
                    crossed = sum(1 for segs, span in zip(lines, spans)
                                  if _hit(box, span, 0) and any(_cuts(box, seg) for seg in segs))
                    cost = gap * 3 + pref + crossed * 12 + (60 if nearest < own + 4 else 0)
                    opts.append((cost, box))
            opts.sort(key=lambda o: o[0])
            cands[c] = opts[:CANDIDATES]
        order = sorted(ids, key=lambda c: (len(cands[c]), c))
        chosen: dict[str, tuple] = {}

        def free(box: tuple, skip: tuple = ()) -> bool:
            return not any(_hit(box, o, LABEL_GAP) for k, o in chosen.items() if k not in skip)

        chosen.update(_arrange(cands))
        _improve(chosen, cands, free)
        for c in order:  # a group with no clean arrangement: the best effort, greedily
            if c not in chosen:
                ok = [b for _, b in cands[c] if free(b)]
                x, y = self.pos[c]
                bw, bh = self.block(names[ids.index(c)], players)
                chosen[c] = (ok or [b for _, b in cands[c]] or [(x + 10, y - bh / 2, bw, bh)])[0]
        return chosen


def _arrange(cands: dict[str, list], budget: int = 4000) -> dict[str, tuple]:
    """A box for each city out of its candidates ((cost, box), cheapest first), no two within LABEL_GAP
    of each other, the cheapest arrangement found: cities whose labels can never meet are arranged apart
    (a map's groups of cities, a panel's), each group by a depth-first search that takes next the city
    with the fewest boxes still free, drops after each choice the boxes it rules out, and leaves a branch
    that cannot beat the best arrangement yet; at most ``budget`` choices a group. A group with no clean
    arrangement within them is left out of the answer."""
    boxes = [(c, b) for c in sorted(cands) for _k, b in cands[c]]
    costs = [k for c in sorted(cands) for k, _b in cands[c]]
    index = {c: [i for i, (k, _b) in enumerate(boxes) if k == c] for c in cands}
    reach = {c: _span([p for _k, b in cands[c] for p in ((b[0], b[1]), (b[0] + b[2], b[1] + b[3]))])
             for c in cands}
    near = {c: [k for k in cands if k != c and _hit(reach[c], reach[k], LABEL_GAP)] for c in cands}
    clash = [frozenset(j for k in near[c] for j in index[k] if _hit(b, boxes[j][1], LABEL_GAP))
             for c, b in boxes]
    groups: list[list[str]] = []
    seen: set[str] = set()
    for c in sorted(cands):
        if c not in seen:
            group, todo = [], [c]
            seen.add(c)
            while todo:
                k = todo.pop()
                group.append(k)
                for m in near[k]:
                    if m not in seen:
                        seen.add(m)
                        todo.append(m)
            groups.append(sorted(group))
    out: dict[str, tuple] = {}
    for group in groups:
        best: list = [float("inf"), None]
        left = [budget]
        path: dict[str, int] = {}

        def search(domains: dict[str, list], spent: float) -> None:
            if any(not dom for dom in domains.values()):  # a city with no place left at all
                return
            if not domains:
                if spent < best[0]:
                    best[0], best[1] = spent, dict(path)
                return
            bound = spent + sum(costs[dom[0]] for dom in domains.values())
            if bound >= best[0]:
                return
            c = min(domains, key=lambda k: (len(domains[k]), k))
            floor = bound - costs[domains[c][0]]
            for i in domains[c]:
                if left[0] <= 0 or floor + costs[i] >= best[0]:
                    return
                left[0] -= 1
                rest = {}
                for k, dom in domains.items():
                    if k != c:
                        rest[k] = [j for j in dom if j not in clash[i]]
                        if not rest[k]:
                            break
                else:
                    path[c] = i
                    search(rest, spent + costs[i])
                    del path[c]

        search({c: index[c] for c in group}, 0.0)
        if best[1] is not None:
            out.update({c: boxes[i][1] for c, i in best[1].items()})
    return out


def _improve(chosen: dict[str, tuple], cands: dict[str, list], free) -> None:
    """A clean arrangement made cheaper, a label at a time: each city's label to a cheaper free place;
    failing that, to a cheaper place that one other label is in the way of, if that other label has a
    place of its own left and the two together cost less than before."""
    cost = {c: {b: k for k, b in cands[c]} for c in cands}
    for _round in range(6):
        better = False
        for c in sorted(chosen, key=lambda k: (-cost[k][chosen[k]], k)):
            now = cost[c][chosen[c]]
            for k, box in cands[c]:
                if k >= now:
                    break
                if free(box, (c,)):
                    chosen[c], better = box, True
                    break
                blocking = [d for d, o in chosen.items() if d != c and _hit(box, o, LABEL_GAP)]
                if len(blocking) != 1:
                    continue
                d = blocking[0]
                old_c, old_d = chosen[c], chosen[d]
                chosen[c] = box
                del chosen[d]
                move = next(((kd, bd) for kd, bd in cands[d] if free(bd)), None)
                if move and k + move[0] < now + cost[d][old_d]:
                    chosen[d], better = move[1], True
                    break
                chosen[c], chosen[d] = old_c, old_d
        if not better:
            break


def _span(points) -> tuple[float, float, float, float]:
    """The box around ``points`` (an empty one far away for none)."""
    if not points:
        return (-1e9, -1e9, 0.0, 0.0)
    xs, ys = [p[0] for p in points], [p[1] for p in points]
    return (min(xs), min(ys), max(xs) - min(xs), max(ys) - min(ys))


def _cuts(box, seg) -> bool:
    """Whether segment ``seg`` passes through ``box`` (Liang-Barsky clipping)."""
    (x1, y1), (x2, y2) = seg
    x, y, w, h = box
    t0, t1 = 0.0, 1.0
    dx, dy = x2 - x1, y2 - y1
    for p, q in ((-dx, x1 - x), (dx, x + w - x1), (-dy, y1 - y), (dy, y + h - y1)):
        if p == 0:
            if q < 0:
                return False
        else:
            t = q / p
            if p < 0:
                t0 = max(t0, t)
            else:
                t1 = min(t1, t)
            if t0 > t1:
                return False
    return True


def _within(box, rect, margin: float = 2.0) -> bool:
    x, y, w, h = box
    rx, ry, rw, rh = rect
    return x >= rx + margin and y >= ry + margin and x + w <= rx + rw - margin and y + h <= ry + rh - margin


def _dist(box, point) -> float:
    """How far ``point`` lies from ``box`` (0 inside it)."""
    x, y, w, h = box
    px, py = point
    return math.hypot(max(x - px, 0.0, px - x - w), max(y - py, 0.0, py - y - h))


def _clip(ring: Sequence[float], box) -> list[float]:
    """A coastline ring (lon, lat, lon, lat ...) clipped to a box of longitudes and latitudes
    (Sutherland-Hodgman: the land inside, its edge along the box where it is cut)."""
    lon0, lat0, lon1, lat1 = box
    pts = [(ring[i], ring[i + 1]) for i in range(0, len(ring) - 1, 2)]
    def at_lon(p, q, lon):
        return (lon, p[1] + (q[1] - p[1]) * (lon - p[0]) / (q[0] - p[0]))

    def at_lat(p, q, lat):
        return (p[0] + (q[0] - p[0]) * (lat - p[1]) / (q[1] - p[1]), lat)

    for inside, cut in ((lambda p: p[0] >= lon0, lambda p, q: at_lon(p, q, lon0)),
                        (lambda p: p[0] <= lon1, lambda p, q: at_lon(p, q, lon1)),
                        (lambda p: p[1] >= lat0, lambda p, q: at_lat(p, q, lat0)),
                        (lambda p: p[1] <= lat1, lambda p, q: at_lat(p, q, lat1))):
        out = []
        for i, q in enumerate(pts):
            p = pts[i - 1]
            if inside(q):
                if not inside(p):
                    out.append(cut(p, q))
                out.append(q)
            elif inside(p):
                out.append(cut(p, q))
        pts = out
        if not pts:
            break
    return [v for p in pts for v in p]


def _apart(pos: dict, gap: float) -> dict:
    """Markers closer than ``gap`` (London and Paris on the world map) pushed apart, a few units."""
    pos = dict(pos)
    keys = sorted(pos)
    for _step in range(20):
        moved = False
        for i, a in enumerate(keys):
            for b in keys[i + 1:]:
                (ax, ay), (bx, by) = pos[a], pos[b]
                d = math.hypot(bx - ax, by - ay)
                if d < gap:
                    ux, uy = ((bx - ax) / d, (by - ay) / d) if d else (1.0, 0.0)
                    k = (gap - d) / 2 + 0.1
                    pos[a], pos[b] = (ax - ux * k, ay - uy * k), (bx + ux * k, by + uy * k)
                    moved = True
        if not moved:
            break
    return {c: (round(x, 1), round(y, 1)) for c, (x, y) in pos.items()}


def _hit(a, b, pad: float = 1.0) -> bool:
    return a[0] < b[0] + b[2] + pad and b[0] < a[0] + a[2] + pad and a[1] < b[1] + b[3] + pad and \
        b[1] < a[1] + a[3] + pad


@functools.lru_cache(maxsize=64)
def _geo(side: str, ids: tuple, names: tuple, routes: tuple, players: int, layout: str = "wide",
         notes: tuple | None = None, legend_lines: int = 0) -> Geo:
    return Geo(side, ids, names, routes, players, layout, notes, legend_lines)


# ---------------------------------------------------------------- moves -> elements

def _city_key(view: Mapping, word: str) -> str | None:
    w = re.sub(r"[\s_.'\"]+", "", word.lower())
    for c in view["cities"]:
        if w in (re.sub(r"[\s_.'\"]+", "", c["name"].lower()), c["id"].replace("_", "")):
            return c["id"]
    return None


def _cell_index(view: Mapping, word: str) -> int | None:
    m = re.fullmatch(r"f(\d+)c(\d+)", word.lower())
    if not m:
        return None
    lay = view["gallery_layout"]
    return (int(m.group(1)) - 1) * lay["columns"] + int(m.group(2)) - 1


_NOT_CARDS = frozenset({"none", "always"})  # the words of "offers none" and of the standing order "offers none always"


def targets(view: Mapping, moves: Sequence[str]) -> dict[tuple, list[str]]:
    """Each legal move (notation) on the element(s) it concerns: ("city", id), ("exhibit", city id),
    ("discard", token id), ("cell", idx), ("card", id), ("commission", id), ("commissions",),
    ("exhibition", type), ("bought",), ("panel",)."""
    out: dict[tuple, list[str]] = {}
    seat = view.get("seat")
    me = view["seats"][seat] if seat is not None and 0 <= seat < len(view["seats"]) else None

    def put(key: tuple, m: str) -> None:
        out.setdefault(key, []).append(m)

    for m in moves:
        words = m.split()
        if not words:
            continue
        verb = words[0].lower()
        rest = m[len(words[0]):].strip()
        if verb == "start":
            c = _city_key(view, rest)
            if c:
                put(("city", c), m)
        elif verb == "move":
            body = re.split(r"\s+pay\s+", rest)[0]
            c = _city_key(view, body.split("-")[-1])
            if c:
                put(("city", c), m)
        elif verb in ("buy", "sell"):
            here = _city_key(view, me["city"]) if me and me.get("city") else None
            if here:
                put(("exhibit", here), m)
            for w in words[2:] if len(words) > 2 and words[1].lower() == "offers" else ():
                if w.lower() not in _NOT_CARDS:
                    put(("card", w), m)
        elif verb == "offers":
            cards = [w for w in words[1:] if w.lower() not in _NOT_CARDS]
            for w in cards:
                put(("card", w), m)
            if not cards:
                put(("bought",), m)
        elif verb == "cell" and len(words) > 1:
            i = _cell_index(view, words[1])
            if i is not None:
                put(("cell", i), m)
            if len(words) > 3 and words[2].lower() == "take":
                put(("discard", words[3]), m)
        elif verb == "take" and len(words) > 1:
            put(("discard", words[1]), m)
            if len(words) > 3:
                i = _cell_index(view, words[3])
                if i is not None:
                    put(("cell", i), m)
        elif verb == "exhibit" and len(words) > 1:
            put(("exhibition", words[1]), m)
        elif verb == "accept":
            cards = [w for w in words[1:] if w.lower() != "none"]
            for w in cards:
                put(("card", w), m)
            if not cards:
                put(("commissions",), m)
        elif verb == "swap":
            if len(words) >= 4 and words[2].lower() == "for":
                put(("commission", words[1]), m)
                put(("card", words[3]), m)
            else:
                put(("commissions",), m)
        elif verb == "board":
            put(("panel",), m)
    return out


# ---------------------------------------------------------------- drawing

class Drawing:
    def __init__(self, view: Mapping[str, Any], moves: Sequence[str], layout: str = "wide") -> None:
        self.v = view
        self.n = len(view["seats"])
        self.t = targets(view, moves)
        self.layout = layout
        ids = tuple(c["id"] for c in view["cities"])
        shown = tuple(texts.city(c["id"], c["name"]) for c in view["cities"])  # as the labels read
        by_name = {c["name"]: c["id"] for c in view["cities"]}
        routes = tuple((by_name[a], by_name[b], k) for a, b, k in view["routes"] if a in by_name and b in by_name)
        notes = tuple(_("to %(city)s", city=n) for n in shown)
        self.g = _geo(str(view.get("side")), ids, shown, routes, self.n, layout, notes,
                      sum(len(self.legend_lines(r["label"])) - 1 for r in view["regions"]))
        self.by_name = by_name
        self.side = str(view.get("side"))
        self._badges: list[tuple] = []

    def name(self, s: int) -> str:
        return seat_label(self.v, s)

    def open(self, svg: Svg, key: tuple | None, name: str, **a: Any) -> None:
        """A group named ``name`` (its title), clickable with the moves on element ``key``, if any."""
        ms = self.t.get(key, []) if key else []
        svg.open(data_moves=moves_attr(ms), **a)
        svg.title(name + (": " + "; ".join(dict.fromkeys(ms)) if ms else ""))

    # ------------------------------------------------------------ the whole
    def draw(self) -> str:
        if self.layout == "narrow":
            return self.draw_narrow()
        v = self.v
        g = self.g
        status = name_seats(str(v["status"]), v.get("names"))
        svg = Svg(W, 100, id_prefix="sq")
        # header
        y = 30.0
        side = texts.side(str(v.get("side")), str(v.get("side_name", "")))
        svg.text(PAD, y, _("Squire — %(side)s", side=side), size=20, weight="bold")
        svg.text(PAD, y + 22, fit(status, 150), size=14, fill=INK)
        y += 34
        map_x, map_y = PAD, y
        self.map(svg, map_x, map_y)
        if self.side == "british" and g.w < W - 2 * PAD - 300:
            cx, cw = map_x + g.w + 16, W - PAD - (map_x + g.w + 16)
            cy = self.column(svg, cx, map_y, cw, [self.market, self.exhibitions, self.discard, self.hand,
                                                  self.bonuses])
            y = max(map_y + g.h, cy) + 14
        else:
            y = map_y + g.h + 14
            half = (W - 2 * PAD - 16) / 2
            y1 = self.column(svg, PAD, y, half, [self.market, self.exhibitions])
            y2 = self.column(svg, PAD + half + 16, y, half, [self.discard, self.hand, self.bonuses])
            y = max(y1, y2) + 6
        y = self.players(svg, PAD, y, W - 2 * PAD)
        if v.get("outcome"):
            y = self.scores(svg, PAD, y, W - 2 * PAD)
        svg.height = y + PAD
        svg.parts.insert(0, f'<rect x="0" y="0" width="{W}" height="{num(svg.height)}" fill="{PAPER}"/>')
        return svg.finish(_("Squire — %(side)s", side=status), self.desc(status))

    def draw_narrow(self) -> str:
        """The same parts in one column NARROW_WIDTH wide, for a phone: the map (what a turn acts on),
        the viewer's own panel and message cards, the exhibitions and the discard (what the later steps
        of a turn pick), the other players, then the market, the gallery bonuses and the map's legend.
        A finished game's scores come first. Each part is a band of its own (drawing.Svg.placed), drawn
        from its own top, the map a band per panel: the mail renders a picture band by band and keeps the
        bands (pbem/mail/pictures.py), so a move renders again the few parts it changed, and the parts
        every seat sees alike once for all the seats."""
        v = self.v
        status = name_seats(str(v["status"]), v.get("names"))
        svg = Svg(NARROW_WIDTH, 100, id_prefix="sq")
        x, w = float(NPAD), float(NARROW_WIDTH - 2 * NPAD)
        side = texts.side(str(v.get("side")), str(v.get("side_name", "")))
        # every symbol the column may use, defined at once in one order (a few hundred bytes): defined as
        # they are first used they came in another order for a seat whose own panel (drawn first) shows
        # another exhibit type, or once the star is shown; so every seat's drawing, and each move's, has
        # the same definitions, and a band differs from another seat's only where what it shows does
        for name in ("pawn", "star", "coin", "ticket"):
            svg.symbol(f"icon-{name}", "0 0 20 20", ICONS[name])
        for t, body in TYPE_GLYPHS.items():
            svg.symbol(f"type-{t}", "0 0 20 20", body)
        svg.band(0)
        y = svg.lines(x, 24, _lines_w(_("Squire — %(side)s", side=side), w, 17), size=17, gap=21,
                      weight="bold") - 21
        y = svg.lines(x, y + 19, wrap(status, int(w / 7.6)), size=13, gap=16, fill=INK) - 16 + 10

        # each part stands at a whole unit, a whole pixel at the mail's widths: its band's pixels are then
        # the whole drawing's (text drawn without anti-aliasing snaps to pixels: a band a fraction of a
        # pixel off moved a letter's edge); the gap above a part is a fraction of a unit wider for it
        def part(y: float, draw) -> float:
            """One part of the column as a band of its own, drawn from its own top, and 12 under it."""
            return svg.placed(math.ceil(y), lambda top: top + draw(svg, x, top, w)) + 12

        if v.get("outcome"):
            y = svg.placed(math.ceil(y), lambda top: self.scores(svg, x, top, w) + 4)
        y = self.map_panels(svg, x, math.ceil(y)) + 12
        seat = v.get("seat")
        mine = seat if seat is not None and 0 <= seat < self.n else None
        if mine is not None:
            y = part(y, lambda svg, x, top, w: self.player(svg, mine, x, top, w) - top)
        # the column of hand, exhibitions and discard, a part each (the hand is the viewer's alone)
        if mine is not None and "hand" in v["seats"][mine]:
            y = part(y, self.hand)
        y = part(y, self.exhibitions)
        y = part(y, self.discard)
        for s in range(self.n):
            if s != mine:
                y = part(y, lambda svg, x, top, w, s=s: self.player(svg, s, x, top, w) - top)
        for draw in (self.market, self.bonuses, self.key):
            y = part(y, draw)
        # a whole unit too: resvg rounds a drawing's height to one, the bands' renderer takes the whole
        # drawing's last rows as rounded up
        svg.height = math.ceil(y - 12 + NPAD + 4)
        svg.parts.insert(0, f'<rect x="0" y="0" width="{NARROW_WIDTH}" height="{num(svg.height)}" fill="{PAPER}"/>')
        return svg.finish(_("Squire — %(side)s", side=status), self.desc(status))

    def desc(self, status: str) -> str:
        v = self.v
        side = _("%(side)s side", side=texts.side(str(v.get("side")), str(v.get("side_name", ""))))
        bits = []
        out = v.get("outcome")
        if out:
            scores = ", ".join(f"{self.name(s)} {out['scores'][s]}" for s in out["ranking"])
            bits.append(_("Final scores: %(scores)s.", scores=scores))
        else:
            where = [_("%(player)s in %(city)s", player=self.name(s), city=_cn(v, p["city"]))
                     for s, p in enumerate(v["seats"]) if p.get("city")]
            vals = [f"{self.name(s)} {sum(e['value'] for e in p['gallery'] if e)}" for s, p in enumerate(v["seats"])]
            if where:
                bits.append(_("Pawns: %(where)s.", where=", ".join(where)))
            bits.append(_("Gallery values: %(values)s.", values=", ".join(vals)))
        n = v.get("supply_count", 0)
        return (ngettext("%(status)s. %(side)s, %(num)d exhibits left in the supply. ",
                         "%(status)s. %(side)s, %(num)d exhibits left in the supply. ", n, status=status, side=side)
                + " ".join(bits))

    def column(self, svg: Svg, x: float, y: float, w: float, parts) -> float:
        for part in parts:
            h = part(svg, x, y, w)
            if h:
                y += h + 12
        return y

    def heading(self, svg: Svg, x: float, y: float, text: str) -> None:
        svg.text(x, y + 14, text, size=14, weight="bold")

    # ------------------------------------------------------------ the map
    def map(self, svg: Svg, ox: float, oy: float) -> None:
        svg.open(id=svg.id("map"), transform=f"translate({num(ox)} {num(oy)})")
        self.map_body(svg, self.map_badges(), None)
        svg.close()

    def map_panels(self, svg: Svg, ox: float, oy: float) -> float:
        """The narrow map at ``ox, oy``, each panel a band of its own (drawing.Svg.placed) drawn from its
        own top: a pawn's move redraws the panels it changed, the others are kept. The panels lie
        PANEL_GAP apart and nothing of one reaches into another (labels, notes and badges stay within
        their panel), so they are drawn panel by panel. Returns the map's bottom."""
        badges = self.map_badges()  # all of them first: where one stands depends on those before it
        bottom = oy
        for i, panel in enumerate(self.g.panels):
            # moved by whole units, as every part of the column (see draw_narrow): the panel's top lies
            # less than a unit above its band's, the cut two units above that is still in the gap
            dy = math.ceil(round(panel.y, 1))

            def draw(top: float, i: int = i, dy: int = dy) -> float:
                svg.open(id=svg.id("map" if i == 0 else f"map-{i + 1}"),
                         transform=f"translate({num(ox)} {num(top - dy)})")
                self.map_body(svg, badges, i)
                svg.close()
                return top - dy + self.g.panels[i].y + self.g.panels[i].h

            bottom = svg.placed(oy + dy, draw)
        return bottom

    def _panel_at(self, y: float) -> int:
        """The panel of the map that a point at height ``y`` (in the map) lies in, or nearest to."""
        panels = self.g.panels
        return min(range(len(panels)), key=lambda i: max(panels[i].y - y, y - panels[i].y - panels[i].h, 0.0))

    def map_badges(self) -> list[tuple[float, float, str, str, int]]:
        """Each route's ticket badge: where it stands, the route's name, its kind and its panel."""
        v, g = self.v, self.g
        names = {c["id"]: c["name"] for c in v["cities"]}
        return [self._badge_at(r["pts"]) + (f"{_cn(v, names[r['a']])}–{_cn(v, names[r['b']])}", r["kind"],
                                            self._panel_at(r["pts"][0][1]))
                for r in g.routes]

    def map_body(self, svg: Svg, badges: list[tuple], only: int | None) -> None:
        """The map's insides in its own units: every panel's, or panel ``only``'s."""
        g, v = self.g, self.v
        for i, (panel, rings) in enumerate(zip(g.panels, g.rings)):
            if only is not None and i != only:
                continue
            svg.rect(panel.x, panel.y, panel.w, panel.h, fill=SEA if g.real else "#F4F1E8", stroke=COAST, rx=4)
            if rings:
                d = " ".join("M" + " L".join(f"{num(x)} {num(y)}" for x, y in ring) + " Z" for ring in rings)
                svg.path(d, fill=LAND, stroke=COAST, stroke_width=1, fill_rule="evenodd", stroke_linejoin="round")
        # routes, then their costs
        for r, b in zip(g.routes, badges):
            if only is not None and b[4] != only:
                continue
            sea = r["kind"] == "sea"
            svg.path(r["d"], fill="none", stroke=SEA_ROUTE if sea else LAND_ROUTE, stroke_width=2.2 if sea else 2.6,
                     stroke_dasharray="7 5" if sea else None, stroke_linecap="round")
        for box, text in g.notes:
            if only is None or self._panel_at(box[1]) == only:
                svg.text(box[0], box[1] + 11, text, size=11, fill=SEA_ROUTE, weight="bold")
        if g.legend:
            self.legend(svg, *g.legend)
        for c in v["cities"]:
            if only is None or g.panel_of.get(c["id"], 0) == only:
                self.city(svg, c)
        for bx, by, label, kind, i in badges:
            if only is not None and i != only:
                continue
            svg.open()
            svg.title(_(_ROUTE_TITLES[kind], route=label) if kind in _ROUTE_TITLES else
                      f"{label}: {kind} route, 1 ticket a step")
            self.badge(svg, bx, by, kind)
            svg.close()

    def badge(self, svg: Svg, x: float, y: float, kind: str) -> None:
        ink = SEA_ROUTE if kind == "sea" else LAND_ROUTE
        svg.rect(x - 7, y - 7.5, 14, 15, rx=3, fill="#FFFFFF", stroke=ink, stroke_width=1.3)
        svg.text(x, y + 4, "1", size=11, anchor="middle", weight="bold", fill=ink)

    def _badge_at(self, pts) -> tuple[float, float]:
        """Where a route's ticket badge goes: on the route, as near its middle as is clear of the labels,
        the markers, the legend, the notes and the other badges; else beside its middle; else on the
        route clear of the labels, the markers and the other badges; else clear of the labels and markers
        at least (a badge on a label read as part of it)."""
        g = self.g
        cities = list(g.labels.values()) + [g.marker_box(c) for c in g.pos]
        firm = cities + g._obstacles()

        def at(t: float) -> tuple[float, float]:
            f = t * (len(pts) - 1)
            i = min(int(f), len(pts) - 2)
            (x1, y1), (x2, y2) = pts[i], pts[i + 1]
            k = f - i
            return (x1 + (x2 - x1) * k, y1 + (y2 - y1) * k)

        def clear(x: float, y: float, avoid) -> bool:
            box = (x - 8, y - 8, 16, 16)
            return _within(box, g.panels[0].rect() if len(g.panels) == 1 else
                           next((p.rect() for p in g.panels if p.y <= y <= p.y + p.h), (0, 0, g.w, g.h)), 0) and \
                not any(_hit(box, o, 0) for o in avoid)

        along = sorted((i / 50 for i in range(5, 46)), key=lambda t: (abs(t - 0.5), t))
        for t in along:
            x, y = at(t)
            if clear(x, y, firm + self._badges):
                self._badges.append((x - 8, y - 8, 16, 16))
                return (x, y)
        # a route too short or too crowded: the badge beside its middle, else at its middle
        (x1, y1), (x2, y2) = pts[0], pts[-1]
        d = math.hypot(x2 - x1, y2 - y1) or 1.0
        mx, my = at(0.5)
        for off in (13, -13, 22, -22, 30, -30, 38, -38, 46, -46):
            x, y = mx - (y2 - y1) / d * off, my + (x2 - x1) / d * off
            if clear(x, y, firm + self._badges):
                self._badges.append((x - 8, y - 8, 16, 16))
                return (x, y)
        beside = [(px - (y2 - y1) / d * off, py + (x2 - x1) / d * off)
                  for px, py in (at(t) for t in (0.5, 0.35, 0.65, 0.2, 0.8))
                  for off in (13, -13, 22, -22, 30, -30, 38, -38, 46, -46, 56, -56)]
        for avoid in (cities + self._badges, cities):  # a note or the legend may be touched, a label never
            for x, y in [at(t) for t in along] + beside:
                if clear(x, y, avoid):
                    self._badges.append((x - 8, y - 8, 16, 16))
                    return (x, y)
        self._badges.append((mx - 8, my - 8, 16, 16))
        return (mx, my)

    @staticmethod
    def legend_lines(label: str) -> list[str]:
        """A region's name in the map's legend: in one line, or two where a translation is long."""
        return _lines_w(texts.region_label(label), 150, 11, bold=False)

    def legend(self, svg: Svg, x: float, y: float, w: float, h: float) -> None:
        """The map's legend in its box on the wide map: the regions, the routes, whose pawn is whose."""
        svg.rect(x, y, w, h, fill="#FFFFFF", fill_opacity=0.88, stroke=LINE, rx=4)
        yy = self.legend_regions(svg, x, y + 15)
        yy = self.legend_routes(svg, x, yy + 1)
        self.legend_pawns(svg, x, yy, 22)

    def legend_regions(self, svg: Svg, x: float, yy: float) -> float:
        for r in self.v["regions"]:
            svg.circle(x + 12, yy - 4, 5.5, fill=_region_colour(r["id"]), stroke="#FFFFFF", stroke_width=1.2)
            yy = svg.lines(x + 22, yy, self.legend_lines(r["label"]), size=11, gap=13) + 2
        return yy

    def legend_routes(self, svg: Svg, x: float, yy: float) -> float:
        svg.line(x + 6, yy - 4, x + 30, yy - 4, stroke=LAND_ROUTE, stroke_width=2.6)
        svg.text(x + 36, yy, _("land route"), size=11)
        yy += 15
        svg.line(x + 6, yy - 4, x + 30, yy - 4, stroke=SEA_ROUTE, stroke_width=2.2, stroke_dasharray="7 5")
        svg.text(x + 36, yy, _("sea route"), size=11)
        yy += 16
        self.badge(svg, x + 18, yy - 4, "land")
        svg.text(x + 36, yy, _("ticket a step"), size=11)
        return yy

    def legend_pawns(self, svg: Svg, x: float, yy: float, chars: int) -> float:
        for s in range(self.n):  # whose pawn is whose, on the map itself
            yy += 16
            icon(svg, "pawn", x + 8, yy - 13, 16, fill=colour(s), stroke="#FFFFFF", stroke_width=0.8)
            svg.text(x + 28, yy, fit(self.name(s), chars), size=11, weight="bold", fill=dark(s))
        return yy

    def key(self, svg: Svg, x: float, y: float, w: float) -> float:
        """The map's legend as a part of the narrow layout (the narrow map keeps its room for the
        labels): the regions in one column, the routes and the pawns in the other."""
        self.heading(svg, x, y, texts.side(str(self.v.get("side")), str(self.v.get("side_name", ""))))
        half = (w - 10) / 2
        top = y + 24
        y1 = self.legend_regions(svg, x, top + 12)
        y2 = self.legend_routes(svg, x + half + 10, top + 12)
        y2 = self.legend_pawns(svg, x + half + 10, y2, int((half - 30) / 7.2))
        return max(y1 - 13, y2) + 4 - y

    def city(self, svg: Svg, c: Mapping) -> None:
        v, g = self.v, self.g
        x, y = g.pos[c["id"]]
        bx, by, bw, bh = g.labels[c["id"]]
        region = texts.region_label(next((r["label"] for r in v["regions"] if r["id"] == c["region"]), c["region"]))
        here = [self.name(s) for s in c["here"]]
        ex = c.get("exhibit")
        cname = texts.city(c["id"], c["name"])
        name = f"{cname} ({region})"
        if ex:
            name += ngettext(", %(type)s %(value)d for %(num)d coin", ", %(type)s %(value)d for %(num)d coins",
                             ex["price"], type=_type_name(v, ex["type"]), value=ex["value"])
        if here:
            name += _(", here: %(players)s", players=", ".join(here))
        reach = next((r for r in (v.get("reach") or {}).get("cities", ()) if r["city"] == c["name"]), None)
        if reach:
            cost = [words(reach[k]) for k, words in (
                ("tickets", lambda n: ngettext("%(num)d ticket", "%(num)d tickets", n)),
                ("royal", lambda n: ngettext("%(num)d royal ticket", "%(num)d royal tickets", n)),
                ("free", lambda n: ngettext("%(num)d free step", "%(num)d free steps", n))) if reach.get(k)]
            path = "-".join(_cn(v, x) for x in reach["path"])
            name += (_("; you can move here via %(path)s for %(cost)s", path=path, cost=", ".join(cost)) if cost
                     else _("; you can move here via %(path)s", path=path))
        cw = max(_bold_w(cname, NAME_SIZE), (CHIP_W if ex else 0) + len(c["here"]) * PAWN + 4) + 6
        near_x, near_y = min(max(x, bx), bx + cw), min(max(y, by), by + bh)
        self.open(svg, ("city", c["id"]), name, id=svg.id("city-" + c["id"]))
        if math.hypot(near_x - x, near_y - y) > MARKER_R + 6:
            svg.line(x, y, near_x, near_y, stroke=MUTED, stroke_width=1)
        svg.rect(bx, by, cw, bh, fill="#FFFFFF", fill_opacity=0.85, rx=3)
        if reach:
            svg.circle(x, y, MARKER_R + 4, fill="none", stroke=dark(v["seat"]), stroke_width=2.2)
        svg.circle(x, y, MARKER_R, fill=_region_colour(c["region"]), stroke="#FFFFFF", stroke_width=1.8,
                   class_="city")
        svg.text(bx + 3, by + NAME_SIZE, cname, size=NAME_SIZE, weight="bold", class_="city-label")
        svg.close()
        cy = by + NAME_SIZE + 4
        if ex:
            self.open(svg, ("exhibit", c["id"]), ngettext("%(type)s %(value)d in %(city)s, price %(num)d coin",
                                                          "%(type)s %(value)d in %(city)s, price %(num)d coins",
                                                          ex["price"], type=_type_name(v, ex["type"]),
                                                          value=ex["value"], city=cname), id=svg.id("ex-" + c["id"]))
            self.chip(svg, bx + 3, cy, ex)
            icon(svg, "coin", bx + 34, cy + 2.5, 12, fill="#E0B43A")
            svg.text(bx + 48, cy + 13, str(ex["price"]), size=12, weight="bold")
            svg.close()
        px = bx + 3 + (CHIP_W if ex else 0)
        for s in c["here"]:
            icon(svg, "pawn", px - 2, cy + 1, PAWN + 5, fill=colour(s), stroke="#FFFFFF", stroke_width=0.8)
            px += PAWN

    def chip(self, svg: Svg, x: float, y: float, ex: Mapping, w: float = 28) -> None:
        svg.rect(x, y, w, CHIP_H, rx=3, fill=_type_colour(ex["type"]))
        glyph(svg, ex["type"], x + 2.5, y + 2.5, 12, _type_ink(ex["type"]))
        svg.text(x + w - 8, y + 12.5, str(ex["value"]), size=12, anchor="middle", weight="bold",
                 fill=_type_ink(ex["type"]))

    # ------------------------------------------------------------ side panels
    def market(self, svg: Svg, x: float, y: float, w: float) -> float:
        v = self.v
        mt, mr = v["market"]["types"], v["market"]["regions"]
        self.heading(svg, x, y, _("Market: price = type + region"))
        yy = y + 26
        cw = (w - 40) / 2
        svg.text(x + 34, yy + 10, _("types"), size=11, fill=MUTED)
        svg.text(x + 40 + cw, yy + 10, _("regions"), size=11, fill=MUTED)
        yy += 16
        labels = {r["id"]: texts.region_label(r["label"]) for r in v["regions"]}
        for i in range(len(mt)):
            t, r = mt[i][0], mr[i][0]
            # a name too long for its bar (a translated region) takes two lines instead of an ellipsis
            tname, rname = _type_name(v, t), labels.get(r, r)
            tlines = [tname] if _bold_w(tname, 12) <= cw - 28 else _lines_w(tname, cw - 28, 11)
            rlines = [rname] if _bold_w(rname, 12) <= cw - 10 else _lines_w(rname, cw - 10, 11)
            rows = max(len(tlines), len(rlines))
            h = 20 if rows == 1 else 6 + 13 * rows
            svg.rect(x, yy, 26, h, fill="#FFFFFF", stroke=LINE, rx=3)
            svg.text(x + 13, yy + h / 2 + 5, str(mt[i][1]), size=13, anchor="middle", weight="bold")
            svg.rect(x + 32, yy, cw - 4, h, fill=_type_colour(t), rx=3)
            glyph(svg, t, x + 36, yy + h / 2 - 7, 14, _type_ink(t))
            for lines, lx, fill, bar in ((tlines, x + 56, _type_ink(t), None),
                                         (rlines, x + 42 + cw, INK if r in YELLOWISH else "#FFFFFF", r)):
                if bar:
                    svg.rect(x + 36 + cw, yy, cw, h, fill=_region_colour(bar), rx=3)
                if len(lines) == 1:
                    svg.text(lx, yy + h / 2 + 5, lines[0], size=12, weight="bold", fill=fill)
                else:
                    svg.lines(lx, yy + 14, lines, size=11, gap=13, weight="bold", fill=fill)
            yy += h + 4
        return yy - y

    def exhibitions(self, svg: Svg, x: float, y: float, w: float) -> float:
        v = self.v
        tok = v.get("exhibition_token")
        who = _("token: %(player)s", player=self.name(tok)) if tok is not None else _("token: on the board")
        last = v.get("last_exhibition")
        self.heading(svg, x, y, _("Exhibitions"))
        note = _("%(who)s; last: %(last)s", who=who, last=_type_name(v, last) if last else _("none yet"))
        yy = y + 24
        if 100 + _text_w(note, 11, False) <= w:
            svg.text(x + 100, y + 14, note, size=11, fill=MUTED)
        else:  # a narrow column: under the heading
            yy = svg.lines(x, y + 34, _lines_w(note, w, 11, False), size=11, gap=14, fill=MUTED) - 6
        for row in v.get("exhibitions") or []:
            if row["host"] is None:
                continue
            rname = _type_name(v, row["type"]) if not texts.english() else row["name"]
            host, oth = texts.bonus(row["host"]), texts.bonus(row["others"])
            self.open(svg, ("exhibition", row["type"]), _("Exhibit %(type)s: host %(host)s; others %(others)s",
                                                          type=rname, host=host, others=oth),
                      id=svg.id("exh-" + row["type"]))
            hosts, others = _("host: %(host)s", host=host), _("others: %(others)s", others=oth)
            if _bold_w(rname, 12) + _text_w(others, 11, False) + 28 <= w and _text_w(hosts, 11, False) + 16 <= w:
                svg.rect(x, yy, w, 30, fill="#FFFFFF", stroke=LINE, rx=3)
                svg.rect(x, yy, 6, 30, fill=_type_colour(row["type"]), rx=2)
                svg.text(x + 12, yy + 13, rname, size=12, weight="bold")
                svg.text(x + 12, yy + 26, hosts, size=11)
                svg.text(x + w - 6, yy + 13, others, size=11, anchor="end", fill=MUTED)
                h = 30.0
            else:  # a narrow column: the name, then what the host and the others get, each on its own lines
                hl, ol = _lines_w(hosts, w - 18, 11, False), _lines_w(others, w - 18, 11, False)
                h = 10 + 13 + 13 * (len(hl) + len(ol))
                svg.rect(x, yy, w, h, fill="#FFFFFF", stroke=LINE, rx=3)
                svg.rect(x, yy, 6, h, fill=_type_colour(row["type"]), rx=2)
                svg.text(x + 12, yy + 14, rname, size=12, weight="bold")
                ly = svg.lines(x + 12, yy + 27, hl, size=11, gap=13)
                svg.lines(x + 12, ly, ol, size=11, gap=13, fill=MUTED)
            svg.close()
            yy += h + 4
        return yy - y

    def discard(self, svg: Svg, x: float, y: float, w: float) -> float:
        v = self.v
        dis = v.get("exhibit_discard") or []
        head = _("Exhibit discard (%(num)d)", num=len(dis))
        self.heading(svg, x, y, head)
        note = ngettext("supply %(supply)d · deck %(num)d cards", "supply %(supply)d · deck %(num)d cards",
                        v.get("deck_count", 0), supply=v.get("supply_count", 0))
        yy = y + 24
        if _bold_w(head, 14) + 12 + _text_w(note, 11, False) <= w:
            svg.text(x + w, y + 14, note, size=11, anchor="end", fill=MUTED)
        else:  # a narrow column: under the heading
            svg.text(x, y + 32, note, size=11, fill=MUTED)
            yy += 14
        per = max(1, int((w + 4) // 34))
        for i, ex in enumerate(dis):
            cx, cy = x + (i % per) * 34, yy + (i // per) * 22
            # the one tooltip with an exhibit's id: a player takes one from the discard by it (take <id>)
            self.open(svg, ("discard", ex["id"]), _("%(type)s %(value)d (%(token)s) in the exhibit discard",
                                                   type=_type_name(v, ex["type"]), value=ex["value"], token=ex["id"]),
                      id=svg.id("dis-" + ex["id"]))
            self.chip(svg, cx, cy, ex, w=30)
            svg.close()
        rows = (len(dis) + per - 1) // per
        yy += rows * 22 + (0 if dis else 4)
        md = v.get("message_discard") or []
        lines = wrap(_("Message discard: %(cards)s", cards=", ".join(md) if md else _("empty")), int(w / 6.6))
        yy = svg.lines(x, yy + 12, lines, size=11, fill=MUTED, gap=14) - 14
        return yy - y + 4

    def hand(self, svg: Svg, x: float, y: float, w: float) -> float:
        v = self.v
        seat = v.get("seat")
        if seat is None or not (0 <= seat < self.n) or "hand" not in v["seats"][seat]:
            return 0
        hand = v["seats"][seat]["hand"]
        self.open(svg, ("bought",) if not v.get("bought") else None, _("Your message cards"))
        self.heading(svg, x, y, _("Your message cards (%(num)d)", num=len(hand)) if hand else
                     _("Your message cards: none"))
        svg.close()
        yy = y + 24
        chars = int((w - 16) / 6.6)
        for card in hand:
            offer = wrap(_("Offer: %(offer)s", offer=texts.offer(card["offer"])), chars)
            comm = wrap(_("Commission: %(text)s", text=texts.commission(card["commission"])), chars)
            h = 20 + 14 * (len(offer) + len(comm)) + 4
            self.open(svg, ("card", card["id"]), _("Message card %(card)s", card=card["id"]),
                      id=svg.id("card-" + card["id"]))
            svg.rect(x, yy, w, h, fill="#FFFDF6", stroke=dark(seat), rx=4)
            svg.text(x + 8, yy + 15, card["id"], size=12, weight="bold", fill=dark(seat))
            ly = svg.lines(x + 8, yy + 30, offer, size=11, gap=14)
            svg.lines(x + 8, ly, comm, size=11, gap=14, fill=MUTED)
            svg.close()
            yy += h + 6
        return yy - y

    def bonuses(self, svg: Svg, x: float, y: float, w: float) -> float:
        """The gallery's bonuses, once for every gallery below (the cells show the halls' own)."""
        lay = self.v["gallery_layout"]
        rows = [_("Floor %(num)d full: %(bonus)s", num=f + 1, bonus=texts.bonus(b))
                for f, b in enumerate(lay["floor_bonus"]) if b and b != "-"]
        rows += [_("Column %(num)d full: %(bonus)s", num=j + 1, bonus=texts.bonus(b))
                 for j, b in enumerate(lay["column_bonus"]) if b and b != "-"]
        rows.append(_("In a cell: its hall bonus when filled (c coins, t tickets; RT/RC royal)"))
        self.heading(svg, x, y, _("Gallery bonuses"))
        lines = [ln for r in rows for ln in wrap(r, int(w / 6.6))]
        return svg.lines(x, y + 36, lines, size=11, gap=14, fill=MUTED) - 14 - y

    # ------------------------------------------------------------ players
    def players(self, svg: Svg, x: float, y: float, w: float) -> float:
        n = self.n
        if not n:
            return y
        per = n if n <= 4 else 3
        pw = (w - (per - 1) * 10) / per
        bottom = y
        for s in range(n):
            px = x + (s % per) * (pw + 10)
            py = y if s < per else bottom + 10
            bottom = max(bottom, self.player(svg, s, px, py, pw))
        return bottom + 10

    def player(self, svg: Svg, s: int, x: float, y: float, w: float) -> float:
        v = self.v
        p = v["seats"][s]
        mine = v.get("seat") == s
        top = y
        svg.rect(x, y, w, 30, fill=tint(s), rx=4)
        head = self.name(s) + (_(" (you)") if mine else "")
        icon(svg, "pawn", x + 6, y + 5, 20, fill=colour(s), stroke="#FFFFFF", stroke_width=1)
        right = 0.0
        if p.get("exhibition_token"):
            icon(svg, "star", x + w - 24, y + 6, 18, fill="#E0B43A")
            right = 26
        if mine and self.t.get(("panel",)):
            self.open(svg, ("panel",), _("%(player)s: choose a board", player=self.name(s)))
            svg.rect(x, y, w, 30, fill="none", stroke=dark(s), rx=4)
            svg.close()
        svg.text(x + 32, y + 20, fit(head, int((w - 40 - right) / (15 * 0.68))), size=15, weight="bold",
                 fill=dark(s))
        y += 30
        char = f"{texts.character(p['character'])} [{board_name(p['board'])}]" if p.get("board") else _("no board yet")
        where = _(", in %(city)s", city=_cn(v, p["city"])) if p.get("city") else ""
        chars = int((w - 12) / 6.6)
        y = svg.lines(x + 6, y + 16, wrap(char + where, chars)[:2], size=12, gap=15)
        if p.get("ability"):
            ability = texts.ability(p["ability"])
            per = 6.0 if ability.isascii() else 6.7  # Cyrillic letters run wider than Latin ones at 11 px
            y = svg.lines(x + 6, y, wrap(ability, int((w - 12) / per))[:3], size=11, gap=13, fill=MUTED)
        # money and cards
        y += 2
        # each count agrees with its words; the royal ones with their own number (a coin and a ticket may differ
        # in gender: two messages)
        coins = ngettext("%(coins)s + %(num)d royal", "%(coins)s + %(num)d royal", p["royal_coins"],
                         coins=ngettext("%(num)d coin", "%(num)d coins", p["coins"]))
        tickets = ngettext("%(tickets)s + %(num)d royal", "%(tickets)s + %(num)d royal", p["royal_tickets"],
                           tickets=ngettext("%(num)d ticket", "%(num)d tickets", p["tickets"]))
        for ic, fillc, text in (("coin", "#E0B43A", coins), ("ticket", "#8FB8D8", tickets)):
            icon(svg, ic, x + 6, y, 16, fill=fillc, stroke=INK, stroke_width=0.6)
            svg.text(x + 26, y + 13, text, size=12)
            y += 19
        svg.text(x + w - 6, y - 25, _("cards %(num)d/%(limit)d", num=p["hand_count"], limit=p["hand_limit"]), size=12,
                 anchor="end")
        y += 3
        bought = v.get("bought")
        if bought and v.get("active") == s:
            # named by its type and value: its id is notation, shown only where a player types it (the discard)
            self.open(svg, ("bought",) if mine else None, _("%(type)s %(value)d, bought, to be placed",
                                                            type=_type_name(v, bought["type"]), value=bought["value"]),
                      id=svg.id("bought"))
            label = _("Bought, to place:")
            svg.text(x + 6, y + 13, label, size=12)
            self.chip(svg, x + 6 + _w(label, 12) + 6, y, bought)
            svg.close()
            y += 22
        gal = [e for e in p["gallery"] if e]
        svg.text(x + 6, y + 12, ngettext("Gallery: %(num)d exhibit, %(vp)d VP", "Gallery: %(num)d exhibits, %(vp)d VP",
                                         len(gal), vp=sum(e["value"] for e in gal)), size=12,
                 weight="bold")
        y += 18
        y = self.gallery(svg, s, x + 6, y, w - 12)
        # commissions
        comms = p.get("commissions") or []
        self.open(svg, ("commissions",) if mine else None, _("%(player)s: commissions", player=self.name(s)))
        svg.text(x + 6, y + 13, _("Commissions %(num)d/%(limit)d", num=len(comms), limit=p["commission_limit"]) if comms
                 else _("Commissions %(num)d/%(limit)d: none", num=len(comms), limit=p["commission_limit"]),
                 size=12, weight="bold")
        svg.close()
        y += 17
        for c in comms:
            key = ("commission", c["id"]) if mine else None
            ctext = texts.commission(c["text"])
            rows = wrap(f"{c['id']}: {ctext}", chars)
            self.open(svg, key, _("Commission %(card)s: %(text)s", card=c["id"], text=ctext),
                      id=svg.id(f"comm-{s}-{c['id']}"))
            y = svg.lines(x + 6, y + 12, rows, size=11, gap=14) - 12
            svg.close()
            y += 2
        y += 6
        svg.rect(x, top, w, y - top, fill="none", stroke=colour(s), stroke_width=1.5, rx=4)
        return y

    def gallery(self, svg: Svg, s: int, x: float, y: float, w: float) -> float:
        v = self.v
        p = v["seats"][s]
        lay = v["gallery_layout"]
        floors, cols = lay["floors"], lay["columns"]
        lab = 20
        cw = min(64.0, (w - lab) / cols)
        ch = 32
        mine = v.get("seat") == s
        for f in range(floors - 1, -1, -1):
            ry = y + (floors - 1 - f) * (ch + 3)
            svg.text(x, ry + 21, f"F{f + 1}", size=11, fill=MUTED)
            for j in range(cols):
                i = f * cols + j
                cx = x + lab + j * cw
                ex = p["gallery"][i]
                cell = f"F{f + 1}C{j + 1}"
                key = ("cell", i) if mine else None
                if ex:
                    self.open(svg, key, _("%(player)s's gallery %(cell)s: %(type)s %(value)d",
                                          player=self.name(s), cell=cell, type=_type_name(v, ex["type"]),
                                          value=ex["value"]))
                    svg.rect(cx, ry, cw - 3, ch, rx=3, fill=_type_colour(ex["type"]))
                    glyph(svg, ex["type"], cx + (cw - 3) / 2 - 19, ry + 7, 18, _type_ink(ex["type"]))
                    svg.text(cx + (cw - 3) / 2 + 9, ry + 22, str(ex["value"]), size=15, anchor="middle",
                             weight="bold", fill=_type_ink(ex["type"]))
                else:
                    hall = lay["halls"][i]
                    self.open(svg, key, _("%(player)s's gallery %(cell)s: empty", player=self.name(s), cell=cell)
                              + (f", {texts.bonus(hall)}" if hall else ""),
                              id=svg.id(f"cell-{s}-{cell}") if mine else None)
                    svg.rect(cx, ry, cw - 3, ch, rx=3, fill="#FFFFFF", stroke=LINE, stroke_dasharray="3 2")
                    if hall:
                        svg.text(cx + (cw - 3) / 2, ry + 20, _short(hall), size=11, anchor="middle", fill=MUTED)
                svg.close()
        y += floors * (ch + 3)
        for j, b in enumerate(lay["column_bonus"]):
            if b and b != "-":
                svg.text(x + lab + j * cw + (cw - 3) / 2, y + 11, _short(b), size=11, anchor="middle", fill=MUTED)
        return y + 16

    def scores(self, svg: Svg, x: float, y: float, w: float) -> float:
        v = self.v
        out = v["outcome"]
        self.heading(svg, x, y, _("Final scores"))
        if w < 760:
            return self.scores_stacked(svg, x, y, w)
        yy = y + 38
        cols = (("exhibits", 400), ("commissions", 510), ("leftovers", 610), ("total", 690))
        for name, cx in cols:
            svg.text(x + cx, yy - 4, _(_SCORE_LABELS[name]), size=11, anchor="end", fill=MUTED)
        for s in out["ranking"]:
            yy += 20
            b = out["breakdown"][s]
            icon(svg, "pawn", x, yy - 14, 16, fill=colour(s))
            svg.text(x + 22, yy, fit(self.name(s), 30), size=13, weight="bold", fill=dark(s))
            for (key, cx) in cols[:3]:
                svg.text(x + cx, yy, str(b[key]), size=13, anchor="end")
            svg.text(x + 690, yy, str(out["scores"][s]), size=13, anchor="end", weight="bold")
            if s in out["winners"]:
                icon(svg, "star", x + 700, yy - 14, 16, fill="#E0B43A")
                svg.text(x + 720, yy, _("wins"), size=13, weight="bold", fill=dark(s))
        for note in out.get("notes") or ():
            yy += 18
            svg.text(x, yy, _(note), size=11, fill=MUTED)
        return yy + 10

    def scores_stacked(self, svg: Svg, x: float, y: float, w: float) -> float:
        """The final scores in a narrow column: a player's total on the line of their name, what it is
        made of on the line below (the wide table's five columns do not fit)."""
        out = self.v["outcome"]
        yy = y + 24
        for s in out["ranking"]:
            b = out["breakdown"][s]
            yy += 16
            icon(svg, "pawn", x, yy - 14, 16, fill=colour(s))
            total = str(out["scores"][s])
            right = _bold_w(total, 15) + (22 if s in out["winners"] else 0)
            names = _lines_w(self.name(s), w - 30 - right, 13)
            svg.text(x + w, yy, total, size=15, anchor="end", weight="bold")
            if s in out["winners"]:
                icon(svg, "star", x + w - right, yy - 14, 16, fill="#E0B43A")
            yy = svg.lines(x + 22, yy, names, size=13, gap=16, weight="bold", fill=dark(s)) - 16
            parts = ([_("wins")] if s in out["winners"] else []) + \
                [f"{_(_SCORE_LABELS[k])} {b[k]}" for k in ("exhibits", "commissions", "leftovers")]
            yy = svg.lines(x + 22, yy + 15, _lines_w(" · ".join(parts), w - 22, 11, False), size=11, gap=14,
                           fill=MUTED) - 14 + 6
        for note in out.get("notes") or ():
            yy = svg.lines(x, yy + 16, _lines_w(_(note), w, 11, False), size=11, gap=14, fill=MUTED) - 14
        return yy + 10


def _short(b: str) -> str:
    """A hall or column bonus in a cell's width: "+3 coins" -> "+3c", "+1 royal ticket" -> "+1 RT"."""
    if not texts.english():
        return texts.short(str(b))
    s = str(b)
    for long, short in (("royal ticket", "RT"), ("royal coin", "RC"), ("tickets", "t"), ("ticket", "t"),
                        ("coins", "c"), ("coin", "c")):
        s = s.replace(" " + long, " " + short if len(short) == 2 else short)
    return s


def draw_svg(view: Mapping[str, Any], moves: Sequence[str] = (), layout: str = "wide") -> str:
    """The drawing of ``view`` in ``layout`` (drawing.LAYOUTS): the wide page's landscape board, or the
    narrow column of a phone's page and the mail's picture."""
    if layout not in LAYOUTS:
        raise ValueError(f"unknown layout {layout!r}")
    return Drawing(view, list(moves), layout).draw()
