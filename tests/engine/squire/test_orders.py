"""Squire orders: paths from here, whole-turn mails with a plain buy or sell,
refusals that give the real reason."""
import re
from dataclasses import replace

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pbem.engine import GameOverError, IllegalMoveError, MoveError, NotYourTurnError
from pbem.engine.base import normalize_notation
from pbem.engine.squire import GAME
from pbem.engine.squire.rules import CELL, EXHIBIT, MOVE, OFFERS, TAKE, TRADE, Move, matching_cards

from .util import D, at_move, card, cell, city, gallery, new, play, player, put, tok


def mail(state, seat, body, notes=None):
    """A whole-turn mail as the services apply it to an atomic game (pbem.services.core.moves.submit_moves):
    one move per line or per ';', in order, all or nothing, with the moves the order leaves unsaid
    (GAME.implied_move) before each text and after the last. Returns the state after it; the implied
    moves' notes go to ``notes`` (a list) when given."""
    texts = [normalize_notation(t) for line in body.splitlines() for t in line.split(";")]
    st = state
    order = []

    def imply(text):
        nonlocal st
        if seat in GAME.to_move(st):
            found = GAME.implied_move(st, seat, tuple(order), text)
            if found is not None:
                st = GAME.apply(st, seat, found.move)
                order.append(found.move)
                if notes is not None:
                    notes.append((GAME.format_move(state, seat, found.move), found.note))

    for text in (t for t in texts if t):
        imply(text)
        if seat not in GAME.to_move(st):
            raise NotYourTurnError("it is not your turn", text=text, seat=seat)
        move = GAME.parse_move(st, seat, text)
        st = GAME.apply(st, seat, move)
        order.append(move)
    imply(None)
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


M05, M09 = (card("M05"),), (card("M09"),)  # M05's offer matches a buy or sale in York, M09's does not


def _record(state, seat, body):
    """What a mail applies: the public record (its moves and the implied ones, in notation), the
    implied moves' private notes, and the state after it."""
    notes = []
    after = mail(state, seat, body, notes)
    texts = [t for line in body.splitlines() for t in line.split(";") if t.strip()]
    outcome = _record_checked(state, seat, ";".join(texts), [])
    assert outcome[2:] == (after.phase, after.active, after.no_offers)
    return list(outcome[1]), notes, after


@pytest.mark.parametrize("hand", [M05, M09])
def test_a_whole_turn_with_a_plain_buy_then_the_cell_is_one_mail(hand):
    """`move a-b; buy; cell F1C2` goes on past the offers question: it reads `offers none`, whatever
    the hand holds, and the turn ends with the mail."""
    s = _trader(hand)
    record, notes, after = _record(s, 1, "move york\nbuy\ncell F1C2")
    p = after.players[1]
    assert p.gallery[cell("F1C2")] == tok("ceramics-05") and p.coins == 10 - 5 + 2  # hall bonus +2 coins
    assert p.hand == hand  # no card played
    assert after.active == 2 and GAME.to_move(after) == {2}
    assert record == ["move Manchester-York", "buy", "cell F1C2", "offers none"]
    assert [n[0] for n in notes] == ["offers none"]
    note = notes[0][1]
    assert note.startswith("your order went on past the question of the offers you play with your buy")
    if hand == M05:  # the seat that held a matching offer is told so, in its own receipt
        assert "You held M05, whose offer matched this buy" in note and "buy offers M05" in note
    else:
        assert "You held" not in note
    # the same turn with the question answered (first, inline, or after the cell) ends the same
    for body in ("move york; buy; offers none; cell F1C2", "move york; buy offers none; cell F1C2",
                 "move york; buy; cell F1C2; offers none"):
        assert mail(s, 1, body) == after


@pytest.mark.parametrize("hand", [M05, M09])
def test_a_mail_that_stops_at_a_plain_buy_is_asked_the_offers(hand):
    """The order stops at the question and the turn goes on (the exhibit to place): it is asked,
    with or without a matching card, and nothing is implied."""
    s = _trader(hand)
    notes = []
    mid = mail(s, 1, "move york; buy", notes)
    assert notes == [] and mid.phase == OFFERS and mid.bought == tok("ceramics-05")
    assert "offers none" in [GAME.format_move(mid, 1, m) for m in GAME.legal_moves(mid, 1)]
    # a later mail that only places the exhibit leaves the question (asked by the board it answers) open
    placed = mail(mid, 1, "cell F1C2", notes)
    assert notes == [] and placed.phase == OFFERS and GAME.to_move(placed) == {1}
    done = mail(placed, 1, "offers M05" if hand == M05 else "offers none")
    assert done.active == 2


def test_a_sale_that_ends_the_turn_reads_offers_none():
    """`move a-b; sell` by a seat without the exhibition token: the sale ends the turn, so the mail
    is the whole turn and the missing answer is `offers none`."""
    s = replace(_trader(M09), token=3)
    record, notes, after = _record(s, 1, "move york; sell")
    assert record == ["move Manchester-York", "sell", "offers none"] and after.active == 2
    assert notes[0][1] == "your sale ends your turn, and your order named no offer to play with it, so none was played"
    # a matching card of the hand is named in the note only
    sold = GAME.apply(GAME.apply(s, 1, GAME.parse_move(s, 1, "move york")), 1, Move("sell"))
    match = next(c for c in range(len(D.cards)) if matching_cards(player(sold, 1, hand=(c,)), 1, 1,
                                                                   city(s, "york"), tok("ceramics-05")))
    record2, notes2, after2 = _record(player(s, 1, hand=(match,)), 1, "move york; sell")
    assert f"You held {D.cards[match].id}, whose offer matched this sale" in notes2[0][1]
    assert record2 == record and after2.active == 2


def test_the_issue_example_a_sale_then_the_exhibition_in_one_mail():
    """`move york-london; sell; exhibit painting` used to be refused whole ("first say which offers
    you play with your sell"): the exhibition is a later step, so the offers are none."""
    s = at_move(new(4), 3, "york", MOVE)  # seat 3 holds the exhibition token in a new 4-player game
    s = player(s, 3, tickets=2, rtickets=1, hand=(card("M01"),))
    record, notes, after = _record(s, 3, "move york-london; sell; exhibit painting")
    assert record[1:] == ["sell", "offers none", "exhibit painting"]
    assert after.active == 0 and after.last_exh == D.type_ids.index("painting")
    assert "You held M01, whose offer matched this sale" in notes[0][1]  # M01: red region (London), any sale
    assert after.players[3].hand == (card("M01"),)


def test_a_sale_by_the_token_holder_that_stops_there_is_asked():
    s = at_move(new(4), 3, "york", MOVE)
    s = player(s, 3, tickets=2, rtickets=1)
    notes = []
    mid = mail(s, 3, "move york-london; sell", notes)
    assert notes == [] and mid.phase == OFFERS and GAME.to_move(mid) == {3}


def test_the_offers_question_asked_by_an_earlier_board_must_be_answered_before_the_exhibition():
    s = replace(_trader(M05), token=1)
    mid = mail(s, 1, "move york; buy")
    with pytest.raises(IllegalMoveError) as e:
        mail(mid, 1, "cell F1C2; exhibit painting")
    assert "first say which offers you play with your buy" in e.value.reason
    assert "'buy offers none'" in e.value.reason
    after = mail(mid, 1, "cell F1C2; offers none; exhibit painting")
    assert after.active == 2 and after.last_exh == D.type_ids.index("painting")
    # in one mail the exhibition goes past the question
    assert mail(s, 1, "move york; buy; cell F1C2; exhibit painting") == after


def test_a_plain_buy_with_the_third_floor_pick_then_the_offers():
    s = _trader(M05)
    g = gallery(("F3C1", "painting-01"), ("F3C2", "painting-02"), ("F3C3", "painting-03"))
    s = replace(player(s, 1, gallery=g), discard=(tok("sculpture-11"),))
    record, notes, after = _record(s, 1, "move york; buy; cell F3C4")
    assert record[-1] == "offers none" and after.phase == TAKE  # the pick is the seat's own decision, asked
    assert {GAME.format_move(after, 1, m).split()[0] for m in GAME.legal_moves(after, 1)} == {"take"}
    done = mail(after, 1, "take sculpture-11 cell F1C1")
    assert done.players[1].gallery[cell("F1C1")] == tok("sculpture-11") and done.active == 2
    assert mail(s, 1, "move york; buy; cell F3C4 take sculpture-11 cell F1C1") == done
    assert mail(s, 1, "move york; buy; cell F3C4; take sculpture-11 cell F1C1") == done


def test_a_buy_then_the_exhibition_without_the_cell_is_refused_for_the_cell():
    s = replace(_trader(M05), token=1)
    with pytest.raises(IllegalMoveError) as e:
        mail(s, 1, "move york; buy; exhibit painting")
    assert "place the bought exhibit" in e.value.reason


# ---------------------------------------------------------------- the standing order "offers none always"


def test_offers_none_always_is_a_standing_order_like_swap_none_always():
    s = _trader(M05)
    mid = mail(s, 1, "move york; buy")
    assert GAME.parse_move(mid, 1, "offers none always") == Move("offers", 0, 1)
    assert GAME.parse_move(mid, 1, "offers never") == Move("offers", 0, 1)
    after = play(mid, 1, "offers none always")
    assert after.no_offers == (1,) and after.players[1].hand == M05 and after.phase == CELL
    assert GAME.view(after, 0)["standing_offers_none"] == [1]  # public, as the record is
    assert GAME.describe_move(mid, 1, Move("offers", 0, 1)) == "played no offer, and will not be asked again"
    assert GAME.from_json(GAME.to_json(after)) == after
    assert "no_offers" not in GAME.to_json(mid)  # the JSON of states without it stays as it was
    # inline with the transaction, in any of the players' languages
    s2 = at_move(new(4), 1, "york", TRADE)
    for text in ("sell offers none always", "SELL offers NONE always", "продать предложения нет всегда",
                 "vendi offerte nessuna sempre", "продай оферти няма винаги"):
        assert GAME.parse_move(s2, 1, text) == Move("sell", 1, 1), text
    assert GAME.format_move(s2, 1, Move("sell", 1, 1)) == "sell offers none always"
    assert play(s2, 1, "sell offers none always").no_offers == (1,)


def test_under_the_standing_order_a_plain_buy_or_sell_is_never_asked():
    s = replace(_trader(M05), no_offers=(1,))
    record, notes, after = _record(s, 1, "move york; buy")  # stops at the question: not asked
    assert record == ["move Manchester-York", "buy", "offers none"] and after.phase == CELL
    assert notes[0][1].startswith("your standing order offers none always: no offer was played with your buy")
    assert "You held M05, whose offer matched this buy" in notes[0][1]
    # an offer written inline is still played
    inline = mail(s, 1, "move york; buy offers M05; cell F1C2")
    assert inline.players[1].hand == () and inline.players[1].coins == 10 - 5 + 2 + 3
    # ... and so is one written after the plain buy in the same mail
    assert mail(s, 1, "move york; buy; offers M05; cell F1C2") == inline


# ---------------------------------------------------------------- secrecy: the reading never depends on the hand


_BODIES = ("move york; buy", "move york; sell", "move york; buy; cell F1C2", "move york; sell; exhibit painting",
           "move york; buy; cell F1C2; exhibit painting", "move york; buy; exhibit painting",
           "move york; sell offers none always", "move york; buy; offers none always; cell F1C2",
           "move york; buy offers none; cell F1C2", "move york; sell; cell F1C2", "move york; buy; buy",
           "move york; sell; move york-london", "move york; buy; cell F1C2; cell F1C3",
           "move york; buy; take painting-01 cell F1C1", "move york; buy; F1C2; exhibit ceramics")


_CARDS = [c.id for c in D.cards]


@settings(deadline=None, max_examples=150, suppress_health_check=[HealthCheck.too_slow])
@given(body=st.sampled_from(_BODIES), token=st.sampled_from([1, 3]), standing=st.booleans(),
       size=st.integers(0, 3), data=st.data(),
       extra=st.sampled_from(["", "; offers none", "; exhibit sculpture", "; cell F2C1", "; swap none"]))
def test_hypothesis_the_implied_answer_is_legal_and_never_reads_the_hand(body, token, standing, size, data,
                                                                          extra):
    """Any order of the new forms, on two hands of the same size (what every seat sees of a hand;
    one may hold matching offers, the other not): the same moves are applied or the same text
    refused, the implied move is always legal where it is applied, and only the private note differs."""
    hands = [data.draw(st.lists(st.sampled_from(_CARDS), min_size=size, max_size=size, unique=True))
             for _ in range(2)]
    outcomes = []
    for hand in hands:
        s = replace(_trader(tuple(sorted(card(c) for c in hand))), token=token,
                    no_offers=(1,) if standing else ())
        notes = []
        try:
            out = _record_checked(s, 1, body + extra, notes)
        except MoveError as e:
            out = ("refused", type(e).__name__, e.text)
        outcomes.append(out)
    assert outcomes[0] == outcomes[1]  # the same record, turn and phase, or the same text refused


def _record_checked(state, seat, body, notes):
    """The public record of a mail (each move checked legal where it is applied), and where it leaves the turn."""
    st, order, out = state, [], []
    texts = [t.strip() for t in body.split(";") if t.strip()]
    for text in texts + [None]:
        found = GAME.implied_move(st, seat, tuple(order), text) if seat in GAME.to_move(st) else None
        if found is not None:
            assert found.move in GAME.legal_moves(st, seat)
            notes.append(found.note)
            out.append(GAME.format_move(st, seat, found.move))
            st = GAME.apply(st, seat, found.move)
            order.append(found.move)
        if text is not None:
            if seat not in GAME.to_move(st):
                raise NotYourTurnError("not your turn", text=text, seat=seat)
            m = GAME.parse_move(st, seat, text)
            out.append(GAME.format_move(st, seat, m))
            st = GAME.apply(st, seat, m)
            order.append(m)
    return ("applied", tuple(out), st.phase, st.active, st.no_offers)


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


@pytest.mark.parametrize("lang,why,held", [
    ("en", "your order went on past the question", "You held M05"),
    ("ru", "ваш приказ пошёл дальше вопроса о предложениях", "У вас была карта M05"),
    ("bg", "заповедта ви продължи след въпроса за офертите", "Държахте M05"),
    ("it", "il tuo ordine è andato oltre la domanda sulle offerte", "Avevi M05"),
])
def test_the_note_is_in_the_reader_s_language(lang, why, held):
    from pbem.engine.i18n import language

    with language(lang):
        notes = []
        mail(_trader(M05), 1, "move york; buy; cell F1C2", notes)
    assert notes[0][0] == "offers none"  # the record stays English
    assert why in notes[0][1] and held in notes[0][1] and "buy offers M05" in notes[0][1]
