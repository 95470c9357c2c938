"""A scan of the running site with a standard black-box tool:
wapiti 3.2 (https://wapiti-scanner.github.io) against the production server
setup — ``gunicorn 'pbem.web:create_app()'`` over TLS on a fresh PostgreSQL
database, mail going to an SMTP relay (so the site behaves as deployed: the
outbox is for admins only, the session cookie is ``Secure``).

The database is seeded through the services (``seed``): a running It's a
Wonderful World game with moves, a pick still secret, public and private
thread posts and a dispute; an open game to join; the scanner's own open game
(start, invite); a failed inbound mail for the admin console. The scanner's
user logs in for real — the login form, the mailed link (read from the outbox,
as the relay would have carried it), its confirmation form — and wapiti gets
that session cookie (its JSON cookie file, flags as the site set them), so it
crawls and attacks the pages behind login too: the dashboard, the game pages
and their forms (move, post, join, start, invite, manage), the profile, and —
the scanner being an admin as well — the admin console.

wapiti sends one request at a time, so the modules are split into groups run
by parallel wapiti processes (``jobs``), each crawling for itself; their
reports are merged.

``scripts/scan`` runs the full scan; ``tests/reliability/test_scan.py`` a
short one. wapiti lives in a virtualenv of its own (``.venv-scan``) so its
pinned dependencies never meet the product's. See docs/RELIABILITY.md §6.
"""
from __future__ import annotations

import argparse
import http.cookiejar
import json
import os
import re
import secrets
import shutil
import ssl
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
from collections import Counter
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterator

from pbem.bench.env import free_port, gunicorn_command, install, stop_server

ROOT = Path(__file__).resolve().parents[2]
SCAN_VENV = ROOT / ".venv-scan"
WAPITI_SPEC = "wapiti3>=3.2,<3.3"
PG_ADMIN = os.environ.get("PBEM_TEST_PG", "postgresql+psycopg://root@127.0.0.1:5432/test")

# The modules that apply to this site, all of them local (nothing is sent anywhere but the site):
#   injections into every GET/POST parameter: xss, sql, exec, file, crlf, ldap, redirect;
#   stored XSS (a payload sent in one form found unescaped on any page): permanentxss;
#   forms without a working CSRF token: csrf;  security headers, CSP, cookie flags: http_headers,
#   csp, cookieflags;  PUT/DELETE/... answered: methods;  access-control bypass by odd methods
#   on pages that refuse (403/401): htaccess;  backup copies of pages: backup;  CGI: shellshock.
# timesql (time-based blind SQL injection) applies too but takes ~140 s on its own: it is not in the
# default set; ``scripts/scan --modules timesql`` runs it (docs/RELIABILITY.md §6: 0 findings).
# Left out, and why: ssrf, xxe, log4shell need wapiti's public callback server (wapiti3.ovh) and
# send our traffic to it; nikto downloads its database from GitHub at run time (not reachable here,
# and not a fixed version); wapp/htp/cms/wp_enum/network_device/spring4shell fingerprint products
# we do not run; ssl judges the TLS certificate, which here is a throwaway self-signed one (TLS
# belongs to the deployment's terminator); https_redirect needs a plain-HTTP listener, which the
# production setup does not have; buster and brute_login_form guess paths and passwords (the site
# has no passwords); upload: the site takes no files.
FULL_MODULES = ("xss", "permanentxss", "sql", "exec", "file", "crlf", "ldap", "redirect", "csrf",
                "http_headers", "csp", "cookieflags", "methods", "htaccess", "backup", "shellshock")
# the short run of the test suite: the injections that matter most and the configuration checks, as a
# player who is not an admin (fewer forms), each module stopped after QUICK_LIMITS["max_attack_time"]
# seconds (uncapped, this scope takes ~3 min: permanentxss alone ~140 s); scripts/scan is the full scan
QUICK_MODULES = ("xss", "permanentxss", "sql", "crlf", "redirect", "csrf", "http_headers", "csp", "cookieflags")
QUICK_LIMITS = {"max_attack_time": 6, "admin": False, "jobs": 1}
# about how many seconds each module takes in a full scan with other processes side by side (22 Nov
# 2026, 2 cores): to balance the parallel jobs. permanentxss grows with what the other modules have
# stored (it re-reads every page for the payloads xss planted, then tries each planted field again).
COST = {"exec": 190, "xss+permanentxss": 180, "file": 150, "timesql": 136, "sql": 99, "ldap": 27, "backup": 27,
        "methods": 4, "crlf": 4}

# Findings wapiti reports that are not vulnerabilities of this site, each explained in
# docs/RELIABILITY.md §6: (module, the finding's info starts with, path regex, why).
FALSE_POSITIVES: list[tuple[str, str, str, str]] = [
    # pbem has no LDAP directory and builds no LDAP filter. The ldap module's differential test flags a
    # parameter when the answers to its "string equals" payloads ('*' and '*)<NUL>nosuchvalue', no control
    # payload in that group) both differ from the answers to 'nosuchvalue' and '(**nosuchvalue**': that is
    # any field whose validation refuses '*' or a NUL but takes a word. Only that finding is set aside: the
    # module's other evidence (an LDAP error message in a page: "Potential LDAP injection"; a 500) counts.
    ("ldap", "LDAP Injection via injection in the parameter", r".*",
     "pbem has no LDAP; the differential test reads input validation as a matched filter (RELIABILITY.md §6)"),
]


# ---------------------------------------------------------------- wapiti, in a virtualenv of its own


def wapiti_version() -> str | None:
    py = SCAN_VENV / "bin" / "python"
    if not py.exists():
        return None
    r = subprocess.run([str(py), "-c", "import importlib.metadata as m; print(m.version('wapiti3'))"],
                       capture_output=True, text=True)
    return r.stdout.strip() if r.returncode == 0 else None


def ensure_wapiti(log: Callable[[str], None] = print) -> Path:
    """``.venv-scan/bin/wapiti``, installed from PyPI when missing (a second call costs one version check)."""
    version = wapiti_version()
    if version is None or not version.startswith("3.2."):
        log(f"installing {WAPITI_SPEC} into {SCAN_VENV.relative_to(ROOT)}")
        if not (SCAN_VENV / "bin" / "python").exists():
            subprocess.run([sys.executable, "-m", "venv", str(SCAN_VENV)], check=True)
        subprocess.run([str(SCAN_VENV / "bin" / "python"), "-m", "pip", "install", "-q", WAPITI_SPEC],
                       check=True, stdout=subprocess.DEVNULL)
        version = wapiti_version()
        if version is None:
            raise RuntimeError("wapiti3 did not install")
    return SCAN_VENV / "bin" / "wapiti"


# ---------------------------------------------------------------- the site


@contextmanager
def fresh_database() -> Iterator[str]:
    import sqlalchemy as sa

    name = "pbem_scan_" + uuid.uuid4().hex[:10]
    admin = sa.create_engine(PG_ADMIN, isolation_level="AUTOCOMMIT", pool_pre_ping=True)  # rides out a restart
    with admin.connect() as c:
        c.exec_driver_sql(f'CREATE DATABASE "{name}"')
    try:
        yield PG_ADMIN.rsplit("/", 1)[0] + "/" + name
    finally:
        with admin.connect() as c:
            c.exec_driver_sql(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        admin.dispose()


@dataclass
class Seeded:
    scanner_email: str
    games: dict[str, int]  # what -> game id
    posts: int


def seed(admin: bool = True) -> Seeded:
    """Users, games, moves and posts through the services (the settings are installed): the
    scanner's running It's a Wonderful World game against Bea (both drafted once, then Bea picked
    again: a secret from the scanner), with public and private posts and a dispute; Cid's open
    Spyrium game the scanner may join; the scanner's own open Squire game (start, invite); a failed
    inbound mail for the admin console. One game per kind of page: every route, each once."""
    from pbem.services.core import accounts, games, moves, seating, thread
    from pbem.services.lobby import tables
    from pbem.services.referee import disputes
    from pbem.store.db import unit_of_work
    from pbem.store.models import Inbound

    with unit_of_work() as s:
        me, _ = accounts.register(s, "scanner@players.scan", "Scan Player", confirmed=True)
        me.is_admin = admin  # a player who is also an admin: every page family is crawled
        s.add(me)
        bea, _ = accounts.register(s, "bea@players.scan", "Bea", confirmed=True)
        cid, _ = accounts.register(s, "cid@players.scan", "Cid", confirmed=True)
        running = tables.create(s, me, "iaww", 2, seed=3)
        tables.join(s, bea, running.id)
        ids = {"running": running.id, "open": tables.create(s, cid, "spyrium", 3, seed=4).id,
               "mine": tables.create(s, me, "squire", 2, seed=5).id}
    gid = ids["running"]
    for who in ("both", "both", "bea"):  # a draft step both ways (revealed), then Bea's pick, still secret
        with unit_of_work() as s:
            g = games.get(s, gid)
            engine = games.engine_for(g)
            state = games.state_at(s, g)
            mine = seating.seat_of(s, gid, me.id).seat
            seat = min(engine.to_move(state)) if who == "both" else 1 - mine
            move = engine.legal_moves(state, seat)[0]
            moves.submit_moves(s, gid, seat, [engine.format_move(state, seat, move)], source="web")
    with unit_of_work() as s:
        g = games.get(s, gid)
        thread.post(s, g, bea, "Good luck, everyone!")
        thread.post(s, g, bea, "Just between us: I am going for the Zeppelin.", to_seat=mine)
        thread.post(s, g, me, "Thanks, you too.")
        disputes.open_dispute(s, bea, gid, 1, "The first ply looks wrong to me.")
        s.add(Inbound(message_id=f"<scan-{uuid.uuid4().hex}@players.scan>", mail_from="bea@players.scan",
                      rcpt_to="pbem@pbem.scan", status="failed", error="RuntimeError: a seeded failure",
                      raw=b"From: bea@players.scan\r\nTo: pbem@pbem.scan\r\nSubject: <b>hello</b>\r\n\r\n"
                          b"<script>alert(1)</script>\r\n"))
    return Seeded("scanner@players.scan", ids, 3)


def _tls_pair(folder: Path) -> tuple[Path, Path]:
    cert, key = folder / "cert.pem", folder / "key.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj",
                    "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", str(key),
                    "-out", str(cert)], check=True, capture_output=True)
    return cert, key


@contextmanager
def serve(cfg, port: int, folder: Path, workers: int = 4) -> Iterator[Path]:
    """gunicorn over TLS on loopback, as deployed. Yields the path of its log."""
    cert, key = _tls_pair(folder)
    log_path = folder / "gunicorn.log"
    env = dict(os.environ, **cfg.to_env())
    with open(log_path, "ab") as log:  # gunicorn of the product's virtualenv: scripts/scan and the tests run in it
        server = subprocess.Popen(
            gunicorn_command("-w", str(workers), "--threads", "4", "-b", f"127.0.0.1:{port}",
                             "--certfile", str(cert), "--keyfile", str(key), "--timeout", "60", "--log-level", "info",
                             "--access-logfile", "-", "--access-logformat", '%(h)s %(t)s "%(r)s" %(s)s %(b)s %(M)sms',
                             "pbem.web:create_app()"),
            cwd=str(ROOT), env=env, stdout=log, stderr=subprocess.STDOUT)
        try:
            ctx = _insecure()
            end = time.monotonic() + 60
            while True:
                try:
                    urllib.request.urlopen(f"https://127.0.0.1:{port}/healthz", timeout=5, context=ctx).close()
                    break
                except urllib.error.HTTPError:  # 503: up, and saying the service is not healthy (no beat here)
                    break
                except (OSError, urllib.error.URLError):
                    if time.monotonic() > end or server.poll() is not None:
                        raise RuntimeError(f"gunicorn did not start (see {log_path})")
                    time.sleep(0.2)
            yield log_path
        finally:
            stop_server(server)


def _insecure() -> ssl.SSLContext:
    ctx = ssl.create_default_context()
    ctx.check_hostname = False
    ctx.verify_mode = ssl.CERT_NONE  # our own throwaway certificate
    return ctx


CSRF_RE = re.compile(r'name="csrf_token" value="([^"]+)"')


def log_in(base: str, email: str) -> http.cookiejar.Cookie:
    """The real login: the form, the mailed link, its confirmation form. Returns the session cookie as
    the site set it (flags included), after one more page so that it also holds the CSRF secret."""
    from sqlmodel import select

    from pbem.store.db import unit_of_work
    from pbem.store.models import Outbound

    jar = http.cookiejar.CookieJar()
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar),
                                         urllib.request.HTTPSHandler(context=_insecure()))

    def get(path: str) -> str:
        with opener.open(base + path, timeout=30) as r:
            return r.read().decode()

    def post(path: str, data: dict) -> str:
        # what a browser sends under the site's Referrer-Policy (strict-origin): Flask-WTF checks it over HTTPS
        req = urllib.request.Request(base + path, data=urllib.parse.urlencode(data).encode(),
                                     headers={"Referer": base + "/"})
        with opener.open(req, timeout=30) as r:
            return r.read().decode()

    token = CSRF_RE.search(get("/login")).group(1)
    post("/login", {"email": email, "csrf_token": token})
    with unit_of_work() as s:
        row = s.exec(select(Outbound).where(Outbound.to_addr == email, Outbound.kind == "login")
                     .order_by(Outbound.id.desc())).first()
    link = re.search(r"https://\S+/auth/[A-Za-z0-9_\-]+", row.body_text).group(0)
    path = urllib.parse.urlsplit(link).path
    token = CSRF_RE.search(get(path)).group(1)
    page = post(path, {"csrf_token": token})
    if "You are logged in" not in page:
        raise RuntimeError("the scanner could not log in")
    get("/lobby")  # a page with a form: the session now carries the CSRF secret every form token derives from
    cookies = [c for c in jar if c.name == "session"]
    if len(cookies) != 1:
        raise RuntimeError(f"expected one session cookie, got {[c.name for c in jar]}")
    return cookies[0]


def cookie_file(cookie: http.cookiejar.Cookie, path: Path) -> Path:
    """wapiti's JSON cookie file (wapitiCore.net.jsoncookie) holding the site's own cookie."""
    path.write_text(json.dumps({cookie.domain: {cookie.path: {cookie.name: {
        "value": cookie.value, "expires": cookie.expires, "secure": cookie.secure, "port": None,
        "version": cookie.version or 0}}}}, indent=2))
    return path


# ---------------------------------------------------------------- the scan and its verdict


@dataclass
class ScanResult:
    commands: list[list[str]]
    modules: tuple[str, ...]
    report: dict
    seconds: float
    logged_in: bool
    server_errors: list[str] = field(default_factory=list)
    returncode: int = 0
    capped: list[str] = field(default_factory=list)  # modules stopped by the time cap (not all attacked)

    def _items(self, kind: str) -> list[dict]:
        out = []
        for category, items in (self.report.get(kind) or {}).items():
            for it in items:
                out.append(dict(it, category=category))
        return out

    @staticmethod
    def _false_positive(item: dict) -> str | None:
        for module, info, path_re, why in FALSE_POSITIVES:
            if item.get("module") == module and (item.get("info") or "").startswith(info) and \
                    re.search(path_re, item.get("path") or ""):
                return why
        return None

    @property
    def vulnerabilities(self) -> list[dict]:
        return [v for v in self._items("vulnerabilities") if not self._false_positive(v)]

    @property
    def filtered(self) -> list[dict]:
        return [v for v in self._items("vulnerabilities") if self._false_positive(v)]

    @property
    def anomalies(self) -> list[dict]:
        return self._items("anomalies")

    @property
    def additionals(self) -> list[dict]:
        return self._items("additionals")

    @property
    def crawled(self) -> list[str]:
        pages = (self.report.get("infos") or {}).get("crawled_pages") or []
        return sorted({f"{p['request']['method']} {urllib.parse.urlsplit(p['request']['url']).path} "
                       f"({p['request'].get('status_code')})" for p in pages})

    @property
    def ok(self) -> bool:
        # a vulnerability fails the scan; so does an anomaly (a 500 or a timeout on a fuzzed request
        # is a bug in the site) and a traceback in the server's log; additionals are information
        # (e.g. "OPTIONS is answered", which Flask does for every route)
        return self.returncode == 0 and bool(self.report) and not self.vulnerabilities and not self.anomalies \
            and not self.server_errors

    def text(self) -> str:
        infos = self.report.get("infos") or {}
        vulns, anoms = Counter(v.get("module") for v in self.vulnerabilities), Counter(a.get("module") for a in self.anomalies)
        infos_ = Counter(a.get("module") for a in self.additionals)
        fps = Counter(v.get("module") for v in self.filtered)
        lines = [f"{infos.get('version', 'wapiti ?')} on {infos.get('target', '?')} "
                 f"({'logged in' if self.logged_in else 'not logged in'}), scope {infos.get('scope', '?')}, "
                 f"{len(self.commands)} wapiti process(es)",
                 f"pages and forms crawled: {infos.get('crawled_pages_nbr', '?')} "
                 f"({len({c.split(' (')[0] for c in self.crawled})} distinct method and path)",
                 "findings per module: vulnerabilities / anomalies / informational / false positives set aside"]
        for m in self.modules:
            cap = "   (stopped at the time cap: not every resource attacked)" if m in self.capped else ""
            lines.append(f"  {m:<14} {vulns.get(m, 0)} / {anoms.get(m, 0)} / {infos_.get(m, 0)} / {fps.get(m, 0)}{cap}")
        for v in self.vulnerabilities:
            lines.append(f"VULNERABILITY [{v['module']}] {v['category']}: {v['method']} {v['path']} "
                         f"{v.get('parameter') or ''} — {v.get('info')}")
        for a in self.anomalies:
            lines.append(f"ANOMALY [{a['module']}] {a['category']}: {a['method']} {a['path']} "
                         f"{a.get('parameter') or ''} — {a.get('info')}")
        set_aside: dict[tuple, list[dict]] = {}
        for v in self.filtered:
            set_aside.setdefault((v["module"], v["method"], v["path"], v.get("parameter") or ""), []).append(v)
        for (module, method, path, param), items in set_aside.items():
            lines.append(f"set aside [{module}] {method} {path} {param} x{len(items)}: {self._false_positive(items[0])}")
        for (module, category), n in Counter((a["module"], a["category"]) for a in self.additionals).items():
            example = next(a.get("info") for a in self.additionals if a["module"] == module)
            lines.append(f"informational [{module}] {category} x{n}, e.g. {example}")
        for e in self.server_errors[:10]:
            lines.append("SERVER ERROR: " + e)
        if self.returncode:
            lines.append(f"wapiti exited with {self.returncode}")
        lines.append(f"time: {self.seconds:.0f} s")
        lines.append("RESULT: " + ("OK" if self.ok else "FINDINGS"))
        return "\n".join(lines)


def _server_errors(log_path: Path) -> list[str]:
    """The unhandled exceptions in the server's log, as "route: exception" with a count."""
    lines = log_path.read_text(errors="replace").splitlines() if log_path.exists() else []
    found: Counter = Counter()
    route = None
    for line in lines:
        m = re.search(r"ERROR in app: Exception on (.*)", line)
        if m:
            route = m.group(1)
        elif route and re.match(r"^[A-Za-z_][\w.]*(Error|Exception|Exit|Interrupt)\b.*", line):
            found[f"{route}: {line.strip()[:200]}"] += 1
            route = None
    return [f"{k} (x{n})" for k, n in found.most_common()]


def groups_of(modules: tuple[str, ...], jobs: int) -> list[list[str]]:
    """Split ``modules`` into ``jobs`` groups of about the same measured cost (xss and permanentxss stay
    together: permanentxss looks for the payloads xss sent)."""
    units = [["xss", "permanentxss"] if m == "xss" and "permanentxss" in modules else [m]
             for m in modules if m != "permanentxss" or "xss" not in modules]
    units.sort(key=lambda u: -COST.get("+".join(u), 2))
    groups: list[list[str]] = [[] for _ in range(max(1, min(jobs, len(units))))]
    load = [0] * len(groups)
    for u in units:
        i = load.index(min(load))
        groups[i] += u
        load[i] += COST.get("+".join(u), 2)
    return [g for g in groups if g]


def _starts_and_exclusions(base: str, seeded: Seeded, logged_in: bool, admin: bool) -> list[str]:
    # the scanner keeps its session (ended on the server by these) and its address
    args = ["-x", base + "/logout", "-x", base + "/logout/everywhere", "-x", base + "/profile/address"]
    starts = ["/", "/lobby", "/rules/spyrium", "/rules/squire", "/rules/iaww", "/login", "/signup"]
    running = seeded.games["running"]
    for gid in seeded.games.values():
        starts += [f"/games/{gid}", f"/games/{gid}/board?ply=1", f"/games/{gid}/view.json?ply=1",
                   f"/games/{gid}/thread.json?after=0"]
    if logged_in:
        starts += ["/me", "/profile", f"/games/{running}/manage"]
    if logged_in and admin:
        starts += ["/admin", "/admin/disputes", "/admin/disputes/1", "/admin/inbound/1", "/outbox", "/outbox/1",
                   f"/admin/games/{running}?ply=1"]
    for p in starts:
        args += ["-s", base + p]
    # Each route once: the management and admin pages of the two open games are those of the running
    # game again; and the crawler submits the lobby's forms, so creates games (a few: depth 1) whose
    # pages are the same routes as the seeded games'. Left out, by id.
    for i in (seeded.games["open"], seeded.games["mine"]):
        for pattern in (f"/games/{i}/manage", f"/admin/games/{i}", f"/admin/games/{i}?*"):
            args += ["-x", base + pattern]
    first_new = max(seeded.games.values()) + 1
    for i in range(first_new, first_new + 8):
        for pattern in (f"/games/{i}", f"/games/{i}?*", f"/games/{i}/*", f"/admin/games/{i}", f"/admin/games/{i}?*"):
            args += ["-x", base + pattern]
    return args


def run_scan(out_dir: Path, *, modules: tuple[str, ...] = FULL_MODULES, jobs: int = 3, max_attack_time: int = 120,
             max_scan_time: int = 120, depth: int = 1, logged_in: bool = True, admin: bool = True,
             log: Callable[[str], None] = print) -> ScanResult:
    """Seed a fresh database, serve it, log in, run wapiti; the merged report and the logs go to
    ``out_dir`` (report.json, summary.txt, wapiti-<n>.out, gunicorn.log)."""
    import threading

    from pbem import config
    from pbem.store import db

    wapiti = ensure_wapiti(log)
    out_dir = out_dir.resolve()  # wapiti runs in a folder of its own
    out_dir.mkdir(parents=True, exist_ok=True)
    for old in out_dir.glob("*"):
        if old.is_file():
            old.unlink()
    work = Path(tempfile.mkdtemp(prefix="pbem-scan-"))
    port = free_port()
    base = f"https://127.0.0.1:{port}"
    procs: list[subprocess.Popen] = []
    try:
        with fresh_database() as url:
            env = {
                "PBEM_VAR_DIR": str(work / "var"), "PBEM_DATABASE_URL": url, "PBEM_DOMAIN": "pbem.scan",
                "PBEM_SECRET_KEY": secrets.token_urlsafe(32), "PBEM_BASE_URL": base,
                "PBEM_WEB_HOST": "127.0.0.1", "PBEM_WEB_PORT": str(port),
                # mail leaves through a relay, as deployed (nothing runs to deliver it: the scan
                # reads the login link from the outbox instead of a mailbox)
                "PBEM_SMTP_URL": f"smtp://127.0.0.1:{free_port()}",
            }
            cfg = install(config.load_settings(env))
            try:
                seeded = seed(admin=admin)
                log(f"seeded games {seeded.games}; serving {base}")
                with serve(cfg, port, work) as server_log:
                    common = ["-u", base + "/", "--scope", "folder", "-d", str(depth), "--max-links-per-page", "40",
                              "--max-scan-time", str(max_scan_time), "--max-attack-time", str(max_attack_time),
                              "--skip", "csrf_token",  # changing it only earns the CSRF refusal (the csrf module checks that)
                              "-t", "30", "--tasks", "4", "--verify-ssl", "0", "--no-bugreport", "--flush-session",
                              "-f", "json", "-dr", "1", "-v", "1"]
                    if logged_in:
                        cookie = log_in(base, seeded.scanner_email)
                        common += ["-c", str(cookie_file(cookie, work / "cookies.json"))]
                    common += _starts_and_exclusions(base, seeded, logged_in, admin)
                    commands = []
                    for n, group in enumerate(groups_of(modules, jobs)):
                        commands.append([str(wapiti), "-m", ",".join(group), *common,
                                         "--store-session", str(work / f"session-{n}"),
                                         "--store-config", str(work / f"config-{n}"),
                                         "-o", str(out_dir / f"report-{n}.json"), "--log", str(out_dir / f"wapiti-{n}.log")])
                    (out_dir / "commands.txt").write_text("\n\n".join(" ".join(c) for c in commands) + "\n")
                    log(f"{len(commands)} wapiti process(es): " + "; ".join(c[2] for c in commands))
                    t0 = time.monotonic()
                    capped: list[str] = []

                    def follow(n: int, proc: subprocess.Popen) -> None:
                        with open(out_dir / f"wapiti-{n}.out", "w") as out:  # its console, each line timed
                            for line in proc.stdout:
                                out.write(f"[{time.monotonic() - t0:6.1f}s] {line}")
                                out.flush()
                                m = re.search(r"Max attack time was reached for module (\w+)", line)
                                if m:
                                    capped.append(m.group(1))
                                if line.startswith("[*] Launching module") or "URLs and forms" in line or m:
                                    log(f"{time.monotonic() - t0:6.1f} s  [{n}] {line.strip()}")

                    readers = []
                    for n, cmd in enumerate(commands):
                        procs.append(subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                                      cwd=str(work), text=True, errors="replace"))
                        readers.append(threading.Thread(target=follow, args=(n, procs[-1]), daemon=True))
                        readers[-1].start()
                    rc = max(p.wait() for p in procs)
                    for r in readers:
                        r.join(10)
                    seconds = time.monotonic() - t0
                    shutil.copy(server_log, out_dir / "gunicorn.log")
                report = merge_reports([out_dir / f"report-{n}.json" for n in range(len(commands))])
                (out_dir / "report.json").write_text(json.dumps(report, indent=1))
                res = ScanResult(commands, modules, report, seconds, logged_in,
                                 _server_errors(out_dir / "gunicorn.log"), rc, capped)
                (out_dir / "summary.txt").write_text(res.text() + "\n\ncrawled (method path (status)):\n"
                                                     + "\n".join(res.crawled) + "\n")
                return res
            finally:
                db.dispose_engines()
                config.set_settings(None)
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait()
        shutil.rmtree(work, ignore_errors=True)


def merge_reports(paths: list[Path]) -> dict:
    """wapiti's JSON reports of the parallel processes as one (findings concatenated per category)."""
    merged: dict = {}
    seen_pages = set()
    for path in paths:
        if not path.exists():
            continue
        rep = json.loads(path.read_text())
        if not merged:
            merged = {k: ({} if isinstance(v, dict) else v) for k, v in rep.items()}
            merged["infos"] = dict(rep.get("infos") or {}, crawled_pages=[], crawled_pages_nbr=0)
            merged["classifications"] = rep.get("classifications") or {}
        for kind in ("vulnerabilities", "anomalies", "additionals"):
            for category, items in (rep.get(kind) or {}).items():
                merged.setdefault(kind, {}).setdefault(category, []).extend(items)
        infos = rep.get("infos") or {}
        for page in infos.get("crawled_pages") or []:
            key = json.dumps(page["request"], sort_keys=True)
            if key not in seen_pages:
                seen_pages.add(key)
                merged["infos"]["crawled_pages"].append(page)
        merged["infos"]["crawled_pages_nbr"] = max(merged["infos"]["crawled_pages_nbr"],
                                                   infos.get("crawled_pages_nbr") or 0)
    return merged


def main(argv: list[str] | None = None) -> int:
    import signal

    ap = argparse.ArgumentParser(prog="scripts/scan", description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="the short scan of the test suite")
    ap.add_argument("--modules", help="comma-separated wapiti modules (default: every one that applies)")
    ap.add_argument("--jobs", type=int, default=None, help="parallel wapiti processes (default 3)")
    ap.add_argument("--max-attack-time", type=int, default=None, help="seconds per module (default 120)")
    ap.add_argument("--complete", action="store_true", help="no time cap per module (the full scan takes ~7 min)")
    ap.add_argument("--logged-out", action="store_true", help="scan as a visitor who is not logged in")
    ap.add_argument("--not-admin", action="store_true", help="log in as a player who is not an admin")
    ap.add_argument("--out", default=str(ROOT / "var" / "scan"), help="where the report goes (default var/scan)")
    ap.add_argument("--install-only", action="store_true", help="install wapiti into .venv-scan and stop")
    a = ap.parse_args(argv)
    if a.install_only:
        ensure_wapiti()
        return 0
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # clean up (server, database) when stopped
    kw: dict = dict(QUICK_LIMITS) if a.quick else {}
    modules = tuple(a.modules.split(",")) if a.modules else (QUICK_MODULES if a.quick else FULL_MODULES)
    for name, value in (("jobs", a.jobs), ("max_attack_time", a.max_attack_time)):
        if value:
            kw[name] = value
    if a.complete:
        kw["max_attack_time"] = 3600
    if a.not_admin:
        kw["admin"] = False
    res = run_scan(Path(a.out), modules=modules, logged_in=not a.logged_out, **kw)
    print(res.text())
    print(f"report: {Path(a.out) / 'report.json'} (summary.txt lists the pages crawled)")
    return 0 if res.ok else 1


if __name__ == "__main__":
    sys.exit(main())
