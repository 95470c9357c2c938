"""Every worked example of RULES.md §16, with exact numbers."""
import pytest

from pbem.engine import IllegalMoveError, MoveError, MoveSyntaxError
from pbem.engine.spyrium import GAME
from pbem.engine.spyrium.data import CARDS, DECK, EVENTS, VP
from pbem.engine.spyrium.rules import setup
from pbem.engine.spyrium.state import BONUS_WORKER_AT_20

from .helpers import BLACK, BLUE, GREEN, RED, YELLOW, cid, names, play, player, space, state, with_turn


def test_16_1_round_one_begins():
    """§16.1: income, the Token Windfall token, the University token."""
    deal = ["Workshop £2", "Apprentice", "Mine £5", "Residence £3 (A)", "Mine £2", "University £2",
            "Workers' Quarters £5", "Commerce", "Workshop £4"]
    a = [cid(x) for x in deal]
    rest = list(DECK["A"])
    for c in a:
        rest.remove(c)
    decks = (tuple(a + rest), DECK["B"], DECK["C"])
    hon, wind = cid("Honours for Sale"), cid("Token Windfall")
    events = (hon, wind) + tuple(e for e in EVENTS if e not in (hon, wind))
    supply = tuple([2, 3] + [1] * 8 + [2] * 7 + [3] * 7)
    st = setup(3, 5, decks, events, supply, RED)
    assert st.round == 1 and st.turn == RED and st.first == RED
    assert st.cur_event == hon and st.cur_token == 0
    assert st.events[0] == wind and st.fut_token == 2  # the first token drawn
    assert [CARDS[c].label for c in st.market] == [
        "Workshop £2", "Apprentice", "Mine £5", "Residence £3", "Mine £2", "University £2",
        "Workers' Quarters £5", "Commerce", "Workshop £4"]
    assert st.mtok[5] == (3,) and all(not t for i, t in enumerate(st.mtok) if i != 5)
    assert len(st.supply) == 22 and st.discard == ()
    assert len(st.decks[0]) == 21
    for p in st.ps:
        assert (p.money, p.spy, p.vp, p.res, p.active, p.owned, p.phase) == (10, 2, 0, 2, 3, 3, 1)
        assert 7 - p.owned == 4


def _full_market(extra=None):
    m = {q: "Geologist (B)" for q in range(1, 10)}
    m.update(extra or {})
    return m


def test_16_2_placing_next_to_the_apprentice():
    ps = [player(), player(), player()]
    st = state(ps, market=_full_market({1: "Apprentice"}), turn=BLUE)
    touching = [GAME.format_move(st, BLUE, m) for m in GAME.legal_moves(st, BLUE)
                if GAME.format_move(st, BLUE, m).startswith("place 1-")]
    assert touching == ["place 1-2", "place 1-4"]
    after = play(st, BLUE, "place 1-4")
    assert after.ps[BLUE].active == 2 and space(after, "1-4") == [BLUE]
    # rejected: the outer side of card 1 and the diagonal towards card 5 are no spaces
    for bad in ("place 1-5", "place 0-1", "place 1"):
        with pytest.raises(MoveSyntaxError):
            GAME.parse_move(st, BLUE, bad)


def test_16_3_red_uses_the_event():
    ps = [player(money=10, spy=2), player(), player()]
    st = state(ps, market=_full_market(), event="Spyrium Sale")
    for text in ("event o1", "event"):  # option 2 needs 3 S: option 1 is forced
        after = play(st, RED, text)
        p = after.ps[RED]
        assert (p.money, p.spy, p.evused, p.phase) == (13, 1, True, 1)
    later = with_turn(after, RED)
    with pytest.raises(IllegalMoveError) as e:
        GAME.parse_move(later, RED, "event o1")
    assert "already used the event" in e.value.reason


def _yellow_position():
    ps = [player(phase=2, active=0), player(phase=2, active=0), player(phase=2, active=0),
          player(money=3, phase=2, active=0)]
    return state(ps, market=_full_market({5: "Mine £5", 2: "Apprentice"}), turn=YELLOW,
                 spaces={"2-5": [YELLOW, RED], "4-5": [BLUE, GREEN], "5-6": [RED], "5-8": [BLUE],
                         "2-3": [GREEN], "1-2": []})


def test_16_4_yellow_earns_money_next_to_the_mine():
    st = _yellow_position()
    after = play(st, YELLOW, "earn 2-5 5")
    assert after.ps[YELLOW].money == 8 and after.ps[YELLOW].used == 1
    assert space(after, "2-5") == [RED]
    alt = play(st, YELLOW, "earn 2-5 2")
    assert alt.ps[YELLOW].money == 5


def test_16_5_black_activates_the_apprentice():
    ps = [player(phase=1), player(), player(), player(), player(money=6, spy=2, vp=3)]
    st = state(ps, market=_full_market({1: "Apprentice"}), turn=BLACK,
               spaces={"1-2": [BLACK, RED, RED], "1-4": [BLUE, YELLOW]})
    after = play(st, BLACK, "phase2 act 1 1-2")
    p = after.ps[BLACK]
    assert (p.phase, p.money, p.spy, p.vp, p.used) == (2, 2, 1, 6, 1)
    assert after.market[0] == cid("Apprentice")
    assert space(after, "1-2") == [RED, RED] and space(after, "1-4") == [BLUE, YELLOW]
    # Red would now pay a surcharge of £3
    red_turn = with_turn(after, RED)
    red = play(red_turn, RED, "phase2 act 1 1-2")
    assert red.ps[RED].money == 10 - 3


def _blue_factory(money=12):
    ps = [player(phase=2), player(money=money, phase=2, lots=("Workers' Quarters £5", "Laboratory £5"),
                                  active=1, owned=4), player(phase=2)]
    return state(ps, market=_full_market({5: "Factory £6"}), turn=BLUE,
                 spaces={"4-5": [BLUE], "2-5": [RED], "5-6": [GREEN], "5-8": []})


@pytest.mark.parametrize("choice,money,district,vp", [
    ("new", 2, ["Workers' Quarters £5", "Laboratory £5", "Factory £6"], 8),
    ("r1", 4, ["Factory £6", "Laboratory £5"], 5),
    ("r2", 7, ["Workers' Quarters £5", "Factory £6"], 7),
])
def test_16_6_blue_builds_the_factory(choice, money, district, vp):
    st = _blue_factory()
    after = play(st, BLUE, f"act 5 4-5 {choice}")
    p = after.ps[BLUE]
    assert p.money == money and names(p) == district and sum(VP[c] for c in p.lots) == vp
    assert after.market[4] == -1 and p.used == 1
    assert space(after, "2-5") == [RED] and space(after, "5-6") == [GREEN]
    assert p.owned == 5  # the Quarters' worker stays with Blue, even in (b)


def test_16_6_without_a_placement_the_choice_is_asked():
    st = _blue_factory()
    mid = play(st, BLUE, "act 5 4-5")
    assert GAME.to_move(mid) == {BLUE} and mid.pending and mid.ps == st.ps
    assert "where the building goes" in GAME.view(mid, None)["pending"]["question"]
    done = play(mid, BLUE, "r2")
    assert done.ps[BLUE].money == 7 and names(done.ps[BLUE]) == ["Workers' Quarters £5", "Factory £6"]


@pytest.mark.parametrize("option,spy,active,bld", [("o1", 2, 1, 0), ("o2", 3, 0, 1)])
def test_16_7_green_uses_the_mine(option, spy, active, bld):
    ps = [player(phase=2), player(phase=2), player(spy=1, phase=2, active=1, lots=("Mine £5",))]
    st = state(ps, market=_full_market(), turn=GREEN)
    after = play(st, GREEN, f"use 1 {option}")
    p = after.ps[GREEN]
    assert (p.spy, p.active, p.onbld, p.turned) == (spy, active, bld, (True,))
    with pytest.raises(IllegalMoveError) as e:
        GAME.parse_move(with_turn(after, GREEN), GREEN, "use 1 o1")
    assert "already turned" in e.value.reason


def _architect_position():
    ps = [player(money=5, res=3, vp=10, phase=2, active=0, bonus=BONUS_WORKER_AT_20),
          player(money=4, res=2, vp=5, phase=2, active=0),
          player(money=3, phase=2, active=0)]
    return state(ps, market=_full_market({4: "Architect (A)", 1: "Geologist (B)"}), tokens={4: (1, 2)},
                 spaces={"1-4": [GREEN], "4-5": [RED], "4-7": [BLUE], "1-2": [RED]}, turn=RED)


@pytest.mark.parametrize("choice,res,vp", [("adv", 4, 10), ("score", 3, 13)])
def test_16_8_step1_red_takes_token_1(choice, res, vp):
    st = _architect_position()
    after = play(st, RED, f"act 4 4-5 t1 {choice}")
    p = after.ps[RED]
    assert (p.money, p.res, p.vp) == (2, res, vp)
    assert after.discard == (1,) and after.mtok[3] == (2,)
    assert after.turn == BLUE


@pytest.mark.parametrize("choice,res,vp", [("adv", 3, 5), ("score", 2, 7)])
def test_16_8_step2_blue_takes_token_2(choice, res, vp):
    st = play(_architect_position(), RED, "act 4 4-5 t1 adv")
    after = play(st, BLUE, f"act 4 4-7 {choice}")  # token 2 is the only one: forced
    p = after.ps[BLUE]
    assert (p.money, p.res, p.vp) == (1, res, vp)
    assert after.mtok[3] == () and after.turn == GREEN


def test_16_8_step3_green_cannot_activate_the_empty_architect():
    st = play(play(_architect_position(), RED, "act 4 4-5 t1 adv"), BLUE, "act 4 4-7 adv")
    with pytest.raises(IllegalMoveError) as e:
        GAME.parse_move(st, GREEN, "act 4 1-4")
    assert "no token left" in e.value.reason and e.value.examples
    assert play(st, GREEN, "earn 1-4 4").ps[GREEN].money == 3
    assert play(st, GREEN, "earn 1-4 1").ps[GREEN].money == 4


def test_16_9_end_game_scoring_with_automation_capped():
    ps = [player(vp=50), player(vp=40, spy=8, money=3, lots=("Factory £8 (B)", "Residence £5", "Workers' Quarters £6"),
                                techs=("Automation",)), player(vp=60)]
    st = state(ps, over=True)
    out = GAME.outcome(st)
    blue = out.breakdown[BLUE]
    assert blue == {"track": 40, "buildings": 13, "Automation": 7, "total": 60}
    assert out.scores == (50, 60, 60)
    assert out.winners == {BLUE, GREEN} and out.ranking == (BLUE, GREEN, RED)
    ps[0] = player(vp=58)
    assert GAME.outcome(state(ps, over=True)).winners == {BLUE, GREEN}


def test_16_10_laboratory_replaces_laboratory():
    ps = [player(phase=2), player(phase=2), player(money=9, phase=2, active=0, lots=("Laboratory £5",),
                                                   turned=(True,))]
    st = state(ps, market=_full_market({3: "Laboratory £7 (B)"}), spaces={"2-3": [GREEN, RED], "3-6": []},
               turn=GREEN)
    after = play(st, GREEN, "act 3 2-3 r1")
    p = after.ps[GREEN]
    assert p.money == 4 and names(p) == ["Laboratory £7"] and p.turned == (False,)
    with pytest.raises(MoveError):
        play(st, GREEN, "act 3 2-3 r2")
