"""`pbem demo`: the whole service on its embedded defaults, with a game whose
players are bots that play by real mail.

Every demo player is an ordinary user with an ordinary seat (not a bot seat:
the server does not know they are bots). The demo acts as their mail
client: it reads each player's latest mail from the maildir the service
delivers to, and when that player's seat must act it picks a move with the
game's bot and replies over SMTP to the seat's token address, with the
game's subject ("Re: [pbem #7] Spyrium"), In-Reply-To and the quoted board
like any mail client. The SMTP receiver stores the mail, the Celery worker processes it,
the services apply the move and queue the new boards, the worker delivers
them to the maildir... until the game ends and the final scores are mailed.
"""
from __future__ import annotations

import email
import email.policy
import logging
import mailbox
import os
import smtplib
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from email.message import EmailMessage
from email.utils import make_msgid, parseaddr
from typing import Callable

from pbem.config import ROOT, Settings, settings
from pbem.engine import bots as engine_bots
from pbem.engine import get_game, rng_for, validate_options
from pbem.mail.inbound import connect_host
from pbem.store.addresses import MessageRef, parse_message_refs

log = logging.getLogger("pbem.demo")

PLAYER_DOMAIN = "players.example"  # RFC 2606: never a real mailbox
DEFAULT_PLAYERS = {"spyrium": 3, "squire": 3, "iaww": 3}
DEMO_LANGUAGES = ("en", "ru", "it", "bg")  # the demo players' languages, by seat
TIMEOUT_S = 1800.0  # give up on a demo that makes no progress for this long


@dataclass
class Player:
    seat: int
    email: str
    name: str
    latest: EmailMessage | None = None     # newest mail for this game
    latest_ply: int = -1
    sent_at_ply: int = -1                  # ply of the board this player last answered
    waiting_receipt: bool = False          # a move is in flight: wait for pbem's answer
    sent: int = 0
    final: bool = False                    # has the mail with the final scores
    language: str = "en"                   # the language pbem writes to this player in


@dataclass
class DemoResult:
    game_id: int
    game: str
    plies: int
    finished: bool
    scores: list[int] = field(default_factory=list)
    winners: list[int] = field(default_factory=list)
    mails_sent: int = 0
    seconds: float = 0.0
    url: str = ""


def bot_seed(game_seed: int, ply: int, seat: int) -> int:
    return rng_for(game_seed, "demo", ply, seat).getrandbits(62)


def expected_plies(name: str, players: int, seed: int, options: dict) -> int:
    """The length of this very game if every seat moves in seat order: the
    demo's bots use the same seeds, so this is exact for turn-based games
    (simultaneous steps may interleave differently)."""
    game = get_game(name)
    state = game.initial_state(players, seed, validate_options(game, players, options))
    plies = 0
    while game.to_move(state) and plies < 20_000:
        seat = min(game.to_move(state))
        state = game.apply(state, seat, engine_bots.choose(game, state, seat, bot_seed(seed, plies, seat)))
        plies += 1
    return plies


# ---------------------------------------------------------------- the service


class Service:
    """SMTP receiver, Celery worker (with beat) and web site, as `pbem up` runs them: the receiver and
    the worker each in a process of their own, the web site in this one."""

    def __init__(self, cfg: Settings, web: bool = True, app: str = "pbem.worker"):
        self.cfg, self.web, self.app = cfg, web, app
        self.smtpd = self.worker = self.httpd = None

    def start(self) -> "Service":
        from pbem.mail.inbound import spawn
        from pbem.store.db import upgrade

        upgrade()
        self.smtpd = spawn(self.cfg)
        self.worker = subprocess.Popen(
            [sys.executable, "-m", "celery", "--quiet", "-A", self.app, "worker", "-B", "--pool=threads", "--concurrency=2",
             "--loglevel=WARNING", "--without-gossip", "--without-mingle",
             "-s", str(self.cfg.var_dir / "celerybeat-schedule")],
            cwd=str(ROOT), env=dict(os.environ, **self.cfg.to_env()),
        )
        if self.web:
            from werkzeug.serving import make_server

            from pbem.web import create_app

            self.httpd = make_server(self.cfg.web_host, self.cfg.web_port, create_app(self.cfg), threaded=True)
            threading.Thread(target=self.httpd.serve_forever, name="web", daemon=True).start()
        return self

    def stop(self) -> None:
        from pbem.bench.env import stop_server

        if self.httpd is not None:
            self.httpd.shutdown()
        for proc in (self.worker, self.smtpd):
            if proc is not None:
                stop_server(proc, 20)


# ---------------------------------------------------------------- the game


def create_game(cfg: Settings, name: str, players: int, seed: int | None = None) -> tuple[int, list[Player]]:
    """Register the demo players, create the game, seat them, start it and
    queue everybody's first board (all through the services)."""
    from pbem.services.core import accounts, games, lifecycle, notify, seating
    from pbem.services.lobby import tables
    from pbem.store.db import unit_of_work

    run = time.strftime("%Y%m%d%H%M%S") + f"{os.getpid() % 1000:03d}"
    people: list[Player] = []
    with unit_of_work() as s:
        users = []
        for i in range(players):
            addr = f"demo{run}.p{i + 1}@{PLAYER_DOMAIN}"
            lang = DEMO_LANGUAGES[i % len(DEMO_LANGUAGES)]  # one table, several languages
            user, _ = accounts.register(s, addr, f"Demo bot {i + 1}", confirmed=True, language=lang)
            users.append(user)
            people.append(Player(i, addr, user.name, language=lang))
        g = tables.create(s, users[0], name, players, seed=seed)
        for u in users[1:]:
            tables.join(s, u, g.id)
        g = games.get(s, g.id)
        if g.status == "open":
            lifecycle.start(s, g, by=users[0])
        from pbem.i18n import lazy_gettext

        notify.queue_boards(s, g, lazy_gettext("Game #%(id)d has started: %(players)s. This is a pbem demo: every "
                                               "player is a bot that answers by mail.", id=g.id,
                                               players=", ".join(seating.names(s, g.id))))
        return g.id, people


class Mailbox:
    """The demo players' view of the maildir the service delivers to."""

    def __init__(self, cfg: Settings):
        self.dir = cfg.maildir
        self.domain = cfg.domain
        self.seen: set[str] = set()

    def new_messages(self) -> list[EmailMessage]:
        if not ((self.dir / "new").exists() and (self.dir / "cur").exists()):
            return []  # not made yet, or being made by the first delivery (tmp, new, then cur)
        box = mailbox.Maildir(str(self.dir), factory=None, create=False)
        out = []
        for key in sorted(set(box.keys()) - self.seen):
            try:
                raw = box.get_bytes(key)
            except KeyError:  # being written
                continue
            self.seen.add(key)
            out.append(email.message_from_bytes(raw, policy=email.policy.default))
        out.sort(key=lambda m: getattr(self.ref(m), "ply", None) or 0)
        return out

    def ref(self, msg: EmailMessage) -> MessageRef | None:
        """What one of pbem's mails is (kind, game, ply): its Message-ID says."""
        refs = parse_message_refs(str(msg["Message-ID"] or ""), self.domain)
        return refs[0] if refs else None


def reply_for(player: Player, move: str) -> tuple[EmailMessage, str]:
    """A reply as a mail client writes it: the move on top, the board quoted."""
    orig = player.latest
    to = parseaddr(str(orig["Reply-To"] or ""))[1]
    body = orig.get_body(preferencelist=("plain",))
    quoted = "\n".join("> " + line for line in (body.get_content() if body else "").splitlines()[:40])
    msg = EmailMessage()
    msg["From"] = f"{player.name} <{player.email}>"
    msg["To"] = to
    subject = str(orig["Subject"] or "")
    msg["Subject"] = subject if subject.lower().startswith("re:") else "Re: " + subject
    msg["Message-ID"] = make_msgid(domain=PLAYER_DOMAIN)
    if orig["Message-ID"]:
        msg["In-Reply-To"] = str(orig["Message-ID"])
    msg.set_content(f"{move}\n\nOn {orig['Date'] or 'today'}, pbem wrote:\n{quoted}\n")
    return msg, to


def play(cfg: Settings, game_id: int, people: list[Player], *, max_plies: int | None = None,
         on_progress: Callable[[int, str], None] | None = None, timeout: float = TIMEOUT_S) -> DemoResult:
    """Act as the players' mail clients until the game ends and everybody
    has the final scores (or ``max_plies`` plies were played)."""
    from pbem.services.core import games
    from pbem.store.db import unit_of_work

    box = Mailbox(cfg)
    by_email = {p.email: p for p in people}
    t0 = last_change = time.monotonic()
    ply, status = 0, "running"
    while True:
        for msg in box.new_messages():
            p = by_email.get(parseaddr(str(msg["To"] or ""))[1].lower())
            ref = box.ref(msg)
            if p is None or ref is None or ref.game_id != game_id or ref.ply is None:
                continue
            mply = ref.ply
            if mply >= p.latest_ply:
                p.latest, p.latest_ply = msg, mply
            if ref.what == "reply":  # the receipt for the player's own mail
                p.waiting_receipt = False
                if mply == p.sent_at_ply:  # nothing applied (a race with another seat): answer again
                    p.sent_at_ply = -1
        with unit_of_work() as s:
            g = games.get(s, game_id)
            engine = games.engine_for(g)
            state = games.state_at(s, g)
            new_ply, status, outcome = g.ply, g.status, g.outcome
            # the number each seat's newest mail should carry now: in a secret step the mails count only the
            # seat's own choices, so the game's own ply would never match them
            shown = {p.seat: _shown_to(s, g, p.seat) for p in people}
        if new_ply != ply:
            ply, last_change = new_ply, time.monotonic()
            if on_progress:
                on_progress(ply, engine.view(state, None).get("status", ""))
        if status != "running":
            for p in people:  # the final scores come with the last ply's mail, in the player's language
                p.final = p.latest_ply >= shown[p.seat]
            if all(p.final for p in people) or time.monotonic() - last_change > 60:
                break
        elif max_plies is not None and ply >= max_plies:
            break
        elif not any(p.waiting_receipt for p in people):
            # one mail in flight at a time: in a simultaneous step, a mail written against a
            # board another seat's move has just changed would be refused as stale
            for p in people:
                if any(q.waiting_receipt for q in people):
                    break
                # act on the board of the current ply, once
                if (p.seat in engine.to_move(state) and not p.waiting_receipt and p.latest is not None
                        and p.latest_ply == shown[p.seat] and p.sent_at_ply < shown[p.seat]):
                    move = engine_bots.choose(engine, state, p.seat, bot_seed(g.seed, ply, p.seat))
                    text = mail_safe(engine, state, p.seat, move)
                    msg, to = reply_for(p, text)
                    with smtplib.SMTP(connect_host(cfg), cfg.smtpd_port, timeout=30) as smtp:
                        smtp.send_message(msg, from_addr=p.email, to_addrs=[to])
                    p.sent_at_ply, p.waiting_receipt = shown[p.seat], True
                    p.sent += 1
        if time.monotonic() - last_change > timeout:
            raise TimeoutError(f"the demo game #{game_id} made no progress for {timeout:.0f} s (at ply {ply})")
        time.sleep(0.05)
    out = outcome or {}
    return DemoResult(game_id, engine.name, ply, status == "finished", list(out.get("scores", [])),
                      list(out.get("winners", [])), sum(p.sent for p in people), time.monotonic() - t0,
                      f"{cfg.base_url}/games/{game_id}")


def _shown_to(s, g, seat: int) -> int:
    """The ply number the newest mail to ``seat`` carries: the counter every
    reader is shown, or, once the seat has made choices in a secret step, the
    number of its own latest choice (visibility: a seat's own choices are
    counted among its own, the others' not at all)."""
    from pbem.services.core import visibility

    mine = visibility.on_file(s, g, seat)
    if mine is None or not mine.secret or not mine.plies:
        return visibility.public_ply(s, g)
    return visibility.secrets(s, g).shown_ply(mine.plies[-1], seat)


def mail_safe(engine, state, seat: int, move) -> str:
    """The move's notation as a line the mail pipeline reads as a move: a
    canonical form that starts with a command word (Spyrium's answer "new",
    for a new lot, reads as the NEW command) is written in another form the
    engine parses to the same move."""
    from pbem.mail.commands import COMMAND_RE

    text = engine.format_move(state, seat, move)
    if not COMMAND_RE.match(text):
        return text
    first, _, rest = text.partition(" ")
    for cand in (f"{first}lot {rest}", f"lot {text}", f"{first}-{rest}", f"{text.replace(' ', '-')}"):
        cand = cand.strip()
        if COMMAND_RE.match(cand):
            continue
        try:
            if engine.parse_move(state, seat, cand) == move:
                return cand
        except ValueError:
            continue
    return text


def run(name: str = "spyrium", players: int | None = None, *, seed: int | None = None,
        max_plies: int | None = None, web: bool = True, progress: bool = True, keep_serving: bool = False,
        echo: Callable[[str], None] = print, worker_app: str = "pbem.worker") -> DemoResult:
    """Start the service, play one demo game by mail, report the result;
    with ``keep_serving`` keep everything up until Ctrl-C."""
    import secrets

    from pbem.config import set_settings

    # the demo's players answer within a second, far above the per-sender
    # courtesy limit meant for bursts from people and broken mail robots
    cfg = settings().with_(inbound_rate=max(settings().inbound_rate, 100_000))
    set_settings(cfg)
    game = get_game(name)
    players = players or DEFAULT_PLAYERS.get(game.name, game.min_players)
    seed = secrets.randbits(40) if seed is None else seed
    service = Service(cfg, web=web, app=worker_app).start()
    try:
        gid, people = create_game(cfg, game.name, players, seed)
        total = expected_plies(game.name, players, seed, {})
        echo(f"pbem demo: {game.title} game #{gid}, {players} bot players who play by mail.\n"
             f"  watch it:  {cfg.base_url}/games/{gid}\n"
             f"  mail in:   SMTP {cfg.smtpd_host}:{cfg.smtpd_port}   mail out: {cfg.maildir}\n"
             f"  its mail:  pbem outbox (all of it); {cfg.base_url}/outbox shows admins all, each user their own\n"
             f"  players:   " + ", ".join(f"{p.name} <{p.email}>" for p in people))
        bar = None
        if progress:
            from tqdm import tqdm

            bar = tqdm(total=min(total, max_plies or total), unit="ply", desc=f"game #{gid}", file=sys.stderr)

        def advance(ply: int, status: str) -> None:
            if bar is not None:
                if ply > bar.total:
                    bar.total = ply
                bar.update(ply - bar.n)
                bar.set_postfix_str(status[:60], refresh=True)

        try:
            result = play(cfg, gid, people, max_plies=max_plies, on_progress=advance)
        finally:
            if bar is not None:
                bar.close()
        if result.finished:
            ranking = sorted(range(players), key=lambda i: -result.scores[i])
            echo(f"Game #{gid} is over after {result.plies} plies and {result.mails_sent} mails from the "
                 f"players ({result.seconds:.0f} s). Final scores (mailed to every player):\n" +
                 "\n".join(f"  {people[i].name}: {result.scores[i]}" + ("  - wins" if i in result.winners else "")
                           for i in ranking))
        else:
            echo(f"Stopped after {result.plies} plies ({result.seconds:.0f} s); game #{gid} goes on.")
        echo(f"The game: {result.url}")
        if keep_serving:
            echo("pbem keeps running (web, SMTP, worker). Press Ctrl-C to stop.")
            try:
                while True:
                    time.sleep(3600)
            except KeyboardInterrupt:
                pass
        return result
    finally:
        service.stop()
