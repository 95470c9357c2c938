"""What pbem's mails say: no unfilled template placeholder in any of them,
and a game that is over (finished or cancelled) is not worded as if a move
were still expected."""
import re

from tests.mailtools import CMD, outbox, process

PLACEHOLDER = re.compile(r"\{[A-Za-z_][A-Za-z0-9_]*\}")  # str.format's {addr}, {games}, ...


def placeholders(rows) -> list[str]:
    """'<subject>: {name}' for every unfilled placeholder in the mails."""
    out = []
    for o in rows:
        for part in (o.subject, o.body_text, o.body_html or "", *(o.headers or {}).values()):
            out += [f"{o.subject}: {m}" for m in PLACEHOLDER.findall(part)]
    return out


def test_the_help_for_a_mail_without_commands_is_filled_in(sqlite_cfg):
    process("ann@x.test", CMD, "REGISTER Ann")
    process("ann@x.test", CMD, "\n\n> REGISTER Ann\n> quoted only\n")
    reply = outbox("ann@x.test")[-1]
    assert "no commands or moves" in reply.body_text
    assert "Commands (one per line, to pbem@pbem.test)" in reply.body_text
    assert "create a game (" in reply.body_text and "spyrium" in reply.body_text
    assert placeholders([reply]) == []
