"""The Squire drawing: golden SVGs, valid SVG that renders, readable labels on the map,
nothing beyond the view, and each legal move on the element it concerns."""
import functools
import json
import re
import xml.etree.ElementTree as ET
from dataclasses import replace
from pathlib import Path

import pytest

from pbem.engine import validate_options
from pbem.engine.i18n import language
from pbem.engine.playout import random_playout
from pbem.engine.squire import GAME, draw
from pbem.engine.squire.data import load

from .ttf import width
from .util import check_golden, golden_playout, golden_positions

NS = {"s": "http://www.w3.org/2000/svg"}
D = load(())
SIZE_MIN = 11


def _moves(state, seat):
    if seat is None or seat not in GAME.to_move(state):
        return []
    return [GAME.format_move(state, seat, m) for m in GAME.legal_moves(state, seat)]


@functools.lru_cache(maxsize=None)
def _positions():
    """The golden boards' positions (util.golden_positions), and a 3-player world game in a movement phase."""
    golden = golden_positions()
    out = {"british-mid4": golden["mid4"], "british-move4": golden["move4"], "world-final2": golden["final2"]}
    opts = validate_options(GAME, 3, {"side": "world"})
    _, rec = golden_playout(3, 303, opts)
    s = GAME.initial_state(3, 303, opts)
    for i, (seat, m) in enumerate(rec):
        s = GAME.apply(s, seat, m)
        if i > 40 and s.phase == "move":
            out["world-move3"] = s
            break
    return out


CASES = [("british-mid4", None), ("british-mid4", 0), ("british-move4", "active"), ("world-final2", None),
         ("world-final2", 1), ("world-move3", "active")]


def _case(pos, who):
    state = _positions()[pos]
    seat = min(GAME.to_move(state)) if who == "active" else who
    v = GAME.view(state, seat)
    if pos.startswith("british"):
        v["names"] = ["Ann", "Bob <b>", "", "Dee"]
    return state, seat, v


@pytest.mark.parametrize("pos,who", CASES)
def test_golden_drawings(pos, who):
    state, seat, v = _case(pos, who)
    svg = GAME.draw_svg(v, _moves(state, seat))
    assert svg == GAME.draw_svg(v, _moves(state, seat))  # deterministic
    tag = "obs" if seat is None else f"seat{seat}"
    check_golden(f"draw-{pos}-{tag}.svg", svg)


@pytest.mark.parametrize("pos,who", CASES)
def test_valid_svg_that_renders(pos, who):
    from pbem.mail.pictures import render_png

    state, seat, v = _case(pos, who)
    svg = GAME.draw_svg(v, _moves(state, seat))
    root = ET.fromstring(svg)
    title, desc = root.find("s:title", NS), root.find("s:desc", NS)
    assert title is not None and title.text.startswith("Squire — ")
    assert desc is not None and len(desc.text) > 40
    assert 1000 <= float(root.get("width")) <= 1200
    assert "<script" not in svg and "Bob <b>" not in svg
    assert ("Bob &lt;b&gt;" in svg) == pos.startswith("british")
    assert "P1" not in [t.text for t in root.iter("{%s}text" % NS["s"])]
    for t in root.iter("{%s}text" % NS["s"]):
        assert float(t.get("font-size")) >= SIZE_MIN, t.text
    png = render_png(svg)
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 20000
    small = render_png(svg, 700)
    assert small[:8] == b"\x89PNG\r\n\x1a\n"


def test_names_and_colours_not_p1():
    state, seat, v = _case("british-mid4", 0)
    svg = GAME.draw_svg(v)
    for name in ("Ann (you)", "Bob &lt;b&gt;", "Player 3", "Dee"):
        assert name in svg
    assert not re.search(r">P[1-4]<", svg) and "P1" not in svg


# ---------------------------------------------------------------- labels

def _boxes(svg):
    """Each city's name label box (its width measured in DejaVu Sans Bold, the mail's font and the first
    of the drawing's) and marker box, in the map's own coordinates."""
    root = ET.fromstring(svg)
    labels, markers = {}, {}
    for g in root.iter("{%s}g" % NS["s"]):
        gid = g.get("id") or ""
        if not gid.startswith("sq-city-"):
            continue
        city = gid[len("sq-city-"):]
        t = g.find("s:text[@class='city-label']", NS)
        c = g.find("s:circle[@class='city']", NS)
        size = float(t.get("font-size"))
        x, y = float(t.get("x")), float(t.get("y"))
        labels[city] = (x, y - size * 0.8, width(t.text, size, bold=True), size)
        r = float(c.get("r"))
        markers[city] = (float(c.get("cx")) - r, float(c.get("cy")) - r, 2 * r, 2 * r)
    return labels, markers


def _overlap(a, b, pad=0.0):
    return a[0] < b[0] + b[2] + pad and b[0] < a[0] + a[2] + pad and a[1] < b[1] + b[3] + pad and \
        b[1] < a[1] + a[3] + pad


@pytest.mark.parametrize("layout", ["wide", "narrow"])
@pytest.mark.parametrize("lang", ["en", "ru", "bg", "it"])
@pytest.mark.parametrize("side", ["british", "world"])
@pytest.mark.parametrize("n", [2, 3, 4])
def test_city_labels_do_not_overlap(side, n, lang, layout):
    """No two labels of the map meet (Liverpool, Holyhead, Cardiff and Bristol crowded each other on the
    British side), nor a label another city's marker or a route's ticket badge, in both layouts and with
    the names of every language."""
    s = GAME.initial_state(n, 1, validate_options(GAME, n, {"side": side}))
    with language(lang):
        v = GAME.view(s, None)
        drawing = draw.Drawing(v, [], layout)
        svg = drawing.draw()
    labels, markers = _boxes(svg)
    assert len(labels) == 15
    for a in labels:
        for b in labels:
            if a < b:
                assert not _overlap(labels[a], labels[b]), (a, b)
            if a != b:
                assert not _overlap(labels[a], markers[b]), (a, "marker", b)
    # and the whole label blocks (name, exhibit, room for every pawn) the layout reserves
    geo = drawing.g
    assert geo.real
    ids = tuple(c["id"] for c in v["cities"])
    for a in ids:
        x, y, w, h = geo.labels[a]
        panel = geo.panels[geo.panel_of[a]]
        assert panel.x <= x and x + w <= panel.x + panel.w and panel.y <= y and y + h <= panel.y + panel.h, a
        assert labels[a][0] >= x and labels[a][0] + labels[a][2] <= x + w, (a, "name wider than its block")
        assert geo.legend is None or not _overlap(geo.labels[a], geo.legend)
        assert not any(_overlap(geo.labels[a], box) for box, _text in geo.notes), (a, "note")
        assert not any(_overlap(geo.labels[a], badge) for badge in drawing._badges), (a, "badge")
        for b in ids:
            assert not _overlap(geo.labels[a], geo.marker_box(b)), (a, b)
            if a < b:
                assert not _overlap(geo.labels[a], geo.labels[b], draw.LABEL_GAP - 0.5), (a, b)


def test_cities_lie_where_they_are():
    """The real map: north is up, east is right (a few pairs), every city on the map."""
    for side, pairs in (("british", [("aberdeen", "london"), ("edinburgh", "york")]),
                        ("world", [("london", "cape_town"), ("tokyo", "sydney")])):
        s = GAME.initial_state(2, 1, validate_options(GAME, 2, {"side": side}))
        _, m = _boxes(GAME.draw_svg(GAME.view(s, None)))
        for north, south in pairs:
            assert m[north][1] < m[south][1]
        east_west = [("london", "cork")] if side == "british" else [("tokyo", "new_york")]
        for east, west in east_west:
            assert m[east][0] > m[west][0]


# ---------------------------------------------------------------- nothing beyond the view

TEXT_TAGS = ("{%s}text" % NS["s"], "{%s}title" % NS["s"], "{%s}desc" % NS["s"])
ID_LIKE = re.compile(r"\b(?:[a-z_]+-\d\d|M\d\d)\b")


def _texts(svg):
    root = ET.fromstring(svg)
    return [el.text or "" for el in root.iter() if el.tag in TEXT_TAGS]


@functools.lru_cache(maxsize=None)
def _static_words():
    src = Path(draw.__file__).read_text(encoding="utf-8")
    return set(re.findall(r"[A-Za-z]{3,}", src))


def _hidden_for(state, seat):
    out = set()
    for s, p in enumerate(state.players):
        if s != seat:
            out |= {D.cards[c].id for c in p.hand}
    out |= {D.cards[c].id for c in state.deck}
    out |= {D.tokens[t][2] for t in state.supply + state.removed}
    return out


@pytest.mark.parametrize("n,side,seed", [(2, "world", 31), (3, "british", 32), (4, "world", 33)])
def test_nothing_beyond_the_view(n, side, seed):
    checked = 0

    def on_move(before, seat, move, after):
        nonlocal checked
        if len(checked_plies) % 7:
            checked_plies.append(1)
            return
        checked_plies.append(1)
        for who in [None, *range(n)]:
            v = GAME.view(after, who)
            moves = _moves(after, who)
            svg = GAME.draw_svg(v, moves)
            blob = json.dumps([v, moves], ensure_ascii=False)  # the view and the moves offered to it
            words = set(re.findall(r"[A-Za-z]{3,}", blob)) | _static_words()
            hidden = _hidden_for(after, who)
            for text in _texts(svg):
                ids = set(ID_LIKE.findall(text))
                assert not ids & hidden, (who, ids & hidden)
                assert all(i in blob for i in ids), (who, text)
                for w in re.findall(r"[A-Za-z]{3,}", text):
                    assert w in words, (who, w, text)
            # another seat's message cards: neither their ids nor their texts
            shown = "\n".join(_texts(svg)) + "\n".join(re.findall(r'data-moves="([^"]*)"', svg))
            for s, p in enumerate(after.players):
                if s != who:
                    for c in p.hand:
                        assert not re.search(rf"\b{D.cards[c].id}\b", shown)
            checked += 1

    checked_plies: list = []
    random_playout(GAME, n, seed, {"side": side}, rng_seed=seed, on_move=on_move)
    assert checked > 20


@pytest.mark.parametrize("n,side,seed", [(3, "british", 41), (4, "world", 42)])
def test_other_seats_hidden_parts_do_not_change_the_drawing(n, side, seed):
    final, rec = random_playout(GAME, n, seed, {"side": side}, rng_seed=seed)
    opts = validate_options(GAME, n, {"side": side})
    s = GAME.initial_state(n, seed, opts)
    tried = 0
    for i, (seat, m) in enumerate(rec):
        s = GAME.apply(s, seat, m)
        if i % 11 or not s.deck:
            continue
        for who in range(n):
            other = (who + 1) % n
            p = s.players[other]
            # the other seat's hand exchanged with the deck's bottom cards, the supply reversed
            k = min(len(p.hand), len(s.deck))
            if not k:
                continue
            new_hand = tuple(s.deck[-k:]) + p.hand[k:]
            deck = tuple(s.deck[:-k]) + p.hand[:k]
            twin = replace(s, deck=deck, supply=tuple(reversed(s.supply)),
                           players=tuple(replace(q, hand=new_hand) if j == other else q
                                         for j, q in enumerate(s.players)))
            assert GAME.draw_svg(GAME.view(twin, who)) == GAME.draw_svg(GAME.view(s, who))
            tried += 1
    assert tried > 10


# ---------------------------------------------------------------- moves on their elements

def _picks(svg):
    """move -> ids of the groups that carry it."""
    root = ET.fromstring(svg)
    out: dict[str, set] = {}
    for g in root.iter("{%s}g" % NS["s"]):
        if g.get("data-moves"):
            assert "pick" in g.get("class", "")
            assert g.find("s:title", NS) is not None
            for m in json.loads(g.get("data-moves")):
                out.setdefault(m, set()).add(g.get("id"))
    return out


@pytest.mark.parametrize("n,side,seed", [(2, "british", 51), (3, "world", 52), (4, "british", 53)])
def test_moves_map_to_their_elements(n, side, seed):
    seen = {"start": 0, "move": 0, "buy": 0, "sell": 0, "cell": 0, "exhibit": 0, "take": 0}
    b = D.boards[side]

    def on_move(before, seat, move, after):
        kinds = {m.kind for m in GAME.legal_moves(before, seat)}
        if not kinds & set(seen) or before.phase == "board":
            return
        legal = GAME.legal_moves(before, seat)
        texts = [GAME.format_move(before, seat, m) for m in legal]
        picks = _picks(GAME.draw_svg(GAME.view(before, seat), texts))
        for m, t in zip(legal, texts):
            if m.kind in ("start", "move"):
                assert f"sq-city-{b.city_ids[m.a]}" in picks.get(t, ()), (t, picks.get(t))
            elif m.kind in ("buy", "sell"):
                here = b.city_ids[before.players[seat].pos]
                assert f"sq-ex-{here}" in picks.get(t, ()), (t, picks.get(t))
            elif m.kind == "cell":
                assert f"sq-cell-{seat}-{D.cell_name(m.a)}" in picks.get(t, ()), (t, picks.get(t))
            elif m.kind == "take":
                assert f"sq-dis-{D.tokens[m.a][2]}" in picks.get(t, ()), (t, picks.get(t))
                assert f"sq-cell-{seat}-{D.cell_name(m.b)}" in picks.get(t, ()), (t, picks.get(t))
            elif m.kind == "exhibit":
                assert f"sq-exh-{D.type_ids[m.a]}" in picks.get(t, ()), (t, picks.get(t))
            else:
                continue
            seen[m.kind] += 1

    random_playout(GAME, n, seed, {"side": side}, rng_seed=seed, on_move=on_move)
    for k in ("start", "move", "buy", "sell", "cell", "exhibit"):
        assert seen[k] > 0, (k, seen)


def test_the_text_board_stand_in_is_gone():
    s = GAME.initial_state(2, 1, validate_options(GAME, 2, {}))
    svg = GAME.draw_svg(GAME.view(s, None))
    assert "The text board, drawn as it reads." not in svg and "sq-map" in svg


def test_a_board_without_geography_is_drawn_on_a_ring():
    """Replacement data may name cities data/geo.json does not know: a schematic map, still readable."""
    s = GAME.initial_state(3, 1, validate_options(GAME, 3, {"side": "british"}))
    v = GAME.view(s, 0)
    for c in v["cities"]:
        c["id"] = "x_" + c["id"]
    svg = GAME.draw_svg(v)
    ET.fromstring(svg)
    labels, markers = _boxes(svg)
    assert len(labels) == 15 and "Aberdeen" in svg
    for a in labels:
        for b in labels:
            if a < b:
                assert not _overlap(labels[a], labels[b]), (a, b)


def test_third_floor_pick_maps_to_the_discarded_exhibit_and_the_cell():
    from pbem.engine.squire.rules import TRADE

    from .util import at_move, gallery, new, play, player, put, tok

    s = new(4)
    s = player(s, 0, coins=40, gallery=gallery(("F3C1", "painting-01"), ("F3C2", "painting-02"),
                                               ("F3C3", "painting-03")))
    s = replace(s, discard=(tok("sculpture-11"), tok("ceramics-02")))
    s = put(at_move(s, 0, "york", TRADE), "york", "jewellery-01")
    s = play(s, 0, "buy offers none")
    texts = _moves(s, 0)
    inline = [t for t in texts if " take " in t]
    assert inline, texts
    picks = _picks(GAME.draw_svg(GAME.view(s, 0), texts))
    for t in inline:  # "cell F3C4 take sculpture-11 cell F2C1": the cell filled now, and the pick
        words = t.split()
        assert f"sq-cell-0-{words[1]}" in picks[t] and f"sq-dis-{words[3]}" in picks[t], (t, picks[t])
    s = play(s, 0, "cell F3C4")
    texts = _moves(s, 0)
    assert texts and all(t.startswith("take ") for t in texts)
    picks = _picks(GAME.draw_svg(GAME.view(s, 0), texts))
    for t in texts:
        _, token, _, cellname = t.split()
        assert {f"sq-dis-{token}", f"sq-cell-0-{cellname}"} <= picks[t], (t, picks[t])


def test_cards_and_commissions_carry_their_moves():
    """Offers, accept and swap on the viewer's own message cards and commissions (random playouts)."""
    seen = set()

    def on_move(before, seat, move, after):
        if before.phase not in ("offers", "accept", "swap", "exhibit"):
            return
        texts = _moves(before, seat)
        picks = _picks(GAME.draw_svg(GAME.view(before, seat), texts))
        for t in texts:
            words = t.split()
            cards = [w for w in words if re.fullmatch(r"M\d\d", w)]
            if words[0] == "swap" and len(words) == 4:
                assert f"sq-comm-{seat}-{words[1]}" in picks[t] and f"sq-card-{words[3]}" in picks[t]
                seen.add("swap")
            elif words[0] in ("offers", "accept") and cards:
                assert all(f"sq-card-{c}" in picks[t] for c in cards), (t, picks[t])
                seen.add(words[0])
            else:
                assert t in picks, t

    for n, seed in ((3, 61), (4, 62), (4, 63)):
        random_playout(GAME, n, seed, {"side": "world"}, rng_seed=seed, on_move=on_move)
    assert {"offers", "accept"} <= seen, seen


@pytest.mark.parametrize("lang", ["en", "ru", "bg", "it"])
def test_an_exhibit_is_named_by_type_and_value_its_id_only_in_the_discard(lang):
    """An exhibit's id (painting-01) is notation: the drawing's tooltips, labels and description name an
    exhibit by its type and value (the gallery, the exhibit bought and waiting, the cities), and only the
    exhibit discard's tooltips add the id, since a player takes one from there by it (take <id>)."""
    from pbem.engine.i18n import language
    from pbem.engine.squire.rules import TRADE

    from .util import at_move, gallery, new, play, player, put, tok

    s = new(4)
    s = player(s, 0, coins=40, gallery=gallery(("F3C1", "painting-01"), ("F2C2", "sculpture-04")))
    s = replace(s, discard=(tok("sculpture-11"), tok("ceramics-02")))
    s = play(put(at_move(s, 0, "york", TRADE), "york", "jewellery-01"), 0, "buy offers none")
    ids = re.compile("|".join(re.escape(t[2]) for t in sorted(D.tokens, key=lambda t: -len(t[2]))))
    with language(lang):
        root = ET.fromstring(GAME.draw_svg(GAME.view(s, 0), _moves(s, 0)))
    said, discard = [], []
    for g in root.iter("{%s}g" % NS["s"]):
        title = g.find("s:title", NS)
        if title is not None:
            (discard if (g.get("id") or "").startswith("sq-dis-") else said).append(title.text)
    said += [t.text for t in root.iter("{%s}text" % NS["s"])]
    said += [root.find("s:title", NS).text, root.find("s:desc", NS).text]
    assert len(said) > 100 and any(x and "F3C1" in x for x in said)  # the gallery's tooltips are among them
    assert not [x for x in said if x and ids.search(x)]
    assert sorted(ids.search(x)[0] for x in discard) == ["ceramics-02", "sculpture-11"]
