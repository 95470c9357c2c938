"""The permission table of docs/SECURITY.md, row by row, on SQLite and
PostgreSQL: for every route (and every action of the management form), each
of the six kinds of people either gets it done or is refused -- with the
status the table's kind of refusal has, a message that says what was wrong,
and not one row of the database changed. The URL map is read too: a route
that the table does not list fails here.

One database per backend for the whole module (made once, like ``any_cfg``'s
two): every row works on games of its own, so rows do not meet."""
from __future__ import annotations

import re
import uuid
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import Callable

import pytest
from sqlalchemy import select as sa_select
from sqlmodel import SQLModel

from pbem.services.core import games, moves, sessions
from pbem.services.follow import messages
from pbem.services.identity import auth, confirmations
from pbem.services.lobby import seats, tables
from pbem.services.referee import disputes, master, undo
from pbem.store.db import get_engine, unit_of_work
from pbem.store.models import Inbound, Invitation, Outbound, User, utcnow
from pbem.web import create_app
from tests.conftest import _drop_database, _migrate_once, _pg_database, installed, make_settings
from tests.mailtools import mail, store_inbound
from tests.web.conftest import Browser, make_user, session_secret

SECURITY = Path(__file__).resolve().parents[2] / "docs" / "SECURITY.md"
ROLES = ("visitor", "stranger", "observer", "player", "creator", "admin")
ROW_RE = re.compile(r"^\|[^|]*\| `(GET|POST) ([^`]+)`(?: action=([\w-]+))? \|")


def table_rows() -> set[tuple[str, str, str | None]]:
    return {m.groups() for m in map(ROW_RE.match, SECURITY.read_text().splitlines()) if m}


# ---------------------------------------------------------------- the world: six people, fresh games per row


@dataclass
class World:
    cfg: object
    app: object
    ids: dict[str, int]
    browsers: dict[str, Browser] = field(default_factory=dict)
    n: int = 0

    def user(self, role):
        with unit_of_work() as s:
            return s.get(User, self.ids[role])

    def game(self, kind: str) -> int:
        """A new game: "open" (3 seats, the creator's and the player's taken), "running" (2 seats, both
        have passed once: the creator is to move again; the observer observes), "undo" (running, the
        player asked to take back a move), "seat-open" (running, an admin opened the player's seat),
        "takeback" (Spyrium, running: the creator has played an event whose choice is still to make,
        so the turn goes on and the move may be taken back; the observer observes), "hints" (Spyrium with
        hints=on, running: the creator is to move; the observer observes)."""
        self.n += 1
        with unit_of_work() as s:
            creator, player = s.get(User, self.ids["creator"]), s.get(User, self.ids["player"])
            if kind in ("takeback", "hints"):
                g = tables.create(s, creator, "spyrium", 2, {}, seed=1,  # the creator (seat 1) moves first
                                  hints=kind == "hints")
            else:
                g = tables.create(s, creator, "mini", 3 if kind == "open" else 2, {"hand": "3"}, seed=self.n)
            tables.join(s, player, g.id)
            gid = g.id
        if kind == "open":
            return gid
        if kind in ("takeback", "hints"):
            with unit_of_work() as s:
                if kind == "takeback":
                    assert moves.submit_moves(s, gid, 0, ["event"], source="web").ok
                messages.observe(s, s.get(User, self.ids["observer"]), games.get(s, gid))
            return gid
        for seat in (0, 1):
            with unit_of_work() as s:
                assert moves.submit_moves(s, gid, seat, ["wait"], source="web").ok
        with unit_of_work() as s:
            messages.observe(s, s.get(User, self.ids["observer"]), games.get(s, gid))
            if kind == "undo":
                undo.request(s, s.get(User, self.ids["player"]), gid)
            if kind == "seat-open":
                seats.open_seat(s, s.get(User, self.ids["admin"]), games.get(s, gid), 2, "gone for good")
            if kind == "paused":  # paused by its game master, the creator
                master.pause(s, s.get(User, self.ids["creator"]), games.get(s, gid))
            if kind == "abort":  # its game master (the creator, seated: agreed) proposes to end it
                master.propose_end(s, s.get(User, self.ids["creator"]), games.get(s, gid))
        return gid


@pytest.fixture(scope="module", params=["sqlite", "postgres"])
def world_db(request, tmp_path_factory):
    """The backend's database, made and filled once for the module, with its log of changed rows, and the
    site on it (its settings are installed anew for each test by ``world``: tests of other modules may run
    in between on the same worker). The site keeps nothing of a request's: sessions and what a person has
    asked for are the database's and the browsers' cookies, and each test has browsers of its own."""
    tmp = tmp_path_factory.mktemp(f"perm-{request.param}")
    admin = name = None
    over = {}
    if request.param == "postgres":
        admin, name, url = _pg_database(template=_migrate_once("postgres"))
        over["database_url"] = url
    cfg = make_settings(tmp, **over)
    try:
        with installed(cfg, migrated=request.param == "postgres"):
            cfg.var_dir.mkdir(parents=True, exist_ok=True)
            _install_change_log()
            ids = {role: make_user(f"{role}@example.org", role.title(), admin=role == "admin")
                   for role in ROLES if role != "visitor"}
            app = create_app(cfg)
            app.config["TESTING"] = True
        yield cfg, ids, app
    finally:
        if admin is not None:
            _drop_database(admin, name)


@pytest.fixture
def world(world_db):
    cfg, ids, app = world_db
    with installed(cfg, migrated=True):  # by world_db
        w = World(cfg, app, ids)
        with unit_of_work() as s:  # sessions of this test's own: a row may end them (logout)
            sids = {role: sessions.start(s, s.get(User, uid)) for role, uid in ids.items()}
        for role in ROLES:
            w.browsers[role] = _browser(app, role)
            if role in sids:
                with w.browsers[role].client.session_transaction() as sess:
                    sess["sid"] = sids[role]
        yield w


def _browser(app, role: str) -> Browser:
    """A browser of ``role``'s, from an address of its own: the links asked for by one client are
    capped (services/identity/auth.LINKS_PER_CLIENT), and six people are six clients."""
    b = Browser(app)
    b.client.environ_base["REMOTE_ADDR"] = f"192.0.2.{ROLES.index(role) + 10}"
    return b


CHANGES = "perm_row_changes"  # the module's database only: every change of a row, written by triggers


def _install_change_log() -> None:
    """Triggers on every table of the models (the ones a snapshot of every row would read) that write each
    row's change into one log table: its table, its key and the row before and after (a session's
    last-seen time aside: reading a page may touch it). An UPDATE that leaves every other column as it was
    writes nothing (a rewrite of the same values is no change, as a comparison of every row before and
    after would find too)."""
    engine = get_engine()
    tables = [(t.name, [c.name for c in t.primary_key.columns], [c.name for c in t.c if c.name != "last_seen_at"])
              for t in SQLModel.metadata.sorted_tables]
    with engine.begin() as conn:
        if engine.dialect.name == "sqlite":
            conn.exec_driver_sql(f"CREATE TABLE {CHANGES} (id INTEGER PRIMARY KEY, tbl TEXT NOT NULL, "
                                 "old_key TEXT, new_key TEXT, old_row TEXT, new_row TEXT)")
            for name, (key,), cols in tables:
                # quote() writes any value as SQL text (a blob as X'..', NULL as NULL): one string per row
                def row(of):
                    return " || ',' || ".join(f'quote({of}."{c}")' for c in cols)

                def log(old, new):
                    return (f"INSERT INTO {CHANGES} (tbl, old_key, new_key, old_row, new_row) VALUES ('{name}', "
                            + ", ".join(f'quote({o}."{key}")' if o else "NULL" for o in (old, new)) + ", "
                            + ", ".join(row(o) if o else "NULL" for o in (old, new)) + ")")

                conn.exec_driver_sql(f'CREATE TRIGGER {CHANGES}_{name}_i AFTER INSERT ON "{name}" '
                                     f"BEGIN {log(None, 'NEW')}; END")
                conn.exec_driver_sql(f'CREATE TRIGGER {CHANGES}_{name}_u AFTER UPDATE ON "{name}" '
                                     f"WHEN {row('OLD')} IS NOT {row('NEW')} BEGIN {log('OLD', 'NEW')}; END")
                conn.exec_driver_sql(f'CREATE TRIGGER {CHANGES}_{name}_d AFTER DELETE ON "{name}" '
                                     f"BEGIN {log('OLD', None)}; END")
        else:
            conn.exec_driver_sql(f"CREATE TABLE {CHANGES} (id bigserial PRIMARY KEY, tbl text NOT NULL, "
                                 "old_key text, new_key text, old_row text, new_row text)")
            # a row as jsonb compares as the driver's values would (a JSON column by its content, not its
            # spelling); its text is jsonb's one spelling, so its digest stands for it
            conn.exec_driver_sql(f"""
                CREATE FUNCTION {CHANGES}() RETURNS trigger LANGUAGE plpgsql AS $$
                DECLARE o jsonb; n jsonb;
                BEGIN
                    IF TG_OP <> 'INSERT' THEN o := to_jsonb(OLD) - 'last_seen_at'; END IF;
                    IF TG_OP <> 'DELETE' THEN n := to_jsonb(NEW) - 'last_seen_at'; END IF;
                    IF o IS DISTINCT FROM n THEN
                        INSERT INTO {CHANGES} (tbl, old_key, new_key, old_row, new_row)
                        VALUES (TG_TABLE_NAME, o ->> TG_ARGV[0], n ->> TG_ARGV[0], md5(o::text), md5(n::text));
                    END IF;
                    RETURN NULL;
                END $$""")
            for name, (key,), _ in tables:
                conn.exec_driver_sql(f'CREATE TRIGGER {CHANGES} AFTER INSERT OR UPDATE OR DELETE ON "{name}" '
                                     f"FOR EACH ROW EXECUTE FUNCTION {CHANGES}('{key}')")


def forget_changes() -> None:
    """Start the log anew: what ``changed_rows`` tells is what changed after this."""
    with get_engine().begin() as conn:
        conn.exec_driver_sql(f"DELETE FROM {CHANGES}")


def changed_rows() -> set[tuple[str, str]]:
    """(table, key) of every row that is not what it was at ``forget_changes``: made, gone or with
    another value in a column. A row changed and changed back, or made and deleted again, is as it was."""
    with get_engine().connect() as conn:
        log = conn.exec_driver_sql(f"SELECT tbl, old_key, new_key, old_row, new_row FROM {CHANGES} "
                                   "ORDER BY id").all()
    rows: dict[tuple[str, str], list] = {}  # (table, key) -> [the row at the start, the row now]
    for table, old_key, new_key, old, new in log:
        if old_key is not None and new_key is not None and old_key != new_key:  # a new key: gone, and made
            halves = [(old_key, old, None), (new_key, None, new)]
        else:
            halves = [(new_key if old_key is None else old_key, old, new)]
        for key, before, after in halves:
            rows.setdefault((table, key), [before, None])[1] = after
    return {row for row, (start, now) in rows.items() if start != now}


# ---------------------------------------------------------------- the rows


@dataclass
class Row:
    url: str  # with {gid}, {token}, {row}, {dispute}, {inbound}
    allow: tuple[str, ...]
    refuse: dict[str, tuple[int, str]]  # role -> (status, a fragment of the message)
    data: dict = field(default_factory=dict)
    game: str | None = None  # the kind of game a try gets (World.game), if any
    prep: Callable | None = None  # (world, gid) -> more names for url/data
    changes: bool = True  # an allowed POST changes the database
    result: str = ""  # a fragment of an allowed try's answer
    fresh: tuple[str, ...] = ()  # roles played by a new account (the same relation to the game, nothing else)
    answers: tuple[int, ...] = (200, 302, 303)  # an allowed try's status


LOGIN = (302, "/login")  # to the login page, with "Please log in first"
LOGIN_401 = (401, "Log in first")
NO_SEAT_MOVE = (303, "observers cannot move")
ADMIN_ONLY = (403, "administrators only")
MANAGE_NOSEAT = (400, "no seat in game")
MANAGE_ADMIN = (400, "only an admin can do this")


def _everyone(url, **kw) -> Row:
    return Row(url, ROLES, {}, changes=False, **kw)


def _logged_in(url, *, visitor=LOGIN, **kw) -> Row:
    return Row(url, ROLES[1:], {"visitor": visitor}, **kw)


def _admin_only(url, *, visitor=LOGIN, other=ADMIN_ONLY, **kw) -> Row:
    return Row(url, ("admin",), {"visitor": visitor, **{r: other for r in ROLES[1:-1]}}, **kw)


def _manage(action, allow, refuse, game="running", data=None, **kw) -> Row:
    refuse = {"visitor": LOGIN_401, **refuse}
    return Row("/games/{gid}/manage", allow, refuse, data={"action": action, **(data or {})}, game=game, **kw)


def _link(w, gid):
    """A sign-up link of a new address: whoever holds it may open it."""
    with unit_of_work() as s:
        return {"token": auth.mail_link(s, f"new-{uuid.uuid4().hex[:10]}@example.org")}


def _confirmation(w, gid):
    """Commands held for an address (pipeline._gate): whoever holds the asking mail's link may answer it."""
    with unit_of_work() as s:
        return {"ctoken": confirmations.hold(s, email=f"held-{uuid.uuid4().hex[:10]}@example.org",
                                             commands=["REGISTER Held"], user_id=None)}


def _unsubscribe(w, gid):
    """A one-click unsubscribe link of a new user's mail: whoever holds it may use it."""
    from pbem.store.outbox import unsubscribe_link_token

    uid = make_user(f"unsub-{uuid.uuid4().hex[:10]}@example.org", f"Unsub {uuid.uuid4().hex[:6]}")
    return {"utoken": unsubscribe_link_token(uid, "board", w.cfg.secret_key)}


def _channels(w, gid):
    """Every person has a chat channel numbered 1, to save, test, switch on and remove."""
    from pbem.services.follow import channels

    with unit_of_work() as s:
        for uid in w.ids.values():
            user = s.get(User, uid)
            if not channels.mine(s, user):
                channels.add(s, user, f"discord://1234/tok{uid}", "")
    return {}


def _calendar(w, gid):
    """A new user's calendar feed key and the .ics link of a running game of theirs: whoever holds
    the address may read it."""
    from pbem.services.core import calendar_links

    uid = make_user(f"cal-{uuid.uuid4().hex[:10]}@example.org", f"Cal {uuid.uuid4().hex[:6]}")
    with unit_of_work() as s:
        user = s.get(User, uid)
        g = tables.create(s, user, "mini", 2, {"hand": "3"}, seed=5)
        return {"ckey": calendar_links.key_of(user), "cics": calendar_links.game_token(user, g.id)}


def _invited(w, gid):
    """Everyone of the world invited to the open game (the rows are made here, not mailed:
    pbem sends an address at most three invitations a day)."""
    with unit_of_work() as s:
        for role in ROLES[1:]:
            # made two hours ago: they must not count against the creator's invitations of the last hour,
            # which the row of the invitation form tries
            s.add(Invitation(game_id=gid, inviter_id=w.ids["creator"], email=f"{role}@example.org",
                             created_at=utcnow() - timedelta(hours=2)))
    return {}


def _player_page(w, gid):
    """A player's page: the player's, whose games are public."""
    return {"uid": w.ids["player"]}


def _tournament(w, gid):
    """A private tournament the creator directs, the observer is invited to and the player has entered:
    the visitor and the stranger are shown nothing of it."""
    from pbem.services.lobby.tournaments import season

    with unit_of_work() as s:
        t = season.create(s, s.get(User, w.ids["creator"]), "mini", table_size=2, access="private",
                          invited=["observer@example.org", "player@example.org"])
        season.join(s, s.get(User, w.ids["player"]), t.id)
        return {"tid": t.id}


NO_TOURNAMENT = (404, "no such page")
NOT_DIRECTOR = (303, "only the director of tournament")


def _tournament_ready(w, gid):
    """The private tournament with two entrants, the observer and the player: a round may start."""
    from pbem.services.lobby.tournaments import season

    names = _tournament(w, gid)
    with unit_of_work() as s:
        season.join(s, s.get(User, w.ids["observer"]), names["tid"])
    return names


def _tournament_running(w, gid):
    """The private tournament with its two entrants at their table of round 1."""
    from pbem.services.lobby.tournaments import season

    names = _tournament_ready(w, gid)
    with unit_of_work() as s:
        season.start_round(s, s.get(User, w.ids["creator"]), names["tid"])
    return names


def _tournament_and_player(w, gid):
    return {**_tournament(w, gid), "uid": w.ids["player"]}


def _dispute(w, gid):
    with unit_of_work() as s:
        return {"dispute": disputes.open_dispute(s, s.get(User, w.ids["player"]), gid, 1, "misread").id}


def _failed_inbound(w, gid):
    iid = store_inbound(mail("player@example.org", "pbem@pbem.test", "HELP"), "pbem@pbem.test")
    with unit_of_work() as s:
        row = s.get(Inbound, iid)
        row.status, row.error = "failed", "OperationalError: database is locked"
        s.add(row)
    return {"inbound": iid}


def _players_mail(w, gid):
    with unit_of_work() as s:
        auth.mail_link(s, "player@example.org")
        return {"row": s.exec(sa_select(Outbound.id).where(Outbound.to_addr == "player@example.org")
                              .order_by(Outbound.id.desc())).scalars().first()}


AT_TABLE = ("player", "creator", "admin")
MASTERS = ("creator", "admin")  # the game's master (its creator unless named) and every admin
NOT_MASTER = {r: (400, "only the game master of game") for r in ("stranger", "observer", "player")}
NOT_AT_TABLE = {"stranger": (303, "only the players of game"), "observer": (303, "only the players of game")}

ROWS: dict[tuple[str, str, str | None], Row] = {
    # -------- identity
    ("POST", "/signup", None): Row("/signup", ROLES, {}, data={"email": "someone-{uniq}@example.org"},
                                   result="Check your mail"),
    ("POST", "/login", None): Row("/login", ROLES, {}, data={"email": "{uniq}@example.org"}, result="Check your mail"),
    ("POST", "/auth/<token>", None): Row("/auth/{token}", ROLES, {}, data={"name": "Newcomer {role}"}, prep=_link,
                                         result="You are logged in"),
    ("POST", "/confirm/<token>", None): Row("/confirm/{ctoken}", ROLES, {}, data={"answer": "yes"},
                                            prep=_confirmation, result="Confirmed"),
    ("POST", "/unsubscribe/<token>", None): Row("/unsubscribe/{utoken}", ROLES, {}, prep=_unsubscribe,
                                                result="Unsubscribed"),
    ("POST", "/logout", None): Row("/logout", ROLES, {}, changes=False, result="logged out"),
    ("POST", "/logout/everywhere", None): _logged_in("/logout/everywhere", result="logged out everywhere"),
    # the language menu: a visitor's choice is a cookie, a user's is their own language
    ("POST", "/language", None): Row("/language", ROLES, {}, data={"language": "en", "next": "/lobby"},
                                     changes=False),
    ("POST", "/profile", None): _logged_in("/profile", data={"name": "{role} {gid}", "mail_format": "text",
                                                             "notify": "turn", "timezone": "UTC"}, game="open"),
    ("POST", "/profile/address", None): _logged_in("/profile/address", data={"email": "moved{gid}@example.org"},
                                                   game="open", result="your address changes when you open it"),
    ("POST", "/profile/vacation", None): Row(
        "/profile/vacation", ("player", "creator"),
        {"visitor": LOGIN, **{r: (303, "no open or running games") for r in ("stranger", "observer", "admin")}},
        data={"starts_on": "2099-01-01", "ends_on": "2099-01-03"}, game="running", result="noted",
        fresh=("stranger", "observer", "admin")),
    # the profile's chat channels, notification hours and calendar address: each person's own
    ("POST", "/profile/channels", None): _logged_in("/profile/channels", data={"url": "discord://1234/new{uniq}"},
                                                    result="Channel added"),
    ("POST", "/profile/channels/<int:n>", None): _logged_in("/profile/channels/1", data={"mode": "digest"},
                                                            prep=_channels, result="Channel 1 saved"),
    ("POST", "/profile/channels/<int:n>/test", None): _logged_in("/profile/channels/1/test", prep=_channels,
                                                                 result="A test message is on its way"),
    ("POST", "/profile/channels/<int:n>/on", None): _logged_in("/profile/channels/1/on", prep=_channels,
                                                               result="is on again"),
    ("POST", "/profile/channels/<int:n>/remove", None): _logged_in("/profile/channels/1/remove", prep=_channels,
                                                                   result="Channel 1 removed"),
    ("POST", "/profile/notification-hours", None): _logged_in(
        "/profile/notification-hours", data={"quiet_from": "22", "quiet_until": "7", "digest_hour": "8"},
        result="Notification hours saved"),
    ("POST", "/profile/calendar", None): _logged_in("/profile/calendar", result="Your calendar has a new address"),
    # -------- lobby and game
    ("POST", "/lobby/new", None): _logged_in("/lobby/new", data={"game": "spyrium", "players": "3",
                                                                 "deadline_hours": "48"}, result="created",
                                             fresh=ROLES[1:]),  # the fixture's games count against a quota
    ("POST", "/games/<int:game_id>/join", None): Row(
        "/games/{gid}/join", ("stranger", "observer", "admin"),
        {"visitor": LOGIN, "player": (303, "already have a seat"), "creator": (303, "already have a seat")},
        game="open", result="You have seat"),
    ("POST", "/games/<int:game_id>/start", None): Row(
        "/games/{gid}/start", ("creator",),
        {"visitor": LOGIN, **{r: (303, "only the creator") for r in ("stranger", "observer", "player", "admin")}},
        game="open", result="has started"),
    ("POST", "/games/<int:game_id>/invite", None): Row(
        "/games/{gid}/invite", AT_TABLE, {"visitor": LOGIN, **{r: (303, "invite others to it; you have no seat")
                                                             for r in ("stranger", "observer")}},
        data={"email": "friend-{role}@example.org"}, game="open", result="Invitation sent"),
    # invitations answered; a player removed before the start
    ("POST", "/games/<int:game_id>/accept", None): Row(
        "/games/{gid}/accept", ("stranger", "observer", "admin"),
        {"visitor": LOGIN, "player": (303, "already have a seat"), "creator": (303, "already have a seat")},
        game="open", prep=_invited, result="You have seat"),
    ("POST", "/games/<int:game_id>/decline", None): Row(
        "/games/{gid}/decline", ("stranger", "observer", "admin"),
        {"visitor": LOGIN, "player": (303, "already have a seat"), "creator": (303, "already have a seat")},
        game="open", prep=_invited, result="You have declined the invitation"),
    ("POST", "/games/<int:game_id>/remove", None): Row(
        "/games/{gid}/remove", ("creator", "admin"),
        {"visitor": LOGIN, **{r: (303, "only the creator of game") for r in ("stranger", "observer", "player")}},
        data={"seat": "2"}, game="open", result="is no longer in game"),
    # a bot of a chosen level in the next free seat
    ("POST", "/games/<int:game_id>/bot", None): Row(
        "/games/{gid}/bot", ("creator", "admin"),
        {"visitor": LOGIN, **{r: (303, "only the creator of game") for r in ("stranger", "observer", "player")}},
        data={"level": "strong"}, game="open", result="A bot (strong) has seat"),
    ("POST", "/games/<int:game_id>/move", None): Row(
        "/games/{gid}/move", ("creator",),
        {"visitor": LOGIN, "stranger": NO_SEAT_MOVE, "observer": NO_SEAT_MOVE, "admin": NO_SEAT_MOVE,
         "player": (303, "not your turn")}, data={"text": "wait"}, game="running", result="Applied: wait"),
    ("POST", "/games/<int:game_id>/takeback", None): Row(
        "/games/{gid}/takeback", ("creator",),
        {"visitor": LOGIN, **{r: (303, "no seat in game") for r in ("stranger", "observer", "admin")},
         "player": (303, "you have no move to take back")}, data={"ply": "1"}, game="takeback",
        result="Taken back: your move at ply 1, event"),
    # a practice game's hint, for the seat to move
    ("POST", "/games/<int:game_id>/hint", None): Row(
        "/games/{gid}/hint", ("creator",),
        {"visitor": LOGIN, **{r: (303, "you have no seat in game") for r in ("stranger", "observer", "admin")},
         "player": (303, "it is not your turn in game")}, game="hints", result="best moves for you are below"),
    ("POST", "/games/<int:game_id>/thread-show", None): _logged_in("/games/{gid}/thread-show", data={"show": "talk"},
                                                                 game="running"),
    ("POST", "/games/<int:game_id>/posts", None): Row(
        "/games/{gid}/posts", AT_TABLE, {"visitor": LOGIN, **NOT_AT_TABLE}, data={"body": "hello", "to_seat": "1"},
        game="running"),
    # -------- the management form
    ("POST", "/games/<int:game_id>/manage", "undo"): _manage(
        "undo", ("player", "creator"), {r: MANAGE_NOSEAT for r in ("stranger", "observer", "admin")},
        result="asked the others"),
    ("POST", "/games/<int:game_id>/manage", "undo-yes"): _manage(
        "undo-yes", ("creator",), {**{r: (400, "only the other players") for r in ("stranger", "observer", "admin")},
                                   "player": (400, "only the other players")}, game="undo"),
    ("POST", "/games/<int:game_id>/manage", "undo-no"): _manage(
        "undo-no", ("creator",), {**{r: (400, "only the other players") for r in ("stranger", "observer", "admin")},
                                  "player": (400, "only the other players")}, game="undo"),
    ("POST", "/games/<int:game_id>/manage", "dispute"): _manage(
        "dispute", AT_TABLE, {r: (400, "only the players of game") for r in ("stranger", "observer")},
        data={"ply": "1", "text": "the card was misread"}),
    ("POST", "/games/<int:game_id>/manage", "vacation"): _manage(
        "vacation", ("player", "creator"), {r: MANAGE_NOSEAT for r in ("stranger", "observer", "admin")},
        data={"starts": "2099-01-01", "ends": "2099-01-03"}),
    ("POST", "/games/<int:game_id>/manage", "say"): _manage(
        "say", AT_TABLE, {r: (400, "only the players of game") for r in ("stranger", "observer")},
        data={"text": "hello", "to": "2"}),
    ("POST", "/games/<int:game_id>/manage", "next"): _manage(
        "next", ("player", "creator"), {r: MANAGE_NOSEAT for r in ("stranger", "observer", "admin")},
        data={"text": "wait"}),
    ("POST", "/games/<int:game_id>/manage", "observe"): _manage(
        "observe", ROLES[1:], {}, changes=False, result="you observe this game"),
    ("POST", "/games/<int:game_id>/manage", "unobserve"): _manage(
        "unobserve", ROLES[1:], {}, changes=False, result="you no longer observe"),
    ("POST", "/games/<int:game_id>/manage", "resign"): _manage(
        "resign", ("player", "creator"), {r: MANAGE_NOSEAT for r in ("stranger", "observer", "admin")},
        data={"confirm": "yes"}, result="you have resigned"),
    ("POST", "/games/<int:game_id>/manage", "newaddress"): _manage(
        "newaddress", ("player", "creator"), {r: MANAGE_NOSEAT for r in ("stranger", "observer", "admin")},
        result="your seat has a new reply address"),
    ("POST", "/games/<int:game_id>/manage", "replace"): _manage(
        "replace", ("stranger", "observer", "admin"),
        {"player": (400, "already have a seat"), "creator": (400, "already have a seat")},
        data={"seat": "2"}, game="seat-open", result="you now play seat 2"),
    ("POST", "/games/<int:game_id>/manage", "vote-open"): _manage(
        "vote-open", ("player", "creator"),
        {r: (400, "only the players of game") for r in ("stranger", "observer", "admin")},
        data={"seat": "{other_seat}", "confirm": "yes"}, result="the seat is open"),  # two players: one vote opens it
    ("POST", "/games/<int:game_id>/manage", "open-seat"): _manage(
        "open-seat", ("admin",), {r: MANAGE_ADMIN for r in ROLES[1:-1]}, data={"seat": "2", "reason": "gone", "confirm": "yes"},
        result="seat opened"),
    ("POST", "/games/<int:game_id>/manage", "force"): _manage(
        "force", ("admin",), {r: MANAGE_ADMIN for r in ROLES[1:-1]},
        data={"seat": "1", "text": "wait", "reason": "stuck", "confirm": "yes"}, result="move forced"),
    ("POST", "/games/<int:game_id>/manage", "adjust"): _manage(
        "adjust", ("admin",), {r: MANAGE_ADMIN for r in ROLES[1:-1]},
        data={"seat": "2", "text": "bot", "reason": "away", "confirm": "yes"}, result="seat adjusted"),
    ("POST", "/games/<int:game_id>/manage", "undo-accept"): _manage(
        "undo-accept", ("admin",), {r: MANAGE_ADMIN for r in ROLES[1:-1]}, data={"reason": "fair", "confirm": "yes"}, game="undo",
        result="decided"),
    ("POST", "/games/<int:game_id>/manage", "undo-refuse"): _manage(
        "undo-refuse", ("admin",), {r: MANAGE_ADMIN for r in ROLES[1:-1]}, data={"reason": "no"}, game="undo",
        result="decided"),
    # -------- the game master: the creator here, and every admin
    ("POST", "/games/<int:game_id>/manage", "master-deadline"): _manage(
        "master-deadline", MASTERS, NOT_MASTER, data={"text": "+24h"}, result="24 hours later"),
    ("POST", "/games/<int:game_id>/manage", "master-hours"): _manage(
        "master-hours", MASTERS, NOT_MASTER, data={"after": "72"}, result="now has 72 hours"),
    ("POST", "/games/<int:game_id>/manage", "master-pause"): _manage(
        "master-pause", MASTERS, NOT_MASTER, result="the game is paused"),
    ("POST", "/games/<int:game_id>/manage", "master-resume"): _manage(
        "master-resume", MASTERS, NOT_MASTER, game="paused", result="the game runs again"),
    ("POST", "/games/<int:game_id>/manage", "master-eject"): _manage(
        "master-eject", MASTERS, NOT_MASTER, data={"seat": "2", "confirm": "yes"}, result="open to a replacement"),
    ("POST", "/games/<int:game_id>/manage", "master-seat"): _manage(
        "master-seat", MASTERS, NOT_MASTER, data={"seat": "2", "to": "Stranger"}, game="seat-open",
        result="has a new player"),
    ("POST", "/games/<int:game_id>/manage", "master-policy"): _manage(
        "master-policy", MASTERS, NOT_MASTER, data={"text": "bot"}, result="the no-move policy is changed"),
    ("POST", "/games/<int:game_id>/manage", "master-abort"): _manage(
        "master-abort", MASTERS, NOT_MASTER, data={"reason": "we stop"}, result="asked to agree"),
    ("POST", "/games/<int:game_id>/manage", "master-handover"): _manage(
        "master-handover", MASTERS, NOT_MASTER, data={"to": "Observer"}, result="is now the game master"),
    ("POST", "/games/<int:game_id>/manage", "abort-yes"): _manage(
        "abort-yes", ("player",), {"creator": (400, "you have already agreed"),
                                   **{r: (400, "only the players of game") for r in ("stranger", "observer", "admin")}},
        game="abort", result="the game has ended"),
    ("POST", "/games/<int:game_id>/manage", "abort-no"): _manage(
        "abort-no", ("player", "creator"), {r: (400, "only the players of game") for r in ("stranger", "observer",
                                                                                          "admin")},
        game="abort", result="the game goes on"),
    ("POST", "/games/<int:game_id>/manage", "abort-now"): _manage(
        "abort-now", ("admin",), {r: MANAGE_ADMIN for r in ROLES[1:-1]}, data={"reason": "gone", "confirm": "yes"},
        result="the game has ended"),
    # -------- admin
    ("POST", "/admin/disputes/<int:dispute_id>", None): _admin_only(
        "/admin/disputes/{dispute}", visitor=LOGIN_401, game="running", prep=_dispute,
        data={"action": "reject", "reason": "the log is right"}, result="rejected"),
    ("POST", "/admin/inbound/<int:inbound_id>/redrive", None): _admin_only(
        "/admin/inbound/{inbound}/redrive", prep=_failed_inbound, result="re-driven"),
    ("POST", "/admin/inbound/<int:inbound_id>/discard", None): _admin_only(
        "/admin/inbound/{inbound}/discard", prep=_failed_inbound, data={"reason": "spam", "confirm": "yes"}, result="discarded"),
    # -------- pages that only read
    ("GET", "/", None): _everyone("/"),
    ("GET", "/rules/<name>", None): _everyone("/rules/spyrium"),
    ("GET", "/rules/<name>/cards", None): _everyone("/rules/iaww/cards?q=wind"),
    # no beat runs here: the health check answers everyone, that the service is not healthy
    ("GET", "/healthz", None): _everyone("/healthz", answers=(503,), result='"beat"'),
    # the test client asks from loopback; from elsewhere, or with a token set: tests/ops_health
    ("GET", "/metrics", None): _everyone("/metrics", result="pbem_check_ok"),
    ("GET", "/static/<path:filename>", None): _everyone("/static/site.css"),
    ("GET", "/favicon.ico", None): _everyone("/favicon.ico"),
    ("GET", "/signup", None): _everyone("/signup"),
    ("GET", "/login", None): _everyone("/login"),
    ("GET", "/auth/<token>", None): _everyone("/auth/{token}", prep=_link),
    ("GET", "/confirm/<token>", None): _everyone("/confirm/{ctoken}", prep=_confirmation),
    ("GET", "/unsubscribe/<token>", None): _everyone("/unsubscribe/{utoken}", prep=_unsubscribe),
    ("GET", "/calendar/<key>.ics", None): _everyone("/calendar/{ckey}.ics", prep=_calendar, result="BEGIN:VCALENDAR"),
    ("GET", "/calendar/game/<ics>.ics", None): _everyone("/calendar/game/{cics}.ics", prep=_calendar,
                                                         result="BEGIN:VCALENDAR"),
    ("GET", "/lobby", None): _everyone("/lobby"),
    ("GET", "/me", None): _logged_in("/me", changes=False),
    ("GET", "/players/<int:user_id>", None): _everyone("/players/{uid}", prep=_player_page, game="running",
                                                       result="Reliability"),
    ("GET", "/profile", None): _logged_in("/profile", changes=False),
    ("GET", "/games/<int:game_id>", None): _everyone("/games/{gid}", game="running"),
    ("GET", "/games/<int:game_id>/history", None): _everyone("/games/{gid}/history", game="running"),
    ("GET", "/games/<int:game_id>/board", None): _everyone("/games/{gid}/board?ply=1", game="running"),
    ("GET", "/games/<int:game_id>/review", None): _everyone("/games/{gid}/review", game="running",
                                                            result="once it is over"),
    ("GET", "/games/<int:game_id>/view.json", None): _everyone("/games/{gid}/view.json", game="running"),
    # the archive, and a game's record: refused to everyone while the game runs
    ("GET", "/archive", None): _everyone("/archive"),
    ("GET", "/tournaments", None): _everyone("/tournaments"),
    ("GET", "/tournaments/<int:tournament_id>", None): Row(
        "/tournaments/{tid}", ("observer", "player", "creator", "admin"),
        {"visitor": NO_TOURNAMENT, "stranger": NO_TOURNAMENT}, changes=False, prep=_tournament, result="Standings"),
    ("GET", "/tournaments/<int:tournament_id>/standings.csv", None): Row(
        "/tournaments/{tid}/standings.csv", ("observer", "player", "creator", "admin"),
        {"visitor": NO_TOURNAMENT, "stranger": NO_TOURNAMENT}, changes=False, prep=_tournament, result="place,player"),
    ("GET", "/tournaments/<int:tournament_id>/players/<int:user_id>", None): Row(
        "/tournaments/{tid}/players/{uid}", ("observer", "player", "creator", "admin"),
        {"visitor": NO_TOURNAMENT, "stranger": NO_TOURNAMENT}, changes=False, prep=_tournament_and_player,
        result="Tables, round by round"),
    # the tournament page's stream without a stamp: news at once (the tournament's id only), then the end
    ("GET", "/tournaments/<int:tournament_id>/live", None): Row(
        "/tournaments/{tid}/live", ("observer", "player", "creator", "admin"),
        {"visitor": NO_TOURNAMENT, "stranger": NO_TOURNAMENT}, changes=False, prep=_tournament, result="event: news"),
    ("POST", "/tournaments/new", None): _logged_in(
        "/tournaments/new", data={"game": "mini", "players": "2", "rounds": "2", "options": "hand=3"},
        answers=(303,), result="is open for entry"),
    ("POST", "/tournaments/<int:tournament_id>/join", None): Row(
        "/tournaments/{tid}/join", ("observer", "creator", "admin"),
        {"visitor": LOGIN, "stranger": NO_TOURNAMENT, "player": (303, "you have already entered")},
        prep=_tournament, result="You have entered tournament"),
    ("POST", "/tournaments/<int:tournament_id>/leave", None): Row(
        "/tournaments/{tid}/leave", ("player",),
        {"visitor": LOGIN, "stranger": NO_TOURNAMENT,
         **{r: (303, "you are not playing in tournament") for r in ("observer", "creator", "admin")}},
        data={"confirm": "yes"}, prep=_tournament, result="You have left tournament"),
    ("POST", "/tournaments/<int:tournament_id>/start", None): Row(
        "/tournaments/{tid}/start", ("creator", "admin"),
        {"visitor": LOGIN, "stranger": NO_TOURNAMENT, "observer": NOT_DIRECTOR, "player": NOT_DIRECTOR},
        prep=_tournament_ready, result="Round 1 has started"),
    ("POST", "/tournaments/<int:tournament_id>/close", None): Row(
        "/tournaments/{tid}/close", ("creator", "admin"),
        {"visitor": LOGIN, "stranger": NO_TOURNAMENT, "observer": NOT_DIRECTOR, "player": NOT_DIRECTOR},
        prep=_tournament, result="is cancelled"),
    ("POST", "/tournaments/<int:tournament_id>/seat", None): Row(
        "/tournaments/{tid}/seat", ("creator", "admin"),
        {"visitor": LOGIN, "stranger": NO_TOURNAMENT, "observer": NOT_DIRECTOR, "player": NOT_DIRECTOR},
        data={"address": "observer@example.org"}, prep=_tournament, result="is entered and seated"),
    ("POST", "/tournaments/<int:tournament_id>/adjust", None): Row(
        "/tournaments/{tid}/adjust", ("creator", "admin"),
        {"visitor": LOGIN, "stranger": NO_TOURNAMENT, "observer": NOT_DIRECTOR, "player": NOT_DIRECTOR},
        data={"address": "player@example.org", "points": "-1", "reason": "missed two deadlines"},
        prep=_tournament_running, result="are adjusted by -1"),
    ("GET", "/games/<int:game_id>/record.json", None): Row(
        "/games/{gid}/record.json", (), {r: (409, "its record is kept in the archive once the game is over")
                                         for r in ROLES}, changes=False, game="running"),
    ("GET", "/games/<int:game_id>/thread.json", None): _everyone("/games/{gid}/thread.json", game="running"),
    # the event stream of a page without a stamp: news at once (the game's id only), then the end
    ("GET", "/games/<int:game_id>/live", None): _everyone("/games/{gid}/live", game="running", result="event: news"),
    ("GET", "/games/<int:game_id>/preview", None): _everyone("/games/{gid}/preview?text=pass", game="running"),
    ("GET", "/games/<int:game_id>/manage", None): _logged_in("/games/{gid}/manage", visitor=LOGIN_401,
                                                             changes=False, game="running"),
    ("GET", "/outbox", None): _logged_in("/outbox", changes=False),
    ("GET", "/outbox/<int:row_id>", None): Row(
        "/outbox/{row}", ("player", "admin"), {"visitor": LOGIN, **{r: (404, "no such page")
                                                                    for r in ("stranger", "observer", "creator")}},
        changes=False, game="running", prep=_players_mail),
    ("GET", "/admin", None): _admin_only("/admin", changes=False),
    ("GET", "/admin/games/<int:game_id>", None): _admin_only("/admin/games/{gid}", changes=False, game="running"),
    ("GET", "/admin/inbound/<int:inbound_id>", None): _admin_only("/admin/inbound/{inbound}", changes=False,
                                                                  prep=_failed_inbound),
    ("GET", "/admin/disputes", None): _admin_only("/admin/disputes", visitor=LOGIN_401,
                                                  changes=False),
    ("GET", "/admin/disputes/<int:dispute_id>", None): _admin_only(
        "/admin/disputes/{dispute}", visitor=LOGIN_401, changes=False, game="running",
        prep=_dispute),
}


def test_every_route_is_in_the_table_and_every_row_is_tested():
    app = create_app(make_settings(Path("/tmp/pbem-perm-map")))
    routes = {(m, r.rule) for r in app.url_map.iter_rules() for m in r.methods - {"HEAD", "OPTIONS"}}
    documented = table_rows()
    assert routes - {(m, r) for m, r, _ in documented} == set(), "routes missing from docs/SECURITY.md"
    assert {(m, r) for m, r, _ in documented} - routes == set(), "rows of docs/SECURITY.md with no route"
    assert documented == set(ROWS), "rows of docs/SECURITY.md without a test here, or tests without a row"
    for key, row in ROWS.items():
        assert set(row.allow) | set(row.refuse) == set(ROLES) and not set(row.allow) & set(row.refuse), key


def test_the_change_log_sees_every_change_of_a_row(world):
    """What the rows' "not one row changed" rests on: every table of the models logs its changes; a made
    row, a deleted one and a new value in any column but a session's last-seen time are changes; a
    rewrite of the same values, a new last-seen time, and a row made and deleted again are not."""
    from sqlalchemy import delete, update

    from pbem.store.models import WebSession

    engine = get_engine()
    with engine.connect() as conn:
        if engine.dialect.name == "sqlite":
            triggers = conn.exec_driver_sql("SELECT tbl_name FROM sqlite_master WHERE type = 'trigger' "
                                            f"AND name LIKE '{CHANGES}%'").scalars().all()
        else:
            triggers = conn.exec_driver_sql("SELECT tgrelid::regclass::text FROM pg_trigger "
                                            f"WHERE tgname = '{CHANGES}'").scalars().all()
    per_table = 3 if engine.dialect.name == "sqlite" else 1  # SQLite: one trigger per kind of change
    assert sorted(triggers) == sorted(t.name for t in SQLModel.metadata.sorted_tables for _ in range(per_table))

    def change(stmt) -> set:
        forget_changes()
        with unit_of_work() as s:
            s.exec(stmt)
        return changed_rows()

    forget_changes()
    uid = make_user(f"log-{uuid.uuid4().hex[:10]}@example.org", f"Log {uuid.uuid4().hex[:6]}")
    session_secret(uid)
    made = changed_rows()
    assert ("users", str(uid)) in made and any(t == "web_sessions" for t, _ in made), made
    sid = next(int(k) for t, k in made if t == "web_sessions")
    one = WebSession.id == sid
    assert change(update(WebSession).where(one).values(last_seen_at=utcnow() + timedelta(hours=1))) == set()
    assert change(update(WebSession).where(one).values(user_id=uid)) == set()  # the same value
    assert change(update(WebSession).where(one).values(ended_at=utcnow())) == {("web_sessions", str(sid))}
    assert change(update(User).where(User.id == uid).values(name=f"Log {uuid.uuid4().hex[:6]}")) == {
        ("users", str(uid))}
    assert change(delete(WebSession).where(one)) == {("web_sessions", str(sid))}
    forget_changes()
    uid = make_user(f"log-{uuid.uuid4().hex[:10]}@example.org", f"Log {uuid.uuid4().hex[:6]}")
    with unit_of_work() as s:
        s.exec(delete(User).where(User.id == uid))
    assert changed_rows() == set()


def _prepare(w: World, role: str, key, row: Row) -> dict:
    """The names of one try of the row by ``role``: a fresh game of the row's kind, and what prep makes."""
    names = {"role": role, "uniq": uuid.uuid4().hex[:10]}
    if row.game:
        names["gid"] = w.game(row.game)
    if row.prep:
        names.update(row.prep(w, names.get("gid")))
    names["other_seat"] = "1" if role == "player" else "2"  # vote-open: the other player's seat
    if role in row.fresh:
        uid = make_user(f"{uuid.uuid4().hex[:10]}@example.org", f"{role} {uuid.uuid4().hex[:6]}",
                        admin=role == "admin")
        if role == "observer" and "gid" in names:
            with unit_of_work() as s:
                messages.observe(s, s.get(User, uid), games.get(s, names["gid"]))
        w.browsers[role] = _browser(w.app, role)
        with w.browsers[role].client.session_transaction() as sess:
            sess["sid"] = session_secret(uid)
    return names


def _request(w: World, role: str, key, row: Row, names: dict) -> tuple[int, str, str]:
    """(status, what the person reads, Location)."""
    b = w.browsers[role]
    url = row.url.format(**names)
    # /metrics is read from this machine, whoever asks (web/ops.may_scrape): each role asks from loopback there
    # rather than from its own address
    own = b.client.environ_base.get("REMOTE_ADDR")
    if url == "/metrics":
        b.client.environ_base["REMOTE_ADDR"] = "127.0.0.1"
    try:
        r = _send(b, key, row, names, url)
    finally:
        b.client.environ_base["REMOTE_ADDR"] = own
    text = r.get_data().decode("utf-8", "replace")  # an image (the favicon) is read as text too
    location = r.headers.get("Location", "")
    if r.status_code in (302, 303):  # the message is on the page it sends the person to (a flash)
        text = b.get(location).get_data(as_text=True)
    return r.status_code, text, location


def _send(b: Browser, key, row: Row, names: dict, url: str):
    if key[0] == "GET":
        r = b.get(url)
    else:
        r = b.post(url, {k: v.format(**names) for k, v in row.data.items()})
    return r


def _flashes(text: str) -> list[str]:
    return re.findall(r'class="flash[^"]*"[^>]*>([^<]*)', text)


@pytest.mark.parametrize("key", sorted(ROWS, key=repr), ids=lambda k: f"{k[0]} {k[1]}" + (f" {k[2]}" if k[2] else ""))
def test_a_row_of_the_permission_table(world, key):
    row = ROWS[key]
    # the refusals: each says why, and changes nothing
    for role, (status, fragment) in row.refuse.items():
        names = _prepare(world, role, key, row)
        forget_changes()
        got, text, location = _request(world, role, key, row, names)
        assert got == status, (role, got, _flashes(text) or text[:500])
        if status == 302:
            assert fragment in location and "Please log in first" in text, (role, location)
        else:
            assert fragment in text, (role, fragment, _flashes(text) or text[:500])
        assert changed_rows() == set(), role
    # the allowed: done
    for role in row.allow:
        names = _prepare(world, role, key, row)
        forget_changes()
        got, text, location = _request(world, role, key, row, names)
        assert got in row.answers, (role, got, text[:500])
        assert "Please log in first" not in text and 'class="flash error"' not in text, (role, _flashes(text))
        assert row.result in text, (role, row.result, _flashes(text))
        if key[0] == "POST" and row.changes:
            assert changed_rows(), role
