"""Issue 19, Squire orders: paths from here, whole-turn mails with a plain buy or sell,
refusals that give the real reason."""
import re
from dataclasses import replace

import pytest

from pbem.engine import GameOverError, IllegalMoveError, MoveError, NotYourTurnError
from pbem.engine.base import normalize_notation
from pbem.engine.squire import GAME
from pbem.engine.squire.rules import CELL, EXHIBIT, MOVE, OFFERS, TAKE, TRADE, Move

from .util import D, at_move, card, cell, city, gallery, new, play, player, put, tok


def mail(state, seat, body):
    """A whole-turn mail as the services apply it to an atomic game (pbem.services.core.moves.submit_moves):
    one move per line or per ';', in order, all or nothing. Returns the state after it."""
    texts = [normalize_notation(t) for line in body.splitlines() for t in line.split(";")]
    st = state
    for text in (t for t in texts if t):
        if seat not in GAME.to_move(st):
            raise NotYourTurnError("it is not your turn", text=text, seat=seat)
        st = GAME.apply(st, seat, GAME.parse_move(st, seat, text))
    return st


# ---------------------------------------------------------------- paths


def _york(tickets=3):
    s = at_move(new(4), 0, "york")
    return player(s, 0, tickets=tickets, rtickets=1)


def test_a_path_naming_the_current_city_later_is_refused_with_paths_from_here():
    """'move london-york-manchester' in York used to be charged York-London-York-Manchester."""
    s = _york()
    with pytest.raises(IllegalMoveError) as e:
        GAME.parse_move(s, 0, "move london-york-manchester")
    assert "a path starts where you are, in York" in e.value.reason
    assert "write the path from York" in e.value.reason
    assert e.value.examples[0] == "move York-Manchester"
    assert all(x.startswith("move York-") for x in e.value.examples)
    for x in e.value.examples:
        GAME.parse_move(s, 0, x)  # every example is legal here
    with pytest.raises(IllegalMoveError, match="starts where you are"):
        GAME.parse_move(s, 0, "move london-york")
    assert s.players[0].tickets == 3  # nothing spent


def test_a_path_from_here_and_the_documented_short_forms_still_work():
    s = _york()
    for text, dest, reg in (("move york-manchester", "manchester", 0), ("move manchester", "manchester", 0),
                            ("move london-bristol", "bristol", 1), ("move york-london-bristol", "bristol", 1),
                            ("move york-london-york-manchester", "manchester", 2)):
        m = GAME.parse_move(s, 0, text)
        assert m == Move("move", city(s, dest), reg), text


def test_a_path_whose_first_city_is_not_next_to_here_is_refused():
    s = _york()
    with pytest.raises(IllegalMoveError) as e:
        GAME.parse_move(s, 0, "move bristol-london")
    assert "no route joins York and Bristol" in e.value.reason
    assert e.value.examples[0] == "move York-London"


# ---------------------------------------------------------------- a plain buy or sell in a whole-turn mail


def _trader(hand):
    s = at_move(new(4), 1, "manchester", MOVE)
    s = put(s, "york", "ceramics-05")
    return player(s, 1, hand=hand, coins=10, tickets=0, rtickets=1)


@pytest.mark.parametrize("hand", [(card("M05"),), (card("M09"),)])  # M05 matches a buy in York, M09 does not
def test_a_whole_turn_mail_with_a_plain_buy_is_applied_and_asks_the_offers_after(hand):
    s = _trader(hand)
    after = mail(s, 1, "move york\nbuy\ncell F1C2")
    p = after.players[1]
    assert p.gallery[cell("F1C2")] == tok("ceramics-05") and p.coins == 10 - 5 + 2  # hall bonus +2 coins
    assert after.phase == OFFERS and GAME.to_move(after) == {1}  # the question, asked whatever the hand
    assert "offers none" in [GAME.format_move(after, 1, m) for m in GAME.legal_moves(after, 1)]
    done = mail(after, 1, "offers M05" if hand == (card("M05"),) else "offers none")
    assert done.active == 2 and GAME.to_move(done) == {2}
    # the same turn with the question answered first, or inline, ends the same
    for body in ("move york; buy; offers {o}; cell F1C2", "move york; buy offers {o}; cell F1C2"):
        o = "M05" if hand == (card("M05"),) else "none"
        assert mail(s, 1, body.format(o=o)) == done


def test_the_offers_question_must_be_answered_before_the_exhibition():
    s = replace(_trader((card("M05"),)), token=1)
    with pytest.raises(IllegalMoveError) as e:
        mail(s, 1, "move york; buy; cell F1C2; exhibit painting")
    assert "first say which offers you play with your buy" in e.value.reason
    assert "'buy offers none'" in e.value.reason
    after = mail(s, 1, "move york; buy; cell F1C2; offers none; exhibit painting")
    assert after.active == 2 and after.last_exh == D.type_ids.index("painting")


def test_a_plain_buy_with_the_third_floor_pick_then_the_offers():
    s = _trader((card("M05"),))
    g = gallery(("F3C1", "painting-01"), ("F3C2", "painting-02"), ("F3C3", "painting-03"))
    s = replace(player(s, 1, gallery=g), discard=(tok("sculpture-11"),))
    after = mail(s, 1, "move york; buy; cell F3C4")
    assert after.phase == TAKE
    assert {GAME.format_move(after, 1, m).split()[0] for m in GAME.legal_moves(after, 1)} == {"take", "offers"}
    after = mail(after, 1, "take sculpture-11 cell F1C1; offers none")
    assert after.players[1].gallery[cell("F1C1")] == tok("sculpture-11") and after.active == 2
    assert mail(s, 1, "move york; buy; cell F3C4 take sculpture-11 cell F1C1; offers none") == after


def test_status_names_both_open_decisions():
    s = mail(_trader(()), 1, "move york; buy")
    assert GAME.view(s, None)["status"] == "Turn 5 - Player 2 to choose the offers played and place the bought exhibit"


# ---------------------------------------------------------------- refusals that give the real reason


def test_an_exhibit_after_a_sale_by_a_seat_without_the_token_says_so():
    s = replace(_trader(()), token=3)
    after = mail(s, 1, "move york; sell offers none")
    assert after.active == 2
    with pytest.raises(IllegalMoveError) as e:
        GAME.parse_move(after, 1, "exhibit painting")
    assert "it is not your turn" not in e.value.reason
    assert e.value.reason.startswith("you do not hold the exhibition token: Player 4 holds it")
    # the same inside the turn
    mid = mail(s, 1, "move york; sell")
    with pytest.raises(IllegalMoveError, match="you do not hold the exhibition token"):
        GAME.parse_move(mid, 1, "exhibit painting")


def test_two_players_token_on_the_board():
    s = at_move(new(2), 0, "york", TRADE)
    s = replace(s, token=-1)
    with pytest.raises(IllegalMoveError, match="lies on the board: you take it at the end of this turn"):
        GAME.parse_move(s, 0, "exhibit painting")
    with pytest.raises(IllegalMoveError, match="Player 1 takes it at the end of this turn"):
        GAME.parse_move(s, 1, "exhibit painting")


def test_refusals_after_the_turn_name_what_happened():
    s = replace(_trader(()), token=3)
    after = mail(s, 1, "move york; sell offers none")
    with pytest.raises(NotYourTurnError) as e:
        GAME.parse_move(after, 1, "cell F1C2")
    assert e.value.reason.startswith("your turn is over: you sold ceramics-05, and there was nothing to place")
    assert e.value.reason.endswith("it is not your turn: Player 3 is to place their character")
    with pytest.raises(NotYourTurnError, match="it is not your turn: Player 3 is to place their character"):
        GAME.parse_move(after, 0, "move york-london")


@pytest.mark.parametrize("phase,text,reason", [
    (MOVE, "buy", "first move (step I)"),
    (MOVE, "offers M05", "offers are played with your buy or sell, in step II"),
    (MOVE, "cell F1C2", "only an exhibit bought in step II is placed"),
    (TRADE, "move york-london", "you have already moved this turn, to York"),
    (TRADE, "take painting-01 cell F1C1", "you have no 3rd-floor pick"),
    (TRADE, "exhibit painting", "the exhibition is step V"),
    (TRADE, "accept M05", "only the host of a sculpture exhibition accepts a commission"),
    (TRADE, "swap M05 for M07", "only when another player exhibits sculptures"),
    (CELL, "take painting-01 cell F1C1", "place the bought exhibit first, or write the pick with it"),
    (EXHIBIT, "accept M05", "write exhibit sculpture accept M11"),
    (TRADE, "start london", "your character already stands in York"),
])
def test_a_step_out_of_order_says_why_and_what_is_expected_now(phase, text, reason):
    s = at_move(new(4), 3, "york", phase)
    if phase == CELL:
        s = replace(s, bought=tok("painting-01"))
    with pytest.raises(IllegalMoveError) as e:
        GAME.parse_move(s, 3, text)
    assert reason in e.value.reason
    assert "; now " in e.value.reason and e.value.examples


def test_a_second_transaction_names_the_first():
    s = at_move(new(4), 3, "york", TRADE)
    s = player(s, 3, coins=20)
    after = play(s, 3, "buy offers none")
    with pytest.raises(IllegalMoveError, match=r"you have already bought \w+-\d+ this turn"):
        GAME.parse_move(after, 3, "sell")


def test_apply_of_a_move_not_from_the_parser_says_why():
    s = at_move(new(4), 3, "york", MOVE)
    with pytest.raises(IllegalMoveError, match="first move"):
        GAME.apply(s, 3, Move("buy", 1))
    with pytest.raises(NotYourTurnError, match="Player 4 is to move"):
        GAME.apply(s, 0, Move("move", city(s, "london"), 0))


def test_game_over_and_gibberish_out_of_turn():
    s = at_move(new(4), 3, "york", MOVE)
    with pytest.raises(NotYourTurnError, match="it is not your turn"):
        GAME.parse_move(s, 0, "hello there")
    with pytest.raises(GameOverError):
        GAME.parse_move(replace(s, phase="over"), 3, "move york-london")


def test_every_refusal_along_random_games_has_a_reason_and_legal_examples():
    """Each verb, written at every point of a few random games by every seat: a MoveError whose
    reason is a sentence (no bare 'not legal now'), with legal examples when the seat is to move."""
    from pbem.engine.playout import random_playout

    probes = ("move london", "buy", "sell", "offers none", "cell F1C1", "take painting-01 cell F1C1",
              "exhibit painting", "accept none", "swap none", "start york", "board fox")
    seen = 0

    def on_move(before, seat, move, after):
        nonlocal seen
        for who in range(before.n):
            for text in probes:
                try:
                    GAME.parse_move(before, who, text)
                except MoveError as e:
                    seen += 1
                    assert len(e.reason) > 20 and "not legal now" not in e.reason, (text, e.reason)
                    if who in GAME.to_move(before) and not isinstance(e, GameOverError):
                        assert e.examples, (text, e.reason)
                    assert not re.search(r"\bseat \d", e.reason), e.reason

    random_playout(GAME, 3, 5, {"side": "british"}, rng_seed=5, on_move=on_move)
    assert seen > 1000
