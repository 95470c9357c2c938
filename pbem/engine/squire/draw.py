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
    INK, LINE, MUTED, PAPER, Svg, colour, dark, fit, icon, moves_attr, num, tint, wrap,
)
from .render import COLOURS, TYPE_COLOUR
from . import texts
from .i18n import N_, _, ngettext

_SCORE_LABELS = {"exhibits": N_("exhibits"), "commissions": N_("commissions"), "leftovers": N_("leftovers"),
                 "total": N_("total")}
_ROUTE_TITLES = {"land": N_("%(route)s: land route, 1 ticket a step"),
                 "sea": N_("%(route)s: sea route, 1 ticket a step")}

W = 1160
PAD = 12
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


# ---------------------------------------------------------------- the map's geometry

class Geo:
    """Where each city lies on the map, the coastlines, the label boxes (static per side and
    player count: the layout never jumps during a game)."""

    def __init__(self, side: str, city_ids: tuple, names: tuple, routes: tuple, players: int) -> None:
        geo = _data("geo.json").get(side, {})
        coast = _data("coast.json").get(side)
        self.real = coast is not None and all(c in geo for c in city_ids)
        if side == "british":
            self.w, self.h = 660.0, 0.0
        else:
            self.w, self.h = float(W - 2 * PAD), 0.0
        if self.real:
            lon0, lat0, lon1, lat1 = coast["box"]
            self.box = (lon0, lat0, lon1, lat1)
            mid = math.radians((lat0 + lat1) / 2)
            self.kx = math.cos(mid) if side == "british" else 1.0
            self.k = self.w / ((lon1 - lon0) * self.kx)
            self.h = (lat1 - lat0) * self.k
            self.pos = _apart({c: self.project(geo[c][1], geo[c][0]) for c in city_ids},
                              2 * MARKER_R + (4 if side == "british" else 14))
            self.rings = [[self.project(r[i], r[i + 1]) for i in range(0, len(r), 2)] for r in coast["rings"]]
        else:
            self.h = 520.0
            n = len(city_ids)
            cx, cy, rx, ry = self.w / 2, self.h / 2, self.w / 2 - 150, self.h / 2 - 70
            self.pos = {c: (cx + rx * math.cos(2 * math.pi * i / n - math.pi / 2),
                            cy + ry * math.sin(2 * math.pi * i / n - math.pi / 2)) for i, c in enumerate(city_ids)}
            self.rings = []
        self.legend = self._legend_box(side, players)
        self.routes = self._route_geometry(routes, dict(zip(city_ids, names)))
        self.labels = self._place_labels(city_ids, names, players)

    def project(self, lon: float, lat: float) -> tuple[float, float]:
        lon0, lat0, lon1, lat1 = self.box
        return ((lon - lon0) * self.kx * self.k, (lat1 - lat) * self.k)

    def _legend_box(self, side: str, players: int) -> tuple[float, float, float, float]:
        w, h = 178.0, 148.0 + 16 * players
        if side == "world":
            return (4.0, self.h - h - 4, w, h)
        return (4.0, 4.0, w, h)

    @staticmethod
    def block(name: str, players: int) -> tuple[float, float]:
        chip = CHIP_W + players * PAWN + 4
        return (max(_w(name, NAME_SIZE), chip) + 6, NAME_SIZE + 4 + CHIP_H + 4)

    def _route_geometry(self, routes: tuple, names: dict) -> list[dict]:
        """Each route as drawn: land routes straight, sea routes gently bowed (so that two sea
        routes out of one port stay apart); a route across the map's edge (the Pacific) as two
        stubs, each with a "to <city>" note beside the edge."""
        out = []
        r = MARKER_R + 2
        marks = [(x - r, y - r, 2 * r, 2 * r) for x, y in self.pos.values()]
        self.notes: list[tuple] = []
        for a, b, kind in routes:
            if a not in self.pos or b not in self.pos:
                continue
            p, q = self.pos[a], self.pos[b]
            if self.real and abs(p[0] - q[0]) > self.w * 0.6:
                (left, ln), (right, rn) = sorted([(p, a), (q, b)])
                for (sx, sy), (tx, ty), other, edge in ((left, (right[0] - self.w, right[1]), rn, 0.0),
                                                       (right, (left[0] + self.w, left[1]), ln, self.w)):
                    ey = sy + (ty - sy) * (edge - sx) / (tx - sx)
                    pts = [(sx, sy), (edge, ey)]
                    text = f"to {names[other]}"
                    tw = _w(text, 11)
                    tx0 = 4.0 if edge == 0 else self.w - 4 - tw
                    for ty0 in (ey - 19, ey + 5):
                        box = (tx0, ty0, tw, 14)
                        if not any(_hit(box, m) for m in marks):
                            break
                    self.notes.append((box, text))
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

    def _place_labels(self, ids: tuple, names: tuple, players: int) -> dict:
        """A box for each city's label block (name, exhibit, pawns): left, right, above or below
        its marker, the first arrangement (most crowded city first) where no box overlaps another
        box, a marker, the legend or the map's edge; crossing fewer routes is preferred."""
        r = MARKER_R + 2
        markers = {c: (x - r, y - r, 2 * r, 2 * r) for c, (x, y) in self.pos.items()}
        segs = [(r["pts"][i], r["pts"][i + 1]) for r in self.routes for i in range(len(r["pts"]) - 1)]
        notes = [box for box, _ in self.notes]
        cands: dict[str, list] = {}
        for c, name in zip(ids, names):
            x, y = self.pos[c]
            bw, bh = self.block(name, players)
            opts = []
            for gap in (2.0, 8.0, 16.0, 28.0):
                g = MARKER_R + gap
                boxes = [
                    (x + g, y - bh / 2, 1), (x + g, y - NAME_SIZE * 0.7, 0), (x + g, y - bh + NAME_SIZE * 0.7, 1),
                    (x - g - bw, y - bh / 2, 1), (x - g - bw, y - NAME_SIZE * 0.7, 0),
                    (x - g - bw, y - bh + NAME_SIZE * 0.7, 1),
                    (x - bw / 2, y - g - bh, 2), (x - bw / 2, y + g, 1), (x - NAME_SIZE, y - g - bh, 2),
                    (x - NAME_SIZE, y + g, 1), (x - bw + NAME_SIZE, y - g - bh, 2), (x - bw + NAME_SIZE, y + g, 1),
                    (x + g * 0.7, y + g * 0.7, 2), (x - g * 0.7 - bw, y + g * 0.7, 2),
                    (x + g * 0.7, y - g * 0.7 - bh, 3), (x - g * 0.7 - bw, y - g * 0.7 - bh, 3),
                ]
                for bx, by, pref in boxes:
                    box = (bx, by, bw, bh)
                    if not self._inside(box) or _hit(box, self.legend) or any(_hit(box, o) for o in notes):
                        continue
                    if any(_hit(box, m) for m in markers.values()):
                        continue
                    cost = gap * 2 + pref + sum(_crosses(box, s) for s in segs) * 3
                    opts.append((cost, box))
            opts.sort(key=lambda o: o[0])
            cands[c] = [b for _, b in opts]
        order = sorted(ids, key=lambda c: (len(cands[c]), c))
        chosen: dict[str, tuple] = {}
        budget = [20000]

        def search(i: int) -> bool:
            if i == len(order):
                return True
            c = order[i]
            for box in cands[c]:
                budget[0] -= 1
                if budget[0] < 0:
                    return False
                if any(_hit(box, o) for o in chosen.values()):
                    continue
                chosen[c] = box
                if search(i + 1):
                    return True
                del chosen[c]
            return False

        if search(0):  # then each label to a closer free place, if it has one
            for _try in range(3):
                for c in order:
                    for box in cands[c]:
                        if box == chosen[c]:
                            break
                        if not any(_hit(box, o) for k, o in chosen.items() if k != c):
                            chosen[c] = box
                            break
        else:  # no clean arrangement within the budget: the best effort, greedily
            chosen.clear()
            for c in order:
                free = [b for b in cands[c] if not any(_hit(b, o) for o in chosen.values())]
                x, y = self.pos[c]
                bw, bh = self.block(names[ids.index(c)], players)
                chosen[c] = (free or cands[c] or [(x + 10, y - bh / 2, bw, bh)])[0]
        return chosen

    def _inside(self, box) -> bool:
        x, y, w, h = box
        return x >= 2 and y >= 2 and x + w <= self.w - 2 and y + h <= self.h - 2


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


def _crosses(box, seg) -> bool:
    """Whether a segment passes through a box (sampled: good enough for a preference)."""
    (x1, y1), (x2, y2) = seg
    x, y, w, h = box
    for i in range(0, 9):
        t = i / 8
        px, py = x1 + (x2 - x1) * t, y1 + (y2 - y1) * t
        if x <= px <= x + w and y <= py <= y + h:
            return True
    return False


@functools.lru_cache(maxsize=16)
def _geo(side: str, ids: tuple, names: tuple, routes: tuple, players: int) -> Geo:
    return Geo(side, ids, names, routes, players)


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
    def __init__(self, view: Mapping[str, Any], moves: Sequence[str]) -> None:
        self.v = view
        self.n = len(view["seats"])
        self.t = targets(view, moves)
        ids = tuple(c["id"] for c in view["cities"])
        names = tuple(c["name"] for c in view["cities"])
        by_name = {c["name"]: c["id"] for c in view["cities"]}
        routes = tuple((by_name[a], by_name[b], k) for a, b, k in view["routes"] if a in by_name and b in by_name)
        self.g = _geo(str(view.get("side")), ids, names, routes, self.n)
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
        g, v = self.g, self.v
        svg.open(id=svg.id("map"), transform=f"translate({num(ox)} {num(oy)})")
        svg.rect(0, 0, g.w, g.h, fill=SEA if g.real else "#F4F1E8", stroke=COAST, rx=4)
        if g.rings:
            d = " ".join("M" + " L".join(f"{num(x)} {num(y)}" for x, y in ring) + " Z" for ring in g.rings)
            svg.path(d, fill=LAND, stroke=COAST, stroke_width=1, fill_rule="evenodd", stroke_linejoin="round")
        # routes, then their costs
        names = {c["id"]: c["name"] for c in v["cities"]}
        badges: list[tuple[float, float, str, str]] = []
        for r in g.routes:
            sea = r["kind"] == "sea"
            svg.path(r["d"], fill="none", stroke=SEA_ROUTE if sea else LAND_ROUTE, stroke_width=2.2 if sea else 2.6,
                     stroke_dasharray="7 5" if sea else None, stroke_linecap="round")
            badges.append(self._badge_at(r["pts"]) + (f"{_cn(v, names[r['a']])}–{_cn(v, names[r['b']])}", r["kind"]))
        for box, text in g.notes:
            if not texts.english() and text.startswith("to "):
                text = _("to %(city)s", city=_cn(v, text[3:]))
            svg.text(box[0], box[1] + 11, text, size=11, fill=SEA_ROUTE, weight="bold")
        self.legend(svg)
        for c in v["cities"]:
            self.city(svg, c)
        for bx, by, label, kind in badges:
            svg.open()
            svg.title(_(_ROUTE_TITLES[kind], route=label) if kind in _ROUTE_TITLES else
                      f"{label}: {kind} route, 1 ticket a step")
            self.badge(svg, bx, by, kind)
            svg.close()
        svg.close()

    def badge(self, svg: Svg, x: float, y: float, kind: str) -> None:
        ink = SEA_ROUTE if kind == "sea" else LAND_ROUTE
        svg.rect(x - 7, y - 7.5, 14, 15, rx=3, fill="#FFFFFF", stroke=ink, stroke_width=1.3)
        svg.text(x, y + 4, "1", size=11, anchor="middle", weight="bold", fill=ink)

    def _badge_at(self, pts) -> tuple[float, float]:
        g = self.g
        r = MARKER_R + 2
        avoid = list(g.labels.values()) + [(x - r, y - r, 2 * r, 2 * r) for x, y in g.pos.values()] + \
            [g.legend] + [box for box, _ in g.notes]

        def at(t: float) -> tuple[float, float]:
            f = t * (len(pts) - 1)
            i = min(int(f), len(pts) - 2)
            (x1, y1), (x2, y2) = pts[i], pts[i + 1]
            k = f - i
            return (x1 + (x2 - x1) * k, y1 + (y2 - y1) * k)

        for t in sorted((i / 50 for i in range(5, 46)), key=lambda t: (abs(t - 0.5), t)):
            x, y = at(t)
            if not any(_hit((x - 8, y - 8, 16, 16), o, 0) for o in avoid + self._badges):
                self._badges.append((x - 8, y - 8, 16, 16))
                return (x, y)
        # a route too short or too crowded: the badge beside its middle, else at its middle
        (x1, y1), (x2, y2) = pts[0], pts[-1]
        d = math.hypot(x2 - x1, y2 - y1) or 1.0
        mx, my = at(0.5)
        for off in (13, -13, 22, -22, 30, -30, 38, -38, 46, -46):
            x, y = mx - (y2 - y1) / d * off, my + (x2 - x1) / d * off
            if not any(_hit((x - 8, y - 8, 16, 16), o, 0) for o in avoid + self._badges):
                self._badges.append((x - 8, y - 8, 16, 16))
                return (x, y)
        return (mx, my)

    def legend(self, svg: Svg) -> None:
        v = self.v
        x, y, w, h = self.g.legend
        svg.rect(x, y, w, h, fill="#FFFFFF", fill_opacity=0.88, stroke=LINE, rx=4)
        yy = y + 15
        for r in v["regions"]:
            svg.circle(x + 12, yy - 4, 5.5, fill=_region_colour(r["id"]), stroke="#FFFFFF", stroke_width=1.2)
            svg.text(x + 22, yy, fit(texts.region_label(r["label"]), 24), size=11)
            yy += 15
        yy += 1
        svg.line(x + 6, yy - 4, x + 30, yy - 4, stroke=LAND_ROUTE, stroke_width=2.6)
        svg.text(x + 36, yy, _("land route"), size=11)
        yy += 15
        svg.line(x + 6, yy - 4, x + 30, yy - 4, stroke=SEA_ROUTE, stroke_width=2.2, stroke_dasharray="7 5")
        svg.text(x + 36, yy, _("sea route"), size=11)
        yy += 16
        self.badge(svg, x + 18, yy - 4, "land")
        svg.text(x + 36, yy, _("ticket a step"), size=11)
        for s in range(self.n):  # whose pawn is whose, on the map itself
            yy += 16
            icon(svg, "pawn", x + 8, yy - 13, 16, fill=colour(s), stroke="#FFFFFF", stroke_width=0.8)
            svg.text(x + 28, yy, fit(self.name(s), 22), size=11, weight="bold", fill=dark(s))

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
        cw = max(_w(cname, NAME_SIZE), (CHIP_W if ex else 0) + len(c["here"]) * PAWN + 4) + 6
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
            svg.rect(x, yy, 26, 20, fill="#FFFFFF", stroke=LINE, rx=3)
            svg.text(x + 13, yy + 15, str(mt[i][1]), size=13, anchor="middle", weight="bold")
            t = mt[i][0]
            svg.rect(x + 32, yy, cw - 4, 20, fill=_type_colour(t), rx=3)
            glyph(svg, t, x + 36, yy + 3, 14, _type_ink(t))
            svg.text(x + 56, yy + 15, _type_name(v, t), size=12, weight="bold", fill=_type_ink(t))
            r = mr[i][0]
            svg.rect(x + 36 + cw, yy, cw, 20, fill=_region_colour(r), rx=3)
            svg.text(x + 42 + cw, yy + 15, fit(labels.get(r, r), int((cw - 10) / 7)), size=12, weight="bold",
                     fill=INK if r in YELLOWISH else "#FFFFFF")
            yy += 24
        return yy - y

    def exhibitions(self, svg: Svg, x: float, y: float, w: float) -> float:
        v = self.v
        tok = v.get("exhibition_token")
        who = _("token: %(player)s", player=self.name(tok)) if tok is not None else _("token: on the board")
        last = v.get("last_exhibition")
        self.heading(svg, x, y, _("Exhibitions"))
        svg.text(x + 100, y + 14, fit(_("%(who)s; last: %(last)s", who=who,
                                        last=_type_name(v, last) if last else _("none yet")),
                                     int((w - 100) / 6.6)), size=11, fill=MUTED)
        yy = y + 24
        for row in v.get("exhibitions") or []:
            if row["host"] is None:
                continue
            rname = _type_name(v, row["type"]) if not texts.english() else row["name"]
            host, oth = texts.bonus(row["host"]), texts.bonus(row["others"])
            self.open(svg, ("exhibition", row["type"]), _("Exhibit %(type)s: host %(host)s; others %(others)s",
                                                          type=rname, host=host, others=oth),
                      id=svg.id("exh-" + row["type"]))
            svg.rect(x, yy, w, 30, fill="#FFFFFF", stroke=LINE, rx=3)
            svg.rect(x, yy, 6, 30, fill=_type_colour(row["type"]), rx=2)
            svg.text(x + 12, yy + 13, rname, size=12, weight="bold")
            svg.text(x + 12, yy + 26, fit(_("host: %(host)s", host=host), int((w - 16) / 6.6 / 2) * 2), size=11)
            others = _("others: %(others)s", others=oth)
            svg.text(x + w - 6, yy + 13, fit(others, int((w - 110) / 6.6)), size=11, anchor="end", fill=MUTED)
            svg.close()
            yy += 34
        return yy - y

    def discard(self, svg: Svg, x: float, y: float, w: float) -> float:
        v = self.v
        dis = v.get("exhibit_discard") or []
        self.heading(svg, x, y, _("Exhibit discard (%(num)d)", num=len(dis)))
        svg.text(x + w, y + 14, ngettext("supply %(supply)d · deck %(num)d cards", "supply %(supply)d · deck %(num)d cards",
                                         v.get("deck_count", 0), supply=v.get("supply_count", 0)),
                 size=11, anchor="end", fill=MUTED)
        yy = y + 24
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
        char = f"{texts.character(p['character'])} [{p['board']}]" if p.get("board") else _("no board yet")
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


def _short(b: str) -> str:
    """A hall or column bonus in a cell's width: "+3 coins" -> "+3c", "+1 royal ticket" -> "+1 RT"."""
    if not texts.english():
        return texts.short(str(b))
    s = str(b)
    for long, short in (("royal ticket", "RT"), ("royal coin", "RC"), ("tickets", "t"), ("ticket", "t"),
                        ("coins", "c"), ("coin", "c")):
        s = s.replace(" " + long, " " + short if len(short) == 2 else short)
    return s


def draw_svg(view: Mapping[str, Any], moves: Sequence[str] = ()) -> str:
    return Drawing(view, list(moves)).draw()
