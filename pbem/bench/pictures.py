"""The cost of a board picture in the mail, on the real path's
functions: the seat's view drawn as SVG by its engine in the mail's layout
(pbem/mail/pictures.draw: the narrow one), then rendered to the mail's PNG
(pbem/mail/pictures.mail_png), at positions of random games; CPU per picture,
the PNG's bytes and how many needed more than one rendering to fit the mail."""
from __future__ import annotations

import json
import random
import statistics
import time

from pbem.engine import get_game


def positions(game: str, players: int, count: int, seed: int, options: dict | None = None) -> list[dict]:
    """``count`` views of random games, spread over the whole game, each for a seat (or the observer)."""
    engine = get_game(game)
    rng = random.Random(seed)
    views: list[dict] = []
    while len(views) < count:
        state = engine.initial_state(players, rng.randrange(1 << 30), options or {})
        stops = sorted(rng.sample(range(400), 4))
        ply = 0
        while engine.outcome(state) is None and len(views) < count:
            if stops and ply == stops[0]:
                stops.pop(0)
                views.append(engine.view(state, rng.choice([None, *range(players)])))
            to_move = sorted(engine.to_move(state))
            if not to_move:
                break
            seat = rng.choice(to_move)
            state = engine.apply(state, seat, rng.choice(engine.legal_moves(state, seat)))
            ply += 1
        if engine.outcome(state) is not None and len(views) < count:
            views.append(engine.view(state, rng.randrange(players)))
    return views[:count]


def run(game: str, players: int, count: int, width: int, seed: int = 1, options: dict | None = None) -> dict:
    from pbem.mail.pictures import draw, render_png, stepped_png

    views = [json.dumps(v, sort_keys=True) for v in positions(game, players, count, seed, options)]
    render_png(draw(game, views[0]), width)  # the fonts loaded once, as in a worker
    draw_ms, render_ms, sizes, heights, retried = [], [], [], [], 0
    for view in views:
        c0 = time.process_time()
        svg = draw(game, view)
        c1 = time.process_time()
        png, step = stepped_png(svg, width)
        c2 = time.process_time()
        draw_ms.append((c1 - c0) * 1000)
        render_ms.append((c2 - c1) * 1000)
        sizes.append(len(png))
        heights.append(int.from_bytes(png[20:24], "big"))
        retried += step > 0
    label = game + (f" ({options['side']})" if options and "side" in options else "")
    return {"game": label, "players": players, "pictures": len(views), "width px": width,
            "draw ms (median)": round(statistics.median(draw_ms), 1),
            "render ms (median)": round(statistics.median(render_ms), 1),
            "render ms (p95)": round(sorted(render_ms)[int(0.95 * (len(render_ms) - 1))], 1),
            "PNG KB (median)": round(statistics.median(sizes) / 1024, 1),
            "PNG KB (max)": round(max(sizes) / 1024, 1), "PNG height px (max)": max(heights),
            "over budget at first": retried}
