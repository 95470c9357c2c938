"""The mail's renderer (pbem.mail.pictures.render_png): resvg with the fonts shipped beside it, read
once per thread. The same drawing gives the same PNG from any thread, each quality is honoured,
the size is the one asked for, and a drawing that cannot be read is a ValueError. A bold label is laid
out from the bold face named as a family of its own (quicker to lay out than a bold weight), and that
gives the same PNG, byte for byte, as the bold weight."""
from __future__ import annotations

import json
import math
import threading

import pytest

from pbem.engine import get_game
from pbem.engine.drawing import FONT
from pbem.mail import pictures
from tests.pngs import size as png_size


def _drawing(game: str = "spyrium", players: int = 3) -> str:
    engine = get_game(game)
    state = engine.initial_state(players, 5, {"side": "british"} if game == "squire" else {})
    return pictures.draw(game, json.dumps(engine.view(state, 0), sort_keys=True))


def test_the_same_drawing_gives_the_same_png_from_every_thread():
    svg = _drawing()
    here = pictures.render_png(svg, 340)
    got: dict[int, bytes] = {}

    def render(n):
        got[n] = pictures.render_png(svg, 340)  # each thread reads the fonts into its own options

    threads = [threading.Thread(target=render, args=(n,)) for n in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert got == {0: here, 1: here, 2: here}
    assert pictures.render_png(svg, 340) == here  # and this thread's options still serve it


def test_each_quality_is_honoured():
    svg = _drawing("iaww", 2)
    smooth, text_crisp, crisp = (pictures.render_png(svg, 340, quality=q) for q in ("smooth", "text-crisp", "crisp"))
    assert len({smooth, text_crisp, crisp}) == 3
    assert len(text_crisp) < len(smooth)  # text without anti-aliasing: fewer bytes
    assert png_size(smooth) == png_size(text_crisp) == png_size(crisp)


@pytest.mark.parametrize("width", [340, 511, 680])
def test_the_png_is_as_wide_as_asked_and_keeps_the_drawings_shape(width):
    svg = _drawing("squire", 2)
    w, h = (float(x) for x in pictures._VIEWBOX.search(svg).groups())
    got_w, got_h = png_size(pictures.render_png(svg, width))
    assert got_w == width and abs(got_h - h * width / w) <= 1
    assert png_size(pictures.render_png(svg)) == (math.ceil(w), math.ceil(h))  # no width: its own size, whole pixels


@pytest.mark.parametrize("svg", ["not a drawing", "", '<svg xmlns="http://www.w3.org/2000/svg" width="0" height="0"/>'])
def test_a_drawing_that_cannot_be_read_is_a_value_error(svg):
    with pytest.raises(ValueError, match="cannot be read"):
        pictures.render_png(svg, 100)


def _as_weight(monkeypatch):
    """Renders with every bold label asked for by its weight, as a drawing says it."""
    monkeypatch.setattr(pictures, "_as_bold_family", lambda svg, root: svg)


def _label(text: str, extra: str = "", root_font: str = FONT) -> str:
    return (f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 320 40" width="320" height="40" '
            f'font-family="{root_font}"><text x="160" y="26" font-size="16" text-anchor="middle" '
            f'font-weight="bold"{extra} fill="#222222">{text}</text></svg>')


@pytest.mark.parametrize("game,players", [("spyrium", 4), ("squire", 2), ("iaww", 5)])
def test_a_boards_bold_labels_give_the_same_png_as_the_bold_weight(monkeypatch, game, players):
    svg = _drawing(game, players)
    assert ' font-weight="bold"' in svg and f'font-family="{pictures.BOLD_FAMILY}"' not in svg
    root = pictures._ROOT.search(svg)
    assert pictures._as_bold_family(svg, root).count(f'font-family="{pictures.BOLD_FAMILY}"') == svg.count(
        ' font-weight="bold"')
    fast = {q: pictures.render_png(svg, 680, quality=q) for q in pictures.QUALITIES}
    _as_weight(monkeypatch)
    assert fast == {q: pictures.render_png(svg, 680, quality=q) for q in pictures.QUALITIES}


@pytest.mark.parametrize("name", ["Zoë Øyvind", "Ёжик Ѝ", "Ἀθηνᾶ", "Ա Հայ", "עברית", "李雷", "ﬁne ﬂy",
                                  "₿ ₹ ₽", "⚔ ♛ ★", "a\u0301e\u0308"])
def test_a_bold_name_in_any_script_gives_the_same_png(monkeypatch, name):
    # letters of the bold face, of the regular face only, and of none of the faces: the same fallback
    svg = _label(name)
    assert f'font-family="{pictures.BOLD_FAMILY}"' in pictures._as_bold_family(svg, pictures._ROOT.search(svg))
    fast = pictures.render_png(svg, 320)
    _as_weight(monkeypatch)
    assert pictures.render_png(svg, 320) == fast


def test_the_bold_family_is_one_the_renderer_knows():
    assert pictures.BOLD_FAMILY in pictures._options().list_fonts()
    assert pictures._bold_as_family(b"not a font") is None


@pytest.mark.parametrize("svg", [
    _label("own family", extra=' font-family="DejaVu Sans Mono"'),  # a text that names its family
    _label("own style", extra=' font-style="italic"'),  # or its style
    _label("a group's style").replace("<text", '<g font-style="italic"><text').replace("</svg>", "</g></svg>"),
    _label("another root", root_font="serif"),  # a drawing not in DejaVu Sans
    _label("a group's weight").replace("<text", '<g font-weight="normal"><text').replace("</svg>", "</g></svg>"),
    _label("a style attribute").replace("<text", '<text style="font-style: italic"'),
    _label("a style sheet").replace("<text", "<style>text { font-family: serif }</style><text"),
])
def test_a_text_whose_font_something_else_may_set_keeps_its_weight(svg):
    assert pictures._as_bold_family(svg, pictures._ROOT.search(svg)) == svg
