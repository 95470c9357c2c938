"""The post-game review (docs/bots.md, "Reviews and hints"): for a finished game, each human
seat's decisions replayed from the record and weighed by the search bot at the "normal" level
(pbem/engine/advice.py), from what the seat could see at the time.

Per decision with more than one legal move: the move played, its rank among the search's
choices, its value (about: the chance of winning) and its estimated final score; the search's
first choice with the same two estimates. Per seat: the decisions reviewed, how many matched the
search's first choice, the points left on the table (the sum of the positive gaps in estimated
final score) and the few decisions with the largest gaps, each with a sentence saying what each
move does, in every language (the mail and the page pick the reader's).

The work is bounded per game: settings().review_cpu_s CPU seconds and settings().review_decisions
decisions. The decisions are taken in an order that gives each seat its share and spreads any
prefix of it evenly over the game, so a review cut short by its bound is an even sample, and says
so. Every estimate is seeded from the game's seed and the ply: the same decision is always
weighed the same way.

The GAME_FINISHED listener (:func:`finished`) hands the game to the bots' queue after the commit
(the task pbem.review, :func:`review_game`); the periodic sweep hands it again when its reviews
are missing (:func:`missing`). :func:`review_game` computes with no transaction open, then stores
the rows and queues one mail per human player in one transaction, only if no row is stored yet."""
from __future__ import annotations

import hashlib
import logging
import os
import socket
import time
import uuid
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Callable, Sequence

from sqlalchemy import delete, exists
from sqlmodel import Session, select

from pbem.config import settings
from pbem.engine import advice
from pbem.engine import i18n as engine_i18n
from pbem.engine.bots import budget
from pbem.i18n import _, current as current_language, format_number, ngettext
from pbem.store.models import Game, Move, Review, Seat, User, utcnow
from pbem.store.outbox import queue_mail

from ..core import games, lang, notify, seating, visibility
from ..core.errors import NotFound

log = logging.getLogger("pbem.review")

LEVEL = "normal"  # the level a review searches at: the stand-ins' own, a few tenths of a second a decision
TOP = 5  # the decisions with the largest gaps a review lists
TASK = "pbem.review"
# the review starts this long after the game's end: the last board mails go first, and a move taken back
# at once (the game runs again) finds no review begun; the task reviews a game only while it is over
DELAY_S = 60.0
RECENT_DAYS = 7  # the sweep hands again a game finished this recently whose reviews are missing
SWEEP_GRACE_S = 600  # ... and not sooner than this after its end (its first task may still be running)
SWEEP_BATCH = 20  # games handed again per sweep at most


# ---------------------------------------------------------------- the computation (pure: the engine only)


@dataclass(frozen=True)
class Decision:
    """One choice a seat made: the position before it (``ply`` moves applied), the move."""

    ply: int
    seat: int
    state: Any
    move: Any
    notation: str  # as recorded
    at: int  # the ply the move made (the number the record gives it)


def decisions(engine, state, record: Sequence[tuple[int, int, str, str]], seats: set[int]) -> list[Decision]:
    """Replay ``record`` -- (ply, seat, notation, source) of the live moves, in order -- from
    ``state`` and list the decisions of ``seats`` that had more than one legal move. A move a bot
    played for the seat (source "bot": a late player's stand-in) was no decision of the player's."""
    out: list[Decision] = []
    last = 0  # the ply of the state before the move: the previous live move's (a move taken back left a gap)
    for ply, seat, notation, source in record:
        move = engine.parse_move(state, seat, notation)
        if seat in seats and source != "bot" and advice.decisions(engine, state, seat) > 1:
            out.append(Decision(last, seat, state, move, notation, ply))
        state = engine.apply(state, seat, move)
        last = ply
    return out


def spread(n: int) -> list[int]:
    """0..n-1 in an order whose every prefix is spread evenly over the range (the bit-reversed
    fractions k/2^b): a review cut short has looked at the whole game, not at its start."""
    bits = max(1, (n - 1).bit_length())
    order, seen = [], set()
    for k in range(1 << bits):
        i = (int(format(k, f"0{bits}b")[::-1], 2) * n) >> bits
        if i not in seen:
            seen.add(i)
            order.append(i)
    return order + [i for i in range(n) if i not in seen]


def order(found: Sequence[Decision]) -> list[int]:
    """The indexes of ``found`` in the order they are weighed: the seats in turn, each seat's own
    decisions in :func:`spread` order, so that a review cut short gives every seat its share,
    spread over the whole game."""
    by_seat: dict[int, list[int]] = {}
    for i, d in enumerate(found):
        by_seat.setdefault(d.seat, []).append(i)
    queues = [[mine[k] for k in spread(len(mine))] for _seat, mine in sorted(by_seat.items())]
    out = []
    for k in range(max((len(q) for q in queues), default=0)):
        out += [q[k] for q in queues if k < len(q)]
    return out


def seed_of(game_seed: int, ply: int, seat: int) -> int:
    """A decision's seed: the game's seed and the ply (the same decision always weighed alike)."""
    return int(hashlib.sha256(f"{game_seed}:review:{ply}:{seat}".encode()).hexdigest()[:15], 16)


def weigh(engine, d: Decision, game_seed: int, level: str = LEVEL) -> dict:
    """One decision weighed by the search, from the seat's view (advice.advise)."""
    seed = seed_of(game_seed, d.ply, d.seat)
    a = advice.advise(engine, d.state, d.seat, seed, level, include=[d.move])
    played, best = a.of(d.move), a.best
    entry = {"ply": d.ply, "at": d.at, "seat": d.seat, "seed": seed, "played": played.notation if played else d.notation,
             "rank": a.rank(d.move), "value": played.value if played else None,
             "points": played.points if played else None, "best": best.notation, "best_value": best.value,
             "best_points": best.points, "choices": len(a.choices)}
    entry["gap"] = round(best.points - played.points, 2) if played is not None and best.move != d.move else 0.0
    entry["_moves"] = (d.move, best.move)  # for the explanations of the listed ones; not stored
    return entry


def explanations(engine, d: Decision, entry: dict) -> dict[str, dict[str, str]]:
    """What the move played and the search's choice do, one sentence each, in every language."""
    played, best = entry["_moves"]
    out = {}
    for code in engine_i18n.LANGUAGES:
        with engine_i18n.language(code):
            out[code] = {"played": advice.explain(engine, d.state, d.seat, entry["seed"], played) or "",
                         "best": advice.explain(engine, d.state, d.seat, entry["seed"], best) or ""}
    return out


def compute(engine, game_seed: int, found: Sequence[Decision], seats: Sequence[int], *, cpu_s: float,
            most: int, level: str = LEVEL, clock: Callable[[], float] = time.thread_time) -> tuple[dict, float]:
    """The reviews of ``seats`` from their decisions ``found``: at most ``most`` decisions and about
    ``cpu_s`` CPU seconds (the decision under way finishes), taken in :func:`spread` order.
    Returns ({seat: results}, CPU seconds spent). Reads only what each seat could see: each
    decision is weighed in the seat's view (advice), so the results depend on nothing else."""
    start = clock()
    weighed: dict[int, dict] = {}
    for i in order(found):
        if len(weighed) >= most or clock() - start >= cpu_s:
            break
        weighed[i] = weigh(engine, found[i], game_seed, level)
    iterations = budget(engine, level).iterations if advice.knowledge(engine) is not None else 0
    out = {}
    for seat in seats:
        mine = [i for i in range(len(found)) if found[i].seat == seat]
        done = [i for i in mine if i in weighed]
        entries = [weighed[i] for i in done]
        top = sorted((i for i in done if weighed[i]["gap"] > 0), key=lambda i: (-weighed[i]["gap"], weighed[i]["ply"]))
        listed = []
        for i in top[:TOP]:
            e = dict(weighed[i])
            e["explain"] = explanations(engine, found[i], e)
            listed.append(e)
        out[seat] = {
            "level": level, "iterations": iterations, "decisions": len(mine), "reviewed": len(done),
            "sampled": len(done) < len(mine), "matched": sum(1 for e in entries if e["rank"] == 1),
            "points_lost": round(sum(max(0.0, e["gap"]) for e in entries), 2),
            "top": [{k: v for k, v in e.items() if k != "_moves"} for e in listed],
            "all": [{k: v for k, v in e.items() if k not in ("_moves", "seed", "seat")} for e in entries],
        }
    return out, clock() - start


# ---------------------------------------------------------------- the store: compute, keep, mail


def humans(s: Session, g: Game) -> list[Seat]:
    """The seats a person holds (a bot is not reviewed: it is no person)."""
    return [x for x in seating.seats(s, g.id) if x.user_id is not None and not x.is_bot]


def finished(s: Session, g: Game) -> None:
    """events.GAME_FINISHED: once the transaction commits, the game's reviews are computed on the
    bots' queue, DELAY_S later (by the task's name: pbem.celery_app)."""
    callbacks = getattr(s, "after_commit", None)
    if callbacks is None or not humans(s, g):
        return
    if any(getattr(cb, "_review_game", None) == g.id for cb in callbacks):
        return
    gid = g.id

    def enqueue() -> None:
        from pbem.celery_app import enqueue_review

        enqueue_review(gid, countdown=DELAY_S)

    enqueue._review_game = gid  # type: ignore[attr-defined]
    callbacks.append(enqueue)


def missing(s: Session, now: datetime | None = None, *, limit: int = SWEEP_BATCH) -> list[int]:
    """Games finished in the last RECENT_DAYS (and more than SWEEP_GRACE_S ago) with a person at
    the table and no review stored: the sweep hands them to the bots' queue again (a lost task
    never loses a review)."""
    now = now or utcnow()
    has_person = exists().where(Seat.game_id == Game.id, Seat.is_bot == False, Seat.user_id.is_not(None))  # noqa: E712
    reviewed = exists().where(Review.game_id == Game.id)
    q = (select(Game.id).where(Game.status == "finished", Game.updated_at >= now - timedelta(days=RECENT_DAYS),
                               Game.updated_at < now - timedelta(seconds=SWEEP_GRACE_S), has_person, ~reviewed)
         .order_by(Game.id).limit(limit))
    return list(s.exec(q))


def review_game(game_id: int, uow: Callable | None = None, now: datetime | None = None) -> int:
    """Compute, store and mail the reviews of a finished game (the task pbem.review). Idempotent:
    a game whose reviews are stored is not reviewed again, and of two computations at once one
    stores (the game's row is locked to store; a lease keeps a second from computing meanwhile).
    Returns the rows stored."""
    from pbem.store import leases
    from pbem.store.db import unit_of_work

    uow = uow or unit_of_work
    cfg = settings()
    with uow() as s:
        try:
            g = games.get(s, game_id)
        except NotFound:  # gone (an open game removed): nothing to review
            return 0
        if g.status != "finished":
            return 0
        seats = [x.seat for x in humans(s, g)]
        if not seats or _current(s, g):
            return 0
        engine = games.engine_for(g)
        record = [(m.ply, m.seat, m.notation, m.source) for m in s.exec(
            select(Move).where(Move.game_id == g.id, Move.undone == False).order_by(Move.ply))]  # noqa: E712
        players, seed, options, ply = g.players, g.seed, dict(g.options or {}), g.ply
    holder = f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"
    lease = f"review:{game_id}"
    if not leases.acquire(lease, holder, 2 * cfg.review_cpu_s + 120):
        return 0  # another worker is computing it, or its last try failed a moment ago
    # the lease is given up once the reviews are stored; a try that fails keeps it until it expires, so
    # that the sweep's next hand-over waits that long and a review that cannot be made never runs hot
    if advice.knowledge(engine) is None:  # a game without a search bot: nothing to weigh
        results, spent = {x: _empty() for x in seats}, 0.0
    else:
        found = decisions(engine, engine.initial_state(players, seed, options), record, set(seats))
        results, spent = compute(engine, seed, found, seats, cpu_s=cfg.review_cpu_s, most=cfg.review_decisions)
    rows = []
    with uow() as s:
        g = games.get(s, game_id, lock=True)
        fresh = g.status == "finished" and g.ply == ply and not _current(s, g)  # else stored meanwhile, or moved
        if fresh:  # the reviews of an end taken back (the game went on and ended again) make way
            s.exec(delete(Review).where(Review.game_id == g.id))
        for x in humans(s, g) if fresh else []:
            if x.seat not in results:
                continue
            row = Review(game_id=g.id, seat=x.seat, user_id=x.user_id, level=LEVEL,
                         results={**results[x.seat], "game_ply": ply}, cpu_s=round(spent, 3),
                         created_at=now or utcnow())
            s.add(row)
            rows.append((x, row))
        s.flush()
        for x, row in rows:
            _mail(s, g, x, row)
    log.info("game %s reviewed: %d seat(s), %.2f CPU s", game_id, len(rows), spent)
    leases.release(lease, holder)
    return len(rows)


def _empty() -> dict:
    return {"level": LEVEL, "iterations": 0, "decisions": 0, "reviewed": 0, "sampled": False, "matched": 0,
            "points_lost": 0.0, "top": [], "all": [], "unavailable": True}


def _rows(s: Session, g: Game) -> list[Review]:
    """The game's reviews of its end as it stands (a review of an end taken back is no review of it)."""
    rows = list(s.exec(select(Review).where(Review.game_id == g.id).order_by(Review.seat)))
    return [r for r in rows if r.results.get("game_ply") == g.ply]


def _current(s: Session, g: Game) -> bool:
    return bool(_rows(s, g))


def level_line(r: dict) -> str:
    """What the review is and is not, in the current language."""
    return ngettext("Reviewed by the normal search, %(num)d iteration per decision, from what the player could "
                    "see at the time. The search can be wrong: its estimates are rough.",
                    "Reviewed by the normal search, %(num)d iterations per decision, from what the player could "
                    "see at the time. The search can be wrong: its estimates are rough.",
                    int(r.get("iterations") or 0))


def summary_line(name: str, r: dict) -> str:
    """One line per player: how many decisions matched the search's first choice, the points the
    search thinks were left on the table; whether the decisions are a sample."""
    if r.get("unavailable"):
        return _("%(name)s: no review (this game has no search to review with).", name=name)
    line = ngettext("%(name)s: %(matched)d of %(num)d decision matched the search's first choice; about "
                    "%(points)s points left on the table.",
                    "%(name)s: %(matched)d of %(num)d decisions matched the search's first choice; about "
                    "%(points)s points left on the table.", r["reviewed"], name=name, matched=r["matched"],
                    points=_num(r["points_lost"]))
    if r.get("sampled"):
        line += " " + ngettext("(A sample of %(reviewed)d of the %(num)d decision, spread over the game: the "
                               "review's time is bounded.)",
                               "(A sample of %(reviewed)d of the %(num)d decisions, spread over the game: the "
                               "review's time is bounded.)", r["decisions"], reviewed=r["reviewed"])
    return line


def decision_line(e: dict, shown_ply: int) -> str:
    """One listed decision in words: what was played, what the search preferred, by how much."""
    return _("Ply %(ply)d: played %(played)s (%(value)d%% to win, about %(points)s points); the search "
             "preferred %(best)s (%(best_value)d%%, about %(best_points)s points), %(gap)s points more.",
             ply=shown_ply, played=e["played"], value=_pct(e["value"]), points=_num(e["points"]), best=e["best"],
             best_value=_pct(e["best_value"]), best_points=_num(e["best_points"]), gap=_num(e["gap"]))


def why(e: dict, language: str | None = None) -> tuple[str, str]:
    """What the move played and the search's choice do, in ``language`` (the current one)."""
    words = (e.get("explain") or {}).get(language or current_language()) or {}
    return words.get("played") or "", words.get("best") or ""


def why_line(e: dict) -> str:
    """The two explanations in one line (the mail)."""
    played, best = why(e)
    return _("Played: %(played)s. Preferred: %(best)s.", played=played, best=best) if played and best else ""


def _pct(v) -> int:
    return int(round(100 * float(v or 0.0)))


def _num(v) -> str:
    # an estimate, written with its one decimal always: "1.0 points", as a hint writes it too
    return format_number(float(v or 0.0), decimals=1)


def _mail(s: Session, g: Game, seat: Seat, row: Review) -> None:
    """The player's own review, in their language, with the link to the game's review page."""
    user = s.get(User, seat.user_id)
    if user is None or user.mail_failing_at is not None:  # an address that bounces gets no review by mail
        return
    cfg = settings()
    r = row.results
    names = seating.names(s, g.id)
    with lang.speaking(user):
        title = _("Your review of game #%(id)d", id=g.id)
        paragraphs = [summary_line(names[seat.seat], r), level_line(r)]
        if r.get("top"):
            paragraphs.append(_("The decisions where the search saw the largest gaps:"))
            for e in r["top"]:
                paragraphs.append(" ".join(filter(None, (decision_line(e, _shown(s, g, e)), why_line(e)))))
        elif not r.get("unavailable"):
            paragraphs.append(_("The search found no decision where it clearly preferred another move."))
        paragraphs.append(_("Each position, as you saw it, and every player's review: %(url)s",
                            url=f"{cfg.base_url}/games/{g.id}/review"))
        queue_mail(s, to=user.email, subject=notify.subject_for(g),
                   context={"summary": title, "title": title, "greeting": notify.greeting(user),
                            "paragraphs": paragraphs, "footer": notify.footer(g, None)},
                   kind="notice", user=user, game_id=g.id, what="review")


# ---------------------------------------------------------------- what a page shows


@dataclass(frozen=True)
class Listed:
    """One listed decision as a reader sees it: the position as the seat saw it then."""

    entry: dict
    shown_ply: int
    line: str
    why_played: str
    why_best: str
    board_html: str
    status: str
    drawing: str = ""  # the seat's view drawn (SVG), "" for a game that draws none or a drawing that failed


@dataclass(frozen=True)
class SeatReview:
    seat: int
    name: str
    mine: bool
    summary: str
    level: str
    listed: list[Listed]


def shown(s: Session, g: Game, who: visibility.Viewer) -> list[SeatReview]:
    """The reviews of a finished game as ``who`` may read them: nothing before the end; after it,
    every seat's (the whole record is public then), the reader's own first. Each listed decision
    with its position as that seat saw it (the engine's view of the seat: its own hand, never the
    others'), read in one replay of the record."""
    if g.status != "finished":
        return []
    rows = _rows(s, g)
    if not rows:
        return []
    engine = games.engine_for(g)
    names = seating.names(s, g.id)
    wanted = {(e["ply"], r.seat) for r in rows for e in r.results.get("top", [])}
    boards = _positions(s, g, engine, wanted, names)
    out = []
    for r in sorted(rows, key=lambda r: (r.seat != who.seat, r.seat)):
        name = names[r.seat] if r.seat < len(names) else _("Seat %(n)d", n=r.seat + 1)
        listed = []
        for e in r.results.get("top", []):
            ply = _shown(s, g, e)
            html, status, drawing = boards.get((e["ply"], r.seat), ("", "", ""))
            listed.append(Listed(e, ply, decision_line(e, ply), *why(e), html, status, drawing))
        out.append(SeatReview(r.seat, name, r.seat == who.seat, summary_line(name, r.results),
                              level_line(r.results), listed))
    return out


def summaries(s: Session, g: Game, who: visibility.Viewer) -> list[tuple[str, bool]]:
    """The summary line of each stored review of a finished game, the reader's own first, and
    whether it is the reader's (the game's page; the review's own page has the rest)."""
    if g.status != "finished":
        return []
    rows = _rows(s, g)
    names = seating.names(s, g.id)
    return [(summary_line(names[r.seat] if r.seat < len(names) else _("Seat %(n)d", n=r.seat + 1), r.results),
             r.seat == who.seat) for r in sorted(rows, key=lambda r: (r.seat != who.seat, r.seat))]


def _shown(s: Session, g: Game, e: dict) -> int:
    """The number a reader knows a decision's move by: its ply as the record shows it."""
    return visibility.counter(s, g, e.get("at", e["ply"] + 1))


def _positions(s: Session, g: Game, engine, wanted: set[tuple[int, int]], names: list[str]) -> dict:
    """{(ply, seat): (text board as HTML, status line, drawing)} of the seat's view at each wanted ply:
    one replay of the live record. The drawing is made from the same view as the text board (so it
    shows nothing the seat could not see); one that fails is logged and left out, the text board
    being the whole account."""
    if not wanted:
        return {}
    last = max(p for p, _ in wanted)
    state = engine.initial_state(g.players, g.seed, g.options)
    out = {}

    def take(ply: int, st) -> None:
        for p, seat in wanted:
            if p == ply:
                view = games.view_for(s, g, seat, ply, state=st, names=names)
                out[(p, seat)] = (engine.render_html(view), str(view.get("status") or ""), _drawn(engine, g, view))

    take(0, state)
    for m in games.live_moves(s, g, 0, last):
        state = engine.apply(state, m.seat, engine.parse_move(state, m.seat, m.notation))
        take(m.ply, state)
    return out


def _drawn(engine, g: Game, view: dict) -> str:
    """The view drawn by its engine (the wide layout, the one every drawing game has), or ""."""
    draw = getattr(engine, "draw_svg", None)
    if draw is None:
        return ""
    try:
        return draw(view)
    except Exception:
        log.exception("drawing a reviewed position of game #%s failed", g.id)
        return ""
