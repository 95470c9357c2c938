"""Every catalog is complete in every language: no message left
untranslated or fuzzy, no placeholder lost or invented, the plural forms of
each language, every marked message of the code in its catalog, and every
catalog compiles."""
from __future__ import annotations

import re
import subprocess
import sys
from io import BytesIO
from pathlib import Path

import pytest
from babel import Locale
from babel.messages.mofile import write_mo
from babel.messages.plurals import get_plural
from babel.messages.pofile import read_po

from pbem import i18n

ROOT = Path(__file__).resolve().parents[2]
LANGS = [lang for lang in i18n.LANGUAGES if lang != i18n.SOURCE]
DOMAINS = i18n.catalog_dirs()
PLACEHOLDER = re.compile(r"%\((\w+)\)[sdifr]")


def _catalog(domain: str, base: Path, lang: str):
    path = base / lang / "LC_MESSAGES" / f"{domain}.po"
    assert path.exists(), f"{path.relative_to(ROOT)} is missing: scripts/i18n init {lang}"
    with path.open("rb") as f:
        return path, read_po(f, locale=lang)


GETTEXT_NPLURALS = {"it": 2}  # nplurals=2; plural=(n != 1)


def _cases():
    return [pytest.param(d, b, lang, id=f"{d}-{lang}") for d, b in DOMAINS for lang in LANGS]


@pytest.mark.parametrize("domain,base,lang", _cases())
def test_catalog_is_complete(domain, base, lang):
    path, cat = _catalog(domain, base, lang)
    problems = []
    for m in cat:
        if not m.id:
            continue
        ids = m.id if isinstance(m.id, tuple) else (m.id,)
        strings = m.string if isinstance(m.string, tuple) else (m.string,)
        where = f"{path.relative_to(ROOT)}: {ids[0][:70]!r}"
        if m.fuzzy:
            problems.append(f"{where} is fuzzy")
        if any(not s.strip() for s in strings):
            problems.append(f"{where} is not translated")
            continue
        wanted = set(PLACEHOLDER.findall(" ".join(ids)))
        for s in strings:
            found = set(PLACEHOLDER.findall(s))
            if found - wanted:
                problems.append(f"{where} invents {sorted(found - wanted)}")
            # a plural's forms may leave out the count ("одна карта"); a single message keeps every value
            lost = wanted - found - ({"num"} if len(ids) > 1 else set())
            if lost:
                problems.append(f"{where} loses {sorted(lost)}")
        # as many forms as the catalog's own Plural-Forms, which gettext follows at run time (Babel's CLDR
        # rules may add one: Babel 2.19 gives Italian a third form for millions, which no count here reaches)
        if len(ids) > 1 and len(strings) != cat.num_plurals:
            problems.append(f"{where} has {len(strings)} plural forms, its catalog {cat.num_plurals}")
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("domain,base,lang", _cases())
def test_catalog_header_and_compiles(domain, base, lang):
    path, cat = _catalog(domain, base, lang)
    assert str(cat.locale) == lang
    # Babel's CLDR rule for the language, or GNU gettext's own where CLDR has since added a form no count
    # here reaches (Babel 2.19: Italian's millions)
    assert cat.num_plurals in {get_plural(lang).num_plurals, GETTEXT_NPLURALS.get(lang)}, f"{path}: Plural-Forms"
    assert not cat.fuzzy, f"{path}: the header is fuzzy, so gettext would ignore the catalog"
    out = BytesIO()
    write_mo(out, cat)
    assert len(out.getvalue()) > 100


def test_every_marked_message_is_in_its_catalog(tmp_path):
    """What `scripts/i18n extract` would collect now is in the .pot and every .po:
    a new message of the code cannot ship untranslated."""
    pybabel = Path(sys.executable).with_name("pybabel")
    kw = ["-k", "_", "-k", "gettext", "-k", "ngettext:1,2", "-k", "pgettext:1c,2", "-k", "npgettext:1c,2,3",
          "-k", "lazy_gettext", "-k", "lazy_ngettext:1,2", "-k", "N_"]
    sources = {"web": ("babel-web.cfg", ["."]), "mail": ("babel-mail.cfg", ["."]),
               "services": ("babel-services.cfg", ["."]),
               "engine": ("babel-engine.cfg", ["pbem/engine/base.py", "pbem/engine/drawing.py",
                                               "pbem/engine/bots.py", "pbem/engine/i18n.py"])}
    for game in ("spyrium", "squire", "iaww"):
        sources[game] = ("babel-engine.cfg", [f"pbem/engine/{game}"])
    missing = []
    for domain, base in DOMAINS:
        cfg, inputs = sources[domain]
        pot = tmp_path / f"{domain}.pot"
        subprocess.run([str(pybabel), "-q", "extract", "-F", cfg, *kw, "-o", str(pot), *inputs],
                       cwd=ROOT, check=True)
        with pot.open("rb") as f:
            wanted = {m.id for m in read_po(f) if m.id}
        for lang in LANGS:
            _path, cat = _catalog(domain, base, lang)
            have = {m.id for m in cat if m.id}
            missing += [f"{domain}/{lang}: {str(i)[:70]!r}" for i in sorted(wanted - have, key=str)]
    assert not missing, "run scripts/i18n extract and translate:\n" + "\n".join(missing[:40])


def test_languages_have_their_own_names():
    assert set(i18n.NATIVE) == set(i18n.LANGUAGES)
    for code in i18n.LANGUAGES:
        Locale.parse(code)  # Babel knows its plural rules, dates and numbers


def test_a_broken_translation_falls_back_to_english():
    assert i18n.fill("%(oops)s и %(y)s", "%(x)s", {"x": 1}) == "1"  # never a KeyError in a player's mail
    assert i18n.fill("%(oops)s", "%(card)s", {"card": "Mine"}) == "Mine"
