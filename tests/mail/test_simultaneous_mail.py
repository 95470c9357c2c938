"""Simultaneous steps by mail and on the web: five players answering
the same It's a Wonderful World draft mail are all applied, in any order, through
the real pipeline; a pick is changed by replying again (nobody else is told);
LIST on the seat's address shows what is on file; the game page does the same."""
from __future__ import annotations

import pytest
from sqlmodel import select

from pbem.engine.iaww.data import CARDS
from pbem.mail import pipeline
from pbem.services.core import accounts, games, notify, seating
from pbem.services.lobby import tables
from pbem.store.db import unit_of_work
from pbem.store.models import Inbound, Move, Outbound, User
from tests.mailtools import mail, seat_addr, store_inbound

NAMES = ("ann", "ben", "cat", "dan", "eve")


def _game(n: int = 5, seed: int = 7) -> int:
    """A running game, and each player's board mail (as the game's start sends them)."""
    with unit_of_work() as s:
        users = [accounts.register(s, f"{NAMES[i]}@x.test", NAMES[i].title(), confirmed=True)[0] for i in range(n)]
        g = tables.create(s, users[0], "iaww", n, {}, seed=seed)
        for u in users[1:]:
            tables.join(s, u, g.id)
        notify.queue_boards(s, g, "The game has started.")
        return g.id


def _email(gid: int, seat: int) -> str:
    with unit_of_work() as s:
        return s.get(User, seating.seats(s, gid)[seat].user_id).email


def _board(gid: int, seat: int) -> Outbound:
    """The latest board mail the seat's player got."""
    to = _email(gid, seat)
    with unit_of_work() as s:
        return s.exec(select(Outbound).where(Outbound.to_addr == to, Outbound.kind == "board",
                                             Outbound.game_id == gid).order_by(Outbound.id.desc())).first()


def _reply(gid: int, seat: int, body: str, to: Outbound) -> Inbound:
    """The seat's player replies to a mail of the game, through the whole pipeline."""
    frm, rcpt = _email(gid, seat), seat_addr(gid, seat)
    raw = mail(frm, rcpt, body + "\n\n> quoted board", subject=f"Re: {to.subject}",
               headers={"In-Reply-To": to.message_id, "References": to.message_id})
    iid = store_inbound(raw, rcpt, frm)
    assert pipeline.process_inbound(iid) == "done"
    with unit_of_work() as s:
        return s.get(Inbound, iid)


def _mails_since(mark: int, to: str | None = None) -> list[Outbound]:
    with unit_of_work() as s:
        q = select(Outbound).where(Outbound.id > mark).order_by(Outbound.id)
        return [o for o in s.exec(q) if to is None or o.to_addr == to]


def _last_id() -> int:
    with unit_of_work() as s:
        return s.exec(select(Outbound.id).order_by(Outbound.id.desc())).first() or 0


def _state(gid):
    with unit_of_work() as s:
        return games.state_at(s, games.get(s, gid))


@pytest.mark.parametrize("order", [(0, 1, 2, 3, 4), (4, 3, 2, 1, 0), (2, 0, 4, 1, 3)])
def test_five_replies_to_the_same_draft_mail_are_all_applied(any_cfg, order):
    gid = _game()
    boards = {seat: _board(gid, seat) for seat in range(5)}
    assert {b.message_id.split(".")[3] for b in boards.values()} == {"0"}  # all show ply 0
    for seat in order:
        row = _reply(gid, seat, f"pick {seat + 1}", boards[seat])
        assert row.result.startswith("OK: pick") and "stale" not in row.result, (seat, row.result)
    state = _state(gid)
    assert state.step == 2 and all(len(p.draft) == 1 for p in state.players)


def test_a_pick_changed_by_mail_replaces_the_first_and_nobody_else_is_told(any_cfg):
    gid = _game(3)
    boards = {seat: _board(gid, seat) for seat in range(3)}
    first = _reply(gid, 0, "pick 1", boards[0])
    assert first.result.startswith("OK")
    assert _reply(gid, 1, "pick 2", boards[1]).result.startswith("OK")
    mark = _last_id()
    # Ann changes her mind, answering the same board with a card's name alone: her pick is replaced
    hand = [c["id"] for c in games_view(gid, 0)["you"]["hand"]]
    again = _reply(gid, 0, f"Sorry, I meant\n{hand[2]}\nThanks", boards[0])
    assert again.result.startswith(f"OK: {hand[2]}"), again.result
    to_ann = _mails_since(mark, "ann@x.test")
    assert [o.kind for o in to_ann] == ["reply"]
    assert "replaces the one you had on file" in to_ann[0].body_text
    assert _mails_since(mark, "ben@x.test") == [] and _mails_since(mark, "cat@x.test") == []
    with unit_of_work() as s:
        moves = [(m.seat, m.undone, m.superseded_by) for m in s.exec(select(Move).where(Move.game_id == gid)
                                                                     .order_by(Move.ply))]
    assert moves == [(0, True, 3), (1, False, None), (0, False, None)]
    # LIST on her seat's address shows what is on file: the new pick
    listed = _reply(gid, 0, "LIST", boards[0])
    assert listed.result.startswith("OK: LIST") and f"pick {hand[2]}" in _mails_since(mark, "ann@x.test")[-1].body_text
    # Cat picks: the step is revealed with Ann's second pick
    assert _reply(gid, 2, "pick 1", boards[2]).result.startswith("OK")
    assert _state(gid).players[0].draft[0].split("#")[0] == hand[2]
    told = "\n".join(o.body_text for o in _mails_since(mark, "ben@x.test"))
    revealed = " ".join(told.split())  # "Round 1, pick 1: Ann <card>, Ben <card>, ..." (wrapped)
    assert f"Ann {CARDS[hand[2]].name}," in revealed and f"Ann {CARDS[hand[0]].name}," not in revealed


def games_view(gid: int, seat: int) -> dict:
    with unit_of_work() as s:
        return games.view_for(s, games.get(s, gid), seat)


def test_list_on_the_command_address_says_where_it_works(any_cfg):
    from tests.mailtools import CMD

    gid = _game(3)
    iid = store_inbound(mail("ann@x.test", CMD, "LIST"), CMD, "ann@x.test")
    assert pipeline.process_inbound(iid) == "done"
    with unit_of_work() as s:
        assert s.get(Inbound, iid).result.startswith("ERROR")
    assert "works on a game's address" in _mails_since(0, "ann@x.test")[-1].body_text
    assert _state(gid).step == 1


def test_a_pick_changed_on_the_web_and_the_page_shows_what_is_on_file(sqlite_cfg):
    from pbem.web import create_app
    from tests.web.conftest import Browser

    gid = _game(3)
    app = create_app(sqlite_cfg)
    app.config["TESTING"] = True
    with unit_of_work() as s:
        ann = seating.seats(s, gid)[0].user_id
    web = Browser(app)
    web.login_as(ann)
    page = f"/games/{gid}"
    hand = [c["id"] for c in games_view(gid, 0)["you"]["hand"]]
    r = web.post(f"{page}/move", {"text": "pick 2", "ply": "0"}, page=page, follow_redirects=True)
    html = r.get_data(as_text=True)
    assert f"Applied: pick {hand[1]}" in html and f"LIST: on file for you in this step: pick {hand[1]}" in html
    assert "A new one replaces it whole" in html and 'id="move-form"' in html  # she may still change it
    mark = _last_id()
    r = web.post(f"{page}/move", {"text": "pick 5", "ply": "0"}, page=page, follow_redirects=True)
    html = r.get_data(as_text=True)
    assert f"It replaces your order on file for this step (pick {hand[1]})" in html
    assert f"on file for you in this step: pick {hand[4]}" in html
    assert _mails_since(mark) == []  # nobody is told
    # Ben's page: the log shows one secret choice of Ann's, no trace of the first; no LIST of hers
    from tests.reliability.test_no_leaks import LOG_ROW

    with unit_of_work() as s:
        ben = seating.seats(s, gid)[1].user_id
    other = Browser(app)
    other.login_as(ben)
    theirs = other.get(page).get_data(as_text=True)
    log = theirs.split('id="log"', 1)[1] if 'id="log"' in theirs else theirs
    # (numbered as the step's start: its own ply, 2, would tell that a choice came before it)
    assert [ply for ply, _ in LOG_ROW.findall(log)] == ["0"]
    assert "LIST: you have nothing on file for this step yet" in theirs and f"pick {hand[1]}" not in theirs
