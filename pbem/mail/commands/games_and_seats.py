"""Games and seats: finding and making a game (GAMES, NEW), taking, leaving
and handing over seats (JOIN, ACCEPT, DECLINE, RESIGN, REPLACE, BOT), the
creator's START, CANCEL and REMOVE, and watching a game (STATUS, OBSERVE,
UNOBSERVE)."""
from __future__ import annotations

import difflib
import re

from pbem.config import settings
from pbem.engine import get_game
from pbem.i18n import N_, _, lazy_gettext, ngettext
from pbem.services.core import access, games, lifecycle, seating, visibility
from pbem.services.lobby import tables
from pbem.services.core.errors import UserError
from pbem.store.models import Game, Seat, User

from ..context import Context, game_arg, need_user, rest
from ..lines import Line, parse_game_id, parse_options
from .base import Command, Family, Section, Usage, Where, Who, first_word_game

FAMILY = Family("Games and seats", 2)

GAMES_SHOWN = 20  # open games, and the sender's own, that a GAMES answer lists: the rest are on the web


def _started(ctx: Context, g: Game):
    """The headline of the boards of a game that has just started: written in each reader's language."""
    return lazy_gettext("Game #%(game)d has started: %(names)s.", game=g.id,
                        names=", ".join(seating.names(ctx.session, g.id)))


def _game_link(gid: int) -> str:
    return f"{settings().base_url.rstrip('/')}/games/{gid}"


def do_games(ctx: Context, line: Line) -> str:
    s = ctx.session
    lines = []
    base = settings().base_url.rstrip("/")
    found = tables.open_tables(s, ctx.user, per_page=GAMES_SHOWN)
    for t in found.rows:
        g = t.game
        engine = games.engine_for(g)
        taken = len(t.players)
        if g.access == "password":
            line_ = ngettext("#%(game)d %(title)s: open, %(taken)d/%(num)d seat, needs a password — JOIN %(game)d "
                             "<password>", "#%(game)d %(title)s: open, %(taken)d/%(num)d seats, needs a password — "
                             "JOIN %(game)d <password>", g.players, game=g.id, title=engine.title, taken=taken)
        elif g.access == "private":
            line_ = ngettext("#%(game)d %(title)s: private, %(taken)d/%(num)d seat — JOIN %(game)d",
                             "#%(game)d %(title)s: private, %(taken)d/%(num)d seats — JOIN %(game)d", g.players,
                             game=g.id, title=engine.title, taken=taken)
        else:
            line_ = ngettext("#%(game)d %(title)s: open, %(taken)d/%(num)d seat — JOIN %(game)d",
                             "#%(game)d %(title)s: open, %(taken)d/%(num)d seats — JOIN %(game)d", g.players,
                             game=g.id, title=engine.title, taken=taken)
        shown = [_("%(name)s (rating %(rating)s)", name=p.name, rating=p.rating) if p.rating is not None else p.name
                 for p in t.players]
        if shown:
            line_ += "\n    " + _("seated: %(players)s", players=", ".join(shown))
        if g.min_reliability is not None:
            line_ += "\n    " + _("players need a reliability of at least %(min)d%%", min=g.min_reliability)
        if g.hints:
            line_ += "\n    " + _("a practice game with hints (HINT): never rated")
        lines.append(line_)
    if not lines:
        lines.append(_("No open games right now: start one with NEW <game>."))
    elif found.more:
        lines.append(_("More open games are in the lobby: %(url)s", url=f"{base}/lobby"))
    if ctx.user:
        mine = games.my_games(s, ctx.user, per_page=GAMES_SHOWN)
        listed = ", ".join(f"#{m.game.id} {m.game.game} ({m.game.status})" for m in mine.rows) or _("none")
        lines.append(_("Your games: %(games)s", games=listed + (", …" if mine.more else "")))
        if mine.more:
            lines.append(_("All your games are on your page: %(url)s", url=f"{base}/me"))
    return "\n".join(lines)


NEW_KEYS = {"players": lazy_gettext("how many"), "deadline": lazy_gettext("hours per turn, 48"),
            "policy": lazy_gettext("wait, bot or abandon"), "days": lazy_gettext("all or no-weekends"),
            "master": lazy_gettext("a registered user's name: the game master, if not you"),
            "min_reliability": lazy_gettext("a percent, 0-100"),
            "bot": lazy_gettext("how well its bots play: easy, normal or strong"),
            "hints": lazy_gettext("on: a practice game, its players may ask HINT; never rated")}  # NEW's own options; each game adds its own (engine options)
_NUMBER_WORDS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "solo": 1}
_PLAYER_WORDS = ("p", "pl", "player", "players", "ppl", "people", "persons", "spieler", "joueurs", "игрока",
                 "игроков")
_COUNT_RE = re.compile(r"^(\d{1,2}|" + "|".join(_NUMBER_WORDS) + r")(?:[- ]?(" + "|".join(_PLAYER_WORDS) + r"))?$")


def _new_words(engine, opts: dict[str, str], words: list[str]) -> None:
    """NEW takes options as key=value; anything else is refused (a word that
    was ignored made "NEW Spyrium 3 players" a 5-player game), with the
    key=value it most likely meant: "3 players", "players 3", "3p", "for 3",
    "48h", a choice of one of the game's options ("world" -> side=world)."""
    own = {o.name: o for o in engine.options}
    keys = [*NEW_KEYS, *own]
    guesses: list[str] = []
    unknown: list[str] = []

    def count(w: str) -> int | None:
        m = _COUNT_RE.match(w)
        return None if m is None else (int(m.group(1)) if m.group(1).isdigit() else _NUMBER_WORDS[m.group(1)])

    for key in [k for k in opts if k not in keys]:  # key=value with a key nobody knows
        close = difflib.get_close_matches(key, keys, n=1, cutoff=0.6)
        (guesses if close else unknown).append(f"{close[0]}={opts[key]}" if close else f"{key}={opts[key]}")
    ws = [w.lower().strip(",;.") for w in words]
    i = 0
    while i < len(ws):
        w, nxt = ws[i], (ws[i + 1] if i + 1 < len(ws) else "")
        key, _sep, value = w.partition(":")
        if count(w) is not None and _COUNT_RE.match(w).group(2):  # 3p, 3-players
            guesses.append(f"players={count(w)}")
        elif count(w) is not None and nxt in _PLAYER_WORDS:  # 3 players
            guesses.append(f"players={count(w)}")
            i += 1
        elif w in ("for", "with", "players", "player") and count(nxt) is not None:  # for 3, players 3
            guesses.append(f"players={count(nxt)}")
            i += 1 + (i + 2 < len(ws) and ws[i + 2] in _PLAYER_WORDS)
        elif key in keys and value:  # players:3
            guesses.append(f"{key}={value}")
        elif key in keys and nxt:  # deadline 24, side world
            guesses.append(f"{key}={nxt}")
            i += 1
        elif (m := re.fullmatch(r"(\d{1,3})(h|hours?)", w)) or (w.isdigit() and nxt in ("h", "hour", "hours")):
            guesses.append(f"deadline={m.group(1) if m else w}")  # 48h, 48 hours
            i += m is None
        elif count(w) is not None:  # a number alone
            guesses.append(f"players={count(w)}")
        elif w in ("no-weekends", "weekdays") or (w == "no" and nxt in ("weekends", "weekend")):
            guesses.append("days=no-weekends")
            i += w == "no"
        elif w in ("wait", "bot", "bots", "abandon"):
            guesses.append(f"policy={w.rstrip('s')}")
        else:
            fits = [o.name for o in engine.options
                    if o.choices and w in {str(c).lower() for c in o.choices}]
            if len(fits) == 1:
                guesses.append(f"{fits[0]}={w}")
            else:
                unknown.append(words[i])
        i += 1
    if not guesses and not unknown:
        return
    given = [f"{k}={v}" for k, v in opts.items() if k in keys]
    if unknown:
        see = _("see HELP %(game)s", game=engine.name)
        theirs = "; ".join(f"{o.name} ({', '.join(map(str, o.choices)) if o.choices else see})"
                           for o in engine.options) or _("none")
        keys_shown = "; ".join(f"{k} ({v})" for k, v in dict(
            NEW_KEYS, players=f"{engine.min_players}-{engine.max_players}").items())
        raise UserError(
            _("NEW %(game)s: %(words)s is not an option. Options are written key=value: %(keys)s; and %(title)s's "
              "own: %(theirs)s", game=engine.name, words=", ".join(repr(u) for u in unknown), keys=keys_shown,
              title=engine.title, theirs=theirs)
            + (". " + _("Did you mean %(guess)s?", guess=" ".join(guesses)) if guesses else "")
            + " " + _("Nothing was created"),
            example=" ".join([f"NEW {engine.name}", *guesses, *given] if guesses or given
                             else [f"NEW {engine.name}", f"players={engine.min_players}", "deadline=48"]),
            code="bad_option")
    raise UserError(_("NEW %(game)s: options are written key=value; did you mean %(guess)s? Nothing was created",
                      game=engine.name, guess=" ".join(guesses)), example=" ".join([f"NEW {engine.name}", *guesses, *given]),
                    code="bad_option")


_MASTER_OPT_RE = re.compile(r"(?:^|\s)master=(.*?)(?=\s+[a-z_][a-z0-9_]*=|$)", re.I)


def do_new(ctx: Context, line: Line) -> str:
    from pbem.services.referee import master

    user = need_user(ctx)
    args = line.args
    named_master = None
    if m := _MASTER_OPT_RE.search(rest(line)):  # master=Anna K.: a name may have spaces
        words = rest(line)[:m.start()].split() + rest(line)[m.end():].split()
        args = [w for w in words]
        game_word = next((w for w in args if "=" not in w), "spyrium")
        named_master = master.find_user(ctx.session, m.group(1), f"NEW {game_word} master=Anna K.")
    opts, words = parse_options(args)
    if not words:
        raise UserError(_("NEW needs the name of a game"), example="NEW spyrium players=4", code="no_game_name")
    named = [w for w in words if _known_game(w)]  # "NEW 3 players spyrium" names it second
    try:
        engine = get_game(named[0] if named else words[0])
    except KeyError as e:
        raise UserError(str(e.args[0]), example="NEW spyrium players=4", code="no_such_game") from None
    words.remove(named[0] if named else words[0])
    access = "public"
    if any(w.lower().strip(",;.") == "private" for w in words):  # invitation only
        words = [w for w in words if w.lower().strip(",;.") != "private"]
        access = "private"
    password = opts.pop("password", None)
    if password is not None and access == "private":
        raise UserError(_("a game is either private (invitation only) or has a password, not both. Nothing was "
                          "created"), example=f"NEW {engine.name} private", code="bad_option")
    _new_words(engine, opts, words)
    words = [engine.name]
    players = opts.pop("players", None)
    deadline = opts.pop("deadline", "48")
    try:
        n = int(players) if players is not None else None
        hours = int(deadline.lower().rstrip("h"))
    except ValueError:
        raise UserError(_("players and deadline are numbers (got %(players)s, %(deadline)s)", players=repr(players),
                          deadline=repr(deadline)),
                        example=f"NEW {words[0]} players=3 deadline=48", code="bad_option") from None
    days = opts.pop("days", "all").lower()
    policy = opts.pop("policy", "wait").lower()
    minimum = opts.pop("min_reliability", None)
    bot_level = opts.pop("bot", None)
    hints = _hints_option(opts.pop("hints", "off"), words[0])
    tables.check_creation_quota(ctx.session, user)
    g = tables.create(ctx.session, user, words[0], n, opts, deadline_hours=hours, policy=policy,
                     day_mask="" if days == "all" else days, access=access, password=password,
                     min_reliability=minimum, bot_level=bot_level, hints=hints)
    if named_master is not None:
        master.appoint(ctx.session, user, g, named_master)
    engine = games.engine_for(g)
    practice = " " + _("It is a practice game with hints (never rated): on your turn, send HINT for the "
                       "search's three best moves") if g.hints else ""
    return _created(ctx, g, engine, named_master, password) + practice


def _hints_option(value: str, game: str) -> bool:
    """NEW's ``hints=on|off``."""
    word = value.strip().lower()
    if word in ("on", "yes", "1", "true"):
        return True
    if word in ("off", "no", "0", "false"):
        return False
    raise UserError(_("hints is on or off (got %(value)s). Nothing was created", value=repr(value)),
                    example=f"NEW {game} players=2 hints=on", code="bad_option")


def _created(ctx: Context, g: Game, engine, named_master, password) -> str:
    if g.status == "open" and g.access == "private":
        return ngettext("game #%(game)d (%(title)s, %(num)d player) is open and private: only the people you "
                        "invite may join (invite them on the game's page, %(link)s)",
                        "game #%(game)d (%(title)s, %(num)d players) is open and private: only the people you "
                        "invite may join (invite them on the game's page, %(link)s)", g.players, game=g.id,
                        title=engine.title, link=_game_link(g.id))
    if g.status == "open" and g.access == "password":  # the creator's own reply: the only mail with the word
        return ngettext("game #%(game)d (%(title)s, %(num)d player) is open to those who give its password, "
                        "%(password)s: tell it to the players you want, who send JOIN %(game)d %(password)s",
                        "game #%(game)d (%(title)s, %(num)d players) is open to those who give its password, "
                        "%(password)s: tell it to the players you want, who send JOIN %(game)d %(password)s",
                        g.players, game=g.id, title=engine.title, password=password.strip())
    if g.status == "running":
        ctx.boards_for[g.id] = lazy_gettext("Game #%(game)d (%(title)s, solo) has started.", game=g.id,
                                            title=engine.title)  # written in each reader's language
        return _("game #%(game)d (%(title)s, solo) has started; your board comes in a separate mail", game=g.id,
                 title=engine.title)
    if named_master is not None and named_master.id != ctx.user.id:
        return ngettext("game #%(game)d (%(title)s, %(num)d player) is open; others can JOIN %(game)d. Its game "
                        "master is %(name)s",
                        "game #%(game)d (%(title)s, %(num)d players) is open; others can JOIN %(game)d. Its game "
                        "master is %(name)s", g.players, game=g.id, title=engine.title, name=named_master.name)
    return ngettext("game #%(game)d (%(title)s, %(num)d player) is open; others can JOIN %(game)d",
                    "game #%(game)d (%(title)s, %(num)d players) is open; others can JOIN %(game)d", g.players,
                    game=g.id, title=engine.title)


def _known_game(name: str) -> bool:
    try:
        get_game(name)
    except KeyError:
        return False
    return True


def _new_is_a_move(args: list[str]) -> bool:
    """Spyrium's ``new`` (a new lot): on a seat's address NEW is the command only with a game's name."""
    try:
        get_game(args[0]) if args else None
    except KeyError:
        return True
    return not args


def do_join(ctx: Context, line: Line) -> str:
    user = need_user(ctx)
    gid = game_arg(line, ctx)
    g, seat, started = tables.join(ctx.session, user, gid, password=" ".join(line.args[1:2]) or None)
    return _joined(ctx, g, seat, started)


def _joined(ctx: Context, g: Game, seat: Seat, started: bool) -> str:
    if started:
        ctx.boards_for[g.id] = _started(ctx, g)
        return _("you have seat %(seat)d in game #%(game)d; the game is full and has started", seat=seat.seat + 1,
                 game=g.id)
    return _("you have seat %(seat)d in game #%(game)d", seat=seat.seat + 1, game=g.id)


def do_start(ctx: Context, line: Line) -> str:
    user = need_user(ctx)
    g = games.get(ctx.session, game_arg(line, ctx), lock=True)
    lifecycle.start(ctx.session, g, by=user)
    ctx.boards_for[g.id] = _started(ctx, g)
    return ngettext("game #%(game)d has started with %(num)d player", "game #%(game)d has started with %(num)d players",
                    g.players, game=g.id)


def do_status(ctx: Context, line: Line) -> str:
    s = ctx.session
    gid = game_arg(line, ctx, required=False)
    if gid is None:
        return do_games(ctx, line)
    g = access.require_seen(s, games.get(s, gid), ctx.user)
    engine = games.engine_for(g)
    if g.status == "open":
        return ngettext("game #%(game)d (%(title)s) is open with %(taken)d/%(num)d seat",
                        "game #%(game)d (%(title)s) is open with %(taken)d/%(num)d seats", g.players, game=g.id,
                        title=engine.title, taken=len(seating.seats(s, g.id)))
    if g.status == "cancelled":
        return _("game #%(game)d (%(title)s) was cancelled before it started", game=g.id, title=engine.title)
    view = games.view_for(s, g, visibility.viewer(s, g, ctx.user).seat)
    ply = visibility.public_ply(s, g)  # the counter as the reader may see it: no count of secret choices
    if ctx.seat is None or ctx.seat.game_id != g.id:
        ctx.paragraphs.append(_("Game #%(game)d at ply %(ply)d:", game=g.id, ply=ply) + "\n" + engine.render_text(view))
    return _("game #%(game)d: %(status)s (ply %(ply)d)", game=g.id, status=view.get('status', g.status), ply=ply)


def do_resign(ctx: Context, line: Line) -> str:
    from pbem.services.lobby import seats

    user = need_user(ctx)
    gid = game_arg(line, ctx)
    left = seats.resign(ctx.session, user, gid)
    if left.how == "cancelled":
        return _("you created game #%(game)d and it had not started, so it is cancelled (nobody else could start "
                 "it); the players who had joined are told", game=gid)
    if left.how == "left":
        return _("you have left game #%(game)d before it started; your seat is free for someone else", game=gid)
    ctx.boards_for[gid] = lazy_gettext("%(name)s has resigned from seat %(seat)d.", name=user.name,
                                       seat=left.seat.seat + 1)
    ctx.moved.pop(gid, None)  # the table hears of the resignation at once, with the board as it is
    return _("you have resigned from game #%(game)d", game=gid)


def do_cancel(ctx: Context, line: Line) -> str:
    """CANCEL <game-id>: the creator withdraws an open game."""
    from pbem.services.lobby import seats

    user = need_user(ctx)
    g = seats.cancel(ctx.session, user, game_arg(line, ctx))
    told = len([x for x in seating.seats(ctx.session, g.id) if x.user_id != user.id and not x.is_bot])
    if told:
        return ngettext("game #%(game)d is cancelled; the %(num)d player(s) who had joined are told",
                        "game #%(game)d is cancelled; the %(num)d player(s) who had joined are told", told, game=g.id)
    return _("game #%(game)d is cancelled", game=g.id)


def do_accept(ctx: Context, line: Line) -> str:
    """ACCEPT <game-id>: join the game one was invited to."""
    g, seat, started = tables.accept(ctx.session, need_user(ctx), game_arg(line, ctx))
    return _joined(ctx, g, seat, started)


def do_decline(ctx: Context, line: Line) -> str:
    """DECLINE <game-id>: say no to an invitation; the inviter is told."""
    gid = game_arg(line, ctx)
    tables.decline(ctx.session, need_user(ctx), gid)
    return _("you have declined the invitation to game #%(game)d; the player who invited you is told", game=gid)


def do_remove(ctx: Context, line: Line) -> str:
    """REMOVE <game-id> <name or seat>: the creator takes a joined player out before the start."""
    user = need_user(ctx)
    gid = parse_game_id(line.args)
    who = " ".join(line.args[1:])
    if gid is None or not who:
        raise UserError(_("REMOVE needs a game number and the player's name or seat number"),
                        example="REMOVE 12 Bob", code="no_game_id")
    g, player = tables.remove(ctx.session, user, gid, who)
    return ngettext("%(name)s is no longer in game #%(game)d and is told so; %(taken)d of its %(num)d seat is taken",
                    "%(name)s is no longer in game #%(game)d and is told so; %(taken)d of its %(num)d seats are taken",
                    g.players, name=player.name, game=g.id, taken=len(seating.seats(ctx.session, g.id)))


def _holder_name(ctx: Context, seat: Seat) -> str:
    u = ctx.session.get(User, seat.user_id) if seat.user_id else None
    return u.name if u else _("a bot")


def do_replace(ctx: Context, line: Line) -> str:
    from pbem.services.core import notify
    from pbem.services.lobby import seats
    from pbem.services.referee import master

    user = need_user(ctx)
    args = [a for a in line.args]
    vote = bool(args) and args[-1].upper() == "VOTE"
    if vote:
        args = args[:-1]
    if not vote and len(args) > 2 and all(a.lstrip("#").isdigit() for a in args[:2]):
        # REPLACE <game> <seat> <name>: the game master seats a registered user
        g = games.get(ctx.session, int(args[0].lstrip("#")), lock=True)
        name = " ".join(rest(line).split()[2:])
        seat = master.assign(ctx.session, user, g, int(args[1]), name)
        return _("%(name)s now plays seat %(seat)d of game #%(game)d; every player gets the board, the new player "
                 "with the seat's reply address", name=_holder_name(ctx, seat), seat=seat.seat + 1, game=g.id)
    if len(args) != 2 or not all(a.lstrip("#").isdigit() for a in args):
        raise UserError(_("REPLACE needs the game and the seat number"), example="REPLACE 12 3", code="bad_replace")
    g = games.get(ctx.session, int(args[0].lstrip("#")))
    number = int(args[1])
    if vote:
        _opened_seat, opened = seats.vote_open(ctx.session, user, g, number)
        return _("seat %(seat)d is now open to a replacement", seat=number) if opened else \
            _("your vote to open seat %(seat)d is counted; every other player must agree", seat=number)
    seat = seats.take(ctx.session, user, g, number)
    # essential: the newcomer needs the board and the new reply address even after STOP
    notify.queue_boards(ctx.session, g, lazy_gettext("%(name)s takes over seat %(seat)d.", name=user.name,
                                                     seat=number), essential=True)
    return _("you now play seat %(seat)d of game #%(game)d; your board (with your new reply address) follows",
             seat=seat.seat + 1, game=g.id)


def do_bot(ctx: Context, line: Line) -> str:
    """BOT <game-id> [easy|normal|strong]: the creator seats a bot in the next
    free seat, of that level (default: the game's)."""
    from pbem.services.turns import bots

    user = need_user(ctx)
    gid = game_arg(line, ctx)
    words = [w for w in line.args if parse_game_id([w]) is None]
    if len(words) > 1:
        raise UserError(_("BOT takes a game number and at most one level: %(list)s",
                          list=", ".join(bots.engine_bots.LEVELS)), example=f"BOT {gid} strong", code="bad_level")
    g, seat, started = bots.add_bot(ctx.session, user, gid, words[0] if words else None)
    if started:
        ctx.boards_for[g.id] = _started(ctx, g)
    if started:
        return _("a bot has seat %(seat)d in game #%(game)d; the game is full and has started", seat=seat.seat + 1,
                 game=g.id)
    return ngettext("a bot has seat %(seat)d in game #%(game)d; %(num)d seat(s) left",
                    "a bot has seat %(seat)d in game #%(game)d; %(num)d seat(s) left", g.players - seat.seat - 1,
                    seat=seat.seat + 1, game=g.id)


def do_observe(ctx: Context, line: Line) -> str:
    from pbem.services.follow import messages

    user = need_user(ctx)
    g = games.get(ctx.session, game_arg(line, ctx))
    if line.command == "UNOBSERVE":
        messages.unobserve(ctx.session, user, g)
        return _("you no longer observe game #%(game)d", game=g.id)
    new = messages.observe(ctx.session, user, g)
    return _("you observe game #%(game)d: its public board comes after every move", game=g.id) if new else \
        _("you already observe game #%(game)d", game=g.id)


def _names_no_game(word: str, rest_: str) -> bool:
    """"Accept my apologies", Squire's "accept M11": the command names a game's number first."""
    return parse_game_id(rest_.split()) is None


GAMES = Command(
    "GAMES", do_games, FAMILY, where=Where.ANY, read_only=True,
    usage=(Usage(N_("GAMES"), N_("open games, and your games"), Section.COMMANDS, 40),),
    doc="open games you may join (a private game only if you are invited; a game with a password is marked so), "
        "and your games")

def _new_secrets(line: Line) -> list[str]:
    return [a.split("=", 1)[1] for a in line.args if a.lower().startswith("password=") and a.split("=", 1)[1]]


def _join_secrets(line: Line) -> list[str]:
    return line.args[1:2]


NEW = Command(
    "NEW", do_new, FAMILY, is_move_on_seat=_new_is_a_move, secrets=_new_secrets,
    usage=(Usage(N_("NEW <game> [players=N] [deadline=48] [policy=wait|bot|abandon] [days=all|no-weekends]\n"
                    "[min_reliability=90] [bot=easy|normal|strong] [hints=on] [option=value ...]"),
                 N_("create a game (%(games)s); min_reliability: the\n"
                    "reliability (%% of deadlines met) a player needs to JOIN;\n"
                    "bot: how well its bots play (default normal);\n"
                    "hints=on: a practice game, never rated, where HINT helps"), Section.COMMANDS, 50),
           Usage(N_("NEW <game> ... private"),
                 N_("only the people invited may join (invite them on the game's page)"), Section.PRIVATE, 10),
           Usage(N_("NEW <game> ... password=<word>"), N_("anyone who gives the word may join"), Section.PRIVATE, 20)),
    doc="create a game (`spyrium`, `squire`, `iaww`); you take seat 1. `private`: only the people invited may join "
        "(invite them on the game's page); `password=<word>`: anyone who gives the word may join (only a salted "
        "hash of it is kept; your answer repeats it to you alone). `min_reliability`: the share of deadlines a "
        "player must have met to join; `bot`: how well the game's bots play; `master=<name>` names another "
        "registered user the game master from the start (the creator otherwise); `hints=on` makes a practice game: "
        "never rated, never a tournament's table, and its players may ask `HINT` on their turn")

JOIN = Command(
    "JOIN", do_join, FAMILY, secrets=_join_secrets,
    usage=(Usage(N_("JOIN <game-id>"), N_("take a seat in an open game"), Section.COMMANDS, 60),
           Usage(N_("JOIN <game-id> <password>"), N_("join a game that has a password"), Section.PRIVATE, 30)),
    doc="take the next free seat; the game starts when it is full (Squire seats the players in a random order, "
        "as its rules draw the first player). A game with a password needs it (`JOIN 12 owl42`; 10 wrong tries an "
        "hour, then you wait); an invitation admits without it")

START = Command(
    "START", do_start, FAMILY, where=Where.ANY, who=Who.CREATOR, names_game=first_word_game,
    is_move_on_seat=lambda args: parse_game_id(args) is None,  # Squire's "start york" is a move
    usage=(Usage(N_("START <game-id>"), N_("start your game with the players so far"), Section.COMMANDS, 70),),
    doc="start with the players so far")

STATUS = Command(
    "STATUS", do_status, FAMILY, where=Where.ANY, read_only=True,
    usage=(Usage(N_("STATUS [game-id]"), N_("where a game stands"), Section.COMMANDS, 80),),
    doc="where a game stands (alone on the command address: as GAMES)")

RESIGN = Command(
    "RESIGN", do_resign, FAMILY, where=Where.ANY, who=Who.PLAYER, destructive=True, names_game=first_word_game,
    usage=(Usage(N_("RESIGN <game-id>"),
                 N_("leave a game (a bot plays your seat until a replacement takes it;\n"
                    "before the start your seat is freed, and the creator's RESIGN cancels)"), Section.COMMANDS, 90),),
    doc="leave a game (a bot plays the seat until a replacement takes it); before the start your seat is freed, "
        "and the creator's `RESIGN` cancels the game. Done once you confirm it (pbem mails you to ask)")

CANCEL = Command(
    "CANCEL", do_cancel, FAMILY, where=Where.ANY, who=Who.CREATOR, names_game=first_word_game,
    usage=(Usage(N_("CANCEL <game-id>"),
                 N_("withdraw an open game you created (the players who joined are told)"), Section.COMMANDS, 100),),
    doc="withdraw an open game that has not started (a private one too); the players who joined are told")

REPLACE = Command(
    "REPLACE", do_replace, FAMILY, destructive="VOTE",
    syntax=("REPLACE <game-id> <seat> [VOTE]", "REPLACE <game-id> <seat> <name>"),
    usage=(Usage(N_("REPLACE <game-id> <seat>"),
                 N_("take over an open seat; REPLACE <game-id> <seat> VOTE: vote to open it"), Section.COMMANDS, 110),
           Usage(N_("REPLACE <game-id> <seat> <name>"), N_("seat a registered user in an open seat"),
                 Section.MASTER, 50)),
    doc="take over an open seat, or vote to open another player's seat (`VOTE`: done once you confirm it, and "
        "when every other player agrees). The game master's `REPLACE <game-id> <seat> <name>` seats a registered "
        "user in an open seat")

BOT = Command(
    "BOT", do_bot, FAMILY, where=Where.ANY, who=Who.CREATOR, names_game=first_word_game,
    usage=(Usage(N_("BOT <game-id> [level]"),
                 N_("seat a bot in the next free seat of your open game;\n"
                    "level easy, normal or strong (default: the game's)"), Section.COMMANDS, 270),),
    doc="seat a bot in the next free seat of your open game, of a level (`easy`, `normal` or `strong`; default: "
        "the game's); the game starts when it is full")

UNOBSERVE = Command(
    "UNOBSERVE", do_observe, FAMILY, syntax=("UNOBSERVE <game-id>",),
    doc="stop getting the public board of a game you observe")

OBSERVE = Command(
    "OBSERVE", do_observe, FAMILY, syntax=("OBSERVE <game-id>",),
    usage=(Usage(N_("OBSERVE <game-id> | UNOBSERVE <game-id>"), N_("get (or stop) the public board after every move"),
                 Section.COMMANDS, 210),),
    doc="get the public board after every move (a private game's only if you may see it)")

ACCEPT = Command(
    "ACCEPT", do_accept, FAMILY, is_talk=_names_no_game, syntax=("ACCEPT <game-id>",),
    usage=(Usage(N_("ACCEPT <game-id> | DECLINE <game-id>"),
                 N_("answer an invitation (ACCEPT joins, like JOIN;\nDECLINE tells the one who invited you)"),
                 Section.PRIVATE, 40),),
    doc="answer an invitation: `ACCEPT` joins as `JOIN` does (a private game's or a password game's invitation "
        "admits)")

DECLINE = Command(
    "DECLINE", do_decline, FAMILY, is_talk=_names_no_game, syntax=("DECLINE <game-id>",),
    doc="answer an invitation: no. It is recorded, and the one who invited you is told")

REMOVE = Command(
    "REMOVE", do_remove, FAMILY, who=Who.CREATOR, is_talk=_names_no_game,
    usage=(Usage(N_("REMOVE <game-id> <name or seat>"),
                 N_("take a joined player out of your game before it starts"), Section.PRIVATE, 50),),
    doc="take a joined player out of your open game before it starts; they are told by mail (admins may too)")
