"""It's a Wonderful World in the players' languages: the ``iaww``
catalog, the components' names (``data/names.csv``: the Bulgarian names of the
Bulgarian rulebook, English otherwise) and the notation's aliases (the natural
words of each language a player may write instead of a notation keyword)."""
from __future__ import annotations

from pathlib import Path

from ..i18n import Aliases, Catalog, N_, Names, current  # noqa: F401

CATALOG = Catalog("iaww", Path(__file__).with_name("locale"))
_ = CATALOG.gettext
ngettext = CATALOG.ngettext
pgettext = CATALOG.pgettext

NAMES = Names(Path(__file__).parent / "data" / "names.csv")


def game_title() -> str:
    """The game's title as its edition in the current language prints it (data/names.csv)."""
    return NAMES.name("title", "It's a Wonderful World")


def english() -> bool:
    """True when the current language is English (the source: outputs stay byte-identical)."""
    return current() == "en"


# the Bulgarian rulebook's card names (the solo scenarios name 22 cards), written as a player may;
# the rulebook misprints Промишлен комплекс, so both spellings are read
_BG_CARDS = {
    "Полярна база": "polar_base", "Тунелопробивна машина": "mega_drill", "Суперсонар": "super_sonar",
    "Ядрото на земята": "center_of_the_earth", "Фабрика за рециклиране": "recycling_plant",
    "Вятърни турбини": "wind_turbines", "Универсална ваксина": "universal_vaccine",
    "Аквакултури": "aquaculture", "Извънземна технология": "unknown_technology", "Лунна база": "lunar_base",
    "Хиперзвукова ескадрила": "saucer_squadron", "Секретна лаборатория": "secret_laboratory",
    "Изследователски център": "research_center", "Машина на времето": "time_travel",
    "Невронаука": "neuroscience", "Промишлен комплекс": "industrial_complex",
    "Промислен комплекс": "industrial_complex",
    "Подземен град": "underground_city", "Подводен град": "underwater_city",
    "Тайно общество": "secret_society", "Финансов център": "financial_center",
    "Пропаганден център": "propaganda_center", "Национален паметник": "national_monument",
}

# The first alias of a canonical word is the one a refusal's examples are written with.
ALIASES = Aliases({
    "ru": {
        "взять": "pick", "беру": "pick", "выбрать": "pick",
        "строить": "C", "строю": "C", "построить": "C", "стройка": "C",
        "переработать": "R", "переработка": "R", "перерабатываю": "R",
        "сбросить": "discard", "сброс": "discard",
        "достроить": "build", "завершить": "build",
        "обменять": "swap", "обмен": "swap",
        "оставить": "keep", "оставляю": "keep",
        "готово": "done", "конец": "done", "пас": "pass",
        "авто": "auto", "положить": "place",
        "наука": "sci", "кристаллий": "K", "финансист": "F", "генерал": "gen",
        "материалы": "materials", "энергия": "energy", "золото": "gold", "исследования": "exploration",
        "империя": "empire",
    },
    "bg": {
        "избери": "pick", "избирам": "pick",
        "строй": "C", "строеж": "C",
        "рециклирай": "R", "рециклиране": "R",
        "изчисти": "discard", "изчистване": "discard",
        "завърши": "build",
        "размени": "swap", "размяна": "swap",
        "запази": "keep", "запазвам": "keep",
        "готово": "done", "край": "done", "пас": "pass",
        "авто": "auto", "постави": "place",
        "наука": "sci", "кристалий": "K", "финансист": "F", "генерал": "gen",
        "суровини": "materials", "енергия": "energy", "злато": "gold", "експедиции": "exploration",
        "империя": "empire",
        **_BG_CARDS,
    },
    "it": {
        "prendi": "pick", "scegli": "pick",
        "costruisci": "C", "costruire": "C",
        "ricicla": "R", "riciclare": "R",
        "scarta": "discard", "scartare": "discard",
        "completa": "build", "completare": "build",
        "scambia": "swap", "scambiare": "swap",
        "tieni": "keep", "tenere": "keep",
        "fatto": "done", "finito": "done", "passo": "pass",
        "automatico": "auto", "metti": "place",
        "scienza": "sci", "cristallio": "K", "finanziere": "F", "generale": "gen",
        "materiali": "materials", "energia": "energy", "oro": "gold", "esplorazione": "exploration",
        "impero": "empire",
    },
})


def card_name(key: str) -> str:
    """A card's (or an empire's) name in the current language, from its id or instance id."""
    from .data import CARDS, EMPIRE_FACES
    cid = key.split("#")[0]
    if cid in CARDS:
        return NAMES.name(cid, CARDS[cid].name)
    face = EMPIRE_FACES.get((cid, "A"))
    return NAMES.name(cid, face.name if face else cid)


def empire_name(english_name: str) -> str:
    """An empire's name from its English name (views hold the English)."""
    from .data import EMPIRE_FACES
    for (eid, _f), ef in EMPIRE_FACES.items():
        if ef.name == english_name:
            return NAMES.name(eid, english_name)
    return english_name


# the words of the data, translated where shown (the data and the views keep the English)
RES_WORDS = {
    "materials": N_("materials"), "energy": N_("energy"), "science": N_("science"), "gold": N_("gold"),
    "exploration": N_("exploration"), "krystallium": N_("krystallium"), "Krystallium": N_("Krystallium"),
    "financier": N_("financier"), "general": N_("general"),
}
TYPE_WORDS = {
    "structure": N_("structure"), "vehicle": N_("vehicle"), "research": N_("research"),
    "project": N_("project"), "discovery": N_("discovery"),
}


def word(w: str) -> str:
    """A resource, slot kind or card type, translated (English unchanged)."""
    if w in RES_WORDS or w in TYPE_WORDS:
        return _(w)
    return w


def amount(n: int, w: str) -> str:
    """``n`` of a resource or a token, the noun agreeing with the number in the current language
    ("3 материала", "1 materiale", "2 generali"); English as it always wrote it ("3 materials")."""
    if english() or w not in _AMOUNTS:
        return f"{n} {word(w)}"
    return _AMOUNTS[w](n)


# one plural message per resource and token: Russian has three forms after a number, Bulgarian
# and Italian two (the English keeps its one word, as the rulebook writes "2 energy")
_AMOUNTS = {
    "materials": lambda n: ngettext("%(num)d materials", "%(num)d materials", n),
    "energy": lambda n: ngettext("%(num)d energy", "%(num)d energy", n),
    "science": lambda n: ngettext("%(num)d science", "%(num)d science", n),
    "gold": lambda n: ngettext("%(num)d gold", "%(num)d gold", n),
    "exploration": lambda n: ngettext("%(num)d exploration", "%(num)d exploration", n),
    "krystallium": lambda n: ngettext("%(num)d krystallium", "%(num)d krystallium", n),
    "Krystallium": lambda n: ngettext("%(num)d krystallium", "%(num)d krystallium", n),
    "financier": lambda n: ngettext("%(num)d financier", "%(num)d financiers", n),
    "general": lambda n: ngettext("%(num)d general", "%(num)d generals", n),
}


def res_of(w: str) -> str:
    """A resource as it qualifies a cube ("1 %(res)s cube"): "energy" in English,
    the form the sentence needs in the other languages."""
    return pgettext("cube of", w)


if False:  # the contexts, for the extractor
    pgettext("cube of", "materials"); pgettext("cube of", "energy"); pgettext("cube of", "science")  # noqa: E702
    pgettext("cube of", "gold"); pgettext("cube of", "exploration"); pgettext("cube of", "krystallium")  # noqa: E702
    pgettext("cube of", "Krystallium"); pgettext("cube of", "financier"); pgettext("cube of", "general")  # noqa: E702
