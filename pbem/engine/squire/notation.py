"""Squire notation: parse and format one decision (docs/notation/squire.md)."""
from __future__ import annotations

import re

from ..base import AmbiguousMoveError, GameOverError, IllegalMoveError, MoveError, MoveSyntaxError, NotYourTurnError
from .data import Data, load
from .i18n import ALIASES, N_, _, city as _city_name, ngettext, player
from .rules import (
    ACCEPT, BOARD, CELL, EXHIBIT, MOVE, OFFERS, OVER, START, SWAP, TAKE, TRADE, Move, State, host_inline_accept,
    legal_moves, matching_cards, move_options, path_cost, to_move, witness_path,
)

VERBS = {
    "board": "board", "character": "board", "start": "start", "place": "start", "move": "move", "go": "move",
    "buy": "buy", "sell": "sell", "offers": "offers", "offer": "offers", "play": "offers", "cell": "cell",
    "take": "take", "exhibit": "exhibit", "exhibition": "exhibit", "accept": "accept", "swap": "swap",
}
PHASE_VERBS = {
    BOARD: ("board",), START: ("start",), MOVE: ("move",), TRADE: ("buy", "sell"), OFFERS: ("offers",),
    CELL: ("cell",), TAKE: ("take",), EXHIBIT: ("exhibit",), ACCEPT: ("accept",), SWAP: ("swap",),
}
# English here, translated where shown: _(PHASE_WHAT[phase]) (the notation inside stays English)
PHASE_WHAT = {
    BOARD: N_("choose your player board and character (board NAME)"),
    START: N_("place your character in any city (start CITY)"),
    MOVE: N_("move (move PATH, e.g. move london-york)"),
    TRADE: N_("buy or sell the exhibit in your city (buy / sell)"),
    OFFERS: N_("say which matching message offers you play (offers M01 / offers none)"),
    CELL: N_("place the bought exhibit in an empty gallery cell (cell F1C2)"),
    TAKE: N_("take your 3rd-floor bonus from the exhibit discard (take TOKEN cell FxCy)"),
    EXHIBIT: N_("hold your exhibition (exhibit painting|ceramics|sculpture|jewellery)"),
    ACCEPT: N_("accept a commission from your hand, or not (accept M11 / accept none)"),
    SWAP: N_("swap a commission for a hand card, or not (swap M07 for M28 / swap none)"),
}
STATUS_WHAT = {
    BOARD: N_("choose a board and character"), START: N_("place their character"), MOVE: N_("move"),
    TRADE: N_("buy or sell"), OFFERS: N_("choose the offers played"), CELL: N_("place the bought exhibit"),
    TAKE: N_("take an exhibit from the discard (3rd floor)"), EXHIBIT: N_("hold an exhibition"),
    ACCEPT: N_("accept a commission or not"), SWAP: N_("swap a commission or not"),
}
# the status of a buy still to place beside the offers question (STATUS_WHAT[OFFERS] + " and place ...")
STATUS_OFFERS_AND_CELL = N_("choose the offers played and place the bought exhibit")
VERB_TEXT = {
    "board": N_("choose a board"), "start": N_("place your character"), "move": N_("move"), "buy": N_("buy"),
    "sell": N_("sell"), "offers": N_("play offers"), "cell": N_("place an exhibit"),
    "take": N_("take from the exhibit discard"), "exhibit": N_("hold an exhibition"),
    "accept": N_("accept a commission"), "swap": N_("swap a commission"),
}
_SEP = re.compile(r"\s*(?:-|>|,|\u2192|\u2013|\u2014|/)\s*")
_CELL = re.compile(r"^f\s*(\d+)\s*c\s*(\d+)$")


def _squash(s: str) -> str:
    return re.sub(r"[\s_.'\"]+", "", s.lower())


class Ctx:
    def __init__(self, game, state: State, seat: int, text: str) -> None:
        self.game, self.state, self.seat, self.text = game, state, seat, text
        self.d: Data = load(state.custom)

    def examples(self) -> tuple:
        from ..base import legal_examples
        return legal_examples(self.game, self.state, self.seat)

    def syntax(self, reason: str):
        return MoveSyntaxError(reason, text=self.text, seat=self.seat, examples=self.examples())

    def illegal(self, reason: str):
        return IllegalMoveError(reason, text=self.text, seat=self.seat, examples=self.examples())

    def ambiguous(self, reason: str):
        return AmbiguousMoveError(reason, text=self.text, seat=self.seat, examples=self.examples())

    def not_your_turn(self, reason: str):
        return NotYourTurnError(reason, text=self.text, seat=self.seat)

    def never(self, reason: str):
        """Refused for a reason that holds whoever's turn it is (no legal examples: it is not this seat's)."""
        if self.seat in to_move(self.state):
            return self.illegal(reason)
        return IllegalMoveError(reason, text=self.text, seat=self.seat)


# ---------------------------------------------------------------- lookups


def _lookup(ctx: Ctx, word: str, names: list[tuple[str, int]], what: str) -> int:
    """Exact (squashed) match, else unique prefix."""
    key = _squash(word)
    if not key:
        raise ctx.syntax(_(_MISSING[what]))
    exact = {i for n, i in names if _squash(n) == key}
    if len(exact) == 1:
        return exact.pop()
    pref = sorted({i for n, i in names if _squash(n).startswith(key)})
    if len(pref) == 1:
        return pref[0]
    if len(pref) > 1:
        display: dict[int, str] = {}
        for n, i in names:
            display.setdefault(i, n)
        shown = sorted(display[i] for i in pref)
        raise ctx.ambiguous(_(_SEVERAL[what], word=repr(word), names=", ".join(shown[:6])))
    raise ctx.syntax(_(_NO_SUCH[what], word=repr(word)))


_MISSING = {"city": N_("a city name is missing"), "exhibit type": N_("a exhibit type name is missing"),
            "player board": N_("a player board name is missing")}
_SEVERAL = {"city": N_("%(word)s could be several cities (%(names)s); write more letters"),
            "exhibit type": N_("%(word)s could be several exhibit types (%(names)s); write more letters"),
            "player board": N_("%(word)s could be several player boards (%(names)s); write more letters")}
_NO_SUCH = {"city": N_("there is no city called %(word)s"),
            "exhibit type": N_("there is no exhibit type called %(word)s"),
            "player board": N_("there is no player board called %(word)s")}


def city_names(d: Data, side: str) -> list[tuple[str, int]]:
    b = d.boards[side]
    return [(n, i) for i, n in enumerate(b.city_names)] + [(c, i) for i, c in enumerate(b.city_ids)]


def find_city(ctx: Ctx, word: str) -> int:
    return _lookup(ctx, word, city_names(ctx.d, ctx.state.side), "city")


_TYPE_ALIASES = {"jewelry": "jewellery", "jewels": "jewellery", "jewel": "jewellery", "books": "rare_book",
                 "book": "rare_book"}


def find_type(ctx: Ctx, word: str) -> int:
    """A type by id, name or unique prefix; English plurals ("paintings", "rare books") and the
    US spelling "jewelry" are accepted, because players write them."""
    d = ctx.d
    names = [(t, i) for i, t in enumerate(d.type_ids)] + [(n, i) for i, n in enumerate(d.type_names)]
    names += [(a, d.type_ids.index(t)) for a, t in _TYPE_ALIASES.items() if t in d.type_ids]
    key = _squash(word)
    tries = [word]
    if key.endswith("es"):
        tries.append(key[:-2])
    if key.endswith("s"):
        tries.append(key[:-1])
    for w in tries[1:]:
        if any(_squash(n) == w for n, _i in names):
            tries = [w]
            break
    try:
        return _lookup(ctx, tries[0], names, "exhibit type")
    except MoveSyntaxError:
        for w in tries[1:]:
            try:
                return _lookup(ctx, w, names, "exhibit type")
            except MoveSyntaxError:
                pass
        shown = ", ".join(n.lower() for n in d.type_names)
        raise ctx.syntax(_("there is no exhibit type called %(word)s; the types are %(types)s",
                           word=repr(word), types=shown)) from None


def find_card(ctx: Ctx, word: str) -> int:
    key = _squash(word)
    m = re.fullmatch(r"([a-z]+)0*(\d+)", key)
    for i, c in enumerate(ctx.d.cards):
        ck = c.id.lower()
        if ck == key:
            return i
        cm = re.fullmatch(r"([a-z]+)0*(\d+)", ck)
        if m and cm and m.groups() == cm.groups():
            return i
    raise ctx.syntax(_("there is no message card %(word)s (cards are written like M07)", word=repr(word)))


def find_token(ctx: Ctx, word: str) -> int:
    m = re.fullmatch(r"\s*([a-z_ ]+?)[\s\-_]*0*(\d+)\s*", word.lower())
    if not m:
        raise ctx.syntax(_("%(word)s is not an exhibit token; write it like sculpture-11", word=repr(word)))
    ti = find_type(ctx, m.group(1))
    num = int(m.group(2))
    for i, (t, _v, tid) in enumerate(ctx.d.tokens):
        if t == ti and int(tid.rsplit("-", 1)[1]) == num:
            return i
    raise ctx.syntax(_("there is no exhibit token %(word)s", word=repr(word)))


def find_cell(ctx: Ctx, word: str) -> int:
    m = _CELL.match(word.strip().lower())
    if not m:
        raise ctx.syntax(_("%(word)s is not a gallery cell; write FxCy, floor x (1 bottom..3 top), column y (1..4)",
                           word=repr(word)))
    f, c = int(m.group(1)), int(m.group(2))
    d = ctx.d
    if not (1 <= f <= d.floors and 1 <= c <= d.columns):
        raise ctx.syntax(_("there is no cell %(cell)s: floors are 1-%(floors)d, columns 1-%(columns)d",
                           cell=word.upper(), floors=d.floors, columns=d.columns))
    return (f - 1) * d.columns + c - 1


def _cards(ctx: Ctx, words: list[str]) -> tuple:
    if words == ["none"] or not words:
        return ()
    out = [find_card(ctx, w) for w in words]
    if len(set(out)) != len(out):
        raise ctx.illegal(_("the same card is named twice"))
    return tuple(sorted(out))


# ---------------------------------------------------------------- format


def card_id(d: Data, c: int) -> str:
    return d.cards[c].id


def format_move(state: State, seat: int, m: Move) -> str:
    d = load(state.custom)
    k = m.kind
    b = d.boards[state.side]
    if k == "board":
        pb = d.player_boards[m.a]
        return f'board {pb.id} "{pb.characters[m.b]}"'
    if k == "start":
        return f"start {b.city_names[m.a]}"
    if k == "move":
        path = witness_path(state, seat, m.a, m.b)
        if path is None:
            return f"move {b.city_names[m.a]}"
        return "move " + "-".join(b.city_names[c] for c in path)
    if k in ("buy", "sell"):
        if m.a == 0:
            return k
        # "offers none" even without a matching card: the recorded text is public and must not
        # tell the other seats whether the (secret, §2) hand held a matching offer
        if m.b == 1:
            return f"{k} offers none always"
        if not m.c:
            return f"{k} offers none"
        return f"{k} offers " + " ".join(card_id(d, c) for c in m.c)
    if k == "offers":
        if m.b == 1:
            return "offers none always"
        return "offers " + (" ".join(card_id(d, c) for c in m.c) if m.c else "none")
    if k == "cell":
        if m.c:
            return f"cell {d.cell_name(m.a)} take {d.tokens[m.c[0]][2]} cell {d.cell_name(m.c[1])}"
        return f"cell {d.cell_name(m.a)}"
    if k == "take":
        return f"take {d.tokens[m.a][2]} cell {d.cell_name(m.b)}"
    if k == "exhibit":
        s = f"exhibit {d.type_ids[m.a]}"
        if m.b == 1:
            s += " accept " + (" ".join(card_id(d, c) for c in m.c) if m.c else "none")
        return s
    if k == "accept":
        return "accept " + (" ".join(card_id(d, c) for c in m.c) if m.c else "none")
    if k == "swap":
        if m.a < 0:
            return "swap none always" if m.b == 1 else "swap none"
        return f"swap {card_id(d, m.a)} for {card_id(d, m.b)}"
    raise ValueError(k)


# ---------------------------------------------------------------- parse


def verbs_now(state: State) -> tuple[str, ...]:
    """The verbs the seat to move may write now: the phase's, plus the cell
    of a bought exhibit beside an open offers question, and the offers beside
    an owed 3rd-floor pick (rules._resume)."""
    want = PHASE_VERBS.get(state.phase, ())
    if state.phase == OFFERS and state.bought >= 0:
        want += ("cell",)
    if state.phase == TAKE and state.txn:
        want += ("offers",)
    return want


def what_now(state: State) -> str:
    """PHASE_WHAT of the phase, naming the exhibit still to place beside an open offers question."""
    if state.phase == OFFERS and state.bought >= 0:
        return _("say which matching message offers you play (offers M01 / offers none), and place the "
                 "bought exhibit (cell F1C2), in either order")
    if state.phase == TAKE and state.txn:
        return _("take your 3rd-floor bonus from the exhibit discard (take TOKEN cell FxCy); and say which "
                 "matching offers you play (offers M01 / offers none)")
    if state.phase in PHASE_WHAT:
        return _(PHASE_WHAT[state.phase])
    return _("nothing: the game is over")


# a path's separators, spaced before the aliases are read, so "токио-самарканд" is two words
_ALIAS_SEP = re.compile(r"(?<=\w)(-|>|,|\u2192|\u2013|\u2014|/)(?=\w)")


def parse_move(game, state: State, seat: int, text: str) -> Move:
    """One decision from ``text``: the English notation, or the words of a player's language
    (i18n.ALIASES) replaced by the notation first; a refusal then keeps the player's text and shows
    its examples with the words the player used."""
    if isinstance(text, str):
        canonical, used = ALIASES.to_canonical(_ALIAS_SEP.sub(r" \1 ", text))
        if used is not None:
            try:
                return _parse_move(game, state, seat, canonical)
            except MoveError as exc:
                exc.text = text
                if exc.examples:
                    exc.examples = ALIASES.localize_all(exc.examples, used)
                raise
    return _parse_move(game, state, seat, text)


def verb_of(text: str) -> str | None:
    """The notation verb ``text`` begins with (in any language's words), or None: "cell" for a bare
    cell ("F1C2", as _parse_move reads it)."""
    canonical, _used = ALIASES.to_canonical(_ALIAS_SEP.sub(r" \1 ", text))
    words = " ".join(canonical.replace(";", " ").split()).lower().split(" ")
    verb = VERBS.get(words[0])
    if verb is None and len(words) == 1 and _CELL.match(words[0]):
        return "cell"
    return verb


def _parse_move(game, state: State, seat: int, text: str) -> Move:
    ctx = Ctx(game, state, seat, text)
    if not isinstance(text, str):
        raise ctx.syntax(_("a move must be text"))
    if state.phase == OVER:
        raise GameOverError(_("the game is over; no more moves are accepted"), text=text, seat=seat)
    t = " ".join(text.replace(";", " ").split()).strip().lower()
    mine = seat in to_move(state)
    if not t:
        if not mine:
            raise ctx.not_your_turn(_waiting(ctx))
        raise ctx.syntax(_("the move is empty; now %(what)s", what=what_now(state)))
    words = t.split(" ")
    verb = VERBS.get(words[0])
    rest = words[1:]
    if verb is None:
        if _CELL.match(words[0]) and len(words) == 1:
            verb, rest = "cell", words
        elif not mine:
            raise ctx.not_your_turn(_waiting(ctx))
        else:
            raise ctx.syntax(_("%(word)s is not a Squire move; now %(what)s", word=repr(words[0]),
                               what=what_now(state)))
    if not mine:
        raise _out_of_turn(ctx, verb)
    if verb not in verbs_now(state):
        raise ctx.illegal(_("%(reason)s; now %(what)s", reason=_not_now(ctx, verb), what=what_now(state)))
    move = _PARSERS[verb](ctx, rest)
    legal = legal_moves(state, seat)
    if move not in legal:
        raise ctx.illegal(_why_illegal(ctx, move))
    return move


def _p_board(ctx: Ctx, rest: list[str]) -> Move:
    if not rest:
        raise ctx.syntax(_("name a player board, e.g. board fox"))
    d = ctx.d
    names = [(p.id, i) for i, p in enumerate(d.player_boards)]
    raw = " ".join(rest).replace('"', " ").replace("'", " ").split()
    if not raw:
        raise ctx.syntax(_("name a player board, e.g. board fox"))
    # either "board ID [CHARACTER|1|2]" or "board CHARACTER NAME"
    chars = [(c, (i, j)) for i, p in enumerate(d.player_boards) for j, c in enumerate(p.characters)]
    whole = _squash(" ".join(raw))
    for c, (i, j) in chars:
        if _squash(c) == whole:
            return Move("board", i, j)
    b = _lookup(ctx, raw[0], names, "player board")
    tail = raw[1:]
    if not tail:
        return Move("board", b, 0)
    if len(tail) == 1 and tail[0] in ("1", "2"):
        return Move("board", b, int(tail[0]) - 1)
    key = _squash(" ".join(tail))
    opts = [j for j, c in enumerate(d.player_boards[b].characters)
            if _squash(c) == key or _squash(c).startswith(key)]
    if len(opts) != 1:
        chars = d.player_boards[b].characters
        raise ctx.syntax(_('board %(board)s has the characters "%(first)s" or "%(second)s"',
                           board=d.player_boards[b].id, first=chars[0], second=chars[1]))
    return Move("board", b, opts[0])


def _p_start(ctx: Ctx, rest: list[str]) -> Move:
    if not rest:
        raise ctx.syntax(_("name the city where you start, e.g. start york"))
    return Move("start", find_city(ctx, " ".join(rest)))


def _p_move(ctx: Ctx, rest: list[str]) -> Move:
    s = " ".join(rest)
    pay = None
    m = re.search(r"\bpay\b(.*)$", s)
    if m:
        pay = m.group(1)
        s = s[:m.start()].strip()
    if not s:
        raise ctx.syntax(_("give the path, e.g. move london-york"))
    parts = [x for x in _SEP.split(s) if x]
    if not parts:
        raise ctx.syntax(_("give the path as city names joined by '-', e.g. move london-york"))
    if len(parts) == 1 and " " in parts[0]:
        # "move rome samarkand tokyo": a single name ("new york") first, else one city per word
        try:
            cities = [find_city(ctx, parts[0])]
        except (MoveSyntaxError, AmbiguousMoveError):
            cities = [find_city(ctx, w) for w in parts[0].split()]
    else:
        cities = [find_city(ctx, w) for w in parts]
    st = ctx.state
    here = st.players[ctx.seat].pos
    only_dest = len(cities) == 1
    b = ctx.d.boards[st.side]
    if cities[0] != here and not only_dest:
        # the starting city may be left out (docs/notation/squire.md), but a path is never lengthened
        # by cities the player did not write: one that names the current city later, or whose first
        # city is not next to it, is refused with the paths from here
        written = "-".join(b.city_names[c] for c in cities)
        if here in cities:
            raise _path_from_here(ctx, cities, _("a path starts where you are, in %(here)s; %(path)s starts in "
                                                 "%(first)s", here=_cn(ctx, here), path=written,
                                                 first=_cn(ctx, cities[0])))
        if cities[0] not in {nb for nb, _k in b.adj[here]}:
            raise _path_from_here(ctx, cities, _("a path starts where you are, in %(here)s, and no route joins "
                                                 "%(here)s and %(first)s", here=_cn(ctx, here),
                                                 first=_cn(ctx, cities[0])))
    if cities[0] != here:
        cities = [here] + cities
    if len(cities) == 1:
        raise ctx.illegal(_("you are already in %(city)s; you must move to another city (§5.2)",
                            city=_cn(ctx, here)))
    if only_dest and len(cities) == 2:
        # "move tokyo": the cheapest way there (a stated payment is checked against that path)
        opts = [r for dest, r in move_options(st, ctx.seat) if dest == cities[1]]
        if not opts:
            raise ctx.illegal(_unaffordable(ctx, here, cities[1]))
        if pay is None:
            return Move("move", cities[1], min(opts))
        cities = witness_path(st, ctx.seat, cities[1], min(opts)) or cities
    if cities[-1] == here:
        raise ctx.illegal(_("a move must end in a different city than it started (§5.2)"))
    try:
        free, royal, reg = path_cost(st, ctx.seat, cities)
    except ValueError as exc:
        a, c = exc.args[0]
        raise ctx.illegal(_("no route joins %(a)s and %(b)s", a=_cn(ctx, a), b=_cn(ctx, c))) from None
    p = st.players[ctx.seat]
    if reg > p.tickets:
        raise ctx.illegal(ngettext(
            "this path has %(steps)d steps, paid free %(free)d, royal %(royal)d, regular %(regular)d; "
            "you hold only %(num)d regular ticket",
            "this path has %(steps)d steps, paid free %(free)d, royal %(royal)d, regular %(regular)d; "
            "you hold only %(num)d regular tickets", p.tickets,
            steps=len(cities) - 1, free=free, royal=royal, regular=reg))
    if pay is not None:
        got = {"royal": None, "regular": None, "free": None}
        for word, num in re.findall(r"(royal|regular|free)\s*(\d+)", pay):
            got[word] = int(num)
        if not re.fullmatch(r"(\s*(royal|regular|free)\s*\d+\s*)+", pay):
            raise ctx.syntax(_("write the payment like: pay royal 1 regular 1 (free N for a free-steps ability)"))
        want = {"royal": royal, "regular": reg, "free": free}
        for key, v in got.items():
            if v is not None and v != want[key]:
                raise ctx.illegal(_("this path is paid as free %(free)d, royal %(royal)d, regular %(regular)d "
                                    "(royal tickets before regular ones, §5.3), not %(key)s %(value)d",
                                    free=free, royal=royal, regular=reg, key=key, value=v))
    return Move("move", cities[-1], reg)


def _path_from_here(ctx: Ctx, cities: list[int], reason: str) -> IllegalMoveError:
    """The refusal of a path that does not start here, with legal paths that do: the part of the
    path after the current city, the cheapest path to its last city, then a few others."""
    st, seat = ctx.state, ctx.seat
    b = ctx.d.boards[st.side]
    here = st.players[seat].pos
    shown: list[str] = []
    if here in cities:
        tail = cities[len(cities) - 1 - cities[::-1].index(here):]
        if len(tail) > 1:
            try:
                _f, _r, reg = path_cost(st, seat, tail)
                if reg <= st.players[seat].tickets and tail[-1] != here:
                    shown.append("move " + "-".join(b.city_names[c] for c in tail))
            except ValueError:
                pass
    opts = [r for dest, r in move_options(st, seat) if dest == cities[-1]]
    if opts:
        path = witness_path(st, seat, cities[-1], min(opts))
        if path:
            shown.append("move " + "-".join(b.city_names[c] for c in path))
    for x in ctx.examples():
        if x not in shown and len(shown) < 5:
            shown.append(x)
    shown = list(dict.fromkeys(shown))
    return IllegalMoveError(_("%(reason)s; write the path from %(here)s", reason=reason, here=_cn(ctx, here)),
                            text=ctx.text, seat=seat, examples=shown)


def _unaffordable(ctx: Ctx, here: int, dest: int) -> str:
    """Why no path to ``dest`` is affordable: the shortest path and what the player holds."""
    st = ctx.state
    b = ctx.d.boards[st.side]
    prev = {here: here}
    todo = [here]
    for c in todo:  # breadth-first: the fewest steps
        for nb, _kind in b.adj[c]:
            if nb not in prev:
                prev[nb] = c
                todo.append(nb)
    path = [dest]
    while path[-1] != here:
        path.append(prev[path[-1]])
    path.reverse()
    p = st.players[ctx.seat]
    ab = ctx.d.player_boards[p.board].ability if p.board >= 0 else None
    free = ngettext(", plus %(num)d free %(kind)s step", ", plus %(num)d free %(kind)s steps", ab.steps,
                    kind=_(ROUTE_KINDS.get(ab.route_kind, ab.route_kind))) if ab and ab.kind == "free_steps" else ""
    return _("you cannot afford any path from %(here)s to %(dest)s: the shortest has %(steps)s (%(path)s), and "
             "you hold %(royal)s (1 step each) and %(tickets)s%(free)s (§5.3)",
             here=_cn(ctx, here), dest=_cn(ctx, dest),
             steps=ngettext("%(num)d step", "%(num)d steps", len(path) - 1),
             path="-".join(b.city_names[c] for c in path),
             royal=ngettext("%(num)d royal ticket", "%(num)d royal tickets", p.rtickets),
             tickets=ngettext("%(num)d regular ticket", "%(num)d regular tickets", p.tickets), free=free)


ROUTE_KINDS = {"sea": N_("sea"), "land": N_("land"), "any": N_("any")}
NEVER_EXHIBITED = {"rare_book": N_("rare books can never be exhibited (§9.2)")}


def _cn(ctx: Ctx, c: int) -> str:
    """City ``c`` as the player reads it (its name in the seeds of their language, else English)."""
    b = ctx.d.boards[ctx.state.side]
    return _city_name(b.city_ids[c], b.city_names[c])


def _p_trade(verb: str):
    def parse(ctx: Ctx, rest: list[str]) -> Move:
        if rest and rest[0] in ("offers", "offer", "play"):
            rest = rest[1:]
            if not rest:
                raise ctx.syntax(_("name the offer cards after 'offers', or write '%(verb)s offers none'",
                                   verb=verb))
        if not rest:  # the offers are asked next, whatever the hand holds (rules.py, RULES.md §2)
            return Move(verb, 0)
        if rest in ALWAYS:
            return Move(verb, 1, 1)
        cards = _cards(ctx, rest)
        return Move(verb, 1, 0, cards)
    return parse


# the standing orders' words, as "swap none always" reads them
ALWAYS = (["none", "always"], ["never"], ["none", "forever"])


def _p_offers(ctx: Ctx, rest: list[str]) -> Move:
    if not rest:
        raise ctx.syntax(_("name the offer cards you play, or write 'offers none'"))
    if rest in ALWAYS:
        return Move("offers", 0, 1)
    return Move("offers", 0, 0, _cards(ctx, rest))


def _p_cell(ctx: Ctx, rest: list[str]) -> Move:
    if not rest:
        raise ctx.syntax(_("name an empty cell, e.g. cell F1C2"))
    if "take" in rest:
        i = rest.index("take")
        where = find_cell(ctx, "".join(rest[:i]))
        take = _p_take(ctx, rest[i + 1:])
        m = Move("cell", where, 0, (take.a, take.b))
        if m not in legal_moves(ctx.state, ctx.seat) and Move("cell", where) in legal_moves(ctx.state, ctx.seat):
            d = ctx.d
            if take.a not in ctx.state.discard:
                raise ctx.illegal(_("%(token)s is not in the exhibit discard", token=d.tokens[take.a][2]))
            if take.b == where or ctx.state.players[ctx.seat].gallery[take.b] >= 0:
                raise ctx.illegal(_("cell %(cell)s will not be empty", cell=d.cell_name(take.b)))
            raise ctx.illegal(_("cell %(cell)s does not complete the floor that gives a pick from the exhibit "
                                "discard (3rd floor, §8.3); write just 'cell %(cell)s'", cell=d.cell_name(where)))
        return m
    return Move("cell", find_cell(ctx, "".join(rest)))


def _p_take(ctx: Ctx, rest: list[str]) -> Move:
    s = " ".join(rest)
    m = re.fullmatch(r"(.+?)\s+(?:cell\s+|in\s+|to\s+)?(f\s*\d+\s*c\s*\d+)", s)
    if not m:
        raise ctx.syntax(_("write take TOKEN cell FxCy, e.g. take sculpture-11 cell F1C3"))
    return Move("take", find_token(ctx, m.group(1)), find_cell(ctx, m.group(2).replace(" ", "")))


def _p_exhibit(ctx: Ctx, rest: list[str]) -> Move:
    if not rest:
        raise ctx.syntax(_("name the type to exhibit, e.g. exhibit painting"))
    acc = None
    if "accept" in rest:
        i = rest.index("accept")
        rest, acc = rest[:i], rest[i + 1:]
        if not acc:
            raise ctx.syntax(_("name the card to accept after 'accept', or write 'accept none'"))
    d = ctx.d
    try:
        ti = find_type(ctx, " ".join(rest))
    except MoveSyntaxError:
        can = [d.type_ids[i] for i in range(len(d.type_ids)) if d.exhibitable[i]]
        raise ctx.syntax(_("there is no exhibit type called %(word)s; you can exhibit %(types)s or %(last)s",
                           word=repr(" ".join(rest)), types=", ".join(can[:-1]), last=can[-1])) from None
    if not d.exhibitable[ti]:
        raise ctx.illegal(_("%(type)ss can never be exhibited (§9.2)", type=d.type_names[ti].lower())
                          if d.type_ids[ti] not in NEVER_EXHIBITED else _(NEVER_EXHIBITED[d.type_ids[ti]]))
    n = host_inline_accept(d, ctx.state, ti)
    if acc is None:
        return Move("exhibit", ti, 0, ())
    cards = _cards(ctx, acc)
    if not n:
        if cards:
            raise ctx.illegal(_("you cannot accept a commission with this exhibition now (limit reached, "
                                "empty hand or no commission reward)"))
        return Move("exhibit", ti, 0, ())
    return Move("exhibit", ti, 1, cards)


def _p_accept(ctx: Ctx, rest: list[str]) -> Move:
    if not rest:
        raise ctx.syntax(_("write accept M11 (a card in your hand) or accept none"))
    return Move("accept", 0, 0, _cards(ctx, rest))


def _p_swap(ctx: Ctx, rest: list[str]) -> Move:
    if rest == ["none"]:
        return Move("swap", -1, -1)
    if rest in ALWAYS:
        return Move("swap", -1, 1)
    s = " ".join(rest)
    m = re.fullmatch(r"(\S+)\s+(?:for\s+)?(\S+)", s)
    if not m:
        raise ctx.syntax(_("write swap M07 for M28 (accepted commission, then hand card) or swap none"))
    return Move("swap", find_card(ctx, m.group(1)), find_card(ctx, m.group(2)))


_PARSERS = {
    "board": _p_board, "start": _p_start, "move": _p_move, "buy": _p_trade("buy"), "sell": _p_trade("sell"),
    "offers": _p_offers, "cell": _p_cell, "take": _p_take, "exhibit": _p_exhibit, "accept": _p_accept,
    "swap": _p_swap,
}


def refusal(game, state: State, seat: int, move) -> Exception:
    """Why ``apply`` refuses ``move`` (a Move that did not come from parse_move, e.g. a stale one)."""
    ctx = Ctx(game, state, seat, None)
    if state.phase == OVER:
        return GameOverError(_("the game is over; no more moves are accepted"), seat=seat)
    kind = getattr(move, "kind", None)
    verb = kind if kind in VERB_TEXT else None
    if seat not in to_move(state):
        return _out_of_turn(ctx, verb) if verb else ctx.not_your_turn(_waiting(ctx))
    if verb is None or not isinstance(move, Move):
        return ctx.illegal(_("that is not a Squire move"))
    if verb not in verbs_now(state):
        return ctx.illegal(_("%(reason)s; now %(what)s", reason=_not_now(ctx, verb), what=what_now(state)))
    return ctx.illegal(_why_illegal(ctx, move))


def _why_illegal(ctx: Ctx, m: Move) -> str:
    from .rules import accept_room, can_buy, price
    st, d = ctx.state, ctx.d
    p = st.players[ctx.seat]
    k = m.kind
    if k == "board":
        return _("board %(board)s is already taken", board=d.player_boards[m.a].id)
    if k == "move":
        return _("you cannot afford a path to %(city)s that way", city=_cn(ctx, m.a))
    if k in ("buy", "sell"):
        city = p.pos
        if k == "buy" and not can_buy(st, ctx.seat, city):
            if -1 not in p.gallery:
                return _("you cannot buy: your gallery is full, so you must sell (§6.3)")
            return _("you cannot buy: the price is %(price)d and you have %(coins)s + %(royal)s, so you must sell "
                     "(§6.3)", price=price(st, city), coins=ngettext("%(num)d coin", "%(num)d coins", p.coins),
                     royal=ngettext("%(num)d royal coin", "%(num)d royal coins", p.rcoins))
        action = 0 if k == "buy" else 1
        ok = matching_cards(st, ctx.seat, action, city, st.cities[city])
        bad = [d.cards[c].id for c in m.c if c not in ok]
        if not bad:
            return _("that is not a legal transaction now")
        if k == "buy":
            return _("the offer of %(cards)s does not match this buy (or the card is not in your hand)",
                     cards=", ".join(bad))
        return _("the offer of %(cards)s does not match this sell (or the card is not in your hand)",
                 cards=", ".join(bad))
    if k == "offers":
        return _("you can play only offer cards from your hand that match this transaction")
    if k == "cell":
        return _("cell %(cell)s is not empty", cell=d.cell_name(m.a))
    if k == "take":
        if m.a not in st.discard:
            return _("%(token)s is not in the exhibit discard", token=d.tokens[m.a][2])
        return _("cell %(cell)s is not empty", cell=d.cell_name(m.b))
    if k in ("exhibit", "accept"):
        if any(c not in p.hand for c in m.c):
            return _("you can accept only cards from your hand")
        return ngettext("you can accept at most %(num)d more commission (commission limit, §10.3)",
                        "you can accept at most %(num)d more commissions (commission limit, §10.3)", accept_room(d, p))
    if k == "swap":
        if m.a not in p.comms:
            return _("%(card)s is not one of your accepted commissions", card=d.cards[m.a].id)
        return _("%(card)s is not in your hand", card=d.cards[m.b].id)
    return _("that move is not legal now")


# ---------------------------------------------------------------- refusals that say why


def _who(seat: int) -> str:
    return player(seat)  # "Player 2", translated; the services put the player's name in (base.name_seats)


def _waiting(ctx: Ctx) -> str:
    st = ctx.state
    s = min(to_move(st))
    if st.phase in (ACCEPT, SWAP) and s != st.active:
        return _("it is not your turn: %(player)s is to answer %(host)s's exhibition", player=_who(s),
                 host=_who(st.active))
    return _("it is not your turn: %(player)s is to %(what)s", player=_who(s),
             what=_(STATUS_WHAT.get(st.phase, N_("move"))))


def _token_reason(ctx: Ctx) -> str | None:
    """Why ``ctx.seat`` holds no exhibition now because of the token (§9.1, §9.4), or None if it holds it."""
    st, seat = ctx.state, ctx.seat
    if st.token == seat:
        return None
    if st.token < 0:  # 2 players: on the board until the end of a turn without an exhibition
        taker = st.active
        if taker == seat:
            return _("the exhibition token lies on the board: you take it at the end of this turn and "
                     "exhibit in your next one (§9.4)")
        return _("you do not hold the exhibition token: it lies on the board, and %(player)s takes it "
                 "at the end of this turn (§9.4)", player=_who(taker))
    return _("you do not hold the exhibition token: %(player)s holds it, and only its holder "
             "holds an exhibition, in step V of their turn (§9.1)", player=_who(st.token))


def _trade_words(ctx: Ctx) -> tuple[str, str] | None:
    """("sold", "painting-05") for the seat's transaction of this turn (or of its turn just ended)."""
    st = ctx.state
    if not st.traded or st.traded[0] != ctx.seat:
        return None
    return ("bought" if st.traded[1] == 0 else "sold", ctx.d.tokens[st.traded[2]][2])


def _out_of_turn(ctx: Ctx, verb: str):
    """A known verb from a seat not to move: the real reason when there is one
    that outlasts the turn (no token, nothing to place), else whose turn it is."""
    st, seat = ctx.state, ctx.seat
    if verb == "exhibit":
        why = _token_reason(ctx)
        if why:
            return ctx.never(why)
        return ctx.not_your_turn(_("you exhibit in step V of your next turn; %(waiting)s", waiting=_waiting(ctx)))
    if verb in ("accept", "swap"):
        what = (_("only the host of a sculpture exhibition accepts a commission, when it is held (§10.3)")
                if verb == "accept" else
                _("you are asked to swap a commission only when another player exhibits sculptures (§10.4)"))
        return ctx.not_your_turn(_("nobody asked you: %(what)s; %(waiting)s", what=what, waiting=_waiting(ctx)))
    just_ended = st.phase not in (BOARD, ACCEPT, SWAP) and (st.active - 1) % st.n == seat
    tr = _trade_words(ctx) if just_ended else None
    if tr and verb in ("cell", "offers", "take", "buy", "sell", "move"):
        what = {"cell": _("the exhibit you bought was placed") if tr[0] == "bought" else
                _("there was nothing to place"),
                "offers": _("offers are played only with your own buy or sell (§6.5)"),
                "take": _("a 3rd-floor pick is taken when a placement completes floor 3 (§8.3)")}.get(
            verb) or _("one move and one transaction per turn (§4)")
        if tr[0] == "bought":
            over = _("your turn is over: you bought %(token)s, and %(what)s; %(waiting)s", token=tr[1],
                     what=what, waiting=_waiting(ctx))
        else:
            over = _("your turn is over: you sold %(token)s, and %(what)s; %(waiting)s", token=tr[1],
                     what=what, waiting=_waiting(ctx))
        return ctx.not_your_turn(over)
    return ctx.not_your_turn(_waiting(ctx))


def _not_now(ctx: Ctx, verb: str) -> str:
    """Why the seat to move cannot use ``verb`` at this point of its turn (or of an exhibition)."""
    st, seat = ctx.state, ctx.seat
    ph = st.phase
    p = st.players[seat]
    if ph in (ACCEPT, SWAP) and seat != st.active:
        return _("first answer %(host)s's sculpture exhibition", host=_who(st.active))
    if ph == BOARD:
        return _("first every player chooses a player board (setup, §3)")
    if verb == "board":
        return _("the player boards were chosen at setup")
    if ph in (ACCEPT, SWAP):
        return _("first finish your exhibition")
    if verb == "start":
        return _("your character already stands in %(city)s; a later turn begins with a move (§5.2)",
                 city=_cn(ctx, p.pos))
    if verb == "move":
        if ph == START:
            return _("your first turn begins by placing your character, without a move (§5.1)")
        return _("you have already moved this turn, to %(city)s (one move per turn, §4)", city=_cn(ctx, p.pos))
    tr = _trade_words(ctx) if ph not in (START, MOVE, TRADE) else None
    if verb in ("buy", "sell"):
        if tr:
            if tr[0] == "bought":
                return _("you have already bought %(token)s this turn (one transaction per turn, §6.1)", token=tr[1])
            return _("you have already sold %(token)s this turn (one transaction per turn, §6.1)", token=tr[1])
        return _("first move (step I); you then buy or sell in the city where the move ends (§6.1)")
    if verb == "offers":
        if ph in (START, MOVE, TRADE):
            return _("offers are played with your buy or sell, in step II: write e.g. 'buy offers M05' "
                     "or 'sell offers none' (§6.5)")
        if not tr:
            return _("offers are played only in step II (§6.5)")
        if tr[0] == "bought":
            return _("the offers of this turn's transaction are settled (you bought %(token)s); offers are "
                     "played only in step II (§6.5)", token=tr[1])
        return _("the offers of this turn's transaction are settled (you sold %(token)s); offers are "
                 "played only in step II (§6.5)", token=tr[1])
    if verb == "cell":
        if ph in (START, MOVE, TRADE):
            return _("only an exhibit bought in step II is placed (step IV, §8.1): buy first")
        if tr and tr[0] == "sold":
            return _("you sold %(token)s this turn, so there is no exhibit to place (§8.1)", token=tr[1])
        if ph == TAKE:
            return _("the bought exhibit is placed; the 3rd-floor pick goes in a cell with "
                     "'take TOKEN cell FxCy' (§8.3)")
        return _("the exhibit you bought this turn is placed already (§8.1)")
    if verb == "take":
        if ph == CELL or ph == OFFERS and st.bought >= 0:
            return _("the 3rd-floor pick comes when a placement completes floor 3: place the bought exhibit "
                     "first, or write the pick with it: cell F3C4 take sculpture-11 cell F1C3 (§8.3)")
        return _("you have no 3rd-floor pick: it comes when a placement completes floor 3 (§8.3)")
    if verb == "exhibit":
        why = _token_reason(ctx)
        if why:
            return why
        if ph in (START, MOVE, TRADE, CELL, TAKE):
            return _("the exhibition is step V, after your move, your transaction and its placement (§4)")
        if ph == OFFERS:
            if st.txn and st.txn[0] == 0:
                return _("first say which offers you play with your buy, because the exhibition may change "
                         "your hand (write it on the same line next time: 'buy offers none', 'buy offers M05')")
            return _("first say which offers you play with your sell, because the exhibition may change "
                     "your hand (write it on the same line next time: 'sell offers none', 'sell offers M05')")
        return _("you hold one exhibition per turn")
    if verb == "accept":
        if ph == EXHIBIT:
            return _("a commission is accepted at your sculpture exhibition: write exhibit sculpture accept M11")
        return _("only the host of a sculpture exhibition accepts a commission (§10.3)")
    if verb == "swap":
        return _("you swap a commission only when another player exhibits sculptures (§10.4)")
    return _("you cannot %(what)s now", what=_(VERB_TEXT[verb]))
