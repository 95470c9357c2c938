"""The engines' words in the players' languages, standard library only.

Every text an engine writes for a person -- a refusal's reason, the status line, a
board, a drawing's labels, a move described or explained, the notation help --
goes through a :class:`Catalog`: a gettext domain of its own per game package
(``pbem/engine/<game>/locale/<lang>/LC_MESSAGES/<game>.po``, and ``engine`` for
the words of :mod:`pbem.engine.base` and :mod:`pbem.engine.drawing`), compiled to
``.mo`` at install (``pbem i18n compile``). The language is the caller's: the
services render each mail and page inside ``with language(code):`` (a context
variable, like :mod:`decimal`'s context), so the engines' signatures stay as they
are and a call without a language speaks English, the source.

What is *never* translated: move notation (``format_move``, ``legal_moves``,
the stored record) and anything a state or a decision view holds, so a record
replays and a stale-board check compares the same bytes in every language.
What a player *may* write in their language: the aliases of :class:`Aliases`.

Messages use named ``%(name)s`` placeholders (the same as the web and mail
templates), filled by keyword: ``_("built a %(card)s in lot %(lot)d", card=c, lot=n)``.
A translation that breaks its placeholders falls back to the English text.
"""
from __future__ import annotations

import csv
import gettext
import re
from contextlib import contextmanager
from contextvars import ContextVar
from functools import lru_cache
from pathlib import Path
from typing import Iterator, Mapping, Sequence

SOURCE = "en"
LANGUAGES = ("en", "ru", "bg", "it")  # English is the source; the others have catalogs
NATIVE = {"en": "English", "ru": "Русский", "bg": "Български", "it": "Italiano"}

_current: ContextVar[str] = ContextVar("pbem_language", default=SOURCE)


@lru_cache(maxsize=256)  # a handful of codes, asked at every translated word
def normalize(code: str | None) -> str:
    """A supported language for ``code`` ("ru", "ru-RU", "RU_ru", "it_IT.UTF-8"),
    English for anything else."""
    if not code:
        return SOURCE
    base = re.split(r"[-_.@]", str(code).strip().lower(), maxsplit=1)[0]
    return base if base in LANGUAGES else SOURCE


def supported(code: str | None) -> bool:
    """True when ``code`` names one of :data:`LANGUAGES` (any region)."""
    if not code:
        return False
    return re.split(r"[-_.@]", str(code).strip().lower(), maxsplit=1)[0] in LANGUAGES


def current() -> str:
    """The language the engines speak now (English unless a caller chose)."""
    return _current.get()


@contextmanager
def language(code: str | None) -> Iterator[str]:
    """Speak ``code`` inside the block (unsupported codes speak English)."""
    lang = normalize(code)
    token = _current.set(lang)
    try:
        yield lang
    finally:
        _current.reset(token)


def N_(message: str) -> str:
    """Marks a message for the catalog without translating it (module-level
    constants); translate it where it is shown: ``_(CONSTANT)``."""
    return message


def fill(translated: str, source: str, values: Mapping[str, object]) -> str:
    """``translated`` with its placeholders filled; the English ``source`` filled when a translation lost one."""
    if not values:
        return translated
    try:
        return translated % values
    except (KeyError, ValueError, TypeError):
        return source % values  # a translation that lost a placeholder: the English, never a crash


class Catalog:
    """One gettext domain: the messages of one game package (or ``engine``).

    ``localedir`` holds ``<lang>/LC_MESSAGES/<domain>.mo``; a missing catalog
    speaks English. Translations are loaded once per language and process."""

    def __init__(self, domain: str, localedir: str | Path) -> None:
        self.domain = domain
        self.localedir = Path(localedir)

    def translations(self, lang: str | None = None) -> gettext.NullTranslations:
        return _load(self.domain, str(self.localedir), normalize(lang or current()))

    def gettext(self, message: str, /, **values: object) -> str:
        if _current.get() == SOURCE:  # the source needs no catalog: boards call this thousands of times
            return message % values if values else message
        return fill(self.translations().gettext(message), message, values)

    def ngettext(self, singular: str, plural: str, n: int, /, **values: object) -> str:
        values.setdefault("num", n)
        source = singular if n == 1 else plural
        if _current.get() == SOURCE:
            return source % values
        return fill(self.translations().ngettext(singular, plural, n), source, values)

    def pgettext(self, context: str, message: str, /, **values: object) -> str:
        if _current.get() == SOURCE:
            return message % values if values else message
        return fill(self.translations().pgettext(context, message), message, values)

    def npgettext(self, context: str, singular: str, plural: str, n: int, /, **values: object) -> str:
        values.setdefault("num", n)
        source = singular if n == 1 else plural
        if _current.get() == SOURCE:
            return source % values
        return fill(self.translations().npgettext(context, singular, plural, n), source, values)


@lru_cache(maxsize=None)
def _load(domain: str, localedir: str, lang: str) -> gettext.NullTranslations:
    if lang == SOURCE:
        return gettext.NullTranslations()
    return gettext.translation(domain, localedir, languages=[lang], fallback=True)


_DERIVED: list = []  # the engines' caches of words made from the catalogs and the names: forgotten with them


def derived(cached):
    """Mark an ``lru_cache`` of words made from the catalogs or the names, for ``reload`` to forget."""
    _DERIVED.append(cached)
    return cached


def reload() -> None:
    """Forget loaded catalogs (after ``pbem i18n compile`` in a running process, and in tests)."""
    _load.cache_clear()
    _names_table.cache_clear()
    for cached in _DERIVED:
        cached.cache_clear()


ENGINE = Catalog("engine", Path(__file__).with_name("locale"))
_ = ENGINE.gettext
ngettext = ENGINE.ngettext
pgettext = ENGINE.pgettext

# "Player 2" as the engines write a seat without a name, in every language and its cases ("Игрока 2")
PLAYER_WORDS = r"Player|Игрок\w*|Играч\w*|Giocatore|Giocatrice"


def player(seat: int) -> str:
    """How a seat without a name is written: "Player 2" (1-based), translated."""
    return _("Player %(n)d", n=seat + 1)


# ---------------------------------------------------------------- words kept as data
# What a view keeps for its renderers to word in the reader's language: a message and its values,
# not an English sentence that would have to be read back (a view is the same in every language).
# A kept text is JSON: a string is itself (a price, notation, punctuation), a list is its parts one
# after the other, {"msg": ..., "values": {...}} a message ({"plural": ..., "n": ...} with a count),
# and a game may add kinds of its own ({"card": "Mine £5"}: a name from its data/names.csv).


class Later:
    """Messages kept to be worded later: ``later._(msgid, **values)`` and ``later.ngettext(singular,
    plural, n, **values)`` mark their messages for the catalogs as ``_`` and ``ngettext`` do (the
    extraction reads the same keywords) and give the kept text, which :meth:`Wording.say` words."""

    @staticmethod
    def _(message: str, /, **values: object) -> dict:
        return {"msg": message, "values": values} if values else {"msg": message}

    @staticmethod
    def ngettext(singular: str, plural: str, n: int, /, **values: object) -> dict:
        return {"msg": singular, "plural": plural, "n": n, "values": values}


later = Later()


def joined(separator: object, items: Sequence[object]) -> list:
    """The kept texts ``items`` with ``separator`` (itself kept: " or " is a message) between them."""
    out: list = []
    for i, item in enumerate(items):
        if i:
            out.append(separator)
        out.append(item)
    return out


class Wording:
    """Says kept texts in the current language with a game's ``catalog``; ``kinds`` maps a game's own
    kinds to how each is said (``card=card_label``)."""

    def __init__(self, catalog: Catalog, **kinds) -> None:
        self.catalog = catalog
        self.kinds = kinds

    def say(self, kept: object) -> str:
        if isinstance(kept, str):
            return kept
        if isinstance(kept, list):
            return "".join(self.say(x) for x in kept)
        if isinstance(kept, dict):
            if "msg" in kept:
                values = {k: v if isinstance(v, int) else self.say(v) for k, v in (kept.get("values") or {}).items()}
                if "plural" in kept:
                    return self.catalog.ngettext(kept["msg"], kept["plural"], kept["n"], **values)
                return self.catalog.gettext(kept["msg"], **values)
            for kind, say in self.kinds.items():
                if kind in kept:
                    return say(kept[kind])
        if isinstance(kept, int):
            return str(kept)
        raise ValueError(f"not a kept text: {kept!r}")


# ---------------------------------------------------------------- names of cards, cities, exhibits


class Names:
    """The names of a game's components in each language, from a CSV in the
    game's data: ``key,en,ru,bg,it``, then where each name comes from
    (``ru_src,bg_src,it_src``: a rulebook seed, the published edition, our own
    translation, or ``same`` where a language writes it as English does) and a
    ``note``. Only the language columns are read here; the sources are for the
    people who keep the names (tests/engine/test_names.py checks them). An
    empty cell would show the English name."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)

    def table(self) -> dict[str, dict[str, str]]:
        return _names_table(str(self.path))

    def name(self, key: str, english: str | None = None, lang: str | None = None) -> str:
        """``key``'s name in ``lang`` (the current language by default)."""
        row = self.table().get(key)
        if row is None:
            return english if english is not None else key
        lang = normalize(lang or current())
        return row.get(lang) or english or row.get(SOURCE) or key

    def every(self, key: str) -> tuple[str, ...]:
        """All of ``key``'s names, English first, without repeats."""
        row = self.table().get(key) or {}
        seen: list[str] = []
        for lang in LANGUAGES:
            value = row.get(lang)
            if value and value not in seen:
                seen.append(value)
        return tuple(seen)


@lru_cache(maxsize=None)
def _names_table(path: str) -> dict[str, dict[str, str]]:
    p = Path(path)
    if not p.exists():
        return {}
    with p.open(encoding="utf-8", newline="") as f:
        return {row["key"]: {k: (row.get(k) or "").strip() for k in LANGUAGES}
                for row in csv.DictReader(f) if row.get("key")}


# ---------------------------------------------------------------- notation aliases


_TOKEN = re.compile(r"[^\W\d_][\w'’-]*", re.UNICODE)


def _fold(word: str) -> str:
    return word.casefold().replace("ё", "е").replace("’", "'")


class Aliases:
    """The natural words of each language a player may write instead of a
    notation keyword (Russian ``пас`` for ``pass``). ``table`` maps a language
    to ``{alias: canonical}``; an alias may be several words ("по порядку"),
    the canonical text is what the English notation writes there. The first
    alias given for a canonical word is the one examples are shown with.

    Aliases are whole words, case does not matter (nor ``ё``/``е``), and an
    alias must mean one thing only in its game: :meth:`clashes` finds any that
    would not (a test asserts there are none)."""

    def __init__(self, table: Mapping[str, Mapping[str, str]]) -> None:
        self.table = {lang: dict(words) for lang, words in table.items()}
        self._by_lang: dict[str, list[tuple[tuple[str, ...], str]]] = {}
        self._preferred: dict[str, dict[str, str]] = {}
        for lang, words in self.table.items():
            entries = []
            for alias, canonical in words.items():
                entries.append((tuple(_fold(w) for w in alias.split()), canonical))
                self._preferred.setdefault(lang, {}).setdefault(canonical.casefold(), alias)
            entries.sort(key=lambda e: -len(e[0]))  # the longest alias first
            self._by_lang[lang] = entries
        # the aliases by their first word, longest first, per language: a text is read a word at a
        # time, and each word is looked up, never compared with every alias (every stored move is
        # read again each time a record is replayed)
        self._by_first: dict[str, dict[str, list[tuple[tuple[str, ...], str]]]] = {}
        for lang, entries in self._by_lang.items():
            firsts = self._by_first[lang] = {}
            for words, canonical in entries:
                firsts.setdefault(words[0], []).append((words, canonical))
        self._firsts = frozenset(w for firsts in self._by_first.values() for w in firsts)

    def clashes(self) -> list[str]:
        """Aliases that would mean two things (within a language or across two)."""
        meaning: dict[tuple[str, ...], set[str]] = {}
        for lang, entries in self._by_lang.items():
            for words, canonical in entries:
                meaning.setdefault(words, set()).add(canonical.casefold())
        return sorted(" ".join(w) for w, c in meaning.items() if len(c) > 1)

    def words(self) -> frozenset[str]:
        """Every alias's first word (folded): the words a line of moves may start with."""
        return frozenset(words[0] for entries in self._by_lang.values() for words, _c in entries)

    def to_canonical(self, text: str) -> tuple[str, str | None]:
        """``text`` with every alias replaced by its English notation, and the
        language whose aliases it used (None when it used none). A word two
        languages share ("пас") counts for the current language first."""
        tokens = list(_TOKEN.finditer(text))
        if not tokens:
            return text, None
        folded = [_fold(m.group(0)) for m in tokens]
        if self._firsts.isdisjoint(folded):  # the usual case for notation: no alias starts here
            return text, None
        here = current()
        order = sorted(self._by_first.items(), key=lambda kv: kv[0] != here)
        used: dict[str, int] = {}
        out: list[str] = []
        pos = 0
        i = 0
        while i < len(tokens):
            hit = None
            for lang, firsts in order:
                for words, canonical in firsts.get(folded[i], ()):
                    if tuple(folded[i:i + len(words)]) == words:
                        hit = (lang, len(words), canonical)
                        break
                if hit:
                    break
            if hit is None:
                i += 1
                continue
            lang, span, canonical = hit
            out.append(text[pos:tokens[i].start()])
            out.append(canonical)
            pos = tokens[i + span - 1].end()
            used[lang] = used.get(lang, 0) + 1
            i += span
        if not used:
            return text, None
        out.append(text[pos:])
        return "".join(out), max(used, key=lambda k: (used[k], k == here))

    def localize(self, notation: str, lang: str | None) -> str:
        """Canonical ``notation`` written with ``lang``'s aliases, where it has one
        for a word (examples shown in the notation the player used)."""
        preferred = self._preferred.get(normalize(lang)) if lang else None
        if not preferred:
            return notation
        return _TOKEN.sub(lambda m: preferred.get(m.group(0).casefold(), m.group(0)), notation)

    def localize_all(self, examples: Sequence[str], lang: str | None) -> tuple[str, ...]:
        return tuple(self.localize(x, lang) for x in examples)
