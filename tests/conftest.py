"""Fixtures: a fresh configuration and database per test (SQLite file, or a
fresh PostgreSQL database), a real Celery worker on a real broker, a real
SMTP receiver on loopback. The minimal test game is registered here only.

Each test's database is a copy of one this process migrated once (a file copy
for SQLite, ``CREATE DATABASE … TEMPLATE`` for PostgreSQL): running the
migrations for every test was the larger part of most tests' time."""
from __future__ import annotations

import os
import shutil
import smtplib
import tempfile
import uuid
from contextlib import contextmanager
from pathlib import Path

import pytest
from hypothesis import settings as hypothesis_settings
from sqlalchemy.engine import make_url

from pbem import config, i18n
from pbem.bench.env import free_port  # noqa: F401 - the tests' helper too
from pbem.engine import register_game
from tests import dnsserver
from tests.minigame import MINI
from tests.processes import end_process

PG_ADMIN = os.environ.get("PBEM_TEST_PG", "postgresql+psycopg://root@127.0.0.1:5432/test")
REDIS_BASE = os.environ.get("PBEM_TEST_REDIS", "redis://127.0.0.1:6379")

register_game(MINI)
i18n.ensure_compiled()  # the catalogs of a fresh checkout (scripts/test compiles them too)

# No Hypothesis deadline for any test, whichever run first (tests/reliability/conftest.py then loads
# its budgets, deadline-free too): how long an example takes says nothing of its correctness, and a
# busy machine made tests fail on Hypothesis' 200 ms.
hypothesis_settings.register_profile("no-deadline", deadline=None)
hypothesis_settings.load_profile("no-deadline")


def _roomy_tmpfs(path: str = "/dev/shm", room: int = 4 << 30) -> bool:
    """Whether ``path`` is a tmpfs we may write with ``room`` bytes free (a container's is often 64 MB)."""
    try:
        st = os.statvfs(path)
    except OSError:
        return False
    return os.access(path, os.W_OK | os.X_OK) and st.f_bavail * st.f_frsize >= room


# Temporary files (tmp_path, the databases in them, the processes' own) in memory where the machine
# has a roomy tmpfs: SQLite syncs the disk at every commit, and on a busy disk that was the tests' time.
# (pyproject.toml keeps only the failed tests' folders, so a run leaves little there.)
if "TMPDIR" not in os.environ and _roomy_tmpfs():
    os.environ["TMPDIR"] = "/dev/shm"
    tempfile.tempdir = None  # computed again from TMPDIR


# The width of the board pictures in the tests' mails: the width the mail shows the picture at (340 px,
# one pixel a unit), where the product's default renders twice that for a phone's screen. The mails are
# the same but for the PNG's pixels (the HTML names the same picture at the same shown width); a quarter
# of the pixels, and no second rendering to keep the PNG within the mail's byte budget, is a fraction of
# the CPU of a mail, and the pictures were a tenth of the whole suite's. The pictures themselves are
# tested at the product's width (MAILED_PICTURE_WIDTH): a module marked ``mailed_pictures`` gets it from
# ``sqlite_cfg`` (tests/mail/test_pictures.py, test_phone_mail.py, tests/e2e/test_picture_replies.py).
READING_PICTURE_WIDTH = 340
MAILED_PICTURE_WIDTH = config.Settings.picture_width


def make_settings(tmp: Path, **over) -> config.Settings:
    env = {
        "PBEM_VAR_DIR": str(tmp / "var"),
        "PBEM_DOMAIN": "pbem.test",
        "PBEM_SECRET_KEY": "test-secret",
        "PBEM_SMTPD_PORT": str(free_port()),
        "PBEM_WEB_PORT": str(free_port()),
        "PBEM_DNS": dnsserver.address(),  # pbem checks DKIM and SPF against a real DNS server on loopback
        "PBEM_PICTURE_WIDTH": str(READING_PICTURE_WIDTH),
    }
    cfg = config.load_settings(env)
    return cfg.with_(**over) if over else cfg


_migrated: dict[str, str] = {}  # "sqlite": the migrated file, "postgres": the template database's name
_migrated_dirs: list[Path] = []


def _migrate_once(kind: str) -> str:
    """This process's migrated database of ``kind``, made the first time it is asked for."""
    if kind in _migrated:
        return _migrated[kind]
    from pbem.store import db

    before = config._override
    tmp = Path(tempfile.mkdtemp(prefix="pbem-migrated-"))
    _migrated_dirs.append(tmp)
    if kind == "sqlite":
        cfg = make_settings(tmp)
    else:
        cfg = make_settings(tmp, database_url=_pg_database(f"pbem_tpl_{os.getpid()}_{uuid.uuid4().hex[:8]}")[2])
    try:
        config.set_settings(cfg)
        db.dispose_engines()
        db.upgrade()
    finally:
        db.dispose_engines()  # no connection may stay open on a template database
        config.set_settings(before)
    if kind == "sqlite":
        import sqlite3

        path = make_url(cfg.database_url).database
        conn = sqlite3.connect(path)
        try:  # one file to copy: the write-ahead log folded in (each copy's first connection turns WAL on again)
            conn.execute("PRAGMA journal_mode=DELETE")
        finally:
            conn.close()
        _migrated[kind] = path
    else:
        _migrated[kind] = make_url(cfg.database_url).database
    return _migrated[kind]


def _copy_migrated_sqlite(cfg: config.Settings) -> bool:
    """Give ``cfg`` its SQLite database as a copy of the migrated one, when it has none yet."""
    url = make_url(cfg.database_url)
    if url.get_backend_name() != "sqlite" or not url.database or url.database == ":memory:":
        return False
    path = Path(url.database)
    if path.exists() or Path(f"{path}-wal").exists():
        return False
    path.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(_migrate_once("sqlite"), path)
    return True


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config, items):
    """The test files with the most work first (tests/durations.py), each file's tests in their own
    order: scripts/test gives each worker a whole file at a time (``--dist loadfile``, so a fixture
    made once for a module is made once), and the run ends with quick files that keep every worker
    busy, not with a long file while the other worker waits."""
    from tests.durations import key, load, module_key

    known = load()
    files: dict[str, list] = {}
    for item in items:
        files.setdefault(item.nodeid.split("::")[0], []).append(item)
    weight = {f: known.get(module_key(f), 0.0) + sum(known.get(key(i.nodeid), 0.0) for i in tests)
              for f, tests in files.items()}
    items[:] = [i for f in sorted(files, key=lambda f: -weight[f]) for i in files[f]]  # stable: ties keep their order


def pytest_sessionfinish(session):
    """This process's Chromium and migrated databases go with it."""
    from tests import zygote
    from tests.browser import stop_chromium

    stop_chromium()
    zygote.stop()
    _dropper.wait()
    name = _migrated.pop("postgres", None)
    if name is not None:
        import sqlalchemy as sa

        _drop_database(sa.create_engine(PG_ADMIN, isolation_level="AUTOCOMMIT"), name, tries=3)
    _migrated.pop("sqlite", None)
    while _migrated_dirs:
        shutil.rmtree(_migrated_dirs.pop(), ignore_errors=True)


@contextmanager
def installed(cfg: config.Settings, *, migrated: bool = False):
    """``cfg`` made the settings in force on a database at the newest migration: ``migrated`` when
    the caller made it so (``pg_installed``), a copy of the migrated one for a new SQLite file,
    else migrated here."""
    from pbem.bench.env import install
    from pbem.mail import lookups
    from pbem.store import db, outbox

    migrated = migrated or _copy_migrated_sqlite(cfg)
    install(cfg, migrate=not migrated)
    lookups.forget()  # the DNS answers a test before kept (its keys, its records) are not this test's
    # a fresh database has no burst behind it: the picture shedding a test before saw is forgotten
    outbox._backlog_seen, outbox._shed_until = (0.0, 0, 0), 0.0
    try:
        yield cfg
    finally:
        db.dispose_engines()
        config.set_settings(None)


@pytest.fixture
def sqlite_cfg(tmp_path, request):
    over = {"picture_width": MAILED_PICTURE_WIDTH} if request.node.get_closest_marker("mailed_pictures") else {}
    with installed(make_settings(tmp_path, **over)) as cfg:
        yield cfg


# The tests' PostgreSQL databases live in a tablespace of their own on the roomy tmpfs, where this
# process may make one (as root, on a server whose user it is superuser of); else in the server's own.
# The suite makes and drops some three hundred databases, each copy some 550 files. On ext4 a new file
# looks for a free inode past every inode deleted in the last minutes (the kernel's recently_deleted),
# and the suite's own drops keep the disk full of them: one machine's server spent 0.6-0.9 s of kernel
# CPU on each copy, against 0.05 s on the tmpfs. It is the same server, WAL and settings; only the
# test databases' files are in memory, as the SQLite tests' are.
TABLESPACE = "pbem_tests"
TABLESPACE_DIR = Path("/dev/shm/pbem-tests-pg")
_tablespace: list[str] = []  # this process's clause for CREATE DATABASE, once worked out


def _test_tablespace(admin) -> str:
    """`` TABLESPACE "pbem_tests"``, made (or its folders made again, after the tmpfs was emptied)
    when missing; "" where this process may not make it."""
    if not _tablespace:
        try:
            _tablespace.append(_make_tablespace(admin))
        except Exception as e:  # noqa: BLE001 - the server's own tablespace serves as well, slower
            import sys

            print(f"test databases in the server's default tablespace: {e!r}"[:300], file=sys.stderr)
            _tablespace.append("")
    return _tablespace[0]


def _make_tablespace(admin) -> str:
    if os.geteuid() != 0 or not _roomy_tmpfs() or make_url(PG_ADMIN).host not in ("127.0.0.1", "localhost", "::1"):
        return ""
    with admin.connect() as c:
        if not c.exec_driver_sql("SELECT rolsuper FROM pg_roles WHERE rolname = current_user").scalar():
            return ""
        owner = os.stat(c.exec_driver_sql("SHOW data_directory").scalar()).st_uid  # the server's user
        version = "PG_{}_{}".format(c.exec_driver_sql("SHOW server_version_num").scalar()[:-4],
                                    c.exec_driver_sql("SELECT catalog_version_no FROM pg_control_system()").scalar())
        c.exec_driver_sql("SELECT pg_advisory_lock(hashtext('pbem tests tablespace'))")  # one test process at a time
        try:
            where = c.exec_driver_sql("SELECT pg_tablespace_location(oid) FROM pg_tablespace WHERE spcname = %s",
                                      (TABLESPACE,)).scalar()
            if where is None:
                shutil.rmtree(TABLESPACE_DIR, ignore_errors=True)  # the server takes only an empty folder
                _server_folder(TABLESPACE_DIR, owner)
                c.exec_driver_sql(f"CREATE TABLESPACE \"{TABLESPACE}\" LOCATION '{TABLESPACE_DIR}'")
            elif not (Path(where) / version).is_dir():  # the machine restarted: the server still names it
                _server_folder(Path(where), owner)
                _server_folder(Path(where) / version, owner)
        finally:
            c.exec_driver_sql("SELECT pg_advisory_unlock(hashtext('pbem tests tablespace'))")
    return f' TABLESPACE "{TABLESPACE}"'


def _server_folder(path: Path, owner: int) -> None:
    path.mkdir(mode=0o700, exist_ok=True)
    os.chown(path, owner, -1)
    path.chmod(0o700)


def _pg_database(name: str | None = None, *, template: str | None = None):
    """A new empty PostgreSQL database (or a copy of ``template``): the admin engine, its name, its URL."""
    import time

    import sqlalchemy as sa

    name = name or "pbem_t_" + uuid.uuid4().hex[:12]
    admin = sa.create_engine(PG_ADMIN, isolation_level="AUTOCOMMIT")
    sql = f'CREATE DATABASE "{name}"' + (f' TEMPLATE "{template}"' if template else "") + _test_tablespace(admin)
    for attempt in range(20):
        try:
            with admin.connect() as c:
                c.exec_driver_sql(sql)
            break
        except sa.exc.OperationalError as e:
            # a template may not be copied while anyone is connected to it (autovacuum, for a moment)
            if template is None or "being accessed by other users" not in str(e) or attempt == 19:
                raise
            time.sleep(0.5)
    url = PG_ADMIN.rsplit("/", 1)[0] + "/" + name
    return admin, name, url


@contextmanager
def pg_installed(tmp: Path, **over):
    """Settings (with ``over``) on a fresh PostgreSQL database of their own (a copy of
    the migrated one), dropped afterwards."""
    admin, name, url = _pg_database(template=_migrate_once("postgres"))
    try:
        with installed(make_settings(tmp, database_url=url, **over), migrated=True) as cfg:
            yield cfg
    finally:
        _dropper.drop(admin, name)


class _Dropper:
    """Drops the tests' PostgreSQL databases in a thread of their own: the next test need not wait
    for the server to remove the last one's files. The process's tests end with all dropped."""

    def __init__(self):
        import queue

        self.todo: queue.Queue = queue.Queue()
        self.thread = None

    def drop(self, admin, name: str) -> None:
        import threading

        if self.thread is None or not self.thread.is_alive():
            self.thread = threading.Thread(target=self._run, name="pbem-test-dropper", daemon=True)
            self.thread.start()
        self.todo.put((admin, name))

    def _run(self) -> None:
        import sys

        while True:
            admin, name = self.todo.get()
            try:
                _drop_database(admin, name)
            except Exception as e:  # noqa: BLE001 - told, not raised in a thread nobody joins with an error
                print(f"could not drop the test database {name}: {e!r}"[:300], file=sys.stderr)
            finally:
                self.todo.task_done()

    def wait(self) -> None:
        self.todo.join()


_dropper = _Dropper()


def _drop_database(admin, name: str, tries: int = 30) -> None:
    """Drop a test database, also after a test restarted PostgreSQL: the
    pooled admin connection may be dead, and the server may still be starting."""
    import time

    for attempt in range(tries):
        admin.dispose()  # a fresh connection each time, never one from before a restart
        try:
            with admin.connect() as c:
                c.exec_driver_sql(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
            break
        except Exception:
            if attempt == tries - 1:
                raise
            time.sleep(0.5)
    admin.dispose()


@pytest.fixture
def pg_cfg(tmp_path):
    with pg_installed(tmp_path) as cfg:
        yield cfg


@pytest.fixture(params=["sqlite", "postgres"])
def any_cfg(request, tmp_path):
    with (installed(make_settings(tmp_path)) if request.param == "sqlite" else pg_installed(tmp_path)) as cfg:
        yield cfg


@pytest.fixture
def on_redis():
    """``on_redis(cfg)``: the same settings on the real Redis, with a key
    prefix of this test's own (test runs in parallel share one Redis)."""
    import redis

    prefix = f"pbem-test-{uuid.uuid4().hex[:10]}:"

    def use(cfg: config.Settings) -> config.Settings:
        from pbem import tasks

        new = cfg.with_(broker_url=f"{REDIS_BASE}/0", broker_prefix=prefix)
        config.set_settings(new)
        tasks.configure(new)
        return new

    yield use
    r = redis.Redis.from_url(f"{REDIS_BASE}/0")
    keys = list(r.scan_iter(match=prefix + "*", count=1000))
    if keys:
        r.delete(*keys)


@contextmanager
def celery_worker(cfg: config.Settings, concurrency: int = 2, pool: str = "threads", beat: bool = False,
                  queues: str | None = None):
    """A real Celery worker process on the configured broker and database
    (tests/worker_app.py: the product's app plus the test game), forked from
    a process that imported pbem once (tests/zygote.py)."""
    from tests.zygote import start_worker

    env = dict(os.environ, **cfg.to_env())
    args = ["-A", "tests.worker_app", "worker", f"--pool={pool}",
            f"--concurrency={concurrency}", "--loglevel=WARNING", "--without-gossip", "--without-mingle"]
    if beat:
        args += ["-B", "-s", str(cfg.var_dir / "beat-schedule")]
    if queues:
        args += ["-Q", queues]
    # `python -m celery <args>` with this environment, forked from a process that imported pbem once
    proc = start_worker(args, env, Path(__file__).resolve().parent.parent)
    try:
        yield proc
    finally:
        end_process(proc)  # SIGTERM: Celery's warm shutdown; killed, with its pool, if it does not end


@contextmanager
def smtp_receiver(cfg: config.Settings):
    from pbem.mail.inbound import make_controller

    ctl = make_controller(cfg, host="127.0.0.1", port=cfg.smtpd_port)
    ctl.start()
    try:
        yield ctl
    finally:
        ctl.stop()


def send_mail(cfg: config.Settings, raw: bytes | str, mail_from: str, rcpt: str | list[str]):
    """One real SMTP conversation with the receiver. Returns the DATA reply code."""
    rcpts = [rcpt] if isinstance(rcpt, str) else rcpt
    with smtplib.SMTP("127.0.0.1", cfg.smtpd_port, timeout=30) as s:
        s.ehlo("client.test")
        code, _ = s.mail(mail_from)
        for r in rcpts:
            rc, msg = s.rcpt(r)
            if rc >= 400:
                return rc
        rc, _ = s.data(raw if isinstance(raw, bytes) else raw.encode())
        return rc
