"""Structured logs: a real worker with PBEM_LOG_FORMAT=json writes
one JSON object a line, and every line of one mail's processing carries the
mail's inbound id, and its game id once the pipeline knows it."""
from __future__ import annotations

import io
import json
import logging
import os
import subprocess
import sys
from pathlib import Path

from sqlmodel import select

from pbem import logs
from pbem.config import load_settings
from pbem.store.db import unit_of_work
from pbem.store.models import Game, Inbound, Move
from tests.conftest import send_mail, smtp_receiver
from tests.mailtools import PATIENCE, ann_and_bob, mail, wait_for

ROOT = Path(__file__).resolve().parents[2]


def _worker(cfg, stderr):
    env = dict(os.environ, **cfg.with_(log_format="json").to_env())
    # the tests run as root here: Celery warns of it before any logging is set up (a raw line)
    env["PYTHONWARNINGS"] = "ignore:You're running the worker with superuser privileges"
    return subprocess.Popen([sys.executable, "-m", "celery", "-A", "tests.worker_app", "worker", "--pool=threads",
                             "--concurrency=1", "--loglevel=INFO", "--without-gossip", "--without-mingle"],
                            cwd=str(ROOT), env=env, stdout=subprocess.DEVNULL, stderr=stderr)


def test_every_line_of_a_mails_processing_says_which_mail_and_game(sqlite_cfg, tmp_path):
    cfg = sqlite_cfg
    gid, seat_address = ann_and_bob()
    with unit_of_work() as s:
        assert s.get(Game, gid).status == "running"
    err = tmp_path / "worker.log"
    with open(err, "wb") as f, smtp_receiver(cfg):
        proc = _worker(cfg, f)
        try:
            assert send_mail(cfg, mail("ann@x.test", seat_address, "wait"), "ann@x.test", seat_address) == 250
            wait_for(lambda: _one(select(Move.id)), timeout=PATIENCE)
            iid = wait_for(lambda: _one(select(Inbound.id).where(Inbound.status == "done")), timeout=PATIENCE)
            wait_for(lambda: "succeeded" in err.read_text(), timeout=PATIENCE)
        finally:
            proc.terminate()
            proc.wait(30)
    lines = [json.loads(line) for line in err.read_text().splitlines() if line.strip()]  # each one JSON
    assert lines and all(line["service"] == "worker" and "time" in line and "level" in line for line in lines)
    processing = [line for line in lines if line.get("inbound_id") == iid]
    loggers = {line["logger"] for line in processing}
    assert {"pbem.pipeline", "celery.app.trace"} <= loggers, processing
    # the lines of the task that processed it (Celery's own, the pipeline's): none without the mail's id
    for line in lines:
        if line["logger"].startswith("pbem.") or line["logger"] == "celery.app.trace":
            assert line.get("inbound_id") == iid, line
    # the game's id from the moment the pipeline knew it: the pipeline's result line has it
    done = [line for line in processing if line["logger"] == "pbem.pipeline"]
    assert done and all(line["game_id"] == gid for line in done), done
    assert any(f"inbound {iid}: done (1 move(s) applied" in line["message"] for line in done), done


def _one(q):
    with unit_of_work() as s:
        return s.exec(q).first()


def test_text_lines_carry_the_context_at_their_end_and_it_ends_with_the_mail():
    buf = io.StringIO()
    handler = logs.configure("receiver", load_settings({"PBEM_LOG_FORMAT": "text", "PBEM_SECRET_KEY": "x"}),
                             stream=buf)
    try:
        log = logging.getLogger("pbem.test")
        with logs.context(inbound_id=7):
            log.warning("one")
            logs.bind(game_id=3)
            log.warning("two")
        log.warning("three")
    finally:
        logging.getLogger().removeHandler(handler)
    one, two, three = buf.getvalue().splitlines()
    assert one.endswith("pbem.test WARNING one [inbound_id=7]")
    assert two.endswith("pbem.test WARNING two [inbound_id=7 game_id=3]")
    assert three.endswith("pbem.test WARNING three")


def test_the_receivers_conversation_is_debug(sqlite_cfg, caplog):
    """aiosmtpd writes ten lines a mail at INFO: pbem shows them only at DEBUG, tokens hidden."""
    import logging

    from tests.conftest import send_mail, smtp_receiver
    from tests.mailtools import CMD, mail

    caplog.set_level(logging.INFO)
    with smtp_receiver(sqlite_cfg):
        assert send_mail(sqlite_cfg, mail("ann@x.test", CMD, "HELP"), "ann@x.test", CMD) == 250
        assert not [r for r in caplog.records if r.name == "mail.log" and r.levelno < logging.WARNING]
        caplog.set_level(logging.DEBUG)
        assert send_mail(sqlite_cfg, mail("ann@x.test", CMD, "HELP"), "ann@x.test", CMD) == 250
    lines = [r for r in caplog.records if r.name == "mail.log"]
    assert lines and {r.levelname for r in lines} == {"DEBUG"}
    assert any("ann@x.test" in r.getMessage() for r in lines)
