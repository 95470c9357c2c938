"""Views hide what they must; renderers are checked against golden files."""
import json
import os
import random
from pathlib import Path

import pytest

from pbem.engine import validate_options
from pbem.engine.iaww.data import INSTANCES
from pbem.engine.iaww.rules import DRAFT, replace
from pbem.engine.playout import random_playout

from .helpers import G

GOLDEN = Path(__file__).parent / "golden"
POOL = tuple(reversed(INSTANCES))


def _scramble_cards(cards, salt):
    return tuple(POOL[(salt + k) % len(POOL)] for k in range(len(cards)))


def scramble(st, viewer):
    """The same position with everything ``viewer`` may not see changed:
    other seats' live state (hands, picks, moves of the step in progress),
    every hand in the published snapshot, the deck and the solo stacks."""
    players = list(st.players)
    public = list(st.public)
    extra = ("museum#1",) if st.n > 1 else ()
    if st.phase == "over":  # everything but the deck is public at the end
        return replace(st, deck=tuple(reversed(st.deck)))
    for o in range(st.n):
        if o == viewer:
            continue
        p = players[o]
        players[o] = replace(p, hand=_scramble_cards(p.hand, 7 * o + 1), pick=POOL[o] if p.pick else "",
                             sites=(), built=(), kry=p.kry + 9, fin=p.fin + 3, gen=p.gen + 1,
                             cubes=(5, 0, 5, 0, 5), ecubes=(p.ecubes + 2) % 5, sci=not p.sci,
                             shown=_scramble_cards(p.shown, 3), draft=p.draft[:-1] if p.draft else ("zeppelin#1",),
                             notes=("secret note",), early=("museum#2",), decided=not p.decided)
        q = public[o]
        public[o] = replace(q, hand=_scramble_cards(q.hand, 11 * o + 5), pick="",
                            shown=_scramble_cards(q.shown, 4),
                            draft=_scramble_cards(q.draft, 13) if st.n == 1 else q.draft)
    return replace(st, players=tuple(players), public=tuple(public), deck=tuple(reversed(st.deck)),
                   stacks=tuple(reversed(st.stacks)), discard=tuple(reversed(st.discard)) + extra)


def _views(st, who):
    v = G.view(st, who)
    return json.dumps(v, sort_keys=True), G.render_text(v), G.render_html(v)


@pytest.mark.parametrize("players", [1, 2, 3, 5])
def test_no_view_leaks_hidden_information(players):
    """Random playouts: every view of every seat and of the observer is
    unchanged when everything that seat may not see is changed."""
    opts = validate_options(G, players, {})
    checked = 0

    def on_move(before, seat, move, after):
        nonlocal checked
        checked += 1
        if checked % 3:
            return
        for who in [None, *range(players)]:
            assert _views(after, who) == _views(scramble(after, who), who), (who, move)
            if who is not None:
                v = json.dumps(G.view(after, who))
                for o in range(players):
                    if o != who:
                        for c in after.players[o].hand:
                            assert f'"{c}"' not in v
                        if after.players[o].pick:
                            assert f'"{after.players[o].pick}"' not in v
            assert "deck_order" not in _views(after, who)[0] and str(after.seed) not in json.dumps(
                {k: v for k, v in G.view(after, who).items() if k == "seed"})

    for seed in (1, 2):
        random_playout(G, players, seed, opts, rng_seed=seed, on_move=on_move)
    assert checked > 50


def test_own_hand_and_pick_are_shown_to_their_seat():
    st = G.initial_state(3, 4, validate_options(G, 3, {}))
    m = G.legal_moves(st, 0)[0]
    st = G.apply(st, 0, m)
    v = G.view(st, 0)
    assert v["you"]["pick"]["id"] == m.card
    # the hand as dealt for this pick, its numbers those of the board the pick answered (a reply is read
    # against what its writer saw)
    assert len(v["you"]["hand"]) == 7 and [c["id"] for c in v["you"]["hand"] if c["picked"]] == [m.card]
    assert G.view(st, None)["you"] is None
    assert "Your pick" in G.render_text(v)


# ---------------------------------------------------------------- golden files


def _smart(state, seat, legal):
    """A deterministic, somewhat sensible chooser for interesting positions."""
    rng = random.Random(f"{state.round}/{state.phase}/{state.step}/{seat}/{len(legal)}")
    kinds = {}
    for m in legal:
        kinds.setdefault(m.kind, []).append(m)
    for kind in ("keep", "pick", "place", "kry", "fin", "gen", "sci", "c"):
        if kind in kinds:
            if kind == "c" and "r" in kinds and rng.random() < 0.4:
                return rng.choice(kinds["r"])
            return rng.choice(kinds[kind])
    if "r" in kinds:
        return rng.choice(kinds["r"])
    return kinds.get("done", kinds.get("auto"))[0]


def _play_until(players, seed, stop, options=None):
    opts = validate_options(G, players, options or {})
    st = G.initial_state(players, seed, opts)
    while G.to_move(st) and not stop(st):
        seat = min(G.to_move(st))
        st = G.apply(st, seat, _smart(st, seat, G.legal_moves(st, seat)))
    return st


def _positions():
    out = {}
    st = _play_until(3, 5, lambda s: s.phase == DRAFT and s.step == 2 and s.players[0].done)
    out["draft3"] = (st, [0, 2, None])
    st = _play_until(4, 6, lambda s: s.round == 3 and s.phase == "prod" and s.step == 2)
    out["prod4"] = (st, [0, 1, None])
    st = _play_until(2, 7, lambda s: False)
    out["final2"] = (st, [0, None])
    st = _play_until(1, 8, lambda s: s.round == 2 and s.phase == "plan", {"scenario": "S3"})
    out["solo"] = (st, [0, None])
    return out



POS = _positions()


@pytest.mark.parametrize("name,seat", [(n, s) for n, (_, seats) in POS.items() for s in seats])
def test_golden_renderings(name, seat):
    st = POS[name][0]
    v = G.view(st, seat)
    v["names"] = ["Ann", "Bob", "Cleo", "Dan", "Eve"][: st.n]
    for ext, out in (("txt", G.render_text(v)), ("html", G.render_html(v))):
        path = GOLDEN / f"{name}-{'obs' if seat is None else seat}.{ext}"
        if os.environ.get("PBEM_UPDATE_GOLDEN") == "1":
            path.write_text(out)
        assert out == path.read_text(), f"{path.name} differs (PBEM_UPDATE_GOLDEN=1 to regenerate)"
        if ext == "txt":
            assert max(len(line) for line in out.splitlines()) <= 78
        else:
            assert "<script" not in out and "<style" not in out


def test_html_escapes_every_string():
    st = POS["prod4"][0]
    v = G.view(st, 0)
    v["names"] = ["<script>alert(1)</script>", "Bob & Co", "C", "D"]
    out = G.render_html(v)
    assert "<script" not in out and "&lt;script&gt;" in out and "Bob &amp; Co" in out
    assert "<script" not in G.render_text(v) or "alert" in G.render_text(v)  # text is plain, not HTML


@pytest.mark.parametrize("players,options", [(1, {"scenario": "S2"}), (3, {}), (5, {"face": "B"})])
def test_replay_of_the_notation_record_is_deterministic(players, options):
    from pbem.engine import replay
    opts = validate_options(G, players, options)
    texts = []

    def on_move(before, seat, move, after):
        texts.append((seat, G.format_move(before, seat, move)))

    final, _ = random_playout(G, players, 77, opts, rng_seed=77, on_move=on_move)
    again = replay(G, players, 77, opts, texts)
    assert again == final and G.to_json(again) == G.to_json(final)
    assert G.render_text(G.view(again, 0)) == G.render_text(G.view(final, 0))
