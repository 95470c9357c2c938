"""Everything a person can see, as a table the secrecy test walks: every rule
of the Flask URL map with every method it answers, how to fill its parameters
and what harmless request to send it; and every mail template.

A rule or method missing from ROUTES, a parameter missing from the fillers,
or a template under templates/mail missing from MAIL_TEMPLATES fails the
test (``unknown``): a new page or mail cannot skip the check.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Callable

from sqlmodel import select

from pbem.config import TEMPLATES
from pbem.services.core import calendar_links
from pbem.store.db import unit_of_work
from pbem.store.models import Outbound, User
from tests.web.conftest import CSRF_RE, Browser


def log_in(app, email: str) -> Browser:
    """A test client logged in the real way: the login form, the mailed link, its confirmation."""
    b = Browser(app)
    client = b.client
    token = CSRF_RE.search(client.get("/login").get_data(as_text=True)).group(1)
    assert client.post("/login", data={"email": email, "csrf_token": token}).status_code == 200
    with unit_of_work() as s:
        row = s.exec(select(Outbound).where(Outbound.to_addr == email, Outbound.kind == "login")
                     .order_by(Outbound.id.desc())).first()
    path = re.search(r"/auth/[A-Za-z0-9_\-]+", row.body_text).group(0)
    token = CSRF_RE.search(client.get(path).get_data(as_text=True)).group(1)
    assert client.post(path, data={"csrf_token": token}).status_code == 302
    return b


# ---------------------------------------------------------------- the routes


@dataclass(frozen=True)
class Route:
    """How the sweep asks one (rule, method). ``queries``: the query strings to try with a GET
    (names of Sweep.queries). ``form``: the form of a POST that changes nothing (a refusal),
    whose answer (and the page it redirects to, with its message) is read like any page.
    ``who``: only these people send it (None: everyone). ``allow``: what the answer may show
    beyond what the person may see (a mail to them, a raw mail to an admin, its own parameter)."""
    why: str
    queries: tuple[str, ...] = ("",)
    form: dict | None = None
    who: tuple[str, ...] | None = None
    allow: str | None = None
    nothing_only: bool = False  # only the parameter values that name nothing (a POST that would act)
    unavailable: bool = False  # may answer 503: it reports the service's health, and says so when it is not


GET, POST = "GET", "POST"
NOTHING = {"action": "no-such-action"}  # an action no form has: refused, with the page drawn again
ROUTES: dict[tuple[str, str], Route] = {
    ("/static/<path:filename>", GET): Route("the site's own files"),
    ("/healthz", GET): Route("the health check (booleans, counts, ages; 503: not healthy, as no beat runs here)",
                             unavailable=True),
    ("/metrics", GET): Route("the Prometheus metrics (counts only; the test client asks from loopback)"),
    ("/favicon.ico", GET): Route("the site's icon"),
    ("/", GET): Route("the home page"),
    ("/rules/<name>", GET): Route("each game's rules and notation"),
    ("/rules/<name>/cards", GET): Route("each game's cards, whole text (the game's static data: may name any card)",
                                        queries=("", "card"), allow="catalogue"),
    ("/signup", GET): Route("the sign-up form"),
    ("/signup", POST): Route("sign-up, refused (no address)", form={"email": "", "name": ""}),
    ("/login", GET): Route("the login form"),
    ("/login", POST): Route("a login link asked, refused (no address)", form={"email": ""}),
    ("/auth/<token>", GET): Route("a mailed login link (shows a button only)", allow="url"),
    ("/auth/<token>", POST): Route("a login link spent, refused (an unknown one)", allow="url", nothing_only=True),
    ("/logout", POST): Route("logging out: only a visitor, who stays one", form={}, who=("visitor",)),
    ("/logout/everywhere", POST): Route("logging out everywhere: only a visitor, refused", form={}, who=("visitor",)),
    ("/profile/address", POST): Route("a new address asked, refused (not an address)", form={"email": ""}),
    ("/confirm/<token>", GET): Route("a confirmation link of commands held by mail (shows them and buttons only)",
                                     allow="url"),
    ("/confirm/<token>", POST): Route("a confirmation answered, refused (an unknown one)", allow="url",
                                      nothing_only=True),
    ("/unsubscribe/<token>", GET): Route("a one-click unsubscribe link's page (a button only; an unknown one)"),
    ("/unsubscribe/<token>", POST): Route("a one-click unsubscribe, refused (an unknown link)", form={},
                                          nothing_only=True),
    ("/profile", GET): Route("the person's profile"),
    ("/profile", POST): Route("the profile saved, refused (no name)",
                              form={"name": "", "mail_format": "html", "notify": "every", "timezone": "UTC"}),
    ("/language", POST): Route("the language menu, refused (no such language)", form={"language": "xx"}),
    ("/profile/vacation", POST): Route("an absence declared, refused (no dates)", form={"starts_on": "x"}),
    # the profile's chat channels (refusals: nothing changes; one channel per person exists)
    ("/profile/channels", POST): Route("a channel added, refused (no address)", form={"url": ""}),
    ("/profile/channels/<int:n>", POST): Route("a channel's kinds saved, refused (no such channel)",
                                               form={"mode": "instant"}, nothing_only=True),
    ("/profile/channels/<int:n>/test", POST): Route("a test message, refused (no such channel)", form={},
                                                    nothing_only=True),
    ("/profile/channels/<int:n>/on", POST): Route("a channel on again, refused (no such channel)", form={},
                                                  nothing_only=True),
    ("/profile/channels/<int:n>/remove", POST): Route("a channel removed, refused (no such channel)", form={},
                                                      nothing_only=True),
    ("/profile/notification-hours", POST): Route("quiet hours, refused (one hour of the two)",
                                                 form={"quiet_from": "3"}),
    # the deadlines' calendar: each address is its own authority; each person asks their own
    ("/calendar/<key>.ics", GET): Route("the person's private calendar feed of their deadlines (and an unknown one)"),
    ("/calendar/game/<ics>.ics", GET): Route("one game's deadline as an .ics file, the person's own link (and a "
                                             "forged one)"),
    ("/profile/calendar", POST): Route("a new calendar address: only a visitor, refused", form={}, who=("visitor",)),
    ("/lobby", GET): Route("the open games"),
    ("/lobby/new", POST): Route("a game created, refused (no such game)", form={"game": "no-such-game"}),
    ("/me", GET): Route("the person's games"),
    ("/players/<int:user_id>", GET): Route("a player's page: their games, results, ratings, reliability "
                                           "(and a player who does not exist)"),
    ("/games/<int:game_id>", GET): Route("the game page: board, move box, log, thread (newest, all, a picked move)",
                                         queries=("", "whole")),
    ("/games/<int:game_id>/history", GET): Route("the game move by move, in words (secret choices stay secret)"),
    ("/games/<int:game_id>/board", GET): Route("the board at a ply (the history slider), as a seat (another "
                                               "seat's only once the game is over)", queries=("", "ply", "seat")),
    ("/games/<int:game_id>/review", GET): Route("a finished game's post-game reviews (nothing before the end)"),
    ("/games/<int:game_id>/view.json", GET): Route("the view at a ply, as JSON, as a seat", queries=("", "ply", "seat")),
    # the archive of finished games, and a game's record (refused while it runs)
    ("/archive", GET): Route("the archive of finished games, searched and paged", queries=("", "search")),
    ("/tournaments", GET): Route("the tournaments the person may see"),
    ("/tournaments/<int:tournament_id>", GET): Route("a tournament's page: standings, rounds, tables (a private one "
                                                     "only to its director, the invited and its players)"),
    ("/tournaments/<int:tournament_id>/standings.csv", GET): Route("a tournament's standings as CSV (as its page)"),
    ("/tournaments/<int:tournament_id>/players/<int:user_id>", GET): Route(
        "a player's season in a tournament: their tables round by round, whom they met, results (and a player "
        "who did not enter, a tournament that does not exist)"),
    # (without a stamp the stream says news at once and ends)
    ("/tournaments/<int:tournament_id>/live", GET): Route("a tournament page's event stream: THAT it changed, "
                                                          "never what"),
    ("/tournaments/new", POST): Route("a tournament made, refused (no such game)", form={"game": "no-such-game"}),
    ("/tournaments/<int:tournament_id>/join", POST): Route("entering, refused (its round is being played)",
                                                           form={"password": "x"}),
    ("/tournaments/<int:tournament_id>/leave", POST): Route("leaving, unconfirmed: the confirmation page only",
                                                            form={}),
    ("/tournaments/<int:tournament_id>/start", POST): Route(
        "the next round, refused (not the director; the round still played, or its one round over)", form={}),
    ("/tournaments/<int:tournament_id>/close", POST): Route("closing, refused (no such tournament)", form={},
                                                            nothing_only=True),
    ("/tournaments/<int:tournament_id>/seat", POST): Route("entering a player, refused (no such tournament)",
                                                           form={"address": "nobody@example.org"}, nothing_only=True),
    ("/tournaments/<int:tournament_id>/adjust", POST): Route(
        "adjusting points, refused (no such tournament)", form={"address": "nobody@example.org", "points": "-1",
                                                                 "reason": "a test"}, nothing_only=True),
    ("/games/<int:game_id>/record.json", GET): Route("a finished game's record as JSON (a running one: refused)"),
    ("/games/<int:game_id>/thread.json", GET): Route("the thread, as JSON (new, older; the page's changed parts)",
                                                     queries=("", "after", "before", "stamp")),
    # (without a stamp the stream says news at once and ends; with one it stays open for its page)
    ("/games/<int:game_id>/live", GET): Route("a live page's event stream: THAT the game changed, never what"),
    ("/games/<int:game_id>/preview", GET): Route("what a typed move would do, as JSON (changes nothing)",
                                                 queries=("", "text")),
    ("/games/<int:game_id>/move", POST): Route("a move, refused (not notation)", form={"text": "zzz no move"}),
    ("/games/<int:game_id>/hint", POST): Route("a hint asked, refused (the game is not a practice game with hints)",
                                               form={}),
    ("/games/<int:game_id>/posts", POST): Route("a post, refused (empty)", form={"body": ""}),
    ("/games/<int:game_id>/thread-show", POST): Route("what the thread shows, refused (no such choice)",
                                                      form={"show": "zzz"}),
    ("/games/<int:game_id>/takeback", POST): Route("a take-back, refused (no such move of the person's)",
                                                   form={"ply": "0"}),
    ("/games/<int:game_id>/join", POST): Route("joining, refused (the game runs)", form={}),
    ("/games/<int:game_id>/start", POST): Route("starting, refused (it runs)", form={}),
    ("/games/<int:game_id>/invite", POST): Route("an invitation, refused (the game runs)", form={"email": ""}),
    ("/games/<int:game_id>/accept", POST): Route("an invitation accepted, refused (none, and the game runs)", form={}),
    ("/games/<int:game_id>/decline", POST): Route("an invitation declined, refused (none, and the game runs)",
                                                  form={}),
    ("/games/<int:game_id>/remove", POST): Route("a player removed, refused (the game runs)", form={"seat": "2"}),
    ("/games/<int:game_id>/bot", POST): Route("a bot added, refused (the game runs)", form={"level": "strong"}),
    ("/games/<int:game_id>/manage", GET): Route("the management page: seats, talk, log, admin log"),
    ("/games/<int:game_id>/manage", POST): Route("a management action, refused (no such action)", form=NOTHING),
    ("/admin", GET): Route("the admin console: games, failed mail, audit log"),
    ("/admin/games/<int:game_id>", GET): Route("a game in the admin console, around a ply", queries=("", "ply")),
    ("/admin/inbound/<int:inbound_id>", GET): Route("a received mail, raw (tokens redacted)", allow="inbound"),
    ("/admin/inbound/<int:inbound_id>/redrive", POST): Route("a re-drive, refused (no such mail)", form={},
                                                             nothing_only=True),
    ("/admin/inbound/<int:inbound_id>/discard", POST): Route("a discard, refused (no such mail)", form={},
                                                             nothing_only=True),
    ("/admin/disputes", GET): Route("the disputes queue"),
    ("/admin/disputes/<int:dispute_id>", GET): Route("a dispute with the boards around its ply"),
    ("/admin/disputes/<int:dispute_id>", POST): Route("a resolution, refused (no such one)", form=NOTHING),
    ("/outbox", GET): Route("the mail the person may read"),
    ("/outbox/<int:row_id>", GET): Route("one mail (its recipient's and an admin's only)", allow="mail"),
}

# each mail template, and what renders it (store/outbox.py renders both for every mail queued)
MAIL_TEMPLATES = {
    "mail/message.txt": "every mail's text (boards, notices, talk, receipts, login links, digests)",
    "mail/message.html": "every mail's HTML, for those who take HTML",
}
WEB_BASES = {"web/base.html", "web/manage/base.html"}  # extended, never rendered by themselves
WEB_PARTS = {"web/profile_notifications.html": "web/profile.html",  # included: read with the page that includes it
             "web/invitations.html": "web/lobby.html",  # (and web/dashboard.html)
             "web/pager.html": "web/lobby.html",  # a list's page links: on every list page
             "web/thread.html": "web/game.html"}  # the game thread: read with the game page


def unknown(app) -> list[str]:
    """What the app serves that ROUTES or the fillers do not know, and mail templates
    MAIL_TEMPLATES does not: each one fails the test."""
    out = []
    for rule in app.url_map.iter_rules():
        for method in sorted(rule.methods - {"HEAD", "OPTIONS"}):
            if (rule.rule, method) not in ROUTES:
                out.append(f"the route {method} {rule.rule} ({rule.endpoint}) is not in tests/security/site.py "
                           f"ROUTES: say how the secrecy test asks it")
        for arg in sorted(rule.arguments):
            if arg not in FILLERS:
                out.append(f"the parameter <{arg}> of {rule.rule} has no filler in tests/security/site.py")
    served = {(r.rule, m) for r in app.url_map.iter_rules() for m in r.methods - {"HEAD", "OPTIONS"}}
    out += [f"ROUTES lists {m} {rule}, which the app does not serve" for rule, m in ROUTES if (rule, m) not in served]
    mail = {p.relative_to(TEMPLATES).as_posix() for p in (TEMPLATES / "mail").rglob("*") if p.is_file()}
    out += [f"the mail template {t} is not in tests/security/site.py MAIL_TEMPLATES"
            for t in sorted(mail - set(MAIL_TEMPLATES))]
    return out


def web_templates() -> set[str]:
    return {p.relative_to(TEMPLATES).as_posix() for p in (TEMPLATES / "web").rglob("*.html")} - WEB_BASES - set(WEB_PARTS)


# what fills each parameter: a function of the sweep and the person, giving values, the last of
# which names nothing
FILLERS: dict[str, Callable] = {
    "filename": lambda sw, who: sw.static_files + ["no-such-file.js"],
    "name": lambda sw, who: sw.game_names + ["no-such-game"],
    "token": lambda sw, who: sw.login_tokens + ["no-such-login-token-" + "x" * 24],
    "game_id": lambda sw, who: [sw.game_id, sw.game_id + 1000],
    "inbound_id": lambda sw, who: sw.inbound_ids + [max(sw.inbound_ids, default=0) + 1000],
    "dispute_id": lambda sw, who: sw.dispute_ids + [max(sw.dispute_ids, default=0) + 1000],
    "row_id": lambda sw, who: sw.mail_ids(who),
    "user_id": lambda sw, who: _players() + [999999],  # every person's page, and nobody's
    "tournament_id": lambda sw, who: _tournaments() + [999999],  # every tournament, and none
    "n": lambda sw, who: [1, 99],  # a person's chat channel, and one nobody has
    "key": lambda sw, who: _calendar(who, lambda u: u.calendar_key) + ["no-such-calendar-key-xxxxx"],
    "ics": lambda sw, who: _calendar(who, lambda u: calendar_links.game_token(u, sw.game_id)) + ["1.1.no-such-mac"],
}


def _players() -> list[int]:
    with unit_of_work() as s:
        return sorted(s.exec(select(User.id)).all())


def _tournaments() -> list[int]:
    from pbem.store.models import Tournament

    with unit_of_work() as s:
        return sorted(s.exec(select(Tournament.id)).all())


def _calendar(who, part) -> list[str]:
    """The person's own calendar address part, made as their profile makes it; none for a visitor."""
    if not who.user_id:
        return []
    with unit_of_work() as s:
        user = s.get(User, who.user_id)
        calendar_links.key_of(user)
        return [part(user)]


@dataclass
class Answer:
    where: str  # method and path
    status: int
    text: str
    allowed: str = ""  # what it may show beyond the person's allowance


@dataclass
class Sweep:
    """One pass over every route for one person: the answers, for the caller to search."""
    game_id: int
    static_files: list[str]
    game_names: list[str]
    login_tokens: list[str]
    inbound_ids: list[int]
    dispute_ids: list[int]
    mail_rows: dict  # id -> (to address, readable text of the mail)
    plies: list[int]  # plies to look at the history of
    after: list[int]  # post ids for thread.json?after=
    rng: object
    inbound_text: dict = field(default_factory=dict)  # id -> raw text, tokens cut out

    def mail_ids(self, who) -> list[int]:
        mine = [i for i, (to, _) in self.mail_rows.items() if who.email and to == who.email]
        others = [i for i, (to, _) in self.mail_rows.items() if not who.email or to != who.email]
        pick = sorted(mine)[-2:] + (self.rng.sample(others, min(2, len(others))) if others else [])
        return pick + [max(self.mail_rows, default=0) + 1000]

    def queries(self, kind: str) -> list[str]:
        if kind == "ply":
            return [f"?ply={p}" for p in self.plies] + ["?ply=x"]
        if kind == "card":  # a search of the catalogue
            return ["?q=a", "?q=no-such-card"]
        if kind == "after":
            return [f"?after={a}" for a in self.after]
        if kind == "before":  # the page of posts before one
            return [f"?before={a}" for a in self.after]
        if kind == "stamp":  # a live page drawn from another ply: the parts drawn again, for the asker
            return ["?stamp=x&wait=0", "?stamp=0:open:0"]
        if kind == "whole":  # the whole log and thread; a legal move picked (previewed)
            return ["?all=1", "?pick=pass", "?pick=zzz"]
        if kind == "seat":  # each seat's view and the public one: another's is refused while it runs
            return ["?seat=1", "?seat=2&ply=1", "?seat=3", "?seat=public", "?seat=x"]
        if kind == "search":  # the archive's search
            return ["?game=spyrium&player=a&from=2000-01-01&to=2100-01-01", "?from=x", "?page=2"]
        if kind == "text":
            return ["?text=pass", "?text=zzz", "?text=pick%201%0Adone"]
        return [""]

    def answers(self, app, who) -> list[Answer]:
        out = []
        m = CSRF_RE.search(who.client.get("/login").get_data(as_text=True))
        csrf = {"csrf_token": m.group(1)} if m else {}
        for rule in app.url_map.iter_rules():
            for method in sorted(rule.methods - {"HEAD", "OPTIONS"}):
                route = ROUTES[(rule.rule, method)]
                if route.who is not None and who.key not in route.who:
                    continue
                for values, names_something in self._fill(rule, who, route.nothing_only):
                    path = rule.build(values, append_unknown=False)[1]
                    allowed = self._allowed(route, values, who)
                    if method == GET:
                        for q in route.queries if names_something else ("",):
                            for query in self.queries(q):
                                r = who.client.get(path + query)
                                status = 200 if route.unavailable and r.status_code == 503 else r.status_code
                                out.append(Answer(f"GET {path}{query}", status, _text(r), allowed))
                    else:  # a refusal, with its message shown on whatever page comes next (read too)
                        r = who.client.client.post(path, data={**(route.form or {}), **csrf})
                        out.append(Answer(f"POST {path}", r.status_code, _text(r), allowed))
        r = who.client.get("/")  # the message of the last refusal
        out.append(Answer("GET / (the last messages)", r.status_code, _text(r)))
        return out

    def _fill(self, rule, who, nothing_only: bool) -> list[tuple[dict, bool]]:
        """Each set of parameter values, and whether all of them name something."""
        rows = [({}, True)]
        for arg in sorted(rule.arguments):
            values = FILLERS[arg](self, who)
            rows = [(dict(r, **{arg: v}), ok and i < len(values) - 1) for r, ok in rows
                    for i, v in enumerate(values) if not nothing_only or i == len(values) - 1]
        return rows

    def _allowed(self, route: Route, values: dict, who) -> str:
        if route.allow == "url":
            return " ".join(str(v) for v in values.values())
        if route.allow == "mail":
            to, text = self.mail_rows.get(values["row_id"], (None, ""))
            return text if who.is_admin or (who.email and to == who.email) else ""
        if route.allow == "catalogue":  # every card of the game: static data, like the rules
            from pbem.engine import GAMES

            game = GAMES.get(values.get("name"))
            return "\n".join(f"{c.key}\n{c.name}\n{c.kind}\n{c.text}" for c in (getattr(game, "cards", tuple)() if game else ()))
        if route.allow == "inbound":
            return self.inbound_text.get(values["inbound_id"], "") if who.is_admin else ""
        return ""


def _text(r) -> str:
    return r.get_data().decode("utf-8", "replace") + "\n" + r.headers.get("Location", "")  # the favicon is binary
