"""The drawing toolkit's clickable elements: a group with
``data-moves`` is a focusable button named by its title, and a drawing that
has one is an ARIA group (an image's children are presentational: a screen
reader would never reach the buttons, and axe reports nested-interactive);
a drawing without one, as in the mail, stays an image."""
from __future__ import annotations

import html
import json
import re

from pbem.engine.drawing import Svg, moves_attr


def _head(svg: str) -> str:
    return svg.split(">", 1)[0]


def test_a_drawing_without_moves_is_an_image():
    s = Svg(100, 50)
    s.rect(0, 0, 100, 50, fill="#fff")
    s.open(class_="area")
    s.close()
    out = s.finish("A board", "Nothing to click.")
    assert 'role="img"' in _head(out) and "data-moves" not in out and 'aria-labelledby="b-title b-desc"' in out


def test_a_drawing_with_moves_is_a_group_of_buttons():
    s = Svg(100, 50)
    s.open(data_moves=moves_attr(["place 1-2", "place 1-2", 'say "hi"']), class_="space")
    s.title("Space 1-2")
    s.rect(0, 0, 10, 10)
    s.close()
    out = s.finish("A board", "One space to click.")
    assert 'role="group"' in _head(out)
    g = re.search(r"<g ([^>]*)>", out).group(1)
    assert 'class="pick space"' in g and 'tabindex="0"' in g and 'role="button"' in g
    raw = re.search(r'data-moves="([^"]*)"', g).group(1)
    assert json.loads(html.unescape(raw)) == ["place 1-2", 'say "hi"']  # once each, escaped in the attribute
    assert "<title>Space 1-2</title>" in out
