"""The corpus of real-client replies (tests/fixtures/eml/clients/),
each file sent over a real SMTP conversation to the receiver and processed
by a real Celery worker.

The corpus answers real pbem mails — boards, receipts of REGISTER/NEW/STOP
on the command address, receipts of SAY, other players' table talk, and the
bots' mails (a board after a bot's move, the receipt of BOT, the
notice of POLICY ... bot strong) — as
Gmail, Outlook (desktop, web, classic, plain text), Thunderbird, Apple Mail,
iOS Mail, Samsung Email, K-9 Mail, Mail.ru, Yandex and Proton Mail write
them, in a dozen languages, top-posted, bottom-posted, interleaved and
HTML-only (tests/mailclients.py; regenerate with
tests/fixtures/eml/clients/make_clients.py).

Each file answers a mail of its own small world (its own players and
game). The manifest holds the worlds' steps; a group of files is rebuilt
here in the same order on a fresh database (through the services: the same
game ids, seeds, tokens and positions as when the mails were written, which
``fingerprint`` checks), then every file of the group goes through one
receiver and one worker. For every file the manifest says what must be
applied and this test checks that, and that nothing else happened: no
moves but the intended ones, no command of the quoted mail run again (no
second game, no rename, no STOP, no JOIN, no IF/NEXT, no table post of a
quoted SAY line, no second bot, no policy or bot level changed), and the answer to the player has no ERROR line (chatter
such as "Thanks!", a greeting, a sign-off or a client's signature is not an
error)."""
from __future__ import annotations

import re
import smtplib
import time
from email.parser import BytesHeaderParser
from pathlib import Path

import pytest
from sqlmodel import func, select

from pbem import config
from pbem.store.db import unit_of_work
from pbem.store.models import (
    Dispute, Game, Inbound, Move, Observer, Outbound, Post, PreMove, Seat, UndoRequest, User, Vacation,
)
from tests.clientcorpus import CORPUS, ServiceDriver, build_world, fingerprint, load_manifest
from tests.conftest import celery_worker, installed, make_settings, pg_installed, smtp_receiver
from tests.mailtools import PATIENCE

MANIFEST = load_manifest()
FILES = MANIFEST["files"]
ERROR_LINE = re.compile(r"^\s*ERROR\b", re.M)


# the corpus is one sender per file but all from 127.0.0.1 in one burst: the receiver's per-IP limit (a
# defence against floods) would refuse it; the courtesy limit is off for the same reason
CORPUS_SETTINGS = dict(inbound_rate=10**6, smtpd_rate_per_ip=0, smtpd_rate_per_sender=0)


def corpus_settings(tmp: Path, **over) -> config.Settings:
    return make_settings(tmp, domain=MANIFEST["domain"], **CORPUS_SETTINGS, **over)


def corpus_on_postgres(tmp: Path):
    return pg_installed(tmp, domain=MANIFEST["domain"], **CORPUS_SETTINGS)


def test_the_manifest_lists_every_file_of_the_corpus():
    on_disk = {p.relative_to(CORPUS).as_posix() for p in CORPUS.rglob("*.eml")}
    assert on_disk == {e["file"] for e in FILES}
    assert len(on_disk) == len(FILES)


# ------------------------------------------------------------------ the worlds


def users_of(entry: dict) -> list[str]:
    out: list[str] = []

    def walk(steps):
        for st in steps:
            if st[0] == "register" and st[1] not in out:
                out.append(st[1])
            elif st[0] == "mail":
                walk(st[3])
    walk(entry["world"])
    return out


def rebuild(entries: list[dict]) -> None:
    """Each file's world, in the manifest's order, checked against what the mails were written from."""
    for entry in entries:
        ids = build_world(ServiceDriver(), entry["world"])
        assert ids == entry["game_ids"], (entry["file"], ids, entry["game_ids"])
        for gid, want in zip(ids, entry["fingerprints"]):
            assert fingerprint(gid) == want, f"{entry['file']}: game #{gid} is not the game the mail was written in"


def snapshot(entry: dict) -> dict:
    gids = entry["game_ids"]
    with unit_of_work() as s:
        users = {u.email: u for u in s.exec(select(User).where(User.email.in_(users_of(entry))))}
        uids = [u.id for u in users.values()]
        return {
            "moves": [(m.game_id, m.ply, m.seat, m.notation) for m in
                      s.exec(select(Move).where(Move.game_id.in_(gids)).order_by(Move.game_id, Move.ply))],
            "posts": [(p.id, p.game_id, p.user_id, p.body) for p in
                      s.exec(select(Post).where(Post.game_id.in_(gids), Post.kind == "post").order_by(Post.id))],
            "seats": sorted((x.game_id, x.user_id) for x in s.exec(select(Seat).where(Seat.user_id.in_(uids)))),
            "games": s.exec(select(func.count()).select_from(Game).where(Game.creator_id.in_(uids))).one(),
            "users": {e: {"name": u.name, "stopped": u.stopped, "notify": u.notify} for e, u in users.items()},
            "ids": {e: u.id for e, u in users.items()},
            # the bots' seats and the games' no-move policies: a quoted BOT or POLICY run again
            "bots": sorted((x.game_id, x.seat, x.bot_level) for x in s.exec(select(Seat).where(
                Seat.game_id.in_(gids), Seat.is_bot))),
            "policies": {g.id: (g.policy, g.bot_level, g.abandon_after) for g in
                         s.exec(select(Game).where(Game.id.in_(gids)))},
            "side": {t.__name__: s.exec(select(func.count()).select_from(t).where(
                (t.game_id.in_(gids)) if hasattr(t, "game_id") and t is not Vacation else t.user_id.in_(uids))).one()
                for t in (PreMove, UndoRequest, Dispute, Vacation, Observer)},
        }


def seat_of(game_id: int, email: str) -> int | None:
    with unit_of_work() as s:
        row = s.exec(select(Seat).join(User, User.id == Seat.user_id)
                     .where(Seat.game_id == game_id, User.email == email)).first()
        return row.seat if row else None


def _plain(text: str) -> str:
    return text.replace("\u201c", '"').replace("\u201d", '"').replace("\u2019", "'").replace("\u2018", "'")


def check(entry: dict, before: dict, reply: Outbound | None, status: str | None) -> list[str]:
    """What is wrong with what pbem did with one file ([] when it is right)."""
    want, gids = entry["expect"], entry["game_ids"]
    after = snapshot(entry)
    problems: list[str] = []
    if status != "done":
        problems.append(f"the mail was {status or 'not processed'}")
    new_moves = [(g, seat, n) for g, _, seat, n in after["moves"] if (g, _, seat, n) not in before["moves"]]
    expected = [(gids[ref], seat_of(gids[ref], who), n) for ref, who, n in want["moves"]]
    if new_moves != expected:
        problems.append(f"moves applied {[n for *_, n in new_moves]}, intended {[n for *_, n in expected]}")
    new_posts = [p for p in after["posts"] if p not in before["posts"]]
    typed = {_plain(ln) for ln in (entry["typed"] if entry["typed"] and isinstance(entry["typed"][0], str)
                                   else [x for _, part in entry["typed"] for x in part])}
    for ref, who, text in want["posts"]:
        # talk is what the player typed (the answer, and the name they signed with), nothing a client added:
        # no header block, no quoted line, no signature of the client's
        mine = [p for p in new_posts if p[1] == gids[ref] and p[2] == after["ids"][who] and
                _plain(p[3]).startswith(_plain(text)) and
                all(_plain(ln) in typed for ln in p[3].split("\n") if ln.strip())]
        if not mine:
            problems.append(f"no table post of exactly the answer {text!r} (posts: {[p[3][:200] for p in new_posts]})")
    addressed = [p[3][:200] for p in new_posts if "@" in p[3]]
    if addressed:
        problems.append(f"an e-mail address reached a post: {addressed}")
    authors = {after["ids"][who] for _, who, _ in want["posts"]}
    stray = [p for p in new_posts if p[2] not in authors]
    if stray:
        problems.append(f"posts to the table that were not meant: {[p[3][:60] for p in stray]}")
    quoted_talk = [c[4:] for c in entry["quoted_commands"] if c.startswith("SAY ")]
    reposted = [p for p in new_posts if any(q in p[3] for q in quoted_talk)]
    if reposted:
        problems.append(f"a quoted SAY line went to the table again: {[p[3][:60] for p in reposted]}")
    new_seats = [x for x in after["seats"] if x not in before["seats"]]
    if new_seats != sorted((gids[ref], after["ids"][who]) for ref, who in want["seats"]):
        problems.append(f"seats taken {new_seats}, intended {want['seats']}")
    if after["games"] != before["games"]:
        problems.append(f"{after['games'] - before['games']} game(s) created by a quoted NEW")
    users = want.get("users") or before["users"]
    for email, fields in users.items():
        got = {k: after["users"][email][k] for k in fields}
        if got != fields:
            problems.append(f"{email} changed: {got} (a quoted REGISTER or STOP ran?)")
    if after["bots"] != before["bots"]:
        problems.append(f"bot seats changed: {before['bots']} -> {after['bots']} (a quoted BOT ran?)")
    if after["policies"] != before["policies"]:
        problems.append(f"no-move policy or bot level changed: {before['policies']} -> {after['policies']} "
                        "(a quoted POLICY ran?)")
    if after["side"] != before["side"]:
        problems.append(f"pre-moves, undo requests, disputes, vacations or observers changed: {after['side']}")
    if reply is None:
        problems.append("no answer to the mail")
    else:
        if reply.to_addr != entry["sender"]:
            problems.append(f"answered to {reply.to_addr}, not the player")
        errors = [ln.strip() for ln in reply.body_text.splitlines() if ERROR_LINE.match(ln)]
        if errors:
            body = reply.body_text
            lines = [ln for ln in body.splitlines() if ln.startswith("> ")][:6]
            problems.append(f"{len(errors)} ERROR line(s) in the answer, pbem read {lines[:3]}: {errors[0][:160]}")
    return problems


# ------------------------------------------------------------------ sending


def message_id(raw: bytes) -> str:
    return BytesHeaderParser().parsebytes(raw)["Message-ID"].strip()


def send(cfg: config.Settings, raw: bytes, mail_from: str, rcpt: str) -> int:
    with smtplib.SMTP("127.0.0.1", cfg.smtpd_port, timeout=30) as c:
        c.ehlo("client.test")
        c.mail(mail_from)
        code, msg = c.rcpt(rcpt)
        if code != 250:
            return code
        return c.data(raw)[0]


def run_corpus(cfg: config.Settings, entries: list[dict], send_only: list[dict] | None = None) -> dict[str, list[str]]:
    rebuild(entries)
    todo = send_only if send_only is not None else entries
    befores = {e["file"]: snapshot(e) for e in todo}
    problems: dict[str, list[str]] = {}
    ids: dict[str, str] = {}
    t0 = time.monotonic()
    with smtp_receiver(cfg), celery_worker(cfg):
        for e in todo:
            raw = (CORPUS / e["file"]).read_bytes()
            ids[e["file"]] = message_id(raw)
            code = send(cfg, raw, e["sender"], e["rcpt"])
            if code != 250:
                problems[e["file"]] = [f"the receiver answered {code}"]
        # the wait ends when the last mail is read: its bound only stops a stuck run, and a busy machine
        # (two test workers on two cores, and more) reads a group's hundred mails slowly
        deadline = time.monotonic() + PATIENCE + 2 * len(todo)
        while time.monotonic() < deadline:
            with unit_of_work() as s:
                rows = list(s.exec(select(Inbound.status)))
            if len(rows) >= len(todo) - len(problems) and all(r in ("done", "ignored", "failed") for r in rows):
                break
            time.sleep(0.2)
    elapsed = time.monotonic() - t0
    with unit_of_work() as s:
        status = {r.message_id: r.status for r in s.exec(select(Inbound))}
        replies = {}
        for o in s.exec(select(Outbound).where(Outbound.kind == "reply")):
            replies.setdefault((o.headers or {}).get("In-Reply-To"), o)
    for e in todo:
        if e["file"] in problems:
            continue
        found = check(e, befores[e["file"]], replies.get(ids[e["file"]]), status.get(ids[e["file"]]))
        if found:
            problems[e["file"]] = found
    print(f"\n{len(todo)} client replies through SMTP and the worker in {elapsed:.1f} s; "
          f"{len(todo) - len(problems)} read as meant, {len(problems)} not")
    return problems


def report(problems: dict[str, list[str]], total: int) -> str:
    lines = [f"{len(problems)} of {total} client replies were not read as the player meant:"]
    for name, found in sorted(problems.items()):
        lines.append(f"  {name}:")
        lines += [f"      {p[:300]}" for p in found]
    return "\n".join(lines)


@pytest.mark.parametrize("group", MANIFEST["groups"])
def test_every_client_reply_is_read_as_the_player_meant(group, tmp_path):
    """One group of the corpus (the files answering Spyrium, Squire or It's a
    Wonderful World mails on a seat address, or receipts on the command
    address) on SQLite with the embedded broker."""
    entries = [e for e in FILES if e["group"] == group]
    with installed(corpus_settings(tmp_path)) as cfg:
        problems = run_corpus(cfg, entries)
    assert not problems, report(problems, len(entries))


@pytest.mark.redis
@pytest.mark.postgres
def test_a_sample_of_client_replies_on_postgres_and_redis(tmp_path, on_redis):
    """One reply of every client (and every kind of answered mail) on
    PostgreSQL with Redis: the Squire group rebuilt whole, a sample sent."""
    group = [e for e in FILES if e["group"] == "squire"]
    sample, clients, kinds = [], set(), set()
    for e in group:  # the first file of every client, and of every kind of answered mail
        if e["client"] not in clients or e["answers"] not in kinds:
            clients.add(e["client"])
            kinds.add(e["answers"])
            sample.append(e)
    with corpus_on_postgres(tmp_path) as cfg:
        cfg = on_redis(cfg)
        problems = run_corpus(cfg, group, send_only=sample)
    assert not problems, report(problems, len(sample))
