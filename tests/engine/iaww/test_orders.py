"""It's a Wonderful World orders: an explicit placement that agrees
with a forced one (§8.1, §16 item 1), no `done` needed once nothing is left
to decide (§6), one meaning for each letter (a small g gold, a capital G the general, K
Krystallium; refusals quote the text as written), the draft's pass
direction on the board (§5), and what a seat decides from (§4.3)."""
from __future__ import annotations

import json

import pytest

from hypothesis import given, settings
from hypothesis import strategies as st

from pbem.engine import IllegalMoveError, MoveError, MoveSyntaxError, validate_options
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


# ---------------------------------------------------------------- one letter, one meaning


def _gold_step(**kw):
    """Gold step (face A produces 2): a player with a general and a financier, Giant Tower (gold and
    financier slots) and Center of the Earth (a general slot, no gold slot) under construction."""
    p = player("federation_of_asia", gen=1, fin=1, kry=1,
               sites=[site("giant_tower", materials=2), site("center_of_the_earth")], **kw)
    st = production_state([p, player("noram_states")], step=3, face="A")
    assert me(st).cubes[3] >= 1
    return st


def test_a_capital_g_is_the_general_in_orders_as_in_the_science_choice():
    """`sci G` is the general, and so is `G>card` (it was refused as gold-or-general): a capital G
    means the general wherever a general can go, a small g always a gold cube."""
    st = _gold_step()
    general = Move("gen", "", "center_of_the_earth#1")
    for text in ("G>center", "G > center", "G->center", "place G>center", "gen>center", "GEN>center",
                 "General>center", "G>CENTER_OF_THE_EARTH", "генерал>center"):
        assert G.parse_move(st, 0, text) == general, text
    gold = Move("place", "", "giant_tower#1", 3)
    for text in ("g>giant_tower", "gold>giant_tower", "Gold>giant_tower", "GOLD>giant", "золото>giant_tower"):
        assert G.parse_move(st, 0, text) == gold, text
    assert G.parse_move(st, 0, "g>E") == G.parse_move(st, 0, "g>e") == Move("place", "", "E", 3)
    # the rules' own example (§17): G>center_of_the_earth
    assert G.parse_move(st, 0, "G>center_of_the_earth") == general
    for m in G.legal_moves(st, 0):  # every legal move still reads back as itself, in any case
        text = G.format_move(st, 0, m)
        assert G.parse_move(st, 0, text) == G.parse_move(st, 0, text.upper()) == m


def test_a_capital_g_where_no_general_can_go_is_the_gold_a_phone_capitalised():
    """A phone writes the first letter of a line as a capital, and caps lock every letter: `G>E` and
    `G>giant_tower` can only be gold (a general never goes onto the empire card, and no card has both
    a gold and a general slot), so they are read as the small g, and the receipt shows g>."""
    st = _gold_step()
    assert G.parse_move(st, 0, "G>E") == Move("place", "", "E", 3)
    assert G.parse_move(st, 0, "G>giant_tower") == G.parse_move(st, 0, "G>GIANT_TOWER") == \
        Move("place", "", "giant_tower#1", 3)
    assert G.format_move(st, 0, G.parse_move(st, 0, "G>E")) == "g>E"
    assert G.parse_move(st, 0, "K>giant_tower:G") == Move("kry", "", "giant_tower#1", 3)  # caps lock: a gold slot
    from pbem.engine.iaww.data import CARDS as ALL_CARDS, GEN
    assert not [c for c, card in ALL_CARDS.items() if card.cost[GEN] and card.cost[3]]  # what makes it unambiguous


def test_a_letter_the_target_cannot_take_is_refused_saying_how_the_other_is_written():
    st = _gold_step()
    with pytest.raises(IllegalMoveError) as e:
        G.parse_move(st, 0, "g>center")  # a small g is gold, always; that card has no gold slot
    assert str(e.value).startswith("'g>center': Center Of The Earth has no gold slot")
    assert "a general is a capital G: G><card> (or gen><card>)" in e.value.reason
    with pytest.raises(IllegalMoveError) as e:
        G.parse_move(st, 0, "G>icebreaker")  # neither slot: the general it says
    assert str(e.value).startswith("'G>icebreaker': ")
    with pytest.raises(IllegalMoveError) as e:
        G.parse_move(st, 0, "K>center:gen")
    assert "Krystallium can never replace a character token" in e.value.reason
    with pytest.raises(IllegalMoveError, match="no gold cube to place.*a general is a capital G"):
        G.parse_move(_no_gold(st), 0, "g>center")


def _no_gold(st):
    return st._replace(players=(me(st)._replace(cubes=(0, 0, 0, 0, 0)),) + st.players[1:])


def test_a_gold_cube_refused_from_a_player_with_a_general_names_the_general_notation():
    p = player("federation_of_asia", gen=1, sites=[site("icebreaker"), site("giant_tower", materials=2)])
    st = production_state([p, player("noram_states")], step=3, face="A")
    with pytest.raises(IllegalMoveError, match="a general is a capital G: G><card>"):
        G.parse_move(st, 0, "g>icebreaker")


def test_science_the_reward_is_a_capital_g_or_f_and_a_small_g_is_gold():
    p = player(sites=[site("center_of_the_earth")])
    st = production_state([p, player("noram_states")], step=2)
    st = st._replace(players=(me(st)._replace(sci=True, done=False),) + st.players[1:])
    for text in ("sci G", "SCI G", "sci gen", "sci General", "science general", "наука генерал"):
        assert G.parse_move(st, 0, text) == Move("sci", "general"), text
    for text in ("sci F", "sci f", "sci fin", "Sci Financier"):
        assert G.parse_move(st, 0, text) == Move("sci", "financier"), text
    for text in ("sci g", "sci gold"):
        with pytest.raises(MoveSyntaxError) as e:
            G.parse_move(st, 0, text)
        word = text.split()[1]
        assert e.value.reason.startswith(f"'{word}' is gold, and the science supremacy reward is a token: sci G")
        assert e.value.text == text


def test_k_is_krystallium_only_and_keep_is_written_out():
    st = _gold_step()
    assert G.parse_move(st, 0, "K>giant_tower:g") == Move("kry", "", "giant_tower#1", 3)  # a gold slot
    assert G.parse_move(st, 0, "k>giant_tower") == Move("kry", "", "giant_tower#1", 3)  # its one empty kind
    with pytest.raises(MoveSyntaxError, match="to place Krystallium write K>Giant_Tower"):
        G.parse_move(st, 0, "K Giant_Tower")


def test_solo_k_is_not_keep():
    from .helpers import state as plan_state

    st = plan_state([player(draft=(), sites=())], scenario="")
    st = st._replace(players=(me(st)._replace(shown=("satellites#1", "zeppelin#1", "icebreaker#1",
                                                      "mega_drill#1", "wind_turbines#1")),))
    with pytest.raises(MoveSyntaxError) as e:
        G.parse_move(st, 0, "k 3")
    assert e.value.reason.startswith("K is Krystallium; to keep one of the revealed cards write keep 3")
    assert G.parse_move(st, 0, "keep 3") == G.parse_move(st, 0, "Keep Icebreaker") == Move("keep", "icebreaker")


@pytest.mark.parametrize("text,quoted", [
    ("Q>Giant_Tower", "'Q' is not a resource"),
    ("K>Giant_Tower:Z", "'Z' is not a slot kind"),
    ("X Icebreaker", "write discard Icebreaker; to place an exploration cube write x>Icebreaker"),
    ("Pick", "'Pick' needs more"),
    ("C Nothing_Like_It", "no card is called 'Nothing_Like_It'"),
])
def test_refusals_quote_what_the_player_wrote(text, quoted):
    st = _gold_step()
    with pytest.raises(MoveError) as e:
        G.parse_move(st, 0, text)
    assert quoted in e.value.reason and e.value.text == text


_KINDS = ("G", "g", "gen", "GEN", "General", "gold", "Gold", "F", "f", "K", "k", "m", "M", "e", "E", "s", "x", "X",
          "Q", "Fin")
_TARGETS = ("E", "e", "center", "Center", "giant_tower", "GIANT", "1", "2", "3", "nothing")
_SLOTS = ("", ":g", ":G", ":m", ":k", ":gen", ":Z")


@settings(deadline=None, max_examples=300)
@given(kind=st.sampled_from(_KINDS), target=st.sampled_from(_TARGETS), slot=st.sampled_from(_SLOTS),
       sep=st.sampled_from([">", " > ", "->"]), prefix=st.sampled_from(["", "place ", "plan "]))
def test_hypothesis_each_letter_means_one_thing_and_refusals_quote_it(kind, target, slot, sep, prefix):
    """Any kind letter or word, target and slot: a legal move of the kind the letter names (g and
    gold: a gold cube; G and gen: a general, and a capital G where no general can go the gold a phone
    capitalised; K: Krystallium), or a MoveError that quotes the text as written."""
    from pbem.engine.iaww.notation import takes_general

    state = _gold_step()
    text = f"{prefix}{kind}{sep}{target}{slot}"
    try:
        move = G.parse_move(state, 0, text)
    except MoveError as e:
        assert e.text == text and str(e).startswith(repr(text))
        return
    assert move in G.legal_moves(state, 0)
    expected = {"gen": "gen", "GEN": "gen", "General": "gen", "g": "place", "gold": "place", "Gold": "place",
                "F": "fin", "f": "fin", "Fin": "fin", "K": "kry", "k": "kry"}.get(kind, "place")
    if kind == "G":
        expected = "gen" if takes_general(move.target) else "place"
    assert move.kind == expected, (text, move)
    if kind in ("g", "gold", "Gold", "G") and move.kind == "place":
        assert move.res == 3  # gold, always
    if slot and kind in ("K", "k"):
        assert move.res == {":g": 3, ":G": 3, ":m": 0, ":k": 5}[slot]
