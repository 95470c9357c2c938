"""Notation (docs/notation/squire.md): every documented form, errors, fallback, fuzzing."""
from dataclasses import replace

import pytest
from hypothesis import given, settings, strategies as st

from pbem.engine import (
    AmbiguousMoveError, GameOverError, IllegalMoveError, MoveError, MoveSyntaxError, NotYourTurnError,
    validate_options,
)
from pbem.engine.playout import random_playout
from pbem.engine.squire import GAME
from pbem.engine.squire.rules import ACCEPT, CELL, EXHIBIT, OFFERS, SWAP, TAKE, TRADE, Move

from .util import D, at_move, card, cell, city, new, play, player, put, tok, typ


def _pm(s, seat, text):
    return GAME.parse_move(s, seat, text)


def test_board_forms():
    s = GAME.initial_state(2, 1, validate_options(GAME, 2, {}))
    b = [p.id for p in D.player_boards].index("badger")
    for text in ('board badger "Lady Badger"', "board badger lady", "board badger 2", "BOARD  Badger  Lady",
                 "board lady badger", "character badg 2"):
        assert _pm(s, 0, text) == Move("board", b, 1), text
    assert _pm(s, 0, "board badger") == Move("board", b, 0)
    assert GAME.format_move(s, 0, Move("board", b, 1)) == 'board badger "Lady Badger"'


def test_start_forms_and_city_prefixes():
    s = new(4, "world")
    rio = city(s, "rio_de_janeiro")
    for text in ("start rio", "start Rio de Janeiro", "start rio_de_janeiro", "START RIO DE", "place rio"):
        assert _pm(s, 0, text) == Move("start", rio), text
    with pytest.raises(AmbiguousMoveError) as e:
        _pm(s, 0, "start ca")  # Cairo, Calcutta, Cape Town
    assert e.value.examples and "Cairo" in e.value.reason
    with pytest.raises(MoveSyntaxError):
        _pm(s, 0, "start atlantis")


def test_move_forms():
    s = at_move(new(4, "world"), 0, "rome")
    s = player(s, 0, tickets=2)
    tokyo = city(s, "tokyo")
    for text in ("move rome-samarkand-tokyo", "move samarkand-tokyo", "move rome > samarkand > tokyo",
                 "go rome, samarkand, tokyo", "move rome samarkand tokyo", "move tokyo",
                 "move rome-samarkand-tokyo pay royal 1 regular 1", "move rome-samarkand-tokyo pay regular 1"):
        assert _pm(s, 0, text) == Move("move", tokyo, 1), text
    s2 = at_move(new(4, "world"), 0, "london")
    s2 = player(s2, 0, tickets=2)
    assert _pm(s2, 0, "move new york") == Move("move", city(s, "new_york"), 0)
    assert _pm(s2, 0, "move london-new york-rio") == Move("move", city(s, "rio_de_janeiro"), 1)


def test_move_errors():
    s = at_move(new(4, "world"), 0, "rome")
    with pytest.raises(IllegalMoveError) as e:
        _pm(s, 0, "move rome-samarkand-tokyo")
    assert "hold only 0 regular" in e.value.reason and e.value.examples
    with pytest.raises(IllegalMoveError, match="paid as"):
        _pm(player(s, 0, tickets=1), 0, "move rome-samarkand-tokyo pay royal 0 regular 2")
    with pytest.raises(MoveSyntaxError):
        _pm(s, 0, "move")
    with pytest.raises(MoveSyntaxError):
        _pm(s, 0, "move rome-paris pay lots")


def test_trade_forms_and_pending_offers():
    s = at_move(new(4, "world"), 3, "paris", TRADE)
    s = put(s, "paris", "rare_book-03")
    s = player(s, 3, hand=(card("M01"), card("M33")))
    assert _pm(s, 3, "sell") == Move("sell", 0)
    assert _pm(s, 3, "sell offers none") == Move("sell", 1)
    assert _pm(s, 3, "sell offers M01 M33") == Move("sell", 1, 0, (card("M01"), card("M33")))
    assert _pm(s, 3, "SELL m33 m1") == Move("sell", 1, 0, (card("M01"), card("M33")))
    mid = play(s, 3, "sell")
    assert mid.phase == OFFERS
    assert _pm(mid, 3, "offers none") == Move("offers")
    assert _pm(mid, 3, "offers M33") == Move("offers", 0, 0, (card("M33"),))
    with pytest.raises(IllegalMoveError, match="you sold rare_book-03 this turn, so there is no exhibit to place"):
        _pm(mid, 3, "cell F1C1")
    # §2: the hand is secret, so neither the recorded text of a move (shown to every seat in the
    # thread) nor the question that follows it may depend on whether the hand holds a matching
    # card: without one, "sell" asks too, and "offers none" is the only answer
    s3 = player(s, 3, hand=(card("M05"),))
    assert _pm(s3, 3, "sell") == Move("sell", 0) and _pm(s3, 3, "sell offers none") == Move("sell", 1)
    assert GAME.format_move(s3, 3, Move("sell", 0)) == GAME.format_move(s, 3, Move("sell", 0)) == "sell"
    assert GAME.format_move(s3, 3, Move("sell", 1)) == GAME.format_move(s, 3, Move("sell", 1)) == "sell offers none"
    asked = play(s3, 3, "sell")
    assert asked.phase == OFFERS and [GAME.format_move(asked, 3, m) for m in GAME.legal_moves(asked, 3)] == \
        ["offers none", "offers none always"]
    with pytest.raises(IllegalMoveError, match="does not match"):
        _pm(s3, 3, "sell offers M05")
    with pytest.raises(MoveSyntaxError):
        _pm(s3, 3, "sell offers M99")


def test_cell_take_exhibit_accept_swap_forms():
    s = at_move(new(4), 3, "york", CELL)
    s = replace(s, bought=tok("painting-01"))
    for text in ("cell F2C1", "f2c1", "CELL f 2 c 1", "cell F2 C1"):
        assert _pm(s, 3, text) == Move("cell", cell("F2C1")), text
    with pytest.raises(MoveSyntaxError):
        _pm(s, 3, "cell F4C1")
    with pytest.raises(MoveSyntaxError):
        _pm(s, 3, "cell middle")
    t = replace(s, phase=TAKE, discard=(tok("sculpture-11"),), takes=1)
    for text in ("take sculpture-11 cell F1C3", "take sculpture 11 F1C3", "take scul-11 in f1c3"):
        assert _pm(t, 3, text) == Move("take", tok("sculpture-11"), cell("F1C3")), text
    with pytest.raises(IllegalMoveError, match="not in the exhibit discard"):
        _pm(t, 3, "take painting-02 cell F1C3")
    e = replace(s, phase=EXHIBIT, token=3)
    e = player(e, 3, hand=(card("M11"),))
    assert _pm(e, 3, "exhibit sculpture") == Move("exhibit", typ("sculpture"))
    assert _pm(e, 3, "exhibit scu accept m11") == Move("exhibit", typ("sculpture"), 1, (card("M11"),))
    assert _pm(e, 3, "exhibit sculpture accept none") == Move("exhibit", typ("sculpture"), 1)
    assert _pm(e, 3, "exhibit painting accept none") == Move("exhibit", typ("painting"))
    assert _pm(e, 3, "exhibit j") == Move("exhibit", typ("jewellery"))
    a = play(e, 3, "exhibit sculpture")
    assert a.phase == ACCEPT
    assert _pm(a, 3, "accept M11") == Move("accept", 0, 0, (card("M11"),))
    assert _pm(a, 3, "accept none") == Move("accept")
    with pytest.raises(IllegalMoveError):
        _pm(a, 3, "accept M12")


def test_swap_forms_and_standing_order():
    s = at_move(new(4), 1, "york", EXHIBIT)
    s = replace(s, token=1)
    s = player(s, 1, hand=())
    s = player(s, 2, comms=(card("M07"),), hand=(card("M28"),))  # lioness
    w = play(s, 1, "exhibit sculpture")
    assert w.phase == SWAP
    assert _pm(w, 2, "swap M07 for M28") == Move("swap", card("M07"), card("M28"))
    assert _pm(w, 2, "swap m7 m28") == Move("swap", card("M07"), card("M28"))
    assert _pm(w, 2, "swap none") == Move("swap", -1, -1)
    assert _pm(w, 2, "swap none always") == Move("swap", -1, 1)
    with pytest.raises(IllegalMoveError, match="not one of your accepted"):
        _pm(w, 2, "swap M28 for M07")
    after = play(w, 2, "swap none always")
    assert after.no_swap == (2,)
    # next sculpture exhibition: seat 2 is not asked again
    again = replace(after, phase=EXHIBIT, active=1, token=1, exhibited=False)
    assert play(again, 1, "exhibit sculpture").phase != SWAP


def test_errors_follow_the_check_order():
    s = new(4)
    with pytest.raises(NotYourTurnError):
        _pm(s, 1, "xyzzy")
    with pytest.raises(MoveSyntaxError) as e:
        _pm(s, 0, "xyzzy")
    err = e.value
    assert err.code == "syntax" and err.reason and err.examples and err.text == "xyzzy" and err.seat == 0
    with pytest.raises(IllegalMoveError) as e:
        _pm(s, 0, "buy")
    assert e.value.code == "illegal" and "place your character" in e.value.reason and e.value.examples
    final, _ = random_playout(GAME, 2, 4, {}, rng_seed=4)
    with pytest.raises(GameOverError):
        _pm(final, 0, "buy")


def test_parse_is_case_insensitive_and_whitespace_tolerant():
    s = at_move(new(4), 0, "york")
    s = player(s, 0, tickets=1)
    assert _pm(s, 0, "  MoVe   York -  LONDON  ") == Move("move", city(s, "london"), 0)


def test_notation_help_lists_the_options_in_words_legal_now():
    """The "Your move." block lists the seat's options, each in notation that is legal
    now followed by what it does, and says what comes next; the others get the reference."""
    s = at_move(new(4), 0, "york")
    h = GAME.notation_help(s, 0)
    assert h.startswith("Step I, move: the cheapest way to each city you can reach:")
    moves = [x.strip() for x in h.splitlines() if x.startswith("  move ")]
    assert len(moves) >= 3
    for ex in moves:
        assert _pm(s, 0, ex) in GAME.legal_moves(s, 0)
    assert "  move York-Manchester\n      go to Manchester: 1 step, paid with 1 royal ticket that you keep" in h
    assert "Next: buy or sell in that city" in h
    assert "Squire notation" in GAME.notation_help(s, 1) and "Step I" not in GAME.notation_help(s, 1)


def test_notation_help_fits_a_mail_line_in_every_phase():
    """The help is mailed after "Your move. ": no line may exceed 80 characters, whatever the
    options are, nor the block about 25 lines."""
    for s, seat in _positions():
        text = "Your move. " + GAME.notation_help(s, seat)
        for line in text.splitlines():
            assert len(line) <= 80, line
        assert len(text.splitlines()) <= 27, text
    from pbem.engine.squire.notation import PHASE_WHAT
    for what in PHASE_WHAT.values():   # the "Now: ..." line of every phase
        assert len("Now: " + what) <= 78, what


def _positions():
    """A spread of positions from random games (every phase appears)."""
    out = []
    for n, side, seed in ((2, "british", 1), (3, "world", 2), (4, "british", 3)):
        def grab(before, seat, move, after):
            out.append((before, seat))
        random_playout(GAME, n, seed, {"side": side}, rng_seed=seed, on_move=grab)
    first = {}
    for st_, seat in out:
        first.setdefault(st_.phase, (st_, seat))
    return out[::7] + list(first.values())


POSITIONS = _positions()
WORDS = ["move", "buy", "sell", "offers", "cell", "take", "exhibit", "accept", "swap", "board", "start", "none",
         "for", "pay", "royal", "regular", "free", "M01", "M11", "m7", "F1C1", "f3c4", "sculpture-11", "london",
         "rio", "york", "-", ">", "sam", "tok", "fox", "lady", "1", "2", "always", "painting", "ca", "ü", ";",
         '"', ",", "--", "accept", "in", "cell"]


@settings(max_examples=200, deadline=None)
@given(st.integers(min_value=0, max_value=len(POSITIONS) - 1),
       st.one_of(st.text(max_size=40), st.lists(st.sampled_from(WORDS), max_size=7).map(" ".join)))
def test_fuzz_parse_gives_a_legal_move_or_a_move_error(i, text):
    state, seat = POSITIONS[i]
    try:
        m = GAME.parse_move(state, seat, text)
    except MoveError:
        return
    assert m in GAME.legal_moves(state, seat)


@pytest.mark.parametrize("text", ["move -", "move ,", "move - -", 'board ""', 'board " "', "swap", "take f1c1",
                                  "exhibit accept", "buy offers", "cell", "start -"])
def test_odd_inputs_are_move_errors(text):
    for state, seat in POSITIONS:
        with pytest.raises(MoveError):
            GAME.parse_move(state, seat, text)


def test_every_phase_is_covered_by_the_fuzz_positions():
    assert {s.phase for s, _ in POSITIONS} >= {"board", "start", "move", "trade", "cell", "exhibit"}


def test_s2_recorded_move_text_does_not_reveal_the_hand():
    """§2 (hand cards secret): the same move by a player with and without a matching offer
    card reads the same in the move record."""
    base = put(at_move(new(4, "world"), 3, "paris", TRADE), "paris", "rare_book-03")
    with_card = player(base, 3, hand=(card("M01"),))     # M01 matches a sale in a red city
    without = player(base, 3, hand=(card("M05"),))       # M05 does not
    for k in ("buy", "sell"):
        m = Move(k, 1)
        assert GAME.format_move(with_card, 3, m) == GAME.format_move(without, 3, m) == f"{k} offers none"
        for st in (with_card, without):
            assert _pm(st, 3, GAME.format_move(st, 3, m)) == m


@pytest.mark.parametrize("text,type_id", [
    ("exhibit paintings", "painting"), ("exhibit Sculptures", "sculpture"), ("exhibit jewelry", "jewellery"),
    ("exhibit Jewels", "jewellery"), ("exhibit ceramic", "ceramics"), ("exhibit potteries", None),
])
def test_exhibit_type_accepts_plurals_and_us_spelling(text, type_id):
    s = replace(at_move(new(4), 0, "london"), phase=EXHIBIT, token=0)
    if type_id is None:
        with pytest.raises(MoveSyntaxError, match="you can exhibit") as e:
            _pm(s, 0, text)
        assert all(w in e.value.reason for w in ("painting", "ceramics", "sculpture", "jewellery"))
        assert "rare" not in e.value.reason
    else:
        assert _pm(s, 0, text) == Move("exhibit", typ(type_id))


def test_rare_books_plural_is_refused_with_the_rule_not_as_unknown():
    s = replace(at_move(new(4), 0, "london"), phase=EXHIBIT, token=0)
    with pytest.raises(IllegalMoveError, match="never be exhibited"):
        _pm(s, 0, "exhibit rare books")


def test_move_to_a_destination_with_a_stated_payment_uses_the_cheapest_path():
    """'move tokyo pay royal 1 regular 1' from Rome (E1) names no path; the payment is checked
    against the cheapest path instead of failing on a missing Rome-Tokyo route."""
    s = player(at_move(new(4, "world"), 0, "rome"), 0, rtickets=1, tickets=1)
    assert _pm(s, 0, "move tokyo pay royal 1 regular 1") == _pm(s, 0, "move rome-samarkand-tokyo")
    with pytest.raises(IllegalMoveError, match="royal 1, regular 1"):
        _pm(s, 0, "move tokyo pay royal 2")


def test_unaffordable_destination_says_what_it_costs():
    s = player(at_move(new(4), 0, "london"), 0, rtickets=1, tickets=0)
    with pytest.raises(IllegalMoveError) as e:
        _pm(s, 0, "move aberdeen")
    r = e.value.reason
    assert "2 steps" in r and "London-Edinburgh-Aberdeen" in r and "1 royal ticket" in r and "0 regular tickets" in r, r
