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


def _walk(game: str, players: int, count: int, seed: int, options: dict | None, take, at_end=None) -> list:
    """``count`` things ``take(state, rng)`` gives at positions of random games, four spread over
    each game; ``at_end(state, rng)``, if given, also at each game's end."""
    engine = get_game(game)
    rng = random.Random(seed)
    found: list = []
    while len(found) < count:
        state = engine.initial_state(players, rng.randrange(1 << 30), options or {})
        stops = sorted(rng.sample(range(400), 4))
        ply = 0
        while engine.outcome(state) is None and len(found) < count:
            if stops and ply == stops[0]:
                stops.pop(0)
                found.append(take(state, rng))
            to_move = sorted(engine.to_move(state))
            if not to_move:
                break
            seat = rng.choice(to_move)
            state = engine.apply(state, seat, rng.choice(engine.legal_moves(state, seat)))
            ply += 1
        if at_end is not None and engine.outcome(state) is not None and len(found) < count:
            found.append(at_end(state, rng))
    return found[:count]


def positions(game: str, players: int, count: int, seed: int, options: dict | None = None) -> list[dict]:
    """``count`` views of random games, spread over the whole game, each for a seat (or the observer)."""
    view = get_game(game).view
    return _walk(game, players, count, seed, options, lambda st, rng: view(st, rng.choice([None, *range(players)])),
                 lambda st, rng: view(st, rng.randrange(players)))


def run(game: str, players: int, count: int, width: int, seed: int = 1, options: dict | None = None) -> dict:
    from pbem.mail import pictures
    from pbem.mail.pictures import draw, render_png, stepped_png

    views = [json.dumps(v, sort_keys=True) for v in positions(game, players, count, seed, options)]
    render_png(draw(game, views[0]), width)  # the fonts loaded once, as in a worker
    draw_ms, render_ms, sizes, heights, retried = [], [], [], [], 0
    kept = pictures.kept
    try:
        for view in views:
            pictures.kept = pictures.Kept()  # each picture on its own: no band of another position reused
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
    finally:
        pictures.kept = kept
    label = game + (f" ({options['side']})" if options and "side" in options else "")
    return {"game": label, "players": players, "pictures": len(views), "width px": width,
            "draw ms (median)": round(statistics.median(draw_ms), 1),
            "render ms (median)": round(statistics.median(render_ms), 1),
            "render ms (p95)": round(sorted(render_ms)[int(0.95 * (len(render_ms) - 1))], 1),
            "PNG KB (median)": round(statistics.median(sizes) / 1024, 1),
            "PNG KB (max)": round(max(sizes) / 1024, 1), "PNG height px (max)": max(heights),
            "over budget at first": retried}


def states(game: str, players: int, count: int, seed: int, options: dict | None = None) -> list:
    """``count`` positions of random games, spread over the whole game (the state: every seat's view of it)."""
    return _walk(game, players, count, seed, options, lambda st, rng: st)


def _b64(png: bytes) -> int:
    """The PNG's bytes in the mail: base64, lines of 76 characters and their CRLF."""
    chars = 4 * ((len(png) + 2) // 3)
    return chars + 2 * ((chars + 75) // 76)


def run_moves(game: str, players: int, count: int, width: int, seed: int = 1, options: dict | None = None) -> dict:
    """The pictures of a move's mails, one to each seat, as delivery draws and renders them: each
    seat's view drawn (pbem/mail/pictures.draw) and its PNG rendered, before (every seat's drawing
    rendered for itself, each step of the byte budget tried in turn: ``stepped_png`` without a kind)
    and after (as pbem/mail/pictures.mail_png: a drawing rendered once however many seats it is, the
    steps the game's pictures show cannot fit not rendered; each drawing rendered whole, as
    :func:`run_game` does not). The two are run in turn, position by position, in CPU time; the
    figures are per move (all the seats' mails) and per mail."""
    from pbem.mail import pictures

    engine = get_game(game)
    found = states(game, players, count, seed, options)
    pictures.render_png(pictures.draw(game, json.dumps(engine.view(found[0], 0), sort_keys=True)), width)  # fonts
    draw_ms, before_ms, after_ms, before_kb, after_kb, distinct, same = [], [], [], [], [], [], 0
    for i, state in enumerate(found):
        c0 = time.process_time()
        svgs = [pictures.draw(game, json.dumps(engine.view(state, seat), sort_keys=True)) for seat in range(players)]
        draw_ms.append((time.process_time() - c0) * 1000)
        distinct.append(len(set(svgs)))
        runs = {}
        for which in (("before", "after") if i % 2 == 0 else ("after", "before")):
            c0 = time.process_time()
            if which == "before":
                pngs = [pictures.stepped_png(svg, width, banded=False)[0] for svg in svgs]
            else:  # mail_png's way, whole (a drawing band by band is run_game's)
                once = {svg: pictures.stepped_png(svg, width, kind=game, banded=False)[0] for svg in dict.fromkeys(svgs)}
                pngs = [once[svg] for svg in svgs]
            runs[which] = ((time.process_time() - c0) * 1000, pngs)
        before_ms.append(runs["before"][0])
        after_ms.append(runs["after"][0])
        before_kb += [_b64(p) / 1024 for p in runs["before"][1]]
        after_kb += [_b64(p) / 1024 for p in runs["after"][1]]
        same += sum(a == b for a, b in zip(runs["before"][1], runs["after"][1]))
    label = game + (f" ({options['side']})" if options and "side" in options else "")
    return {"game": label, "players": players, "moves": len(found), "drawings/move (distinct)": round(
                statistics.mean(distinct), 1),
            "draw ms/move": round(statistics.median(draw_ms), 1),
            "render ms/move before": round(statistics.median(before_ms)),
            "render ms/move after": round(statistics.median(after_ms)),
            "after ms/mail": round(statistics.median(after_ms) / players),
            "PNG KB/mail before (median, max)": f"{statistics.median(before_kb):.0f}, {max(before_kb):.0f}",
            "PNG KB/mail after (median, max)": f"{statistics.median(after_kb):.0f}, {max(after_kb):.0f}",
            "same PNG": f"{same}/{len(before_kb)}"}


def run_game(game: str, players: int, plies: int, width: int, seed: int = 1, options: dict | None = None) -> dict:
    """The pictures of every move's mails over ``plies`` plies of one random game, as delivery renders
    them: after each ply, each seat's and an observer's view drawn, and each distinct drawing rendered
    to its mail's PNG (the byte budget's steps as :func:`pbem.mail.pictures.mail_png` tries them)
    three ways, run in turn ply by ply: whole (each drawing rendered as one), bands "cold" (band by band
    in a process that kept no band of this game: what a move costs where the game's last pictures were
    rendered elsewhere or long ago; the seats of one move still share the bands they see alike), and
    bands "warm" (the bands of the game's earlier moves kept, as in a worker that rendered them).
    CPU time per move and per mail, and the PNG's part of a mail."""
    from pbem.mail import pictures

    engine = get_game(game)
    rng = random.Random(seed)
    state = engine.initial_state(players, rng.randrange(1 << 30), options or {})
    pictures.render_png(pictures.draw(game, json.dumps(engine.view(state, 0), sort_keys=True)), width)  # fonts
    warm = pictures.Kept()
    kept = pictures.kept
    cost = {"whole": [], "cold": [], "warm": []}
    kb: list[float] = []
    try:
        for ply in range(plies + 1):
            if ply:  # the first pictures are the start's: the warm run's kept bands begin there
                to_move = sorted(engine.to_move(state))
                if engine.outcome(state) is not None or not to_move:
                    break
                seat = rng.choice(to_move)
                state = engine.apply(state, seat, rng.choice(engine.legal_moves(state, seat)))
            svgs = list(dict.fromkeys(pictures.draw(game, json.dumps(engine.view(state, s), sort_keys=True))
                                      for s in [None, *range(players)]))
            for which in (("whole", "cold", "warm") if ply % 2 else ("warm", "cold", "whole")):
                pictures.kept = warm if which == "warm" else pictures.Kept()
                c0 = time.process_time()
                pngs = [pictures.stepped_png(svg, width, kind=game, banded=which != "whole")[0] for svg in svgs]
                if ply:
                    cost[which].append((time.process_time() - c0) * 1000)
                if which == "warm" and ply:
                    kb += [_b64(p) / 1024 for p in pngs]
    finally:
        pictures.kept = kept
    moves = len(cost["whole"])
    per_mail = moves and moves * (players + 1)
    label = game + (f" ({options['side']})" if options and "side" in options else "")
    return {"game": label, "players": players, "moves": moves, "mails/move": players + 1,
            "whole ms/move": round(statistics.mean(cost["whole"])),
            "bands cold ms/move": round(statistics.mean(cost["cold"])),
            "bands warm ms/move": round(statistics.mean(cost["warm"])),
            "warm ms/mail": round(sum(cost["warm"]) / per_mail, 1),
            "PNG KB/mail (median, max)": f"{statistics.median(kb):.0f}, {max(kb):.0f}"}


# the games and sizes `pbem bench pictures` tables a move's pictures for
MOVE_CASES = (("spyrium", None, (2, 4, 5)), ("squire", {"side": "british"}, (2,)),
              ("squire", {"side": "world"}, (4,)), ("iaww", None, (2, 4, 5)))
