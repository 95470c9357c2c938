"""The mail commands and their wording end to end: real SMTP into the
receiver, a real Celery worker on Redis, PostgreSQL, replies delivered to
the maildir. One receiver and one worker for the whole story:

- NEW with words that are not options is refused with a guess;
- RESIGN of an open game (it crashed the pipeline), by a player and by the
  creator; CANCEL by the creator, refused to anyone else and for a running game;
- a game played to its end by replying to pbem's mails: one conversation
  (subject, References, In-Reply-To), the ply of a reply read from the mail
  it answers (a stale one refused), the final mails worded for a game that
  is over;
- the courtesy limit: normal play past it never counts; errors do, and then
  mails are set aside with one answer;
- the help for a mail without commands filled in, and no mail with an
  unfilled placeholder."""
import itertools
import mailbox
import re

import pytest
from sqlmodel import select

from pbem.store.addresses import parse_message_refs, thread_root_id
from pbem.services.core import games
from pbem.store.db import unit_of_work
from pbem.store.models import Game, Inbound, Move, Outbound
from tests.conftest import celery_worker, send_mail, smtp_receiver
from tests.mailtools import CMD, PATIENCE, after_marker, mail, wait_for

PLACEHOLDER = re.compile(r"\{[A-Za-z_][A-Za-z0-9_]*\}|\{\{|\{%")
_n = itertools.count(1)


def _all(q):
    with unit_of_work() as s:
        return list(s.exec(q))


class Players:
    def __init__(self, cfg):
        self.cfg = cfg

    def send(self, frm: str, to: str, body: str, *, reply_to: Outbound | None = None) -> Inbound:
        """One mail over SMTP, as a client replying to ``reply_to`` writes it
        (its subject with Re:, In-Reply-To, References); returns its row once
        the worker is done with it and its answers are delivered."""
        mid = f"<e2e.{next(_n)}@client.test>"
        headers, subject = {}, "hello"
        if reply_to is not None:
            subject = reply_to.subject if reply_to.subject.startswith("Re:") else "Re: " + reply_to.subject
            headers = {"In-Reply-To": reply_to.message_id,
                       "References": f"{reply_to.headers.get('References', '')} {reply_to.message_id}".strip()}
        raw = mail(frm, to, body, subject, message_id=mid, headers=headers)
        assert send_mail(self.cfg, raw, frm, to) == 250
        row = wait_for(lambda: next((r for r in _all(select(Inbound).where(Inbound.message_id == mid))
                                     if r.status in ("done", "ignored", "failed")), None), timeout=PATIENCE)
        wait_for(lambda: all(o.status == "sent" for o in _all(select(Outbound))), timeout=PATIENCE)
        assert row.status != "failed", row.error
        return row

    def confirm(self, who: str, answer: str = "yes") -> Inbound:
        """Reply to the newest mail that asked ``who`` to confirm held commands
        (RESIGN cannot be undone by mail: pbem asks first), over SMTP to its
        Reply-To, the confirmation's own address."""
        ask = self.last(who, "confirm")
        assert ask.headers["Reply-To"].startswith("confirm-")
        return self.send(who, ask.headers["Reply-To"], answer, reply_to=ask)

    @staticmethod
    def mails(to: str, kind: str | None = None) -> list[Outbound]:
        return [o for o in _all(select(Outbound).where(Outbound.to_addr == to).order_by(Outbound.id))
                if kind is None or o.kind == kind]

    def last(self, to: str, kind: str | None = None) -> Outbound:
        return self.mails(to, kind)[-1]


def _game_ids() -> list[int]:
    return [g.id for g in _all(select(Game).order_by(Game.id))]


@pytest.mark.redis
@pytest.mark.postgres
def test_commands_wording_threading_and_the_courtesy_limit_over_smtp(pg_cfg, on_redis):
    cfg = on_redis(pg_cfg).with_(inbound_rate=4)
    from pbem import config

    config.set_settings(cfg)
    p = Players(cfg)
    with smtp_receiver(cfg), celery_worker(cfg):
        # NEW with a word that is not an option: refused with a guess, nothing created
        p.send("ann@x.test", CMD, "REGISTER Ann\nNEW Spyrium 3 players")
        r = p.last("ann@x.test").body_text
        assert "did you mean players=3?" in r and "e.g. NEW spyrium players=3" in r and _game_ids() == []

        # RESIGN of an open game: Bob leaves; Ann, its creator, cancels by RESIGN; CANCEL
        p.send("ann@x.test", CMD, "NEW mini players=3")
        g1 = _game_ids()[-1]
        p.send("bob@x.test", CMD, f"REGISTER Bob\nJOIN {g1}")
        p.send("bob@x.test", CMD, f"RESIGN {g1}")
        assert f"RESIGN {g1}" in p.last("bob@x.test", "confirm").body_text and len(p.mails("bob@x.test")) == 2
        p.confirm("bob@x.test")
        assert f"you have left game #{g1} before it started" in p.last("bob@x.test").body_text
        assert f"Bob has left game #{g1} before it started" in p.last("ann@x.test", "notice").body_text
        p.send("bob@x.test", CMD, f"JOIN {g1}\nCANCEL {g1}")
        r = p.last("bob@x.test").body_text
        assert f"only the creator of game #{g1} (Ann) can cancel it" in r and f"e.g. RESIGN {g1}" in r
        p.send("ann@x.test", CMD, f"CANCEL {g1}")
        assert f"game #{g1} is cancelled; the 1 player(s) who had joined are told" in p.last("ann@x.test").body_text
        told = p.last("bob@x.test", "notice").body_text
        assert f"Ann has cancelled game #{g1}" in told and "Reply to this mail" not in told
        p.send("ann@x.test", CMD, "NEW mini players=3")
        p.send("ann@x.test", CMD, f"RESIGN {_game_ids()[-1]}")
        p.confirm("ann@x.test")
        assert "so it is cancelled" in p.last("ann@x.test").body_text

        # a game by replies to pbem's mails
        p.send("ann@x.test", CMD, "NEW mini players=2 hand=2")
        g3 = _game_ids()[-1]
        p.send("bob@x.test", CMD, f"JOIN {g3}")
        assert _all(select(Game).where(Game.id == g3))[0].status == "running"
        p.send("ann@x.test", CMD, f"CANCEL {g3}")
        assert "a running game is not cancelled" in p.last("ann@x.test").body_text
        with unit_of_work() as s:
            a, b = games.state_at(s, games.get(s, g3)).hands
        ann, bob = p.last("ann@x.test", "board").headers["Reply-To"], p.last("bob@x.test", "board").headers["Reply-To"]
        # the same words again and again is normal play when they apply: never counted (limit 4)
        p.send("ann@x.test", ann, "wait", reply_to=p.last("ann@x.test", "board"))
        p.send("bob@x.test", bob, "wait", reply_to=p.last("bob@x.test", "board"))
        p.send("ann@x.test", ann, "wait", reply_to=p.last("ann@x.test", "board"))
        ann_at_3 = p.last("ann@x.test", "reply")
        p.send("bob@x.test", bob, f"play {b[0]}", reply_to=p.last("bob@x.test", "board"))
        # Ann answers her receipt of ply 3: Bob has played since: stale, nothing applied
        p.send("ann@x.test", ann, "wait", reply_to=ann_at_3)
        r = p.last("ann@x.test", "reply").body_text
        assert "your mail answers the board at ply 3" in r and len(_all(select(Move))) == 4
        p.send("ann@x.test", ann, f"play {a[0]}", reply_to=p.last("ann@x.test", "board"))
        p.send("bob@x.test", bob, f"play {b[1]}", reply_to=p.last("bob@x.test", "board"))
        p.send("ann@x.test", ann, f"play {a[1]}", reply_to=p.last("ann@x.test", "board"))
        assert _all(select(Game).where(Game.id == g3))[0].status == "finished"
        ann_rows = [r for r in _all(select(Inbound).where(Inbound.mail_from == "ann@x.test"))]
        assert len(ann_rows) == 13 and all(r.status == "done" for r in ann_rows)  # far past the limit
        assert [r.courtesy for r in ann_rows].count("error") == 3  # NEW, CANCEL of a running game, stale
        # one conversation per game and player; the final mails are worded for a game that is over
        root = thread_root_id(cfg.domain, g3, cfg.secret_key)
        for who in ("ann@x.test", "bob@x.test"):
            mails = [o for o in p.mails(who) if o.game_id == g3]
            assert len(mails) >= 6
            assert {o.subject.removeprefix("Re: ") for o in mails} == {f"[pbem #{g3}] Mini (test game)"}
            assert all(o.headers["References"].split()[0] == root for o in mails)
            final = mails[-1]
            assert f"Game #{g3} is over" in final.body_text and "Reply to this mail" not in final.body_text
            assert "Your move" not in final.body_text and f"/games/{g3}" in final.body_text
        receipt = p.last("ann@x.test", "reply")
        assert after_marker(receipt.body_text).startswith(f"Game #{g3} is over: ")
        assert parse_message_refs(receipt.headers["In-Reply-To"], "client.test") == []  # her own mail's id
        assert receipt.headers["In-Reply-To"].startswith("<e2e.")

        # the courtesy limit: four errors from Cy, then mails are set aside with one answer
        for body in ("hello", "is this pbem?", "let me play", "hello?"):
            p.send("cy@x.test", CMD, body)
        for body in ("REGISTER Cy", "REGISTER Cy", "GAMES"):
            assert p.send("cy@x.test", CMD, body).status == "ignored"
        cy = _all(select(Inbound).where(Inbound.mail_from == "cy@x.test").order_by(Inbound.id))
        assert [(r.status, r.courtesy) for r in cy] == [("done", "error")] * 4 + [
            ("ignored", "aside-told"), ("ignored", "aside"), ("ignored", "aside")]
        assert all(r.result.startswith("set aside unread (courtesy limit: 4 of your mails") for r in cy[4:])
        cy_mails = p.mails("cy@x.test")
        assert len(cy_mails) == 5 and "pbem has set your mail aside for now: 4 of your mails" in cy_mails[-1].body_text

        # a stranger's mail with no commands gets the short fixed answer (nothing of it repeated); a registered
        # player's, the help filled in
        p.send("dan@x.test", CMD, "> REGISTER Dan\n> (quoted only)")
        r = p.last("dan@x.test").body_text
        assert "pbem does not know the address dan@x.test" in r and "quoted only" not in r
        p.send("ann@x.test", CMD, "> GAMES\n> (quoted only)")
        r = p.last("ann@x.test").body_text
        assert "no commands in it" in r and "Commands (one per line, to pbem@pbem.test)" in r

    # nothing delivered has an unfilled placeholder
    box = mailbox.Maildir(str(cfg.maildir), create=False)
    texts = []
    for m in box:
        for part in m.walk():
            if part.get_content_maintype() == "text":
                texts.append(part.get_payload(decode=True).decode("utf-8"))
    assert len(texts) >= 2 * 30 and not [t for t in texts if PLACEHOLDER.search(t)]
