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
from pbem.store.addresses import seat_address
from pbem.store.outbox import queue_mail
from pbem.store.models import Game, Observer, Post, User

from . import games, thread, visibility
from .errors import UserError

DIGEST_EVERY = timedelta(hours=24)
TO_RE = re.compile(r"^\s*([^:\n]{1,80}?)\s*:\s*(.+)$", re.S)
TABLE = frozenset({"all", "everyone", "everybody", "table"})  # 'SAY all: ...': to the table, said outright
# Words people write before a colon in plain talk ("Ha: I can read that", "PS: ..."): capitalised like
# names, but never taken for a misspelt recipient (English, and the Russian of Squire's players).
TALK_WORDS = frozenset("""
    ha haha hah heh hehe hm hmm lol oh ah aha oops ouch wow yay yes yeah yep no nope ok okay well so
    hi hey hello dear thanks thank sorry please also and but or now then anyway btw fyi ps pps nb re fwd
    note edit update warning question answer hint tip spoiler reminder remember summary plan idea news
    important result results score scores round turn move moves step bonus fact rule rules example
    ха хм ну да нет ок кстати итак итог вопрос ответ внимание важно спасибо привет совет план
""".split())
TIME_RE = re.compile(r"^\s*\d{1,2}:\d\d\b")  # 10:30, not '2: 5 coins'
_NAME_WORD = re.compile(r"^[^\W\d_][^\W\d_'’-]*$")


def _recipients(s: Session, g: Game) -> list[tuple[int, str]]:
    """(seat, name) of every seat with a player who can read a private message."""
    names = games.names(s, g.id)
    return [(x.seat, names[x.seat]) for x in games.seats(s, g.id)
            if x.user_id is not None and not x.resigned and not x.is_bot]


def _who_can_read(s: Session, g: Game, mine: int | None) -> str:
    people = [f"{seat + 1} {name}" for seat, name in _recipients(s, g) if seat != mine]
    return ", ".join(people) if people else "nobody (no other seat has a player now)"


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


def resolve_seat(s: Session, g: Game, who: str) -> int | None:
    """The seat ``who`` names: a seat number (1-based, also 'seat 2'), a
    player's name, or a player's first name when only one player has it; None
    when it names nobody. Two players of one name are told apart by seat."""
    who = " ".join(who.strip().lstrip("@").split())
    folded = who.casefold()
    number = folded[5:].strip() if folded.startswith("seat ") else folded
    if number.isdigit():
        n = int(number)
        if not 1 <= n <= g.players:
            raise UserError(f"game #{g.id} has seats 1 to {g.players}", example="SAY 2: well played",
                            code="no_seat")
        return n - 1
    names = games.names(s, g.id)
    # a whole name or a first name: every seat it could mean (issue 17 §17: "Bob" is both Bob's whole name
    # and Bob Smith's first name -- a private word must not go to whichever comes first)
    candidates = [i for i, name in enumerate(names) if " ".join(name.split()).casefold() == folded
                  or (name.split() or [""])[0].casefold() == folded]
    if len(candidates) > 1:
        seats_ = " and ".join(f"{i + 1} ({names[i]})" for i in candidates)
        raise UserError(f"{len(candidates)} players of game #{g.id} could be meant by {who} (seats {seats_}); "
                        f"nothing was sent: write to one of them by seat number",
                        example=f"SAY {candidates[0] + 1}: well played", code="ambiguous_recipient")
    return candidates[0] if candidates else None


def _looks_addressed(s: Session, g: Game, who: str) -> str | None:
    """Why ``who`` (the words before a colon that name nobody at the table)
    looks like a recipient rather than plain talk: a name of the table
    misspelt, or a name-like word or two; None for plain talk."""
    folded = who.casefold()
    near = [name for _, name in _recipients(s, g) for word in {name, (name.split() or [""])[0]}
            if _distance(folded, word.casefold()) <= (1 if len(folded) <= 4 else 2)]
    if near:
        return f"did you mean {near[0]}?"
    words = who.split()
    if 1 <= len(words) <= 2 and words[0].casefold() not in TALK_WORDS and all(
            _NAME_WORD.match(w) and w[0].isupper() and any(c.islower() for c in w) for w in words):
        return "it looks like a name"
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
    seat = resolve_seat(s, g, bare)
    if seat is not None:
        return seat, rest
    why = "" if explicit else _looks_addressed(s, g, bare)
    if why is None:
        return None, text
    raise UserError(f"nobody at the table of game #{g.id} is called '{bare[:40]}'" + (f" ({why})" if why else "")
                    + f"; nothing was sent. You can write privately to: {_who_can_read(s, g, mine)} (by seat "
                    f"number or name); to say it to the whole table, begin with 'all:'",
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
    mine = games.seat_of(s, g.id, user.id)
    if to_seat is None and not addressed:  # ``addressed``: the caller split it already (None = the table)
        to_seat, text = addressee(s, g, text, mine.seat if mine is not None else None)
    from . import notify

    p = thread.post(s, g, user, text, to_seat=to_seat, source=source)
    who = user.name
    # a reply to a private message stays private (pipeline: replies to talk are talk)
    what = "talk" if to_seat is None or mine is None else f"pm{mine.seat}"
    for seat in games.seats(s, g.id):
        if seat.user_id in (None, user.id) or seat.resigned:
            continue
        if to_seat is not None and seat.seat != to_seat:
            continue
        rcpt = s.get(User, seat.user_id)
        if rcpt.stopped or rcpt.notify == "digest":
            continue
        kind = "privately" if to_seat is not None else "to the table"
        queue_mail(s, to=rcpt.email, subject=notify.subject_for(g),
                   context={"summary": f"{who} wrote {kind}.", "title": f"Game #{g.id}",
                            "greeting": f"Dear {rcpt.name},",
                            "paragraphs": [f"{who} wrote {kind}:", text,
                                           (f"Reply to this mail to answer {who} privately." if to_seat is not None else
                                            f"Reply to this mail to answer the table (a reply is table talk unless it "
                                            f"is in move notation), or SAY {who}: <text> to write to {who} alone.")]},
                   kind="notice", user=rcpt, game_id=g.id, ply=g.ply, what=what,
                   reply_to=seat_address(g.id, seat.token, settings().domain),
                   extra_headers=notify.unsubscribe_headers())
    return p


def observe(s: Session, user: User, g: Game) -> bool:
    """Returns False when already observing."""
    if g.status == "cancelled":
        raise UserError(f"game #{g.id} was cancelled before it started; there is nothing to observe",
                        example="GAMES", code="cancelled")
    if g.status == "open":
        raise UserError(f"game #{g.id} has not started; observe it once it runs", example="GAMES",
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
        raise UserError(f"NOTIFY is one of {', '.join(NOTIFY_CHOICES)}", example="NOTIFY digest", code="bad_notify")
    user.notify = choice
    s.add(user)
    s.flush()


def stop(s: Session, user: User, on: bool = True) -> None:
    user.stopped = on
    s.add(user)
    s.flush()


def send_digests(s: Session, now: datetime) -> int:
    """One mail per ``notify=digest`` user, at most daily: the thread posts
    they may read since the last digest, and their boards."""
    from . import notify
    from .deadlines import aware

    sent = 0
    for user in s.exec(select(User).where(User.notify == "digest")):
        last = aware(user.digest_sent_at)
        if last is not None and now - last < DIGEST_EVERY:
            continue
        since = last or (now - DIGEST_EVERY)
        paragraphs: list[str] = []
        for g in games.list_mine(s, user):
            if not games.has_started(g):
                continue
            posts = [p for p in visibility.posts(s, g, visibility.viewer(s, g, user)) if aware(p.created_at) > since]
            if not posts and g.status != "running":
                continue
            seat = visibility.viewer(s, g, user).seat
            board = notify.board_context(s, g, seat)
            if g.status == "running":  # the digest's reader has seen the board as it is now (services/undo)
                notify.mark_shown(g, games.engine_for(g).to_move(games.state_at(s, g)), seat)
            lines = [f"Game #{g.id} ({games.engine_for(g).title}), ply {g.ply}: {board['status_line']}"]
            for p in posts:
                private = f" (privately to {p.to})" if p.private else ""
                lines.append(f"  {p.author}{private}: {p.body}")
            lines.append(board["board_text"])
            paragraphs.append("\n".join(lines))
        user.digest_sent_at = now
        s.add(user)
        if not paragraphs:
            continue
        queue_mail(s, to=user.email, subject="pbem: your daily digest",
                   context={"title": "Your games today", "greeting": f"Dear {user.name},",
                            "paragraphs": paragraphs,
                            "footer": f"You get a daily digest. Change it on {settings().base_url}/ "
                                      f"or send STOP to {settings().command_address}."},
                   kind="notice", user=user, extra_headers=notify.unsubscribe_headers())
        sent += 1
    s.flush()
    return sent
