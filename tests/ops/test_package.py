"""pbem as a package: the sdist and the wheel built from it carry everything the installed app reads
(templates, notation pages, static files, fonts, data, migrations, the catalogs compiled at build time
and readable by anyone), and the wheel installed into a fresh virtual environment that its user cannot
write serves every page in the four languages and plays the demo by mail."""
from __future__ import annotations

import os
import shutil
import signal
import socket
import stat
import subprocess
import sys
import tarfile
import tempfile
import time
import urllib.error
import urllib.request
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
LANGS = ("en", "ru", "bg", "it")
# words of the front page in each language (pbem/locale/<lang>/LC_MESSAGES/web.po)
FRONT = {"en": "Slow board games", "ru": "Неспешные настольные игры", "bg": "Бавни настолни игри",
         "it": "Giochi da tavolo lenti"}
DOMAINS = {"pbem/locale": ("web", "mail", "services"), "pbem/engine/locale": ("engine",),
           "pbem/engine/spyrium/locale": ("spyrium",), "pbem/engine/squire/locale": ("squire",),
           "pbem/engine/iaww/locale": ("iaww",)}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wheel(dist: Path) -> Path:
    return next(dist.glob("pbem-*.whl"))


def test_the_wheel_carries_what_the_installed_app_reads(dist):
    with zipfile.ZipFile(_wheel(dist)) as z:
        infos = {i.filename: i for i in z.infolist()}
    names = set(infos)
    must = {"pbem/share/templates/web/home.html", "pbem/share/templates/web/base.html",
            "pbem/share/templates/mail/message.html", "pbem/share/templates/mail/message.txt",
            "pbem/share/docs/notation/spyrium.md", "pbem/share/docs/notation/ru/squire.md",
            "pbem/share/docs/notation/bg/iaww.md", "pbem/share/docs/notation/it/spyrium.md",
            "pbem/web/static/site.css", "pbem/web/static/game.js", "pbem/store/alembic.ini",
            "pbem/engine/spyrium/data/cards.csv", "pbem/worker.py"}
    assert not must - names, sorted(must - names)
    assert any(n.startswith("pbem/mail/fonts/") and n.endswith(".ttf") for n in names)
    assert any(n.startswith("pbem/store/migrations/versions/") for n in names)
    for base, domains in DOMAINS.items():
        for lang in ("ru", "bg", "it"):
            for domain in domains:
                mo = f"{base}/{lang}/LC_MESSAGES/{domain}.mo"
                assert mo in names, mo
                # readable by the user who serves the pages, whoever built or installed it
                assert stat.S_IMODE(infos[mo].external_attr >> 16) == 0o644, (mo, oct(infos[mo].external_attr >> 16))
    assert not [n for n in names if n.endswith((".po", ".pot", ".pyc"))]
    assert not [n for n in names if n.startswith(("tests/", "templates/", "docs/"))]
    # every template of the clone is in the wheel
    clone = {p.relative_to(ROOT).as_posix() for p in (ROOT / "templates").rglob("*") if p.is_file()}
    assert {"pbem/share/" + t for t in clone} <= names
    with tarfile.open(next(dist.glob("pbem-*.tar.gz"))) as t:
        sdist = {"/".join(n.split("/")[1:]) for n in t.getnames()}
    assert {"setup.py", "CHANGELOG.md", "templates/web/home.html", "pbem/locale/ru/LC_MESSAGES/web.po",
            "docs/notation/ru/spyrium.md", "deploy/pbem.env"} <= sdist
    assert not [n for n in sdist if n.endswith(".mo")]


def _python_for(user: str | None) -> str:
    """A Python 3.11+ that ``user`` may run (the tests' own may live in root's home)."""
    for cand in (getattr(sys, "_base_executable", sys.executable), shutil.which("python3") or "",
                 "/usr/bin/python3"):
        if not cand:
            continue
        probe = [cand, "-c", "import sys, venv; assert sys.version_info >= (3, 11)"]
        if user:
            probe = [shutil.which("runuser", path="/usr/sbin:/sbin:/usr/bin:/bin"), "-u", user, "--", *probe]
        if subprocess.run(probe, capture_output=True).returncode == 0:
            return cand
    pytest.skip(f"no Python 3.11 that {user} may run")


def _get(url: str, lang: str) -> tuple[int, str]:
    req = urllib.request.Request(url, headers={"Accept-Language": lang})
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode(errors="replace")


@pytest.mark.slow
def test_the_wheel_installed_read_only_serves_four_languages_and_plays_the_demo(dist):
    runuser = shutil.which("runuser") or shutil.which("runuser", path="/usr/sbin:/sbin")
    user = "nobody" if os.geteuid() == 0 and runuser else None
    # pytest's own temporary folders are the running user's alone: another user reaches none of them
    tmp_path = Path(tempfile.mkdtemp(prefix="pbem-package-"))
    try:
        _install_and_play(dist, tmp_path, user, runuser)
    finally:
        subprocess.run(["chmod", "-R", "u+w", str(tmp_path)], check=False)
        shutil.rmtree(tmp_path, ignore_errors=True)


def _install_and_play(dist: Path, tmp_path: Path, user: str | None, runuser: str | None) -> None:
    venv = tmp_path / "venv"
    subprocess.run([_python_for(user), "-m", "venv", str(venv)], check=True)
    subprocess.run([str(venv / "bin/pip"), "install", "-q", str(_wheel(dist))], check=True, timeout=900)
    # nobody writes into the installed package: not the user who runs it, not root's compiles either
    subprocess.run(["chmod", "-R", "a-w", str(venv)], check=True)
    tmp_path.chmod(0o755)
    var = tmp_path / "var"
    var.mkdir()
    if user:
        shutil.chown(var, user)
    out = subprocess.run([str(venv / "bin/pbem"), "--version"], capture_output=True, text=True, check=True).stdout
    from pbem import __version__
    assert out.strip() == f"pbem, version {__version__}"

    web, smtp = _free_port(), _free_port()
    env = {"PATH": "/usr/bin:/bin", "HOME": str(var), "LANG": "C.UTF-8", "PBEM_VAR_DIR": str(var),
           "PBEM_WEB_PORT": str(web), "PBEM_SMTPD_PORT": str(smtp), "PBEM_BASE_URL": f"http://127.0.0.1:{web}"}
    cmd = [str(venv / "bin/pbem"), "demo", "spyrium", "--max-plies", "6"]
    if user:
        cmd = [runuser, "-u", user, "--", *cmd]
    log = (tmp_path / "demo.log").open("w+")
    proc = subprocess.Popen(cmd, cwd=str(var), env=env, stdout=log, stderr=subprocess.STDOUT,
                            start_new_session=True)
    try:
        end = time.monotonic() + 300
        while "Stopped after 6 plies" not in (var.parent / "demo.log").read_text():
            assert proc.poll() is None and time.monotonic() < end, (var.parent / "demo.log").read_text()[-3000:]
            time.sleep(0.5)
        base = f"http://127.0.0.1:{web}"
        for lang in LANGS:
            for path in ("/", "/lobby", "/archive", "/login", "/signup", "/games/1", "/rules/spyrium",
                         "/rules/squire", "/rules/iaww", "/static/site.css"):
                status, body = _get(base + path, lang)
                assert status == 200, (lang, path, status, body[-1500:])
            status, body = _get(base + "/", lang)
            assert FRONT[lang] in body, (lang, body[:800])
        text = (var.parent / "demo.log").read_text()
        for bad in ("Traceback", "could not compile"):
            if bad in text:
                at = text.find(bad)
                pytest.fail(text[max(0, at - 1500):at + 3000])
        assert not list(venv.rglob("*.mo-*")), "a process tried to write into the package"
    finally:
        os.killpg(proc.pid, signal.SIGINT)
        try:
            proc.wait(60)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(30)
        log.close()
