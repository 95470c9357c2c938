"""Notices and board mails about moves go through the door too (every
mail and notification gets a viewer-scoped projection): in It's a Wonderful
World's draft, a pick forced by an admin, taken back, made by a bot or by the
deadline's bot stays secret in the thread and in the other seats' mail until
the step is revealed, and a pick taken back stays secret for good."""
from __future__ import annotations

from sqlmodel import select

from pbem.engine import get_game
from pbem.services.core import accounts, games, moves, visibility
from pbem.services.lobby import tables
from pbem.services.referee import disputes, undo
from pbem.services.turns import bots
from pbem.store.db import unit_of_work
from pbem.store.models import Outbound, Post, User, utcnow


def _said_to(addr: str, since: int) -> str:
    with unit_of_work() as s:
        rows = s.exec(select(Outbound).where(Outbound.to_addr == addr, Outbound.id > since))
        return "\n".join(r.subject + "\n" + r.body_text + (r.body_html or "") for r in rows)


def _headlines(text: str) -> str:
    """The lines of mails that tell of moves (the rest is the reader's own board, which may hold
    a card of the same name)."""
    return "\n".join(line for line in text.splitlines() if "played" in line or "take back" in line
                     or "Taken back" in line)


def _last_mail() -> int:
    with unit_of_work() as s:
        return s.exec(select(Outbound.id).order_by(Outbound.id.desc())).first() or 0


def _thread() -> str:
    with unit_of_work() as s:
        g = games.get(s, 1)
        return "\n".join(p.body for p in visibility.posts(s, g, visibility.Viewer()))


def test_picks_by_an_admin_a_bot_and_the_clock_and_an_undo_stay_secret(sqlite_cfg):
    engine = get_game("iaww")
    with unit_of_work() as s:
        ann, ben = (accounts.register(s, f"{n}@x.test", n, confirmed=True)[0] for n in ("ann", "ben"))
        root = accounts.register(s, "root@x.test", "Root", confirmed=True)[0]
        root.is_admin = True
        g = tables.create(s, ann, "iaww", 3, {}, seed=4)
        tables.join(s, ben, g.id)
        bots.add_bot(s, ann, g.id)
        gid, ids = g.id, {"ann": ann.id, "ben": ben.id, "root": root.id}
        assert games.get(s, gid).status == "running"
    secret: list[str] = []  # the card ids picked while secret

    def pick(s, seat, last=False):
        state = games.state_at(s, games.get(s, gid))
        legal = engine.legal_moves(state, seat)
        move = engine.format_move(state, seat, legal[-1 if last else 0])
        return move, move.split(" ", 1)[1]

    # an admin forces Ann's pick: the announcement (thread and every board) names no card
    mark = _last_mail()
    with unit_of_work() as s:
        move, card = pick(s, 0)
        disputes.force_move(s, s.get(User, ids["root"]), None, gid, 0, move, "she asked by phone")
    secret.append(card)
    assert "An admin played a secret choice" in _said_to("ben@x.test", mark)
    assert card not in _headlines(_said_to("ben@x.test", mark))
    # Ann takes it back, Ben agrees: the request and the undo name no card, then or later
    mark = _last_mail()
    with unit_of_work() as s:
        undo.request(s, s.get(User, ids["ann"]), gid)
        undo.vote(s, s.get(User, ids["ben"]), gid, True)
    told = _headlines(_said_to("ben@x.test", mark))
    # numbered as the step's start, as the log shows a secret choice (its own ply would count the choices before it)
    assert "(a secret choice)" in told and "ply 0 a secret choice" in told and card not in told
    # the bot seat picks, then the clock has a bot pick for Ben
    mark = _last_mail()
    with unit_of_work() as s:
        bot_card = bots.play_one(s, gid).split(" ", 1)[1]
        secret.append(bot_card)
        ben_card = bots.play_now(s, games.get(s, gid), 1, "Ben's time ran out.", utcnow()).split(" ", 1)[1]
    for addr in ("ann@x.test", "ben@x.test"):
        told = _headlines(_said_to(addr, mark))
        assert "played: a secret choice" in told and bot_card not in told, addr
    told = _headlines(_said_to("ann@x.test", mark))
    assert "A bot played for ben: a secret choice" in told and ben_card not in told
    secret.append(ben_card)
    assert not any(c in _thread() for c in secret)
    # Ann picks another card: the step is revealed; the picks that stand are public, the one
    # taken back is not
    with unit_of_work() as s:
        move, last = pick(s, 0, last=True)
        assert last != card
        assert moves.submit_moves(s, gid, 0, [move], source="web").ok
    thread = _thread()
    assert bot_card in thread and ben_card in thread and last in thread and card not in thread
    with unit_of_work() as s:
        notices = [p.body for p in s.exec(select(Post).where(Post.kind.in_(["notice", "admin"])))]
    assert notices and not any(card in n for n in notices), notices
