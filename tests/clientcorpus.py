"""The games behind the client corpus (tests/fixtures/eml/clients/).

Every reply in the corpus answers a mail of its own small world: its own
users (addresses no other file uses) and its own game, brought to the
position the reply is written at. A world is a list of steps (JSON, kept in
the manifest). ``make_clients.py`` runs the steps by mail through the real
pipeline and keeps the mails pbem sent; the corpus test runs the same steps
straight through the services, which leaves the same state (same game ids,
seeds, seat tokens, moves, posts, names) without the cost of the mails, and
checks that it does (``fingerprint``).

Steps:
  ["register", who, name]                 REGISTER <name> (creates the account)
  ["new", who, game, seed, players]       NEW <game> [players=N]; game refs count from 0
  ["join", who, ref]                      JOIN <id>
  ["tokens", ref, {who: token}]           the seats' reply tokens set to fixed values
  ["start", who, ref]                     START <id>
  ["moves", who, ref, [notation, ...]]    moves on the seat's address
  ["say", who, ref, text]                 SAY <text> on the seat's address
  ["stop", who, on]                       STOP / STOP OFF
  ["addbot", who, ref, level]             BOT <id> [level]: a bot in the next free seat
  ["policy", who, ref, policy, level]     POLICY <id> <policy> [level] (the game master)
  ["bot", ref]                            the bot seats to move play, until none is (services/turns/bots.py
                                          play_bots, synchronously: no mail; a bot's moves are seeded by
                                          the game's seed and ply, so both drivers get the same ones)
  ["mail", who, where, [step, ...]]       several of the above in one mail
                                          (where: "command" or a game ref)
"""
from __future__ import annotations

import base64
import hashlib
import json
from pathlib import Path

from sqlmodel import select

from pbem.store.db import unit_of_work
from pbem.store.models import Game, Seat, User

CORPUS = Path(__file__).resolve().parent / "fixtures" / "eml" / "clients"
MANIFEST = CORPUS / "manifest.json"


def token_for(slug: str, who: str) -> str:
    """A seat's fixed reply token: 32 base32 characters, like games.new_token."""
    return base64.b32encode(hashlib.sha256(f"{slug}:{who}".encode()).digest()[:20]).decode().lower()


def load_manifest() -> dict:
    return json.loads(MANIFEST.read_text(encoding="utf-8"))


# ------------------------------------------------------------------ drivers


class ServiceDriver:
    """Runs the steps through the services, in one transaction per step."""

    def __init__(self):
        self.games: list[int] = []

    def user(self, s, who: str) -> User:
        from pbem.services.core import accounts

        u = accounts.find_user(s, who)
        assert u is not None, f"no user {who}"
        return u

    def run(self, step: list) -> None:
        if step[0] == "bot":
            self.play_bots(step[1])
            return
        with unit_of_work() as s:
            self._apply(s, step)

    def play_bots(self, ref: int) -> None:
        """The bots' moves, each chosen and played in transactions of their own, as the worker's
        bot_move task plays them (the task the services enqueue is not run here)."""
        from pbem.services.turns import bots

        assert bots.play_bots(self.games[ref]), f"no bot was to move in game ref {ref}"

    def _apply(self, s, step: list) -> None:
        from pbem.services.core import accounts, games, lifecycle, moves, seating
        from pbem.services.follow import messages
        from pbem.services.lobby import tables
        from pbem.services.referee import master
        from pbem.services.turns import bots
        from pbem.services.core.errors import UserError

        kind = step[0]
        if kind == "register":
            try:
                accounts.register(s, step[1], step[2], confirmed=True)
            except UserError as e:
                # Each world has its own "Ann", and a group's worlds share one database here: they
                # share the name as accounts from before names were unique may (migration 0010 keeps
                # them; the later ones hold no name key)
                assert e.code == "name_taken", e
                user = accounts.find_user(s, step[1]) or User(email=step[1], confirmed=True)
                user.name, user.name_key = step[2], None
                s.add(user)
                s.flush()
        elif kind == "new":
            _, who, game, seed, players = step
            g = tables.create(s, self.user(s, who), game, players, {}, seed=seed)
            self.games.append(g.id)
        elif kind == "join":
            tables.join(s, self.user(s, step[1]), self.games[step[2]])
        elif kind == "tokens":
            set_tokens(s, self.games[step[1]], step[2])
        elif kind == "start":
            g = games.get(s, self.games[step[2]], lock=True)
            lifecycle.start(s, g, by=self.user(s, step[1]))
        elif kind == "moves":
            _, who, ref, notations = step
            u = self.user(s, who)
            seat = seating.seat_of(s, self.games[ref], u.id)
            res = moves.submit_moves(s, self.games[ref], seat.seat, notations, source="mail", user_id=u.id)
            assert res.ok and len(res.applied) == len(notations), (step, res.error)
        elif kind == "say":
            _, who, ref, text = step
            messages.say(s, self.user(s, who), games.get(s, self.games[ref]), text, source="mail")
        elif kind == "stop":
            messages.stop(s, self.user(s, step[1]), step[2])
        elif kind == "addbot":
            bots.add_bot(s, self.user(s, step[1]), self.games[step[2]], step[3])
        elif kind == "policy":
            _, who, ref, policy, level = step
            master.set_policy(s, self.user(s, who), games.get(s, self.games[ref], lock=True), policy, level=level)
        elif kind == "mail":
            for sub in step[3]:
                self._apply(s, sub)
        else:
            raise ValueError(step)


def set_tokens(s, game_id: int, tokens: dict[str, str]) -> None:
    for seat in s.exec(select(Seat).where(Seat.game_id == game_id)):
        user = s.get(User, seat.user_id)
        seat.token = tokens[user.email]  # every seat: a bot's too (its token is in the fingerprint)
        s.add(seat)
    s.flush()


class MailDriver(ServiceDriver):
    """Runs the steps as mails through the real pipeline, in process (the
    generator): each step is a mail from its user, and what pbem answered
    is in the outbox. The seed of a new game is set right after NEW (by mail
    it is drawn at random) and the tokens once everyone has joined."""

    def __init__(self, cfg):
        super().__init__()
        self.cfg = cfg
        self.last_inbound: int | None = None

    def seat_address(self, ref: int, who: str) -> str:
        with unit_of_work() as s:
            u = self.user(s, who)
            seat = s.exec(select(Seat).where(Seat.game_id == self.games[ref], Seat.user_id == u.id)).one()
            return f"game-{self.games[ref]}.{seat.token}@{self.cfg.domain}"

    def line(self, step: list) -> str:
        kind = step[0]
        if kind == "register":
            return f"REGISTER {step[2]}"
        if kind == "new":
            return f"NEW {step[2]}" + (f" players={step[4]}" if step[4] else "")
        if kind == "join":
            return f"JOIN {self.games[step[2]]}"
        if kind == "start":
            return f"START {self.games[step[2]]}"
        if kind == "moves":
            return "\n".join(step[3])
        if kind == "say":
            return f"SAY {step[3]}"
        if kind == "stop":
            return "STOP" if step[2] else "STOP OFF"
        if kind == "addbot":
            return f"BOT {self.games[step[2]]}" + (f" {step[3]}" if step[3] else "")
        if kind == "policy":
            return f"POLICY {self.games[step[2]]} {step[3]}" + (f" {step[4]}" if step[4] else "")
        raise ValueError(step)

    def run(self, step: list) -> None:
        from tests.mailtools import process

        kind = step[0]
        if kind == "bot":
            self.play_bots(step[1])
            return
        if kind == "tokens":
            with unit_of_work() as s:
                set_tokens(s, self.games[step[1]], step[2])
            return
        if kind == "mail":
            who, where, subs = step[1], step[2], step[3]
        else:
            who, subs = (step[1], [step])
            where = step[2] if kind in ("moves", "say") else "command"
        rcpt = self.cfg.command_address if where == "command" else self.seat_address(where, who)
        body = "\n".join(self.line(sub) for sub in subs)
        for sub in subs:
            if sub[0] == "register":
                self.share_name(sub[1], sub[2])
        before = self._last_game()
        self.last_inbound, status = process(who, rcpt, body, subject="pbem")
        assert status == "done", (step, status)
        for sub in subs:
            if sub[0] == "register":
                self.fixed_calendar_key(sub[1])
        for sub in subs:
            if sub[0] == "new":
                with unit_of_work() as s:
                    g = s.exec(select(Game).where(Game.id > before).order_by(Game.id)).first()
                    assert g is not None, f"NEW did not create a game: {step}"
                    before = g.id
                    if sub[3] is not None:
                        g.seed = sub[3]
                        s.add(g)
                self.games.append(g.id)

    @staticmethod
    def share_name(who: str, name: str) -> None:
        """Each world has its own "Ann", and a group's worlds share one database: by mail, a second
        REGISTER Ann would be refused (names are unique since migration 0010). The holders of the
        name before keep it as accounts from before names were unique do (no name key), so the REGISTER
        goes through as it did when the corpus was first written ("welcome, Ann"), and the worlds end
        as the ServiceDriver leaves them (the same names; which holder has the key is not in a mail)."""
        from pbem.store import names

        key = names.key(name)
        with unit_of_work() as s:
            for user in s.exec(select(User).where(User.name_key == key, User.email != who)):
                user.name_key = None
                s.add(user)

    @staticmethod
    def fixed_calendar_key(who: str) -> None:
        """The account's calendar key (random when it is made) set from its address: the boards'
        "Add this deadline to your calendar" links carry it, and the corpus must not change by chance."""
        with unit_of_work() as s:
            user = s.exec(select(User).where(User.email == who)).one()
            user.calendar_key = token_for("calendar", who)[:24]
            s.add(user)

    @staticmethod
    def _last_game() -> int:
        with unit_of_work() as s:
            return s.exec(select(Game.id).order_by(Game.id.desc())).first() or 0


def build_world(driver: ServiceDriver, steps: list[list]) -> list[int]:
    for step in steps:
        driver.run(step)
    return list(driver.games)


def with_closing(engine, state, seat: int, moves: list[str]) -> list[str]:
    """The moves a mail of ``moves`` applies: them, the moves the order leaves unsaid (the engine's
    implied_move: Squire's "offers none" when the mail goes on past the offers question), and the
    move the services add when the rules end the order without asking (the engine's closing_move:
    It's a Wonderful World §6)."""
    implied = getattr(engine, "implied_move", None)
    out: list[str] = []
    order: list = []

    def unsaid(text):
        nonlocal state
        found = implied(state, seat, tuple(order), text) if implied and seat in engine.to_move(state) else None
        if found is not None:
            out.append(engine.format_move(state, seat, found.move))
            state = engine.apply(state, seat, found.move)
            order.append(found.move)

    for text in moves:
        unsaid(text)
        move = engine.parse_move(state, seat, text)
        out.append(text)
        state = engine.apply(state, seat, move)
        order.append(move)
    unsaid(None)
    closing = getattr(engine, "closing_move", None)
    move = closing(state, seat) if closing is not None and seat in engine.to_move(state) else None
    return out + ([engine.format_move(state, seat, move)] if move is not None else [])


def fingerprint(game_id: int) -> dict:
    """What a reply depends on: the game's position and its seats' tokens."""
    from pbem.services.core import games, seating

    with unit_of_work() as s:
        g = games.get(s, game_id)
        state = games.state_at(s, g) if g.status != "open" else None
        engine = games.engine_for(g)
        seats = {s.get(User, x.user_id).email: [x.seat, x.token] for x in seating.seats(s, game_id)}
        digest = hashlib.sha256(json.dumps(engine.to_json(state), sort_keys=True, default=str).encode()).hexdigest() \
            if state is not None else None
        return {"game": g.game, "status": g.status, "ply": g.ply, "seed": g.seed, "state": digest, "seats": seats}
