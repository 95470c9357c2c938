"""The moves of a mail: its runs of move lines submitted to the game (the
results, the headline the table's boards carry, a secret choice replaced
before the reveal), and a reply to table talk posted back as talk."""
from __future__ import annotations

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
    res = moves.submit_moves(ctx.session, g.id, seat.seat, batch, source="mail",
                             user_id=ctx.user.id if ctx.user else None, inbound_id=ctx.inbound.id,
                             expected_ply=ctx.expected_ply)
    ctx.moves += len(res.applied)
    for a in res.applied:
        if a.note:  # a move the order left unsaid, and why (the mover's own: it may name the hand)
            shown = _("ply %(ply)d: %(note)s", ply=a.ply, note=a.note)
        else:
            shown = (_("ply %(ply)d, written %(notation)s", ply=a.ply, notation=a.notation)
                     if a.notation.lower() != a.text.lower() else _("ply %(ply)d", ply=a.ply))
        ctx.results.append(Result(a.text, "OK", shown))
    for a in res.discarded:
        ctx.results.append(Result(a.text, "NOT APPLIED", _("legal, but this game takes a mail's moves all "
                                                           "or none, and a later one failed")))
    if res.error is not None:
        detail = res.error.describe()
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


def replaced_paragraph(res: moves.SubmitResult) -> str:
    return _("Your new order replaces the one you had on file for this step (%(order)s). Nobody "
             "else is told; you may change it again until the step is revealed (LIST shows what is on file).",
             order='; '.join(res.replacing))
