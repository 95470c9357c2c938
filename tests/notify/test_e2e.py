"""Chat notifications end to end: a move mailed through the real SMTP receiver is
processed by a real Celery worker on Redis; the next player's Discord
channel is told "your turn" and the table's Telegram group sees the move as
the whole table sees it, each through Apprise's real request over TLS (the
local receivers behind a TLS-intercepting proxy, certificates checked)."""
from __future__ import annotations

from sqlmodel import select

from pbem.services.core import games
from pbem.store.db import unit_of_work
from pbem.store.models import Game, Seat
from tests.conftest import celery_worker, send_mail, smtp_receiver
from tests.mailtools import CMD, PATIENCE, mail, process, seat_addr, start_game, wait_for
from tests.notify.test_channels import play_one, to_move
from tests.push.conftest import allow_receivers, receivers  # noqa: F401 (a fixture)


def test_a_mailed_move_tells_the_next_player_in_discord_and_the_table_in_telegram(sqlite_cfg, on_redis, receivers):
    cfg = on_redis(allow_receivers(sqlite_cfg))
    gid = start_game(2)
    if to_move(gid) != {0}:
        play_one(gid)
    process("p1@x.test", CMD, f"NOTIFY ADD {receivers.url('discord')}")
    process("ann@x.test", CMD, f"NOTIFY TABLE {gid} {receivers.url('telegram')}")
    with unit_of_work() as s:
        tokens = [x.token for x in s.exec(select(Seat).where(Seat.game_id == gid))]
        g = s.get(Game, gid)  # NEW by mail deals a random hand: Ann plays the first card she holds
        engine = games.engine_for(g)
        state = games.state_at(s, g)
        move = next(m for m in (engine.format_move(state, 0, x) for x in engine.legal_moves(state, 0))
                    if m.startswith("play"))
    with smtp_receiver(cfg), celery_worker(cfg):
        wait_for(lambda: len(receivers.messages("discord")) == 1 and len(receivers.messages("telegram")) == 1,
                 timeout=PATIENCE)  # the two test messages, delivered by the worker after their commits
        assert send_mail(cfg, mail("ann@x.test", seat_addr(gid, 0), move), "ann@x.test",
                         seat_addr(gid, 0)) == 250
        wait_for(lambda: len(receivers.messages("discord")) == 2 and len(receivers.messages("telegram")) == 2,
                 timeout=PATIENCE)
    turn = receivers.messages("discord")[-1]
    assert turn.tls and turn.path.startswith("/api/webhooks/")
    said = turn.text
    assert f"Your turn in #{gid} (Mini (test game)), deadline in 47 hours (" in said and f"{cfg.base_url}/games/{gid}" in said
    table = receivers.messages("telegram")[-1]
    assert table.tls and table.path.endswith("/sendMessage")
    assert f"Ann played: {move}" in table.text and f"{cfg.base_url}/games/{gid}" in table.text
    for req in receivers.messages("discord") + receivers.messages("telegram"):
        assert not any(t in req.text for t in tokens)  # never a seat's reply address
