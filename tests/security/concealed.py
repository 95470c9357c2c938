"""What is concealed in a game, worked out from the engine states a test
drives: never from ``pbem.services.core.visibility``, whose answers are what the
secrecy tests check.

Three kinds of values are concealed, each read from the state structures
themselves (not from the engine's views, which could be the leak):

* a seat's own (``Hidden.seat``): It's a Wonderful World's draft hand and
  pick and its private notes; Squire's message cards in hand (id, offer text,
  commission text); and, in every game, the notation of the seat's moves in a
  simultaneous step that is not revealed yet (``Record``), or that was taken
  back while it was (secret for good);
* nobody's (``Hidden.nobody``, and the seed, which the caller adds): the
  face-down piles (Squire's supply, removed tokens and message deck, It's a
  Wonderful World's deck, Spyrium's period decks, events below the top and
  token supply), as their contents where a content is no public fact, and as
  their order everywhere (``Hidden.orders``: the next few items in a row, as
  any dump of the state would write them, by id or by index);
* public (``Hidden.public``): what the same structures show everyone (cities,
  galleries, discards, accepted commissions, the published draft and
  construction areas, the public log lines, the notation of every move not
  secret).

A value is concealed from a viewer only when nothing legitimately shows it
anyway, since a text search cannot tell two equal strings apart. So a value
is not looked for when it is also among what ``Knowledge`` keeps over every
state of the game: what was ever public (history pages show old positions
again; the notation of every move not secret), and, for a seated viewer,
what their seat ever saw of its own (a seat still knows the cards it passed
on) and the moves it was ever offered; nor when it is in the game's notation
document or public help (``static_text``: their examples name real cards and
moves); nor when it is part of such a value (a secret ``R mine`` inside a
public ``R mine>E``). A card name that another seat holds too, or that is
built somewhere, is then no secret by its text; its instance id
(``icebreaker#2``), its offer text, the secret move's whole notation usually
still are, and the checks count on those. Values are compared folded (lower
case, white space as one space) and as whole values (not inside a longer word
or id).
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
MIN_LEN = 3  # shorter strings say nothing by their text


# ---------------------------------------------------------------- secret moves


@dataclass
class Record:
    """The game as the test drove it: each ply's seat and notation, and which plies are still
    secret, worked out from the engine states alone (not from pbem.services.core.visibility)."""
    plies: dict[int, tuple[int, str]] = field(default_factory=dict)  # ply -> (seat, notation)
    step: list[int] = field(default_factory=list)  # plies since the last move that revealed anything
    several: bool | None = None  # whether several seats were to move at some point of that step
    notes: list[tuple[str, int, int | None]] = field(default_factory=list)  # thread posts: body, from, to
    words: dict[int, str] = field(default_factory=dict)  # ply -> the move in words (engine.describe_move)

    def played(self, engine, before, seat: int, move, ply: int) -> None:
        from pbem.engine.base import describe

        after = engine.apply(before, seat, move)
        self.plies[ply] = (seat, engine.format_move(before, seat, move))
        self.words[ply] = describe(engine, before, seat, move)
        if self.several is None:  # the first move: the game's start begins the first step
            self.several = len(engine.to_move(before)) > 1
        if engine.reveals(before, after):
            self.step, self.several = [], False  # the whole step is out in the open
        else:
            self.step.append(ply)  # part of the step: secret if the step is simultaneous
        self.several = self.several or len(engine.to_move(after)) > 1

    def applied(self, engine, before, seat: int, res) -> None:
        """Every move a submission applied, with any the services added to close the order
        (the engine's closing_move)."""
        for a in res.applied:
            move = engine.parse_move(before, seat, a.notation)
            self.played(engine, before, seat, move, a.ply)
            before = engine.apply(before, seat, move)

    @property
    def secret(self) -> list[int]:
        """Plies of the simultaneous step in progress: each its mover's alone until revealed."""
        return self.step if self.several else []

    def concealed_from(self, viewer: int | None) -> set[int]:
        return {p for p in self.secret if self.plies[p][0] != viewer}

    def notes_for(self, viewer: int | None) -> tuple[set[str], set[str]]:
        """(posts the viewer may read, private posts the viewer may not)"""
        ok = {b for b, frm, to in self.notes if to is None or viewer in (frm, to)}
        return ok, {b for b, _, _ in self.notes} - ok


def busy(rng, legal):
    """A planner who decides one thing at a time and says 'done' last: long planning steps."""
    return rng.choice([m for m in legal if m.kind not in ("done", "auto")] or legal)


# ---------------------------------------------------------------- hidden values of one state


@dataclass
class Hidden:
    seat: dict[int, set[str]]  # values only that seat may see
    nobody: set[str]  # values nobody may see
    orders: list[tuple[str, list[str]]]  # (what, the next items of a face-down pile, in order)
    public: set[str]  # values the same state shows everyone


def _sized(values) -> set[str]:
    return {v for v in values if isinstance(v, str) and len(v.strip()) >= MIN_LEN}


def _iaww(state) -> Hidden:
    from pbem.engine.iaww.data import CARD_OF

    def card(inst: str) -> set[str]:
        c = CARD_OF[inst]
        return {inst, c.id, c.name}

    seat, public = {}, set(state.log)
    for k, (p, shown) in enumerate(zip(state.players, state.public)):
        mine = set()
        for inst in p.hand + ((p.pick,) if p.pick else ()):
            mine |= card(inst)
        seat[k] = mine | (set(p.notes) - set(shown.notes))
        for inst in shown.draft + shown.built + tuple(s.inst for s in shown.sites):
            public |= card(inst)
    return Hidden(seat, set(), [("the deck", list(state.deck))], public)


def _squire(state) -> Hidden:
    from pbem.engine.squire.data import load
    from pbem.engine.squire.game import describe_commission, describe_offer

    d = load(state.custom)

    def message(c: int) -> set[str]:
        return {d.cards[c].id, describe_offer(d, c), describe_commission(d, c)}

    token = lambda t: d.tokens[t][2]  # noqa: E731
    seat = {k: set().union(*(message(c) for c in p.hand)) for k, p in enumerate(state.players)}
    public = {token(t) for t in state.cities + state.discard + ((state.bought,) if state.bought >= 0 else ())
              if t >= 0}
    for p in state.players:
        public |= {token(t) for t in p.gallery if t >= 0}
        public |= {x for c in p.comms for x in (d.cards[c].id, describe_commission(d, c))}
    public |= {d.cards[c].id for c in state.mdiscard}
    nobody = {token(t) for t in state.supply + state.removed} | set().union(set(), *(message(c) for c in state.deck))
    orders = [("the supply", [token(t) for t in state.supply]), ("the supply", [str(t) for t in state.supply]),
              ("the message deck", [d.cards[c].id for c in state.deck]),
              ("the message deck", [str(c) for c in state.deck]),
              ("the removed tokens", [str(t) for t in state.removed])]
    return Hidden(seat, nobody, orders, public)


def _spyrium(state) -> Hidden:
    from pbem.engine.spyrium.data import CARDS

    orders = []
    for name, deck in zip("ABC", state.decks):
        orders += [(f"the {name} deck", [CARDS[c].name for c in deck]), (f"the {name} deck", [str(c) for c in deck])]
    below = state.events[1:]  # the top one is the future event, face up
    orders += [("the events below the top", [CARDS[c].name for c in below]),
               ("the events below the top", [str(c) for c in below])]
    if len(set(state.supply)) > 1:  # a row of one value is no order anyone could tell
        orders.append(("the token supply", [str(t) for t in state.supply]))
    return Hidden({k: set() for k in range(state.n)}, set(), orders, set())


GAMES = {"iaww": _iaww, "squire": _squire, "spyrium": _spyrium}
ORDER_ITEMS = {"the token supply": 12}  # tokens are 1, 2 or 3: a long row before it says anything
ORDER_DEFAULT = 4


def hidden(engine, state) -> Hidden:
    """The concealed and the public values of one state, read from its structures."""
    out = GAMES[engine.name](state)
    out.seat = {k: _sized(v) for k, v in out.seat.items()}
    out.nobody, out.public = _sized(out.nobody), _sized(out.public)
    return out


@lru_cache(maxsize=8)
def static_text(game: str) -> str:
    """What anyone reads about a game whatever its state: its notation document and public help
    (their examples name real cards and moves)."""
    from pbem.engine import get_game

    engine = get_game(game)
    doc = ROOT / "docs" / "notation" / f"{game}.md"
    state = engine.initial_state(engine.min_players if engine.min_players > 1 else 2, 1, {})
    return fold("\n".join([doc.read_text(encoding="utf-8") if doc.exists() else "",
                           engine.notation_help(state, None)]))


# ---------------------------------------------------------------- what each seat knows, over the game


@dataclass
class Knowledge:
    """Everything the states of the game ever showed everyone, and what each seat ever saw of its
    own (history pages show old positions again). The moves' notation is the Record's to say."""
    public: set[str] = field(default_factory=set)
    seat: dict[int, set[str]] = field(default_factory=dict)

    def saw(self, engine, state) -> None:
        """Take in one state: its public values, each seat's own, and the moves each seat to move
        was offered (a history board lists a few as examples: the notation of a move a seat could
        make then is no news to it when another seat makes it later)."""
        h = hidden(engine, state)
        self.public |= h.public
        for k, values in h.seat.items():
            self.seat.setdefault(k, set()).update(values)
        for k in engine.to_move(state):
            self.seat.setdefault(k, set()).update(engine.format_move(state, k, m) for m in engine.legal_moves(state, k))


# ---------------------------------------------------------------- looking for them in text


def fold(text: str) -> str:
    """Lower case, one space for any run of white space."""
    return " ".join(text.lower().split())


_EDGE = r"[\w#]"


def _bounded(needle: str, hay: str) -> bool:
    """``needle`` in ``hay`` (both folded) as a whole value: not inside a longer word or id."""
    if needle not in hay:
        return False
    return re.search(rf"(?<!{_EDGE}){re.escape(needle)}(?!{_EDGE})", hay) is not None


_WORD = re.compile(rf"{_EDGE}+")


class _Index:
    """Values (folded) by the run of word characters each starts with, to find which of them a
    text (folded) holds as whole values, as :func:`_bounded` finds each. A whole value that starts
    with a word character starts a word of the text, and that word is the value's first word
    entire (the value's bounds, or the character after its first word, end it): only the values
    whose first word is a word of the text are looked for one by one (a text is read once, not
    once a value)."""

    def __init__(self, values) -> None:
        self.order = {v: i for i, v in enumerate(values)}
        self.by_word: dict[str, list[str]] = {}
        self.loose: list[str] = []  # values that start with another character: always looked for
        for v in self.order:
            m = _WORD.match(v)
            if m:
                self.by_word.setdefault(m.group(0), []).append(v)
            else:
                self.loose.append(v)

    def found(self, hay: str) -> list[str]:
        """The values ``hay`` holds as whole values, in the order they were given."""
        words = self.by_word.keys() & set(_WORD.findall(hay))
        hits = [v for v in self.loose if _bounded(v, hay)]
        hits += [v for w in words for v in self.by_word[w] if _bounded(v, hay)]
        return sorted(hits, key=self.order.__getitem__)


def order_pattern(what: str, items: list[str], n: int) -> tuple[str, set[str], re.Pattern] | None:
    """The next ``n`` items of a pile in a row, as a list, a JSON array or a table would write
    them: (what, the items, the pattern); None when the pile is too short to say anything."""
    items = [fold(i) for i in items[:n]]
    if len(items) < n:
        return None
    sep = r"""[\s,;:|'"\[\]()]{1,8}"""
    # the first item, then that it does not go on a word: a pattern that starts with its literal is
    # looked for as fast as the literal (one that starts with a look-behind is tried at every position)
    first = re.escape(items[0])
    rest = "".join(sep + re.escape(i) for i in items[1:])
    return what, set(items), re.compile(first + rf"(?<!{_EDGE}{first})" + rest + rf"(?!{_EDGE})")


@dataclass
class Concealed:
    """The values one viewer may not see now: text -> what it is."""
    values: dict[str, str]
    orders: list[tuple[str, set[str], re.Pattern]]
    _index: _Index | None = field(default=None, init=False, repr=False, compare=False)

    def _found(self, hay: str) -> list[str]:
        if self._index is None:  # made once, for the many texts of a checkpoint
            self._index = _Index(self.values)
        return self._index.found(hay)

    def without(self, allowed: str) -> "Concealed":
        """The same, less what ``allowed`` (a text the viewer may read whole) holds."""
        shown = set(self._found(fold(allowed)))
        if not shown:
            return self
        return Concealed({v: w for v, w in self.values.items() if v not in shown}, self.orders)

    def leaks(self, text: str) -> list[str]:
        hay = fold(text)
        found = [f"{self.values[v]}: {v!r}" for v in self._found(hay)]
        found += [f"the order of {what}" for what, items, pattern in self.orders
                  if all(i in hay for i in items) and pattern.search(hay)]
        return found


def allowed_text(values) -> str:
    """Values a viewer may read, as one text to look values up in (folded, one per line)."""
    return "\n".join(sorted({fold(v) for v in values}))


def concealed(values: dict[str, str], orders: list[tuple[str, set[str], re.Pattern]], *, allowed: list[str],
              static: str) -> Concealed:
    """``values`` less those any viewer could read legitimately: inside a value of ``allowed``
    (texts of ``allowed_text``: what was ever public, what the viewer's seat ever saw; the secret
    'R mine' cannot be told from the public 'R mine>E' by its text) or in ``static`` (the game's
    documents)."""
    out = {}
    for v, what in values.items():
        f = fold(v)
        if len(f) >= MIN_LEN and not _in_static(f, static):
            out.setdefault(f, what)
    index = _Index(out)
    shown = {f for text in allowed for f in index.found(text)}
    return Concealed({f: what for f, what in out.items() if f not in shown}, orders)


@lru_cache(maxsize=100_000)
def _in_static(value: str, static: str) -> bool:
    return _bounded(value, static)


_DATA_PNG = re.compile(r"data:image/png;base64,[A-Za-z0-9+/=]+")


def readings(body: str) -> str:
    """A response or mail as a person could read it: its HTML entities resolved once and twice
    (an outbox page quotes a mail's HTML inside an attribute), and a JSON body's strings without
    escapes."""
    import html

    # a picture put in as a data: URL (the outbox page's board PNG) is pixels, not words: its
    # base64 would only make false finds (its drawing's words are read from the mail's SVG)
    body = _DATA_PNG.sub("data:image/png;base64,…", body)
    once = html.unescape(body)
    parts = [once, html.unescape(once)]
    if body[:1] in "[{":
        try:
            decoded = json.dumps(json.loads(body), ensure_ascii=False)
        except ValueError:
            pass
        else:  # and the HTML inside its strings (thread.json's parts: the boards, the drawing's texts)
            parts += [decoded, html.unescape(decoded)]
    return "\n\x00\n".join(dict.fromkeys(parts))
