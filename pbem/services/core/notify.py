"""Mail to the players of a game: every seat gets only its own view."""
from __future__ import annotations


from sqlalchemy import bindparam
from sqlmodel import Session, select

from pbem.config import settings
from pbem.i18n import N_, _, lazy_gettext, lazy_ngettext, ngettext
from pbem.engine.base import name_seats
from pbem.store.addresses import game_subject, seat_address
from pbem.store.outbox import queue_mail
from pbem.store.models import Game, Observer, User

from . import calendar_links, events, games, lang, seating, unseen, visibility
from .clocks import aware


def board_context(s: Session, g: Game, seat: int | None) -> dict:
    """Text and HTML board of ``seat`` (None = observer), from its view only,
    with the deadline and what happens when it passes."""
    engine = games.engine_for(g)
    view = games.view_for(s, g, seat)
    state = games.state_at(s, g)
    to_move = engine.to_move(state)
    title = _("%(game)s #%(id)d, ply %(ply)d", game=engine.title, id=g.id, ply=visibility.public_ply(s, g))
    if g.hints:
        title = _("%(board)s (practice game with hints)", board=title)
    ctx = {
        "board_text": engine.render_text(view),
        "board_html": engine.render_html(view),
        "board_title": title,
        # the drawing of the same view, drawn when the mail is delivered (pbem/mail/pictures.py)
        "board_picture": lambda: (engine.name, view, picture_alt(title, view)),
        "status_line": view.get("status", ""),
        "deadline_text": deadline_text(s, g, seat, to_move),
    }
    if seat is not None and seat in to_move:
        ctx["help_text"] = _("Your move. %(help)s",
                             help=name_seats(engine.notation_help(state, seat), view.get("names")))
    return ctx


def heading(g: Game, title: str) -> str:
    """A board mail's heading: the game and its number, and that it is a practice game with hints."""
    if g.hints:
        return _("%(game)s #%(id)d (practice game with hints)", game=title, id=g.id)
    return f"{title} #{g.id}"


def picture_alt(title: str, view: dict) -> str:
    """The alt text of a board's picture: what it is and where the game stands (the text board follows)."""
    status = str(view.get("status") or "").strip()
    if status:
        return _("Picture of the board of %(title)s: %(status)s. The same board is written out below.",
                 title=title, status=status)
    return _("Picture of the board of %(title)s. The same board is written out below.", title=title)


POLICY_WORDS = {
    "wait": N_("the table is told and the game waits for that player (or for an admin)"),
    "bot": N_("a bot plays that move for the late player, and the game goes on"),
}


def policy_words(policy: str, after: int):
    """What happens when a deadline passes under ``policy`` (``abandon``: after ``after`` missed deadlines, a
    number its words agree with), as a lazy string: worded in each reader's language where it is shown."""
    if policy == "abandon":
        return lazy_ngettext("the table is told; after %(num)d missed deadline the seat is abandoned: a bot plays it "
                             "until someone takes it over",
                             "the table is told; after %(num)d missed deadlines the seat is abandoned: a bot plays "
                             "it until someone takes it over", after)
    return lazy_gettext(POLICY_WORDS.get(policy, POLICY_WORDS["wait"]))


# the bot levels (pbem.engine.bots.LEVELS), as players read them
LEVEL_WORDS = {
    "easy": N_("easy (plays the best-looking move at once)"),
    "normal": N_("normal (searches ahead a little)"),
    "strong": N_("strong (searches ahead longer)"),
}


def deadline_text(s: Session, g: Game, seat: int | None, to_move=frozenset()) -> str:
    """The game's clock in one paragraph: the reader's own deadline, in their
    time zone, when it is their move; the rule otherwise; and the no-move
    policy. Empty once the game is not running."""
    if g.status != "running":
        return ""
    policy = str(policy_words(g.policy, g.abandon_after))
    if g.paused:
        return _("Game #%(id)d is paused: no deadline runs until it resumes.", id=g.id)
    if g.day_mask == "no-weekends":
        rule = ngettext("Each move has %(num)d hour (weekends not counted); when a deadline passes, %(policy)s.",
                        "Each move has %(num)d hours (weekends not counted); when a deadline passes, %(policy)s.",
                        g.deadline_hours, policy=policy)
    else:
        rule = ngettext("Each move has %(num)d hour; when a deadline passes, %(policy)s.",
                        "Each move has %(num)d hours; when a deadline passes, %(policy)s.",
                        g.deadline_hours, policy=policy)
    row = next((x for x in seating.seats(s, g.id) if x.seat == seat), None) if seat is not None else None
    if row is not None and seat in to_move and row.deadline_at is not None:
        user = s.get(User, row.user_id) if row.user_id else None
        tz = (user.timezone if user else None) or "UTC"
        return _("Your move is due by %(when)s (%(tz)s). %(rule)s",
                 when=lang.when(aware(row.deadline_at), tz), tz=tz, rule=rule)
    return rule


def greeting(user: User) -> str:
    """The first line of a mail to ``user``, in the current language."""
    return _("Dear %(name)s,", name=user.name)


def unsubscribe_headers() -> dict[str, str]:
    """RFC 2369 List-Unsubscribe: mail clients show an unsubscribe button that
    sends STOP to the command address (messages.stop)."""
    return {"List-Unsubscribe": f"<mailto:{settings().command_address}?subject=STOP&body=STOP>"}


def footer(g: Game, seat_token: str | None, ply: int | None = None) -> str:
    """The last lines of a game's mail: how to answer while the game runs;
    once it is over (or cancelled, or before it starts), no invitation to
    move, but what became of it and where it stays to be seen. ``ply``: the
    counter as the reader may see it (visibility.public_ply)."""
    cfg = settings()
    web = f"{cfg.base_url}/games/{g.id}"
    if g.status == "finished":
        return _("Game #%(id)d is over; it takes no more moves. Its result and the whole game, move by move, "
                 "stay on the web: %(web)s. To play again, send NEW %(game)s to %(address)s.",
                 id=g.id, web=web, game=g.game, address=cfg.command_address)
    if g.status == "aborted":
        return _("Game #%(id)d was stopped before its end and takes no more moves. Its record stays on the web: "
                 "%(web)s. To play again, send NEW %(game)s to %(address)s.",
                 id=g.id, web=web, game=g.game, address=cfg.command_address)
    if g.status == "cancelled":
        return _("Game #%(id)d was cancelled before it started; there is nothing to reply. To find another "
                 "table, send GAMES to %(address)s. Web: %(web)s", id=g.id, address=cfg.command_address, web=web)
    if g.status == "open":
        return ngettext("Game #%(id)d has not started yet: it starts when its %(num)d seat is taken, or when its "
                        "creator sends START %(id)d. Web: %(web)s",
                        "Game #%(id)d has not started yet: it starts when its %(num)d seats are taken, or when its "
                        "creator sends START %(id)d. Web: %(web)s", g.players, id=g.id, web=web)
    where = seat_address(g.id, seat_token, cfg.domain) if seat_token else cfg.command_address
    return _("Game #%(id)d at ply %(ply)d. Reply to this mail (it goes to %(address)s) with your move, "
             "one per line; STATUS for the board, HELP for the notation. Web: %(web)s",
             id=g.id, ply=g.ply if ply is None else ply, address=where, web=web)


def final_result(s: Session, g: Game) -> str:
    """One line for the end of a game: who won, and every score, best first."""
    out = g.outcome or {}
    scores, winners = out.get("scores") or [], set(out.get("winners") or [])
    if g.status != "finished" or not scores:
        return _("Game #%(id)d is over.", id=g.id)
    names = seating.names(s, g.id)
    name = (lambda i: names[i] if i < len(names) else _("Seat %(n)d", n=i + 1))
    order = out.get("ranking") or sorted(range(len(scores)), key=lambda i: -scores[i])
    won = [name(i) for i in order if i in winners]
    final = ", ".join(f"{name(i)} {scores[i]}" for i in order)
    if len(won) > 1:
        return _("Game #%(id)d is over: %(winners)s share the victory. Final scores: %(scores)s.",
                 id=g.id, winners=_(" and ").join(won), scores=final)
    return _("Game #%(id)d is over: %(winner)s wins. Final scores: %(scores)s.",
             id=g.id, winner="".join(won), scores=final)


def who_played(s: Session, g: Game) -> str:
    """The paragraph of the last mail of a game that says who played each seat (the scores record it)."""
    return _("Who played:\n%(seats)s", seats=seating.played_by(s, g))


def hints_used(s: Session, g: Game) -> str:
    """A finished practice game's hints, each with the moves it gave (the final mail)."""
    rows = visibility.hints(s, g, visibility.Viewer())
    if not rows:
        return _("Nobody used a hint.")
    return "\n".join(_("%(line)s: %(moves)s", line=h.line, moves=", ".join(
        f"{c.move} ({c.percent}%)" for c in h.choices or ())) for h in rows)


def final_record(s: Session, g: Game, seat: int | None) -> list[str]:
    """The whole game, move by move, as ``seat`` may read it: the last mail of a game carries it,
    to every player, the one whose move ended it included (in the receipt of that move)."""
    hidden = visibility.secrets(s, g)
    return [e.numbered(hidden, seat) for e in visibility.events(s, g, 0)]


def subject_for(g: Game) -> str:
    """Every mail of the game has this subject (one conversation per game,
    addresses.game_subject); what a mail is about is its ``summary``."""
    return game_subject(g.id, games.engine_for(g).title)


def wants_board(user: User, my_turn: bool, over: bool, essential: bool) -> bool:
    """The user's notify preference: every change, only my turn (also after
    STOP), or a daily digest (messages.send_digests) — essential mail
    (admin decisions, the game's end) always comes."""
    if essential or over:
        return True
    if user.notify == "digest":
        return False
    if user.notify == "turn" or user.stopped:
        return my_turn
    return True


def mark_shown(g: Game, to_move, seat: int | None) -> None:
    """A board of ``g`` as it is now was mailed to ``seat``'s player (None:
    an observer, a reader with no seat): every move so far has been seen, and
    none of them is taken back without the others' consent any more
    (services/referee/undo) -- unless the reader is the seat to move alone, who may
    take its own moves back and sees them anyway."""
    if seat is not None and frozenset(to_move) == frozenset({seat}):
        return
    if g.shown_ply < g.ply:
        g.shown_ply = g.ply


def announce_moves(s: Session, g: Game, seat: int, who: str, first_ply: int, *, receipt: bool = True) -> int:
    """The board to the others after ``seat``'s moves from ``first_ply`` on
    (a mail's, a web post's). While the seat's turn goes on privately
    (unseen.keeps_turn: it is still to move, nothing was revealed)
    they wait: the seat may still take its moves back, and the one mail at
    the end of the turn tells all of them. The mover has its own answer
    (``receipt``: a mail's receipt, which carries its board and, at the end
    of the game, the whole game); a mover without one (a web post) gets the
    last mail of the game with the others."""
    if unseen.keeps_turn(s, g, seat):
        return 0
    played = visibility.told(s, g, seat, min(first_ply - 1, unseen.unannounced(s, g, seat)))
    exclude = {seat} if receipt or g.status != "finished" else set()
    return queue_boards(s, g, played_headline(who, played, g.status == "finished"), exclude=exclude)


def played_headline(who: str, played, over: bool = False):
    """"Anna played: B MINE 2" (and that the game is over), in each reader's language."""
    if over:
        return lambda: _("%(who)s played: %(moves)s — the game is over.", who=who, moves=lang.text(played))
    return lambda: _("%(who)s played: %(moves)s", who=who, moves=lang.text(played))


def started_headline(s: Session, g: Game):
    """"Game #7 has started: Ann, Boris." in each reader's language."""
    return lazy_gettext("Game #%(game)d has started: %(names)s.", game=g.id, names=", ".join(seating.names(s, g.id)))


def solo_started_headline(g: Game, title: str):
    return lazy_gettext("Game #%(game)d (%(title)s, solo) has started.", game=g.id, title=title)


def resigned_headline(name: str, seat: int):
    """``seat`` is 1-based, as players count seats."""
    return lazy_gettext("%(name)s has resigned from seat %(seat)d.", name=name, seat=seat)


def takeover_headline(name: str, seat: int):
    return lazy_gettext("%(name)s takes over seat %(seat)d.", name=name, seat=seat)


def queue_boards(s: Session, g: Game, headline: str, *, exclude: set[int] = frozenset(),
                 paragraphs: list[str] | None = None, essential: bool = False) -> int:
    """One mail per seated player (except ``exclude``) with that seat's board,
    as each player's notify preference allows; then the observers'. Each
    mail is in its reader's language: ``headline`` and ``paragraphs`` may be
    lazy strings or callables (lang.text), written per reader."""
    engine = games.engine_for(g)
    state = games.state_at(s, g)
    to_move = engine.to_move(state)
    sent = 0
    queue_observers(s, g, headline)
    events.BOARDS_QUEUED.announce(s, g, headline, to_move)  # chat channels: your turn, the end, the table
    extra = list(paragraphs or [])
    if g.status == "finished":  # the result first; the scores record who played each seat
        extra.append(lambda: who_played(s, g))
        if g.hints:  # a practice game over: every hint's moves are everyone's now
            extra.append(lambda: hints_used(s, g))
    # what each reader missed since their own last move, in words: one replay for all,
    # from the oldest of those moves (at most RECENT plies back); the whole game once it is over
    hidden = visibility.secrets(s, g)
    moved = visibility.last_moved(s, g)
    humans = [x.seat for x in seating.seats(s, g.id) if x.user_id is not None and not x.is_bot]
    floor = 0 if g.status == "finished" else max(0, g.ply - visibility.RECENT,
                                                  min((moved.get(x, 0) for x in humans), default=g.ply))
    recent_in: dict[str, list] = {}  # the replay in words, once per language
    for seat in seating.seats(s, g.id):
        if seat.seat in exclude or seat.user_id is None or seat.resigned or seat.is_bot:
            continue
        user = s.get(User, seat.user_id)
        if not wants_board(user, seat.seat in to_move, g.status == "finished", essential):
            continue
        with lang.speaking(user) as code:
            if code not in recent_in:
                recent_in[code] = visibility.events(s, g, floor)
            recent = recent_in[code]
            ctx = board_context(s, g, seat.seat)
            ctx["since_lines"] = visibility.since_lines(recent, hidden, seat.seat, moved.get(seat.seat, 0))
            if g.hints:  # a practice game: who used a hint since, never what it said
                ctx["since_lines"] += visibility.hint_lines(s, g, seat.seat, moved.get(seat.seat, 0))
            said = lang.text(headline)
            if g.status == "finished":
                summary, first = final_result(s, g), [said]
                ctx["record_lines"] = [e.numbered(hidden, seat.seat) for e in recent]
            elif seat.seat in to_move:
                summary, first = _("Your turn. %(headline)s", headline=said), []
                ctx["calendar_line"] = calendar_links.mail_line(s, g, seat, user)  # the deadline as an .ics
            elif ctx["status_line"]:
                summary, first = _("%(headline)s (%(status)s)", headline=said, status=ctx["status_line"]), []
            else:
                summary, first = said, []
            ctx.update(summary=summary, title=heading(g, engine.title), greeting=greeting(user),
                       paragraphs=[*first, *(lang.text(p) for p in extra)], footer=footer(g, seat.token, visibility.public_ply(s, g)))
            queue_mail(s, to=user.email, subject=subject_for(g), context=ctx, kind="board", user=user,
                       game_id=g.id, ply=visibility.public_ply(s, g), reply_to=seat_address(g.id, seat.token, settings().domain),
                       extra_headers=unsubscribe_headers())
        mark_shown(g, to_move, seat.seat)
        sent += 1
    return sent


_OBSERVERS = select(Observer.user_id).where(Observer.game_id == bindparam("game_id"))  # built once: after every move


def queue_observers(s: Session, g: Game, headline: str) -> int:
    """The public view to every observer of the game (OBSERVE), unless STOPped."""
    sent = 0
    user_ids = list(s.connection().execute(_OBSERVERS, {"game_id": g.id}).scalars())  # Core: no ORM rows
    if not user_ids or not games.has_started(g):
        return 0
    engine = games.engine_for(g)
    boards: dict[str, dict] = {}  # the public board, once per language
    for user_id in user_ids:
        user = s.get(User, user_id)
        if user is None or user.stopped:
            continue
        with lang.speaking(user) as code:
            if code not in boards:
                boards[code] = board_context(s, g, None)
            c = dict(boards[code], summary=lang.text(headline), title=heading(g, engine.title),
                     greeting=greeting(user),
                     footer=_("You observe game #%(id)d. Send UNOBSERVE %(id)d or STOP to %(address)s to end "
                              "these mails.", id=g.id, address=settings().command_address))
            queue_mail(s, to=user.email, subject=subject_for(g), context=c, kind="board", user=user,
                       game_id=g.id, ply=visibility.public_ply(s, g), extra_headers=unsubscribe_headers())
        mark_shown(g, (), None)
        sent += 1
    return sent


def queue_notice(s: Session, g: Game, what: str, text: str, *, seats: set[int] | None = None,
                 paragraphs: list[str] | None = None) -> int:
    """A short notice (no board) to the players of ``seats`` (None = all);
    a player whose move it is is told their deadline too. ``what``, ``text``
    and ``paragraphs`` may be lazy strings or callables: each player reads
    them in their own language (lang.text)."""
    sent = 0
    to_move = games.engine_for(g).to_move(games.state_at(s, g)) if g.status == "running" else frozenset()
    for seat in seating.seats(s, g.id):
        if seat.user_id is None or seat.resigned or (seats is not None and seat.seat not in seats):
            continue
        # a seat opened to a replacement (a vote, an abandoned or ejected seat) is no longer its former
        # player's: they are told, but never given the seat's new reply address, which speaks for the seat
        token = None if seat.open_for_replacement else seat.token
        user = s.get(User, seat.user_id)
        with lang.speaking(user):
            said = lang.text(what)
            queue_mail(s, to=user.email, subject=subject_for(g),
                       context={"summary": said[:1].upper() + said[1:], "title": _("Game #%(id)d", id=g.id),
                                "greeting": greeting(user),
                                "paragraphs": [lang.text(text), *(lang.text(p) for p in paragraphs or [])],
                                "footer": footer(g, token, visibility.public_ply(s, g)),
                                "deadline_text": deadline_text(s, g, seat.seat, to_move)
                                if seat.seat in to_move and token else ""},
                       kind="notice", user=user, game_id=g.id, ply=visibility.public_ply(s, g),
                       reply_to=seat_address(g.id, token, settings().domain) if token else None)
        sent += 1
    return sent


def queue_reminder(s: Session, g: Game, seat, deadline, now=None) -> None:
    """Deadline reminder with the board; in the player's own time zone. And
    to the player's chat channels that take reminders (events.REMINDER_DUE)."""
    user = s.get(User, seat.user_id) if seat.user_id else None
    if user is None:
        return
    events.REMINDER_DUE.announce(s, g, seat, user, deadline, seat.reminded, now)
    if user.mail_failing_at is not None:  # the address bounces: no reminder
        return
    with lang.speaking(user):
        ctx = board_context(s, g, seat.seat)
        ctx.update(summary=_("Reminder: your move is due %(when)s.", when=lang.when(deadline, user.timezone, True)),
                   title=_("Reminder: game #%(id)d", id=g.id), greeting=greeting(user),
                   paragraphs=[_("Your move in game #%(id)d is due by %(when)s (%(tz)s). Reply to this mail with "
                                 "your move, or declare an absence: VACATION <from> <to>.",
                                 id=g.id, when=lang.when(deadline, user.timezone), tz=user.timezone)],
                   footer=footer(g, seat.token, visibility.public_ply(s, g)), calendar_line=calendar_links.mail_line(s, g, seat, user))
        queue_mail(s, to=user.email, subject=subject_for(g),
                   context=ctx, kind="notice", user=user, game_id=g.id, ply=visibility.public_ply(s, g),
                   reply_to=seat_address(g.id, seat.token, settings().domain))
    if g.status == "running":
        mark_shown(g, games.engine_for(g).to_move(games.state_at(s, g)), seat.seat)
