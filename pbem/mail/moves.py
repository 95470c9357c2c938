"""The moves of a mail: its runs of move lines submitted to the game (the
results, the headline the table's boards carry, a secret choice replaced
before the reveal), and a reply to table talk posted back as talk."""
from __future__ import annotations

import re

from pbem.i18n import _, lazy_gettext
from pbem.services.core import games, moves, seating, visibility
from pbem.services.core.errors import UserError

from .context import Context, Result, need_user
from .quotes import without_addresses


def post_talk(ctx: Context) -> None:
    """A reply to table talk: what was not a move goes back to the table as talk (to one player, if the
    reply answered a private message)."""
    from pbem.services.follow import messages

    text = without_addresses("\n".join(ctx.talk).strip(), own_addresses(ctx))
    shown = text if len(text) <= 60 else text[:57] + "..."
    try:
        user = need_user(ctx)
        g = games.get(ctx.session, ctx.game.id)
        p = messages.say(ctx.session, user, g, text, source="mail", to_seat=ctx.talk_to)
    except UserError as e:
        ctx.results.append(Result(shown, "ERROR", e.describe()))
        return
    if p.to_seat is not None:
        said = _("your reply to the table talk was sent privately to %(name)s (lines in move notation would have "
                 "been played)", name=seating.names(ctx.session, g.id)[p.to_seat])
    else:
        said = _("your reply to the table talk was sent to the table (lines in move notation would have been "
                 "played)")
    ctx.results.append(Result(shown, "OK", said))


# what a player may have put between two steps on one line, when they are not read as two
SEPARATOR_LIKE_RE = re.compile(r",|/|\s(?:and|then|und|et|e|и|и после|след това|poi)\s", re.I)


def own_addresses(ctx: Context) -> set[str]:
    """The addresses of the mail's sender: the only ones its talk may carry to a post."""
    return {a.lower() for a in (ctx.sender, ctx.user.email if ctx.user else "") if a}


def submit(ctx: Context, batch: list[str]) -> None:
    """A run of move lines, submitted together: each applied one, and the first that failed, is a result;
    after a failure the rest of the mail's moves wait for a corrected mail."""
    if not batch:
        return
    if ctx.not_applied:  # an earlier move failed: later ones wait for a corrected mail
        ctx.not_applied.extend(batch)
        return
    g, seat = ctx.game, ctx.seat
    res = _submit(ctx, batch)
    if _after_the_turn(ctx, batch, res):
        # the turn was complete before this line (a signature: "Place Bellecour 3" under the name): what follows
        # it is not read, never an error; a game that takes a mail's moves all or none plays the turn before it
        rest = [res.failed_text or "", *res.not_applied]
        if res.discarded:
            res = _submit(ctx, batch[:max(0, len(batch) - len(rest))])
        else:
            res.error, res.failed_text, res.not_applied = None, None, []
        if res.error is None:
            ctx.ignored_lines.extend(r for r in rest if r)
            ctx.paragraphs.append(_("Your turn was complete before %(line)s, so pbem read no further (a "
                                    "signature?). To play a move when your next turn comes, send it as a "
                                    "pre-move: NEXT: <move>", line=repr(rest[0])))
    ctx.moves += len(res.applied)
    # each move by its number as this seat may see it: inside a secret step its own count, not the game's ply
    # (which counts the others' secret parts too)
    number = visibility.secrets(ctx.session, g).shown_ply if res.applied else None
    for a in res.applied:
        ply = number(a.ply, seat.seat)
        if a.note:  # a move the order left unsaid, and why (the mover's own: it may name the hand)
            shown = _("ply %(ply)d: %(note)s", ply=ply, note=a.note)
        else:
            shown = (_("ply %(ply)d, written %(notation)s", ply=ply, notation=a.notation)
                     if a.notation.lower() != a.text.lower() else _("ply %(ply)d", ply=ply))
        ctx.results.append(Result(a.text, "OK", shown))
    for a in res.discarded:
        ctx.results.append(Result(a.text, "NOT APPLIED", _("legal, but this game takes a mail's moves all "
                                                           "or none, and a later one failed")))
    if res.error is not None:
        detail = res.error.describe()
        if SEPARATOR_LIKE_RE.search(res.failed_text or ""):  # two steps on one line, joined by a comma or "and"
            detail += "\n" + _("(separate steps with ; or new lines)")
        ctx.results.append(Result(res.failed_text or "", "ERROR", detail))
        ctx.not_applied.extend(res.not_applied)
    if res.replaced:  # a secret choice changed before the reveal: the others are told nothing
        ctx.paragraphs.append(replaced_paragraph(res))
    elif res.replacing:
        ctx.paragraphs.append(_("Your order on file for this step (%(order)s) stays as it was.",
                                order='; '.join(res.replacing)))
    if res.applied:
        ctx.expected_ply = None  # our own moves do not make the rest of the mail stale
    if res.applied and not res.replaced:
        names = seating.names(ctx.session, g.id)
        who = names[seat.seat] if seat.seat < len(names) else f"Seat {seat.seat + 1}"
        moved = visibility.told(ctx.session, g, seat.seat, res.applied[0].ply - 1)  # a secret stays one
        ctx.boards_for[g.id] = (lazy_gettext("%(who)s played: %(moves)s — the game is over.", who=who, moves=moved)
                                if res.over else lazy_gettext("%(who)s played: %(moves)s", who=who, moves=moved))
        ctx.moved.setdefault(g.id, res.applied[0].ply)  # the table's boards wait while the turn goes on


def _submit(ctx: Context, batch: list[str]) -> moves.SubmitResult:
    return moves.submit_moves(ctx.session, ctx.game.id, ctx.seat.seat, batch, source="mail",
                              user_id=ctx.user.id if ctx.user else None, inbound_id=ctx.inbound.id,
                              expected_ply=ctx.expected_ply)


def _after_the_turn(ctx: Context, batch: list[str], res: moves.SubmitResult) -> bool:
    """The move that failed came after the seat's turn was complete (this mail
    completed it: moves applied, or rolled back with it), and it is no move the
    seat could make now. In a game that takes a mail's moves all or none, the
    turn is complete when the moves before it complete it as the end of a mail
    does (what the order leaves unsaid, Squire's "offers none", and the rules'
    closing move included)."""
    if res.error is None or not res.failed_text or not (res.applied or res.discarded or ctx.moves):
        return False
    if getattr(res.error, "code", "") in ("not_your_turn", "game_over"):
        return True
    before = batch[:max(0, len(batch) - 1 - len(res.not_applied))]
    return bool(res.discarded) and bool(before) and _completes(ctx, before)


def _completes(ctx: Context, texts: list[str]) -> bool:
    """Whether ``texts`` end the seat's turn, read as the services read an
    order (engine only: nothing is stored)."""
    from pbem.engine.base import MoveError, normalize_notation

    deciding = moves.deciding_state(ctx.session, ctx.game, ctx.seat.seat)
    if deciding is None:
        return False
    engine, state, seat = games.engine_for(ctx.game), deciding[0], ctx.seat.seat
    implied, closing = getattr(engine, "implied_move", None), getattr(engine, "closing_move", None)
    order: list = []
    try:
        for text in [normalize_notation(t) for t in texts] + [None]:
            found = implied(state, seat, tuple(order), text) if implied and seat in engine.to_move(state) else None
            if found is not None:
                state = engine.apply(state, seat, found.move)
                order.append(found.move)
            if text is None:
                break
            if seat not in engine.to_move(state):
                return False
            move = engine.parse_move(state, seat, text)
            state = engine.apply(state, seat, move)
            order.append(move)
        move = closing(state, seat) if closing is not None and seat in engine.to_move(state) else None
        if move is not None:
            state = engine.apply(state, seat, move)
    except MoveError:
        return False
    return seat not in engine.to_move(state)


def replaced_paragraph(res: moves.SubmitResult) -> str:
    return _("Your new order replaces the one you had on file for this step (%(order)s). Nobody "
             "else is told; you may change it again until the step is revealed (LIST shows what is on file).",
             order='; '.join(res.replacing))
