"""The mail's renderer (pbem.mail.pictures.render_png): resvg with the fonts shipped beside it, read
once per thread. The same drawing gives the same PNG from any thread, each quality is honoured,
the size is the one asked for, and a drawing that cannot be read is a ValueError."""
from __future__ import annotations

import json
import math
import threading

import pytest

from pbem.engine import get_game
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
