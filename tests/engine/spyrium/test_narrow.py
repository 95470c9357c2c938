"""Spyrium's narrow (phone and mail) drawing: a column drawing.NARROW_WIDTH units wide with no text
under drawing.MIN_TEXT, the wide drawing's clickable parts with the same moves and titles, nothing
past the column's edges, no two texts on each other, no card or event name cut with "…" (in either
layout), over many positions, seats, player counts and the four languages; golden files for a few,
and the mail's renderer makes a PNG of it."""
from __future__ import annotations

import json
import os
import random
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from pbem.engine.drawing import NARROW_WIDTH
from pbem.engine.i18n import language
from pbem.engine.spyrium import GAME
from pbem.engine.spyrium.data import CARDS
from pbem.engine.spyrium.draw import text_width
from pbem.engine.spyrium.i18n import card_label, card_name, card_short, name_key
from pbem.engine.spyrium.state import PASS, PLACE
from tests.pngs import size as png_size

from ..layouts import check_narrow, offsets, overlapping
from .test_draw import CASES, _moves
from .test_views import _play

GOLDEN = Path(__file__).parent / "golden"
NS = "{http://www.w3.org/2000/svg}"
LANGS = ("en", "ru", "bg", "it")
LONG_NAMES = ["Александра Константинопольская", "Bartholomew", "Cleo", "Dai", "Eve"]


def _draw(st, seat, layout, names=None):
    v = GAME.view(st, seat)
    if names:
        v["names"] = names[:st.n]
    return GAME.draw_svg(v, _moves(st, seat), layout)


def _walk(n, seed, every):
    """Positions of one random game of ``n`` that mostly places its workers first (as players do,
    so the market fills), every ``every`` plies, the pending decisions and the end."""
    rng = random.Random(seed)
    st = GAME.initial_state(n, seed, {})
    out, ply, pending = [st], 0, 0
    while not st.over:
        legal = GAME.legal_moves(st, st.turn)
        p = st.ps[st.turn]
        keep = [m for m in legal if m[0] == PLACE] if p.phase == 1 and p.active and rng.random() < 0.8 else []
        keep = keep or [m for m in legal if m[0] != PASS or rng.random() < 0.3] or legal
        st = GAME.apply(st, st.turn, keep[rng.randrange(len(keep))])
        ply += 1
        pending += bool(st.pending)
        if (st.pending and pending % 2) or ply % every == 0 or st.over:  # every other pending decision
            out.append(st)
    return out


def _positions():
    """(id, state, seats to draw for) over 2 to 5 players: the seat to move (with its moves), another
    seat and an observer."""
    cases = []
    for n in (2, 3, 4, 5):
        for k, st in enumerate(_walk(n, 60 + n, 12 + 2 * n)):
            who = st.turn if not st.over else 0
            cases.append((f"{n}p-{k}", st, (who, (who + 1) % n, None) if k % 4 == 0 else (who, None)))
    return cases


POSITIONS = _positions()


# ---------------------------------------------------------------- geometry read back from the drawing


def _texts(root):
    """Each <text>: (x0, x1, top, bottom, text), its extent estimated with the drawing's own widths."""
    out = []
    for e, dx, dy in offsets(root):
        if e.tag != NS + "text":
            continue
        size = float(e.get("font-size"))
        text = e.text or ""
        w = text_width(text, size, e.get("font-weight") == "bold")
        x, y = float(e.get("x")) + dx, float(e.get("y")) + dy
        anchor = e.get("text-anchor") or "start"
        x0 = x - w / 2 if anchor == "middle" else x - w if anchor == "end" else x
        out.append((x0, x0 + w, y - 0.74 * size, y + 0.2 * size, text))
    return out


def _outside(root, width):
    """The shapes and texts that pass the drawing's left or right edge."""
    bad = []
    for x0, x1, _t, _b, text in _texts(root):
        if x0 < -0.5 or x1 > width + 0.5:
            bad.append((text, round(x0, 1), round(x1, 1)))
    for e in root.iter():
        tag = e.tag.removeprefix(NS)
        if tag in ("rect", "use"):
            x, w = float(e.get("x")), float(e.get("width"))
            if x < -0.5 or x + w > width + 0.5:
                bad.append((tag, x, x + w))
        elif tag == "circle":
            cx, r = float(e.get("cx")), float(e.get("r"))
            if cx - r < -0.5 or cx + r > width + 0.5:
                bad.append((tag, cx, r))
    return bad


def _overlaps(root):
    """Pairs of texts drawn on each other."""
    return overlapping(_texts(root))


def _cut_names(svg):
    """Texts that are a card's or an event's name cut with "…" (in the current language)."""
    names = set()
    for c in CARDS:
        names |= {card_name(c.name), card_short(c.name), card_label(c.name)}
    root = ET.fromstring(svg)
    cut = []
    for e in root.iter(NS + "text"):
        t = (e.text or "").strip()
        if t.endswith("…"):
            stem = t[:-1].strip()
            if any(n.startswith(stem) for n in names if n != stem):
                cut.append(t)
    return cut


def _pick_titles(svg):
    """Each clickable group's moves (as a sorted tuple) with its title."""
    root = ET.fromstring(svg)
    return {tuple(sorted(json.loads(e.get("data-moves")))): e.find(NS + "title").text
            for e in root.iter(NS + "g") if e.get("data-moves")}


# ---------------------------------------------------------------- the checks


@pytest.mark.parametrize("lang", LANGS)
def test_narrow_drawings_keep_the_rules_of_the_column(lang):
    with language(lang):
        for cid, st, seats in POSITIONS:
            for who in seats:
                names = LONG_NAMES if cid.endswith("-1") else None
                wide, narrow = _draw(st, who, "wide", names), _draw(st, who, "narrow", names)
                try:
                    check_narrow(wide, narrow)
                    root = ET.fromstring(narrow)
                    assert not _outside(root, NARROW_WIDTH), _outside(root, NARROW_WIDTH)[:6]
                    assert not _overlaps(root), _overlaps(root)[:6]
                    assert _pick_titles(narrow) == _pick_titles(wide)
                    assert root.find(NS + "title").text == ET.fromstring(wide).find(NS + "title").text
                    assert not _cut_names(narrow) and not _cut_names(wide), (_cut_names(narrow), _cut_names(wide))
                except AssertionError as e:
                    raise AssertionError(f"{lang} {cid} seat {who}: {e}") from e


def test_the_cases_of_the_wide_tests_too():
    for lang in LANGS:
        with language(lang):
            for name, st, seats, names in CASES:
                for who in seats:
                    wide, narrow = _draw(st, who, "wide", names), _draw(st, who, "narrow", names)
                    check_narrow(wide, narrow)
                    root = ET.fromstring(narrow)
                    assert not _outside(root, NARROW_WIDTH) and not _overlaps(root), (lang, name, who)
                    assert _pick_titles(narrow) == _pick_titles(wide)
                    assert not _cut_names(narrow) and not _cut_names(wide), (lang, name)


def test_the_order_is_market_then_own_panel_then_the_others():
    st = next(s for cid, s, _seats in POSITIONS if cid.startswith("4p") and not s.over and s.round >= 2)
    seat = (st.turn + 2) % 4
    out = GAME.draw_svg(GAME.view(st, seat), (), "narrow")
    at = {m: out.index(f'id="spyn-{m}"') for m in ("card-1", "event", "score-track", "supply")
          if f'id="spyn-{m}"' in out}
    panels = [out.index(f'id="spyn-player-{s}"') for s in range(4)]
    assert at["card-1"] < panels[seat] == min(panels) and max(panels) < at["score-track"] < at["supply"]
    others = [s for s in range(4) if s != seat]
    assert [panels[s] for s in others] == sorted(panels[s] for s in others)
    observer = GAME.draw_svg(GAME.view(st, None), (), "narrow")
    assert [observer.index(f'id="spyn-player-{s}"') for s in range(4)] == sorted(
        observer.index(f'id="spyn-player-{s}"') for s in range(4))


def test_a_pending_choice_comes_first():
    st = _play(4, 7, 10_000, stop_on_pending=True)
    out = _draw(st, st.turn, "narrow")
    assert out.index('id="spyn-pending"') < out.index('id="spyn-card-1"')
    assert _pick_titles(out) == _pick_titles(_draw(st, st.turn, "wide"))


def test_unknown_layout_is_refused():
    with pytest.raises(ValueError):
        GAME.draw_svg(GAME.view(GAME.initial_state(2, 1, {}), 0), (), "tall")


def test_names_that_do_not_fit_take_a_second_line_or_a_shorter_form():
    """In Russian the wide market card has no room for "Проектирование" on one line: it takes two,
    broken with a hyphen, where it was cut; a district card's "Лаборатория £5" loses its price (shown
    under it) or takes a line of its own."""
    from pbem.engine.spyrium.draw import _hyphenate, _name_lines

    with language("ru"):
        assert _name_lines(["Проектирование"], 120, 15) == ["Проектиро-", "вание"]
        assert _name_lines(["Рабочий Посёлок", "Посёлок"], 100, 15) == ["Посёлок"]
        assert _name_lines(["Рабочий Посёлок"], 100, 15) == ["Рабочий", "Посёлок"]
    assert _hyphenate("Capitalizzazione", 80, 12, True)[0] == "Capitaliz-"
    assert _hyphenate("Automazione", 80, 12, True) == ["Automa-", "zione"]  # never two letters alone
    for lang in ("ru", "bg", "it"):
        with language(lang):
            for name, st, seats, names in CASES:
                for layout in ("wide", "narrow"):
                    out = _draw(st, seats[0], layout, names)
                    assert not _cut_names(out), (lang, name, layout, _cut_names(out))
    assert name_key("Workers' Quarters") == "workers_quarters"


def test_every_text_is_at_least_11_units_and_nothing_is_scaled():
    for name, st, seats, names in CASES:
        out = _draw(st, seats[0], "narrow", names)
        root = ET.fromstring(out)
        assert min(float(e.get("font-size")) for e in root.iter(NS + "text")) >= 11
        # the parts are moved down as they are (translate), nothing shrinks or turns
        assert not re.findall(r'transform="(?!translate\(0,[\d.]+\)")', out)


# ---------------------------------------------------------------- golden files and the picture

# (case of test_draw, which of its seats, language): the seat to move at the start and in a pending
# choice, an observer of the end, a seat of the crowded five-player middle in Russian
GOLDEN_CASES = [("start", 0, "en"), ("pending", 0, "en"), ("end", 1, "en"), ("mid", 0, "ru")]


def test_golden_narrow_drawings():
    update = os.environ.get("PBEM_UPDATE_GOLDEN") == "1"
    by_name = {c[0]: c for c in CASES}
    for name, k, lang in GOLDEN_CASES:
        _n, st, seats, names = by_name[name]
        who = seats[k]
        with language(lang):
            out = _draw(st, who, "narrow", names)
            assert _draw(st, who, "narrow", names) == out  # deterministic
        path = GOLDEN / f"narrow-{name}-{'observer' if who is None else f'seat{who}'}-{lang}.svg"
        if update:
            path.write_text(out)
        assert path.read_text() == out, f"{path.name} differs (PBEM_UPDATE_GOLDEN=1 to refresh)"


@pytest.mark.parametrize("name,lang", [("pending", "en"), ("mid", "bg"), ("end", "it")])
def test_the_mail_renderer_makes_a_png_680_wide(name, lang):
    from pbem.mail.pictures import render_png

    _n, st, seats, names = {c[0]: c for c in CASES}[name]
    with language(lang):
        out = _draw(st, seats[0], "narrow", names)
    png = render_png(out, 2 * NARROW_WIDTH)
    width, height = png_size(png)
    box = [float(x) for x in re.search(r'viewBox="([^"]+)"', out).group(1).split()]
    assert width == 680 and abs(height - 2 * box[3]) <= 2
