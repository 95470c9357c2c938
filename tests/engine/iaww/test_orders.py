"""It's a Wonderful World orders (issue 19): an explicit placement that agrees
with a forced one (§8.1, §16 item 1), no `done` needed once nothing is left
to decide (§6), `g` always a gold cube (§17 notation), the draft's pass
direction on the board (§5), and what a seat decides from (§4.3)."""
from __future__ import annotations

import json

import pytest

from pbem.engine import AmbiguousMoveError, IllegalMoveError, validate_options
from pbem.engine.iaww.data import CARDS
from pbem.engine.iaww.rules import DRAFT, Move
from pbem.engine.playout import random_playout

from .helpers import G, do, me, player, production_state, site, state


# ---------------------------------------------------------------- §8.1 "and/or", §16 item 1


def test_s16_1_a_cube_forced_onto_the_empire_card_may_still_be_named():
    """Energy step, no card with an energy slot: the engine puts the cube onto E at once (§16
    item 1); an order that places it there by hand (§8.1: cubes go onto cards "and/or" the
    empire card) agrees with that, and is not refused as having no cube to place."""
    p = player(sites=[site("wind_turbines")])  # face B produces 1 energy; wind_turbines takes materials
    st = production_state([p, player("noram_states")], step=1)
    assert me(st).cubes == (0, 0, 0, 0, 0) and me(st).ecubes == 1 and me(st).forced == (0, 1, 0, 0, 0)
    assert any("onto your empire card by itself" in n for n in me(st).notes)
    assert Move("place", "", "E", 1) in G.legal_moves(st, 0)
    after = do(st, 0, "e>E")
    assert me(after).ecubes == 1 and me(after).forced == (0, 0, 0, 0, 0)  # agreed; nothing moved twice
    with pytest.raises(IllegalMoveError, match="no energy cube to place"):
        G.parse_move(after, 0, "e>E")  # one cube, named once
    with pytest.raises(IllegalMoveError, match="already went onto your empire card by itself"):
        G.parse_move(st, 0, "e>wind_turbines")
    assert G.to_move(do(after, 0, "done")) == frozenset({1})


def test_s6_a_recycled_cube_forced_onto_the_empire_card_may_be_named_in_planning():
    """`R zeppelin; x>E`: no card under construction or in the draft area has an exploration
    slot, so the recycled cube goes onto E by itself; naming it there is fine (it used to say
    "a recycled card gives one")."""
    assert not any(CARDS[c].cost[4] for c in ("zeppelin", "wind_turbines"))
    st = state([player(draft=["zeppelin", "wind_turbines"]), player("noram_states", draft=["zeppelin"])])
    st = do(st, 0, "R zeppelin", "x>E", "C wind_turbines")
    assert me(st).ecubes == 1 and me(st).forced == (0, 0, 0, 0, 0)
    assert [s.inst for s in me(st).sites] == ["wind_turbines#1"]


# ---------------------------------------------------------------- §6 end of planning


def test_s6_every_card_decided_and_nothing_to_place_closes_the_order():
    """§6: "A player is done when their draft area is empty and no recycle cube is left
    unplaced": the engine offers `done` as the closing move (the services add it after the
    order's last move), and not while something is still open."""
    st = state([player(draft=["zeppelin", "wind_turbines"]), player("noram_states", draft=["zeppelin"])])
    assert G.closing_move(st, 0) is None  # two cards to decide
    mid = do(st, 0, "C wind_turbines")
    assert G.closing_move(mid, 0) is None
    waiting = do(mid, 0, "R zeppelin")  # zeppelin's exploration cube has no slot: forced, nothing waits
    assert G.closing_move(waiting, 0) == Move("done")
    # a Krystallium with a place to go is something left to decide (as for the skip of §4.3)
    rich = state([player(kry=1, draft=["zeppelin", "wind_turbines"]), player("noram_states", draft=["zeppelin"])])
    rich = do(rich, 0, "C wind_turbines", "R zeppelin>E")
    assert G.closing_move(rich, 0) is None
    assert G.closing_move(do(rich, 0, "K>wind_turbines:m"), 0) == Move("done")
    # production: every cube placed
    prod = production_state([player(sites=[site("icebreaker")]), player("noram_states")], step=1)
    assert G.closing_move(prod, 0) is None  # an energy cube to place
    assert G.closing_move(do(prod, 0, "e>icebreaker"), 0) == Move("done")
    assert G.closing_move(do(prod, 0, "done"), 0) is None  # already done


def test_s6_closing_move_is_nothing_during_the_draft_or_while_a_cube_waits():
    st = G.initial_state(3, 2, validate_options(G, 3, {}))
    assert st.phase == DRAFT and G.closing_move(st, 0) is None
    # tank_division recycles to materials, and wind_turbines (still in the draft area) has a slot
    st = state([player(draft=["tank_division", "wind_turbines"]), player("noram_states", draft=["zeppelin"])])
    st = do(st, 0, "R tank_division", "C wind_turbines")
    assert me(st).cubes == (1, 0, 0, 0, 0) and G.closing_move(st, 0) is None  # "no recycle cube left unplaced"
    assert G.closing_move(do(st, 0, "m>wind_turbines"), 0) == Move("done")


# ---------------------------------------------------------------- g is gold


def test_g_is_always_a_gold_cube_and_what_could_be_a_general_is_refused():
    """`g` is the gold cube of m e s g x; a general is `gen` (§17's sketch wrote it G). A card
    with a general slot has no gold slot, so `g>` onto it could mean either: refused, saying
    both ways to write it, instead of guessing."""
    p = player("federation_of_asia", gen=1, sites=[site("giant_tower", materials=2), site("center_of_the_earth")])
    st = production_state([p, player("noram_states")], step=3, face="A")  # gold step: face A produces 2
    assert me(st).cubes[3] >= 1
    with pytest.raises(AmbiguousMoveError) as err:
        G.parse_move(st, 0, "g>center")
    assert "gen>center_of_the_earth" in str(err.value) and "g>E" in str(err.value)
    assert G.parse_move(st, 0, "G>giant_tower") == Move("place", "", "giant_tower#1", 3)
    assert G.parse_move(st, 0, "gold>giant_tower") == Move("place", "", "giant_tower#1", 3)
    assert G.parse_move(st, 0, "gen>center") == Move("gen", "", "center_of_the_earth#1")
    assert G.parse_move(st, 0, "general>center") == Move("gen", "", "center_of_the_earth#1")
    assert G.parse_move(st, 0, "g>E") == Move("place", "", "E", 3)
    # every legal move still reads back as itself
    for m in G.legal_moves(st, 0):
        assert G.parse_move(st, 0, G.format_move(st, 0, m)) == m


def test_a_gold_cube_refused_from_a_player_with_a_general_names_the_general_notation():
    p = player("federation_of_asia", gen=1, sites=[site("icebreaker"), site("giant_tower", materials=2)])
    st = production_state([p, player("noram_states")], step=3, face="A")
    with pytest.raises(IllegalMoveError, match="a general is written gen><card>"):
        G.parse_move(st, 0, "g>icebreaker")


def test_science_g_is_the_general_there_is_no_gold_to_choose():
    p = player(sites=[site("center_of_the_earth")])
    st = production_state([p, player("noram_states")], step=2)
    st = st._replace(players=(me(st)._replace(sci=True, done=False),) + st.players[1:])
    assert G.parse_move(st, 0, "sci G") == Move("sci", "general")


# ---------------------------------------------------------------- §5 pass direction


@pytest.mark.parametrize("rnd,direction,to", [(1, "left", 1), (2, "right", 2), (3, "left", 1), (4, "right", 2)])
def test_s5_the_board_says_where_the_hands_pass(rnd, direction, to):
    st = G.initial_state(3, 5, validate_options(G, 3, {}))._replace(round=rnd)
    v = G.view(st, 0)
    assert v["passing"] == {"direction": direction, "to": to, "from": 3 - to}
    assert f"the hands pass to the {direction}" in G.render_text(v)
    assert G.view(st, None)["passing"] == {"direction": direction}
    planning = state([player(draft=["zeppelin"]), player("noram_states", draft=["zeppelin"])])
    assert G.view(planning, 0)["passing"] is None


# ---------------------------------------------------------------- §4.3 what a seat decides from


def test_s4_3_another_seats_move_never_changes_what_a_seat_decides_from_until_the_reveal():
    """Issue 19: within a draft pick, a planning phase or a production step nobody's order
    changes another's position, and picks are secret until the reveal; so the decision view
    of every other seat stays the same until a move reveals the step, and then it changes."""
    changed_at_reveal = 0

    def on_move(before, seat, move, after):
        nonlocal changed_at_reveal
        for other in range(4):
            if other == seat:
                continue
            was = json.dumps(G.decision_view(before, other), sort_keys=True)
            now = json.dumps(G.decision_view(after, other), sort_keys=True)
            if G.reveals(before, after):
                changed_at_reveal += was != now
            else:
                assert was == now, (before.phase, before.step, seat, move, other)

    random_playout(G, 4, 3, {}, rng_seed=3, on_move=on_move)
    assert changed_at_reveal > 100


def test_a_seats_own_pick_is_numbered_as_on_the_board_it_answered():
    """The hand keeps its numbers after the pick (the pick marked), so `pick 3` written against
    either board names the same card (issue 19: a changed pick means what it says)."""
    st = G.initial_state(3, 4, validate_options(G, 3, {}))
    third = G.view(st, 0)["you"]["hand"][2]["id"]
    after = do(st, 0, "pick 1")
    hand = G.view(after, 0)["you"]["hand"]
    assert len(hand) == 7 and hand[2]["id"] == third and hand[0]["picked"]
