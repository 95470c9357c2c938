"""The board as a picture: golden drawings, valid SVG, nothing beyond
the view, and every legal move on the element it concerns."""
import json
import os
import random
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from pbem.engine.spyrium import GAME
from pbem.engine.spyrium.data import CARDS, SPACE_NAME
from pbem.engine.spyrium.writing import answer_word
from pbem.engine.spyrium.state import ACT, ANSWER, EARN, EVENT, PASS, PLACE, USE

from .test_views import _play, _scramble

GOLDEN = Path(__file__).parent / "golden"
NS = "{http://www.w3.org/2000/svg}"


def _moves(st, seat):
    """The legal moves the page offers ``seat`` (none to an observer or a seat not to move)."""
    if seat is None or st.over or seat not in GAME.to_move(st):
        return []
    return [GAME.format_move(st, seat, m) for m in GAME.legal_moves(st, seat)]


def _draw(st, seat, names=None):
    v = GAME.view(st, seat)
    if names:
        v["names"] = names
    return GAME.draw_svg(v, _moves(st, seat))


def _crowded(n, seed, rnd=3):
    """A position of round ``rnd`` or later with many workers on the market and buildings built:
    a playout that mostly places its workers first, as players do."""
    rng = random.Random(seed)
    st = GAME.initial_state(n, seed, {})
    while not st.over:
        if st.round >= rnd and sum(len(s) for s in st.spaces) >= 2 * n and not st.pending:
            return st
        legal = GAME.legal_moves(st, st.turn)
        p = st.ps[st.turn]
        keep = [m for m in legal if m[0] == PLACE] if p.phase == 1 and p.active and rng.random() < 0.85 else []
        keep = keep or [m for m in legal if m[0] != PASS] or legal
        st = GAME.apply(st, st.turn, keep[rng.randrange(len(keep))])
    raise AssertionError("no crowded position")


def _cases():
    start = GAME.initial_state(3, 1, {})
    mid = _crowded(5, 11)
    pending = _play(4, 7, 10_000, stop_on_pending=True)
    end = _play(4, 3, 100_000)
    two = _crowded(2, 5)
    assert pending.pending and end.over
    return [("start", start, (start.turn, None), None),
            ("mid", mid, (mid.turn, None), ["Ann", "Bob", "Cleo", "Dai", "Eve"]),
            ("pending", pending, (pending.turn, None), None),
            ("end", end, (1, None), ["Ann", "Bob", "Cleo", "Dai"]),
            ("two", two, (two.turn,), None)]


CASES = _cases()


def test_golden_drawings():
    update = os.environ.get("PBEM_UPDATE_GOLDEN") == "1"
    for name, st, seats, names in CASES:
        for who in seats:
            out = _draw(st, who, names)
            path = GOLDEN / f"draw-{name}-{'observer' if who is None else f'seat{who}'}.svg"
            if update:
                path.write_text(out)
            assert path.read_text() == out, f"{path.name} differs (PBEM_UPDATE_GOLDEN=1 to refresh)"
            assert _draw(st, who, names) == out  # deterministic


@pytest.mark.parametrize("name,st,seats,names", CASES, ids=[c[0] for c in CASES])
def test_valid_svg_with_title_and_desc_that_renders(name, st, seats, names):
    from pbem.mail.pictures import render_png

    for who in seats:
        out = _draw(st, who, names)
        root = ET.fromstring(out)
        assert root.tag == NS + "svg"
        title, desc = root.find(NS + "title"), root.find(NS + "desc")
        assert title is not None and title.text.startswith("Spyrium — ")
        assert desc is not None and desc.text
        low = out.lower()
        assert "<script" not in low and "<style" not in low and "<image" not in low
        width = float(root.get("viewBox").split()[2])
        assert 1000 <= width <= 1100
        for t in root.iter(NS + "text"):
            assert float(t.get("font-size")) >= 11, t.text
        png = render_png(out)
        assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 1000


def test_names_are_escaped():
    v = GAME.view(GAME.initial_state(2, 1, {}), 0)
    v["names"] = ["<b>evil</b>", "x&y"]
    out = GAME.draw_svg(v)
    ET.fromstring(out)
    assert "<b>evil" not in out and "&lt;b&gt;evil" in out and "x&amp;y" in out


# ---------------------------------------------------------------- nothing beyond the view

# the drawing's own words; no card name may hide among them
STATIC = set("""
spyrium round of period event events next used by not yet this tokens token face down discard none decks
score track vp bonus tiles at and residence income player players to move you first phase passed pass
active on the market buildings owned in reserve new lot lots tech technique building character mine factory
research beside empty space between cards card no closed final wins s must say for turned kept workers worker
your end game over a is with free pile fact res left
r b g y k i ii
""".split())


def _words(text):
    return {w.lower() for w in re.findall(r"[A-Za-z]+", text)}


def _drawn_texts(out):
    """All the words the drawing shows or says (data-moves are checked against the moves given)."""
    root = ET.fromstring(out)
    return [el.text for el in root.iter() if el.tag in (NS + "text", NS + "title", NS + "desc") and el.text]


def test_static_words_name_no_card():
    """Each card name has a word of its own, so a card the view hides cannot pass for UI text
    (Mine, Factory and Residence are also a symbol and a track: their prices tell them apart)."""
    for c in CARDS:
        if c.name not in ("Mine", "Factory", "Residence"):
            assert _words(c.name) - STATIC, c.name


@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_nothing_beyond_the_view(n):
    """Every word drawn is in the view (or the drawing's own words); hiding orders
    changed behind the view change no byte of any seat's drawing."""
    rng = random.Random(40 + n)
    st = GAME.initial_state(n, 40 + n, {})
    step = 0
    while not st.over:
        if step % 7 == 0:
            other = _scramble(st, rng)
            for who in [None, *range(n)]:
                view = GAME.view(st, who)
                out = _draw(st, who)
                seen = _words(json.dumps(view, ensure_ascii=False))
                moves = set(_moves(st, who))
                for text in _drawn_texts(out):
                    extra = _words(text) - seen - STATIC
                    assert not extra, (text, extra)
                root = ET.fromstring(out)
                for el in root.iter():
                    if el.get("data-moves"):
                        assert set(json.loads(el.get("data-moves"))) <= moves
                assert out == _draw(other, who), f"seat {who}'s drawing depends on hidden orders"
        legal = GAME.legal_moves(st, st.turn)
        st = GAME.apply(st, st.turn, legal[rng.randrange(len(legal))])
        step += 1
    out = _draw(st, None)
    for text in _drawn_texts(out):
        assert not _words(text) - _words(json.dumps(GAME.view(st, None), ensure_ascii=False)) - STATIC


# ---------------------------------------------------------------- the moves on the board


def _expected_id(st, seat, move):
    """The element a legal move belongs on, from the move itself (not its notation)."""
    kind, _sw, a, b, _lob, _com, ans = move
    if kind in (PLACE, EARN):
        return f"spy-space-{SPACE_NAME[a]}"
    if kind == ACT:
        return f"spy-card-{b}"
    if kind == USE:
        return f"spy-lot-{seat}-{a}"
    if kind == EVENT:
        return "spy-event"
    if kind == PASS:
        return f"spy-pass-{seat}"
    if kind == ANSWER:
        return f"spy-answer-{answer_word(ans[0] // 100, ans[0] % 100)}"
    raise AssertionError(move)


def _clickable(out):
    root = ET.fromstring(out)
    found = {}
    for el in root.iter():
        if el.get("data-moves"):
            assert el.tag == NS + "g" and el.get("id")
            assert el.find(NS + "title") is not None, el.get("id")
            assert not any(d.get("data-moves") for d in el.iter() if d is not el), "nested clickable groups"
            found[el.get("id")] = (el, json.loads(el.get("data-moves")))
    return found


@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_every_legal_move_is_on_its_element(n):
    kinds = set()
    for seed in (1, 2):
        rng = random.Random(seed)
        st = GAME.initial_state(n, seed, {})
        while not st.over:
            seat = st.turn
            legal = GAME.legal_moves(st, seat)
            texts = [GAME.format_move(st, seat, m) for m in legal]
            v = GAME.view(st, seat)
            out = GAME.draw_svg(v, texts)
            found = _clickable(out)
            where = {}
            for gid, (_el, ms) in found.items():
                for m in ms:
                    assert m not in where, f"{m!r} on both {where[m]} and {gid}"
                    where[m] = gid
            assert set(where) == set(texts)
            for m, t in zip(legal, texts):
                gid = _expected_id(st, seat, m)
                assert where[t] == gid, (t, where[t], gid)
                kinds.add(m[0])
                el = found[gid][0]
                title = el.find(NS + "title").text
                if m[0] == ACT:  # the card it activates, by its name
                    card = v["market"][m[3] - 1]
                    assert title.startswith(f"Card {m[3]}: {card['label']},"), title
                elif m[0] in (PLACE, EARN):
                    assert title.startswith(f"Space {SPACE_NAME[m[2]]} "), title
                elif m[0] == USE:
                    lot = v["seats"][seat]["lots"][m[2] - 1]
                    assert f"lot {m[2]}: {lot['label']} (" in title, title
            st = GAME.apply(st, seat, legal[rng.randrange(len(legal))])
    assert {PLACE, EARN, ACT, USE, EVENT, PASS, ANSWER} <= kinds, kinds


def test_observer_and_mail_drawings_have_no_clickable_element():
    for name, st, seats, names in CASES:
        assert not _clickable(_draw(st, None, names))
        v = GAME.view(st, st.turn if not st.over else 0)
        assert not _clickable(GAME.draw_svg(v))


def test_title_and_desc_say_the_round_who_moves_and_the_scores():
    for name, st, seats, names in CASES:
        v = GAME.view(st, None)
        if names:
            v["names"] = names
        root = ET.fromstring(GAME.draw_svg(v))
        title, desc = root.find(NS + "title").text, root.find(NS + "desc").text
        assert title == f"Spyrium — {v['status']}"
        assert v["status"] in desc
        for s, p in enumerate(v["seats"]):
            score = v["outcome"]["scores"][s] if st.over else p["vp"]
            label = f"{names[s]} ({v['colours'][s]})" if names else v["colours"][s]
            assert f"{label} {score}" in desc, (label, desc)
        if not st.over:
            assert f"Round {st.round} of 6" in desc and "to " in desc


def test_targets_read_the_notation():
    from pbem.engine.spyrium.draw import targets

    moves = ["place 1-2", "phase2 earn 4-5 5", "act 5 4-5 lob t2", "phase2 act 2 1-2 new +worker", "use 2 o1",
             "phase2 use 2", "event o1", "phase2 event 4-5", "pass", "phase2 pass"]
    assert targets(moves) == {
        ("space", "1-2"): ["place 1-2"], ("space", "4-5"): ["phase2 earn 4-5 5"],
        ("card", 5): ["act 5 4-5 lob t2"], ("card", 2): ["phase2 act 2 1-2 new +worker"],
        ("lot", 2): ["use 2 o1", "phase2 use 2"], ("event",): ["event o1", "phase2 event 4-5"],
        ("pass",): ["pass", "phase2 pass"]}
    assert targets(["t1 adv", "t2", "4-5"], {"pending": {"seat": 0}}) == {
        ("answer", "t1"): ["t1 adv"], ("answer", "t2"): ["t2"], ("answer", "4-5"): ["4-5"]}
