"""Spyrium's words in the players' languages: the ``spyrium`` catalog,
the names of the cards from the rulebooks (data/names.csv) and the notation
aliases a player may write in Russian, Bulgarian or Italian (docs/notation/<lang>/spyrium.md).
Standard library only, like the rest of the engine."""
from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path

from ..i18n import SOURCE, Aliases, Catalog, Names, N_, Wording, current, derived, joined, later  # noqa: F401

CATALOG = Catalog("spyrium", Path(__file__).with_name("locale"))
_ = CATALOG.gettext
ngettext = CATALOG.ngettext
pgettext = CATALOG.pgettext

NAMES = Names(Path(__file__).parent / "data" / "names.csv")


def game_title() -> str:
    """The game's title as its edition in the current language prints it (data/names.csv)."""
    return NAMES.name("title", 'Spyrium')


@lru_cache(maxsize=1024)  # a few hundred card names, asked thousands of times a board
def name_key(english: str) -> str:
    """The names.csv key of a card by its English name: "Workers' Quarters" -> "workers_quarters"."""
    return re.sub(r"[^a-z0-9]+", "_", english.lower().replace("'", "")).strip("_")


def card_name(english: str) -> str:
    """A card's name in the current language (data/names.csv; a card without a row keeps its English)."""
    return NAMES.name(name_key(english), english)


def card_short(english: str) -> str:
    """A card's name where the text board has little room: the language's short form
    (``short:<key>`` in data/names.csv, as "Quarters" is English's) where it has one."""
    return NAMES.name("short:" + name_key(english), card_name(english))


def card_label(label: str) -> str:
    """A label such as "Mine £5" (a name, and the price where the name alone is ambiguous)."""
    return _card_label(label, current())


@derived
@lru_cache(maxsize=2048)  # every board names the market's cards again, in each reader's language
def _card_label(label: str, lang: str) -> str:
    m = re.fullmatch(r"(.*?)( £\d+)?", label)
    return card_name(m.group(1)) + (m.group(2) or "")


# The natural words of each language for the notation's keywords (as the rulebooks name
# the actions: Russian 000/001, Italian 002; Bulgarian from the common game vocabulary),
# and the names of the two techniques the notation names (Lobbying, Commerce). The first
# alias of a canonical word is the one examples are written with.
ALIASES = Aliases({
    "ru": {
        "пас": "pass", "пасую": "pass", "спасовать": "pass",
        "поставить": "place", "выставить": "place", "поставь": "place",
        "событие": "event",
        "заработать": "earn", "заработок": "earn",
        "активировать": "act", "активация": "act", "нанять": "act", "купить": "act",
        "задействовать": "use", "использовать": "use",
        "фаза2": "phase2", "фаза": "phase",
        "лоббирование": "lob",
        "коммерция": "commerce",
        "жетон": "token",
        "новое": "new", "новый": "new", "замена": "replace", "заменить": "replace",
        "вперёд": "adv", "продвинуть": "adv", "очки": "score",
        "рабочий": "worker",
        "деньги": "money", "фунты": "money", "спирий": "spy", "победные очки": "vp",
        "вариант": "option", "участок": "lot", "место": "lot",
    },
    "bg": {
        "пас": "pass", "пасувам": "pass",
        "постави": "place", "поставям": "place",
        "събитие": "event",
        "спечели": "earn", "печеля": "earn",
        "активирай": "act", "активирам": "act", "купи": "act",
        "използвай": "use", "използвам": "use",
        "фаза2": "phase2", "фаза": "phase",
        "лобиране": "lob", "търговия": "commerce",
        "жетон": "token",
        "нов": "new", "ново": "new", "замени": "replace",
        "напред": "adv", "точки": "score",
        "работник": "worker",
        "пари": "money", "спириум": "spy", "пт": "vp", "победни точки": "vp",
        "опция": "option", "парцел": "lot",
    },
    "it": {
        "passo": "pass", "passa": "pass", "passare": "pass",
        "piazza": "place", "piazzare": "place",
        "evento": "event",
        "guadagna": "earn", "guadagnare": "earn",
        "attiva": "act", "attivare": "act", "compra": "act",
        "usa": "use", "usare": "use",
        "fase2": "phase2", "fase": "phase",
        "commercio": "commerce",
        "gettone": "token",
        "nuovo": "new", "sostituisci": "replace",
        "avanza": "adv", "punti": "score",
        "lavoratore": "worker",
        "denaro": "money", "soldi": "money", "pv": "vp", "punti vittoria": "vp",
        "opzione": "option", "lotto": "lot",
    },
})


# how a language shows a notation word where its first alias will not do: Italian calls the resource
# spyrium, an English notation word for spy (so no alias), and writes PV, as Bulgarian writes ПТ,
# in capitals (aliases are read whatever their case)
SHOWN = {"it": {"spy": "spyrium", "pv": "PV"}, "bg": {"пт": "ПТ"}}


def shown(notation: str) -> str:
    """Notation (a decision's answer "money", the move "phase2 event" a decision belongs to) in the
    reader's words: the aliases of their language, which the notation reads back as the same move."""
    lang = current()
    if lang == SOURCE:
        return notation
    own = SHOWN.get(lang, {})
    return " ".join(own.get(w, w) for w in ALIASES.localize(notation, lang).split(" "))


# the texts a view keeps about a pending decision (words.py): {"card": label} is a card's name,
# {"notation": text} a move or an answer in the reader's words
WORDING = Wording(CATALOG, card=lambda label: card_label(label), notation=lambda text: shown(text))
say = WORDING.say


def said(kept, english: str) -> str:
    """A text a view keeps (``kept``) in the reader's words; a view stored before views kept their
    words holds only the ``english``, read back through the catalog (tr_pending)."""
    return say(kept) if kept is not None else tr_pending(english)


def pending_said(pending, part: str) -> str:
    """The pending decision's ``part`` ("ask", "question") of a view, in the reader's words."""
    return said((pending.get("words") or {}).get(part), pending[part])


def choice_said(choice) -> str:
    """A pending decision's choice of a view (its price, or why it is out of reach), in the reader's
    words, without its brackets."""
    return said(choice.get("words"), choice["text"]).removeprefix("(").removesuffix(")")


# ---------------------------------------------------------------- the view's English, shown in a language
# A view holds English only (the stale-board check compares views across languages); the
# boards translate its texts where they show them.


def tr(msgid: str) -> str:
    """A msgid held in a variable (a colour, a kind), translated; extraction skips it."""
    return _(msgid) if msgid else msgid


def tr_summary(text: str) -> str:
    """A card's or event's one-line reminder (data.EFFECT_SUMMARY, N_-marked)."""
    return _(text) if text else text


tr_bonus = tr_summary  # the bonus tile of a seat ("worker tile at 20", N_-marked in game.py)


def tr_card_text(text: str) -> str:
    """A card's full text (data/cards.csv; cardtexts.py marks them)."""
    return _(text) if text else text


BREAKDOWN = {"track": N_("track"), "buildings": N_("buildings"), "total": N_("total")}


def tr_breakdown(key: str) -> str:
    """A score-breakdown key as shown: "track", "buildings" or a technique's name."""
    return _(BREAKDOWN[key]) if key in BREAKDOWN else card_name(key)


# Templates of the texts a view holds about a pending choice (words.py writes them with
# these msgids): tr_pending reads an English text back through them and writes it again
# in the current language, its pieces translated in turn.
TEMPLATES: list[str] = []


def template(msgid: str) -> str:
    """Registers a msgid whose English output tr_pending may have to translate back."""
    if msgid not in TEMPLATES:
        TEMPLATES.append(msgid)
        _compiled.cache_clear()
    return msgid


PLURALS: list[tuple[str, str]] = []


def template_plural(singular: str, plural: str) -> tuple[str, str]:
    """Registers an ngettext pair whose English output tr_pending may have to translate back."""
    if (singular, plural) not in PLURALS:
        PLURALS.append((singular, plural))
    return singular, plural


_PH = re.compile(r"%\((\w+)\)([sd])")


def _regex(msgid: str) -> re.Pattern:
    out, pos, seen = [], 0, set()
    for m in _PH.finditer(msgid):
        out.append(re.escape(msgid[pos:m.start()]))
        if m.group(1) in seen:  # the same value again
            out.append(rf"(?P={m.group(1)})")
        else:
            out.append(rf"(?P<{m.group(1)}>-?\d+)" if m.group(2) == "d" else rf"(?P<{m.group(1)}>.+?)")
        seen.add(m.group(1))
        pos = m.end()
    out.append(re.escape(msgid[pos:]))
    return re.compile("".join(out), re.S)



@lru_cache(maxsize=1)
def _compiled() -> tuple:
    return tuple((msgid, _regex(msgid)) for msgid in TEMPLATES)


def tr_pending(text: str, depth: int = 0) -> str:
    """An English text made of registered templates (the pending question, a choice's
    price), in the current language; any piece it cannot read stays as it is."""
    if not text or current() == SOURCE or depth > 6:
        return text
    if text.startswith("(") and text.endswith(")"):
        return "(" + tr_pending(text[1:-1], depth + 1) + ")"
    for msgid, rx in _compiled():
        m = rx.fullmatch(text)
        if not m:
            continue
        values = {}
        for k, v in m.groupdict().items():
            values[k] = int(v) if re.fullmatch(r"-?\d+", v) and f"%({k})d" in msgid else tr_pending(v, depth + 1)
        return _(msgid, **values)
    for singular, plural in PLURALS:
        for form in (singular, plural):
            m = _regex(form).fullmatch(text)
            if m and "num" in m.groupdict():
                values = {k: int(v) if f"%({k})d" in form else tr_pending(v, depth + 1)
                          for k, v in m.groupdict().items() if k != "num"}
                return ngettext(singular, plural, int(m.group("num")), **values)
    for sep in ("; ", ", ", " or ", " -> ", " + "):  # a list of pieces: each on its own
        if sep in text:
            parts = text.split(sep)
            new = [tr_pending(p, depth + 1) for p in parts]
            if new != parts:
                return (_(" or ") if sep == " or " else sep).join(new)
    plain = _(text)
    if plain != text:
        return plain
    return card_label(text) if re.fullmatch(r"[A-Z][\w' ]+( £\d+)?", text) else text
