"""Notation: every form of docs/notation/spyrium.md, errors, pending decisions, fuzzing."""
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as hs

from pbem.engine import AmbiguousMoveError, IllegalMoveError, MoveError, MoveSyntaxError
from pbem.engine.base import NotYourTurnError
from pbem.engine.spyrium import GAME

from .helpers import BLUE, GREEN, RED, play, player, state, with_turn


def M(extra=None):
    m = {q: "Geologist (B)" for q in range(1, 10)}
    m.update(extra or {})
    return m


def fmt(st, seat, text):
    return GAME.format_move(st, seat, GAME.parse_move(st, seat, text))


@pytest.fixture
def p1():
    ps = [player(spy=3, money=12), player()]
    return state(ps, market=M({5: "Factory £6", 1: "Bureaucrat (A)"}), tokens={1: (1, 3)},
                 spaces={"4-5": [RED], "1-2": [RED, BLUE]}, event="Honours for Sale")


@pytest.mark.parametrize("text,canon", [
    ("place 1-2", "place 1-2"), ("PLACE 2-1", "place 1-2"), ("  place   12 ", "place 1-2"),
    ("pl 4/7", "place 4-7"), ("5-8", "place 5-8"), ("put 6 9", None),
    ("event o1", "event o1"), ("Event Option 2", "event o2"), ("ev (1)", "event o1"), ("event 2", "event o2"),
    ("phase2 earn 4-5 5", "phase2 earn 4-5 5"), ("earn 4-5 5", "phase2 earn 4-5 5"),
    ("earn 5 from 4-5", "phase2 earn 4-5 5"), ("p2 earn 5-4 4", "phase2 earn 4-5 4"),
    ("phase 2 act 5 4-5 new", "phase2 act 5 4-5"), ("ACT 5 NEW", "phase2 act 5 4-5"),
    ("a 5 with 4-5 lot new", "phase2 act 5 4-5"), ("act 5 4-5 r1", None),
    ("act 1 1-2 token 3", "phase2 act 1 1-2 t3"), ("act 1 1-2 t1 +5", None),
    ("phase2 event o2", "phase2 event o2"), ("ii pass", None),
])
def test_forms_and_canonical(p1, text, canon):
    if canon is None:
        with pytest.raises(MoveError):
            GAME.parse_move(p1, RED, text)
        return
    assert fmt(p1, RED, text) == canon


def test_phase2_forms():
    ps = [player(phase=2, spy=3, active=1, lots=("Mine £5", "Workshop £2"), techs=("Lobbying", "Commerce"),
                 money=20), player()]
    st = state(ps, market=M({1: "Architect (A)", 5: "Residence £3 (A)"}), tokens={1: (1, 2)},
               spaces={"1-2": [RED, BLUE], "4-5": [RED, BLUE]}, event="Token Windfall", cur_token=2)
    cases = {
        "use 1 o2": "use 1 o2", "use lot 1 option 1": "use 1 o1", "u 2": "use 2", "use 1 2": "use 1 o2",
        "act 1 1-2 lob c3 t2 score": "act 1 1-2 lob c3 t2 score",
        "act 1 1-2 lobbying commerce 3 token 2 score": "act 1 1-2 lob c3 t2 score",
        "act 5 4-5 replace 2 advance": "act 5 4-5 r2 adv", "act 5 4-5 new sc": "act 5 4-5 new score",
        "event c3 vp": "event c3 vp", "event money": "event money", "event S": "event spy",
        "earn 1-2 2": "earn 1-2 2", "earn money with worker in 1-2 from card 2": "earn 1-2 2",
        "act 1 with my worker in 1-2 t2 score": "act 1 1-2 t2 score",
    }
    for text, canon in cases.items():
        assert fmt(st, RED, text) == canon, text


def test_bonus_tile_words():
    ps = [player(vp=6, money=10, phase=2), player()]
    st = state(ps, market=M(), event="Honours for Sale")
    for text in ("event o1 +worker", "event o1 +w", "event o1 + worker", "event o1 bonus worker"):
        assert fmt(st, RED, text) == "event o1 +worker"
    for text in ("event o1 +5", "event o1 +£5", "event o1 £5", "event o1 bonus 5"):
        assert fmt(st, RED, text) == "event o1 +5"


def test_every_legal_move_round_trips_in_many_positions():
    rng = random.Random(5)
    for n in (2, 3, 5):
        st = GAME.initial_state(n, n, {})
        for _ in range(300):
            if st.over:
                break
            seat = st.turn
            legal = GAME.legal_moves(st, seat)
            for m in legal:
                text = GAME.format_move(st, seat, m)
                assert GAME.parse_move(st, seat, text) == m
                assert GAME.parse_move(st, seat, "  " + text.upper().replace(" ", "   ") + " ") == m
            st = GAME.apply(st, seat, legal[rng.randrange(len(legal))])


def test_pending_decision_fallback_and_answers():
    ps = [player(money=20, phase=2, active=0, vp=5, lots=("Mine £2",)), player()]
    st = state(ps, market=M({5: "Residence £5"}), spaces={"4-5": [RED]})
    mid = play(st, RED, "act 5 4-5")
    assert GAME.to_move(mid) == {RED} and mid.ps == st.ps and mid.market == st.market
    v = GAME.view(mid, BLUE)
    assert v["pending"]["question"].startswith("say where the building goes")
    assert "You must now" in GAME.notation_help(mid, RED)
    assert GAME.legal_moves(mid, BLUE) == []
    with pytest.raises(NotYourTurnError):
        GAME.parse_move(mid, BLUE, "new")
    # another action while a choice is pending is refused, with the answers as examples
    with pytest.raises(IllegalMoveError) as e:
        GAME.parse_move(mid, RED, "pass")
    assert "middle of a move" in e.value.reason and any(x.startswith("new") for x in e.value.examples)
    assert GAME.parse_move(mid, RED, "act 5 4-5 new") == GAME.parse_move(mid, RED, "new")  # restated move
    mid2 = play(mid, RED, "new")  # still the residence action to choose
    assert mid2.pending and GAME.format_move(mid2, RED, mid2.pending) == "act 5 4-5 new"
    mid3 = play(mid2, RED, "score")  # 5 + 2 = 7: no bonus
    assert not mid3.pending and mid3.ps[RED].vp == 7 and mid3.turn == BLUE
    # several answers at once, in any order
    done = play(mid, RED, "adv r1")
    assert done.ps[RED].res == 3 and not done.pending
    assert GAME.reveals(st, mid) is False and GAME.reveals(mid, done) is False


def test_missing_earlier_choice_is_named():
    ps = [player(money=20, phase=2, active=0, vp=5, lots=("Mine £2",)), player()]
    st = state(ps, market=M({5: "Residence £5"}), spaces={"4-5": [RED]})
    # 'score' alone leaves the lot open: accepted as a move asking for the lot? No: the lot comes first
    with pytest.raises(IllegalMoveError) as e:
        GAME.parse_move(st, RED, "act 5 4-5 score")
    assert "where the building goes" in e.value.reason and "new" in e.value.reason


def test_errors_have_code_reason_and_examples(p1):
    cases = [
        ("fly away", MoveSyntaxError, "do not know"),
        ("new", MoveSyntaxError, "no choice of yours is waiting"),
        ("place 1-5", MoveSyntaxError, "not a space"),
        ("place", MoveSyntaxError, "one space"),
        ("act 5", IllegalMoveError, None),  # legal actually? see below
        ("act 2 2-3", IllegalMoveError, "no worker in space 2-3"),
        ("act", AmbiguousMoveError, "which worker and which card"),
        ("act 5 4-5 r1", IllegalMoveError, "not possible"),
        ("use 1", IllegalMoveError, "no building in lot 1"),
        ("earn 4-5", AmbiguousMoveError, "which card"),
        ("act 1 1-2 c2", IllegalMoveError, "do not own Commerce"),
    ]
    for text, cls, frag in cases:
        if frag is None:
            continue
        with pytest.raises(cls) as e:
            GAME.parse_move(p1, RED, text)
        err = e.value
        assert frag in err.reason, (text, err.reason)
        assert err.text == text and err.seat == RED and err.examples, text
        assert err.code in ("syntax", "illegal", "ambiguous")
        assert err.describe().count("\n  e.g. ") == len(err.examples)


def test_not_your_turn_and_check_order(p1):
    with pytest.raises(NotYourTurnError):
        GAME.parse_move(p1, BLUE, "fly away")  # turn is checked before syntax
    with pytest.raises(MoveError):
        GAME.apply(p1, BLUE, GAME.legal_moves(p1, RED)[0])


def test_apply_rejects_garbage_values(p1):
    for bad in ([1, 2], "place 1-2", None, (0, 0, 99, 0, 0, 0, ()), (9,)):
        with pytest.raises(IllegalMoveError):
            GAME.apply(p1, RED, bad)


def test_apply_rejects_a_crafted_illegal_move_with_a_reason(p1):
    with pytest.raises(IllegalMoveError) as e:
        GAME.apply(p1, RED, (3, 1, 2, 5, 1, 0, ()))
    assert "Lobbying" in e.value.reason


def test_notation_help_lists_the_options_in_words_and_they_are_legal(p1):
    text = GAME.notation_help(p1, RED)
    lines = text.splitlines()
    items = [x[2:].split(": ", 1)[0] for x in lines if x.startswith("- ")]
    exs = [x for x in items if "<" not in x]
    assert len(exs) >= 2
    for ex in exs:
        assert GAME.parse_move(p1, RED, ex) in GAME.legal_moves(p1, RED)
    assert max(len(x) for x in lines) <= 78 and len(lines) <= 26
    assert "The round ends once every player has passed" in text.replace("\n", " ")
    assert GAME.notation_help(p1, None).startswith("Spyrium notation")


# ---------------------------------------------------------------- fuzzing

_POSITIONS = []


def _positions():
    if not _POSITIONS:
        rng = random.Random(9)
        for n in (2, 4):
            st = GAME.initial_state(n, 40 + n, {})
            for i in range(400):
                if st.over:
                    break
                if i % 23 == 0 or (st.pending and i % 3 == 0):
                    _POSITIONS.append(st)
                legal = GAME.legal_moves(st, st.turn)
                st = GAME.apply(st, st.turn, legal[rng.randrange(len(legal))])
    return _POSITIONS


WORDS = ["place", "event", "earn", "act", "use", "pass", "phase2", "lob", "c2", "t1", "t3", "new",
         "r1", "r2", "adv", "score", "+worker", "+5", "o1", "o2", "money", "spy", "vp", "lot1",
         "1-2", "4-5", "5-6", "2-5", "1", "5", "9", "0", "12", "x", "£", "-", "(1)", "  "]


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(i=hs.integers(min_value=0, max_value=10_000),
       text=hs.one_of(hs.text(max_size=30), hs.lists(hs.sampled_from(WORDS), max_size=7).map(" ".join)))
def test_fuzz_any_text_is_a_legal_move_or_a_move_error(i, text):
    pos = _positions()
    st = pos[i % len(pos)]
    seat = st.turn
    try:
        m = GAME.parse_move(st, seat, text)
    except MoveError:
        return
    assert m in GAME.legal_moves(st, seat)


def test_a_stray_word_is_answered_with_what_the_move_takes():
    """'use 1 o3' used to get 'a move starts with place, event, ...', which does not help
    a player who did start with 'use'."""
    from .helpers import player, state

    m = {q: "Geologist (B)" for q in range(1, 10)}
    st = state([player(phase=2, active=1, lots=("Mine £5",)), player()], market=m)
    with pytest.raises(MoveSyntaxError) as e:
        GAME.parse_move(st, 0, "use 1 o3")
    assert "o1 or o2" in e.value.reason and e.value.examples
    st = state([player(phase=2, active=0), player()], market=m, spaces={"4-5": [0]})
    with pytest.raises(MoveSyntaxError) as e:
        GAME.parse_move(st, 0, "act 5 4-5 banana")
    assert "t1-t3" in e.value.reason


def test_the_bonus_question_accepts_worker_and_5_in_plain_words():
    from .helpers import player, state

    m = {q: "Geologist (B)" for q in range(1, 10)}
    m[1] = "Apprentice"
    st = state([player(phase=2, vp=6, active=0), player()], market=m, spaces={"1-2": [0]})
    mid = GAME.apply(st, 0, GAME.parse_move(st, 0, "act 1"))
    assert mid.pending
    for word, owned, money in (("worker", 2, 10), ("5", 1, 15), ("£5", 1, 15), ("+worker", 2, 10)):
        done = GAME.apply(mid, 0, GAME.parse_move(mid, 0, word))
        assert (done.ps[0].owned, done.ps[0].money) == (owned, money), word


def test_examples_show_every_kind_of_move_not_only_placements():
    st = GAME.initial_state(3, 7, {})
    ex = GAME.view(st, st.turn)["examples"]
    assert ex[0].startswith("place") and any(e.startswith("phase2") for e in ex), ex
    assert len(set(ex)) == len(ex)


def test_an_absent_token_is_refused_with_the_tokens_present():
    from .helpers import player, state

    m = {q: "Geologist (B)" for q in range(1, 10)}
    m[4] = "Bureaucrat (A)"
    st = state([player(phase=2, active=0), player()], market=m, tokens={4: (1, 3)}, spaces={"4-5": [0]})
    with pytest.raises(IllegalMoveError) as e:
        GAME.parse_move(st, 0, "act 4 4-5 t2")
    assert e.value.reason == ("t2 is not possible here: the Bureaucrat carries no token showing 2 "
                              "(its tokens show 1 and 3); choose t1 or t3 (which token to take)")


@pytest.mark.parametrize("text,canon", [
    ("Phase 2: pass.", "phase2 pass"), ("phase2 pass!", "phase2 pass"), ("Place 4-5.", "place 4-5"),
    ("place a worker at 4-5", "place 4-5"), ("event: o1", "event o1"), ("please place 1-2", "place 1-2"),
    ("use building 1 o2.", "phase2 use 1 o2"),
])
def test_sentence_punctuation_and_filler_words_of_a_mail(text, canon):
    from .helpers import player, state

    m = {q: "Geologist (B)" for q in range(1, 10)}
    st = state([player(lots=("Mine £5",)), player()], market=m, event="Honours for Sale")
    assert GAME.format_move(st, 0, GAME.parse_move(st, 0, text)) == canon


def test_s5_7_bare_pass_in_phase_1_is_refused_with_the_way_out():
    # RULES.md §5.7: pass is a Phase II action; a player in Phase I passes only through
    # "go to Phase II" followed at once by pass. A bare 'pass' never switches silently.
    st = state([player(active=3), player()], market=M())
    for text in ("pass", "done", "I pass."):
        with pytest.raises(IllegalMoveError) as e:
            GAME.parse_move(st, RED, text)
        r = e.value.reason
        assert "Phase I" in r and "Phase II action" in r and "'phase2 pass'" in r, r
        assert "3 active workers would stay unused" in r and "place 1-2" in r, r
        assert e.value.examples[0] == "phase2 pass"
        assert any(x.startswith("place ") for x in e.value.examples)
    assert st.ps[RED].phase == 1 and not st.ps[RED].passed
    # the explicit form stays legal
    after = play(st, RED, "phase2 pass")
    assert after.ps[RED].phase == 2 and after.ps[RED].passed
    assert play(st, RED, "p2 pass") == after
    # with a worker on the market no pass is possible at all, and the reply says why
    st2 = state([player(active=2), player()], market=M(), spaces={"4-5": [RED]})
    with pytest.raises(IllegalMoveError) as e:
        GAME.parse_move(st2, RED, "pass")
    assert "on the market" in e.value.reason and "phase2 pass" not in e.value.examples
    # in Phase II a bare 'pass' is the ordinary pass
    st3 = state([player(phase=2, active=1), player()], market=M())
    assert play(st3, RED, "pass").ps[RED].passed
