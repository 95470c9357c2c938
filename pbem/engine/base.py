"""The engine contract shared by every game (DESIGN.md §2).

Pure: standard library only, no I/O, no clock, no global random. A game is a
declaration over immutable states; the rest of pbem talks to it only through
the members of :class:`Game`.

Seats are 0-based everywhere in the API; humans see them 1-based.
"""
from __future__ import annotations

import hashlib
import random
import re
from dataclasses import dataclass
from typing import Any, Callable, Hashable, Iterable, Mapping, Protocol, Sequence, runtime_checkable

from .i18n import PLAYER_WORDS, _, ngettext, player

State = Any  # each game defines its own immutable state type
Move = Hashable  # each game defines small immutable, orderable move values


# ---------------------------------------------------------------- errors


class MoveError(ValueError):
    """A move that cannot be applied. The message is written for the player.

    ``code`` is stable (tests and the mail receipt rely on it); ``examples``
    are a few legal alternatives in canonical notation, when there are any.
    ``ply`` is filled in by the services (the engine does not count plies).
    """

    code = "move_error"

    def __init__(
        self,
        reason: str,
        *,
        text: str | None = None,
        seat: int | None = None,
        ply: int | None = None,
        examples: Sequence[str] = (),
        code: str | None = None,
    ) -> None:
        super().__init__(reason)
        self.reason = reason
        self.text = text
        self.seat = seat
        self.ply = ply
        self.examples = tuple(examples)
        if code is not None:
            self.code = code

    def __str__(self) -> str:  # the human line, quoting the input
        quoted = f"{self.text!r}: " if self.text else ""
        return f"{quoted}{self.reason}"

    def describe(self) -> str:
        """Reason plus legal examples, as shown in a mail receipt."""
        out = str(self)
        if self.examples:
            eg = "\n  " + _("e.g.") + " "
            out += eg + eg.join(self.examples)
        return out

    def to_dict(self) -> dict:
        return {
            "code": self.code,
            "reason": self.reason,
            "text": self.text,
            "seat": self.seat,
            "ply": self.ply,
            "examples": list(self.examples),
        }


class MoveSyntaxError(MoveError):
    """The text is not notation for any move of this game."""

    code = "syntax"


class IllegalMoveError(MoveError):
    """Well-formed, but the rules forbid it in this position."""

    code = "illegal"


class AmbiguousMoveError(MoveError):
    """The text fits more than one legal move; say which."""

    code = "ambiguous"


class NotYourTurnError(MoveError):
    """The seat has nothing to decide right now."""

    code = "not_your_turn"


class GameOverError(MoveError):
    """The game has ended; no more moves."""

    code = "game_over"


class OptionError(ValueError):
    """A game option is unknown or has a bad value. Message is for the user."""


# ---------------------------------------------------------------- values


@dataclass(frozen=True)
class Option:
    """One game option, with its default. ``choices`` None means free-form
    (validated by ``parse``), e.g. a replacement data set."""

    name: str
    default: Any
    description: str
    choices: tuple | None = None
    parse: Callable[[Any], Any] | None = None  # raw (str or JSON value) -> value; raise OptionError
    # how a form shows it: a short label, and each choice in words with a short explanation (the choice
    # itself is notation a mail writes: NEW squire side=world); both in the game's catalog, marked N_
    label: str = ""
    words: Callable[[Any], str] | None = None  # a choice -> its words in the current language
    admin_only: bool = False  # a site admin's option (a replacement data set): no player is offered it
    offered: tuple = ()  # the values a form offers for a free-form option (a mail may write others)

    def coerce(self, raw: Any) -> Any:
        if self.parse is not None:
            value = self.parse(raw)
        elif isinstance(self.default, bool) and isinstance(raw, str):
            low = raw.strip().lower()
            if low not in ("1", "0", "yes", "no", "true", "false", "on", "off"):
                raise OptionError(_("option %(name)s: expected yes or no, got %(raw)s", name=self.name, raw=repr(raw)))
            value = low in ("1", "yes", "true", "on")
        elif isinstance(self.default, int) and not isinstance(self.default, bool) and isinstance(raw, str):
            try:
                value = int(raw)
            except ValueError:
                raise OptionError(_("option %(name)s: expected a whole number, got %(raw)s",
                                    name=self.name, raw=repr(raw))) from None
        else:
            value = raw
        if self.choices is not None:
            norm = value.lower() if isinstance(value, str) else value
            lowered = {(c.lower() if isinstance(c, str) else c): c for c in self.choices}
            if norm not in lowered:
                shown = ", ".join(str(c) for c in self.choices)
                raise OptionError(_("option %(name)s: %(raw)s is not one of %(choices)s",
                                    name=self.name, raw=repr(raw), choices=shown))
            value = lowered[norm]
        return value


@dataclass(frozen=True)
class Outcome:
    """Final result. ``scores[i]`` is seat i's total; ``breakdown[i]`` maps
    scoring categories to points (what a player sees under the final board);
    ``winners`` holds every seat that shares the victory; ``ranking`` lists
    seats best first after tie-breaks (ties that stand keep seat order);
    ``notes`` carries human lines (tie-break used, solo title, ...)."""

    scores: tuple[int, ...]
    winners: frozenset[int]
    breakdown: tuple[Mapping[str, int], ...] = ()
    ranking: tuple[int, ...] = ()
    notes: tuple[str, ...] = ()

    def to_dict(self) -> dict:
        return {
            "scores": list(self.scores),
            "winners": sorted(self.winners),
            "breakdown": [dict(b) for b in self.breakdown],
            "ranking": list(self.ranking),
            "notes": list(self.notes),
        }


@dataclass(frozen=True)
class Implied:
    """A decision a seat's order leaves unsaid and answers by what it says
    around it (``Game.implied_move``): ``move`` is applied as one of the
    order's moves and recorded like any other; ``note`` says why, for the
    seat's own receipt only (it may name what only that seat sees)."""

    move: Move
    note: str


@dataclass(frozen=True)
class Card:
    """One card (tile, building, city, exhibit ...) of a game, as ``CARD``
    answers it. ``key`` is how the notation writes it ("wind_turbines",
    "M17"), ``name`` its display name, ``kind`` what it is ("development
    card", "message card"), ``text`` its whole text in plain lines of at most
    76 columns (cost, effect, points, ...), from the engine's card data."""

    key: str
    name: str
    kind: str
    text: str


# ---------------------------------------------------------------- protocol


@runtime_checkable
class Game(Protocol):
    """What every game module exposes as ``GAME`` (DESIGN.md §2).

    Conventions every implementation follows:

    * ``initial_state`` takes all chance from ``seed``; any later draw uses a
      generator derived from data kept in the state (see :func:`rng_for`).
    * ``legal_moves`` is sorted and unique; every element round-trips through
      ``format_move``/``parse_move``; it is empty exactly when ``seat`` is not
      in ``to_move``.
    * ``apply`` never mutates its input and raises a ``MoveError`` subclass
      (``NotYourTurnError``, ``GameOverError``, ``IllegalMoveError``).
    * ``view(state, seat)`` is JSON-able and contains nothing that ``seat``
      may not see (``None`` = observer). It always has the keys ``game``,
      ``seat``, ``players``, ``to_move`` (list of seats), ``over`` (bool),
      ``status`` (one human line, e.g. "Round 2 - Blue to move"), and
      ``outcome`` (``Outcome.to_dict()`` or None). Services may add
      ``names`` (display name per seat) before rendering.
    * ``render_text(view)`` / ``render_html(view)`` read only a view. HTML is
      a fragment (tables, inline ``style`` attributes, no scripts, no
      external resources) that works in mail clients and in the web page.
    * ``reveals(before, after)`` is True when going from ``before`` to
      ``after`` revealed hidden information or drew chance (cards dealt or
      drawn, picks revealed, tokens drawn). The services allow UNDO only over
      moves for which it is False.
    * ``random_seating`` (optional, default False): the rules draw the seating
      (e.g. a random first player who then sits in seat 0), so the services
      seat the players in a random order, drawn from the game's seed, at start.
    * ``simultaneous`` (optional, default False): some steps have several
      seats to act at once (``to_move`` holds more than one seat), and their
      choices are secret until a move reveals the step (``reveals``). A game
      without it never has more than one seat to move (the conformance test
      checks it), and the services never look for secret moves in it.
    * ``batch`` says how the moves of one mail are applied: ``"prefix"``
      (in order until one fails; the applied ones stand) or ``"atomic"``
      (all or nothing, for games whose rules say a whole order is rejected
      when any part of it is illegal).
    * ``decision_view(state, seat)`` is the part of ``view(state, seat)`` a
      decision of ``seat`` is made from (JSON-able). A reply written against
      an older board is refused as stale only when another seat's move
      changed it since: what no longer matters to the seat's
      choice -- whose turn it is, the status line, the other seats' "done"
      flags of a simultaneous step -- is left out. :func:`default_decision_view`
      below is the default (the view without ``to_move`` and ``status``).
    * ``closing_move(state, seat)`` (optional; absent means None): the move
      that ends ``seat``'s order when the rules end it without asking (It's
      a Wonderful World §6: every card decided, nothing left to place), else
      None. The services apply it after the last move of a batch (one mail,
      one web post), so every move of the batch still counts as part of the
      order.
    * ``thread_round(state)`` (optional): which turn or round a move made in
      ``state`` belongs to, as a small hashable value; the game thread folds
      the moves of one into a single line ("Ann, Bob, Cat -- 6 moves"). It
      reads only what every seat may see, and in a game with secret steps it
      changes only where a step is revealed (``reveals``): it is shown with
      secret choices. Absent, a seat's consecutive moves make its turn.
    * ``implied_move(state, seat, order, text)`` (optional; absent means
      None): a decision ``seat``'s order leaves unsaid where the order itself
      answers it (Squire: a plain ``buy`` followed by a later step of the
      turn means ``offers none``), as an :class:`Implied`, else None.
      ``order`` is the tuple of moves of the same batch applied so far
      (oldest first) and ``text`` the batch's next text, not parsed yet, or
      None after its last. The services ask it before each text of a
      person's batch (a mail, a web post, a pre-move; not a bot's move nor
      an admin's corrected list, which give every move) and once after the
      last (before ``closing_move``), apply the move it gives, record it,
      and show its note in the seat's receipt only. The
      answer must be a legal move, and whether there is one must depend on
      nothing the other seats may not see: the record is public.
    * ``describe_move(state, seat, move)``: what ``move`` of
      ``seat`` did, in words, past tense, without its subject, read from
      ``state`` (the state *before* the move): "built a Mine in lot 2 for £5",
      "picked Wind Turbines", "moved York-Manchester (1 ticket)". A seat is
      named as "Player N" (the services put names in, :func:`name_seats`).
      The services call it only where the viewer may see the move's notation
      (the one door, services.visibility), so it may name what the move chose.
    * ``explain_move(state, seat, move)``: the same move as an option, in the
      imperative, for the list of legal moves in a mail: "use the Architect
      with your worker from 7-8, then advance on the residence track".
    * ``draw_svg(view, moves=())``: the view as a picture, an SVG
      document written with :mod:`pbem.engine.drawing` from the view only,
      deterministic, with a title and a description; each legal move in
      ``moves`` (notation the viewer may send) is put as ``data-moves`` on
      the element it concerns, so that a click fills the move box.
      ``layout`` is ``"wide"`` (the desktop page) or ``"narrow"`` (a phone's
      page and the mail's picture): the same parts, the same clickable
      elements, stacked in a portrait column ``drawing.NARROW_WIDTH`` units
      wide with no text under ``drawing.MIN_TEXT`` units.
    * ``cards()``: every card, tile, building, city ... a player may ask
      about with ``CARD <name>`` (:class:`Card`), static data of the game;
      :func:`find_cards` looks them up.
    """

    name: str
    title: str
    aliases: tuple[str, ...]
    min_players: int
    max_players: int
    options: tuple[Option, ...]
    batch: str

    def initial_state(self, players: int, seed: int, options: Mapping[str, Any]) -> State: ...

    def to_move(self, state: State) -> frozenset[int]: ...

    def legal_moves(self, state: State, seat: int) -> list: ...

    def parse_move(self, state: State, seat: int, text: str) -> Move: ...

    def format_move(self, state: State, seat: int, move: Move) -> str: ...

    def apply(self, state: State, seat: int, move: Move) -> State: ...

    def outcome(self, state: State) -> Outcome | None: ...

    def view(self, state: State, seat: int | None) -> dict: ...

    def to_json(self, state: State) -> Any: ...

    def from_json(self, data: Any) -> State: ...

    def notation_help(self, state: State, seat: int | None) -> str: ...

    def render_text(self, view: Mapping[str, Any]) -> str: ...

    def render_html(self, view: Mapping[str, Any]) -> str: ...

    def reveals(self, before: State, after: State) -> bool: ...

    def decision_view(self, state: State, seat: int) -> dict: ...

    def describe_move(self, state: State, seat: int, move: Move) -> str: ...

    def explain_move(self, state: State, seat: int, move: Move) -> str: ...

    def cards(self) -> Sequence["Card"]: ...

    def draw_svg(self, view: Mapping[str, Any], moves: Sequence[str] = (), layout: str = "wide") -> str: ...


# ---------------------------------------------------------------- helpers


def validate_options(game: Game, players: int, raw: Mapping[str, Any] | None) -> dict:
    """Fill defaults, coerce values, reject unknown names. Returns a new dict
    holding every option of the game."""
    if not isinstance(players, int) or not game.min_players <= players <= game.max_players:
        raise OptionError(ngettext("%(game)s is for %(low)d to %(num)d player, not %(n)s",
                                   "%(game)s is for %(low)d to %(num)d players, not %(n)s", game.max_players,
                                   game=game.title, low=game.min_players, n=players))
    known = {o.name: o for o in game.options}
    out: dict = {}
    for key, value in (raw or {}).items():
        opt = known.get(key.lower())
        if opt is None:
            names = ", ".join(known) or _("none")
            raise OptionError(_("%(game)s has no option %(key)s (options: %(names)s)", game=game.title,
                                key=repr(key), names=names))
        out[opt.name] = opt.coerce(value)
    for opt in game.options:
        out.setdefault(opt.name, opt.default)
    return out


def option_text(game: Game, option: Option) -> str:
    """``option``'s description in the current language: from the game's own
    catalog (its ``catalog`` attribute, :class:`pbem.engine.i18n.Catalog`)."""
    catalog = getattr(game, "catalog", None)
    return catalog.gettext(option.description) if catalog is not None else option.description


def option_label(game: Game, option: Option) -> str:
    """``option``'s short name on a form, in the current language ("Board side")."""
    catalog = getattr(game, "catalog", None)
    label = option.label or option.name
    return catalog.gettext(label) if catalog is not None and option.label else label


def choice_text(game: Game, option: Option, value: Any) -> str:
    """One choice of ``option`` in words, with a short explanation, in the current language
    ("World: the harder board"); the value itself where the option has no words for it."""
    if option.words is not None:
        try:
            said = option.words(value)
        except (KeyError, ValueError, TypeError):
            said = None
        if said:
            return said
    return str(value)


def options_in_words(game: Game, values: Mapping[str, Any]) -> list[tuple[str, str]]:
    """A game's chosen options as (label, choice in words), for a page: admin-only ones left out."""
    out = []
    for option in game.options:
        if option.admin_only or option.name not in values:
            continue
        out.append((option_label(game, option), choice_text(game, option, values[option.name])))
    return out


def rng_for(seed: int, *labels: Hashable) -> random.Random:
    """A private generator for one named draw, e.g. ``rng_for(seed, "tokens", 3)``.

    Deterministic across runs and Python versions (SHA-256 of the labels), so
    a state only needs to keep ``seed`` plus a counter to draw again later,
    instead of a 2.5 KB Mersenne Twister state.
    """
    key = repr((int(seed),) + tuple(labels)).encode()
    return random.Random(int.from_bytes(hashlib.sha256(key).digest()[:16], "big"))


def replay(game: Game, players: int, seed: int, options: Mapping[str, Any],
           moves: Iterable[tuple[int, str]]) -> State:
    """Rebuild a state from a record: the fold DESIGN.md §2 calls replay."""
    state = game.initial_state(players, seed, options)
    for seat, text in moves:
        state = game.apply(state, seat, game.parse_move(state, seat, text))
    return state


VOLATILE = ("to_move", "status")  # what any move changes and no decision depends on


def default_decision_view(view: Mapping[str, Any]) -> dict:
    """The default ``Game.decision_view``: the seat's view without whose turn
    it is and the status line (which says the same)."""
    return {k: v for k, v in view.items() if k not in VOLATILE}


def seat_label(view: Mapping[str, Any], seat: int) -> str:
    """Display name for a seat in a renderer: the services' name, else 'Player N'."""
    names = view.get("names") or ()
    if 0 <= seat < len(names) and names[seat]:
        return str(names[seat])
    return player(seat)


_PLAYER_N = re.compile(rf"\b(?:{PLAYER_WORDS}) (\d{{1,2}})\b")


def name_seats(text: str, names: Sequence[str] | None) -> str:
    """``text`` with every "Player N" an engine wrote replaced by that seat's
    name (the services know names; the engines do not), in any language
    (``Игрока 2``)."""
    if not names:
        return text

    def one(m: re.Match) -> str:
        i = int(m.group(1)) - 1
        return str(names[i]) if 0 <= i < len(names) and names[i] else m.group(0)

    return _PLAYER_N.sub(one, text)


def describe(game: Game, state: State, seat: int, move: Move) -> str:
    """``game.describe_move``, or "played <notation>" for a game without it."""
    fn = getattr(game, "describe_move", None)
    return fn(state, seat, move) if fn else _("played %(move)s", move=game.format_move(state, seat, move))


def explain(game: Game, state: State, seat: int, move: Move) -> str | None:
    """``game.explain_move``, or None for a game without it."""
    fn = getattr(game, "explain_move", None)
    return fn(state, seat, move) if fn else None


def _fold(text: str) -> str:
    return re.sub(r"[\s_\-']+", " ", text.casefold()).strip()


def find_cards(game: Game, query: str) -> list[Card]:
    """The cards ``query`` names: an exact key or name first (case, spaces,
    underscores and dashes do not matter), else every card whose key or name
    starts with it, else every one containing it."""
    cards = tuple(getattr(game, "cards", lambda: ())())
    q = _fold(query)
    if not q:
        return []
    for test in (lambda c: q in (_fold(c.key), _fold(c.name)),
                 lambda c: _fold(c.key).startswith(q) or _fold(c.name).startswith(q),
                 lambda c: q in _fold(c.key) or q in _fold(c.name)):
        found = [c for c in cards if test(c)]
        if found:
            return found
    return []


def check_turn(game: Game, state: State, seat: int, text: str | None = None) -> None:
    """The shared order of checks before parsing: over, then seat to act."""
    if game.outcome(state) is not None or not game.to_move(state):
        raise GameOverError(_("the game is over; no more moves are accepted"), text=text, seat=seat)
    if seat not in game.to_move(state):
        waiting = ", ".join(str(s + 1) for s in sorted(game.to_move(state)))
        raise NotYourTurnError(_("it is not your turn: waiting for seat %(seats)s", seats=waiting),
                               text=text, seat=seat)


# what phones, Outlook and Word make of quotes, apostrophes and dashes (smart punctuation), as typed
# spaces that are not ' ', and invisible characters, as phones and word processors write them
SPACES = {"\u00a0": " ", "\u2007": " ", "\u202f": " ", "\u2009": " ", "\u200a": " ", "\u3000": " ",
          "\u200b": None, "\u200c": None, "\u200d": None, "\u2060": None, "\ufeff": None, "\u00ad": None}
_TYPOGRAPHY = str.maketrans({"\u201c": '"', "\u201d": '"', "\u201e": '"', "\u201f": '"', "\u00ab": '"',
                             "\u00bb": '"', "\u2033": '"', "\u2018": "'", "\u2019": "'", "\u201a": "'",
                             "\u201b": "'", "\u2032": "'", "\u2039": "'", "\u203a": "'", "\u2010": "-",
                             "\u2011": "-", "\u2012": "-", "\u2013": "-", "\u2014": "-", "\u2212": "-",
                             "\uff1b": ";", "\u2026": "...", **SPACES})
_BULLET_RE = re.compile(r"^(?:[-*\u2022\u00b7]\s+)")  # "- pick wind", "• pass"
_TRAILING_RE = re.compile(r"[\s.!,;]+$")  # "DONE." "pass!" (no notation ends in these)


def plain_typography(text: str) -> str:
    """Typographic quotes, apostrophes, dashes and odd spaces as their plain
    forms, and a list bullet removed."""
    return _BULLET_RE.sub("", text.translate(_TYPOGRAPHY).strip())


def normalize_notation(text: str) -> str:
    """A move as the player meant it, whatever their keyboard made of it:
    plain typography (``“Sir Fox”`` is ``"Sir Fox"``) and no trailing full
    stop or exclamation mark (``DONE.``). Every front door applies it."""
    text = plain_typography(text)
    return _TRAILING_RE.sub("", text) if not text.endswith("...") else text.rstrip(".").rstrip()


# words a player may put before a move ("I pass", "please place 4-5") that say nothing themselves
_FILLERS = frozenset({"i", "i'll", "ill", "i'd", "id", "please", "pls", "now", "then", "and", "ok", "okay", "so",
                      "my", "next", "ill", "let's", "lets", "me", "we", "will", "would", "like", "to", "play",
                      "do", "i'm", "im", "going"})
# shapes that only notation has: spaces "4-5", cells "F1C2", cards "M07", ids "wind_turbines",
# "icebreaker#2", "m>E", a bare number or letter+number
_SHAPES = re.compile(r"^\d{1,3}$|\b\d\s*[-x/]\s*\d\b|\bf\d\s*c\d\b|\bm\d{1,2}\b|[a-z]_[a-z]|#\d|\w\s*>\s*\w|"
                     r"^[a-z]\d$|^[a-z]\s+\d{1,2}\b", re.I)
_WORD = re.compile(r"[\w'+£#>:-]+")


def looks_like_move(game: Game, text: str) -> bool:
    """True when ``text`` was plainly meant as notation of ``game``: its first
    word (after fillers such as "I", "please") is one of the game's
    ``notation_words``, or it has a shape only notation has. False for the
    talk a player puts around moves ("Thanks!", "Hi all,", "Ann"), which the
    mail loop then reports as ignored text instead of refusing the turn:
    talk is not a bad move. A line that parses as a move counts as one
    whatever this says; the services ask the engine for that."""
    text = text.strip()
    if not text or len(text) > 400:
        return bool(text)
    vocabulary = getattr(game, "notation_words", frozenset())
    words = [w.strip(":-").lower() for w in _WORD.findall(text)]
    words = [w for w in words if w]
    while words and words[0] in _FILLERS and words[0] not in vocabulary:
        words.pop(0)
    if not words:
        return False
    if words[0] in vocabulary:  # a one-letter word counts before a space only ("C 2", not "P.S.")
        return len(words[0]) > 1 or bool(re.search(rf"(?:^|\s){re.escape(words[0])}\s+\S", text, re.I))
    # a short line with a shape only notation has ("plce 4-5" is a mistyped move); a sentence that
    # quotes a move ("That's it: place 1-2 is mine") is talk
    return len(words) <= 4 and bool(_SHAPES.search(text))


def legal_examples(game: Game, state: State, seat: int, limit: int = 5) -> tuple[str, ...]:
    """A few legal moves in canonical notation, spread over the whole list,
    for the ``examples`` of a MoveError."""
    moves = game.legal_moves(state, seat)
    if not moves:
        return ()
    step = max(1, len(moves) // limit)
    return tuple(game.format_move(state, seat, m) for m in moves[::step][:limit])
