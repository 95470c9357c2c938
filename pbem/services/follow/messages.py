"""Table talk, observers, STOP and the daily digest.

``SAY <text>`` goes to the whole table, ``SAY <seat or name>: <text>`` only
to that seat; both are posts in the game thread (private ones visible only to
author and recipient) and mails. ``OBSERVE <game>`` mails the public view
after every change. ``STOP`` ends non-essential mail: table talk, observer
boards and boards for other players' moves. What still comes: replies to
your own mails, the board when it is your turn, deadline reminders, admin
decisions about your games and the end of a game. ``notify=digest`` users get
one mail a day with the posts and boards of their games instead."""
from __future__ import annotations

import re
from datetime import datetime, timedelta

from sqlmodel import Session, select

from pbem.config import settings
from pbem.i18n import _
from pbem.store.addresses import seat_address
from pbem.store.outbox import queue_mail
from pbem.store.models import Game, Observer, Post, User

from ..core import access, events, games, lang, notify, seating, thread, visibility
from ..core.clocks import aware
from ..core.errors import UserError
from . import notifications

DIGEST_EVERY = timedelta(hours=24)
TO_RE = re.compile(r"^\s*([^:\n]{1,80}?)\s*:\s*(.+)$", re.S)
TABLE = frozenset({"all", "everyone", "everybody", "table"})  # 'SAY all: ...': to the table, said outright
# Words people write before a colon in plain talk ("Ha: I can read that", "PS: ..."): capitalised like
# names, but never taken for a misspelt recipient (English, and the Russian, Bulgarian and Italian of the
# games' players).
TALK_WORDS = frozenset("""
    ha haha hah heh hehe hm hmm lol oh ah aha oops ouch wow yay yes yeah yep no nope ok okay well so
    hi hey hello dear thanks thank sorry please also and but or now then anyway btw fyi ps pps nb re fwd
    note edit update warning question answer hint tip spoiler reminder remember summary plan idea news
    important result results score scores round turn move moves step bonus fact rule rules example
    ха хм ну да нет ок кстати итак итог вопрос ответ внимание важно спасибо привет совет план
    ага ого ой ах эх упс ура ладно хорошо так вот зато но и или теперь потом итого результат счёт ход ходы
    раунд правило правила пример подсказка идея новости напоминание заметка пс мда блин
    ами ей хей здравей здрасти добре така значи обаче или сега после въпрос отговор внимание важно
    благодаря мерси моля съвет план идея новини бележка резултат точки рунд ход правило пример упс
    eh ehi ehm beh boh mah bah ahah ahahah oh ah ops wow evviva sì si no ok okay bene allora dunque
    quindi comunque ciao salve grazie prego scusa però ma oppure ora poi nota domanda risposta attenzione
    importante consiglio suggerimento piano idea novità promemoria riassunto risultato punteggio punti
    turno mossa mosse regola regole esempio
""".split())
TIME_RE = re.compile(r"^\s*\d{1,2}:\d\d\b")  # 10:30, not '2: 5 coins'
_NAME_WORD = re.compile(r"^[^\W\d_][^\W\d_'’-]*$")


def _recipients(s: Session, g: Game) -> list[tuple[int, str]]:
    """(seat, name) of every seat with a player who can read a private message."""
    names = seating.names(s, g.id)
    return [(x.seat, names[x.seat]) for x in seating.seats(s, g.id)
            if x.user_id is not None and not x.resigned and not x.is_bot]


def _who_can_read(s: Session, g: Game, mine: int | None) -> str:
    people = [f"{seat + 1} {name}" for seat, name in _recipients(s, g) if seat != mine]
    return ", ".join(people) if people else _("nobody (no other seat has a player now)")


def _distance(a: str, b: str) -> int:
    """Edits (insert, delete, change, swap two neighbours) from ``a`` to ``b``."""
    prev2, prev = None, list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        cur = [i] + [0] * len(b)
        for j, cb in enumerate(b, 1):
            cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca != cb))
            if prev2 is not None and i > 1 and j > 1 and ca == b[j - 2] and a[i - 2] == cb:
                cur[j] = min(cur[j], prev2[j - 2] + 1)
        prev2, prev = prev, cur
    return prev[len(b)]


def _looks_addressed(s: Session, g: Game, who: str) -> str | None:
    """Why ``who`` (the words before a colon that name nobody at the table)
    looks like a recipient rather than plain talk: a name of the table
    misspelt, or a name-like word or two; None for plain talk."""
    folded = who.casefold()
    near = [name for _, name in _recipients(s, g) for word in {name, (name.split() or [""])[0]}
            if _distance(folded, word.casefold()) <= (1 if len(folded) <= 4 else 2)]
    if near:
        return _("did you mean %(name)s?", name=near[0])
    words = who.split()
    if 1 <= len(words) <= 2 and words[0].casefold() not in TALK_WORDS and all(
            _NAME_WORD.match(w) and w[0].isupper() and any(c.islower() for c in w) for w in words):
        return _("it looks like a name")
    return None


def addressee(s: Session, g: Game, text: str, mine: int | None = None) -> tuple[int | None, str]:
    """Split ``<seat or name>: <text>`` into (seat, text); (None, text) for
    the table. The words before the first colon address someone when they
    name a seat or a player of the table ('2', 'seat 2', 'Bob', 'bob', Bob's
    first name), or the table itself ('all: ...'), or begin with '@'. They are
    plain talk when they are neither a name of the table misspelt nor a name:
    'Ha: I can read that', 'PS: ...', 'good news: ...', a time, a web address.
    What looks like a recipient but names nobody ('Bbo: my plan') is refused,
    naming the players one can write to: a private word must never reach the
    whole table by a typing error."""
    m = TO_RE.match(text)
    if not m:
        return None, text
    who, rest = m.group(1).strip(), m.group(2).strip()
    explicit = who.startswith("@")
    bare = " ".join(who.lstrip("@").split())
    if not explicit and (rest.startswith("//") or TIME_RE.match(text)):
        return None, text  # a web address or a time of day, not a seat
    if bare.casefold() in TABLE:
        return None, rest
    seat = seating.resolve_seat(s, g, bare)
    if seat is not None:
        return seat, rest
    why = "" if explicit else _looks_addressed(s, g, bare)
    if why is None:
        return None, text
    called = (_("nobody at the table of game #%(id)d is called '%(name)s' (%(why)s)", id=g.id, name=bare[:40], why=why)
              if why else _("nobody at the table of game #%(id)d is called '%(name)s'", id=g.id, name=bare[:40]))
    raise UserError(_("%(nobody)s; nothing was sent. You can write privately to: %(people)s (by seat number or "
                      "name); to say it to the whole table, begin with 'all:'", nobody=called,
                      people=_who_can_read(s, g, mine)),
                    example=f"SAY {_example_seat(s, g, mine)}: {rest[:40]}", code="unknown_recipient")


def _example_seat(s: Session, g: Game, mine: int | None) -> int:
    others = [seat for seat, _ in _recipients(s, g) if seat != mine]
    return (others[0] if others else 0) + 1


def say(s: Session, user: User, g: Game, text: str, *, source: str = "mail", to_seat: int | None = None,
        addressed: bool = False) -> Post:
    """Post to the table, or privately when ``text`` is ``<seat or name>: <text>``
    (``addressee``: a recipient that names nobody is refused and nothing is sent)
    or ``to_seat`` is given (a reply to a private message)."""
    thread.check_may_post(s, g, user)  # first: a stranger learns nothing about the table from the answer
    text = (text or "").strip().lstrip(":").strip()
    mine = seating.seat_of(s, g.id, user.id)
    if to_seat is None and not addressed:  # ``addressed``: the caller split it already (None = the table)
        to_seat, text = addressee(s, g, text, mine.seat if mine is not None else None)
    p = thread.post(s, g, user, text, to_seat=to_seat, source=source)
    who = user.name
    # a reply to a private message stays private (pipeline: replies to talk are talk)
    what = "talk" if to_seat is None or mine is None else f"pm{mine.seat}"
    for seat in seating.seats(s, g.id):
        if seat.user_id in (None, user.id) or seat.resigned:
            continue
        if to_seat is not None and seat.seat != to_seat:
            continue
        rcpt = s.get(User, seat.user_id)
        if rcpt.stopped or rcpt.notify == "digest":
            continue
        with lang.speaking(rcpt):
            if to_seat is not None:
                summary, intro = (_("%(who)s wrote privately.", who=who), _("%(who)s wrote privately:", who=who))
                answer = _("Reply to this mail to answer %(who)s privately.", who=who)
            else:
                summary, intro = (_("%(who)s wrote to the table.", who=who),
                                  _("%(who)s wrote to the table:", who=who))
                answer = _("Reply to this mail to answer the table (a reply is table talk unless it is in move "
                           "notation), or SAY %(who)s: <text> to write to %(who)s alone.", who=who)
            queue_mail(s, to=rcpt.email, subject=notify.subject_for(g),
                       context={"summary": summary, "title": _("Game #%(id)d", id=g.id),
                                "greeting": notify.greeting(rcpt), "paragraphs": [intro, text, answer]},
                       kind="notice", user=rcpt, game_id=g.id, ply=visibility.public_ply(s, g), what=what,
                       reply_to=seat_address(g.id, seat.token, settings().domain),
                       extra_headers=notify.unsubscribe_headers())
    return p


def observe(s: Session, user: User, g: Game) -> bool:
    """Returns False when already observing. A private game is observed only by those who may see it."""
    access.require_seen(s, g, user)
    if g.status == "cancelled":
        raise UserError(_("game #%(id)d was cancelled before it started; there is nothing to observe", id=g.id),
                        example="GAMES", code="cancelled")
    if g.status == "open":
        raise UserError(_("game #%(id)d has not started; observe it once it runs", id=g.id), example="GAMES",
                        code="not_started")
    if s.exec(select(Observer).where(Observer.game_id == g.id, Observer.user_id == user.id)).first():
        return False
    s.add(Observer(game_id=g.id, user_id=user.id))
    s.flush()
    return True


def unobserve(s: Session, user: User, g: Game) -> bool:
    row = s.exec(select(Observer).where(Observer.game_id == g.id, Observer.user_id == user.id)).first()
    if row is None:
        return False
    s.delete(row)
    s.flush()
    return True


NOTIFY_CHOICES = ("every", "turn", "digest")


def set_notify(s: Session, user: User, choice: str) -> None:
    """every: a board after every move; turn: only when it is your turn;
    digest: one mail a day."""
    choice = (choice or "").strip().lower()
    if choice not in NOTIFY_CHOICES:
        raise UserError(_("NOTIFY is one of %(list)s", list=", ".join(NOTIFY_CHOICES)), example="NOTIFY digest",
                        code="bad_notify")
    user.notify = choice
    s.add(user)
    s.flush()


def stop(s: Session, user: User, on: bool = True) -> None:
    user.stopped = on
    s.add(user)
    s.flush()


def _due_users(now: datetime, after: int):
    """The users whose digest is due (users.digest_due_at, by its index), after id ``after``, in id order."""
    return (select(User).where(User.digest_due_at <= now, User.notify == "digest", User.id > after)
            .order_by(User.id))


def send_digests(s: Session, now: datetime, users: list[User] | None = None) -> int:
    """One mail per ``notify=digest`` user, at most daily: the thread posts
    they may read since the last digest, and their boards. The users whose
    digest is due, or only ``users`` (the sweep's batches: :func:`send_all_digests`)."""
    sent = 0
    for user in list(s.exec(_due_users(now, 0))) if users is None else users:
        last = aware(user.digest_sent_at)
        if not notifications.digest_due(user, last, now):  # at the user's digest hour, or a day after the last
            continue
        since = last or (now - DIGEST_EVERY)
        with lang.speaking(user):
            paragraphs = _digest(s, user, since)
            events.DIGEST_WRITTEN.announce(s, user, paragraphs)  # the rooms above add theirs (tournaments)
        user.digest_sent_at = now
        s.add(user)
        if not paragraphs:
            continue
        with lang.speaking(user):
            queue_mail(s, to=user.email, subject=_("pbem: your daily digest"),
                       context={"title": _("Your games today"), "greeting": notify.greeting(user),
                                "paragraphs": paragraphs,
                                "footer": _("You get a daily digest. Change it on %(web)s/ or send STOP to "
                                            "%(address)s.", web=settings().base_url,
                                            address=settings().command_address)},
                       kind="notice", user=user, extra_headers=notify.unsubscribe_headers())
        sent += 1
    s.flush()
    return sent


def send_all_digests(now: datetime) -> int:
    """Every due digest, notifications.DIGEST_BATCH users to a transaction (notifications.in_batches)."""
    return notifications.in_batches(
        lambda s, after: list(s.exec(_due_users(now, after).limit(notifications.DIGEST_BATCH))),
        lambda s, users: send_digests(s, now, users), key=lambda u: u.id)


def _digest(s: Session, user: User, since: datetime) -> list[str]:
    """The paragraphs of ``user``'s digest: each started game's posts since ``since`` and its board."""
    paragraphs: list[str] = []
    for g in games.list_mine(s, user):
        if not games.has_started(g):
            continue
        posts = [p for p in visibility.posts(s, g, visibility.viewer(s, g, user)) if aware(p.created_at) > since]
        if not posts and g.status != "running":
            continue
        seat = visibility.viewer(s, g, user).seat
        board = notify.board_context(s, g, seat)
        if g.status == "running":  # the digest's reader has seen the board as it is now (services/referee/undo)
            notify.mark_shown(g, games.engine_for(g).to_move(games.state_at(s, g)), seat)
        lines = [_("Game #%(id)d (%(game)s), ply %(ply)d: %(status)s", id=g.id, game=games.engine_for(g).title,
                   ply=visibility.public_ply(s, g), status=board["status_line"])]
        for p in posts:
            if p.private:
                lines.append("  " + _("%(author)s (privately to %(to)s): %(text)s", author=p.author, to=p.to,
                                      text=p.body))
            else:
                lines.append(f"  {p.author}: {p.body}")
        lines.append(board["board_text"])
        paragraphs.append("\n".join(lines))
    return paragraphs
