"""Focused tests, one or more per rule and [ruling] of RULES.md (section in each name)."""
import dataclasses

import pytest

from pbem.engine import IllegalMoveError, MoveError
from pbem.engine.spyrium import GAME
from pbem.engine.spyrium.data import CARDS, DECK, EVENTS, NCARDS, SPACE_INDEX
from pbem.engine.spyrium.rules import _Tokens, initial_state, setup
from pbem.engine.spyrium.state import (
    BONUS_BOTH, BONUS_CASH_AT_20, BONUS_NONE, BONUS_WORKER_AT_20,
)

from .helpers import BLUE, GREEN, RED, YELLOW, cid, names, play, player, space, state, with_player, with_turn


def M(extra=None):
    m = {q: "Geologist (B)" for q in range(1, 10)}
    m.update(extra or {})
    return m


def illegal(st, seat, text, fragment=""):
    with pytest.raises(IllegalMoveError) as e:
        GAME.parse_move(st, seat, text)
    assert fragment in e.value.reason, e.value.reason
    assert e.value.code == "illegal"
    return e.value


def legal_texts(st, seat):
    return [GAME.format_move(st, seat, m) for m in GAME.legal_moves(st, seat)]


# ---------------------------------------------------------------- §1 data


def test_s1_2_card_totals():
    kinds = {}
    for c in CARDS:
        if c.kind in ("character", "building", "technique"):
            kinds[(c.period, c.kind)] = kinds.get((c.period, c.kind), 0) + c.copies
    assert kinds == {("A", "character"): 7, ("A", "building"): 17, ("A", "technique"): 6,
                     ("B", "character"): 6, ("B", "building"): 13, ("B", "technique"): 1,
                     ("C", "character"): 4, ("C", "building"): 5}
    assert [len(DECK[p]) for p in "ABC"] == [30, 20, 9]
    assert len(EVENTS) == 7 and sum(c.copies for c in CARDS if c.kind == "start") == 5


def test_s1_3_ruling_no_symbols_on_quarters_residences_and_houses():
    for name in ("Workers' Quarters", "Residence", "Luxury House", "Mansion", "Palace"):
        assert all(c.symbols == () for c in CARDS if c.name == name)
    assert CARDS[cid("Laboratory £5")].symbols == ("factory", "research")


def test_s1_4_rulings_character_price_zero_mines_universities_zero_vp():
    assert all(c.price == 0 for c in CARDS if c.kind == "character")
    assert all(c.vp == 0 for c in CARDS if c.name in ("Mine", "University"))
    assert all(c.price == 6 for c in CARDS if c.kind == "technique")


# ---------------------------------------------------------------- §2 setup, §3 rounds


@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_s2_setup_and_2_player_ruling_tokens_p_minus_1(n):
    st = initial_state(n, 11)
    for q, c in enumerate(st.market):
        rule = {"bureaucrat_token_vp", "miner_token_spyrium", "architect_token_residence"}
        if CARDS[c].effect in rule:
            assert len(st.mtok[q]) == n - 1
        elif CARDS[c].name == "University":
            assert len(st.mtok[q]) == 1
        else:
            assert st.mtok[q] == ()
    assert all(p.money == 10 and p.spy == 2 and p.owned == 3 for p in st.ps)
    placed = sum(len(t) for t in st.mtok) + (st.fut_token > 0) + (st.cur_token > 0)
    assert len(st.supply) + placed == 24


def test_s3_2_ruling_tokens_are_drawn_for_positions_in_order():
    bu, mi, un = cid("Bureaucrat (A)"), cid("Miner (A)"), cid("University £2")
    a = [mi, cid("Mine £2"), bu, un] + [cid("Mine £2")] * 0
    rest = list(DECK["A"])
    for c in a:
        rest.remove(c)
    hon = cid("Honours for Sale")
    events = (hon,) + tuple(e for e in EVENTS if e not in (hon, cid("Token Windfall"))) + (cid("Token Windfall"),)
    supply = (1, 2, 3, 3, 2, 1, 1, 1) + (2,) * 16
    st = setup(3, 1, (tuple(a + rest), DECK["B"], DECK["C"]), events, supply, 0)
    # future event is not Token Windfall: Miner in 1 gets 2 tokens, Bureaucrat in 3 the next 2, University the next
    assert st.mtok[0] == (1, 2) and st.mtok[2] == (3, 3) and st.mtok[3] == (2,)


def test_s3_3_turn_order_skips_passed_players_and_s3_4_round_end():
    ps = [player(phase=2, active=0), player(phase=2, active=0, passed=True), player(phase=2, active=0)]
    st = state(ps, market=M(), tokens={1: (2,)}, cur_token=3, event="Token Windfall", turn=RED)
    st = play(st, RED, "pass")
    assert st.turn == GREEN
    after = play(st, GREEN, "pass")
    # round 2 started: market cards and the event's token went to the discard pile, first player moved
    assert after.round == 2 and after.first == BLUE and after.turn == BLUE
    assert after.discard == (2, 3)  # the market card's token and the event's token
    assert all(p.phase == 1 and not p.passed and p.active == p.owned for p in after.ps)
    assert after.ps[RED].money == 10 + 2


def test_s3_4_round_end_discards_tokens_and_turns_cards_upright():
    ps = [player(phase=2, active=0, lots=("Mine £5",), turned=(True,), techs=("Taylorism",), tayused=True,
                 evused=True), player(phase=2, passed=True)]
    st = state(ps, market=M({4: "Miner (A)"}), tokens={4: (1, 3)}, cur_token=2, event="Token Windfall",
               supply=(1,) * 20, discard=())
    after = play(st, RED, "pass")
    assert after.discard == (1, 2, 3)  # market and event tokens; the new round drew from the supply
    p = after.ps[RED]
    assert p.turned == (False,) and not p.tayused and not p.evused


def test_s3_5_game_ends_after_round_6():
    ps = [player(phase=2, active=0), player(phase=2, active=0, passed=True)]
    st = state(ps, market=M(), rnd=6, future="Late Placement")
    end = play(st, RED, "pass")
    assert end.over and GAME.to_move(end) == frozenset() and GAME.outcome(end) is not None
    with pytest.raises(MoveError) as e:
        GAME.parse_move(end, RED, "pass")
    assert e.value.code == "game_over"


def test_s3_3_always_a_legal_action_in_phase_1():
    ps = [player(active=0, money=0, spy=0), player()]
    st = state(ps, market=M(), spaces={"1-2": [RED]})
    assert "phase2 earn 1-2 1" in legal_texts(st, RED)
    ps = [player(active=0, money=0, spy=0), player()]
    assert "phase2 pass" in legal_texts(state(ps, market=M()), RED)


# ---------------------------------------------------------------- §4 market


def test_s4_3_closed_space_and_workers_next_to_no_card():
    ps = [player(phase=1), player()]
    mk = M()
    del mk[1], mk[2]
    st = state(ps, market=mk, spaces={"1-2": [BLUE]})
    illegal(st, RED, "place 1-2", "closed")
    assert "place 1-4" in legal_texts(st, RED)  # 1-4 still touches card 4
    blue = with_turn(with_player(st, BLUE, phase=2), BLUE)
    assert "earn 1-2" in legal_texts(blue, BLUE)  # next to no card: earns £0
    assert play(blue, BLUE, "earn 1-2").ps[BLUE].money == 10


def test_s4_3_empty_position_does_not_make_workers_adjacent_beyond_it():
    ps = [player(phase=2, active=0), player()]
    mk = M({5: "Apprentice"})
    del mk[4]
    st = state(ps, market=mk, spaces={"5-6": [RED], "4-5": [BLUE, BLUE], "1-4": [BLUE]})
    # card 5: workers in 4-5 (2) and 5-6 (1): 2 others; the worker in 1-4 is not next to 5
    assert play(st, RED, "earn 5-6 5").ps[RED].money == 12


# ---------------------------------------------------------------- §5 actions


def test_s5_0_ruling_costs_paid_in_full_first_no_gain_pays_for_itself():
    # Banker: token 2 + surcharge 1 = £3 needed; with £2 it is illegal even though it gives 4 VP
    ps = [player(money=2, phase=2, active=0), player()]
    st = state(ps, market=M({4: "Banker"}), tokens={4: (2,)}, spaces={"4-5": [RED, BLUE]})
    illegal(st, RED, "act 4 4-5", "cannot pay")
    # a bonus from the VP gained cannot pay: VP 5 + 4 = 9 passes 8 but the £5 comes after paying
    ps = [player(money=2, vp=5, phase=2, active=0), player()]
    st = state(ps, market=M({4: "Banker"}), tokens={4: (2,)}, spaces={"4-5": [RED]})
    after = play(st, RED, "act 4 4-5 +5")
    assert after.ps[RED].money == 5 and after.ps[RED].vp == 9


def test_s5_0_apprentice_needs_spyrium():
    ps = [player(spy=0, phase=2, active=0), player()]
    st = state(ps, market=M({1: "Apprentice"}), spaces={"1-2": [RED]})
    illegal(st, RED, "act 1 1-2", "needs 1 S")


def test_s5_1_place_requires_an_active_worker_and_phase_1():
    ps = [player(active=0, used=3), player()]
    st = state(ps, market=M())
    assert not any(t.startswith("place") for t in legal_texts(st, RED))
    illegal(st, RED, "place 1-2", "no active worker")
    ps = [player(phase=2), player()]
    illegal(state(ps, market=M()), RED, "place 1-2", "Phase I")


def test_s5_2_event_once_per_round_either_phase_and_phase_unchanged():
    ps = [player(phase=2, active=0), player()]
    st = state(ps, market=M(), event="Honours for Sale")
    after = play(st, RED, "event o2")
    assert (after.ps[RED].money, after.ps[RED].vp, after.ps[RED].phase) == (4, 5, 2)
    illegal(with_turn(after, RED), RED, "event o1", "already used")


def test_s5_3_ruling_switch_and_action_form_one_move():
    ps = [player(), player()]
    st = state(ps, market=M())
    # no market worker: Earn money after phase2 is illegal, and the player stays in Phase I
    illegal(st, RED, "phase2 earn 1-2 1", "no worker")
    after = play(st, RED, "phase2 pass")
    assert after.ps[RED].phase == 2 and after.ps[RED].passed
    # a bare 'pass' does not imply the switch: §5.7 makes passing a Phase II action
    illegal(st, RED, "pass", "'phase2 pass'")


def test_s5_4_earn_counts_other_workers_including_own_and_capitalization_ruling():
    ps = [player(phase=2, active=0, techs=("Capitalization",)), player()]
    st = state(ps, market=M(), spaces={"1-2": [RED, RED], "2-3": [BLUE]})
    # card 2: 1-2 (2), 2-3 (1), 2-5 (0): 2 others (own included) + £2
    assert play(st, RED, "earn 1-2 2").ps[RED].money == 14
    mk = M()
    del mk[1], mk[2]
    st = state(ps, market=mk, spaces={"1-2": [RED]})
    assert play(st, RED, "earn 1-2").ps[RED].money == 12  # no card: still +£2


def test_s5_4_lobbying_never_applies_to_earn():
    ps = [player(phase=2, active=0, techs=("Lobbying",)), player()]
    st = state(ps, market=M(), spaces={"1-2": [RED, BLUE]})
    illegal(st, RED, "earn 1-2 1 lob", "Lobbying")


def test_s5_5_character_stays_and_can_be_activated_again_by_same_player():
    ps = [player(phase=2, active=0), player()]
    st = state(ps, market=M({1: "Geologist (B)"}), spaces={"1-2": [RED], "1-4": [RED]})
    st = play(st, RED, "act 1 1-2")
    st = play(with_turn(st, RED), RED, "act 1 1-4")
    assert st.ps[RED].spy == 6 and st.market[0] == cid("Geologist (B)")


def test_s5_5_technique_goes_to_the_player_and_applies_from_then_on_not_to_its_own_payment():
    ps = [player(money=10, phase=2, active=0), player()]
    st = state(ps, market=M({1: "Lobbying", 2: "Apprentice"}),
               spaces={"1-2": [RED, RED, BLUE]})
    illegal(st, RED, "act 1 1-2 lob", "do not own Lobbying")
    after = play(st, RED, "act 1 1-2")
    assert after.ps[RED].money == 10 - 6 - 2 and after.market[0] == -1
    assert names(after.ps[RED]) == [] and CARDS[after.ps[RED].techs[0]].name == "Lobbying"
    # same round: Lobbying now waives the surcharge of the next activation
    again = play(with_turn(after, RED), RED, "act 2 1-2 lob")
    assert again.ps[RED].money == 2 and again.ps[RED].lobused


def test_s5_5_building_token_university_and_mine_7():
    ps = [player(money=20, phase=2, active=0, vp=0), player()]
    st = state(ps, market=M({1: "University £2", 2: "Mine £7"}), tokens={1: (3,), 2: (2,)},
               spaces={"1-2": [RED, RED]})
    st = play(st, RED, "act 1 1-2")
    assert st.ps[RED].vp == 3 and st.discard == (3,) and names(st.ps[RED]) == ["University £2"]
    st = play(with_turn(st, RED), RED, "act 2 1-2 new")
    assert st.ps[RED].spy == 4 and sorted(st.discard) == [2, 3]


def test_s5_6_use_building_in_round_built_and_workers_stay_on_it():
    ps = [player(money=20, spy=3, phase=2, active=2), player()]
    st = state(ps, market=M({1: "Workshop £2"}), spaces={"1-2": [RED]})
    st = play(st, RED, "act 1 1-2")
    st = play(with_turn(st, RED), RED, "use 1")
    p = st.ps[RED]
    assert (p.vp, p.spy, p.active, p.onbld, p.turned) == (3, 2, 1, 1, (True,))


def test_s5_6_houses_quarters_residences_never_used():
    ps = [player(phase=2, lots=("Workers' Quarters £5", "Palace")), player()]
    st = state(ps, market=M())
    illegal(st, RED, "use 1", "no Phase II use")
    illegal(st, RED, "use 2", "no Phase II use")
    illegal(st, RED, "use 3", "no building in lot 3")


def test_s5_6_ruling_taylorism_reuse_is_a_use_action():
    ps = [player(spy=5, phase=2, active=3, lots=("Workshop £2",), turned=(True,), techs=("Taylorism",)), player()]
    st = state(ps, market=M())
    after = play(st, RED, "use 1")
    p = after.ps[RED]
    assert p.vp == 3 and p.tayused and p.turned == (True,) and p.onbld == 1
    illegal(with_turn(after, RED), RED, "use 1", "already used Taylorism")
    # without Taylorism a turned building cannot be used
    st2 = with_player(st, RED, techs=())
    illegal(st2, RED, "use 1", "already turned")


def test_s5_7_pass_only_without_market_workers():
    ps = [player(phase=2, active=0), player()]
    st = state(ps, market=M(), spaces={"1-2": [RED]})
    illegal(st, RED, "pass", "all your workers")
    ps = [player(phase=2, active=2), player()]
    after = play(state(ps, market=M()), RED, "pass")
    assert after.ps[RED].passed and after.ps[RED].active == 2


# ---------------------------------------------------------------- §6 district


def test_s6_lot_cost_and_crane_ruling():
    lots = ("Mine £2", "Mine £2", "Mine £2", "Mine £2")
    for techs, cost in (((), 4), (("Crane",), 1)):
        ps = [player(money=30, phase=2, active=0, lots=lots, techs=techs), player()]
        st = state(ps, market=M({1: "Palace"}), spaces={"1-2": [RED]})
        assert play(st, RED, "act 1 1-2 new").ps[RED].money == 30 - 10 - cost
    ps = [player(money=30, phase=2, active=0, lots=("Mine £2",), techs=("Crane",)), player()]
    st = state(ps, market=M({1: "Palace"}), spaces={"1-2": [RED]})
    assert play(st, RED, "act 1 1-2 new").ps[RED].money == 20  # minimum £0


def test_s6_rulings_reduction_automatic_only_on_price_never_below_zero():
    # Mine £2 replacing a Mine: price max(0, 2-3) = 0; surcharge 2 still paid in full
    ps = [player(money=5, phase=2, active=0, lots=("Mine £5",)), player()]
    st = state(ps, market=M({1: "Mine £2"}), spaces={"1-2": [RED, BLUE], "1-4": [BLUE]})
    assert play(st, RED, "act 1 1-2 r1").ps[RED].money == 3
    # lobbying waives the surcharge, crane does not lower the price of a replacement
    ps = [player(money=5, phase=2, active=0, lots=("Workshop £2",), techs=("Lobbying", "Crane")), player()]
    st = state(ps, market=M({1: "Factory £6"}), spaces={"1-2": [RED, BLUE]})
    assert play(st, RED, "act 1 1-2 lob r1").ps[RED].money == 2


def test_s6_ruling_replacing_a_building_with_workers_on_it():
    """RULES.md §6 ruling: a building with workers on it may be replaced; those workers
    stay used (§10: beside the start card) and return at the next round start."""
    ps = [player(money=20, phase=2, active=0, onbld=2, used=0, lots=("Factory £6",), turned=(True,)), player()]
    st = state(ps, market=M({1: "Factory £8 (B)"}), spaces={"1-2": [RED]})
    p = play(st, RED, "act 1 1-2 r1").ps[RED]
    # the acting worker (§5.5) and the two from the Factory £6 are used; none is on a building
    assert (p.onbld, p.used, p.active, p.owned) == (0, 3, 0, 3) and p.lotw == (0,)
    assert p.turned == (False,) and names(p) == ["Factory £8"]


def test_s6_ruling_s10_only_the_replaced_lots_workers_become_used_and_return_next_round():
    """Workers on another lot stay on their building; the replaced lot's become used (§6, §10).
    Played through the executor: the workers are put on the buildings by 'use'."""
    ps = [player(money=20, spy=5, phase=2, active=3, lots=("Workshop £2", "Mine £2")), player(phase=2, passed=True)]
    st = state(ps, market=M({1: "Laboratory £5"}), spaces={"1-2": [RED]})
    st = play(st, RED, "use 1")          # 1 W + 1 S on the Workshop (lot 1)
    st = play(with_turn(st, RED), RED, "use 2")  # 1 W on the Mine (lot 2)
    p = st.ps[RED]
    assert (p.active, p.onbld, p.used, p.lotw) == (1, 2, 0, (1, 1))
    st = play(with_turn(st, RED), RED, "act 1 1-2 r1")  # the Laboratory replaces the Workshop
    p = st.ps[RED]
    assert names(p) == ["Laboratory £5", "Mine £2"] and p.lotw == (0, 1)
    assert (p.active, p.onbld, p.used, p.owned) == (1, 1, 2, 4)
    # the new building enters upright and may be used with the remaining active worker
    p = play(with_turn(st, RED), RED, "use 1").ps[RED]
    assert (p.active, p.onbld, p.lotw) == (0, 2, (1, 1))
    # at the next round start every owned worker is active again (§3.2, §10)
    assert not any(RED in sp for sp in st.spaces)
    nxt = play(with_turn(st, RED), RED, "pass")
    q = nxt.ps[RED]
    assert nxt.round == 2 and (q.active, q.used, q.onbld, q.lotw) == (4, 0, 0, (0, 0))


def test_s6_new_building_upright_and_usable_after_replacing_turned_one():
    ps = [player(money=20, spy=3, phase=2, active=1, lots=("Workshop £2",), turned=(True,)), player()]
    st = state(ps, market=M({1: "Workshop £4"}), spaces={"1-2": [RED]})
    st = play(st, RED, "act 1 1-2 r1")
    assert play(with_turn(st, RED), RED, "use 1").ps[RED].vp == 5


# ---------------------------------------------------------------- §7 tokens


def test_s7_ruling_reshuffle_only_when_a_draw_finds_the_supply_empty():
    t = _Tokens(3, (), (1, 2, 3), 0)
    v = t.draw()
    assert v in (1, 2, 3) and t.reshuffles == 1 and len(t.supply) == 2 and t.discard == []
    t = _Tokens(3, (), (), 0)
    assert t.draw() == 0  # both empty: fewer tokens


def test_s7_ruling_running_dry_gives_fewer_tokens():
    ps = [player(phase=2, active=0), player(phase=2, passed=True)]
    st = state(ps, market=M(), supply=(), discard=(), future="Token Windfall", fut_token=0)
    st = dataclasses.replace(st, events=(cid("Token Windfall"), cid("Country Seat")))
    after = play(st, RED, "pass")
    assert after.round == 2 and all(t == () for t in after.mtok) and after.fut_token == 0


def test_s7_event_token_serves_everyone_and_is_discarded_at_round_end():
    ps = [player(phase=2, active=0), player(phase=2, active=0)]
    st = state(ps, market=M(), event="Token Windfall", cur_token=3)
    st = play(st, RED, "event spy")
    assert st.ps[RED].spy == 5 and st.cur_token == 3
    st = play(st, BLUE, "event money")
    assert st.ps[BLUE].money == 13 and st.cur_token == 3


# ---------------------------------------------------------------- §8 residence, §9 bonuses


def test_s8_residence_top_is_7_and_score_forced_there():
    ps = [player(res=7, spy=1, phase=2), player()]
    st = state(ps, market=M(), event="Country Seat")
    assert [t for t in legal_texts(st, RED) if t.startswith("event")] == ["event"]
    after = play(st, RED, "event")
    assert after.ps[RED].vp == 7 and after.ps[RED].res == 7
    illegal(st, RED, "event adv", "only choice")


def test_s8_income_is_residence_value():
    ps = [player(res=5, phase=2, active=0), player(phase=2, passed=True)]
    after = play(state(ps, market=M()), RED, "pass")
    assert after.ps[RED].money == 15


def test_s9_first_bonus_choice_and_second_tile_at_20():
    ps = [player(vp=6, spy=2, phase=2), player()]
    st = state(ps, market=M(), event="Honours for Sale")
    mid = play(st, RED, "event o1")
    assert mid.pending and GAME.to_move(mid) == {RED}
    w = play(mid, RED, "+worker")
    assert w.ps[RED].owned == 4 and w.ps[RED].active == 4 and w.ps[RED].bonus == BONUS_CASH_AT_20
    c = play(st, RED, "event o1 +5")
    assert c.ps[RED].money == 12 and c.ps[RED].bonus == BONUS_WORKER_AT_20
    # later: the worker tile waits at 20 and comes without a choice
    p2 = [player(vp=18, phase=2, bonus=BONUS_WORKER_AT_20), player()]
    s2 = play(state(p2, market=M(), event="Honours for Sale"), RED, "event o2")
    assert s2.ps[RED].vp == 23 and s2.ps[RED].owned == 4 and s2.ps[RED].bonus == BONUS_NONE


def test_s9_one_gain_passing_8_and_20_gives_both():
    ps = [player(vp=7, money=20, spy=5, phase=2, active=3, lots=("Factory £8 (B)",)), player()]
    st = state(ps, market=M())
    after = play(st, RED, "use 1 o2")
    p = after.ps[RED]
    assert p.vp == 22 and p.money == 25 and p.owned == 4 and p.bonus == BONUS_NONE


def test_s9_ruling_seven_workers_force_cash_and_lose_worker_tile_at_20():
    ps = [player(vp=6, phase=2, active=7, owned=7), player()]
    st = state(ps, market=M(), event="Honours for Sale")
    after = play(st, RED, "event o1")  # £5 forced
    assert after.ps[RED].money == 12 and after.ps[RED].bonus == BONUS_WORKER_AT_20
    illegal(st, RED, "event o1 +worker", "only choice")
    ps = [player(vp=18, phase=2, active=7, owned=7, bonus=BONUS_WORKER_AT_20), player()]
    after = play(state(ps, market=M(), event="Honours for Sale"), RED, "event o1")
    assert after.ps[RED].owned == 7 and after.ps[RED].money == 7 and after.ps[RED].bonus == BONUS_NONE


def test_s9_end_game_vp_never_triggers_bonus():
    ps = [player(vp=5, techs=("Automation",), spy=7), player()]
    out = GAME.outcome(state(ps, over=True))
    assert out.scores[RED] == 12 and out.breakdown[RED]["Automation"] == 7


# ---------------------------------------------------------------- §10 workers


@pytest.mark.parametrize("owned,gain", [(5, 2), (6, 1), (7, 0)])
def test_s10_ruling_quarters_capped_at_7(owned, gain):
    ps = [player(money=20, phase=2, active=owned - 1, owned=owned, lots=()), player()]
    st = state(ps, market=M({1: "Workers' Quarters £6"}), spaces={"1-2": [RED]})
    ps = list(st.ps)
    ps[RED] = dataclasses.replace(ps[RED], owned=owned)
    st = dataclasses.replace(st, ps=tuple(ps))
    p = play(st, RED, "act 1 1-2").ps[RED]
    assert p.owned == owned + gain and names(p) == ["Workers' Quarters £6"]


def test_s10_and_s11_4_recruitment_price_counts_every_owned_worker():
    ps = [player(money=5, phase=2, active=1, used=2, onbld=2), player()]
    st = state(ps, market=M(), event="Recruitment", spaces={"1-2": [RED]})
    assert st.ps[RED].owned == 6
    illegal(st, RED, "event", "costs £6")
    st = with_player(st, RED, money=6)
    p = play(st, RED, "event").ps[RED]
    assert p.money == 0 and p.owned == 7 and p.active == 2
    illegal(with_turn(with_player(st, RED, owned=7, money=20), RED), RED, "event", "7 workers")


# ---------------------------------------------------------------- §11 effects


@pytest.mark.parametrize("card,toks,text,check", [
    ("Bureaucrat (A)", (1, 3), "t3", lambda p: p.vp == 3),
    ("Miner (A)", (2,), "", lambda p: p.spy == 4),
    ("Banker", (2,), "", lambda p: p.vp == 4 and p.money == 8),
    ("Financier", (3,), "", lambda p: p.vp == 5 and p.money == 7),
    ("Engineer (B)", (), "", lambda p: p.vp == 4 and p.spy == 1),
    ("Advisor", (), "", lambda p: p.vp == 3),
    ("Geologist (C)", (), "", lambda p: p.spy == 4),
    ("Apprentice", (), "", lambda p: p.vp == 3 and p.spy == 1),
])
def test_s11_1_characters(card, toks, text, check):
    ps = [player(phase=2, active=0), player()]
    st = state(ps, market=M({1: card}), tokens={1: toks} if toks else None, spaces={"1-2": [RED]})
    assert check(play(st, RED, f"act 1 1-2 {text}").ps[RED])


def test_s11_1_token_choice_is_a_value_and_pending_when_omitted():
    ps = [player(phase=2, active=0), player()]
    st = state(ps, market=M({1: "Bureaucrat (A)"}), tokens={1: (1, 1, 3)}, spaces={"1-2": [RED]})
    mid = play(st, RED, "act 1 1-2")
    assert mid.pending
    assert sorted(legal_texts(mid, RED)) == ["t1", "t3"]
    after = play(mid, RED, "3")
    assert after.ps[RED].vp == 3 and after.mtok[0] == (1, 1)


@pytest.mark.parametrize("opts,text,spy,active", [
    ("Mine £2", "use 1", 3, 0), ("Mine £5", "use 1 o2", 4, 1), ("Mine £7", "use 1 o2", 5, 1)])
def test_s11_3_automation_mines_take_no_workers(opts, text, spy, active):
    ps = [player(spy=2, phase=2, active=1, lots=(opts,), techs=("Automation",)), player()]
    p = play(state(ps, market=M()), RED, text).ps[RED]
    assert p.spy == spy and p.active == 1 and p.onbld == 0


def test_s11_3_commerce_keeps_tokens_and_declared_value_rulings():
    ps = [player(money=10, phase=2, active=0, techs=("Commerce",)), player()]
    st = state(ps, market=M({1: "Architect (A)", 3: "Miner (A)"}), tokens={1: (3,), 3: (1, 1)},
               spaces={"1-2": [RED], "2-3": [RED]})
    # declared 1 for a token 3: pays £1, keeps the 3
    after = play(st, RED, "act 1 1-2 c1 adv")
    p = after.ps[RED]
    assert p.money == 9 and p.res == 3 and p.kept == (3,) and p.comused and after.discard == ()
    # once per round
    illegal(with_turn(after, RED), RED, "act 3 2-3 c3", "already used Commerce")
    # a declaration equal to the printed value is rejected
    illegal(st, RED, "act 1 1-2 c3", "own value")
    # without the value change, the token is still kept
    plain = play(with_turn(after, RED), RED, "act 3 2-3")
    assert plain.ps[RED].kept == (1, 3) and plain.ps[RED].spy == 3


def test_s11_3_commerce_cap_7_kept_and_event_token_never_kept():
    ps = [player(phase=2, active=0, techs=("Commerce",), kept=(1,) * 7), player()]
    st = state(ps, market=M({1: "Bureaucrat (A)"}), tokens={1: (2,)}, spaces={"1-2": [RED]},
               event="Token Windfall", cur_token=2)
    after = play(st, RED, "act 1 1-2")
    assert len(after.ps[RED].kept) == 7 and after.discard == (2,)
    ev = play(st, RED, "event c3 vp")
    assert ev.ps[RED].vp == 3 and ev.cur_token == 2 and ev.ps[RED].kept == (1,) * 7
    illegal(st, RED, "event c2 vp", "already shows 2")


def test_s11_3_commerce_value_on_a_university_token():
    ps = [player(money=10, phase=2, active=0, techs=("Commerce",)), player()]
    st = state(ps, market=M({1: "University £2"}), tokens={1: (1,)}, spaces={"1-2": [RED]})
    p = play(st, RED, "act 1 1-2 c3").ps[RED]
    assert p.vp == 3 and p.kept == (1,)
    illegal(st, RED, "act 1 1-2 c1", "already shows 1")
    illegal(st, RED, "act 2 1-2 c2", "carries none")


def test_s11_3_lobbying_rulings():
    ps = [player(money=10, phase=2, active=0, techs=("Lobbying",)), player()]
    st = state(ps, market=M({1: "Apprentice"}), spaces={"1-2": [RED, BLUE, BLUE]})
    assert play(st, RED, "act 1 1-2").ps[RED].money == 8  # not declared: not used
    after = play(st, RED, "act 1 1-2 lob")
    assert after.ps[RED].money == 10 and after.ps[RED].lobused
    alone = state(ps, market=M({1: "Apprentice"}), spaces={"1-2": [RED]})
    illegal(alone, RED, "act 1 1-2 lob", "waive nothing")


def test_s11_3_engineering_extra_vp_per_worker_including_reuses():
    ps = [player(spy=9, phase=2, active=4, lots=("Factory £6",), techs=("Engineering", "Taylorism")), player()]
    st = state(ps, market=M(), event="Overtime")
    st = play(st, RED, "use 1 o2 +5")
    assert st.ps[RED].vp == 12 and st.ps[RED].money == 15
    st = play(with_turn(st, RED), RED, "use 1 o1")  # Taylorism re-use
    assert st.ps[RED].vp == 12 + 7
    st = play(with_turn(st, RED), RED, "event")  # Overtime: £1, 1 worker left, option 1 forced
    p = st.ps[RED]
    # 26 VP passes 20: the worker tile arrives, active at once
    assert (p.vp, p.money, p.active, p.owned, p.onbld) == (26, 14, 1, 5, 4)


def test_s11_4_overtime_is_not_taylorism_and_needs_a_turned_building():
    ps = [player(spy=3, phase=2, active=2, lots=("Workshop £2", "Mine £2"), turned=(True, False),
                 techs=("Taylorism",)), player()]
    st = state(ps, market=M(), event="Overtime")
    after = play(st, RED, "event")
    p = after.ps[RED]
    assert p.vp == 3 and not p.tayused and p.money == 9 and p.turned == (True, False)
    none_turned = with_player(st, RED, turned=(False, False))
    illegal(none_turned, RED, "event", "turned buildings")


def test_s11_4_overtime_building_choice_inline_or_pending():
    ps = [player(spy=3, phase=2, active=2, lots=("Workshop £2", "Mine £5"), turned=(True, True)), player()]
    st = state(ps, market=M(), event="Overtime")
    mid = play(st, RED, "event")
    assert sorted(legal_texts(mid, RED))[:2] == ["lot1", "lot2"]
    assert play(st, RED, "event lot2 o2").ps[RED].spy == 5
    assert GAME.parse_move(st, RED, "event 2 o2") == GAME.parse_move(st, RED, "event lot2 o2")
    assert play(play(mid, RED, "lot 2"), RED, "o1").ps[RED].spy == 4


def test_s11_4_events_honours_sale_country_seat_windfall():
    ps = [player(money=5, spy=3, phase=2), player()]
    assert play(state(ps, market=M(), event="Honours for Sale"), RED, "event").ps[RED].vp == 3
    st = state(ps, market=M(), event="Spyrium Sale")
    assert play(st, RED, "event o2").ps[RED].money == 11
    assert play(st, RED, "event o1").ps[RED].money == 8
    cs = play(state(ps, market=M(), event="Country Seat"), RED, "event adv").ps[RED]
    assert cs.res == 3 and cs.spy == 2
    wf = play(state(ps, market=M(), event="Token Windfall", cur_token=2), RED, "event vp").ps[RED]
    assert wf.vp == 2


def test_s11_4_ruling_late_placement_only_in_phase_2():
    ps = [player(phase=1), player()]
    st = state(ps, market=M(), event="Late Placement")
    illegal(st, RED, "event 4-5", "only in Phase II")
    after = play(st, RED, "phase2 event 4-5")
    assert after.ps[RED].phase == 2 and space(after, "4-5") == [RED] and after.ps[RED].active == 2


# ---------------------------------------------------------------- §12 limits, §13 scoring


def test_s13_every_technique_formula_capped_at_7():
    p = player(money=21, spy=9, vp=0, res=6, active=5, owned=8, kept=(1, 2),
               lots=("Factory £8 (B)", "Laboratory £7 (B)", "Workshop £2", "Mansion"),
               techs=("Automation", "Capitalization", "Commerce", "Crane", "Engineering", "Lobbying", "Taylorism"))
    out = GAME.outcome(state([p, player()], over=True))
    b = out.breakdown[RED]
    assert b == {"track": 0, "buildings": 5 + 2 + 2 + 9, "Automation": 7, "Capitalization": 7, "Commerce": 2,
                 "Crane": 4, "Engineering": 7, "Lobbying": 6, "Taylorism": 7, "total": 18 + 40}


def test_s13_engineering_ruling_sums_printed_vp():
    p = player(lots=("Workshop £2", "Laboratory £5", "Mine £5"), techs=("Engineering",))
    assert GAME.outcome(state([p, player()], over=True)).breakdown[RED]["Engineering"] == 3


def test_s13_tie_is_shared():
    out = GAME.outcome(state([player(vp=10), player(vp=10), player(vp=3)], over=True))
    assert out.winners == {RED, BLUE} and out.notes


def test_s3_2_round_6_future_windfall_still_takes_a_token_and_reveals():
    ps = [player(phase=2, active=0), player(phase=2, passed=True)]
    st = state(ps, market=M(), rnd=5, event="Honours for Sale", future="Country Seat")
    st = dataclasses.replace(st, events=(cid("Country Seat"), cid("Token Windfall")))
    after = play(st, RED, "pass")
    assert after.round == 6 and after.cur_event == cid("Country Seat")
    assert after.events == (cid("Token Windfall"),) and after.fut_token in (1, 2, 3)
    assert len(after.supply) == len(st.supply) - 1 - sum(len(t) for t in after.mtok)
    assert GAME.reveals(st, after) is True


def test_s9_cash_tile_waiting_at_20():
    ps = [player(vp=19, money=3, phase=2, bonus=BONUS_CASH_AT_20), player()]
    after = play(state(ps, market=M(), event="Honours for Sale"), RED, "event o1")
    p = after.ps[RED]
    assert (p.vp, p.money, p.owned, p.bonus) == (22, 5, 3, BONUS_NONE)


def test_s11_4_country_seat_needs_spyrium_and_honours_needs_money():
    ps = [player(spy=0, phase=2), player()]
    illegal(state(ps, market=M(), event="Country Seat"), RED, "event adv", "1 S")
    ps = [player(money=2, phase=2), player()]
    illegal(state(ps, market=M(), event="Honours for Sale"), RED, "event o1", "costs £3")
    ps = [player(money=5, phase=2), player()]
    st = state(ps, market=M(), event="Honours for Sale")
    illegal(st, RED, "event o2", "not possible")
    assert [t for t in legal_texts(st, RED) if t.startswith("event")] == ["event"]


def test_s10_quarters_5_gives_one_worker_active_at_once():
    ps = [player(money=20, phase=2, active=0, used=2), player()]
    st = state(ps, market=M({1: "Workers' Quarters £5"}), spaces={"1-2": [RED]})
    p = play(st, RED, "act 1 1-2").ps[RED]
    assert p.owned == 4 and p.active == 1 and p.money == 15


def test_s15_executor_and_legal_moves_agree_on_every_crafted_move():
    """Any move value the executor accepts (done or pending) is in legal_moves, and vice versa."""
    import random as _r
    from pbem.engine.spyrium.rules import Illegal, NeedDecision, execute
    rng = _r.Random(4)
    checked = 0
    for n in (2, 4):
        st = GAME.initial_state(n, 77 + n, {})
        step = 0
        while not st.over:
            if step % 11 == 0:
                seat = st.turn
                legal = set(GAME.legal_moves(st, seat))
                if st.pending:
                    cands = [(6, 0, 0, 0, 0, 0, (d * 100 + v,)) for d in range(1, 9) for v in range(13)]
                else:
                    cands = [(k, sw, a, b, lob, com, ()) for k in range(6) for sw in (0, 1) for a in range(13)
                             for b in range(10) for lob in (0, 1) for com in range(4)
                             if not (k in (1, 5) and (a or b)) and not (k in (0, 4) and b)]
                for m in cands:
                    try:
                        execute(st, seat, m, False)
                        ok = True
                    except NeedDecision:
                        ok = True
                    except Illegal:
                        ok = False
                    assert ok == (m in legal), (m, ok)
                    checked += 1
            legal = GAME.legal_moves(st, st.turn)
            st = GAME.apply(st, st.turn, legal[rng.randrange(len(legal))])
            step += 1
    assert checked > 1000


@pytest.mark.parametrize("card", ["Miner (B)", "Bureaucrat (B)"])
def test_s5_0_token_character_surcharge_must_be_paid(card):
    ps = [player(money=0, phase=2, active=0), player()]
    st = state(ps, market=M({2: card}), tokens={2: (2, 3)}, spaces={"2-5": [RED, BLUE]})
    illegal(st, RED, "act 2 2-5 t2", "surcharge")
    assert not any(t.startswith("act") for t in legal_texts(st, RED))
    assert play(with_player(st, RED, money=1), RED, "act 2 2-5 t2").ps[RED].money == 0


def test_s5_5_cannot_pay_message_lists_every_placement_with_its_total():
    """The refusal names what each placement would cost (price, lot, surcharge), not
    'at least £6 plus a £0 surcharge'."""
    ps = [player(money=2, phase=2, active=0, lots=("Mine £2", "Workshop £2")), player()]
    st = state(ps, market=M({5: "Factory £6"}), spaces={"4-5": [RED]})
    e = illegal(st, RED, "act 5 4-5", "cannot pay")
    assert "a new lot £8, replacing lot 1 £6, replacing lot 2 £3" in e.reason and "£0" not in e.reason
    st = state(ps, market=M({5: "Factory £6"}), spaces={"4-5": [RED], "5-6": [BLUE, BLUE]})
    e = illegal(st, RED, "act 5 4-5", "cannot pay")
    assert "a new lot £10, replacing lot 1 £8, replacing lot 2 £5" in e.reason and "£2 surcharge" in e.reason
    ps = [player(money=7, phase=2, active=0), player()]
    st = state(ps, market=M({5: "Crane"}), spaces={"4-5": [RED, BLUE, BLUE]})
    e = illegal(st, RED, "act 5 4-5", "cannot pay")
    assert "it costs £8" in e.reason


def test_s15_an_impossible_option_is_refused_with_its_reason():
    """'event o2' with £4 under Honours for Sale: the refusal says what o2 costs."""
    ps = [player(money=4, spy=2, phase=2, active=0, res=7, lots=("Mine £5",)), player()]
    st = state(ps, market=M(), event="Honours for Sale")
    e = illegal(st, RED, "event o2", "costs £6 and you have £4")
    assert e.reason.endswith("the only choice here is o1 (which option)")
    illegal(state(ps, market=M(), event="Spyrium Sale"), RED, "event o2", "needs 3 S and you have 2 S")
    illegal(state(ps, market=M()), RED, "use 1 o2", "needs 1 active worker and 0 S; you have 0")
    illegal(state([player(spy=1, res=7, phase=2), player()], market=M(), event="Country Seat"), RED,
            "event adv", "already on 7")


# ---------------------------------------------------------------- audit: tables of RULES.md as exact tests


def test_s4_1_and_s4_2_the_twelve_spaces_and_the_spaces_touching_each_position():
    from pbem.engine.spyrium.data import POS_SPACES, SPACE_NAME

    assert sorted(SPACE_NAME) == sorted(["1-2", "2-3", "4-5", "5-6", "7-8", "8-9",
                                         "1-4", "2-5", "3-6", "4-7", "5-8", "6-9"])
    table = {1: "1-2 1-4", 2: "1-2 2-3 2-5", 3: "2-3 3-6", 4: "1-4 4-5 4-7", 5: "2-5 4-5 5-6 5-8",
             6: "3-6 5-6 6-9", 7: "4-7 7-8", 8: "5-8 7-8 8-9", 9: "6-9 8-9"}
    for q, names_ in table.items():
        assert sorted(SPACE_NAME[s] for s in POS_SPACES[q]) == names_.split(), q


BUILDINGS_TABLE = [  # §1.4.2: period, name, copies, price, VP, symbols, tokens, Phase II options
    ("A", "Mine", 2, 2, 0, ("mine",), 0, ((1, 0, 1, 0),)),
    ("A", "Mine", 3, 5, 0, ("mine",), 0, ((0, 0, 1, 0), (1, 0, 2, 0))),
    ("A", "Workshop", 3, 2, 2, ("factory",), 0, ((1, 1, 0, 3),)),
    ("A", "Workshop", 2, 4, 3, ("factory",), 0, ((1, 2, 0, 5),)),
    ("A", "Laboratory", 1, 5, 1, ("factory", "research"), 0, ((1, 1, 0, 4),)),
    ("A", "Workers' Quarters", 3, 5, 3, (), 0, ()),
    ("A", "Residence", 2, 3, 2, (), 0, ()),
    ("A", "University", 1, 2, 0, ("research",), 1, ((1, 0, 0, 2),)),
    ("B", "Mine", 2, 7, 0, ("mine",), 1, ((0, 0, 1, 0), (1, 0, 3, 0))),
    ("B", "Factory", 2, 6, 4, ("factory",), 0, ((1, 2, 0, 6), (2, 3, 0, 10))),
    ("B", "Factory", 1, 8, 5, ("factory",), 0, ((2, 3, 0, 10), (2, 5, 0, 15))),
    ("B", "Laboratory", 1, 6, 2, ("factory", "research"), 0, ((1, 1, 0, 5),)),
    ("B", "Laboratory", 1, 7, 2, ("factory", "research"), 0, ((1, 2, 0, 7),)),
    ("B", "Workers' Quarters", 2, 6, 4, (), 0, ()),
    ("B", "Residence", 1, 3, 2, (), 0, ()),
    ("B", "Residence", 2, 5, 4, (), 0, ()),
    ("B", "University", 1, 5, 0, ("research",), 1, ((1, 0, 0, 3), (2, 0, 0, 6))),
    ("C", "Factory", 1, 8, 5, ("factory",), 0, ((2, 3, 0, 10), (2, 5, 0, 15))),
    ("C", "Laboratory", 1, 7, 2, ("factory", "research"), 0, ((1, 2, 0, 7),)),
    ("C", "Luxury House", 1, 6, 6, (), 0, ()),
    ("C", "Mansion", 1, 8, 9, (), 0, ()),
    ("C", "Palace", 1, 10, 12, (), 0, ()),
]


def test_s1_4_2_every_building_row_exactly():
    from pbem.engine.spyrium.data import NTOKENS_PER_CARD

    rows = [(c.period, c.name, c.copies, c.price, c.vp, c.symbols, NTOKENS_PER_CARD[c.id], c.uses)
            for c in CARDS if c.kind == "building"]
    assert rows == BUILDINGS_TABLE


def test_s1_4_1_every_character_row_exactly():
    from pbem.engine.spyrium.data import NTOKENS_PER_CARD

    rows = [(c.period, c.name, c.copies, NTOKENS_PER_CARD[c.id]) for c in CARDS if c.kind == "character"]
    assert rows == [("A", "Bureaucrat", 1, "p"), ("A", "Miner", 2, "p"), ("A", "Apprentice", 2, 0),
                    ("A", "Architect", 2, "p"), ("B", "Bureaucrat", 1, "p"), ("B", "Miner", 1, "p"),
                    ("B", "Engineer", 1, 0), ("B", "Architect", 1, "p"), ("B", "Geologist", 1, 0),
                    ("B", "Banker", 1, "p"), ("C", "Engineer", 1, 0), ("C", "Advisor", 1, 0),
                    ("C", "Geologist", 1, 0), ("C", "Financier", 1, "p")]
    techs = [(c.period, c.name, c.price) for c in CARDS if c.kind == "technique"]
    assert techs == [("A", n, 6) for n in ("Commerce", "Lobbying", "Automation", "Capitalization",
                                           "Engineering", "Crane")] + [("B", "Taylorism", 6)]


def test_s3_1_six_rounds_deal_27_18_9_cards_and_use_6_of_7_events():
    import random as _r

    for n in (2, 5):
        rng = _r.Random(n)
        st = GAME.initial_state(n, 300 + n, {})
        currents = [st.cur_event]
        while not st.over:
            legal = GAME.legal_moves(st, st.turn)
            after = GAME.apply(st, st.turn, legal[rng.randrange(len(legal))])
            if after.round != st.round:
                currents.append(after.cur_event)
            st = after
        assert [len(d) for d in st.decks] == [3, 2, 0]
        assert len(set(currents)) == 6 and len(st.events) == 1 and st.events[0] not in currents


def test_s14_ruling_everything_else_is_open_to_every_seat():
    ps = [player(money=13, spy=4, phase=2, techs=("Commerce",), kept=(1, 3)), player(money=7)]
    st = state(ps, market=M(), discard=(2, 2, 3))
    for who in (None, RED, BLUE):
        v = GAME.view(st, who)
        red = v["seats"][RED]
        assert (red["money"], red["spyrium"], red["kept_tokens"]) == (13, 4, [1, 3])
        assert v["discard"] == [2, 2, 3] and v["supply_count"] == 18
        text = GAME.render_text(v)
        assert "£13  S 4" in text and "Commerce (kept: 1 3)" in text and "discard pile: 2 2 3" in text


def test_s1_4_4_and_s1_4_5_event_labels_and_start_cards():
    events = [(c.name, c.effect) for c in CARDS if c.kind == "event"]
    assert events == [("Token Windfall", "event_token_choice"), ("Country Seat", "event_1spy_residence"),
                      ("Honours for Sale", "event_buy_vp"), ("Spyrium Sale", "event_sell_spyrium"),
                      ("Overtime", "event_reuse_building"), ("Recruitment", "event_buy_worker"),
                      ("Late Placement", "event_place_worker_phase2")]
    start = [c for c in CARDS if c.kind == "start"]
    assert len(start) == 1 and start[0].copies == 5 and start[0].effect == "start_card"
    st = initial_state(3, 9)
    assert all((p.money, p.spy, p.owned, 7 - p.owned) == (10, 2, 3, 4) for p in st.ps)  # £8 + £2 income


def test_s6_s5_5_a_placement_the_player_cannot_pay_is_refused_with_its_cost():
    """Decision 8 (§15): 'new' (or 'rK') that cannot be paid says the cost (§5.5, §6) and the money."""
    ps = [player(money=8, phase=2, active=0, lots=("Mine £2", "Workshop £2", "Residence £3")), player()]
    st = state(ps, market=M({5: "Factory £6"}), spaces={"5-6": [RED], "4-5": [BLUE, BLUE]})
    e = illegal(st, RED, "act 5 5-6 new", "a new lot costs £11 in all")
    assert ("price £6, £3 for lot 4 as you own 3 buildings, £2 surcharge for 2 other workers next to the card"
            in e.reason and "you have £8" in e.reason and e.reason.endswith("choose r1 or r2 or r3 (where the building goes)"))
    illegal(st, RED, "act 5 5-6 r4", "you have no building in lot 4 (your lots are 1 to 3)")
    ps = [player(money=3, phase=2, active=0, lots=("Mine £2", "Workshop £2")), player()]
    st = state(ps, market=M({5: "Factory £6"}), spaces={"5-6": [RED]})
    e = illegal(st, RED, "act 5 5-6 r1", "replacing the Mine £2 in lot 1 costs £6 in all")
    assert "shares no symbol" in e.reason and "you have £3" in e.reason
    assert e.reason.endswith("the only choice here is r2 (where the building goes)")
    e = illegal(st, RED, "act 5 5-6 new", "a new lot costs £8 in all (price £6, £2 for lot 3 as you own 2 buildings)")


def test_s11_3_a_token_equal_to_the_commerce_value_is_refused_with_the_reason():
    """§11.3 ruling: a declared value equal to the token's printed value is rejected, so with
    c2 on a Bureaucrat carrying 1 and 2 only t1 can be taken; the refusal says so."""
    ps = [player(money=10, phase=2, active=0, techs=("Commerce",)), player()]
    st = state(ps, market=M({4: "Bureaucrat (A)"}), tokens={4: (1, 2)}, spaces={"4-5": [RED]})
    e = illegal(st, RED, "act 4 4-5 c2 t2", "you declared c2, and a Commerce value must differ from the printed")
    assert "(the Bureaucrat's tokens show 1 and 2)" in e.reason
    assert e.reason.endswith("the only choice here is t1 (which token to take)")
    assert play(st, RED, "act 4 4-5 c2 t1").ps[RED].vp == 2


def test_s11_1_a_token_the_player_cannot_pay_is_refused_with_its_cost():
    ps = [player(money=3, phase=2, active=0), player()]
    st = state(ps, market=M({4: "Architect (A)"}), tokens={4: (1, 3)}, spaces={"4-5": [RED, BLUE]})
    e = illegal(st, RED, "act 4 4-5 t3 adv", "t3 costs £4 in all (£3 for the token, £1 surcharge")
    assert "you have £3" in e.reason


def test_s11_4_overtime_on_a_building_not_turned_is_refused_with_the_reason():
    ps = [player(money=5, phase=2, active=2, lots=("Mine £2", "Workshop £2"), turned=(True, False)), player()]
    st = state(ps, market=M(), event="Overtime")
    illegal(st, RED, "event lot2", "Workshop £2 in lot 2 has not been used (turned) this round")
    illegal(st, RED, "event lot3", "you have no building in lot 3")


def test_s14_state_json_round_trips_workers_per_lot_and_reads_older_states():
    ps = [player(phase=2, active=1, onbld=2, lots=("Mine £2", "Factory £6"), turned=(False, True),
                 lotw=(0, 2)), player()]
    st = state(ps, market=M())
    assert GAME.from_json(GAME.to_json(st)) == st
    old = GAME.to_json(st)
    for p in old["ps"]:
        p.pop("lotw", None)  # saved before workers were counted per lot: all on the first turned lot
    assert GAME.from_json(old).ps[RED].lotw == (0, 2) and GAME.from_json(old).ps[BLUE].lotw == ()
    # no worker on a building: the JSON is the same as before lotw existed
    assert "lotw" not in GAME.to_json(st)["ps"][BLUE]
