"""The board drawn as a picture: golden files, valid SVG that
resvg renders, nothing beyond the view, and each legal move on its card."""
import json
import os
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from pbem.engine import validate_options
from pbem.engine.iaww.data import CARDS
from pbem.engine.iaww.draw import draw_svg
from pbem.engine.playout import random_playout

from .helpers import G
from .test_views import POS, _play_until, scramble

GOLDEN = Path(__file__).parent / "golden"
NAMES = ["Ann", "Bob", "Cleo", "Dan", "Eve"]
SVG_NS = "{http://www.w3.org/2000/svg}"


def _moves(st, seat):
    if seat is None:
        return []
    return [G.format_move(st, seat, m) for m in G.legal_moves(st, seat)]


def _draw(st, seat, names=True):
    v = G.view(st, seat)
    if names:
        v["names"] = NAMES[: st.n]
    return G.draw_svg(v, _moves(st, seat))


def _plan_position():
    return _play_until(3, 11, lambda s: s.round == 2 and s.phase == "plan")


CASES = {
    "draft3-0": (POS["draft3"][0], 0), "draft3-obs": (POS["draft3"][0], None),
    "plan3-0": (_plan_position(), 0),
    "prod4-0": (POS["prod4"][0], 0), "prod4-obs": (POS["prod4"][0], None),
    "final2-0": (POS["final2"][0], 0), "final2-obs": (POS["final2"][0], None),
    "solo-0": (POS["solo"][0], 0),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_golden_drawings(case):
    st, seat = CASES[case]
    out = _draw(st, seat)
    path = GOLDEN / f"draw-{case}.svg"
    if os.environ.get("PBEM_UPDATE_GOLDEN") == "1":
        path.write_text(out)
    assert out == path.read_text(), f"{path.name} differs (PBEM_UPDATE_GOLDEN=1 to regenerate)"
    assert _draw(st, seat) == out  # same view, same bytes


@pytest.mark.parametrize("case", sorted(CASES))
def test_valid_svg_that_renders(case):
    from pbem.mail.pictures import render_png

    st, seat = CASES[case]
    out = _draw(st, seat)
    root = ET.fromstring(out)
    assert root.tag == SVG_NS + "svg"
    title, desc = root.find(SVG_NS + "title"), root.find(SVG_NS + "desc")
    assert title.text.startswith("It's a Wonderful World \u2014 ") and desc.text
    w, h = (float(x) for x in root.get("viewBox").split()[2:])
    assert 1000 <= w <= 1200 and h > 300
    sizes = [float(e.get("font-size")) for e in root.iter(SVG_NS + "text")]
    assert sizes and min(sizes) >= 11
    ids = [e.get("id") for e in root.iter() if e.get("id")]
    assert len(ids) == len(set(ids))
    assert "<script" not in out and "href=\"http" not in out
    png = render_png(out)
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 10_000


def test_title_says_the_status_with_names():
    st, _ = CASES["prod4-0"]
    root = ET.fromstring(_draw(st, 0))
    title = root.find(SVG_NS + "title").text
    assert "science step" in title and "Ann" in title and "Player 1" not in title
    assert "Round 3 of 4" in root.find(SVG_NS + "desc").text


def test_names_are_escaped():
    st, _ = CASES["prod4-0"]
    v = G.view(st, 0)
    v["names"] = ["<b>&", "Bob", "C", "D"]
    out = draw_svg(v)
    ET.fromstring(out)
    assert "&lt;b&gt;&amp;" in out and "<b>" not in out


def test_a_decision_view_draws_too():
    """Without whose turn it is (decision_view), the drawing leaves the marks out."""
    st, _ = CASES["prod4-0"]
    out = draw_svg(G.decision_view(st, 0))
    ET.fromstring(out)
    assert ">to act<" not in out


# ---------------------------------------------------------------- nothing beyond the view


def _card_names(svg: str) -> set[str]:
    return {c.name for c in CARDS.values() if c.name in svg}


@pytest.mark.parametrize("players", [1, 2, 3, 5])
def test_the_drawing_shows_nothing_beyond_the_view(players):
    """Random playouts: every card named in a seat's drawing is in its view,
    and changing what the seat may not see changes nothing in its drawing."""
    opts = validate_options(G, players, {})
    checked = 0

    def on_move(before, seat, move, after):
        nonlocal checked
        checked += 1
        if checked % 5:
            return
        for who in [None, *range(players)]:
            v = G.view(after, who)
            out = G.draw_svg(v, _moves(after, who))
            text = json.dumps(v, ensure_ascii=False)
            assert _card_names(out) <= {n for n in _card_names(text)}, (who, move)
            if who is not None:
                for o in range(players):
                    if o != who:
                        hidden = set(after.players[o].hand) | {after.players[o].pick} - {""}
                        for inst in hidden:
                            if f'"{inst}"' not in text:  # not also a card the viewer sees
                                assert inst not in out
            assert G.draw_svg(G.view(scramble(after, who), who), _moves(after, who)) == out, (who, move)

    random_playout(G, players, 3, opts, rng_seed=3, on_move=on_move)
    assert checked > 20


# ---------------------------------------------------------------- clickable moves


def _clickable(svg: str) -> dict[str, list[str]]:
    """Each move in data-moves, with the ids of the elements that carry it."""
    out: dict[str, list[str]] = {}
    for e in ET.fromstring(svg).iter():
        if e.get("data-moves"):
            assert e.get("id") and e.get("role") == "button" and e.find(SVG_NS + "title") is not None
            for m in json.loads(e.get("data-moves")):
                out.setdefault(m, []).append(e.get("id"))
    return out


def _expected(v: dict, move: str) -> str | None:
    """The id of the element a move must be on (None: no specific card)."""
    me = v["seats"][v["seat"]]
    sites = {s["ref"]: s["inst"] for s in me["sites"]} | {s["inst"]: s["inst"] for s in me["sites"]}
    plan = [c["inst"] for c in (v["you"]["to_plan"] or v["you"]["solo_hand"])]

    def first(where, insts, cid):
        inst = next((i for i in insts if i.split("#")[0] == cid), None)
        return f"iaww-{where}-{inst}" if inst else None

    def target(ref):
        if ref == "E":
            return "iaww-empire"
        if ref in sites:
            return f"iaww-site-{sites[ref]}"
        return f"iaww-plan-{ref}" if "#" in ref else first("plan", plan, ref)

    head, _, rest = move.partition(" ")
    if head == "pick":
        return first("hand", [c["inst"] for c in v["you"]["hand"]], rest)
    if head == "keep":
        return first("revealed", [c["inst"] for c in v["you"]["revealed"]], rest)
    if head in ("C", "R"):
        # a card named by an action before its C is under construction already, completed, or
        # discarded (then the C is on the box that says it is still owed)
        return (first("plan", plan, rest.partition(">")[0]) or first("site", list(sites.values()), rest)
                or first("built", [c["inst"] for c in me["built"]], rest) or "iaww-other-moves")
    if head in ("discard", "build"):
        return target(rest)
    if head in ("done", "auto"):
        return f"iaww-btn-{head}"
    if head == "sci":
        return f"iaww-token-{rest}"
    if ">" in move:
        return target(move.partition(">")[2].partition(":")[0])
    return None


def _check_moves(st, seat) -> int:
    v = G.view(st, seat)
    moves = _moves(st, seat)
    where = _clickable(G.draw_svg(v, moves))
    assert set(where) == set(moves)  # every legal move is somewhere on the board
    for m in moves:
        want = _expected(v, m)
        if m.startswith("swap "):
            a, b = m[5:].split(",")
            assert sorted(x.rsplit("#", 1)[0] for x in where[m]) == sorted(
                [f"iaww-plan-{a}", f"iaww-plan-{b}"]), m
        else:
            assert want is not None and where[m] == [want], (m, where[m], want)
    return len(moves)


def test_moves_are_on_the_cards_they_concern_in_known_positions():
    st, _ = CASES["draft3-0"]
    draft = _play_until(3, 5, lambda s: s.phase == "draft" and s.step == 2)
    where = _clickable(_draw(draft, 0))
    hand = G.view(draft, 0)["you"]["hand"]
    assert len(where) == len(hand) == 6
    for c in hand:
        assert where[f"pick {c['id']}"] == [f"iaww-hand-{c['inst']}"]
    plan, _ = CASES["plan3-0"]
    where = _clickable(_draw(plan, 0))
    for c in G.view(plan, 0)["you"]["to_plan"]:
        assert where[f"C {c['id']}"] == [f"iaww-plan-{c['inst']}"]
        assert where[f"R {c['id']}>E"] == [f"iaww-plan-{c['inst']}"]
    prod, _ = CASES["prod4-0"]
    where = _clickable(_draw(prod, 0))
    assert where["s>human_cloning"] == ["iaww-site-human_cloning#1"] and where["s>E"] == ["iaww-empire"]
    assert where["done"] == ["iaww-btn-done"]
    for seat, (st, _) in ((0, CASES["solo-0"]), (0, CASES["prod4-0"]), (0, CASES["plan3-0"])):
        assert _check_moves(st, seat)


@pytest.mark.parametrize("players,options", [(1, {"scenario": "S1"}), (2, {}), (4, {})])
def test_every_move_maps_to_its_card_over_a_playout(players, options):
    opts = validate_options(G, players, options)
    kinds: set[str] = set()
    checked = 0

    def on_move(before, seat, move, after):
        nonlocal checked
        checked += 1
        if checked % 4:
            return
        for s in sorted(G.to_move(after)):
            _check_moves(after, s)
            kinds.update(G.format_move(after, s, m).split(" ")[0].split(">")[0] for m in G.legal_moves(after, s))

    random_playout(G, players, 5, opts, rng_seed=5, on_move=on_move)
    assert {"C", "R", "discard", "done", "auto"} <= kinds
    assert "pick" in kinds or players == 1
