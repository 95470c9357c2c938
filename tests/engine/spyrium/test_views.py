"""Views hide exactly what RULES.md §14 hides; boards match their golden files."""
import dataclasses
import json
import os
import random
from pathlib import Path

import pytest

from pbem.engine.spyrium import GAME

GOLDEN = Path(__file__).parent / "golden"
HIDDEN_KEYS = {"supply", "decks", "seed", "events", "reshuffles", "cache"}


def _walk_keys(x):
    if isinstance(x, dict):
        for k, v in x.items():
            yield k
            yield from _walk_keys(v)
    elif isinstance(x, list):
        for v in x:
            yield from _walk_keys(v)


def _scramble(st, rng):
    """The same position with every hidden order changed (§14)."""
    decks = tuple(tuple(rng.sample(d, len(d))) for d in st.decks)
    events = st.events[:1] + tuple(rng.sample(st.events[1:], len(st.events[1:])))
    supply = tuple(rng.sample(st.supply, len(st.supply)))
    return dataclasses.replace(st, decks=decks, events=events, supply=supply, seed=st.seed + 99, cache=None)


def _outputs(st, who):
    v = GAME.view(st, who)
    return json.dumps(v, sort_keys=True), GAME.render_text(v), GAME.render_html(v)


@pytest.mark.parametrize("n", [2, 4, 5])
def test_no_leak_of_hidden_orders_in_views_and_boards(n):
    rng = random.Random(n)
    st = GAME.initial_state(n, 100 + n, {})
    step = 0
    while not st.over:
        if step % 17 == 0:
            other = _scramble(st, rng)
            for who in [None, *range(n)]:
                v = GAME.view(st, who)
                assert not HIDDEN_KEYS & set(_walk_keys(v))
                assert _outputs(st, who) == _outputs(other, who)
        legal = GAME.legal_moves(st, st.turn)
        st = GAME.apply(st, st.turn, legal[rng.randrange(len(legal))])
        step += 1


def _play(n, seed, plies, stop_on_pending=False):
    rng = random.Random(seed)
    st = GAME.initial_state(n, seed, {})
    for _ in range(plies):
        if st.over:
            break
        legal = GAME.legal_moves(st, st.turn)
        st = GAME.apply(st, st.turn, legal[rng.randrange(len(legal))])
        if stop_on_pending and st.pending and st.round >= 3:
            break
    return st


def _cases():
    start = GAME.initial_state(3, 1, {})
    mid = _play(4, 7, 10_000, stop_on_pending=True)
    end = _play(4, 3, 100_000)
    assert mid.pending and end.over
    return [("start", start, (0, None), None), ("pending", mid, (mid.turn, None), None),
            ("end", end, (1, None), ["Ann", "Bob", "Cleo", "Dai"])]


def test_golden_boards():
    update = os.environ.get("PBEM_UPDATE_GOLDEN") == "1"
    for name, st, seats, names in _cases():
        for who in seats:
            v = GAME.view(st, who)
            if names:
                v["names"] = names
            for ext, out in (("txt", GAME.render_text(v)), ("html", GAME.render_html(v))):
                path = GOLDEN / f"{name}-{'observer' if who is None else f'seat{who}'}.{ext}"
                if update:
                    path.write_text(out)
                assert path.read_text() == out, f"{path.name} differs (PBEM_UPDATE_GOLDEN=1 to refresh)"
                if ext == "txt":
                    assert max(len(line) for line in out.splitlines()) <= 78, path.name
                else:
                    low = out.lower()
                    assert "<script" not in low and "<style" not in low and "src=" not in low


def test_html_escapes_names():
    v = GAME.view(GAME.initial_state(2, 1, {}), 0)
    v["names"] = ["<b>evil</b>", "x&y"]
    out = GAME.render_html(v)
    assert "<b>evil</b>" not in out and "&lt;b&gt;evil" in out and "x&amp;y" in out


def test_view_keys_and_status():
    st = GAME.initial_state(3, 1, {})
    v = GAME.view(st, None)
    for key in ("game", "seat", "players", "to_move", "over", "status", "outcome", "market", "spaces", "seats"):
        assert key in v
    assert v["status"].startswith("Round 1 of 6 (period A)") and v["examples"] == []
    assert GAME.view(st, st.turn)["examples"]


def test_golden_playthrough():
    """A whole 3-player game recorded in notation (HOUSE-STYLE: one golden playthrough)."""
    from pbem.engine import replay
    from pbem.engine.spyrium.state import PASS, PLACE

    path = GOLDEN / "playthrough-3p-seed21.txt"
    if os.environ.get("PBEM_UPDATE_GOLDEN") == "1":
        rng = random.Random(21)
        st = GAME.initial_state(3, 21, {})
        lines = []
        while not st.over:
            legal = GAME.legal_moves(st, st.turn)
            p = st.ps[st.turn]
            keep = [m for m in legal if m[0] == PLACE] if p.phase == 1 and p.active and rng.random() < 0.8 else []
            keep = keep or [m for m in legal if m[0] != PASS] or legal
            m = keep[rng.randrange(len(keep))]
            lines.append(f"{st.turn} {GAME.format_move(st, st.turn, m)}")
            st = GAME.apply(st, st.turn, m)
        out = GAME.outcome(st)
        lines.append("# scores " + " ".join(map(str, out.scores)))
        path.write_text("\n".join(lines) + "\n")
    rows = path.read_text().splitlines()
    moves = [(int(r.split(" ", 1)[0]), r.split(" ", 1)[1]) for r in rows if not r.startswith("#")]
    final = replay(GAME, 3, 21, {}, moves)
    assert final.over
    assert "# scores " + " ".join(map(str, GAME.outcome(final).scores)) == rows[-1]


@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_every_text_board_and_help_line_fits_78_columns(n):
    """Mail clients wrap long lines: pending questions (Late Placement lists up to 12
    spaces), a long discard pile and the help's pending line must all stay <= 78."""
    for seed in range(3):
        rng = random.Random(seed)
        st = GAME.initial_state(n, seed, {})
        while not st.over:
            for text in (GAME.render_text(GAME.view(st, st.turn)), GAME.notation_help(st, st.turn)):
                for line in text.splitlines():
                    assert len(line) <= 78, line
            legal = GAME.legal_moves(st, st.turn)
            st = GAME.apply(st, st.turn, legal[rng.randrange(len(legal))])
        assert max(len(x) for x in GAME.render_text(GAME.view(st, None)).splitlines()) <= 78


def test_pending_question_speaks_to_the_player_in_one_voice():
    """'Red must say which token you take' mixed third and second person."""
    from pbem.engine.spyrium.writing import DECISION_QUESTION

    for q in DECISION_QUESTION.values():
        assert " you " not in f" {q} " and "your" not in q, q


def test_a_crowded_space_shows_every_worker_and_keeps_the_columns():
    """Ten workers in 1-2 used to be cut to eight initials (two Black workers vanished),
    and a long vertical space pushed the next column to the right."""
    from .helpers import player, state

    m = {q: "Geologist (B)" for q in range(1, 10)}
    ps = [player(phase=1, active=0) for _ in range(5)]
    st = state(ps, market=m, spaces={"1-2": [0, 0, 1, 1, 2, 2, 3, 3, 4, 4],
                                     "2-5": [0] * 3 + [1] * 3 + [2] * 3 + [3] * 3 + [4] * 11,
                                     "3-6": [4] * 30})
    text = GAME.render_text(GAME.view(st, 0))
    lines = text.splitlines()
    assert max(len(x) for x in lines) <= 78
    assert "*1-2 holds 10 workers: R2 B2 G2 Y2 K2" in text
    assert "R3B3G3Y3K11" in text
    row = next(x for x in lines if "^2-5v" in x)
    assert row.index("^2-5v") == 29 and row.index("^3-6v") == 57 and "K30" in row
