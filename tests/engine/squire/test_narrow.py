"""Squire's narrow drawing (a phone's page and the mail's picture): a column 340 units wide with the same
clickable parts as the wide one (tests/engine/layouts.py), over many positions, both board sides, 2 to 4
players, observers, pending decisions and the long names of ru, bg and it; nothing drawn past the
column's edges, no name cut with an ellipsis, golden SVGs of a few, and PNGs that the mail's renderer makes."""
import functools
import os
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from pbem.engine import validate_options
from pbem.engine.drawing import NARROW_WIDTH
from pbem.engine.i18n import language
from pbem.engine.playout import random_playout
from pbem.engine.squire import GAME
from tests.pngs import size as png_size

from ..layouts import check_narrow, overlapping, picks
from .ttf import width
from .util import check_golden, golden_positions

NS = "{http://www.w3.org/2000/svg}"
LANGS = ("en", "ru", "bg", "it")


def _moves(state, seat):
    if seat is None or seat not in GAME.to_move(state):
        return []
    return [GAME.format_move(state, seat, m) for m in GAME.legal_moves(state, seat)]


@functools.lru_cache(maxsize=None)
def _positions():
    """name -> (state, seat): the start of each side and player count (observer and a seat), the golden
    boards' positions, the first position of every step of a turn in random games of both sides (the
    seat to move: its pending decision), a finished game of each side."""
    out = {}
    for side in ("british", "world"):
        for n in (2, 3, 4):
            s = GAME.initial_state(n, 7, validate_options(GAME, n, {"side": side}))
            out[f"{side}-start{n}-obs"] = (s, None)
            out[f"{side}-start{n}-seat0"] = (s, 0)
        s = GAME.initial_state(3, 8, validate_options(GAME, 3, {"side": side, "boards": "random"}))
        out[f"{side}-random-boards3"] = (s, min(GAME.to_move(s)))
    golden = golden_positions()
    out["british-mid4-obs"] = (golden["mid4"], None)
    out["british-mid4-seat0"] = (golden["mid4"], 0)
    out["british-move4-active"] = (golden["move4"], min(GAME.to_move(golden["move4"])))
    out["world-final2-obs"] = (golden["final2"], None)
    out["world-final2-seat1"] = (golden["final2"], 1)
    for n, side, seed in ((2, "world", 71), (3, "british", 72), (4, "world", 73), (4, "british", 74)):
        seen = set()

        def on_move(before, seat, move, after, side=side, n=n, seen=seen):
            if after.phase not in seen and GAME.to_move(after):
                seen.add(after.phase)
                out[f"{side}-{n}p-{after.phase}"] = (after, min(GAME.to_move(after)))

        final, _ = random_playout(GAME, n, seed, {"side": side}, rng_seed=seed, on_move=on_move)
        out[f"{side}-{n}p-over"] = (final, 0)
    out["british-take"] = (_take_step(), 0)
    return out


def _take_step():
    """A seat that filled its gallery's third floor, to take an exhibit from the discard (a random game
    seldom gets there)."""
    from dataclasses import replace

    from pbem.engine.squire.rules import TRADE

    from .util import at_move, gallery, new, play, player, put, tok

    s = new(4)
    s = player(s, 0, coins=40, gallery=gallery(("F3C1", "painting-01"), ("F3C2", "painting-02"),
                                               ("F3C3", "painting-03")))
    s = replace(s, discard=(tok("sculpture-11"), tok("ceramics-02")))
    s = put(at_move(s, 0, "york", TRADE), "york", "jewellery-01")
    s = play(s, 0, "buy offers none", "cell F3C4")
    assert s.phase == "take"
    return s


def _cases():
    """Every position in English, and each again in one of ru, bg, it in turn."""
    keys = sorted(_positions())
    return [(k, "en") for k in keys] + [(k, LANGS[1 + i % 3]) for i, k in enumerate(keys)]


def _draw(key, lang, layout):
    state, seat = _positions()[key]
    with language(lang):
        v = GAME.view(state, seat)
        return GAME.draw_svg(v, _moves(state, seat), layout)


def _pick_titles(svg):
    """(title, moves) of every clickable group: a click on it names the same thing in both layouts."""
    root = ET.fromstring(svg)
    return sorted((g.find(NS + "title").text, g.get("data-moves")) for g in root.iter(NS + "g")
                  if g.get("data-moves"))


def _text_boxes(svg):
    """Each <text>: (x0, x1, top, bottom, text) in the drawing's coordinates, its width measured in the
    DejaVu fonts (the map is a translated group)."""
    out = []

    def walk(e, dx, dy):
        m = re.match(r"translate\(([-\d.]+)[ ,]+([-\d.]+)\)", e.get("transform") or "")
        if m:
            dx, dy = dx + float(m.group(1)), dy + float(m.group(2))
        if e.tag == NS + "text" and e.text:
            size = float(e.get("font-size"))
            w = width(e.text, size, bold=e.get("font-weight") == "bold")
            x, y = float(e.get("x")) + dx, float(e.get("y")) + dy
            anchor = e.get("text-anchor") or "start"
            x0 = {"start": x, "middle": x - w / 2, "end": x - w}[anchor]
            out.append((x0, x0 + w, y - 0.74 * size, y + 0.2 * size, e.text))
        for child in e:
            walk(child, dx, dy)

    walk(ET.fromstring(svg), 0.0, 0.0)
    return out


def _texts_outside(svg, lo=0.0, hi=float(NARROW_WIDTH)):
    """The texts that reach past the column's edges."""
    return [(t, round(x0, 1), round(x1, 1)) for x0, x1, _top, _bottom, t in _text_boxes(svg)
            if x0 < lo - 0.5 or x1 > hi + 0.5]


def _overlaps(svg):
    """Pairs of texts drawn on each other."""
    return overlapping(_text_boxes(svg))


@pytest.mark.parametrize("key,lang", _cases())
def test_narrow_is_the_wide_drawing_in_a_column(key, lang):
    wide, narrow = _draw(key, lang, "wide"), _draw(key, lang, "narrow")
    check_narrow(wide, narrow)
    assert _pick_titles(narrow) == _pick_titles(wide)
    assert narrow == _draw(key, lang, "narrow")  # deterministic
    texts = [e.text or "" for e in ET.fromstring(narrow).iter(NS + "text")]
    assert not [t for t in texts if "…" in t], "a name cut with an ellipsis instead of wrapped"
    assert not _texts_outside(narrow), _texts_outside(narrow)[:5]
    assert not _overlaps(narrow), _overlaps(narrow)[:5]
    for tag in ("title", "desc"):  # what a screen reader says, in the reader's language like the wide one's
        assert ET.fromstring(narrow).find(NS + tag).text == ET.fromstring(wide).find(NS + tag).text


def test_the_moves_are_offered_somewhere():
    """The cases cover every step of a turn, and the board offers moves to click in them."""
    phases = {state.phase for state, _seat in _positions().values()}
    assert phases >= {"board", "start", "move", "trade", "offers", "cell", "take", "exhibit", "accept", "swap",
                      "over"}, phases
    offered = {key for key in _positions() if _moves(*_positions()[key])}
    assert len(offered) > 20
    for key in sorted(offered)[::5]:
        assert picks(_draw(key, "en", "narrow"))


def test_no_ellipsis_in_the_wide_drawing_either():
    """A translated region ("Пътят на коприната и Далечният изток") wraps in the market and the legend."""
    for key in ("world-start4-obs", "world-final2-seat1", "british-mid4-seat0"):
        for lang in LANGS:
            texts = [e.text or "" for e in ET.fromstring(_draw(key, lang, "wide")).iter(NS + "text")]
            assert not [t for t in texts if "…" in t], (key, lang)


def test_unknown_layout_is_refused():
    state, seat = _positions()["british-start2-obs"]
    with pytest.raises(ValueError):
        GAME.draw_svg(GAME.view(state, seat), (), "tall")


def test_a_board_without_geography_in_a_column():
    """Replacement data whose cities geo.json does not know: the schematic ring, narrow too."""
    s = GAME.initial_state(3, 1, validate_options(GAME, 3, {"side": "british"}))
    v = GAME.view(s, 0)
    for c in v["cities"]:
        c["id"] = "x_" + c["id"]
    check_narrow(GAME.draw_svg(v), GAME.draw_svg(v, (), "narrow"))
    assert not _texts_outside(GAME.draw_svg(v, (), "narrow"))


GOLDEN = [("british-move4-active", "en"), ("world-final2-seat1", "ru"), ("british-mid4-obs", "it")]


@pytest.mark.parametrize("key,lang", GOLDEN)
def test_golden_narrow_drawings(key, lang):
    check_golden(f"narrow-{key}-{lang}.svg", _draw(key, lang, "narrow"))


@pytest.mark.parametrize("key,lang", [("british-move4-active", "en"), ("world-final2-seat1", "ru")])
def test_the_mail_renders_the_narrow_drawing(key, lang):
    """At twice the column's width, as the mail sends it; its height follows the drawing's."""
    from pbem.mail.pictures import render_png

    svg = _draw(key, lang, "narrow")
    height = float(ET.fromstring(svg).get("viewBox").split()[3])
    png = render_png(svg, 2 * NARROW_WIDTH)
    w, h = png_size(png)
    assert w == 2 * NARROW_WIDTH and abs(h - 2 * height) <= 1
    assert 50_000 < len(png) < 1_000_000
    if os.environ.get("PBEM_SCREENSHOTS") == "1":  # docs/screenshots/narrow/, written on request
        out = Path(__file__).resolve().parents[3] / "docs" / "screenshots" / "narrow"
        out.mkdir(parents=True, exist_ok=True)
        (out / f"squire-{key.split('-')[0]}-{lang}.png").write_bytes(png)


def test_the_label_widths_are_the_fonts():
    """data/glyphs.json (the label placement's letter widths) is what scripts/squire_glyphs.py reads
    from the DejaVu fonts the mail renders with."""
    import json

    from pbem.engine.squire import draw

    from .ttf import advances

    table = json.loads((Path(draw.__file__).parent / "data" / "glyphs.json").read_text(encoding="utf-8"))
    for name, font in (("bold", "DejaVuSans-Bold.ttf"), ("regular", "DejaVuSans.ttf")):
        upem, adv = advances(font)
        assert table["upem"] == upem
        assert all(adv[ord(ch)] == w for ch, w in table[name].items())
        assert set("Рио-де-ЖанейроПътят на коприната и Далечният изтокCittà del CapoTimbuctù") <= set(table[name])


@pytest.mark.parametrize("key", ["british-mid4-obs", "world-final2-obs", "world-start3-obs"])
def test_the_picture_is_cut_into_its_parts_and_the_seats_share_them(key):
    """The mail renders the column part by part and keeps each part's pixels (pbem/mail/pictures.py):
    every part after the title is drawn from its own top, the map a part per panel; each seat's picture
    has the observer's definitions, and every part of it but the seat's own (its panel, its hand, the
    map where it may move) is the observer's, byte for byte, so it is rendered once for all."""
    from pbem.mail.pictures import bands

    state, _seat = _positions()[key]
    n = len(state.players)

    def parts(seat):
        view = GAME.view(state, seat)
        root, defs, _paper, _width, rows = bands(GAME.draw_svg(view, (), "narrow"))
        assert rows[0][2].startswith("<text")  # the title, drawn where it stands
        assert all(body.startswith('<g transform="translate(0,') for _top, _end, body in rows[1:])
        return defs, [re.sub(r"^<g transform=\"translate\(0,[\d.]+\)\">", "", body) for _t, _e, body in rows[1:]], view

    defs, seen, _view = parts(None)
    panels = sum(1 for body in seen if re.match(r'<g id="sq-map(-\d)?"', body))
    assert panels == (3 if key.startswith("world") else 2)
    for seat in range(n):
        own_defs, mine, view = parts(seat)
        assert own_defs == defs
        own = [body for body in mine if body not in seen]
        reach = bool((view.get("reach") or {}).get("cities"))
        assert len(own) <= 2 + (panels if reach else 0), (seat, [body[:80] for body in own])
