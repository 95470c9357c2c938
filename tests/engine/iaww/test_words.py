"""Moves in words, cards, and boards that fit: describe_move,
explain_move and cards(); the "Your move." block; 80 columns everywhere."""
from __future__ import annotations

import re

import pytest

from pbem.engine import validate_options
from pbem.engine.base import find_cards
from pbem.engine.iaww.data import CARDS, EMPIRES
from pbem.engine.playout import random_playout

from .helpers import G, do, player, production_state, site, state

def _clean(text: str) -> bool:
    # a card's own words may hold parentheses ("(+1 financier)"), never code debris
    return bool(text) and "\n" not in text and "None" not in text and "{" not in text and "#" not in text


# ---------------------------------------------------------------- every legal move along playouts


@pytest.mark.parametrize("players,seed,options", [(1, 3, {}), (2, 4, {}), (3, 5, {}), (5, 6, {"face": "B"})])
def test_every_legal_move_is_described_and_explained_in_one_clean_line(players, seed, options):
    opts = validate_options(G, players, options)
    seen: set[str] = set()

    def on_move(before, seat, move, after):
        for m in G.legal_moves(before, seat):
            d, e = G.describe_move(before, seat, m), G.explain_move(before, seat, m)
            assert _clean(d) and _clean(e), (m, d, e)
            assert "(" not in d.replace("(+", "").replace(" (", "") and "[" not in d + e, (m, d, e)
            seen.add(m.kind)

    random_playout(G, players, seed, opts, rng_seed=seed, on_move=on_move)
    assert {"c", "r", "place", "discard", "done", "auto"} <= seen
    assert ("pick" in seen) == (players > 1)


@pytest.mark.parametrize("players,seed", [(1, 11), (2, 12), (4, 13)])
def test_boards_and_options_fit_80_columns_for_every_seat_and_the_observer(players, seed):
    opts = validate_options(G, players, {})
    n = 0

    def on_move(before, seat, move, after):
        nonlocal n
        n += 1
        if n % 4:
            return
        for who in [None, *range(players)]:
            v = G.view(after, who)
            v["names"] = ["Annabelle Smith", "Bob", "Cleo", "Dan", "Eve"][:players]
            text = G.render_text(v)
            help_ = "Your move. " + G.notation_help(after, who)
            assert max(map(len, text.splitlines())) <= 80, text
            assert max(map(len, help_.splitlines())) <= 80, help_
            assert len(help_.splitlines()) <= 25, help_
            html = G.render_html(v)
            assert not re.search(r"width:\s*(3[6-9]\d|[4-9]\d\d|\d{4,})px", html)
            assert html.count("<table") == html.count('<div style="overflow-x:auto')

    random_playout(G, players, seed, opts, rng_seed=seed, on_move=on_move)
    assert n > 20


# ---------------------------------------------------------------- exact strings, one per kind


def _planning():
    return state([player(kry=1, fin=1, draft=["zeppelin", "wind_turbines"],
                        sites=[site("icebreaker", energy=2, science=1), site("world_congress")]),
                  player("noram_states", draft=["zeppelin"])])


def test_describe_and_explain_a_pick():
    st = G.initial_state(3, 5, validate_options(G, 3, {}))
    m = G.parse_move(st, 0, "pick " + st.players[0].hand[0].split("#")[0])
    c = CARDS[m.card]
    assert G.describe_move(st, 0, m) == f"picked {c.name}"
    assert G.explain_move(st, 0, m).startswith(f"take {c.name} ({c.type}; costs ")


@pytest.mark.parametrize("text,described,explained", [
    ("C wind_turbines", "started constructing Wind Turbines (it needs 2 materials)",
     "construct Wind Turbines: it goes to your construction area, needing 2 materials"),
    ("R wind_turbines>icebreaker", "recycled Wind Turbines for 1 energy cube, put on Icebreaker, completing it",
     "recycle Wind Turbines: discard it for 1 energy cube, put on Icebreaker (>icebreaker), completing it"),
    ("R wind_turbines>E", "recycled Wind Turbines for 1 energy cube, put on the empire card",
     "recycle Wind Turbines: discard it for 1 energy cube, put on your empire card (>E)"),
    ("R zeppelin", "recycled Zeppelin for 1 exploration cube",
     "recycle Zeppelin: discard it for 1 exploration cube, to place with a later move (or by default)"),
    ("K>icebreaker:e", "put 1 Krystallium on Icebreaker in an energy slot, completing it",
     "put your Krystallium on Icebreaker in an energy slot (:e), completing it"),
    ("F>world_congress", "put a financier on World Congress",
     "put a financier from your pool on World Congress"),
    ("discard icebreaker", "discarded Icebreaker from construction, losing 2 energy and 1 science, and put 1"
     " exploration cube on the empire card", "discard Icebreaker from construction: lose what is on it"
     " (2 energy and 1 science); put 1 exploration cube on your empire card"),
    ("build icebreaker", "completed Icebreaker at once for 1 Krystallium",
     "complete Icebreaker at once: pay 1 Krystallium"),
    ("auto", "ended planning (constructed Zeppelin, Wind Turbines)",
     "let the defaults finish: construct every card not decided, then end planning"),
])
def test_describe_and_explain_planning_moves(text, described, explained):
    st = _planning()
    m = G.parse_move(st, 0, text)
    assert (G.describe_move(st, 0, m), G.explain_move(st, 0, m)) == (described, explained)


def test_describe_and_explain_production_moves():
    p = player(sites=[site("icebreaker", energy=2, science=1), site("zeppelin")])
    st = production_state([p, player("noram_states")], step=1)  # face B: 1 energy cube
    m = G.parse_move(st, 0, "e>zeppelin")
    assert G.describe_move(st, 0, m) == "put 1 energy cube on Zeppelin"
    assert G.explain_move(st, 0, m) == "put 1 energy cube on Zeppelin, which still needs 2 energy"
    m = G.parse_move(st, 0, "e>icebreaker")
    assert G.describe_move(st, 0, m) == "put 1 energy cube on Icebreaker, completing it"
    m = G.parse_move(st, 0, "e>E")
    assert G.describe_move(st, 0, m) == "put 1 energy cube on the empire card"
    assert G.explain_move(st, 0, m) == "put 1 energy cube on your empire card (E); 5 cubes there make 1 Krystallium"
    m = G.parse_move(st, 0, "done")
    assert G.describe_move(st, 0, m) == "ended the energy step (placed 1 energy cube by default)"
    assert G.explain_move(st, 0, m) == "end the energy step; cubes not placed go where auto puts them"
    after = do(st, 0, "e>zeppelin")
    assert G.describe_move(after, 0, G.parse_move(after, 0, "done")) == "ended the energy step"


def test_describe_a_cube_that_went_onto_the_empire_card_by_itself():
    st = production_state([player(sites=[site("wind_turbines")]), player("noram_states")], step=1)
    m = G.parse_move(st, 0, "energy>E")
    assert G.describe_move(st, 0, m) == "agreed to the energy cube that went onto the empire card by itself"
    assert G.explain_move(st, 0, m) == ("name the energy cube already put on your empire card by itself"
                                        " (changes nothing)")


def test_gold_word_agrees_with_a_forced_gold_cube():
    """`gold>E` agrees with a forced gold cube."""
    st = production_state([player("federation_of_asia", sites=[site("wind_turbines")]),
                           player("noram_states")], step=3, face="A")
    assert st.players[0].forced[3] == 2
    after = do(st, 0, "gold>E", "g>E")
    assert after.players[0].forced[3] == 0 and G.closing_move(after, 0) is not None


def test_describe_and_explain_a_science_choice_and_a_general():
    p = player(gen=1, sites=[site("ancient_astronauts")])
    st = production_state([p, player("noram_states")], step=2)
    st = st._replace(players=(st.players[0]._replace(sci=True),) + st.players[1:])
    m = G.parse_move(st, 0, "sci gen")
    assert G.describe_move(st, 0, m) == "took a general as science supremacy reward"
    assert G.explain_move(st, 0, m) == "take a general as your science supremacy reward"
    m = G.parse_move(st, 0, "gen>ancient_astronauts")
    assert G.describe_move(st, 0, m) == "put a general on Ancient Astronauts"


def test_describe_and_explain_solo_swap_and_keep():
    st = G.initial_state(1, 3, validate_options(G, 1, {}))
    a, b = sorted(i.split("#")[0] for i in st.players[0].draft)[:2]
    m = G.parse_move(st, 0, f"swap {a},{b}")
    assert G.describe_move(st, 0, m) == (f"discarded {CARDS[a].name} and {CARDS[b].name} from the hand and"
                                         " revealed five cards")
    assert G.explain_move(st, 0, m).startswith(f"discard {CARDS[a].name} and {CARDS[b].name} from your hand")
    st = G.apply(st, 0, m)
    k = st.players[0].shown[0].split("#")[0]
    m = G.parse_move(st, 0, f"keep {k}")
    assert G.describe_move(st, 0, m) == (f"kept {CARDS[k].name} of the five revealed cards"
                                         " (the other four are discarded)")


# ---------------------------------------------------------------- the "Your move." block


def test_your_move_lists_each_card_to_decide_and_what_ends_planning():
    st = _planning()
    text = G.notation_help(st, 0)
    assert "  C 1 / R 1>T - Zeppelin: C needs e2, R gives 1 exploration cube" in text
    assert "  C 2 / R 2>T - Wind Turbines: C needs m2, R gives 1 energy cube" in text
    assert "no done is needed" in " ".join(text.split()) and "production steps" in text


def test_your_move_in_a_production_step_names_the_cards_a_cube_can_go_to():
    p = player(sites=[site("icebreaker", energy=2), site("zeppelin")])
    st = production_state([p, player("noram_states")], step=1)
    text = G.notation_help(st, 0)
    assert "e>T - put your energy cube on a card: icebreaker, zeppelin; or E (your empire card)" in " ".join(
        text.split())
    assert "then the science step" in text


def test_draft_options_say_the_pass_direction():
    st = G.initial_state(3, 5, validate_options(G, 3, {}))
    assert "then the hands pass left" in G.notation_help(st, 0)


# ---------------------------------------------------------------- cards()


def test_cards_are_the_developments_and_the_empires_with_unique_keys():
    cards = G.cards()
    keys = [c.key for c in cards]
    assert len(keys) == len(set(keys)) == len(CARDS) + len(EMPIRES)
    assert set(CARDS) <= set(keys) and set(EMPIRES) <= set(keys)
    assert all(len(line) <= 76 for c in cards for line in c.text.splitlines())


def test_a_card_says_cost_bonus_production_points_and_recycling_from_the_data():
    (c,) = find_cards(G, "wind_turbines")
    assert c.name == "Wind Turbines" and c.kind == "structure development card"
    assert "Cost: 2 materials" in c.text and "Production once constructed: 1 energy" in c.text
    assert "Recycling: 1 energy cube" in c.text
    (u,) = find_cards(G, "University")
    assert "1 science for each project card in your empire (this card included)" in " ".join(u.text.split())
    assert "Victory points: 2" in u.text
    (t,) = find_cards(G, "time travel")
    assert "3 Krystallium slots (Krystallium only)" in t.text
    (e,) = find_cards(G, "noram states")
    text = " ".join(e.text.split())
    assert e.kind == "empire card" and "Face A: produces 3 materials, 1 gold" in text
    assert "1 extra VP for each financier in your pool" in text and "Face B:" in text
