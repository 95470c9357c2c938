"""A seat's address travels with replies; the seat does not. A player
answering her It's a Wonderful World draft with Bob's seat address in Cc made
Bob's secret pick: each copy was read as the seat whose address it came to.
Now a mail to a seat's address from another player of the same game (her
registered From, or a reply to a mail pbem sent to her) plays and says
nothing for that seat; the copy is dropped and its sender told once, in her
language.

For real: the reply-all goes over SMTP to the running receiver (one
transaction, both seats' addresses as recipients, as a mail client's server
sends it), and a Celery worker in its own process reads both copies."""
from __future__ import annotations

from sqlmodel import select

from pbem import config
from pbem.services.core import accounts, notify
from pbem.services.lobby import tables
from pbem.store.db import unit_of_work
from pbem.store.models import Inbound, Move, Outbound, Post
from tests.conftest import celery_worker, send_mail, smtp_receiver
from tests.mailtools import mail, outbox, seat_addr, wait_for

NAMES = ("ann", "bob", "cat")
DONE = ("done", "ignored", "failed")


def _game(language: str = "en") -> int:
    """A running three-player It's a Wonderful World game at its first draft (a secret simultaneous
    step), each player's board mailed."""
    with unit_of_work() as s:
        users = [accounts.register(s, f"{n}@x.test", n.title(), confirmed=True)[0] for n in NAMES]
        users[0].language, users[0].language_chosen = language, True
        s.add(users[0])
        g = tables.create(s, users[0], "iaww", 3, {}, seed=7)
        for u in users[1:]:
            tables.join(s, u, g.id)
        notify.queue_boards(s, g, "The game has started.")
        return g.id


def _board(gid: int, to: str) -> Outbound:
    with unit_of_work() as s:
        return s.exec(select(Outbound).where(Outbound.to_addr == to, Outbound.kind == "board",
                                             Outbound.game_id == gid).order_by(Outbound.id.desc())).first()


def _reply(frm: str, board: Outbound, to: list[str], body: str, cc: list[str] = ()) -> bytes:
    headers = {"In-Reply-To": board.message_id, "References": board.message_id}
    if cc:
        headers["Cc"] = ", ".join(cc)
    raw = mail(frm, ", ".join(to), body + "\n\nOn Sun, pbem wrote:\n> your board", "Re: " + board.subject,
               headers=headers)
    return raw.replace(b"\n", b"\r\n")


def _rows() -> list[Inbound]:
    with unit_of_work() as s:
        return list(s.exec(select(Inbound).order_by(Inbound.id)))


def _moves(gid: int) -> list[tuple[int, str]]:
    with unit_of_work() as s:
        return [(m.seat, m.notation) for m in s.exec(select(Move).where(Move.game_id == gid).order_by(Move.ply))]


def _posts(gid: int) -> list:
    with unit_of_work() as s:
        return list(s.exec(select(Post).where(Post.game_id == gid)))


def _after(mark: int, to: str) -> list[Outbound]:
    return [o for o in outbox(to) if o.id > mark]


def _last() -> int:
    return max((o.id for o in outbox()), default=0)


def test_a_reply_all_with_another_seats_address_plays_only_the_senders_seat(sqlite_cfg):
    """Ann answers her draft board with ``pick 1`` and a word to the table,
    to her seat's address with Bob's in Cc, in one SMTP transaction. Her
    pick is made; Bob's seat makes none, says nothing, gets no mail; Ann is
    told once, in Russian (her language), of the copy dropped. A second
    reply-all the same day is dropped again, without a second notice."""
    cfg = sqlite_cfg.with_(inbound_rate=10_000)
    config.set_settings(cfg)
    gid = _game("ru")
    ann_seat, bob_seat, cat_seat = (seat_addr(gid, i) for i in range(3))
    board = _board(gid, "ann@x.test")
    mark = _last()
    with smtp_receiver(cfg), celery_worker(cfg):
        raw = _reply("ann@x.test", board, [ann_seat], "pick 1\nGood luck all", cc=[bob_seat, cat_seat])
        assert send_mail(cfg, raw, "ann@x.test", [ann_seat, bob_seat, cat_seat]) == 250
        rows = wait_for(lambda: (lambda r: r if len(r) == 3 and all(x.status in DONE for x in r) else None)(_rows()),
                        90)
        by_rcpt = {r.rcpt_to: r for r in rows}
        print("\nthe three copies:", {k.split(".")[0] + "." + str(i): (r.status, (r.result or "")[:70])
                                      for i, (k, r) in enumerate(by_rcpt.items())})
        assert by_rcpt[ann_seat].status == "done" and by_rcpt[ann_seat].result.startswith("OK: pick 1")
        assert by_rcpt[bob_seat].status == by_rcpt[cat_seat].status == "ignored"
        assert [seat for seat, _n in _moves(gid)] == [0], _moves(gid)
        assert not [p for p in _posts(gid) if p.seat in (1, 2)]
        # Bob and Cat get the table's board of Ann's pick, as always, and nothing else
        assert [o.kind for o in _after(mark, "bob@x.test") + _after(mark, "cat@x.test")] in ([], ["board"] * 2)
        told = [o for o in _after(mark, "ann@x.test") if "Cc" in o.body_text]
        assert len(told) == 1, [o.body_text[:200] for o in _after(mark, "ann@x.test")]
        assert "копия" in told[0].body_text.lower(), told[0].body_text
        # the same again later that day, now from another address of Ann's (a reply to her own board: the
        # References name a mail pbem sent to Ann), to Bob's seat alone: dropped, not told again
        mark = _last()
        raw = _reply("ann.phone@elsewhere.test", board, [bob_seat], "pick 2")
        assert send_mail(cfg, raw, "ann.phone@elsewhere.test", [bob_seat]) == 250
        row = wait_for(lambda: (lambda r: r[-1] if len(r) == 4 and r[-1].status in DONE else None)(_rows()), 90)
    assert row.status == "ignored", (row.status, row.result)
    assert [seat for seat, _n in _moves(gid)] == [0]
    assert _after(mark, "bob@x.test") == [] and _after(mark, "ann@x.test") == []
    assert _after(mark, "ann.phone@elsewhere.test") == []
    assert not [p for p in _posts(gid) if p.seat in (1, 2)]


def test_a_mail_of_bob_himself_from_another_address_still_plays_his_seat(sqlite_cfg):
    """What is not a copy is read as before: Bob's pick from an address pbem
    does not know, answering his own board, plays his seat (and he is told
    that his seat's address was used from another address)."""
    cfg = sqlite_cfg.with_(inbound_rate=10_000)
    config.set_settings(cfg)
    gid = _game()
    bob_seat = seat_addr(gid, 1)
    board = _board(gid, "bob@x.test")
    with smtp_receiver(cfg), celery_worker(cfg):
        assert send_mail(cfg, _reply("bob.phone@elsewhere.test", board, [bob_seat], "pick 1"),
                         "bob.phone@elsewhere.test", [bob_seat]) == 250
        row = wait_for(lambda: (lambda r: r[-1] if r and r[-1].status in DONE else None)(_rows()), 90)
    assert row.status == "done" and row.result.startswith("OK: pick 1"), row.result
    assert [s for s, _n in _moves(gid)] == [1]
