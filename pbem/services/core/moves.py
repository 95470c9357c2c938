"""Moves: what a seat sends, checked in the fixed order (game, not over, seat, ply, parse, legal),
applied by the engine and written to the record -- and what follows each change: the turn
counted, the seats' clocks set, and the events the rooms above listen to (core/events.py)."""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Sequence

from sqlalchemy import bindparam, delete, insert, update
from sqlalchemy.orm.attributes import set_committed_value
from sqlmodel import Session, select

from pbem.config import settings
from pbem.engine import Game as Engine
from pbem.engine import GameOverError, IllegalMoveError, MoveError, NotYourTurnError
from pbem.engine.base import name_seats, normalize_notation
from pbem.i18n import _
from pbem.store import live
from pbem.store.models import Game, Move, Post, Snapshot, utcnow

from . import clocks, events, games, reliability, seating, visibility
from .errors import ConcurrentUpdate, StaleMoveError, UserError

DECIDING = "pbem.deciding"  # Session.info: (game id, ply, seat) -> deciding_state's answer for a seat not to move

@dataclass
class Applied:
    text: str
    notation: str
    ply: int
    note: str = ""  # a move the order left unsaid (engine.implied_move): why, for the mover's receipt only
    added: bool = False  # a move the services added (implied or closing), not a text of the batch


@dataclass
class SubmitResult:
    game_id: int
    seat: int
    applied: list[Applied] = field(default_factory=list)
    error: MoveError | UserError | None = None
    failed_text: str | None = None
    not_applied: list[str] = field(default_factory=list)
    ply: int = 0
    over: bool = False
    discarded: list[Applied] = field(default_factory=list)  # atomic batch rolled back
    replacing: list[str] = field(default_factory=list)  # the order on file the moves were to replace
    replaced: bool = False  # ... and did: the others are not told (services/core/visibility)

    @property
    def ok(self) -> bool:
        return self.error is None


def parses_as_move(s: Session, g: Game, seat: int, text: str) -> bool:
    """True when ``text`` is a move ``seat`` could send now (it parses on the
    state its order is read against: deciding_state); False when it does not,
    or the game does not run."""
    deciding = deciding_state(s, g, seat)
    if deciding is None:
        return False
    try:
        games.engine_for(g).parse_move(deciding[0], seat, text)
    except MoveError:
        return False
    return True


def _is_stale(s: Session, g: Game, engine: Engine, seat: int, since: int) -> bool:
    """True when a move by another seat after ply ``since`` changed what
    ``seat`` decides from (the engine's ``decision_view``): not whose turn it
    is, nor that others have made their secret choices of the same step
    (five players answering one board are all applied)."""
    later = games._record(s, g.id, since)
    if not any(m.seat != seat for m in later):
        return False
    state = games.state_at(s, g, since)
    seen = None  # the seat's decision view before the next move of another seat
    for m in later:
        after = engine.apply(state, m.seat, engine.parse_move(state, m.seat, m.notation))
        if m.seat == seat:
            seen = None
        else:
            seen = seen or _decided_from(engine, state, seat)
            now = _decided_from(engine, after, seat)
            if now != seen:
                return True
            seen = now
        state = after
    return False


def _decided_from(engine: Engine, state: Any, seat: int) -> str:
    return json.dumps(engine.decision_view(state, seat), sort_keys=True, default=str)


@dataclass
class _Replacing:
    """A seat's finished secret order of the step in progress, to be replaced."""

    moves: list[Move]  # its live moves of the step
    base: Any  # the state without them: the step's start and the other seats' moves since


def _replaceable(s: Session, g: Game, engine: Engine, state: Any, seat: int) -> _Replacing | None:
    """The seat's order on file, when a new one would replace it: the seat has
    finished its order of a simultaneous step that is not revealed yet (a
    secret choice may change until the reveal, as orders to a Diplomacy judge
    until the deadline). Within such a step no seat's moves change what
    another may do (the engine's ``simultaneous``), so the other seats' moves
    apply the same without this seat's."""
    if seat in engine.to_move(state) or not engine.to_move(state):
        return None
    mine = visibility.on_file(s, g, seat)
    if mine is None or not mine.finished or not mine.secret:
        return None
    base = games.state_at(s, g, mine.start)
    withdrawn = []
    for m in games._record(s, g.id, mine.start):
        if m.seat == seat:
            withdrawn.append(m)
        else:
            base = engine.apply(base, m.seat, engine.parse_move(base, m.seat, m.notation))
    return _Replacing(withdrawn, base)


def deciding_state(s: Session, g: Game, seat: int) -> tuple[Any, bool] | None:
    """The state a new order of ``seat`` is read against, and whether it
    replaces an order on file (the web's move box and legal moves); None when
    the seat has nothing it may send now."""
    if g.status != "running":
        return None
    engine = games.engine_for(g)
    state = games.state_at(s, g)
    if seat in engine.to_move(state):
        return state, False
    if not (g.players > 1 and getattr(engine, "simultaneous", False)):
        return None
    memo_ = s.info.setdefault(DECIDING, {})  # asked once per line of a mail (pipeline._sort_out)
    key = (g.id, g.ply, seat)
    if key not in memo_:
        replacing = _replaceable(s, g, engine, state, seat)
        memo_[key] = None if replacing is None else (replacing.base, True)
    return memo_[key]


CLOSED = "(nothing left to decide: done)"  # the text of a closing move the services added (closing_move)


def submit_moves(s: Session, game_id: int, seat: int, texts: Sequence[str], *, source: str,
                 user_id: int | None = None, inbound_id: int | None = None,
                 expected_ply: int | None = None, now: datetime | None = None) -> SubmitResult:
    """Apply ``texts`` for ``seat`` in order (DESIGN.md §2). Locks the game
    row, checks in the fixed order (game, not over, seat, ply, parse, legal),
    appends to the move log and bumps the ply once per move. Prefix games keep
    the moves before the first failure; atomic games keep none of them."""
    g = games.get(s, game_id, lock=True)
    d = _decide(s, g, seat, texts, source=source, expected_ply=expected_ply)
    result, pending, replacing = d.result, d.pending, d.replacing
    if not pending:
        result.ply = g.ply
        return result
    engine = games.engine_for(g)
    if replacing is not None:
        _withdraw(s, g, replacing.moves, pending[0][0].ply)
    mover = next((x for x in seating.seats(s, g.id) if x.seat == seat), None)
    clock = (mover.deadline_at, mover.reminded) if mover is not None else (None, 0)  # before the move stops it
    _persist(s, g, engine, seat, pending, source=source, user_id=user_id, inbound_id=inbound_id,
             reuse_posts=_posts_of(s, g, replacing.moves) if replacing is not None else ())
    events.MOVES_APPLIED.announce(s, g, source)
    result.applied = [a for a, _ in pending]
    result.replaced = replacing is not None
    if mover is not None and source not in ("bot", "admin") and seat not in engine.to_move(pending[-1][1]):
        reliability.turn_ended(s, mover, clock, now or utcnow())  # the player's turn is over: on time or late
    after_change(s, g, pending[-1][1], moved={seat}, source=source, now=now)
    result.ply = g.ply
    result.over = g.status == "finished"
    return result


@dataclass
class Checked:
    """What sending an order would do now, nothing written (:func:`check_moves`): the
    answer ``submit_moves`` would give, and each move it would apply with the state it
    is read against -- the order's own moves and those the services add (an implied
    answer, a closing ``done``) -- for the page's preview to put in words."""

    result: SubmitResult
    steps: list[tuple[Applied, Any]] = field(default_factory=list)  # (move, the state before it)


def check_moves(s: Session, g: Game, seat: int, texts: Sequence[str], *, source: str = "web",
                expected_ply: int | None = None) -> Checked:
    """``submit_moves`` without the writing: the same checks, in the same order, on the same
    state (the seat's deciding state, with the moves an order leaves unsaid and the closing
    ``done``), so that a preview says beforehand what Send will answer. Takes no lock: a
    preview holds nobody up, and the move itself checks again."""
    d = _decide(s, g, seat, texts, source=source, expected_ply=expected_ply)
    before = d.start
    steps = []
    for applied, after in d.pending:
        steps.append((applied, before))
        before = after
    d.result.applied = [a for a, _ in d.pending]
    d.result.replaced = d.replacing is not None and bool(d.pending)
    d.result.ply = g.ply
    return Checked(d.result, steps)


UNFINISHED = "unfinished_order"  # the code of a new order refused for not finishing the step of the one it replaces
ENDINGS = ("done", "auto")  # what may end an order of a secret step (offered as examples when they do)


@dataclass
class _Decided:
    result: SubmitResult
    pending: list[tuple[Applied, Any]]  # each move to apply, with the state after it
    replacing: _Replacing | None = None
    start: Any = None  # the state the order is read against


def _decide(s: Session, g: Game, seat: int, texts: Sequence[str], *, source: str,
            expected_ply: int | None, ending: bool = True, replaces: _Replacing | None = None) -> _Decided:
    """What ``submit_moves`` does, short of writing it: the checks in their fixed order, then
    each move parsed and applied on the seat's deciding state. ``ending``: an unfinished
    replacement is answered with the endings that would finish it (tried the same way).
    ``replaces``: such an ending tried, the caller's order having passed the staleness check
    and found this order on file to replace (the same answers here: nothing was written since)."""
    result = SubmitResult(game_id=g.id, seat=seat, ply=g.ply)
    texts = [normalize_notation(t) for t in texts if t and normalize_notation(t)]  # typed on any keyboard
    if g.status == "open":
        result.error = UserError(_("game #%(id)d has not started yet", id=g.id), example=f"START {g.id}",
                                 code="not_started")
    elif g.status in ("finished", "aborted"):
        result.error = GameOverError(_("game #%(id)d is over; no more moves are accepted", id=g.id))
    elif g.status == "cancelled":
        result.error = GameOverError(_("game #%(id)d was cancelled before it started; no moves are accepted", id=g.id))
    elif not 0 <= seat < g.players:
        result.error = UserError(_("game #%(id)d has no seat %(seat)d", id=g.id, seat=seat + 1), code="no_seat")
    elif g.paused and source != "admin":
        result.error = UserError(_("game #%(id)d is paused (by its game master, or by an admin while a dispute is "
                                   "settled); moves are accepted again when it resumes", id=g.id),
                                 example=f"STATUS {g.id}",
                                 code="paused")
    elif replaces is None and expected_ply is not None and expected_ply < g.ply \
            and _is_stale(s, g, games.engine_for(g), seat, expected_ply):
        result.error = StaleMoveError(
            _("your mail answers the board at ply %(old)d, but game #%(id)d has moved on to ply %(ply)d and your "
              "position has changed. Nothing was applied: please look at the current board below and send your "
              "move again.", old=visibility.counter(s, g, expected_ply), id=g.id, ply=visibility.public_ply(s, g)),
            code="stale")
    if result.error is not None:
        result.failed_text = texts[0] if texts else None
        result.not_applied = texts[1:]
        return _Decided(result, [])

    engine = games.engine_for(g)
    state = games.state_at(s, g)
    start_ply = g.ply
    # in a game with simultaneous steps even the last seat still to act may be making a secret choice
    secret_steps = g.players > 1 and bool(getattr(engine, "simultaneous", False))
    # an admin's moves apply exactly as given (a corrected move list replays a record: disputes.rollback);
    # a player's order may replace its finished secret one, and is closed when nothing is left to decide
    as_given = source == "admin"
    # what an order leaves unsaid is read for a person's order only: a bot answers every question itself,
    # and a replayed record (the bench) holds the answers as moves of their own
    unsaid = not as_given and source not in ("bot", "bench")
    replacing = replaces or (_replaceable(s, g, engine, state, seat) if secret_steps and texts and not as_given
                             else None)
    if replacing is not None:  # the new order is read against the board the seat decides from
        state = replacing.base
        result.replacing = [m.notation for m in replacing.moves]
    start = state
    pending: list[tuple[Applied, Any]] = []
    order: list[Any] = []  # the moves of this batch, for the engine's implied_move
    for i, text in enumerate(texts):
        try:
            if unsaid:
                state = _imply(s, g, engine, state, seat, order, text, pending, start_ply)
            to_move = engine.to_move(state)
            if seat not in to_move:
                if not to_move:
                    raise GameOverError(_("the game is over; no more moves are accepted"), text=text, seat=seat)
                if pending:  # this mail's own moves ended the turn: the engine may know why this one cannot follow
                    _named(s, g, _why_not_after, engine, state, seat, text)
                raise _out_of_turn(engine, state, s, g, text, seat, pending)
            move = _named(s, g, engine.parse_move, state, seat, text)
            notation = engine.format_move(state, seat, move)
            state = _named(s, g, engine.apply, state, seat, move)
        except MoveError as e:
            e.ply = start_ply + len(pending)
            result.error, result.failed_text, result.not_applied = e, text, texts[i + 1:]
            break
        order.append(move)
        pending.append((Applied(text, notation, start_ply + len(pending) + 1), state))
    if result.error is None and pending and not as_given:
        if unsaid:
            state = _imply(s, g, engine, state, seat, order, None, pending, start_ply)
        state = _close(engine, state, seat, pending, start_ply)
        if replacing is not None and seat in engine.to_move(state):
            # an ending that finishes it, as the same order would take it (done may not be legal yet: auto is)
            endings = ["; ".join([*texts, e]) for e in ENDINGS if ending and _decide(
                s, g, seat, [*texts, e], source=source, expected_ply=expected_ply, ending=False,
                replaces=replacing).result.ok]
            result.error = IllegalMoveError(
                _("your order on file for this step (%(order)s) is finished, and a new order replaces it whole: "
                  "the new one must finish the step too. Nothing was applied: end it with done (or auto), and it "
                  "replaces the old one", order="; ".join(result.replacing)),
                text="; ".join(texts), seat=seat, ply=start_ply,
                examples=tuple(dict.fromkeys([*endings, "; ".join(result.replacing)])),
                code=UNFINISHED)
            result.failed_text = "; ".join(texts)
    if result.error is not None and (engine.batch == "atomic" or replacing is not None) and pending:
        result.discarded = [a for a, _ in pending if not a.added]
        pending = []
    return _Decided(result, pending, replacing, start)


def _close(engine: Engine, state: Any, seat: int, pending: list[tuple[Applied, Any]], start_ply: int) -> Any:
    """After the last move of a batch: the engine's ``closing_move``, when the
    rules end the seat's order without asking (It's a Wonderful World §6)."""
    closing = getattr(engine, "closing_move", None)
    if closing is None or seat not in engine.to_move(state):
        return state
    move = closing(state, seat)
    if move is None:
        return state
    notation = engine.format_move(state, seat, move)
    state = engine.apply(state, seat, move)
    pending.append((Applied(CLOSED, notation, start_ply + len(pending) + 1, added=True), state))
    return state


def _imply(s: Session, g: Game, engine: Engine, state: Any, seat: int, order: list, text: str | None,
           pending: list[tuple[Applied, Any]], start_ply: int) -> Any:
    """Before ``text`` (None: after the batch's last move), the move the seat's order leaves unsaid
    and answers by going on (the engine's ``implied_move``: Squire's "offers none" after a plain buy
    followed by a later step), applied and recorded like the others; its note goes to the mover's
    receipt only."""
    implied = getattr(engine, "implied_move", None)
    if implied is None or seat not in engine.to_move(state):
        return state
    found = implied(state, seat, tuple(order), text)
    if found is None:
        return state
    notation = engine.format_move(state, seat, found.move)
    state = _named(s, g, engine.apply, state, seat, found.move)
    order.append(found.move)
    pending.append((Applied(f"({notation})", notation, start_ply + len(pending) + 1,
                            note=name_seats(found.note, seating.names(s, g.id)), added=True), state))
    return state


def _named(s: Session, g: Game, fn, *args):
    """``fn(*args)``, an engine's call, with "Player 2" in its refusal as the
    player's name (the engines know no names; a refusal the services wrote
    has them already)."""
    try:
        return fn(*args)
    except MoveError as e:
        e.reason = name_seats(e.reason, seating.names(s, g.id))
        raise


def _why_not_after(engine: Engine, state: Any, seat: int, text: str) -> None:
    """Raise the engine's own reason when a move cannot follow the ones before
    it in the same order ("you sold rare_book-03 this turn, so there is no
    exhibit to place"), rather than "it is not your turn"."""
    try:
        engine.parse_move(state, seat, text)
    except IllegalMoveError as e:
        if e.code == IllegalMoveError.code:
            raise
    except MoveError:
        pass


def _out_of_turn(engine: Engine, state: Any, s: Session, g: Game, text: str, seat: int,
                 pending: list[tuple[Applied, Any]]) -> NotYourTurnError:
    """The refusal of a move the seat may not make now, offering it as a
    pre-move (NEXT), which is played when the seat's turn comes."""
    waiting = _waiting(engine, state, s, g)
    if pending:
        waiting = _("after %(move)s you have nothing more to decide now (%(waiting)s)",
                    move=repr(pending[-1][0].text), waiting=waiting)
    return NotYourTurnError(_("%(waiting)s. To play it when your turn comes, send it as a pre-move: NEXT: %(move)s",
                              waiting=waiting, move=text),
                            text=text, seat=seat, examples=(f"NEXT: {text}",))


def _withdraw(s: Session, g: Game, moves: list[Move], by_ply: int) -> None:
    """Mark a replaced order undone, superseded by the order from ``by_ply``
    (the log stays append-only; a replay skips it like any undone move), and
    drop the snapshots that held it."""
    for m in moves:
        m.undone, m.superseded_by = True, by_ply
        s.add(m)
    s.exec(delete(Snapshot).where(Snapshot.game_id == g.id, Snapshot.ply >= min(m.ply for m in moves)))
    s.flush()
    visibility.forget_positions(s)  # what was read of the record before still has them


def _posts_of(s: Session, g: Game, moves: list[Move]) -> list[int]:
    """The thread posts of moves being replaced, in ply order: the new moves
    take them over, so the thread shows the others no new secret choice."""
    plies = [m.ply for m in moves]
    rows = s.exec(select(Post.id, Post.ply).where(Post.game_id == g.id, Post.kind == "move", Post.ply.in_(plies)))
    return [pid for pid, _ in sorted(rows, key=lambda r: (r[1], r[0]))]


def after_change(s: Session, g: Game, state: Any, *, moved: set[int], source: str,
                 now: datetime | None = None) -> None:
    """After the position changed (a start, moves applied): the seats' deadline
    clocks (from ``now``: the deadline sweep passes its own clock), then
    events.POSITION_CHANGED (the pre-moves now due)."""
    clocks.refresh(s, g, state, now or utcnow(), moved=moved)
    events.POSITION_CHANGED.announce(s, g, source, now)


def _waiting(engine: Engine, state: Any, s: Session, g: Game) -> str:
    who = seating.names(s, g.id)
    seats_ = sorted(engine.to_move(state))
    return _("it is not your turn: waiting for %(who)s",
             who=", ".join(who[i] if i < len(who) else _("seat %(n)d", n=i + 1) for i in seats_))


# The game's compare-and-set UPDATE and the move log's INSERTs, built once (one per move: building a
# statement costs about as much as running it) and
# run as Core statements on the session's connection: no unit-of-work bookkeeping for rows nothing
# in the transaction holds as objects, and no autoflush before them. They run at once, so any
# later select of the transaction sees them.
_GAMES, _MOVES, _POSTS, _SNAPSHOTS = Game.__table__, Move.__table__, Post.__table__, Snapshot.__table__
_CAS_GAME = (update(_GAMES).where(_GAMES.c.id == bindparam("game_id"), _GAMES.c.ply == bindparam("old_ply"))
             .values(**{k: bindparam(f"v_{k}", type_=_GAMES.c[k].type)  # each as its column writes it
                        for k in ("ply", "state_json", "state_ply", "outcome", "updated_at", "status")}))
_INSERT_MOVE = insert(_MOVES)
_INSERT_POST = insert(_POSTS)
_REPOINT_POST = (update(_POSTS).where(_POSTS.c.id == bindparam("post_id"))
                 .values(body=bindparam("body"), ply=bindparam("ply")))
_INSERT_SNAPSHOT = insert(_SNAPSHOTS)


def _persist(s: Session, g: Game, engine: Engine, seat: int, pending: list[tuple[Applied, Any]], *,
             source: str, user_id: int | None, inbound_id: int | None, reuse_posts: Sequence[int] = ()) -> None:
    old_ply, was = g.ply, g.status
    final = pending[-1][1]
    new_ply = old_ply + len(pending)
    out = engine.outcome(final)
    now = utcnow()
    values = dict(ply=new_ply, state_json=engine.to_json(final), state_ply=new_ply,
                  outcome=out.to_dict() if out else None, updated_at=now,
                  status="finished" if out is not None else g.status)
    if s.new:  # rows added before these moves (a post, a user) keep their order and exist for the keys
        s.flush()
    conn = s.connection()
    # compare-and-set on ply: with the row lock this never misses, and it is
    # what keeps a database without row locks honest
    res = conn.execute(_CAS_GAME, {"game_id": g.id, "old_ply": old_ply, **{f"v_{k}": v for k, v in values.items()}})
    if res.rowcount != 1:
        raise ConcurrentUpdate(f"game #{g.id} moved past ply {old_ply} under us")
    for k, v in values.items():  # what the row now holds: no second UPDATE at the next flush
        set_committed_value(g, k, v)
    live.changed(s, g.id)  # written past the ORM: the game's open pages are told after the commit
    s.info.setdefault(games.LATEST_STATE, {})[g.id] = (g.state_json, final)  # no decoding it back (state_at)
    # every column given (the models' defaults are Python-side, applied by the ORM only)
    conn.execute(_INSERT_MOVE, [dict(game_id=g.id, ply=a.ply, seat=seat, notation=a.notation, source=source,
                                     inbound_id=inbound_id, user_id=user_id, created_at=now, undone=False,
                                     superseded_by=None)
                                for a, _ in pending])
    for post_id, (a, _state) in zip(reuse_posts, pending):
        conn.execute(_REPOINT_POST, {"post_id": post_id, "body": a.notation, "ply": a.ply})
    fresh = pending[len(reuse_posts):]
    if fresh:
        conn.execute(_INSERT_POST, [dict(game_id=g.id, kind="move", user_id=user_id, seat=seat, to_seat=None,
                                         to_user_id=None, body=a.notation, ply=a.ply, source=source, created_at=now)
                                    for a, _ in fresh])
    every = settings().snapshot_every
    snaps = [dict(game_id=g.id, ply=a.ply, state_json=engine.to_json(st)) for a, st in pending if a.ply % every == 0]
    if snaps:
        conn.execute(_INSERT_SNAPSHOT, snaps)
    if g.status == "finished" and was != "finished":  # the game ends here: rated in this transaction, once
        events.GAME_FINISHED.announce(s, g)
