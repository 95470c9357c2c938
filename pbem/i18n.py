"""The players' languages for everything above the engines: Babel.

Three gettext domains, ``web`` (the site), ``mail`` (reading and answering
mail, the outbox) and ``services`` (``pbem/locale/<lang>/LC_MESSAGES/<domain>.po``),
read as one translation at run time; each engine has its own
(:mod:`pbem.engine.i18n`). English is the source. The language is a context
variable shared with the engines: ``with use(user.language):`` around building a
mail or answering a request makes every ``_()`` below and in the engines speak
it. Flask-Babel chooses the language of a web request (``pbem.web``) and sets
the same variable.

Conventions (the same in Python, the engines and the templates):

* named placeholders, ``%(name)s``: ``_("Game #%(id)d started", id=g.id)``;
* plurals with ``ngettext(singular, plural, n)`` (``%(num)d`` is ``n``), since
  Russian and Bulgarian have more than one plural form;
* module-level text as :func:`lazy_gettext` (a Babel lazy string, translated
  when shown) or marked with ``N_`` and translated where it is shown;
* dates, times and numbers through :func:`format_datetime`,
  :func:`format_date`, :func:`format_number`: in the language and the
  viewer's time zone.

The catalogs are compiled by ``pbem i18n compile`` (the install scripts run
it); a process that finds a ``.po`` newer than its ``.mo`` compiles it when it
starts (:func:`ensure_compiled`), so a checkout never speaks stale words.
"""
from __future__ import annotations

import logging
import os
import tempfile
from contextlib import contextmanager
from datetime import date, datetime, timezone
from functools import lru_cache
from pathlib import Path
from typing import Iterable, Iterator
from zoneinfo import ZoneInfo

from babel import Locale, dates, numbers
from babel.support import LazyProxy, NullTranslations, Translations

from pbem.engine import i18n as engine_i18n
from pbem.engine.i18n import LANGUAGES, NATIVE, N_, SOURCE, current, fill, normalize, supported  # noqa: F401

log = logging.getLogger(__name__)

PACKAGE = Path(__file__).resolve().parent
LOCALE_DIR = PACKAGE / "locale"
DOMAINS = ("web", "mail", "services")


def catalog_dirs() -> list[tuple[str, Path]]:
    """Every (domain, locale directory) pbem has: the three above the engines and each engine's."""
    out = [(d, LOCALE_DIR) for d in DOMAINS] + [("engine", PACKAGE / "engine" / "locale")]
    for game in ("spyrium", "squire", "iaww"):
        out.append((game, PACKAGE / "engine" / game / "locale"))
    return out


# ---------------------------------------------------------------- the current language


@contextmanager
def use(code: str | None) -> Iterator[str]:
    """Speak ``code`` (here and in the engines) inside the block."""
    with engine_i18n.language(code) as lang:
        yield lang


@lru_cache(maxsize=None)
def translations(lang: str) -> NullTranslations:
    lang = normalize(lang)
    if lang == SOURCE:
        return NullTranslations()
    merged = NullTranslations()
    for domain in DOMAINS:
        one = Translations.load(str(LOCALE_DIR), [lang], domain)
        if isinstance(one, Translations):
            if isinstance(merged, Translations):
                merged.merge(one)
            else:
                merged = one
    return merged


def gettext(message: str, /, **values) -> str:
    return fill(translations(current()).ugettext(message), message, values)


_ = gettext


def ngettext(singular: str, plural: str, n: int, /, **values) -> str:
    values.setdefault("num", n)
    return fill(translations(current()).ungettext(singular, plural, n), singular if n == 1 else plural, values)


def pgettext(context: str, message: str, /, **values) -> str:
    return fill(translations(current()).upgettext(context, message), message, values)


def npgettext(context: str, singular: str, plural: str, n: int, /, **values) -> str:
    values.setdefault("num", n)
    return fill(translations(current()).unpgettext(context, singular, plural, n),
                 singular if n == 1 else plural, values)


def lazy_gettext(message: str, /, **values) -> LazyProxy:
    """``message`` translated each time it is shown, in the language of that moment."""
    return LazyProxy(gettext, message, enable_cache=False, **values)


def lazy_ngettext(singular: str, plural: str, n: int, /, **values) -> LazyProxy:
    return LazyProxy(ngettext, singular, plural, n, enable_cache=False, **values)


def install(env) -> None:
    """Give a Jinja2 environment ``{% trans %}``, ``_()``, ``gettext`` and
    ``ngettext`` that speak the current language (newstyle: ``%(x)s`` filled
    by keyword, autoescaped)."""
    if "jinja2.ext.InternationalizationExtension" not in env.extensions:
        env.add_extension("jinja2.ext.i18n")
    # newstyle: Jinja fills the placeholders itself (with every variable of a {% trans %} block, and
    # ``num`` for a plural), so these only look the text up
    env.install_gettext_callables(
        lambda s: translations(current()).ugettext(s),
        lambda s, p, n: translations(current()).ungettext(s, p, n),
        newstyle=True, pgettext=lambda c, s: translations(current()).upgettext(c, s),
        npgettext=lambda c, s, p, n: translations(current()).unpgettext(c, s, p, n))
    from pbem.engine import choice_text, option_label, option_text, options_in_words

    env.globals.update(format_datetime=format_datetime, format_date=format_date,
                       format_number=format_number, language=current, option_text=option_text,
                       option_label=option_label, choice_text=choice_text, options_in_words=options_in_words)


# ---------------------------------------------------------------- dates, times, numbers


def zone(tz: str | None) -> ZoneInfo:
    """The time zone named ``tz``; UTC for none or an unknown name."""
    try:
        return ZoneInfo(tz or "UTC")
    except Exception:  # an unknown zone name: UTC, never a failed mail
        return ZoneInfo("UTC")


def locale() -> Locale:
    return Locale.parse(current())


def format_datetime(value: datetime | None, tz: str | None = None, format: str = "medium") -> str:
    """``value`` (UTC when naive) in the viewer's zone ``tz``, written the
    current language's way, with the zone's name: "25 нояб. 2026 г., 14:05 MSK"."""
    if value is None:
        return ""
    if value.tzinfo is None:
        value = value.replace(tzinfo=timezone.utc)
    tzinfo = zone(tz)
    text = dates.format_datetime(value, format=format, tzinfo=tzinfo, locale=locale())
    abbr = value.astimezone(tzinfo).tzname() or ""
    return f"{text} {abbr}".strip()


def format_date(value: date | datetime | None, tz: str | None = None, format: str = "medium") -> str:
    if value is None:
        return ""
    if isinstance(value, datetime):
        if value.tzinfo is None:
            value = value.replace(tzinfo=timezone.utc)
        value = value.astimezone(zone(tz)).date()
    return dates.format_date(value, format=format, locale=locale())


def format_number(value: float | int, decimals: int | None = None) -> str:
    """``value`` as the reader's language writes a number; ``decimals``: always that many (an estimate
    of 1.0 points reads "1.0 points", never "1 points")."""
    if decimals is None:
        return numbers.format_decimal(value, locale=locale())
    return numbers.format_decimal(round(value, decimals), format="#,##0." + "0" * decimals, locale=locale())


def language_name(code: str) -> str:
    """A language's own name ("Русский"), whatever language is spoken now."""
    return NATIVE.get(normalize(code), NATIVE[SOURCE])


# ---------------------------------------------------------------- choosing a language


_CYRILLIC_CHARSETS = {"koi8-r": "ru", "koi8-u": "ru", "windows-1251": "ru", "cp1251": "ru", "iso-8859-5": "ru",
                      "x-mac-cyrillic": "ru", "ibm866": "ru", "cp866": "ru"}


def from_accept_language(header: str | None) -> str | None:
    """The best supported language of an HTTP ``Accept-Language`` header, or None."""
    if not header:
        return None
    ranked: list[tuple[float, int, str]] = []
    for i, part in enumerate(header.split(",")):
        bits = part.strip().split(";")
        tag = bits[0].strip()
        q = 1.0
        for b in bits[1:]:
            b = b.strip()
            if b.startswith("q="):
                try:
                    q = float(b[2:])
                except ValueError:
                    q = 0.0
        if tag and tag != "*" and q > 0 and supported(tag):
            ranked.append((-q, i, normalize(tag)))
    return min(ranked)[2] if ranked else None


def from_mail(content_language: str | None, charsets: Iterable[str | None] = (),
              text: str | None = None) -> str | None:
    """A first mail's language: its ``Content-Language`` (or
    ``Accept-Language``) when supported, else what its charset says (the
    Cyrillic charsets of Russian mail clients), else None."""
    found = from_accept_language(content_language)
    if found:
        return found
    for cs in charsets:
        if cs and cs.lower() in _CYRILLIC_CHARSETS:
            return _CYRILLIC_CHARSETS[cs.lower()]
    return None


# ---------------------------------------------------------------- compiling the catalogs


def _targets() -> Iterator[tuple[Path, Path, str]]:
    for domain, base in catalog_dirs():
        if not base.exists():
            continue
        for po in sorted(base.glob(f"*/LC_MESSAGES/{domain}.po")):
            yield po, po.with_suffix(".mo"), po.parent.parent.name


def compile_catalogs(force: bool = False) -> list[Path]:
    """Compile every ``.po`` whose ``.mo`` is missing or older; returns the
    ``.mo`` files written. Written atomically (a temporary file then a rename),
    so processes starting together never read half a catalog."""
    from babel.messages.mofile import write_mo
    from babel.messages.pofile import read_po

    written = []
    for po, mo, lang in _targets():
        if not force and mo.exists() and mo.stat().st_mtime >= po.stat().st_mtime:
            continue
        with po.open("rb") as f:
            catalog = read_po(f, locale=lang)
        fd, tmp = tempfile.mkstemp(dir=str(mo.parent), prefix=".mo-", suffix=".tmp")
        try:
            with os.fdopen(fd, "wb") as out:
                write_mo(out, catalog, use_fuzzy=False)
            # mkstemp makes it 0600: whoever compiles (root, at an install) is not who serves the pages
            os.chmod(tmp, 0o644)
            os.replace(tmp, mo)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
        written.append(mo)
    if written:
        reload()
    return written


def ensure_compiled() -> None:
    """Compile stale catalogs; a read-only install that cannot only logs it."""
    try:
        compile_catalogs()
    except OSError as e:  # a read-only site-packages: the install compiled them (or English it is)
        log.warning("could not compile the translation catalogs: %s", e)


def reload() -> None:
    translations.cache_clear()
    engine_i18n.reload()

