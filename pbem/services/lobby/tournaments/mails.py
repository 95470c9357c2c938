"""A tournament's mails, each in its reader's language: the invitation to an address invited to
it, "your next table" to every player seated when a round starts (a bye says so), the final
standings to every entrant when it ends, and its lines in the daily digest of its players.

What they say is what the tournament's page shows a player of it (view.standings: the names,
places and points anybody who may see the tournament sees); a table's game is one the reader
plays, so its link is theirs to open."""
from __future__ import annotations

from sqlmodel import Session, select

from pbem import i18n
from pbem.config import settings
from pbem.engine import get_game
from pbem.i18n import _
from pbem.store.models import Game, Tournament, TournamentEntry, TournamentInvitation, User
from pbem.store.outbox import queue_mail

from ...core import accounts, games, lang, notify, seating as seats_core
from . import scoring, season, view


def _link(t: Tournament) -> str:
    return f"{settings().base_url}/tournaments/{t.id}"


def when_words(at, user: User | None) -> str:
    """``at`` in the reader's zone and language, with the zone's name: English writes it after the
    time ("Mon 11 Jan 2027 09:30 (Europe/London)"), the other languages' formats carry it already."""
    tz = (user.timezone if user is not None else None) or "UTC"
    written = lang.when(at, tz)
    return f"{written} ({tz})" if i18n.current() == i18n.SOURCE else written


def _format_words(t: Tournament) -> str:
    return {"swiss": _("a Swiss-like league"), "robin": _("a round robin"),
            "elimination": _("an elimination by tables")}.get(t.format, t.format)


def _next_line(t: Tournament, user: User | None) -> str | None:
    if t.next_round_at is None:
        return None
    return _("Round %(round)d starts on %(when)s.", round=t.round + 1, when=when_words(t.next_round_at, user))


def standing_line(t: Tournament, rows, user_id: int) -> str:
    """Where the reader stands: place, of how many, and points."""
    mine = next((r for r in rows if r.user_id == user_id), None)
    if mine is None:
        return ""
    return _("Your place: %(place)d of %(count)d; your points: %(points)s.", place=mine.place, count=len(rows),
             points=mine.points)


def standings_lines(rows) -> str:
    return "\n".join(f"{r.place}. {r.name}: {r.points}" + (" (" + _("left") + ")" if r.out else "")
                     + (" (" + _("adjusted %(points)s", points=r.adjusted) + ")" if r.adjusted else "") for r in rows)


def _footer() -> str:
    return _("Tournament commands go to %(address)s: TOURNAMENT STATUS <number> for its round and tables, "
             "TOURNAMENT STANDINGS <number> for its standings.", address=settings().command_address)


def invitations(s: Session, t: Tournament, addresses, director: User) -> int:
    """One mail to each newly invited address: who invites, to what, the line to send to enter,
    the page. In the language of the address's account, or the director's for an address without
    one (it is told how to sign up first). Each is kept (tournament_invitations), counted by the
    day's limits (season.invitation_limits, which the caller has checked)."""
    sent = 0
    engine = get_game(t.game)
    for email in addresses:
        s.add(TournamentInvitation(tournament_id=t.id, inviter_id=director.id, email=email))
        user = accounts.find_user(s, email)
        with i18n.use(lang.of(user or director)):
            join = f"TOURNAMENT JOIN {t.id}"
            paragraphs = [
                _("%(director)s invites you to tournament #%(id)d, %(name)s: %(game)s by e-mail at tables of "
                  "%(size)d, %(format)s.", director=director.name, id=t.id, name=t.name, game=engine.title,
                  size=t.table_size, format=_format_words(t)),
                _("To enter, send this line to %(address)s:\n\n    %(line)s", address=settings().command_address,
                  line=join)]
            if user is None:
                paragraphs.append(_("You have no pbem account with this address yet: send REGISTER <your name> to "
                                    "%(address)s first, from this address, then the line above.",
                                    address=settings().command_address))
            if (line := _next_line(t, user or director)) is not None:
                paragraphs.append(line)
            if t.entry_closes_at is not None:
                paragraphs.append(_("Entry closes on %(when)s.", when=when_words(t.entry_closes_at, user or director)))
            paragraphs.append(_("The tournament's page: %(link)s", link=_link(t)))
            queue_mail(s, to=email, subject=_("pbem: an invitation to tournament #%(id)d (%(name)s)", id=t.id,
                                              name=t.name),
                       context={"title": _("An invitation to tournament #%(id)d", id=t.id),
                                "greeting": notify.greeting(user) if user is not None else _("Hello,"),
                                "paragraphs": paragraphs, "footer": _footer()},
                       kind="notice", user=user, lang=i18n.current())
        sent += 1
    s.flush()
    return sent


def next_tables(s: Session, t: Tournament, number: int) -> int:
    """When round ``number`` starts: to each player seated, their table (its game, their opponents,
    the link, the deadline) and their standing; to each player given a bye, that they sit out; to
    a player whose game of an earlier round still plays, that it counts when it ends."""
    rows = view.standings(s, t)
    names = {r.user_id: r.name for r in rows}
    late = {}
    for row in season.tables_of(s, t):
        g = s.get(Game, row.game_id)
        if row.round < number and g is not None and g.status in ("open", "running"):
            for p in row.players:
                late[p] = row
    last = season.rounds_of(s, t)[-1]
    seated = [(row, p) for row in season.tables_of(s, t, number) for p in row.players]
    sent = 0
    for row, p in seated + [(None, p) for p in last.byes]:
        user = s.get(User, p)
        if user is None:
            continue
        with lang.speaking(user):
            paragraphs = []
            if row is not None:
                g = s.get(Game, row.game_id)
                others = [names.get(x, "?") for x in row.players if x != p]
                paragraphs.append(_("Round %(round)d of tournament #%(id)d (%(name)s) has started: you play at table "
                                    "%(table)d, game #%(game)d, with %(opponents)s.", round=number, id=t.id,
                                    name=t.name, table=row.number, game=row.game_id,
                                    opponents=_(" and ").join([", ".join(others[:-1]), others[-1]])
                                    if len(others) > 1 else "".join(others)))
                paragraphs.append(_("The game: %(link)s", link=f"{settings().base_url}/games/{row.game_id}"))
                seat = seats_core.seat_of(s, g.id, p)
                to_move = games.engine_for(g).to_move(games.state_at(s, g)) if g.status == "running" else ()
                clock = notify.deadline_text(s, g, seat.seat if seat is not None else None, to_move)
                if clock:
                    paragraphs.append(clock)
            else:
                points = scoring.format_number(scoring.bye_points(t.table_size, t.scoring, season.custom_points(t)))
                paragraphs.append(_("Round %(round)d of tournament #%(id)d (%(name)s) has started, and you sit it "
                                    "out: a bye, which scores %(points)s.", round=number, id=t.id, name=t.name,
                                    points=points))
            if p in late:
                paragraphs.append(_("Your game #%(game)d of round %(round)d is still being played: play it to its "
                                    "end, it counts in the standings when it ends.", game=late[p].game_id,
                                    round=late[p].round))
            paragraphs.append(standing_line(t, rows, p))
            if (line := _next_line(t, user)) is not None:
                paragraphs.append(line)
            paragraphs.append(_("The tournament's page: %(link)s", link=_link(t)))
            queue_mail(s, to=user.email, subject=_("pbem: tournament #%(id)d, round %(round)d: your table",
                                                   id=t.id, round=number),
                       context={"title": _("Tournament #%(id)d, round %(round)d", id=t.id, round=number),
                                "greeting": notify.greeting(user), "paragraphs": [x for x in paragraphs if x],
                                "footer": _footer()},
                       kind="notice", user=user)
        sent += 1
    return sent


def final_standings(s: Session, t: Tournament) -> int:
    """When the tournament is over: its final standings to each entrant, their own place first."""
    if t.status != "finished":
        return 0
    rows = view.standings(s, t)
    sent = 0
    for e in season.entries(s, t):
        user = s.get(User, e.user_id)
        if user is None:
            continue
        with lang.speaking(user):
            paragraphs = [_("Tournament #%(id)d (%(name)s) is over.", id=t.id, name=t.name),
                          standing_line(t, rows, user.id), _("The final standings:"), standings_lines(rows),
                          _("The tournament's page: %(link)s", link=_link(t))]
            queue_mail(s, to=user.email, subject=_("pbem: tournament #%(id)d is over: the final standings", id=t.id),
                       context={"title": _("Tournament #%(id)d: the final standings", id=t.id),
                                "greeting": notify.greeting(user), "paragraphs": [x for x in paragraphs if x],
                                "footer": _footer()},
                       kind="notice", user=user)
        sent += 1
    return sent


def digest(s: Session, user: User, paragraphs: list) -> None:
    """The daily digest's lines for the tournaments running that ``user`` plays in (not left):
    the round in play, their place and points, the next round's date. A listener of the core's
    DIGEST_WRITTEN (services/wiring.py)."""
    q = (select(Tournament).join(TournamentEntry, TournamentEntry.tournament_id == Tournament.id)
         .where(TournamentEntry.user_id == user.id, TournamentEntry.left_round.is_(None),
                Tournament.status == "running").order_by(Tournament.id))
    for t in s.exec(q):
        rows = view.standings(s, t)
        lines = [_("Tournament #%(id)d (%(name)s): round %(round)d is being played.", id=t.id, name=t.name,
                   round=t.round), standing_line(t, rows, user.id)]
        if (line := _next_line(t, user)) is not None:
            lines.append(line)
        lines.append(_link(t))
        paragraphs.append("\n".join(x for x in lines if x))


def adjusted(s: Session, t: Tournament, row, director: User) -> None:
    """The player whose points the director adjusted is told: by how much, why, where they stand now."""
    user = s.get(User, row.user_id)
    if user is None:
        return
    rows = view.standings(s, t)
    with lang.speaking(user):
        points = view.signed(row.points)
        paragraphs = [_("%(director)s, the director of tournament #%(id)d (%(name)s), has adjusted your points by "
                        "%(points)s: %(reason)s", director=director.name, id=t.id, name=t.name, points=points,
                        reason=row.reason),
                      standing_line(t, rows, user.id),
                      _("The tournament's page: %(link)s", link=_link(t))]
        queue_mail(s, to=user.email, subject=_("pbem: tournament #%(id)d: your points adjusted by %(points)s",
                                               id=t.id, points=points),
                   context={"title": _("Tournament #%(id)d: your points adjusted", id=t.id),
                            "greeting": notify.greeting(user), "paragraphs": [x for x in paragraphs if x],
                            "footer": _footer()},
                   kind="notice", user=user)


def seated(s: Session, t: Tournament, user: User, director: User) -> None:
    """A player the director entered is told: by whom, from which round, how to leave."""
    with lang.speaking(user):
        paragraphs = [_("%(director)s, the director of tournament #%(id)d (%(name)s, %(game)s), has entered you in "
                        "it: you are seated from round %(round)d on.", director=director.name, id=t.id, name=t.name,
                        game=get_game(t.game).title, round=t.round + 1),
                      _next_line(t, user),
                      _("Not for you? Send TOURNAMENT LEAVE %(id)d to %(address)s.", id=t.id,
                        address=settings().command_address),
                      _("The tournament's page: %(link)s", link=_link(t))]
        queue_mail(s, to=user.email, subject=_("pbem: you are entered in tournament #%(id)d (%(name)s)", id=t.id,
                                               name=t.name),
                   context={"title": _("Tournament #%(id)d: you are entered", id=t.id),
                            "greeting": notify.greeting(user), "paragraphs": [x for x in paragraphs if x],
                            "footer": _footer()},
                   kind="notice", user=user)


def named_director(s: Session, t: Tournament, maker: User) -> None:
    """The account named to direct a tournament someone else made is told what is now theirs to do."""
    user = s.get(User, t.director_id)
    if user is None:
        return
    with lang.speaking(user):
        paragraphs = [_("%(maker)s has made tournament #%(id)d (%(name)s, %(game)s) and named you its director.",
                        maker=maker.name, id=t.id, name=t.name, game=get_game(t.game).title),
                      _("You start each round with TOURNAMENT START %(id)d (or on its page), and close it with "
                        "TOURNAMENT CLOSE %(id)d; TOURNAMENT SEAT and ADJUST are yours too.", id=t.id),
                      _next_line(t, user),
                      _("The tournament's page: %(link)s", link=_link(t))]
        queue_mail(s, to=user.email, subject=_("pbem: you direct tournament #%(id)d (%(name)s)", id=t.id, name=t.name),
                   context={"title": _("Tournament #%(id)d: you are its director", id=t.id),
                            "greeting": notify.greeting(user), "paragraphs": [x for x in paragraphs if x],
                            "footer": _footer()},
                   kind="notice", user=user)
