"""Squire's words in the players' languages: the ``squire`` catalog,
the component names of the seeds (data/names.csv) and the notation aliases.

Standard library only. The notation itself stays English: the aliases are the
words a player *may* write, replaced by their English notation before parsing.
"""
from __future__ import annotations

from pathlib import Path

from ..i18n import SOURCE, Aliases, Catalog, N_, Names, current, player  # noqa: F401

CATALOG = Catalog("squire", Path(__file__).with_name("locale"))
_ = CATALOG.gettext
ngettext = CATALOG.ngettext
pgettext = CATALOG.pgettext

NAMES = Names(Path(__file__).parent / "data" / "names.csv")


def name(key: str, english: str) -> str:
    """``english`` (a city, exhibit type, character or board side as the data names it) in the
    current language, from data/names.csv; exactly ``english`` when speaking English."""
    if current() == SOURCE:
        return english
    return NAMES.name(key, english)


def city(cid: str, english: str) -> str:
    return name("city:" + cid, english)


def type_name(tid: str, english: str) -> str:
    return name("type:" + tid, english)


def character(english: str) -> str:
    return name("character:" + english.lower().replace(" ", "_"), english)


def side(sid: str, english: str) -> str:
    return name("side:" + sid, english)


def board(bid: str) -> str:
    """A player board in prose ("the fox board"): English writes its id, the notation's word for it;
    another language its name (data/names.csv), which the notation is not."""
    return name("board:" + bid, bid)


# The words of each language a player may write for the notation's: the actions as the
# rulebooks name them, and the component names the seeds give (Russian rulebook, seed 003).
ALIASES = Aliases({
    "ru": {
        # verbs (the five actions of a turn: перемещение, покупка или продажа, размещение, выставка)
        "планшет": "board", "старт": "start", "поставить": "start", "перемещение": "move", "идти": "move",
        "иду": "move", "купить": "buy", "покупка": "buy", "куплю": "buy", "продать": "sell",
        "продажа": "sell", "продаю": "sell", "предложения": "offers", "предложение": "offers",
        "ячейка": "cell", "клетка": "cell", "взять": "take", "беру": "take", "выставка": "exhibit",
        "выставить": "exhibit", "принять": "accept", "принимаю": "accept", "обмен": "swap",
        "обменять": "swap", "нет": "none", "ничего": "none", "на": "for", "всегда": "always",
        "оплата": "pay", "королевский": "royal", "королевских": "royal", "обычный": "regular",
        "обычных": "regular", "бесплатно": "free",
        # exhibit types (seed 003: картины, керамика, скульптуры, редкие книги)
        "картина": "painting", "картины": "painting", "картин": "painting", "керамика": "ceramics",
        "керамику": "ceramics", "керамики": "ceramics", "скульптура": "sculpture", "скульптуры": "sculpture",
        "скульптур": "sculpture", "редкая книга": "rare_book", "редкие книги": "rare_book",
        "редких книг": "rare_book",
        # components the seed names: cities of the world side and two characters
        "токио": "tokyo", "самарканд": "samarkand", "рио де жанейро": "rio_de_janeiro",
        "сэр лис": "sir fox", "лис": "fox", "сэр барсук": "sir badger", "барсук": "badger",
    },
    "bg": {
        "табло": "board", "старт": "start", "постави": "start", "премести": "move", "ход": "move",
        "отиди": "move", "купи": "buy", "купувам": "buy", "продай": "sell", "продавам": "sell",
        "оферти": "offers", "оферта": "offers", "клетка": "cell", "вземи": "take", "взимам": "take",
        "изложба": "exhibit", "излагам": "exhibit", "приеми": "accept", "приемам": "accept",
        "размени": "swap", "размяна": "swap", "няма": "none", "нищо": "none", "срещу": "for",
        "винаги": "always", "плати": "pay", "кралски": "royal", "обикновени": "regular",
        "безплатни": "free",
        "картина": "painting", "картини": "painting", "керамика": "ceramics", "скулптура": "sculpture",
        "скулптури": "sculpture", "рядка книга": "rare_book", "редки книги": "rare_book",
        "бижута": "jewellery", "бижу": "jewellery",
    },
    "it": {
        "plancia": "board", "inizia": "start", "piazza": "start", "muovi": "move", "vai": "move",
        "compra": "buy", "compro": "buy", "vendi": "sell", "vendo": "sell", "offerte": "offers",
        "offerta": "offers", "cella": "cell", "prendi": "take", "prendo": "take", "esponi": "exhibit",
        "mostra": "exhibit", "accetta": "accept", "accetto": "accept", "scambia": "swap",
        "scambio": "swap", "nessuna": "none", "nessuno": "none", "niente": "none", "per": "for",
        "sempre": "always", "paga": "pay", "reali": "royal", "reale": "royal", "normali": "regular",
        "gratis": "free",
        "dipinto": "painting", "dipinti": "painting", "ceramica": "ceramics", "ceramiche": "ceramics",
        "scultura": "sculpture", "sculture": "sculpture", "libro raro": "rare_book", "libri rari": "rare_book",
        "gioielli": "jewellery", "gioiello": "jewellery",
    },
})
