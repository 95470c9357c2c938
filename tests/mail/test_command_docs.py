"""The mail commands are declared once (pbem/mail/commands): the command
reference in docs/commands.md is written from the declarations, HELP shows
every declared usage, and what the gate reads comes from them."""
from __future__ import annotations

import re

import pytest

from pbem import i18n
from pbem.mail import commands
from pbem.mail.commands import docs
from pbem.mail.commands.base import Where


def test_the_reference_is_the_declarations():
    assert docs.REFERENCE.read_text(encoding="utf-8") == docs.reference(), \
        "docs/commands.md is out of date: run pbem docs commands"


def test_every_command_is_declared_once_and_described():
    names = [n for c in commands.COMMANDS for n in c.names]
    assert len(names) == len(set(names))
    for c in commands.COMMANDS:
        assert c.doc and (c.usage or c.syntax), c.name
        assert c.process is commands.HANDLERS[c.name]


def test_the_tables_come_from_the_declarations():
    assert set(commands.ACCOUNT_COMMANDS) == set(commands.HANDLERS)
    assert set(commands.GAME_ONLY) <= set(commands.SEAT_COMMANDS)
    assert {"RESIGN", "NEWADDRESS"} == set(commands.DESTRUCTIVE)
    assert {"MASTER", "DEADLINE", "PAUSE", "RESUME", "EJECT", "POLICY", "ABORT"} == set(commands.MASTER_COMMANDS)
    for name in commands.ACCOUNT_COMMANDS:
        assert commands.COMMAND_RE.match(f"{name} 12").group(1) == name
    assert commands.BY_NAME["REPLACE"].holds(commands.split_lines("REPLACE 12 3 VOTE")[0])
    assert not commands.BY_NAME["REPLACE"].holds(commands.split_lines("REPLACE 12 3")[0])
    assert all(commands.BY_NAME[n].where is Where.GAME for n in ("SAY", "NEXT", "IF", "UNDO", "DISPUTE", "LIST"))


@pytest.mark.parametrize("lang", i18n.LANGUAGES)
def test_help_shows_every_usage_in_the_readers_language(sqlite_cfg, lang):
    with i18n.use(lang):
        text = commands.help_text()
        for c in commands.COMMANDS:
            for u in c.usage:
                assert "  " + i18n.gettext(u.syntax).split("\n")[0] in text, (lang, u.syntax)
    assert "issue" not in text and not re.search(r"%\(\w+\)", text)
