"""Bot levels in stored games: BOT <game> <level>, NEW ... bot=,
POLICY <game> bot <level>, the web's "Add a bot"; a bot thinks with no
transaction open, so a human's move never waits for it and a move it chose
for a position that has moved on is dropped and thought again; the bots'
own Celery queue."""
from __future__ import annotations

import threading
import time

import pytest
from sqlmodel import select

from pbem.services.core import games, moves as moves_service, seating
from pbem.services.lobby import tables
from pbem.services.turns import bots
from pbem.services.core.errors import UserError
from pbem.store.db import unit_of_work
from pbem.store.models import Game, Move, Seat
from tests.bots.test_service_bots import CMD, _users
from tests.conftest import celery_worker
from tests.mailtools import mail, outbox, store_inbound, wait_for


def _reply(addr: str) -> str:
    return [o for o in outbox(addr) if o.kind == "reply"][-1].body_text


def _send(frm: str, body: str) -> str:
    from pbem.mail.pipeline import process_inbound

    process_inbound(store_inbound(mail(frm, CMD, body), CMD, frm))
    return _reply(frm)


def test_levels_by_mail_new_bot_and_policy(sqlite_cfg):
    _users()
    reply = _send("ann@x.test", "NEW mini players=3 policy=bot bot=genius")
    assert "a bot's level is one of easy, normal, strong, not 'genius'" in reply
    assert "e.g. NEW mini policy=bot bot=strong" in reply
    with unit_of_work() as s:
        assert s.exec(select(Game)).first() is None  # refused: nothing made
    _send("ann@x.test", "NEW mini players=3 policy=bot bot=Strong")
    with unit_of_work() as s:
        g = s.exec(select(Game)).one()
        gid = g.id
        assert (g.policy, g.bot_level) == ("bot", "strong")
    # BOT <game> <level>: the seat keeps its own level; a wrong level changes nothing
    reply = _send("ann@x.test", f"BOT {gid} clever")
    assert "a bot's level is one of easy, normal, strong, not 'clever'" in reply and f"e.g. BOT {gid} strong" in reply
    reply = _send("ann@x.test", f"BOT {gid} easy normal")
    assert "BOT takes a game number and at most one level" in reply
    with unit_of_work() as s:
        assert len(seating.seats(s, gid)) == 1
    reply = _send("ann@x.test", f"BOT {gid} easy")
    assert f"a bot has seat 2 in game #{gid}" in reply
    with unit_of_work() as s:
        seat = s.exec(select(Seat).where(Seat.game_id == gid, Seat.seat == 1)).one()
        assert (seat.is_bot, seat.bot_level) == (True, "easy")
        assert bots.level_of(games.get(s, gid), seat) == "easy"
    _send("ann@x.test", f"BOT {gid}")  # no level: the game's
    with unit_of_work() as s:
        g = games.get(s, gid)
        seat = s.exec(select(Seat).where(Seat.game_id == gid, Seat.seat == 2)).one()
        assert seat.bot_level is None and bots.level_of(g, seat) == "strong" and g.status == "running"


def test_policy_bot_with_a_level_is_told_to_the_table(sqlite_cfg):
    ann, bob = _users()
    with unit_of_work() as s:
        gid = tables.create(s, ann, "mini", 2, seed=4).id
        tables.join(s, bob, gid)
    reply = _send("ann@x.test", f"POLICY {gid} bot superb")
    assert "a bot's level is one of easy, normal, strong" in reply
    with unit_of_work() as s:
        g = games.get(s, gid)
        assert (g.policy, g.bot_level) == ("wait", "normal")  # unchanged
    reply = _send("ann@x.test", f"POLICY {gid} bot strong")
    assert f"game #{gid}: when a deadline passes, a bot plays that move" in reply
    with unit_of_work() as s:
        g = games.get(s, gid)
        assert (g.policy, g.bot_level) == ("bot", "strong")
    told = [o.body_text for o in outbox("bob@x.test") if "The bot plays at level" in o.body_text]
    assert told and "strong (searches ahead longer)" in told[-1]


def test_a_bot_thinks_with_no_lock_held_and_a_human_move_meanwhile_wins(pg_cfg):
    """It's a Wonderful World's draft: Ann and a strong bot choose at once. While the bot thinks (outside
    any transaction) Ann's move commits at once; the bot's choice was made for the ply before, so it is
    dropped, and the bot thinks again and plays for the position as it now is."""
    ann, _ = _users()
    with unit_of_work() as s:
        gid = tables.create(s, ann, "iaww", 2, seed=7).id
    with unit_of_work() as s:
        bots.add_bot(s, ann, gid, "strong")
    with unit_of_work() as s:
        g = games.get(s, gid)
        engine = games.engine_for(g)
        state = games.state_at(s, g)
        assert engine.to_move(state) == {0, 1}
        ann_move = engine.format_move(state, 0, engine.legal_moves(state, 0)[0])
    thinking, ann_done, seen_plies = threading.Event(), threading.Event(), []
    real_think = bots.think

    def watched(engine_, job, state_):  # the real search, held until Ann has moved (the first time)
        seen_plies.append(job.ply)
        thinking.set()
        ann_done.wait(10)  # were the game locked while the bot thinks, Ann's move would wait these 10 s
        return real_think(engine_, job, state_)

    bots.think = watched
    try:
        worker = threading.Thread(target=lambda: bots.play_bots(gid, limit=3))
        worker.start()
        assert thinking.wait(30)
        t0 = time.perf_counter()
        with unit_of_work() as s:
            assert moves_service.submit_moves(s, gid, 0, [ann_move], source="web").ok
        waited = time.perf_counter() - t0
        ann_done.set()
        worker.join(60)
    finally:
        bots.think = real_think
    assert waited < 1.0, f"Ann's move waited {waited:.2f} s for the bot"
    with unit_of_work() as s:
        moves = list(s.exec(select(Move).where(Move.game_id == gid).order_by(Move.ply)))
    assert moves[0].seat == 0 and moves[0].source == "web"  # Ann's came first
    bot_moves = [m for m in moves if m.source == "bot"]
    assert bot_moves and seen_plies[0] == 0 and 1 in seen_plies  # dropped at ply 0, thought again at ply 1


def test_web_add_a_bot_of_a_level(sqlite_cfg):
    from pbem.web import create_app
    from tests.web.conftest import Browser

    ann, bob = _users()
    with unit_of_work() as s:
        gid = tables.create(s, ann, "mini", 3, seed=2, bot_level="easy").id
    app = create_app(sqlite_cfg)
    b = Browser(app)
    b.login_as(ann.id)
    page = b.get(f"/games/{gid}").get_data(as_text=True)
    assert 'id="add-bot"' in page and '<option value="easy" selected>' in page
    r = b.post(f"/games/{gid}/bot", {"level": "strong"}, page=f"/games/{gid}", follow_redirects=True)
    assert "A bot (strong) has seat 2." in r.get_data(as_text=True)
    r = b.post(f"/games/{gid}/bot", {"level": "wizard"}, page=f"/games/{gid}", follow_redirects=True)
    assert "level is one of easy, normal, strong" in r.get_data(as_text=True)
    with unit_of_work() as s:
        assert [(x.is_bot, x.bot_level) for x in seating.seats(s, gid)] == [(False, None), (True, "strong")]
    other = Browser(app)
    other.login_as(bob.id)
    r = other.post(f"/games/{gid}/bot", {"level": "easy"}, page=f"/games/{gid}", follow_redirects=True)
    assert "only the creator of game" in r.get_data(as_text=True)
    with unit_of_work() as s:
        assert len(seating.seats(s, gid)) == 2


def test_the_bots_own_queue_takes_the_bot_moves(sqlite_cfg):
    """PBEM_BOT_QUEUE: the task a human's move enqueues goes to the bots' queue, and a worker of that queue
    alone plays it."""
    from pbem import config

    ann, _ = _users()
    cfg = sqlite_cfg.with_(bot_queue="bots")
    config.set_settings(cfg)
    try:
        with unit_of_work() as s:
            gid = tables.create(s, ann, "mini", 2, seed=3).id
        with unit_of_work() as s:
            bots.add_bot(s, ann, gid)
        with celery_worker(cfg, queues="bots"):
            with unit_of_work() as s:
                g = games.get(s, gid)
                state = games.state_at(s, g)
                engine = games.engine_for(g)
                text = engine.format_move(state, 0, engine.legal_moves(state, 0)[0])
                assert moves_service.submit_moves(s, gid, 0, [text], source="web").ok
            bot = wait_for(lambda: _bot_move(gid))
            assert bot.seat == 1
    finally:
        config.set_settings(sqlite_cfg)


def _bot_move(gid: int):
    with unit_of_work() as s:
        return s.exec(select(Move).where(Move.game_id == gid, Move.source == "bot")).first()


def test_unknown_level_is_refused_by_the_engine_too():
    from pbem.engine import bots as engine_bots, get_game

    game = get_game("mini")
    state = game.initial_state(2, 1, {"hand": 3})
    with pytest.raises(ValueError, match="unknown bot level"):
        engine_bots.choose(game, state, 0, 1, "expert")
    with pytest.raises(UserError):
        games.check_level("expert", "BOT 1 strong")


def test_a_late_players_stand_in_goes_to_the_bot_workers_once(sqlite_cfg):
    """policy=bot with PBEM_BOT_QUEUE: the sweep tells the table the player is late and hands the stand-in's
    move to the bots' queue (it plays nothing itself); a worker of that queue alone plays it at the game's
    level, with the late notice in the board mail; sweeps before and after never play a second move for
    that turn."""
    from datetime import timedelta

    from pbem import config
    from pbem.services.core import clocks
    from pbem.services.upkeep import sweep
    from tests.manage.helpers import mails, no_outage_check, running, seat_row

    cfg = no_outage_check(sqlite_cfg).with_(bot_queue="bots")
    config.set_settings(cfg)
    try:
        gid, uids = running(players=2, seed=11, policy="bot", deadline_hours=24, bot_level="easy")
        with unit_of_work() as s:
            g = games.get(s, gid)
            late_seat = min(games.engine_for(g).to_move(games.state_at(s, g)))
        deadline = clocks.aware(seat_row(gid, late_seat).deadline_at)
        at = deadline + timedelta(minutes=61)
        done = sweep.run(at)
        assert (done["late"], done["bot_moves"]) == (1, 0)  # owed, handed to the bot workers
        assert _bot_move(gid) is None
        assert sweep.run(at)["late"] == 0  # told once; asked of the bot workers again, not counted again
        with celery_worker(cfg, queues="bots"):
            bot = wait_for(lambda: _bot_move(gid))
            assert bot.seat == late_seat and bot.ply == 1  # the first move of the game
            time.sleep(1)  # the second request (from the second sweep) found the seat no longer owed
        sweep.run(at)
        with unit_of_work() as s:
            assert len([m for m in s.exec(select(Move).where(Move.game_id == gid, Move.source == "bot"))]) == 1
        told = [m.body_text for m in mails() if "has missed the deadline at ply 0" in m.body_text]
        assert told and all("A bot played for" in t for t in told)
    finally:
        config.set_settings(sqlite_cfg)
