"""A 5-player It's a Wonderful World game played to
its end by 5 players replying to the same boards in random order, through
the real SMTP receiver and a real Celery worker, with no reply refused as
stale. Once on the embedded default (SQLite + kombu's SQLAlchemy transport),
once on PostgreSQL + Redis.

Five users register and take their seats by mail. Then, step after step
(draft picks, planning, production), every player whose turn it is answers
the mail that showed it the step -- the board mail it received when the
step began (the receipt of its own mail, for the player whose mail revealed
the step) -- as a mail client does: to its Reply-To, "Re:" its subject,
In-Reply-To and References naming it, the board quoted below the move. The
replies of one step are sent in a seeded random order, all of them before
any is answered, so several are in flight at once and all but the first
answer a board the game has moved past. A draft pick is chosen from the
hand the mail lists, by its number; an order for planning or production is
the game's bot's, from the seat's state at the ply of the board answered.

At the end: the game is over with its result in every player's last mail,
every mail was processed, no reply was refused (one control reply, to a
board whose step has been revealed since, is), and every move of every
reply was applied once. The receiver's per-minute rate limits are off: the
five players all send from loopback, and play a game of weeks in seconds."""
from __future__ import annotations

import random
import re
import time

import pytest
from sqlmodel import select

from pbem.engine import bots, get_game
from pbem.services.core import games
from pbem.store.addresses import parse_message_refs
from pbem.store.db import unit_of_work
from pbem.store.models import Game, Inbound, Move, Outbound, Seat, User
from tests.conftest import celery_worker, send_mail, smtp_receiver
from tests.mailtools import CMD, PATIENCE, mail, quoted_reply, wait_for

IAWW = get_game("iaww")
NAMES = ("Ann", "Bob", "Cleo", "Dan", "Eve")
ADDRS = tuple(f"{n.lower()}@x.test" for n in NAMES)
SEED = 19
# how pbem words a reply refused as stale (games.submit_moves) and any order it did not apply
REFUSED = ("stale", "position has changed", "Nothing was applied", "NOT APPLIED", "ERROR")
HAND_LINE = re.compile(r"^\s+(\d+)\. (\S+)\s")


def _all(q):
    with unit_of_work() as s:
        return list(s.exec(q))


def _ply_of(o: Outbound) -> tuple[int | None, int | None]:
    ref = parse_message_refs(o.message_id, "pbem.test")[0]
    return ref.game_id, ref.ply


def _settled(expected_inbound: int) -> bool:
    """Every mail sent so far processed, and every answer delivered."""
    rows = _all(select(Inbound.status))
    if len(rows) < expected_inbound or any(st == "received" for st in rows):
        return False
    return all(st == "sent" for st in _all(select(Outbound.status)))


def _hand_in(board: Outbound) -> list[tuple[int, str]]:
    """The numbered hand a draft board lists under "Your hand:"."""
    lines = board.body_text.splitlines()
    start = lines.index("Your hand:") + 1
    hand = []
    for line in lines[start:]:
        m = HAND_LINE.match(line)
        if m:
            hand.append((int(m.group(1)), m.group(2)))
        elif not line.startswith("     "):  # a card's figures are indented below its line
            break
    return hand


def _order(state, seat: int, board: Outbound, rng: random.Random) -> list[str]:
    """What the player of ``seat`` writes in answer to ``board`` (the state at its ply)."""
    if state.phase == "draft":
        hand = _hand_in(board)
        assert [cid for _, cid in hand] == [c.split("#")[0] for c in state.players[seat].hand], board.body_text
        number, _ = rng.choice(hand)
        return [f"pick {number}"]
    lines, local = [], state
    while seat in IAWW.to_move(local):  # the seat's whole order for the step, decided from that board
        move = bots.choose(IAWW, local, seat, rng.randrange(1 << 30))
        lines.append(IAWW.format_move(local, seat, move))
        after = IAWW.apply(local, seat, move)
        if IAWW.reveals(local, after):
            break
        local = after
    return lines


def _refused_as_stale(gid: int, addr: str, send) -> str:
    """The control: ``addr`` answers again the board of the first draft pick,
    which the game has revealed since: refused as stale, nothing applied."""
    first = min((o for o in _all(select(Outbound).where(Outbound.to_addr == addr)) if _ply_of(o) == (gid, 0)
                 and o.headers.get("Reply-To", "").startswith(f"game-{gid}.")), key=lambda o: o.id)
    moves_before = len(_all(select(Move.id)))
    mid = f"<iaww5.stale.{time.time_ns()}@x.test>"
    send(addr, first.headers["Reply-To"], quoted_reply(addr, first, "pick 1", message_id=mid))
    wait_for(lambda: _settled(0) and [r for r in _all(select(Inbound).where(Inbound.message_id == mid))
                                      if r.status == "done"], timeout=PATIENCE)
    receipt = [o for o in _all(select(Outbound)) if o.headers.get("In-Reply-To") == mid]
    assert len(receipt) == 1 and "your position has changed. Nothing was applied" in receipt[0].body_text, receipt
    assert len(_all(select(Move.id))) == moves_before
    return mid


def _play(cfg) -> dict:
    from pbem import config, tasks

    # the five players all send from loopback, and play a game of weeks in seconds: no receiver rate limit;
    # and no board pictures: a picture costs about seven move mails of CPU, and a whole game of
    # five is some 2,000 of them (the pictures' path: tests/mail/test_pictures.py, test_picture_replies.py)
    cfg = cfg.with_(smtpd_rate_per_ip=0, smtpd_rate_per_sender=0, mail_pictures=False)
    config.set_settings(cfg)
    tasks.configure(cfg)
    rng = random.Random(SEED)
    sent: dict[str, tuple[int, list[str], int]] = {}  # our Message-ID -> (seat, lines, board ply)
    inbound = 0
    timing = {"start": time.monotonic()}

    def send(frm: str, to: str, raw: bytes) -> None:
        nonlocal inbound
        assert send_mail(cfg, raw, frm, to) == 250
        inbound += 1

    with smtp_receiver(cfg), celery_worker(cfg):
        # five users register by mail; Ann opens the game, the others join it
        send(ADDRS[0], CMD, mail(ADDRS[0], CMD, f"REGISTER {NAMES[0]}\nNEW iaww players=5"))
        gid = wait_for(lambda: _all(select(Game.id))[:1])[0]
        for name, addr in zip(NAMES[1:], ADDRS[1:]):
            send(addr, CMD, mail(addr, CMD, f"REGISTER {name}\nJOIN {gid}"))
            wait_for(lambda: _settled(inbound), timeout=PATIENCE)
        with unit_of_work() as s:
            g = games.get(s, gid)
            assert g.status == "running" and g.players == 5
            email = {st.seat: s.get(User, st.user_id).email for st in s.exec(select(Seat).where(Seat.game_id == gid))}
        assert sorted(email.values()) == sorted(ADDRS)
        timing["started"] = time.monotonic()

        steps = in_flight = 0
        stale = None
        while True:
            wait_for(lambda: _settled(inbound), timeout=120)
            with unit_of_work() as s:
                g = games.get(s, gid)
                if g.status != "running":
                    break
                ply = g.ply
                state = games.state_at(s, g, ply)
            to_move = sorted(IAWW.to_move(state))
            assert to_move, f"the game runs at ply {ply} but nobody is to move"
            orders = []
            for seat in to_move:
                # the mail that showed this seat the step: the only one to it of this game at this ply
                # (by their headers: the bodies of the seat's whole game are read for the one shown only)
                shown = [o for o in _all(select(Outbound.id, Outbound.kind, Outbound.message_id, Outbound.headers)
                                         .where(Outbound.to_addr == email[seat]))
                         if _ply_of(o) == (gid, ply) and o.headers.get("Reply-To", "").startswith(f"game-{gid}.")]
                assert len(shown) == 1, (seat, ply, [(o.kind, o.message_id) for o in shown])
                with unit_of_work() as s:
                    board = s.get(Outbound, shown[0].id)
                assert "Your move." in board.body_text, board.body_text
                orders.append((seat, board, _order(state, seat, board, rng)))
            if steps == 1:  # once: a reply to the board of the step before, now revealed, is refused as stale
                stale = _refused_as_stale(gid, email[0], send)
            rng.shuffle(orders)  # the replies of one step arrive in any order, all in flight at once
            for seat, board, lines in orders:
                mid = f"<iaww5.{gid}.{ply}.{seat}.{time.time_ns()}@x.test>"
                sent[mid] = (seat, lines, ply)
                send(email[seat], board.headers["Reply-To"],
                     quoted_reply(email[seat], board, "\n".join(lines), message_id=mid))
            in_flight = max(in_flight, len(_all(select(Inbound.id).where(Inbound.status == "received"))))
            steps += 1
        timing["end"] = time.monotonic()

    # ------------------------------------------------------------ what came of it
    with unit_of_work() as s:
        g = games.get(s, gid)
        assert g.status == "finished" and g.outcome and len(g.outcome["scores"]) == 5, (g.status, g.outcome)
        moves = list(s.exec(select(Move).where(Move.game_id == gid).order_by(Move.ply)))
    rows = [r for r in _all(select(Inbound).order_by(Inbound.id)) if r.message_id != stale]
    assert len(rows) == inbound - 1 and all(r.status == "done" for r in rows), [(r.id, r.status, r.error) for r in rows
                                                                            if r.status != "done"]
    out = _all(select(Outbound).order_by(Outbound.id))
    assert all(o.status == "sent" for o in out)
    # no reply refused, stale or otherwise: every receipt says OK to every line
    by_mid = {r.message_id: r for r in rows}
    receipts = {o.headers.get("In-Reply-To"): o for o in out if o.kind == "reply"}
    for mid, (seat, lines, ply) in sent.items():
        receipt = receipts[mid]
        bad = [w for w in REFUSED if w.lower() in receipt.body_text.lower()]
        assert not bad, f"seat {seat + 1}'s reply to the board of ply {ply} ({lines}) was answered:\n" \
                        f"{receipt.body_text}"
    # every move applied exactly once
    assert not any(m.undone for m in moves) and all(m.source == "mail" for m in moves)
    assert [m.ply for m in moves] == list(range(1, len(moves) + 1))
    by_inbound: dict[int, list[Move]] = {}
    for m in moves:
        by_inbound.setdefault(m.inbound_id, []).append(m)
    # the replies of a step after the first to be applied answered a board the game had moved past
    late = sum(by_inbound[by_mid[mid].id][0].ply - 1 > ply for mid, (_, _, ply) in sent.items())
    assert late == len(sent) - steps and in_flight >= 2, (late, len(sent), steps, in_flight)
    # and only once: the moves of each reply are its lines (and a closing done), in order
    assert set(by_inbound) == {by_mid[mid].id for mid in sent}
    for mid, (seat, lines, ply) in sent.items():
        mine = by_inbound[by_mid[mid].id]
        assert all(m.seat == seat for m in mine)
        assert len(mine) in (len(lines), len(lines) + 1), (lines, [m.notation for m in mine])
        if len(mine) == len(lines) + 1:
            assert mine[-1].notation == "done" and lines[-1] != "done"
    # each player got a last mail with the result
    for addr in ADDRS:
        last = [o for o in out if o.to_addr == addr and o.game_id == gid][-1]
        assert f"Game #{gid} is over:" in last.body_text and "Final scores:" in last.body_text, last.body_text
        assert "Your move." not in last.body_text
    return {"deal": g.seed, "replies": len(sent), "late": late, "max_in_flight": in_flight, "moves": len(moves),
            "steps": steps, "mails_out": len(out), "setup_s": round(timing["started"] - timing["start"], 1),
            "game_s": round(timing["end"] - timing["started"], 1)}


@pytest.mark.redis
@pytest.mark.postgres
def test_five_players_by_mail_on_redis_and_postgres(pg_cfg, on_redis, capsys):
    figures = _play(on_redis(pg_cfg))
    with capsys.disabled():
        print("\niaww 5 by mail, postgres+redis:", figures)


def test_five_players_by_mail_on_the_embedded_default(sqlite_cfg, capsys):
    assert sqlite_cfg.is_embedded_broker and sqlite_cfg.database_url.startswith("sqlite")
    figures = _play(sqlite_cfg)
    with capsys.disabled():
        print("\niaww 5 by mail, embedded:", figures)
