"""Undo, two ways.

Take-back (as on Rally the Troops): a seat takes back its own last
move at once, with nobody's consent, while no other seat has seen its effect
and nothing random or hidden was revealed. Exactly (``takeback``):

(a) the move is the last live move of the game: no other seat has moved
    since ("Bob has moved since");
(b) the seat is still to move: its turn has not ended. A turn, to pbem, is
    the run of a seat's moves while it stays to move;
(c) the move revealed nothing and drew no chance (the engine's ``reveals``)
    and gave no other seat something to decide;
(d) its position was never mailed to anyone else: ``Game.shown_ply`` is the
    latest ply whose board pbem mailed to someone other than the seat to move
    alone (the others' board mails, observers', reminders, digests;
    services/core/notify), and the move must be later than it;
(e) a player made it (not an admin's correction, nor a bot playing for a
    late seat).

"Seen" means mailed: the others' board mails wait while a seat's turn goes
on privately (services/core/unseen.keeps_turn: a Squire turn of several
steps, a Spyrium decision still pending, an It's a Wonderful World order not
finished), and the one mail at the end of the turn tells them every move of
it (services/core/notify.announce_moves). The web page, like Rally the Troops',
shows the position to whoever looks at it meanwhile; a take-back of a public
move is said in the thread and the move stays in the log, marked undone.
A secret choice of a simultaneous step taken back before the reveal is
withdrawn like a replaced one (a secret choice may change until the reveal:
services/core/moves): nobody else ever learns that there was one. One move
is taken back at a time (the last); the seat's clock runs on as it was,
since the seat is still to move.

Consent: otherwise a player asks to take back their last move; it happens
only if nothing hidden was revealed and no chance was drawn since, and every
other seated player agrees (or an admin decides).

Either way, undone moves stay in the log, marked ``undone``; the game's ply
keeps counting up."""
from __future__ import annotations

from dataclasses import dataclass
from sqlalchemy import delete
from sqlmodel import Session, select

from pbem.i18n import _, lazy_gettext, lazy_ngettext, ngettext
from pbem.store.models import Game, Move, Snapshot, UndoRequest, User, utcnow

from ..core import audit, clocks, games, lang, notices, notify, seating, unseen, visibility
from ..core.notices import Joined
from ..core.errors import Forbidden, UserError


def rewind(s: Session, g: Game, after_ply: int, *, restart_clocks: bool = True) -> list[Move]:
    """Mark every live move after ``after_ply`` undone and make the caches
    agree: the cached state becomes the state after ``after_ply``, snapshots
    past it are deleted. The next move gets ply ``g.ply + 1``. The clocks of
    the seats to move start anew, unless ``restart_clocks`` is False (a
    take-back: the seat was to move all along, its deadline stays)."""
    engine = games.engine_for(g)
    state = games.state_at(s, g, after_ply)
    moves = games._record(s, g.id, after_ply)
    for m in moves:
        m.undone = True
        s.add(m)
    visibility.forget_positions(s)  # the plies taken back may be played again in this transaction
    s.exec(delete(Snapshot).where(Snapshot.game_id == g.id, Snapshot.ply > after_ply))
    games._cache(g, engine, state, g.ply)
    if g.outcome is None and g.status == "finished":
        g.status = "running"
    g.updated_at = utcnow()
    s.add(g)
    s.flush()
    moved = {m.seat for m in moves} | set(range(g.players)) if restart_clocks else set()
    clocks.refresh(s, g, state, utcnow(), moved=moved)
    return moves


# ---------------------------------------------------------------- take-back inside one's own turn


def _last_live(s: Session, g: Game) -> Move | None:
    return s.exec(select(Move).where(Move.game_id == g.id, Move.undone == False)  # noqa: E712
                  .order_by(Move.ply.desc()).limit(1)).first()


@dataclass(frozen=True)
class TakeBack:
    """Whether a seat may take its last move back at once (``takeback``):
    the move, or why not (``reason``, for the player, and a stable ``code``)."""

    move: Move | None = None
    reason: str = ""
    code: str = ""

    @property
    def allowed(self) -> bool:
        return self.move is not None and not self.reason


def takeback(s: Session, g: Game, seat: int) -> TakeBack:
    """The rules (a) to (e) of this module's docstring, in that order."""
    if g.status != "running":
        return TakeBack(reason=_("game #%(id)d is %(status)s", id=g.id, status=games.status_word(g.status)),
                        code="not_running")
    if g.paused:
        return TakeBack(reason=_("game #%(id)d is paused by an admin", id=g.id), code="paused")
    last = _last_live(s, g)
    if last is None or (last.seat != seat and unseen.last_move(s, g, seat) is None):
        return TakeBack(reason=_("you have no move to take back"), code="nothing_to_undo")
    names = seating.names(s, g.id)
    shown = visibility.secrets(s, g).shown_ply(last.ply, seat)  # in a secret step: no count of the others' parts
    if last.seat != seat:
        who = names[last.seat] if last.seat < len(names) else _("seat %(n)d", n=last.seat + 1)
        return TakeBack(reason=_("%(who)s has moved since (ply %(ply)d)", who=who, ply=shown), code="moved_since")
    engine = games.engine_for(g)
    after = games.state_at(s, g)
    if seat not in engine.to_move(after):
        return TakeBack(reason=_("your turn has ended"), code="turn_ended")
    if last.source == "admin":
        return TakeBack(reason=_("an admin made the move at ply %(ply)d", ply=shown), code="not_yours")
    if last.source == "bot":
        return TakeBack(reason=_("a bot played the move at ply %(ply)d for you", ply=shown), code="not_yours")
    before = games.state_at(s, g, last.ply - 1)
    if engine.reveals(before, after):
        return TakeBack(reason=_("your move at ply %(ply)d revealed hidden information or drew chance (a card, a "
                                 "tile, a draw)", ply=shown), code="revealed")
    newly = sorted((engine.to_move(after) - {seat}) - engine.to_move(before))
    if newly:
        return TakeBack(reason=_("your move at ply %(ply)d gave %(who)s something to decide", ply=shown,
                                 who=", ".join(names[i] if i < len(names) else _("seat %(n)d", n=i + 1)
                                               for i in newly)),
                        code="others_to_move")
    if last.ply <= g.shown_ply:
        return TakeBack(reason=_("the board after your move has been mailed to the other players"), code="seen")
    return TakeBack(last)


def take_back(s: Session, user: User, game_id: int, *, ply: int | None = None) -> Move:
    """Take back ``user``'s last move at once (``takeback`` allows it, else a
    UserError says why: UNDO asks the others then). ``ply``: the move the
    player saw (the web's button); refused when the last move is another now."""
    g = games.get(s, game_id, lock=True)
    seat = seating.seat_of(s, g.id, user.id)
    if seat is None or seat.resigned:
        raise Forbidden(_("you have no seat in game #%(id)d", id=g.id), code="no_seat")
    tb = takeback(s, g, seat.seat)
    if tb.code == "nothing_to_undo":
        raise UserError(_("%(reason)s in game #%(id)d", reason=tb.reason, id=g.id), code=tb.code)
    if not tb.allowed:
        raise UserError(_("your last move can no longer be taken back at once: %(reason)s. To take it back now, "
                          "the others must agree: ask them with UNDO (by mail, or on the game's manage page)",
                          reason=tb.reason),
                        example="UNDO", code=tb.code)
    shown = visibility.secrets(s, g).shown_ply(tb.move.ply, seat.seat)  # the number its page and mail showed
    if ply is not None and shown != ply:
        raise UserError(_("the move at ply %(ply)d is not your last move any more (that is ply %(last)d); look at "
                          "the board again", ply=ply, last=shown), code="stale")
    _take(s, g, tb.move, user)
    return tb.move


def _take(s: Session, g: Game, m: Move, user: User) -> None:
    secret = visibility.secrets(s, g).hides(m.ply, None)  # before: once taken back it is secret for good
    old = open_request(s, g)
    if old is not None:  # asked about the game as it was: it does not carry over
        old.status = "void"
        s.add(old)
    rewind(s, g, m.ply - 1, restart_clocks=False)
    if secret:  # withdrawn like a replaced secret choice: only its player ever sees it (services/core/visibility)
        m.superseded_by = m.ply
        s.add(m)
    else:
        s.add(notices.post(game_id=g.id, user_id=user.id, seat=m.seat,
                           value=lazy_gettext("%(name)s took back their move at ply %(ply)d (%(move)s), inside "
                                              "their own turn; it stays in the log, marked undone.", name=user.name,
                                              ply=m.ply, move=m.notation)))
    s.flush()
    visibility.forget_positions(s)  # the secrets read meanwhile did not know it withdrawn


@dataclass
class Undone:
    """What UNDO did: a move taken back at once (``taken``), or the consent
    request (``request``; ``done`` when nobody else had to agree) and why the
    others are asked (``why``)."""

    taken: Move | None = None
    shown: int = 0  # the taken or asked move's number as its seat is shown it (visibility.Secrets.shown_ply)
    request: UndoRequest | None = None
    done: bool = False
    why: str = ""

    def asked(self) -> str:
        """The consent request in words, for the mail's receipt and the web page alike."""
        if self.why:
            return _("asked the others to agree to take back ply %(ply)d: their consent is needed because "
                     "%(why)s", ply=self.shown, why=self.why)
        return _("asked the others to agree to take back ply %(ply)d", ply=self.shown)


def undo_last(s: Session, user: User, game_id: int) -> Undone:
    """UNDO: a take-back at once when the rules allow it, else the consent request."""
    g = games.get(s, game_id, lock=True)
    seat = seating.seat_of(s, g.id, user.id)
    if seat is None or seat.resigned:
        raise Forbidden(_("you have no seat in game #%(id)d", id=g.id), code="no_seat")
    tb = takeback(s, g, seat.seat)
    if tb.allowed:
        shown = visibility.secrets(s, g).shown_ply(tb.move.ply, seat.seat)
        _take(s, g, tb.move, user)
        return Undone(taken=tb.move, done=True, shown=shown)
    req, done = request(s, user, game_id)
    return Undone(request=req, done=done, why=tb.reason if tb.code != "nothing_to_undo" else "",
                  shown=public_ply_of(s, g, req.ply))


# ---------------------------------------------------------------- consent


def check_undoable(s: Session, g: Game, from_ply: int) -> None:
    """Raises UserError when a move from ``from_ply`` on revealed hidden
    information or drew chance (the engine's ``reveals``)."""
    engine = games.engine_for(g)
    state = games.state_at(s, g, from_ply - 1)
    for m in games._record(s, g.id, from_ply - 1):
        after = engine.apply(state, m.seat, engine.parse_move(state, m.seat, m.notation))
        if engine.reveals(state, after):
            raise UserError(_("the move at ply %(ply)d (%(move)s) revealed hidden information or drew chance, so it "
                              "cannot be taken back; ask an admin with DISPUTE %(ply)d <why>", ply=m.ply,
                              move=m.notation),
                            example=f"DISPUTE {m.ply} I misread the card", code="not_undoable")
        state = after


def open_request(s: Session, g: Game) -> UndoRequest | None:
    return s.exec(select(UndoRequest).where(UndoRequest.game_id == g.id, UndoRequest.status == "open")).first()


def _others(s: Session, g: Game, seat: int) -> set[int]:
    return {x.seat for x in seating.seats(s, g.id)
            if x.seat != seat and x.user_id and not x.resigned and not x.is_bot}


def public_ply_of(s: Session, g: Game, ply: int) -> int:
    """A ply as every seat may be told it (visibility.Secrets.shown_ply): a secret choice of the step in
    progress as the step's start, and no withdrawn choice counted."""
    return visibility.secrets(s, g).shown_ply(ply, None)


def request(s: Session, user: User, game_id: int) -> tuple[UndoRequest, bool]:
    """UNDO. Returns (request, done): done when nobody else had to agree."""
    g = games.get(s, game_id, lock=True)
    seat = seating.seat_of(s, g.id, user.id)
    if seat is None or seat.resigned:
        raise Forbidden(_("you have no seat in game #%(id)d", id=g.id), code="no_seat")
    if g.status != "running":
        raise UserError(_("game #%(id)d is %(status)s; undo is for running games", id=g.id,
                          status=games.status_word(g.status)), code="not_running")
    old = open_request(s, g)
    if old is not None:
        if old.at_ply == g.ply:
            raise UserError(_("an undo request for ply %(ply)d is already waiting for answers",
                                    ply=public_ply_of(s, g, old.ply)),
                            example="UNDO YES", code="undo_pending")
        old.status = "void"
        s.add(old)
    last = unseen.last_move(s, g, seat.seat)
    if last is None:
        raise UserError(_("you have no move to take back"), code="nothing_to_undo")
    check_undoable(s, g, last.ply)
    req = UndoRequest(game_id=g.id, seat=seat.seat, ply=last.ply, at_ply=g.ply, user_id=user.id)
    s.add(req)
    s.flush()
    # the notice goes to the thread and to every seat: a secret choice is named as one, the plies as every seat
    # is shown them (the game's would count the secret choices since, and any replaced one)
    secret = visibility.secrets(s, g).hides(last.ply, None)
    name, ply, notation = user.name, public_ply_of(s, g, last.ply), last.notation
    later = max(0, visibility.public_ply(s, g) - ply)

    def what() -> str:
        shown = _("a secret choice") if secret else notation
        if later:
            return ngettext("%(name)s asks to take back their move at ply %(ply)d (%(move)s) and the %(num)d move(s) "
                            "after it", "%(name)s asks to take back their move at ply %(ply)d (%(move)s) and the "
                            "%(num)d move(s) after it", later, name=name, ply=ply, move=shown)
        return _("%(name)s asks to take back their move at ply %(ply)d (%(move)s)", name=name, ply=ply, move=shown)

    shown = lazy_gettext("a secret choice") if secret else notation
    s.add(notices.post(game_id=g.id, user_id=user.id, seat=seat.seat, value=lazy_ngettext(
        "%(name)s asks to take back their move at ply %(ply)d (%(move)s) and the %(num)d move(s) after it",
        "%(name)s asks to take back their move at ply %(ply)d (%(move)s) and the %(num)d move(s) after it",
        later, name=name, ply=ply, move=shown) if later else lazy_gettext(
        "%(name)s asks to take back their move at ply %(ply)d (%(move)s)", name=name, ply=ply, move=shown)))
    if not _others(s, g, seat.seat):
        _perform(s, g, req, lazy_gettext("no other player had to agree"))
        return req, True
    notify.queue_notice(s, g, lazy_gettext("undo request"),
                        lambda: _("%(request)s. Reply UNDO YES to agree or UNDO NO to refuse.", request=what()),
                        seats=_others(s, g, seat.seat))
    return req, False


def vote(s: Session, user: User, game_id: int, yes: bool) -> UndoRequest:
    """UNDO YES / UNDO NO by another player. The undo happens when all agreed."""
    g = games.get(s, game_id, lock=True)
    req = open_request(s, g)
    if req is None:
        raise UserError(_("no undo request is waiting in game #%(id)d", id=g.id), example="UNDO", code="no_undo")
    seat = seating.seat_of(s, g.id, user.id)
    if seat is None or seat.seat not in _others(s, g, req.seat):
        raise Forbidden(_("only the other players of the game answer an undo request"), code="not_voter")
    if req.at_ply != g.ply:
        req.status = "void"
        s.add(req)
        s.flush()
        raise UserError(_("the game has moved on since the undo was asked (ply %(then)d then, %(now)d now); the "
                          "request lapsed", then=visibility.counter(s, g, min(req.at_ply, visibility.secrets(s, g).start)),
                          now=visibility.public_ply(s, g)), code="undo_lapsed")
    req.votes = dict(req.votes, **{str(seat.seat): bool(yes)})
    s.add(req)
    if not yes:
        req.status = "refused"
        s.add(notices.post(game_id=g.id, user_id=user.id, seat=seat.seat,
                           value=lazy_gettext("%(name)s refused to take back ply %(ply)d; the move stands.",
                                              name=user.name, ply=public_ply_of(s, g, req.ply))))
        s.flush()
        notify.queue_notice(s, g, lazy_gettext("undo refused"),
                            lazy_gettext("%(name)s refused the undo of ply %(ply)d; the move stands.", name=user.name,
                                         ply=public_ply_of(s, g, req.ply)))
        return req
    if {int(k) for k, v in req.votes.items() if v} >= _others(s, g, req.seat):
        _perform(s, g, req, lazy_gettext("all players agreed"))
    s.flush()
    return req


def decide(s: Session, admin: User, game_id: int, accept: bool, reason: str) -> UndoRequest:
    """An admin settles an open undo request."""
    audit.require_admin(admin)
    reason = audit.require_reason(reason)
    g = games.get(s, game_id, lock=True)
    req = open_request(s, g)
    if req is None:
        raise UserError(_("no undo request is waiting in game #%(id)d", id=g.id), code="no_undo")
    if accept:
        shown = public_ply_of(s, g, req.ply)  # before the moves are taken back
        _perform(s, g, req, lazy_gettext("an admin decided"), announce=False)
        audit.announce(s, g, admin, "undo_accepted", reason,
                       lazy_gettext("An admin took back the moves from ply %(ply)d on.", ply=shown))
    else:
        req.status = "refused"
        s.add(req)
        s.flush()
        audit.announce(s, g, admin, "undo_refused", reason,
                       lazy_gettext("An admin refused the undo of ply %(ply)d.", ply=public_ply_of(s, g, req.ply)),
                       board=False)
    return req


def _perform(s: Session, g: Game, req: UndoRequest, why, announce: bool = True) -> None:
    check_undoable(s, g, req.ply)
    hidden = visibility.secrets(s, g)  # before: a choice taken back while secret is never revealed
    moves = rewind(s, g, req.ply - 1)
    req.status = "done"
    s.add(req)
    # as every seat may be told them: numbered as shown, and one secret choice a seat (how many parts a seat
    # sent is as secret as what they were)
    taken, told = [], set()
    for m in moves:
        if hidden.hides(m.ply, None) and m.seat in told:
            continue
        if hidden.hides(m.ply, None):
            told.add(m.seat)
        taken.append((hidden.shown_ply(m.ply, None), hidden.hides(m.ply, None), m.notation))

    def text() -> str:
        return _("Taken back (%(why)s): %(moves)s. They stay in the log, marked undone.", why=lang.text(why),
                 moves=", ".join(_("ply %(ply)d %(move)s", ply=ply, move=_("a secret choice") if secret else notation)
                                 for ply, secret, notation in taken))

    s.add(notices.post(game_id=g.id, value=lazy_gettext(
        "Taken back (%(why)s): %(moves)s. They stay in the log, marked undone.", why=why,
        moves=Joined([lazy_gettext("ply %(ply)d %(move)s", ply=ply,
                                   move=lazy_gettext("a secret choice") if secret else notation)
                      for ply, secret, notation in taken]))))
    s.flush()
    if announce:
        notify.queue_boards(s, g, text, essential=True)
