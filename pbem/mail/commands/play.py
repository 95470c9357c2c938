"""Play and talk at a game's table: SAY, NEXT and IF (pre-moves), UNDO,
DISPUTE and LIST on a game's address; HISTORY, CARD and CARDS anywhere."""
from __future__ import annotations

import re
import textwrap

from pbem.engine import get_game
from pbem.i18n import N_, _, lazy_gettext, ngettext
from pbem.services.core import access, games, seating, visibility
from pbem.services.turns import premoves
from pbem.services.core.errors import UserError

from ..context import Context, Result, game_arg, need_game, need_user, rest
from ..lines import Line, is_game, names_a_card, parse_game_id
from .base import Command, Family, Section, Usage, Where, Who, first_word_game

FAMILY = Family("Play and talk", 3)


def _add_text(ctx: Context, text: str) -> None:
    """Answer text shown as is (monospace, line by line) below the results."""
    ctx.help_text = f"{ctx.help_text}\n\n{text}" if ctx.help_text else text


def do_undo(ctx: Context, line: Line) -> str:
    from pbem.services.referee import undo

    user = need_user(ctx)
    g = need_game(ctx, line, "UNDO")
    answer = (line.args[0].upper() if line.args else "")
    if answer in ("YES", "NO"):
        req = undo.vote(ctx.session, user, g.id, answer == "YES")
        if req.status == "done":
            return _("agreed; the moves from ply %(ply)d on are taken back (the new board comes separately)",
                     ply=undo.public_ply_of(ctx.session, g, req.ply))
        return _("refused; the move stands") if answer == "NO" else _("agreed; waiting for the other players")
    if answer:
        raise UserError(_("UNDO, UNDO YES or UNDO NO"), example="UNDO YES", code="bad_undo")
    out = undo.undo_last(ctx.session, user, g.id)
    if out.taken is not None:  # inside the seat's own turn: the receipt's board is the one before it
        m = out.taken
        secret = " " + _("(a secret choice: nobody else is told)") if m.superseded_by is not None else ""
        return _("taken back at once: your move at ply %(ply)d, %(move)s%(secret)s. Nobody else had seen it and "
                 "nothing was revealed, so no one had to agree; it stays in the log, marked undone. It is still "
                 "your turn: the board below is as it was before that move", ply=out.shown, move=m.notation,
                 secret=secret)
    if out.done:
        return _("your move at ply %(ply)d is taken back", ply=out.shown)
    return out.asked()


def do_dispute(ctx: Context, line: Line) -> str:
    from pbem.services.referee import disputes

    user = need_user(ctx)
    g = need_game(ctx, line, "DISPUTE 12 the card was misread")
    ply, _sep, text = rest(line).partition(" ")
    if not ply.isdigit():
        raise UserError(_("DISPUTE needs the ply number and what is wrong"), example=f"DISPUTE {max(1, visibility.public_ply(ctx.session, g))} the "
                        f"bot took my card twice", code="bad_dispute")
    d = disputes.open_dispute(ctx.session, user, g.id, int(ply), text)  # ``ply``: the number the player is shown
    return _("dispute #%(dispute)d about ply %(ply)d is open; an admin will answer", dispute=d.id, ply=int(ply))


def do_say(ctx: Context, line: Line) -> str:
    """SAY lines are checked as they come and sent when the mail is read:
    all of one mail's lines to one recipient (the table, or one player) as one
    post and one mail each (a mail of 199 SAY lines once sent 797 mails)."""
    from pbem.services.core import thread
    from pbem.services.follow import messages

    user = need_user(ctx)
    g = need_game(ctx, line, "SAY good luck, everyone!")
    thread.check_may_post(ctx.session, g, user)
    mine = seating.seat_of(ctx.session, g.id, user.id)
    text = rest(line).lstrip(":").strip()
    to_seat, text = messages.addressee(ctx.session, g, text, mine.seat if mine is not None else None)
    if not text:
        raise UserError(_("SAY needs something to say"), example="SAY good luck, everyone!", code="empty_say")
    if to_seat is not None:
        thread.recipient(ctx.session, g, to_seat)  # a seat with nobody to read it is refused now
    if (g.id, to_seat) not in ctx.says:  # a new post (a mail's lines to one reader are one post)
        thread.check_talk_quota(ctx.session, user, pending=len(ctx.says))
    ctx.says.setdefault((g.id, to_seat), []).append(text)
    if to_seat is not None:
        return _("sent privately to %(name)s", name=seating.names(ctx.session, g.id)[to_seat])
    return _("sent to the table")


def send_says(ctx: Context) -> None:
    """The mail's SAY lines, once it is read: one post (and one mail to each reader) per recipient."""
    from pbem.services.follow import messages

    from ..moves import own_addresses
    from ..quotes import without_addresses

    for (gid, to_seat), texts in ctx.says.items():
        try:
            messages.say(ctx.session, ctx.user, games.get(ctx.session, gid),
                         without_addresses("\n".join(texts), own_addresses(ctx)), source="mail", to_seat=to_seat,
                         addressed=True)
        except UserError as e:  # checked line by line already; a change in between is answered, not a crash
            ctx.results.append(Result(texts[0][:60], "ERROR", e.describe()))
            if e.code == "talk_quota":  # answered once: the rest of the mail's talk waits with it
                break


def do_next(ctx: Context, line: Line) -> str:
    from pbem.services.turns import premoves

    user = need_user(ctx)
    g = need_game(ctx, line, "NEXT: play 5")
    text = rest(line).lstrip(":").strip()
    if text.upper() == "CANCEL":
        n = premoves.cancel(ctx.session, g, user)
        return ngettext("%(num)d pre-move(s) cancelled", "%(num)d pre-move(s) cancelled", n)
    if line.command == "IF":
        pm = premoves.add_conditional(ctx.session, g, user, text)
    else:
        pm = premoves.add(ctx.session, g, user, text)
    before = g.ply
    premoves.apply_due(ctx.session, g)  # already your turn: played now
    ctx.session.refresh(pm)
    if pm.status == "pending":
        return _("kept: '%(move)s' will be played when your turn comes, if still legal", move=pm.text)
    if pm.status == "applied":  # told the table as any move is: a secret choice stays one
        ctx.boards_for[g.id] = lazy_gettext("%(who)s played: %(moves)s", who=user.name,
                                            moves=visibility.told(ctx.session, g, pm.seat, before))
    return _("it was already your turn: %(result)s", result=pm.result)


def do_list(ctx: Context, line: Line) -> str:
    """LIST: the seat's own choices on file for the step in progress, and its
    pre-moves. Only on the seat's address, for that seat."""
    g = need_game(ctx, line, "LIST")
    if ctx.seat is None or ctx.seat.game_id != g.id:
        raise UserError(_("LIST works on your seat's address: reply to a mail of the game"), example="LIST",
                        code="no_seat")
    return premoves.listing(ctx.session, g, ctx.seat.seat)


def do_history(ctx: Context, line: Line) -> str:
    """HISTORY [game-id]: the game's record in words, as the sender may read it."""
    s = ctx.session
    gid = game_arg(line, ctx)
    g = access.require_seen(s, games.get(s, gid), ctx.user)
    if not games.has_started(g):
        raise UserError(_("game #%(game)d has not started yet: it has no moves", game=g.id),
                        example=f"STATUS {g.id}", code="not_started")
    lines = visibility.record(s, g, visibility.viewer(s, g, ctx.user))
    if not lines:
        return _("game #%(game)d has no moves yet", game=g.id)
    _add_text(ctx, _("Game #%(game)d (%(title)s), move by move:", game=g.id, title=games.engine_for(g).title)
              + "\n" + "\n".join(lines))
    return ngettext("the record of game #%(game)d (%(num)d moves) is below",
                    "the record of game #%(game)d (%(num)d moves) is below", len(lines), game=g.id)


def do_hint(ctx: Context, line: Line) -> str:
    """HINT [game-id]: in a practice game, the search's three best moves for the sender's seat, from
    what the seat can see (services/turns/hints.py); asked again at the same ply, the same hint."""
    from pbem.services.turns import hints

    s = ctx.session
    user = need_user(ctx)
    g = access.require_seen(s, games.get(s, game_arg(line, ctx)), user)
    asked = hints.ask(s, g, user)
    row = visibility.hint_row(s, g, visibility.viewer(s, g, user), asked.hint)
    _add_text(ctx, hint_text(g, row))
    if not asked.fresh:
        return _("you asked at this ply already: the same hint is below (one hint per move)")
    return _("the search's best moves for you in game #%(game)d are below; the table is told you used a hint",
             game=g.id)


def hint_text(g, row: visibility.HintRow) -> str:
    """A hint in words, for the answer mail (the game page shows the same)."""
    out = [_("Hint for game #%(game)d, ply %(ply)d (the search's best moves, read from what you can see; the "
             "estimates are rough):", game=g.id, ply=row.ply)]
    for n, c in enumerate(row.choices or (), 1):
        out.append(f"{n}. {c.move}  " + _("about %(percent)d%% to win, about %(points)s points",
                                          percent=c.percent, points=f"{c.points:.1f}"))
        if c.words:
            out.extend(textwrap.wrap(c.words, 74, initial_indent="   ", subsequent_indent="   "))
    return "\n".join(out)


def _card_games(ctx: Context, args: list[str]) -> tuple[list, list[str]]:
    """The games a CARD/CARDS line asks about, and the words left: a game named
    first, else the game of the seat's address, else every game."""
    from pbem.engine import playable_games

    if args and not args[0].lstrip("#").isdigit():
        try:
            return [get_game(args[0])], args[1:]
        except KeyError:
            pass
    if ctx.game is not None:
        return [games.engine_for(ctx.game)], args
    return [g for g in playable_games() if getattr(g, "cards", None)], args


def _card_example(engines: list) -> str:
    for engine in engines:
        cards = getattr(engine, "cards", lambda: ())()
        if cards:
            return f"CARD {engine.name} {cards[0].name}"
    return "CARDS"


def do_card(ctx: Context, line: Line) -> str:
    """CARD [game] <name>: a card's whole text from the game's data."""
    from pbem.engine.base import find_cards

    engines, words = _card_games(ctx, line.args)
    query = " ".join(words).strip()
    if not query:
        raise UserError(_("say which card: CARD and its name (CARDS lists them)"), example=_card_example(engines),
                        code="no_card")
    found = [(engine, c) for engine in engines for c in find_cards(engine, query)]
    if not found:
        where = engines[0].title if len(engines) == 1 else _("any game")
        raise UserError(_("no card called %(card)s in %(where)s; CARDS lists them", card=repr(query), where=where),
                        example=_card_example(engines), code="no_card")
    if len(found) > 6:
        names = ", ".join(f"{c.name} ({e.title})" if len(engines) > 1 else c.name for e, c in found[:30])
        more = " " + _("and %(more)d more", more=len(found) - 30) if len(found) > 30 else ""
        raise UserError(ngettext("%(num)d card matches %(card)s: %(names)s%(more)s; say which",
                                 "%(num)d cards match %(card)s: %(names)s%(more)s; say which", len(found),
                                 card=repr(query), names=names, more=more),
                        example=f"CARD {found[0][1].name}", code="ambiguous_card")
    _add_text(ctx, "\n\n".join(_("%(name)s (%(title)s, %(kind)s; write it %(key)s)", name=c.name, title=e.title,
                                   kind=c.kind, key=c.key) + f"\n{c.text}" for e, c in found))
    if len(found) == 1:
        return _("the card is below")
    return ngettext("%(num)d card matches; it is below", "%(num)d cards match; they are below", len(found))


def do_cards(ctx: Context, line: Line) -> str:
    """CARDS [game]: every card of a game, by kind."""
    engines, _rest_words = _card_games(ctx, line.args)
    if len(engines) != 1:
        raise UserError(_("say which game's cards: CARDS and the game"), example="CARDS iaww", code="no_game")
    engine = engines[0]
    cards = tuple(getattr(engine, "cards", lambda: ())())
    if not cards:
        return _("%(title)s has no cards to look up", title=engine.title)
    kinds: dict[str, list[str]] = {}
    for c in cards:
        kinds.setdefault(c.kind, []).append(c.name if c.key.lower() == c.name.lower() else f"{c.name} ({c.key})")
    out = []
    for kind, names in kinds.items():
        out.append(f"{kind} ({len(names)}):")
        out.extend(textwrap.wrap(", ".join(names), 76, initial_indent="  ", subsequent_indent="  "))
    _add_text(ctx, _("The cards of %(title)s (CARD <name> shows one):", title=engine.title) + "\n" + "\n".join(out))
    return ngettext("the %(num)d card of %(title)s is below", "the %(num)d cards of %(title)s are below", len(cards),
                    title=engine.title)


def _is_a_record_talk(word: str, rest_: str) -> bool:
    """"History repeats itself", "Cards on the table!": the command is in capitals, alone, or names a game."""
    return not (word.isupper() or not rest_.strip() or re.fullmatch(r"#?\d{1,12}|[a-z']+", rest_.strip(), re.I)
                and is_game(rest_.strip()))


UNDO = Command(
    "UNDO", do_undo, FAMILY, where=Where.GAME, who=Who.PLAYER,
    usage=(Usage(N_("UNDO | UNDO YES | UNDO NO"),
                 N_("take back your last move: at once while it is still your turn and\n"
                    "nobody has seen it (nothing revealed), else if the others agree"), Section.COMMANDS, 130),),
    doc="take back your last move: at once while it is still your turn and nobody else has seen it (as **Take "
        "back** under the game page's move box does); otherwise the others are asked, and `UNDO YES` / `UNDO NO` "
        "answers such a request")

DISPUTE = Command(
    "DISPUTE", do_dispute, FAMILY, where=Where.GAME, who=Who.PLAYER,
    usage=(Usage(N_("DISPUTE <ply> <text>"), N_("ask an admin to look at a move"), Section.COMMANDS, 140),),
    doc="ask an admin to look at a move (the ply number, and what is wrong)")

SAY = Command(
    "SAY", do_say, FAMILY, where=Where.GAME, who=Who.PLAYER,
    usage=(Usage(N_("SAY <text> | SAY <seat or name>: <text>"), N_("talk to the table, or privately"),
                 Section.COMMANDS, 150),),
    doc="table talk, to everyone at the table, or privately to one player (`SAY Bob: ...`, `SAY 2: ...`); a "
        "mail's lines to one reader are one post")

NEXT = Command(
    "NEXT", do_next, FAMILY, where=Where.GAME, who=Who.PLAYER,
    # "Next time!" is talk: the command is in capitals, or has its colon, or CANCEL
    is_talk=lambda word, rest_: not (word.isupper() or rest_.startswith(":") or rest_.strip().upper() == "CANCEL"),
    usage=(Usage(N_("NEXT: <move> | NEXT CANCEL"), N_("a move to play when your turn comes"), Section.COMMANDS, 160),),
    doc="a pre-move: played when your turn comes, if it is still legal; `NEXT CANCEL` withdraws your pre-moves")

IF = Command(
    "IF", do_next, FAMILY, where=Where.GAME, who=Who.PLAYER,
    # "If you don't mind..." is talk: the command is in capitals, or has its THEN
    is_talk=lambda word, rest_: not (word.isupper() or re.search(r"\bthen\b", rest_, re.I)),
    usage=(Usage(N_("IF <move> THEN <move>"),
                 N_("play it only if the move before your turn was that one\n"
                    "(IF Bob: wait THEN play 5 — only if Bob's was)"), Section.COMMANDS, 200),),
    doc="a conditional pre-move: played only if the move before your turn was that one (`IF Bob: wait THEN "
        "play 5`: only if Bob's was)")

LIST = Command(
    "LIST", do_list, FAMILY, where=Where.GAME, who=Who.PLAYER, read_only=True,
    is_talk=lambda word, rest_: bool(rest_.strip()),  # "List of my moves:" is talk; the command is the word alone
    usage=(Usage(N_("LIST"), N_("your choices on file in a step everyone plays at once (It's a\n"
                                "Wonderful World); a new order replaces them until the reveal"),
                 Section.COMMANDS, 190),),
    doc="your choices on file in a step everyone plays at once (It's a Wonderful World), and your pre-moves; a "
        "new order replaces a finished secret choice until the step is revealed, and nobody else is told")

HISTORY = Command(
    "HISTORY", do_history, FAMILY, where=Where.ANY, read_only=True,
    is_talk=_is_a_record_talk,
    usage=(Usage(N_("HISTORY [game-id]"), N_("the game's record, move by move, in words"), Section.COMMANDS, 170),),
    doc="the game move by move, in words, as you may read it (also on the web at `/games/<id>/history`)")

CARDS = Command(
    "CARDS", do_cards, FAMILY, where=Where.ANY, read_only=True, is_talk=_is_a_record_talk, syntax=("CARDS [game]",),
    doc="all of a game's cards, by kind (on the web at `/rules/<game>/cards`)")

CARD = Command(
    "CARD", do_card, FAMILY, where=Where.ANY, read_only=True,
    is_talk=lambda word, rest_: not (word.isupper() or names_a_card(rest_)),  # "Card games..." is talk
    usage=(Usage(N_("CARD [game] <name>"), N_("a card's whole text (cost, effect, points); CARDS [game] lists them"),
                 Section.COMMANDS, 180),),
    doc="a card's whole text: cost, effect, points")

HINT = Command(
    "HINT", do_hint, FAMILY, where=Where.ANY, who=Who.PLAYER, names_game=first_word_game,
    # "Hint: look at lot 3" is talk: the command is in capitals, alone, or names a game's number
    is_talk=lambda word, rest_: not (word.isupper() or not rest_.strip() or parse_game_id(rest_.split()) is not None),
    usage=(Usage(N_("HINT [game-id]"), N_("in a practice game (NEW ... hints=on), on your turn: the search's\n"
                                         "three best moves for you; the table is told you used a hint"),
                 Section.COMMANDS, 185),),
    doc="in a practice game (created with `hints=on`), on your turn: the search bot's three best moves for your "
        "seat, each with a rough chance of winning, the points it expects you to end with, and what the move "
        "does, read from what your seat can see only (as the **Hint** button on the game page). The table is told "
        "that you used a hint at that ply; the moves are yours alone until the game is over. One hint per move: "
        "asking again at the same ply gives the same hint")
