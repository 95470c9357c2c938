"""A table of real people playing one real game through pbem's front doors
(the web routes, the mail pipeline, the services the workers run), and what
the secrecy test knows about it at every moment: the engine state replayed
from the move log by the test itself, the secret plies (``Record``), what
was ever public and what each seat ever saw (``Knowledge``), every reply and
login token and private post with the people who may read it. After every
action the mail it queued is read as its recipient would read it; at a
checkpoint every route is asked as every person (``site.Sweep``).
"""
from __future__ import annotations

import random
import re
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path

from flask import template_rendered
from sqlmodel import select

from pbem.engine import GAMES, get_game
from pbem.services.core import accounts, clocks
from pbem.services.follow import calendars, channels, messages
from pbem.services.identity import auth
from pbem.services.lobby import tables
from pbem.services.turns import bots, deadlines
from pbem.store.db import unit_of_work
from pbem.store.models import (
    Dispute, Game, Inbound, LoginToken, Move, Notification, NotifyChannel, Outbound, Post, PreMove, Seat, User,
    utcnow,
)
from pbem.store.outbox import MARKER
from pbem.web import create_app
from tests.mailtools import CMD, process
from tests.web.conftest import Browser

from .concealed import (
    ORDER_DEFAULT, ORDER_ITEMS, Concealed, Knowledge, Record, allowed_text, concealed, hidden, order_pattern,
    readings, static_text,
)
from .site import Sweep, log_in

NAMES = ["Ann", "Ben", "Cid", "Dot", "Eve"]
STATIC = Path(__file__).resolve().parents[2] / "pbem" / "web" / "static"
LOGIN_LINK = re.compile(r"/auth/([A-Za-z0-9_\-]{20,})")
CHANNEL_URL = "json://127.0.0.1:9/hook"  # nothing is delivered: the notifications queued are read


@dataclass
class Person:
    key: str  # who they are to the test: "player Ann", "former player", "stranger", "admin", "visitor"
    user_id: int | None
    email: str | None
    client: Browser
    is_admin: bool = False
    csrf: str | None = None  # the CSRF token of the person's session, once asked for


@dataclass
class Problems:
    found: list[str] = field(default_factory=list)
    checked: dict = field(default_factory=lambda: {"answers": 0, "mails": 0, "checkpoints": 0, "secret plies": 0,
                                                   "deepest secret": 0})

    def add(self, where: str, leaks: list[str]) -> None:
        self.found += [f"{where}: {x}" for x in leaks]


class Table:
    def __init__(self, cfg, game: str, n: int, seed: int, *, choose=None):
        self.engine = get_game(game)
        self.seed = seed
        self.rng = random.Random(seed)
        self.choose = choose or (lambda rng, legal: rng.choice(legal))
        cfg.var_dir.mkdir(parents=True, exist_ok=True)
        # nothing delivers mail here, so picture mails would pile up unsent and the next ones go without a
        # picture (PBEM_PICTURE_BACKLOG): every board mail gets its drawing, and the sweep reads each one
        cfg = cfg.with_(picture_backlog=10**9, http_allow=("127.0.0.1/32",))  # chat channels on loopback
        from pbem import config

        config.set_settings(cfg)
        self.app = create_app(cfg)
        self.app.config["TESTING"] = True  # an error in a view raises here, not a quiet 500
        self.rendered: set[str] = set()
        template_rendered.connect(self._rendered, self.app)
        self.problems = Problems()
        self.mail_rows: dict[int, tuple[str, str]] = {}  # id -> (to, what the recipient reads)
        self.mail_kinds: set[str] = set()
        self.mail_firsts: list[tuple[str, str]] = []  # (to, first line): what each mail was about
        self.html_mails = 0
        self.drawn: dict[str, str] = {}  # picture key -> its SVG, drawn once
        self.last_mail = 0
        self.last_note = 0  # the last notification read
        self.note_kinds: set[str] = set()
        self.person: dict[int, Person] = {}
        self._concealed: dict = {}  # (user, login links known) -> what they may not read now
        self._allowed: dict = {}  # "public", or a seat -> the text of what they may read
        self.login: dict[str, int] = {}  # raw login token -> its user
        self.tokens: dict[str, set[int]] = {}  # reply token -> the users who held its seat
        self.forever: list[tuple[int, str]] = []  # (seat, notation) taken back while secret
        self.live: list[tuple[int, int, str]] = []
        self.record = Record()
        self.knowledge = Knowledge()
        self.state = None
        with unit_of_work() as s:
            people = [accounts.register(s, f"{name.lower()}@x.test", name, confirmed=True)[0] for name in NAMES[:n]]
            extra = {k: accounts.register(s, f"{k}@x.test", k.title(), confirmed=True)[0]
                     for k in ("rex", "sam", "ada")}
            extra["ada"].is_admin = True
            people[1 % n].mail_format = "text"  # one player reads text only: message.txt alone
            people[0].notify = "digest"  # one reads the daily digest (and no board after every move)
            g = tables.create(s, people[0], game, n, {}, seed=seed)
            self.game_id = g.id
            # every person has a chat channel that takes every kind of notification, and the game a
            # table channel: each notification is read as its reader reads it (check_mail), the table's as
            # the public's
            for u in people + list(extra.values()):
                ch = channels.add(s, u, CHANNEL_URL)
                ch.events = list(channels.EVENTS)
            channels.set_table(s, people[0], g, CHANNEL_URL)
            # a tournament its players have entered: its page and standings are read by everyone too
            from pbem.services.lobby.tournaments import season

            # (one round: once its table's game is over the director's START is refused, as every route is
            # asked, and the tournament goes on being the same)
            league = season.create(s, people[0], game, name="League", table_size=n, rounds=1, seed=seed)
            for u in people:
                season.join(s, u, league.id)
            self.league_id = league.id
            self.user = {u.id: u.name for u in people + list(extra.values())}
            ids = [u.id for u in people] + [extra[k].id for k in ("rex", "sam", "ada")]
        self.check_mail()
        self.person = {uid: Person(f"player {self.user[uid]}", uid, f"{self.user[uid].lower()}@x.test",
                                   log_in(self.app, f"{self.user[uid].lower()}@x.test")) for uid in ids}
        self.rex, self.sam, self.ada = (self.person[i] for i in ids[-3:])
        self.rex.key, self.sam.key, self.ada.key, self.ada.is_admin = "replacement", "stranger", "admin", True
        self.visitor = Person("visitor", None, None, Browser(self.app))
        self.former: Person | None = None
        for uid in ids[1:n]:  # the others join on the lobby's page; the last one starts the game
            r = self.web(self.person[uid], f"/games/{self.game_id}/join", {})
            assert r.status_code == 303, r.status_code
        with unit_of_work() as s:
            for uid in ids:  # a live login link each, never used
                user = s.get(User, uid)
                auth._issue(s, user.email, "login", user)
        self.web(self.visitor, "/login", {"email": "ann@x.test"})  # a stranger asks for Ann's link
        self._seat_the_league()
        self.sync()

    def _seat_the_league(self) -> None:
        """The game is the league's one table of round 1, as start_round records a table (the game it is,
        its players in seat order): the tournament's pages, its player pages, CSV and mails show the
        game whose secrets the test knows."""
        from pbem.store.models import Tournament, TournamentRound, TournamentTable

        with unit_of_work() as s:
            league = s.get(Tournament, self.league_id)
            players = [x.user_id for x in s.exec(select(Seat).where(Seat.game_id == self.game_id).order_by(Seat.seat))]
            s.add(TournamentRound(tournament_id=league.id, number=1, byes=[]))
            s.add(TournamentTable(tournament_id=league.id, round=1, number=1, game_id=self.game_id, players=players))
            league.round, league.status = 1, "running"
            s.add(league)

    def _rendered(self, _app, template, context, **extra) -> None:
        self.rendered.add(template.name)

    # ------------------------------------------------------------ what the test knows

    def sync(self) -> None:
        """Read the game's record and seats, replay what is new, and read the mail it queued."""
        self._concealed, self._allowed = {}, {}
        with unit_of_work() as s:
            g = s.get(Game, self.game_id)
            self.ply, self.options, self.status = g.ply, dict(g.options), g.status
            rows = list(s.exec(select(Move).where(Move.game_id == self.game_id).order_by(Move.ply)))
            self.seats = {x.seat: x for x in s.exec(select(Seat).where(Seat.game_id == self.game_id))}
            for x in self.seats.values():
                s.expunge(x)
        if self.status in ("open", "cancelled"):
            self.check_mail()
            return
        live = [(m.ply, m.seat, m.notation) for m in rows if not m.undone]
        if live[:len(self.live)] != self.live:  # taken back (UNDO, a rollback): replay anew
            secret = set(self.record.secret)
            self.forever += [(seat, notation) for ply, seat, notation in set(self.live) - set(live) if ply in secret]
            self.live, self.record, self.state = [], Record(), None
        if self.state is None:
            self.state = self.engine.initial_state(len(self.seats), self.seed, self.options)
            self.knowledge.saw(self.engine, self.state)
        for ply, seat, notation in live[len(self.live):]:
            move = self.engine.parse_move(self.state, seat, notation)
            self.record.played(self.engine, self.state, seat, move, ply)
            self.state = self.engine.apply(self.state, seat, move)
            self.knowledge.saw(self.engine, self.state)
        self.live = live
        for x in self.seats.values():
            self.tokens.setdefault(x.token, set()).add(x.user_id)
        self.check_mail()

    def seat_of(self, user_id: int | None) -> int | None:
        """The seat the person plays now: none once they resigned or were replaced."""
        return next((k for k, x in self.seats.items() if x.user_id == user_id and not x.resigned), None)

    def holder(self, seat: int) -> Person | None:
        x = self.seats[seat]
        return None if x.is_bot or x.resigned else self.person.get(x.user_id)

    def people(self) -> list[Person]:
        out = [self.holder(k) for k in sorted(self.seats)]
        out = [p for p in out if p is not None]
        out += [p for p in (self.former, self.sam, self.ada, self.visitor) if p is not None and p not in out]
        return out

    def concealed_for(self, user_id: int | None) -> Concealed:
        """What ``user_id`` (None: a visitor) may not read now (kept until the game, its seats, posts
        or login links change: every action ends in sync, which forgets it)."""
        key = (user_id, len(self.login))
        if key not in self._concealed:
            self._concealed[key] = self._conceal(user_id)
        return self._concealed[key]

    def _conceal(self, user_id: int | None) -> Concealed:
        k = self.seat_of(user_id)
        h = hidden(self.engine, self.state)
        values: dict[str, str] = {}
        for j, vals in h.seat.items():
            if j != k:
                values.update({v: f"seat {j + 1}'s hidden value" for v in vals})
        secret = set(self.record.secret)
        for ply in sorted(secret):
            j, notation = self.record.plies[ply]
            if j != k:
                values[notation] = f"seat {j + 1}'s secret move at ply {ply}"
        for j, notation in self.forever:
            if j != k:
                values[notation] = f"seat {j + 1}'s move taken back while secret"
        values.update({v: "a face-down value" for v in h.nobody})
        values[str(self.seed)] = "the seed"
        values.update({t: "a reply token" for t, owners in self.tokens.items() if user_id not in owners})
        values.update({t: "a login token" for t, owner in self.login.items() if owner != user_id})
        with unit_of_work() as s:
            for body, frm, to in s.exec(select(Post.body, Post.user_id, Post.to_user_id).where(
                    Post.game_id == self.game_id, Post.to_seat.is_not(None))):
                if user_id not in (frm, to):
                    values[body] = "a private post"
            for text, author in s.exec(select(PreMove.text, PreMove.user_id).where(
                    PreMove.game_id == self.game_id, PreMove.status != "applied")):
                if user_id != author:  # a plan never played is its author's own
                    values[text] = "someone else's pre-move"
        if "public" not in self._allowed:  # what everyone may read, once per change of the game
            self._allowed["public"] = allowed_text(
                self.knowledge.public | {n for p, (_, n) in self.record.plies.items() if p not in secret})
        allowed = [self._allowed["public"]]
        if k is not None:
            if k not in self._allowed:
                self._allowed[k] = allowed_text(self.knowledge.seat.get(k, set()))
            allowed.append(self._allowed[k])
        orders = [o for what, items in h.orders
                  if (o := order_pattern(what, items, ORDER_ITEMS.get(what, ORDER_DEFAULT))) is not None]
        return concealed(values, orders, allowed=allowed, static=static_text(self.engine.name))

    def user_of(self, email: str) -> int | None:
        return next((uid for uid, p in self.person.items() if p.email == email), None)

    # ------------------------------------------------------------ mail, as its recipient reads it
    pictures = 0  # mails read with their board drawing

    def check_notifications(self) -> None:
        """Every chat notification queued, read as its reader reads it: a person's channel as
        that person, the game's table channel as the public (anyone in the group chat)."""
        with unit_of_work() as s:
            rows = list(s.exec(select(Notification, NotifyChannel.user_id, NotifyChannel.game_id)
                               .join(NotifyChannel, NotifyChannel.id == Notification.channel_id)
                               .where(Notification.id > self.last_note).order_by(Notification.id)))
        for row, owner, table in rows:
            self.last_note = row.id
            self.note_kinds.add(f"{'table ' if table else ''}{row.kind}")
            self.problems.checked["notifications"] = self.problems.checked.get("notifications", 0) + 1
            if self.state is None:
                continue
            reader = None if table else owner
            who = "the table channel" if table else (self.person[owner].key if owner in self.person else owner)
            text = "\n".join([row.title, row.body, row.link])
            self.problems.add(f"ply {self.ply}: the {row.kind} notification #{row.id} to {who}",
                              self.concealed_for(reader).leaks(readings(text)))
        self.check_calendars()

    def check_calendars(self) -> None:
        """Each person's calendar feed of deadlines, read as that person reads it, whenever a
        deadline of theirs runs."""
        if self.state is None:
            return
        with unit_of_work() as s:
            feeds = [(uid, calendars.feed(s, s.get(User, uid))) for uid in self.person
                     if uid is not None and calendars.due_seats(s, s.get(User, uid))]
        for uid, body in feeds:
            self.note_kinds.add("calendar")
            self.problems.checked["calendars"] = self.problems.checked.get("calendars", 0) + 1
            self.problems.add(f"ply {self.ply}: the calendar feed of {self.person[uid].key}",
                              self.concealed_for(uid).leaks(readings(body.decode("utf-8"))))

    def check_mail(self) -> None:
        self.check_notifications()
        with unit_of_work() as s:
            rows = list(s.exec(select(Outbound).where(Outbound.id > self.last_mail).order_by(Outbound.id)))
        for row in rows:
            self.last_mail = row.id
            uid = self.user_of(row.to_addr)
            for token in LOGIN_LINK.findall(row.body_text) if row.kind == "login" else []:
                self.login[token] = uid
            # the board drawing the mail shows as its picture, read as its SVG: every word it draws
            picture = picture_svg(row.picture_key, self.drawn)
            text = "\n".join([row.subject, row.body_text, row.body_html or "", *map(str, row.headers.values()),
                              picture])
            self.pictures += bool(picture)
            self.mail_rows[row.id] = (row.to_addr, "\n".join([row.subject, row.body_text, row.body_html or ""]))
            self.mail_kinds.add(row.kind)
            # what the mail is about: its first line under the marker
            about = row.body_text.split(MARKER + "\n\n", 1)[-1].split("\n", 1)[0]
            self.mail_firsts.append((row.to_addr, row.subject + " | " + about))
            self.html_mails += row.body_html is not None
            self.problems.checked["mails"] += 1
            if self.state is None:
                continue  # before the start: login mails, nothing of a game to hide yet but others' links
            who = self.person[uid].key if uid in self.person else row.to_addr
            self.problems.add(f"ply {self.ply}: the {row.kind} mail #{row.id} to {who} ({row.subject!r})",
                              self.concealed_for(uid).leaks(readings(text)))

    # ------------------------------------------------------------ acting through the front doors

    def web(self, who: Person, path: str, form: dict):
        """A form sent as the person's browser sends it (with the CSRF token of their session)."""
        if who.csrf is None:
            who.csrf = who.client.token()
        r = who.client.client.post(path, data={**form, "csrf_token": who.csrf})
        assert r.status_code < 500, (path, r.status_code)
        self.sync()
        return r

    def manage(self, who: Person, **form):
        return self.web(who, f"/games/{self.game_id}/manage", form)

    def mail(self, who: Person, body: str, *, to: str | None = None) -> None:
        if to is None:
            seat = self.seat_of(who.user_id)
            to = f"game-{self.game_id}.{self.seats[seat].token}@pbem.test"
        process(who.email, to, body, subject=f"Re: [pbem #{self.game_id}]")
        self.sync()

    def to_move(self) -> list[int]:
        return sorted(self.engine.to_move(self.state)) if self.status == "running" else []

    def batch(self, seat: int, most: int) -> list[str]:
        """Up to ``most`` moves of ``seat`` in a row, as one mail or form would carry them (never past
        what the seat cannot know yet: a move that reveals ends it)."""
        st, texts = self.state, []
        while len(texts) < most and seat in self.engine.to_move(st):
            move = self.choose(self.rng, self.engine.legal_moves(st, seat))
            texts.append(self.engine.format_move(st, seat, move))
            after = self.engine.apply(st, seat, move)
            if self.engine.reveals(st, after):
                break
            st = after
        return texts

    def play(self, seat: int, *, door: str = "web", most: int = 1) -> list[str]:
        """``seat``'s next moves, through a front door: the game page's form, a reply mail, or a
        pre-move that is due at once (NEXT: on the management page)."""
        texts = self.batch(seat, most)
        who = self.holder(seat)
        if door == "web":
            self.web(who, f"/games/{self.game_id}/move", {"text": "\n".join(texts), "ply": str(self.ply)})
        elif door == "mail":
            self.mail(who, "\n".join(texts) + "\n\nThanks,\n" + self.user[who.user_id])
        else:
            self.manage(who, action="next", text=texts[0])
        return texts

    def bots(self) -> None:
        """A bot plays the seats it holds, each move in its own transaction as the worker does."""
        while True:
            with unit_of_work() as s:
                if bots.play_one(s, self.game_id) is None:
                    break
            self.sync()

    def step(self, door: str | None = None, most: int = 3) -> None:
        """One action: a bot's moves, or a person's moves through a door chosen at random."""
        if any(self.seats[k].is_bot for k in self.to_move()):
            return self.bots()
        seat = self.rng.choice(self.to_move())
        self.play(seat, door=door or self.rng.choices(["web", "mail", "next"], [6, 3, 1])[0],
                  most=self.rng.randint(1, most))

    def talk(self, n: int) -> None:
        """Table talk and private posts, by the game page, the management page and mail."""
        seated = [self.holder(k) for k in sorted(self.seats) if self.holder(k) is not None]
        # each talk from the next seat to the one after it (not drawn at random): every recipient, the
        # digest reader and those mailed at once, gets a private word, whatever else the scenario mailed
        frm, to = seated[n % len(seated)], seated[(n + 1) % len(seated)]
        tag = f"{self.rng.getrandbits(40):010x}"
        to_seat = self.seat_of(to.user_id)
        door = n % 3
        if door == 0:
            self.web(frm, f"/games/{self.game_id}/posts",
                     {"body": f"whisper {tag} for {to.key}", "to_seat": str(to_seat)})
            self.web(frm, f"/games/{self.game_id}/posts", {"body": f"table talk {tag}"})
        elif door == 1:
            self.manage(frm, action="say", to=self.user[to.user_id], text=f"psst {tag}, just for you")
            self.manage(frm, action="say", to="", text=f"hello all {tag}")
        else:
            self.mail(frm, f"SAY {to_seat + 1}: secret plan {tag}\nSAY good game, all {tag}")

    def resign_and_replace(self, seat: int, checkpoint=None) -> None:
        """The seat's player resigns (a bot plays on), then a replacement takes the seat over."""
        self.former = self.holder(seat)
        address = f"game-{self.game_id}.{self.seats[seat].token}@pbem.test"
        self.manage(self.former, action="next", text=f"my plan {self.rng.getrandbits(40):010x}")  # kept, never legal
        self.manage(self.former, action="resign", confirm="yes")
        self.former.key = "former player"
        self.mail(self.former, "\n".join(["STATUS", *self.batch(seat, 1)]), to=address)  # to the seat, as before
        if checkpoint:  # every route as the player who has just resigned, while a bot holds the seat
            checkpoint("after the resignation", [self.former])
        self.bots()
        self.manage(self.rex, action="replace", seat=str(seat + 1))
        assert self.seat_of(self.rex.user_id) == seat

    def reminders(self) -> None:
        """What the deadline sweep does a little before the earliest deadline: the reminders, and
        the daily digests (deadlines.run, less its check for an outage, which a clock moved on
        would take for one)."""
        due = [clocks.aware(x.deadline_at) for x in self.seats.values() if x.deadline_at is not None]
        now = min(due) - timedelta(minutes=5) if due else utcnow()
        with unit_of_work() as s:
            deadlines.sweep_game(s, self.game_id, now)
        with unit_of_work() as s:
            messages.send_digests(s, now)
        self.sync()

    def boards(self) -> None:
        """Every seat's board mailed, as after a move (services.notify.queue_boards)."""
        from pbem.services.core import notify
        from pbem.store.models import Game

        with unit_of_work() as s:
            notify.queue_boards(s, s.get(Game, self.game_id), "The board", essential=True)
        self.sync()

    def premoves(self) -> None:
        """Pre-moves by mail for a seat to move now, so they are played at once: NEXT, then an
        IF whose condition (the move before) does not hold."""
        for body in ("NEXT: {}", "IF no such move THEN {}"):
            seat = next((k for k in self.to_move() if self.holder(k) is not None), None)
            if seat is not None:
                self.mail(self.holder(seat), body.format(self.batch(seat, 1)[0]))

    def dispute(self) -> None:
        who = next(p for p in self.people() if self.seat_of(p.user_id) is not None)
        self.manage(who, action="dispute", ply=str(max(1, self.ply)), text="I think that card was misread")

    def undo(self) -> None:
        """The last mover asks to take their move back; every other player agrees."""
        seat = self.live[-1][1]
        asker = self.holder(seat)
        if asker is None:
            return
        self.manage(asker, action="undo")
        for k in sorted(self.seats):
            if k != seat and self.holder(k) is not None:
                self.manage(self.holder(k), action="undo-yes")

    def rollback(self) -> None:
        """An admin settles the open dispute: back one ply, and the same move again."""
        with unit_of_work() as s:
            d = s.exec(select(Dispute.id).where(Dispute.game_id == self.game_id, Dispute.status == "open")).first()
        if d is None:
            return
        ply, seat, notation = self.live[-1]
        form = {"action": "rollback", "ply": str(ply - 1), "text": f"{seat + 1}: {notation}", "reason": "misread",
                "confirm": "yes"}
        self.web(self.ada, f"/admin/disputes/{d}", form)

    def force(self) -> None:
        """An admin plays a move for a seat to move."""
        seat = next((k for k in self.to_move() if not self.seats[k].is_bot), None)
        if seat is not None:
            self.manage(self.ada, action="force", seat=str(seat + 1), text=self.batch(seat, 1)[0],
                        reason="the player asked us to", confirm="yes")

    def commands(self) -> None:
        """Mail to the command address: the stranger observes and asks for the board, a player
        for a new reply address."""
        self.mail(self.sam, f"OBSERVE {self.game_id}\nSTATUS {self.game_id}", to=CMD)
        player = next(p for p in self.people() if self.seat_of(p.user_id) is not None)
        self.mail(player, f"NEWADDRESS {self.game_id}", to=CMD)
        # the tournament by mail: its round, tables and standings, to a stranger and to a player
        self.mail(self.sam, f"TOURNAMENT STATUS {self.league_id}\nTOURNAMENT STANDINGS {self.league_id}", to=CMD)
        self.mail(player, f"TOURNAMENT STATUS {self.league_id}\nTOURNAMENT LIST", to=CMD)

    # ------------------------------------------------------------ every route, as every person

    def checkpoint(self, label: str, people: list[Person] | None = None) -> None:
        self.sync()
        with unit_of_work() as s:
            inbound = list(s.exec(select(Inbound.id, Inbound.raw).order_by(Inbound.id.desc()).limit(1)))
            disputes = list(s.exec(select(Dispute.id).where(Dispute.game_id == self.game_id)))
            post_ids = list(s.exec(select(Post.id).where(Post.game_id == self.game_id)))
        with unit_of_work() as s:
            unused = set(s.exec(select(LoginToken.token_hash).where(LoginToken.used_at.is_(None))))
        live = [t for t in self.login if auth.hash_token(t) in unused]
        plies = sorted({0, self.ply, self.rng.randint(0, self.ply), *self.record.secret[:1]})
        cut = "|".join(map(re.escape, self.tokens))
        sweep = Sweep(
            game_id=self.game_id, static_files=sorted(p.name for p in STATIC.iterdir()), game_names=sorted(GAMES),
            login_tokens=self.rng.sample(live, 1), inbound_ids=[i for i, _ in inbound], dispute_ids=disputes,
            mail_rows=self.mail_rows, plies=plies, after=[0, max(post_ids, default=3) - 3], rng=self.rng,
            inbound_text={i: re.sub(cut, "", raw.decode("utf-8", "replace"), flags=re.I) for i, raw in inbound})
        for who in people or self.people():
            hidden_now = self.concealed_for(who.user_id)
            for a in sweep.answers(self.app, who):
                self.problems.checked["answers"] += 1
                if a.status >= 500:
                    self.problems.found.append(f"{label}: {a.where} answers {a.status} to {who.key}")
                c = hidden_now.without(a.allowed) if a.allowed else hidden_now
                self.problems.add(f"{label} (ply {self.ply}): {who.key} reads in {a.where}",
                                  c.leaks(readings(a.text)))
        c = self.problems.checked
        c["checkpoints"] += 1
        if self.record.secret:  # how many plies were secret, and since how long, when everything was asked
            c["secret plies"] = max(c["secret plies"], len(self.record.secret))
            c["deepest secret"] = max(c["deepest secret"], self.ply - min(self.record.secret) + 1)


def picture_svg(key: str | None, drawn: dict | None = None) -> str:
    """The SVG of a mail's board drawing ("" without one). A picture's key is the hash of what it
    draws (store/outbox.store_picture): ``drawn`` keeps each one drawn by its key, and the seats' and
    observers' mails of one board, which share it, are drawn once."""
    from pbem.store.models import Picture

    if key is None:
        return ""
    if drawn is not None and key in drawn:
        return drawn[key]
    from pbem.mail.pictures import draw

    with unit_of_work() as s:
        row = s.get(Picture, key)
        svg = "" if row is None else row.svg or draw(row.game, row.view)
    if drawn is not None and svg:
        drawn[key] = svg
    return svg
