"""A whole game by mail where every player uses a different client: Ann
answers from Outlook on the desktop in German (HTML only, top-posted, Word's
autocorrect), Bob from Thunderbird in Russian (bottom-posted, format=flowed,
KOI8-R, his signature block), Cat from Gmail on her iPhone in Spanish (smart
punctuation, "Enviado desde mi iPhone").

Each player always answers the latest mail pbem sent them that shows their
board (a board, or the receipt of their own last mail), with moves chosen
from the legal moves by a seeded generator, and some chatter around them.
Every mail goes over a real SMTP conversation into the receiver and through
a real Celery worker, one at a time. After every mail: exactly the intended
moves were applied, once; nothing else happened (no quoted line run, no
table post, no pre-move, no new game, seat, name or STOP); the answer has
no ERROR line. The game must end with none of that ever going wrong.

So that one run shows every misreading (not only the first), a mail that
was not read as meant is recorded and, if none of its moves was applied,
its moves are sent again in a plain mail and the game goes on; the run
stops only when that is impossible (mail refused, or 60 problems).

Runs with the product's defaults for the courtesy limit on inbound mail
(20 per sender in 10 minutes): normal play must not trip it.
Only the receiver's per-IP and per-sender SMTP limits are off: all
three players connect from 127.0.0.1, at machine speed."""
from __future__ import annotations

import random
import re
import smtplib
import time
from email.parser import BytesHeaderParser

import pytest
from sqlmodel import func, select

from pbem.services.core import games as gsvc, seating
from pbem.store.db import unit_of_work
from pbem.store.models import Game, Inbound, Move, Outbound, Post, PreMove, Seat, User
from tests import mailclients as mc
from tests.clientcorpus import with_closing
from tests.conftest import celery_worker, installed, make_settings, smtp_receiver
from tests.mailtools import PATIENCE, mail

ERROR_LINE = re.compile(r"^\s*ERROR\b", re.M)
PLAYERS = {  # name: (address, client)
    "Ann": ("anna.berger@firma.test", "outlook-desktop de"),
    "Bob": ("boris@posteo.test", "thunderbird ru koi8-r bottom"),
    "Cat": ("cat.lopez@gmail.test", "gmail es iphone"),
}


def send(cfg, raw: bytes, mail_from: str, rcpt: str) -> None:
    with smtplib.SMTP("127.0.0.1", cfg.smtpd_port, timeout=30) as c:
        c.ehlo("client.test")
        c.mail(mail_from)
        code, msg = c.rcpt(rcpt)
        assert code == 250, (rcpt, code, msg)
        code, msg = c.data(raw)
        assert code == 250, (code, msg)


def processed(message_id: str, timeout: float = PATIENCE) -> Inbound:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        with unit_of_work() as s:
            row = s.exec(select(Inbound).where(Inbound.message_id == message_id)).first()
            if row is not None and row.status in ("done", "ignored", "failed"):
                return row
        time.sleep(0.03)
    raise AssertionError(f"mail {message_id} not processed within {timeout:.0f} s")


def command(cfg, who: str, body: str) -> None:
    raw = mail(PLAYERS[who][0], cfg.command_address, body, subject="pbem")
    send(cfg, raw, PLAYERS[who][0], cfg.command_address)
    assert processed(BytesHeaderParser().parsebytes(raw)["Message-ID"]).status == "done"


def latest_board_mail(game_id: int, email: str) -> Outbound:
    """The newest mail to the player that shows their board: a board, or the receipt of their own move."""
    with unit_of_work() as s:
        # newest first, each mail's bodies read only until the board is found: a whole game's mails are many
        ids = s.exec(select(Outbound.id).where(Outbound.game_id == game_id, Outbound.to_addr == email,
                                               Outbound.kind.in_(["board", "reply"])).order_by(Outbound.id.desc()))
        for row_id in ids.all():
            row = s.get(Outbound, row_id)
            if "=== pbem board ===" in row.body_text:
                return row
    raise AssertionError(f"no board was mailed to {email}")


def state(game_id: int):
    with unit_of_work() as s:
        g = gsvc.get(s, game_id)
        return g, gsvc.engine_for(g), gsvc.state_at(s, g)


def side_effects(game_id: int) -> tuple:
    with unit_of_work() as s:
        posts = select(func.count()).select_from(Post).where(Post.game_id == game_id, Post.kind == "post")
        return (s.exec(posts).one(),
                s.exec(select(func.count()).select_from(PreMove).where(PreMove.game_id == game_id)).one(),
                s.exec(select(func.count()).select_from(Game)).one(),
                sorted((x.user_id, x.seat) for x in s.exec(select(Seat).where(Seat.game_id == game_id))),
                sorted((u.email, u.name, u.stopped) for u in s.exec(select(User))))


# ------------------------------------------------------------------ what each player writes


def write(who: str, row: Outbound, moves: list[str], cfg, rng: random.Random, n: int) -> bytes:
    email, _ = PLAYERS[who]
    orig = mc.Original.from_outbound(row, cfg.command_address)
    seed = f"replay-{n}"
    if who == "Ann":  # Outlook desktop, German, HTML only: Word capitalises and curls the quotes
        lines = (["Hallo zusammen,", ""] if rng.random() < 0.3 else []) + moves
        if rng.random() < 0.3:
            lines[-1] += "."
        lines += ([""] + (["Danke!"] if rng.random() < 0.4 else []) + ["Viele Grüße", "Anna"])
        return mc.outlook_html(orig, mc.Player("Anna Berger", email), mc.Answer(lines), loc="de",
                               variant="desktop", charset="windows-1252", seed=seed)
    if who == "Bob":  # Thunderbird, Russian, KOI8-R, bottom-posted, format=flowed
        lines = (["Привет!", ""] if rng.random() < 0.3 else [])
        lines += ["; ".join(moves)] if len(moves) > 1 else moves
        if rng.random() < 0.3:
            lines += ["", "Хм, интересно получается, посмотрим, что будет дальше, когда все сделают свой ход."]
        if rng.random() < 0.2:
            lines += ["", "Ой, понятно."]
        return mc.thunderbird(orig, mc.Player("Борис", email), mc.Answer(lines), loc="ru", style="bottom",
                              charset="KOI8-R", signature=["Борис"], seed=seed)
    # Cat: Gmail on an iPhone, Spanish: the iPhone keyboard curls quotes and capitalises
    lines = (["¡Hola!", ""] if rng.random() < 0.3 else []) + moves
    if rng.random() < 0.3:
        lines += ["", "¡Gracias!"]
    lines = [mc.smarten(ln) for ln in lines]
    return mc.gmail(orig, mc.Player("Cat López", email), mc.Answer(lines), loc="es", mobile=True,
                    signature="Enviado desde mi iPhone", seed=seed)


def choose(engine, st, seat: int, rng: random.Random, several: bool) -> list[str]:
    """One legal move; or (Bob, now and then) the run of moves he makes in a row, on one line."""
    moves = []
    limit = rng.choice([2, 3, 4]) if several else 1
    while seat in engine.to_move(st) and len(moves) < limit:
        legal = engine.legal_moves(st, seat)
        names = [engine.format_move(st, seat, m) for m in legal]
        # 'auto' ends a step at once: rarely, so the players place and build by hand
        weights = [0.05 if n == "auto" else 1.0 for n in names]
        move = rng.choices(legal, weights)[0]
        moves.append(engine.format_move(st, seat, move))
        st = engine.apply(st, seat, move)
    return moves


# ------------------------------------------------------------------ the game


def check_mail(gid: int, who: str, mid: str, inbound: Inbound, before_ply: int, before: tuple,
               seat: int, moves: list[str]) -> tuple[list[str], list[tuple[int, str]]]:
    """What went wrong with one mail ([] if nothing), and the moves it applied."""
    with unit_of_work() as s:
        new = [(m.seat, m.notation) for m in
               s.exec(select(Move).where(Move.game_id == gid, Move.ply > before_ply).order_by(Move.ply))]
        # the player's answers by their headers alone; the bodies of the one answering this mail only
        answers = s.exec(select(Outbound.id, Outbound.headers).where(
            Outbound.kind == "reply", Outbound.to_addr == PLAYERS[who][0]).order_by(Outbound.id)).all()
        reply = [s.get(Outbound, i) for i, headers in answers if (headers or {}).get("In-Reply-To") == mid][-1:]
    found = []
    if inbound.status != "done":
        found.append(f"the mail was {inbound.status}: {(inbound.result or inbound.error or '')[:300]}")
    if new != [(seat, m) for m in moves]:
        found.append(f"applied {[n for _, n in new]}")
    if not reply:
        found.append("no answer")
    else:
        errors = [ln.strip() for ln in reply[-1].body_text.splitlines() if ERROR_LINE.match(ln)]
        if errors:
            read = [ln for ln in reply[-1].body_text.splitlines() if ln.startswith("> ")][:4]
            found.append(f"{len(errors)} ERROR line(s); pbem read {read}; first: {errors[0][:200]}")
    if side_effects(gid) != before:
        found.append("something else happened (a quoted command ran?): "
                     f"{[x for x in zip(before, side_effects(gid)) if x[0] != x[1]]}"[:400])
    return found, new


def play_by_mail(cfg, game: str, seed: int, rng_seed: int, max_mails: int) -> dict:
    """Play the game to its end by mail. A mail that is not read as meant is
    recorded; its moves (if none of them was applied) are then sent again in
    a plain mail so that the game goes on and every misreading is seen.
    Returns the mails, the moves, the problems and the mails per player."""
    rng = random.Random(rng_seed)
    command(cfg, "Ann", f"REGISTER Ann\nNEW {game} players=3")
    with unit_of_work() as s:
        g = s.exec(select(Game).order_by(Game.id.desc())).first()
        g.seed = seed  # by mail the seed is drawn at random: fixed, so the game is the same every run
        s.add(g)
        gid = g.id
    command(cfg, "Bob", f"REGISTER Bob\nJOIN {gid}")
    command(cfg, "Cat", f"REGISTER Cat\nJOIN {gid}")  # the third seat starts the game
    with unit_of_work() as s:
        name_of = {x.seat: s.get(User, x.user_id).name for x in seating.seats(s, gid)}
    out = {"mails": 0, "moves": 0, "problems": [], "sent": {w: 0 for w in PLAYERS},
           "misread": {w: 0 for w in PLAYERS}, "stopped": None}
    for n in range(max_mails):
        g, engine, st = state(gid)
        if g.status == "finished":
            break
        to_move = sorted(engine.to_move(st))
        seat = to_move[0] if len(to_move) == 1 else rng.choice(to_move)
        who = name_of[seat]
        row = latest_board_mail(gid, PLAYERS[who][0])
        moves = choose(engine, st, seat, rng, several=who == "Bob" and rng.random() < 0.5)
        raw = write(who, row, moves, cfg, rng, n)
        mid = BytesHeaderParser().parsebytes(raw)["Message-ID"]
        before_ply, before = g.ply, side_effects(gid)
        send(cfg, raw, PLAYERS[who][0], row.headers["Reply-To"])
        inbound = processed(mid)
        out["mails"] += 1
        out["sent"][who] += 1
        out["moves"] += len(moves)
        expected = with_closing(engine, st, seat, moves)
        found, applied = check_mail(gid, who, mid, inbound, before_ply, before, seat, expected)
        if not found:
            continue
        out["misread"][who] += 1
        out["problems"].append(f"mail {n + 1} from {who} ({PLAYERS[who][1]}) answering {row.subject!r} with "
                               f"{moves}: " + "; ".join(found))
        if inbound.status == "ignored" or len(out["problems"]) >= 60:
            out["stopped"] = f"stopped at mail {n + 1}: " + found[0]
            break
        if not applied:  # send the moves again, plainly, so that the game goes on
            g2, _, _ = state(gid)
            plain = mail(PLAYERS[who][0], row.headers["Reply-To"], "\n".join(moves),
                         subject=f"Re: [pbem #{gid} ply {g2.ply}] moves")
            pmid = BytesHeaderParser().parsebytes(plain)["Message-ID"]
            send(cfg, plain, PLAYERS[who][0], row.headers["Reply-To"])
            retry = processed(pmid)
            again, _ = check_mail(gid, who, pmid, retry, g2.ply, side_effects(gid), seat, expected)
            if again:
                out["stopped"] = f"stopped at mail {n + 1}: the plain resend failed too: " + "; ".join(again)
                break
    g, _, _ = state(gid)
    out["over"] = g.status == "finished"
    out["ply"] = g.ply
    return out


def verdict(game: str, out: dict) -> str:
    lines = [f"{game}: {out['mails']} mails, {len(out['problems'])} not read as meant "
             + ", ".join(f"{w} ({PLAYERS[w][1]}) {out['misread'][w]}/{out['sent'][w]}" for w in PLAYERS)
             + (f"; the game is over at ply {out['ply']}" if out["over"]
                else f"; the game is NOT over (ply {out['ply']})")]
    if out["stopped"]:
        lines.append(out["stopped"])
    for w in PLAYERS:
        mine = [p for p in out["problems"] if p.split(" from ")[1].startswith(w)]
        lines += [f"  {p[:700]}" for p in mine[:4]]
        if len(mine) > 4:
            lines.append(f"  ... and {len(mine) - 4} more from {w}")
    return "\n".join(lines)


def replay_settings(tmp_path):
    # no board pictures in a whole game played at machine speed (a picture costs about seven move mails of CPU
    # each); replies to picture mails from every kind of client: tests/e2e/test_picture_replies.py
    return make_settings(tmp_path, smtpd_rate_per_ip=0, smtpd_rate_per_sender=0, mail_pictures=False)


@pytest.mark.slow
def test_a_whole_game_of_its_a_wonderful_world_with_three_clients(tmp_path):
    with installed(replay_settings(tmp_path)) as cfg, smtp_receiver(cfg), celery_worker(cfg):
        out = play_by_mail(cfg, "iaww", seed=3303, rng_seed=16, max_mails=600)
    print("\n" + verdict("It's a Wonderful World", out))
    assert out["over"] and not out["problems"], verdict("It's a Wonderful World", out)


@pytest.mark.slow
def test_a_whole_game_of_squire_with_three_clients(tmp_path):
    with installed(replay_settings(tmp_path)) as cfg, smtp_receiver(cfg), celery_worker(cfg):
        out = play_by_mail(cfg, "squire", seed=2202, rng_seed=61, max_mails=400)
    print("\n" + verdict("Squire", out))
    assert out["over"] and not out["problems"], verdict("Squire", out)
