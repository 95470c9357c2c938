"""A Squire turn in one natural mail, through the real pipeline (mail in, receipt and boards out):
a plain `buy`/`sell` whose mail goes on past the offers question, or whose sale ends the turn,
plays no offer (`offers none`), told in the mover's receipt -- with the matching card of the hand
it kept, which no other player's mail names; the question is still asked when the mail stops at
it and the turn goes on; and the standing order `offers none always`."""
from __future__ import annotations

from sqlmodel import select

from pbem.engine import get_game
from pbem.engine.squire.data import load
from pbem.engine.squire.rules import Move as SquireMove, matching_cards
from pbem.services.core import accounts, games, seating
from pbem.services.lobby import tables
from pbem.store.db import unit_of_work
from pbem.store.models import Move, User
from tests.mailtools import outbox, process, seat_addr

GAME = get_game("squire")
EMAILS = ("ann@x.test", "bob@x.test")


def _table(seed: int) -> tuple[int, dict[int, str]]:
    with unit_of_work() as s:
        users = [accounts.register(s, e, e.split("@")[0].title(), confirmed=True)[0] for e in EMAILS]
        g = tables.create(s, users[0], "squire", 2, {"boards": "random"}, seed=seed)
        tables.join(s, users[1], g.id)
        gid = g.id
        emails = {x.seat: s.get(User, x.user_id).email for x in seating.seats(s, gid)}
    return gid, emails


def _state(gid: int):
    with unit_of_work() as s:
        return games.state_at(s, games.get(s, gid))


def _record(gid: int) -> list[str]:
    with unit_of_work() as s:
        return [m.notation for m in s.exec(select(Move).where(Move.game_id == gid, Move.undone == False)  # noqa: E712
                                           .order_by(Move.ply))]


def _mail(gid: int, seat: int, emails: dict[int, str], body: str) -> str:
    """``seat``'s mail with ``body``; its receipt's text (one mail: the receipt)."""
    before = len(outbox(emails[seat]))
    assert process(emails[seat], seat_addr(gid, seat), body)[1] == "done"
    mine = outbox(emails[seat])[before:]
    assert [o.kind for o in mine] == ["reply"], [o.kind for o in mine]
    return mine[0]


def _city_name(state, c: int) -> str:
    return GAME.view(state, None)["cities"][c]["name"]


def _a_move_then(state, seat: int, then: str) -> str:
    """A legal move (its notation) after which ``then`` ("buy"/"sell") is legal for ``seat``."""
    for m in GAME.legal_moves(state, seat):
        after = GAME.apply(state, seat, m)
        if SquireMove(then) in GAME.legal_moves(after, seat):
            return GAME.format_move(state, seat, m)
    raise AssertionError(f"no move allows {then}")


def test_a_whole_squire_turn_in_one_mail_reads_the_unsaid_offers_as_none(sqlite_cfg):
    gid, emails = _table(seed=7)
    st = _state(gid)
    first = min(GAME.to_move(st))
    other = 1 - first
    assert st.token == other  # 2 players: the second seat holds the exhibition token first
    # turn 1: the first seat starts in a city whose sale one of its cards' offers matches, and sells
    hand = st.players[first].hand
    city = next(c for c in range(len(st.cities)) if matching_cards(st, first, 1, c, st.cities[c]))
    held_ids = [load(st.custom).cards[c].id for c in matching_cards(st, first, 1, city, st.cities[city])]
    receipt = _mail(gid, first, emails, f"start {_city_name(st, city)}\nsell\n\nThanks!")
    text = " ".join(receipt.body_text.split())
    assert "> (offers none)" in receipt.body_text
    assert "your sale ends your turn, and your order named no offer to play with it, so none was played" in text
    assert f"You held {held_ids[0]}" in text and "whose offer matched this sale" in text
    assert f"You held {held_ids[0]}" in " ".join(receipt.body_html.split())
    assert _record(gid)[-2:] == ["sell", "offers none"]
    st = _state(gid)
    assert min(GAME.to_move(st)) == other and st.players[first].hand == hand  # the turn ended, no card played
    # the other player's board tells the same public record, and nothing of the hand
    board = [o for o in outbox(emails[other]) if o.kind == "board"][-1].body_text
    assert "played no offer" in board
    assert "You held" not in board and not any(h in board for h in held_ids)

    # turn 2: the token holder starts, sells and exhibits in one mail: the exhibition goes past the question
    receipt = _mail(gid, other, emails, f"start {_city_name(st, 0)}; sell; exhibit painting")
    text = " ".join(receipt.body_text.split())
    assert "ERROR" not in receipt.body_text and "NOT APPLIED" not in receipt.body_text
    assert "your order went on past the question of the offers you play with your sale" in text
    assert _record(gid)[-3:] == ["sell", "offers none", "exhibit painting"]

    # turn 3: move, a plain buy and the placement: the placement goes past the question
    st = _state(gid)
    move = _a_move_then(st, first, "buy")
    receipt = _mail(gid, first, emails, f"{move}\nbuy\ncell F1C2")
    text = " ".join(receipt.body_text.split())
    assert "your order went on past the question of the offers you play with your buy" in text
    assert _record(gid)[-4:] == [move, "buy", "cell F1C2", "offers none"]
    assert min(GAME.to_move(_state(gid))) == other

    # turn 4: the standing order, inline with the sale
    st = _state(gid)
    move = _a_move_then(st, other, "sell")
    receipt = _mail(gid, other, emails, f"{move}; sell offers none always")
    assert _record(gid)[-1] == "sell offers none always" and _state(gid).no_offers == (other,)

    # turn 5 (the first seat picked up the token at the end of turn 3): a sale, then an exhibition, in one mail
    st = _state(gid)
    assert st.token == first
    move = _a_move_then(st, first, "sell")
    receipt = _mail(gid, first, emails, f"{move}; sell; exhibit painting")
    assert "ERROR" not in receipt.body_text
    assert _record(gid)[-3:] == ["sell", "offers none", "exhibit painting"]

    # turn 6: under the standing order a plain buy that stops the mail is not asked
    st = _state(gid)
    move = _a_move_then(st, other, "buy")
    receipt = _mail(gid, other, emails, f"{move}\nbuy")
    text = " ".join(receipt.body_text.split())
    assert "your standing order offers none always: no offer was played with your buy" in text
    assert _record(gid)[-2:] == ["buy", "offers none"]
    st = _state(gid)
    assert st.phase == "cell" and GAME.to_move(st) == {other}


def test_a_mail_that_stops_at_the_question_is_asked_it(sqlite_cfg):
    gid, emails = _table(seed=7)
    st = _state(gid)
    first = min(GAME.to_move(st))
    other = 1 - first
    _mail(gid, first, emails, f"start {_city_name(st, 0)}\nsell offers none")
    # the token holder's sale does not end its turn: a mail that stops at it is asked the offers
    receipt = _mail(gid, other, emails, f"start {_city_name(_state(gid), 1)}\nsell")
    assert _record(gid)[-1] == "sell"
    st = _state(gid)
    assert st.phase == "offers" and GAME.to_move(st) == {other}
    assert "offers none" in receipt.body_text and "(offers none)" not in receipt.body_text
