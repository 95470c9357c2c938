"""A mail's picture rendered band by band (pbem/mail/pictures.banded_png): the PNG joined from the
bands' rows is the whole drawing's PNG, pixel for pixel but for float rounding; each band is rendered
once and kept, so the next move's pictures render only the parts that changed; and a drawing that is
not cut into bands, or not as the drawing toolkit writes it, is rendered whole."""
from __future__ import annotations

import json
import math
import random
import re
import struct
import zlib

import pytest

from pbem.engine import get_game
from pbem.mail import pictures
from tests.pngs import decode

WIDTH = 340  # a quarter of the mail's pixels: the joining does not depend on the width (the ratio is 1)


def _positions(game: str, players: int, count: int, seed: int) -> list:
    """(state, seat) at random points of a random game, each seat and the observer in turn."""
    engine = get_game(game)
    rng = random.Random(seed)
    state = engine.initial_state(players, seed, {})
    found, ply = [], 0
    while engine.outcome(state) is None and len(found) < count:
        seat = rng.choice(sorted(engine.to_move(state)))
        state = engine.apply(state, seat, rng.choice(engine.legal_moves(state, seat)))
        ply += 1
        if ply % 7 == 0:
            found.append((state, [None, *range(players)][len(found) % (players + 1)]))
    return found


def _svg(game: str, state, seat) -> str:
    return pictures.draw(game, json.dumps(get_game(game).view(state, seat), sort_keys=True))


def _alike(a: bytes, b: bytes, rows: int | None = None) -> None:
    """The two PNGs show the same picture: the same size, and the same pixels but for a few scattered
    ones (a part moved down by a fraction of a unit computes an edge's coverage with other rounding,
    and without anti-aliasing that can turn a pixel on or off), never a row's worth at a cut."""
    wa, ha, rows_a = decode(a)
    wb, hb, rows_b = decode(b)
    if rows is not None:  # the first ``rows`` rows of each
        assert wa == wb and min(ha, hb) >= rows, (wa, ha, wb, hb)
        ha = hb = rows
        rows_a, rows_b = rows_a[:rows], rows_b[:rows]
    assert (wa, ha) == (wb, hb)
    off = 0
    for r, (ra, rb) in enumerate(zip(rows_a, rows_b)):
        if ra != rb:
            pixels = sum(ra[i:i + 4] != rb[i:i + 4] for i in range(0, len(ra), 4))
            assert pixels <= 0.1 * wa, f"row {r}: {pixels} pixels differ"
            off += pixels
    assert off <= 3e-4 * wa * ha, off


@pytest.mark.parametrize("game,players", [("spyrium", 4), ("spyrium", 2), ("iaww", 5), ("iaww", 1), ("squire", 4), ("squire", 2)])
def test_the_joined_bands_are_the_whole_drawing(game, players):
    for quality, (state, seat) in zip(("text-crisp", "crisp"), _positions(game, players, 2, 11 + players)):
        svg = _svg(game, state, seat)
        assert pictures.bands(svg) is not None, "the narrow drawing is cut into bands"
        _alike(pictures.banded_png(svg, WIDTH, quality), pictures.render_png(svg, WIDTH, quality=quality))
    if players < 4:
        return
    # and at a width whose pixels are not whole units (the budget's 3/4 step: 1.5 pixels a unit). There
    # resvg stretches a whole drawing whose height is not whole pixels to the next whole pixel (1797
    # units are 2695.5 pixels: 2696, a scale of 1.50028 down the column, half a pixel off at its foot);
    # the bands are drawn at 1.5 exactly, as is the whole drawing made a height of whole pixels
    state, seat = _positions(game, players, 1, 7)[0]
    svg = _svg(game, state, seat)
    box = re.search(r'viewBox="0 0 ([\d.]+) ([\d.]+)" width="[\d.]+" height="[\d.]+"', svg)
    height = float(box.group(2))
    even = math.ceil(height / 2) * 2  # 1.5 pixels a unit: whole pixels
    whole = svg.replace(box.group(0), f'viewBox="0 0 {box.group(1)} {even}" width="{box.group(1)}" height="{even}"')
    rows = math.floor(height * 1.5)  # the rows both show (below, the whole drawing's paper ends)
    _alike(pictures.banded_png(svg, 510, "crisp"), pictures.render_png(whole, 510, quality="crisp"), rows)


def test_a_move_renders_again_only_the_bands_it_changed(monkeypatch):
    game = "spyrium"
    engine = get_game(game)
    rng = random.Random(3)
    state = engine.initial_state(4, 3, {})
    rendered: list[str] = []
    real = pictures.render_png
    monkeypatch.setattr(pictures, "render_png",
                        lambda svg, width, quality="smooth": rendered.append(svg) or real(svg, width, quality=quality))
    monkeypatch.setattr(pictures, "kept", pictures.Kept())
    for seat in (None, 0, 1, 2, 3):
        pictures.banded_png(_svg(game, state, seat), WIDTH, "text-crisp")
    counts = []
    for _ in range(6):
        mover = rng.choice(sorted(engine.to_move(state)))
        state = engine.apply(state, mover, rng.choice(engine.legal_moves(state, mover)))
        rendered.clear()
        pngs = {seat: pictures.banded_png(_svg(game, state, seat), WIDTH, "text-crisp") for seat in (None, 0, 1, 2, 3)}
        counts.append(len(rendered))
        assert "<!--band" not in "".join(rendered), "each band is rendered alone"
        # what the kept bands make is what rendering every band now makes
        monkeypatch.setattr(pictures, "kept", pictures.Kept())
        assert pngs == {seat: pictures.banded_png(_svg(game, state, seat), WIDTH, "text-crisp")
                        for seat in (None, 0, 1, 2, 3)}
    bands = len(pictures.bands(_svg(game, state, 0))[4])
    # five pictures of ten bands or so: the parts a move did not touch, or that every seat sees alike,
    # are not rendered again (a move changes the market, the status and two players' panels)
    assert max(counts) < 2 * bands and sum(counts) < len(counts) * bands, (counts, bands)


def _png(width: int, rows: list[bytes], first_filter: int) -> bytes:
    """An RGBA PNG of ``rows``, its first row filtered with ``first_filter`` (from a row of zeros),
    the others with none."""
    prior = bytes(4 * width)
    line = rows[0]
    if first_filter == 0:
        first = line
    elif first_filter == 1 or first_filter == 4:  # Paeth from zeros predicts the left pixel, as "sub"
        first = bytes((line[i] - (line[i - 4] if i >= 4 else 0)) & 255 for i in range(len(line)))
    elif first_filter == 2:
        first = bytes((line[i] - prior[i]) & 255 for i in range(len(line)))
    else:
        first = bytes((line[i] - ((line[i - 4] if i >= 4 else 0) >> 1)) & 255 for i in range(len(line)))
    raw = bytes([first_filter]) + first + b"".join(b"\0" + r for r in rows[1:])

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, len(rows), 8, 6, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))


@pytest.mark.parametrize("first_filter", [0, 1, 2, 3, 4])
def test_a_band_under_another_reads_no_row_above_it(first_filter):
    """A PNG's first row is filtered against zeros; under another band it would be read against that
    band's last row, so the joined picture gives it a filter that reads no row above."""
    rng = random.Random(first_filter)
    width = 5
    top = [bytes(rng.randrange(256) for _ in range(4 * width)) for _ in range(3)]
    below = [bytes(rng.randrange(256) for _ in range(4 * width)) for _ in range(4)]
    pieces = [pictures._piece(_png(width, top, 0), width, 3), pictures._piece(_png(width, below, first_filter), width, 4)]
    joined = pictures._joined(width, pieces)
    assert decode(joined) == (width, 7, top + below)
    # and a band's rows past those it stands for (resvg gives a drawing whole units) are left out
    piece = pictures._piece(_png(width, below, first_filter), width, 2)
    assert decode(pictures._joined(width, [piece])) == (width, 2, below[:2])


def test_the_joined_checksum_is_zlibs():
    rng = random.Random(1)
    for _ in range(200):
        a = bytes(rng.randrange(256) for _ in range(rng.randrange(0, 300)))
        b = bytes(rng.randrange(256) for _ in range(rng.randrange(0, 70000, 97)))
        assert pictures._adler_joined(zlib.adler32(a), zlib.adler32(b), len(b)) == zlib.adler32(a + b)


def test_a_drawing_without_bands_or_of_another_shape_is_rendered_whole(monkeypatch):
    svg = _svg("spyrium", *_positions("spyrium", 3, 1, 5)[0])
    whole = svg.replace("<!--band ", "<!--cut ")
    assert pictures.bands(whole) is None
    assert pictures.banded_png(whole, WIDTH) == pictures.render_png(whole, WIDTH)
    odd = svg.replace('<!--band 0-->', '<!--band 0--><!--band 0-->', 1).replace(
        'fill="#FBF8F1"/><!--band', 'fill="#FBF8F1"/><circle cx="1" cy="1" r="1"/><!--band', 1)
    assert pictures.bands(odd) is None  # something drawn before the first band: not as Svg writes it
    # a band that is not what its drawing said (a renderer's other size) makes the whole drawing rendered
    monkeypatch.setattr(pictures, "_piece", lambda png, width, rows: None)
    monkeypatch.setattr(pictures, "kept", pictures.Kept())
    assert pictures.banded_png(svg, WIDTH) == pictures.render_png(svg, WIDTH)


def _toolkit_drawing(order: list[str], extra: str = "") -> str:
    """A drawing of two parts by the engines' toolkit, its symbols defined in ``order``."""
    from pbem.engine.drawing import PAPER, Svg, icon

    svg = Svg(340, 100)
    for name in order:  # what the drawing defines, and in which order, is its own business
        svg.symbol(f"icon-{name}", "0 0 20 20", '<circle cx="10" cy="10" r="8"/>')
    svg.band(0)
    icon(svg, "coin", 10, 10, 20, "#c90")
    svg.placed(50, lambda top: (svg.text(10, top + 20, "second" + extra, size=12), top + 40)[1])
    svg.height = 100
    svg.parts.insert(0, f'<rect x="0" y="0" width="340" height="100" fill="{PAPER}"/>')
    return svg.finish("title", "desc")


def test_a_band_is_rendered_with_the_definitions_it_uses_whatever_the_drawing_defined(monkeypatch):
    rendered: list[str] = []
    real = pictures.render_png
    monkeypatch.setattr(pictures, "render_png",
                        lambda svg, width, quality="smooth": rendered.append(svg) or real(svg, width, quality=quality))
    monkeypatch.setattr(pictures, "kept", pictures.Kept())
    one = _toolkit_drawing(["star", "coin"])
    two = _toolkit_drawing(["coin", "worker", "star"], extra="!")
    assert pictures.banded_png(one, WIDTH) and len(rendered) == 2
    assert 'id="b-icon-coin"' in rendered[0] and "b-icon-star" not in rendered[0], "the first band uses the coin"
    assert "<defs>" not in rendered[1], "the second uses nothing"
    rendered.clear()
    pictures.banded_png(two, WIDTH)
    assert len(rendered) == 1 and "second!" in rendered[0], "the first band is the same band"
    _alike(pictures.banded_png(two, WIDTH), real(two, WIDTH))
    # a band that refers to something that is not a definition is not rendered apart from it
    odd = two.replace('href="#b-icon-coin"', 'href="#elsewhere"')
    assert pictures.banded_png(odd, WIDTH) == real(odd, WIDTH)


def test_a_step_whose_kept_bands_pass_the_budget_is_not_rendered(monkeypatch):
    """The seats of a move share most bands: a seat's picture whose bands already kept weigh more than
    the mail's budget is not rendered at that step (its PNG would be heavier still), and the next
    step is."""
    monkeypatch.setattr(pictures, "kept", pictures.Kept())
    state, _seat = _positions("spyrium", 4, 1, 5)[0]
    observer, seat = _svg("spyrium", state, None), _svg("spyrium", state, 1)
    first = pictures.banded_png(observer, WIDTH, "text-crisp")
    rendered: list[str] = []
    real = pictures.render_png
    monkeypatch.setattr(pictures, "render_png",
                        lambda svg, width, quality="smooth": rendered.append(svg) or real(svg, width, quality=quality))
    budget = len(first) // 2  # the observer's bands, which the seat shares, are over it on their own
    assert pictures.banded_png(seat, WIDTH, "text-crisp", budget) is None and rendered == []
    whole = pictures.banded_png(seat, WIDTH, "text-crisp")  # without a budget: rendered
    assert rendered and len(whole) > budget
    png, step = pictures.stepped_png(seat, WIDTH, budget)
    assert step > 0 and png == pictures.banded_png(seat, *pictures._steps(WIDTH)[step])


def test_the_tests_png_reader_undoes_every_filter():
    """tests/pngs.decode, which the comparisons above read pictures with, against rows filtered here
    with each of PNG's filters."""
    rng = random.Random(9)
    width, rows = 7, [bytes(rng.randrange(256) for _ in range(28)) for _ in range(6)]
    prior, raw = bytes(28), b""
    for kind, line in zip((0, 1, 2, 3, 4, 2), rows):
        def left(i, row=line):
            return row[i - 4] if i >= 4 else 0

        def paeth(i, row=line, up=prior):
            a, b, c = left(i), up[i], (up[i - 4] if i >= 4 else 0)
            p = a + b - c
            return a if abs(p - a) <= abs(p - b) and abs(p - a) <= abs(p - c) else b if abs(p - b) <= abs(p - c) else c
        predict = {0: lambda i: 0, 1: left, 2: lambda i, up=prior: up[i],
                   3: lambda i, up=prior: (left(i) + up[i]) >> 1, 4: paeth}[kind]
        raw += bytes([kind]) + bytes((line[i] - predict(i)) & 255 for i in range(28))
        prior = line

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    png = (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, 6, 8, 6, 0, 0, 0))
           + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))
    assert decode(png) == (width, 6, rows)
