"""The secret key in production: with a PostgreSQL database the
web site (and a worker, and the receiver) refuse to start without
PBEM_SECRET_KEY, saying so, since a key made per machine breaks sessions,
CSRF tokens and signed links across machines; the embedded default still
makes its own key and starts."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from pbem.config import load_settings
from pbem.web import create_app
from tests.conftest import PG_ADMIN

ROOT = Path(__file__).resolve().parents[2]


def _run(code: str, env: dict, tmp_path: Path) -> subprocess.CompletedProcess:
    """A fresh process on exactly these PBEM_* settings (none from the test run)."""
    clean = {k: v for k, v in os.environ.items() if not k.startswith("PBEM_")}
    clean.update(PBEM_VAR_DIR=str(tmp_path / "var"), **env)
    return subprocess.run([sys.executable, "-c", code], cwd=str(ROOT), env=clean, capture_output=True, text=True,
                          timeout=120)


@pytest.mark.parametrize("key", [None, "change-me"])
def test_the_site_refuses_to_start_on_postgresql_without_a_secret_key(tmp_path, key):
    env = {"PBEM_VAR_DIR": str(tmp_path / "var"), "PBEM_DATABASE_URL": PG_ADMIN}
    if key:
        env["PBEM_SECRET_KEY"] = key
    with pytest.raises(RuntimeError, match="PBEM_SECRET_KEY is (not set|still 'change-me').*PostgreSQL"):
        create_app(load_settings(env))


def test_the_site_starts_on_postgresql_with_its_secret_key(tmp_path):
    app = create_app(load_settings({"PBEM_VAR_DIR": str(tmp_path / "var"), "PBEM_DATABASE_URL": PG_ADMIN,
                                    "PBEM_SECRET_KEY": "one-key-for-every-machine"}))
    assert app.config["SECRET_KEY"] == "one-key-for-every-machine"


def test_gunicorns_app_factory_and_a_worker_say_which_setting_is_missing(tmp_path):
    """What gunicorn runs ('pbem.web:create_app()') and a worker (`celery -A worker`), in processes of their
    own with production settings and no key: they stop, naming the setting."""
    env = {"PBEM_DATABASE_URL": PG_ADMIN, "PBEM_BROKER_URL": "redis://127.0.0.1:6379/0"}
    for code in ("from pbem.web import create_app; create_app()", "import worker"):
        res = _run(code, env, tmp_path)
        assert res.returncode != 0 and "PBEM_SECRET_KEY is not set" in res.stderr, (code, res.stderr[-2000:])


def test_the_embedded_default_makes_its_own_key_and_starts(tmp_path):
    res = _run("from pbem.web import create_app; app = create_app(); print(len(app.config['SECRET_KEY']))", {},
               tmp_path)
    assert res.returncode == 0, res.stderr[-2000:]
    assert int(res.stdout.strip()) >= 32
    assert (tmp_path / "var" / "secret_key").read_text().strip()
