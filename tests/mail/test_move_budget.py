"""What a move mail costs the worker in SQL statements: a count, which does not depend on the
machine (its CPU time is the bench's: pbem bench worker). A 4-player Spyrium move mail, processed
as the worker processes it (the replies delivered inline, to the maildir), sends at most 20
statements: the boards of the other seats and the receipt go into the outbox in one INSERT, and
the record is read once for everything the mails say of it."""
import pytest

from pbem.bench.env import make_games
from pbem.bench.pipeline import _letters
from pbem.mail.pipeline import process_inbound
from pbem.tasks import deliver_inline
from tests.conftest import pg_installed
from tests.mailtools import outbox, store_inbound
from tests.statements import counted

BUDGET = 20  # statements per 4-player move mail; pbem/bench/baseline.json keeps the same target


@pytest.fixture
def no_pictures(tmp_path):
    """PostgreSQL, the board pictures off: the budget is the mail's own (a picture's is the bench's)."""
    with pg_installed(tmp_path, mail_pictures=False) as cfg:
        yield cfg


@pytest.mark.postgres
def test_a_four_player_spyrium_move_mail_sends_at_most_twenty_statements(no_pictures):
    gid = make_games("spyrium", 4, 1, first_seed=41)[0]
    letters = _letters([gid], 8, "budget", 3)[0]  # two rounds: every seat moves, every seat is told
    per_mail = []
    for letter in letters:
        iid = store_inbound(letter.raw, letter.rcpt, letter.mail_from)
        with counted() as seen:
            assert process_inbound(iid, deliver=deliver_inline) == "done"
        per_mail.append(seen)
    for seen in per_mail:
        assert len(seen) <= BUDGET, "\n".join(x.split("\n")[0][:100] for x in seen)
        # the receipt and the other seats' boards: one INSERT into the outbox
        assert sum(x.lstrip().upper().startswith("INSERT INTO OUTBOUND") for x in seen) == 1
    sent = [o for o in outbox() if o.game_id == gid]
    assert len([o for o in sent if o.kind == "reply"]) == len(letters)  # every mail answered
    assert all(o.status == "sent" for o in sent)  # and delivered, after the commit
