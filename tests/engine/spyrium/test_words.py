"""Spyrium moves in words: describe_move, explain_move, the price of every
choice, the "Your move." block, cards(), and boards that fit a mail and a phone."""
import random
import re

import pytest

from pbem.engine import IllegalMoveError
from pbem.engine.base import find_cards, name_seats
from pbem.engine.playout import random_playout
from pbem.engine.spyrium import GAME
from pbem.engine.spyrium.data import CARDS

from .helpers import BLACK, BLUE, GREEN, RED, YELLOW, player, state

GEO = {q: "Geologist (B)" for q in range(1, 10)}


def _said(st, seat, text):
    m = GAME.parse_move(st, seat, text)
    return GAME.describe_move(st, seat, m), GAME.explain_move(st, seat, m)


# ---------------------------------------------------------------- every move, every playout

@pytest.mark.parametrize("players,seed", [(2, 1), (3, 2), (5, 3)])
def test_every_legal_move_reads_as_one_clean_line(players, seed):
    seen = set()

    def on_move(before, seat, move, after):
        for m in GAME.legal_moves(before, seat):
            for text in (GAME.describe_move(before, seat, m), GAME.explain_move(before, seat, m)):
                assert text and "\n" not in text, (m, text)
                assert "None" not in text and "{" not in text and "()" not in text, text
                assert not re.search(r"\(\d+, ", text), text  # no tuple debris
                assert text.count("(") == text.count(")"), text
                seen.add((m[0], m[1]))

    random_playout(GAME, players, seed, {}, rng_seed=seed, on_move=on_move)
    assert len(seen) >= 8  # every kind of move, with and without 'phase2'


# ---------------------------------------------------------------- hand-checked strings

def test_placing_a_worker():
    st = state([player(), player(), player()], market={**GEO, 1: "Apprentice"}, turn=BLUE)
    assert _said(st, BLUE, "place 1-2") == (
        "placed a worker in 1-2, between the Apprentice (1) and the Geologist (2)",
        "place a worker in 1-2, between the Apprentice (1) and the Geologist (2) (free)")


def test_activating_a_character_from_phase_one_says_the_phase_changes():
    """§16.5: Black goes to Phase II and activates the Apprentice; £4 surcharge."""
    ps = [player(), player(), player(), player(), player(money=6, spy=2, vp=3)]
    st = state(ps, market={**GEO, 1: "Apprentice"}, spaces={"1-2": [BLACK, RED, RED], "1-4": [BLUE, YELLOW]},
               turn=BLACK)
    d, e = _said(st, BLACK, "act 1 1-2")
    assert d == ("went to Phase II and activated the Apprentice (1) with their worker from 1-2: "
                 "paid £4 surcharge, paid 1 S, gained 3 VP")
    assert e.startswith("go to Phase II, ending your Phase I (your 3 active workers can no longer go to "
                        "the market), and activate the Apprentice (1)")


def test_a_bare_earn_in_phase_one_is_told_as_going_to_phase_two():
    st = state([player(active=2), player(), player()], market={**GEO, 5: "Factory £6"},
               spaces={"4-5": [RED, BLUE]}, turn=RED)
    m = GAME.parse_move(st, RED, "earn 4-5 5")
    assert GAME.format_move(st, RED, m) == "phase2 earn 4-5 5"
    assert GAME.describe_move(st, RED, m) == (
        "went to Phase II and took their worker back from 4-5, earning £1 from the Factory £6 (5), "
        "£1 per other worker beside it")
    assert "ending your Phase I (your 2 active workers can no longer go to the market)" in \
        GAME.explain_move(st, RED, m)


def _factory():
    """§16.6: Blue builds the Factory £6 with 2 other workers beside it."""
    ps = [player(phase=2), player(money=12, phase=2, lots=("Workers' Quarters £5", "Laboratory £5")),
          player(phase=2)]
    return state(ps, market={**GEO, 5: "Factory £6"}, spaces={"4-5": [BLUE], "2-5": [RED], "5-6": [GREEN]},
                 turn=BLUE)


def test_building_names_the_lot_and_every_part_of_the_price():
    st = _factory()
    assert _said(st, BLUE, "act 5 4-5 new")[0] == (
        "built the Factory £6 (5) with their worker from 4-5 in a new lot 3 for £10 "
        "(£6 price, £2 for the lot, £2 surcharge)")
    assert _said(st, BLUE, "act 5 4-5 r2")[1] == (
        "build the Factory £6 (5) with your worker from 4-5 in lot 2, replacing your Laboratory £5 for £5 "
        "(£3 price after £3 off for a shared symbol, £2 surcharge)")
    # a partial move: the option lists every lot with its price
    assert _said(st, BLUE, "act 5 4-5") == (
        "built the Factory £6 (5) with their worker from 4-5: lot still to choose",
        "build the Factory £6 (5) with your worker from 4-5; then where the building goes: "
        "new (£10 in all: new lot 3) or r1 (£8 in all: replaces the Workers' Quarters £5) "
        "or r2 (£5 in all: replaces the Laboratory £5, £3 off)")


def test_an_unaffordable_choice_is_shown_with_why():
    st = _factory()
    ps = list(st.ps)
    ps[BLUE] = player(money=9, phase=2, lots=("Workers' Quarters £5", "Laboratory £5"), market=1)
    st = state(ps, market={**GEO, 5: "Factory £6"}, spaces={"4-5": [BLUE], "2-5": [RED], "5-6": [GREEN]},
               turn=BLUE)
    e = _said(st, BLUE, "act 5 4-5")[1]
    assert "[not new (£10 in all: new lot 3; you have £9)]" in e
    after = GAME.apply(st, BLUE, GAME.parse_move(st, BLUE, "act 5 4-5"))
    v = GAME.view(after, BLUE)
    assert {"answer": "new", "text": "(£10 in all: new lot 3; you have £9)", "possible": False} in \
        [{k: c[k] for k in ("answer", "text", "possible")} for c in v["pending"]["choices"]]
    text = GAME.render_text(v)
    assert "  new  NOT POSSIBLE: £10 in all: new lot 3; you have £9" in text
    assert "  r2   £5 in all: replaces the Laboratory £5, £3 off" in text


def _architect():
    """§16.8: the Architect with tokens 1 and 2, three workers beside it."""
    ps = [player(money=5, res=3, vp=10, phase=2, bonus=1), player(money=4, phase=2), player(money=3, phase=2)]
    return state(ps, market={**GEO, 4: "Architect (A)"}, tokens={4: [1, 2]},
                 spaces={"1-4": [GREEN], "4-5": [RED], "4-7": [BLUE], "1-2": [RED]}, turn=RED)


def test_token_and_residence_choices():
    st = _architect()
    assert _said(st, RED, "act 4 4-5 t1 adv")[0] == (
        "activated the Architect (4) with their worker from 4-5: took token 1, paid £3 (£1 for the token, "
        "£2 surcharge), advanced on the residence track from 3 to 4 (£4 income a round)")
    assert _said(st, RED, "act 4 4-5 t2 score")[1] == (
        "activate the Architect (4) with your worker from 4-5: take token 2, pay £4 (£2 for the token, "
        "£2 surcharge), score the residence (3 VP)")
    assert _said(st, RED, "act 4 4-5")[1].endswith(
        "then which token to take: t1 (£3 in all: a residence action) or t2 (£4 in all: a residence action)")


def test_earn_use_technique_and_the_bonus_tile():
    ps = [player(phase=2, lots=("Mine £5", "Workshop £2"), techs=("Engineering",), spy=3, vp=6),
          player(), player()]
    st = state(ps, market={1: "Commerce", 2: "Apprentice"}, spaces={"1-2": [RED, BLUE]}, turn=RED)
    assert _said(st, RED, "earn 1-2 2")[0] == (
        "took their worker back from 1-2, earning £1 from the Apprentice (2), £1 per other worker beside it")
    assert _said(st, RED, "use 1 o2")[0] == "used their Mine £5 in lot 1, option 2: put 1 active worker onto it, gained 2 S"
    assert _said(st, RED, "use 2 +5")[0] == (
        "used their Workshop £2 in lot 2: put 1 active worker onto it, paid 1 S, gained 4 VP "
        "(3 + 1 for Engineering), took the £5 bonus tile at 8 VP")
    assert _said(st, RED, "act 1 1-2") == (
        "bought Commerce (1) with their worker from 1-2 for £7 (£6 + £1 surcharge)",
        "buy Commerce (1) with your worker from 1-2 for £7 (£6 + £1 surcharge) - keep tokens you take; "
        "once a round treat a token as 1-3")


@pytest.mark.parametrize("event,move,said", [
    ("Spyrium Sale", "event o1", "used the event Spyrium Sale: sold 1 S for £3"),
    ("Country Seat", "event adv", "used the event Country Seat: paid 1 S, advanced on the residence track "
                                  "from 2 to 3 (£3 income a round)"),
    ("Recruitment", "event", "used the event Recruitment: paid £4 (£1 per worker owned) for a new active worker"),
    ("Token Windfall", "event money", "used the event Token Windfall: took £2"),
    ("Honours for Sale", "event o1", "used the event Honours for Sale: paid £3, gained 3 VP"),
])
def test_events(event, move, said):
    ps = [player(phase=2), player(), player()]
    st = state(ps, market={1: "Commerce", 2: "Apprentice"}, spaces={"1-2": [RED, BLUE]}, turn=RED, event=event,
               cur_token=2)
    assert _said(st, RED, move)[0] == said


def test_overtime_late_placement_and_passing():
    ps = [player(phase=2, lots=("Mine £5",), turned=(True,), active=0, money=3), player(), player()]
    st = state(ps, market={1: "Commerce", 2: "Apprentice"}, turn=RED, event="Overtime")
    assert _said(st, RED, "event")[0] == "used the event Overtime: paid £1 and used their Mine £5 in lot 1 again, option 1: gained 1 S"
    assert _said(st, RED, "pass") == ("passed for this round", "pass; you take no more turns this round")
    st = state([player(phase=2, active=1), player(), player()], market={1: "Commerce", 2: "Apprentice"},
               turn=RED, event="Late Placement")
    assert _said(st, RED, "event 1-2")[0] == (
        "used the event Late Placement: placed an active worker in 1-2, between Commerce (1) and the Apprentice (2)")
    st = state([player(active=2), player(), player()], market={1: "Commerce"}, turn=RED)
    assert _said(st, RED, "phase2 pass")[0] == "went to Phase II and passed, leaving 2 active workers unused for this round"


def test_an_answer_describes_the_whole_move():
    st = _architect()
    waiting = GAME.apply(st, RED, GAME.parse_move(st, RED, "act 4 4-5 t1"))
    m = GAME.parse_move(waiting, RED, "score")
    assert GAME.describe_move(waiting, RED, m).endswith("scored the residence (3 VP)")


# ---------------------------------------------------------------- refusals say why

def test_a_choice_that_never_arises_is_refused_with_why():
    st = _factory()
    with pytest.raises(IllegalMoveError) as e:
        GAME.parse_move(st, BLUE, "act 5 4-5 new t2")
    assert e.value.reason == ("t2 does not apply to this move: the Factory £6 is a building; a token is chosen "
                              "only when you activate a character that carries tokens")


def test_a_token_that_is_not_on_the_card_says_what_the_card_carries():
    ps = [player(phase=2), player(), player()]
    st = state(ps, market={**GEO, 4: "Miner (A)"}, tokens={4: [1, 1]}, spaces={"4-5": [RED]}, turn=RED)
    with pytest.raises(IllegalMoveError) as e:
        GAME.parse_move(st, RED, "act 4 4-5 t2")
    assert e.value.reason == ("t2 is not possible here: the Miner carries no token showing 2 (its tokens show 1); "
                              "the only choice here is t1 (which token to take)")


# ---------------------------------------------------------------- the "Your move." block

@pytest.mark.parametrize("players,seed", [(2, 4), (4, 5)])
def test_your_move_block_stays_short_and_its_moves_are_legal(players, seed):
    def on_move(before, seat, move, after):
        text = GAME.notation_help(before, seat)
        lines = text.splitlines()
        assert len(lines) <= 26 and max(len(x) for x in lines) <= 78, text
        for x in lines:
            name = x[2:].split(": ", 1)[0]
            if x.startswith("- ") and "<" not in name and name not in ("lob", "c1 c2 c3"):
                assert GAME.parse_move(before, seat, name) in GAME.legal_moves(before, seat)

    random_playout(GAME, players, seed, {}, rng_seed=seed, on_move=on_move)


# ---------------------------------------------------------------- cards

def test_cards_cover_every_card_with_short_lines():
    cards = GAME.cards()
    keys = [c.key for c in cards]
    assert len(keys) == len(set(keys))
    assert {c.label for c in CARDS} <= set(keys)
    for c in cards:
        assert c.text and max(len(x) for x in c.text.splitlines()) <= 76, c.key
    mine = find_cards(GAME, "mine £5")[0]
    assert mine.kind == "building" and "Price £5; 0 VP" in mine.text and "2 spyrium" in mine.text
    assert find_cards(GAME, "architect")[0].text.startswith("Character card, period A and B, 3 copies")
    assert find_cards(GAME, "token")[0].name == "Number token"


# ---------------------------------------------------------------- boards

def test_status_names_seats_for_the_services():
    st = GAME.initial_state(3, 1, {})
    status = GAME.view(st, None)["status"]
    colour = ("Red", "Blue", "Green")[st.turn]
    assert f"{colour} (Player {st.turn + 1}) to move" in status
    assert f"{colour} (Cleo) to move" in name_seats(status, ["Ann", "Bob", "Cleo"][:st.turn] + ["Cleo"] + ["X"] * 3)


def test_every_board_fits_80_columns_and_a_phone():
    for players in (2, 5):
        rng = random.Random(players)
        st = GAME.initial_state(players, players, {})
        step = 0
        while not st.over:
            if step % 7 == 0:
                for who in [None, *range(players)]:
                    v = GAME.view(st, who)
                    v["names"] = [f"Player-{i}-with-a-long-name" for i in range(players)]
                    assert max(len(x) for x in GAME.render_text(v).splitlines()) <= 80
                    assert max(len(x) for x in GAME.notation_help(st, who).splitlines()) <= 80
                    html = GAME.render_html(v)
                    assert all(int(w) <= 360 for w in re.findall(r"width:(\d+)px", html))
                    assert "overflow-x:auto" in html
            legal = GAME.legal_moves(st, st.turn)
            st = GAME.apply(st, st.turn, legal[rng.randrange(len(legal))])
            step += 1
        v = GAME.view(st, None)
        v["names"] = [f"Player-{i}-with-a-very-very-long-name-indeed" for i in range(players)]
        assert max(len(x) for x in GAME.render_text(v).splitlines()) <= 80


def test_own_district_and_techniques_carry_their_effects():
    ps = [player(phase=2, lots=("Mine £5", "Workshop £2"), techs=("Engineering",)), player(), player()]
    st = state(ps, market={1: "Commerce", 2: "Apprentice"}, spaces={"1-2": [RED, BLUE]}, turn=RED)
    text = GAME.render_text(GAME.view(st, RED))
    assert "  district (a new lot costs £2):" in text
    assert "    1. Mine £5 (0 VP, mine): use: o1 -> 1 S, or o2 1 worker -> 2 S" in text
    assert "    Engineering: +1 VP per worker on factory buildings; end: their VP" in text
    assert "  2 Apprentice (2 beside): pay 1 S: 3 VP" in text
