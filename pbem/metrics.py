"""Prometheus metrics of what happens (docs/metrics.md), counted
by whichever process it happens in -- the SMTP receiver, the workers, the
web -- in prometheus-client's multiprocess mode: each process writes its
counts to files of its own in one directory (the settings' metrics_path),
and the web's /metrics adds them up when scraped. What is rather than what
happened (the outbox backlog, the queue's depth) is read from the database
and the broker at scrape time (pbem/store/health.py), never counted here.

At the bottom of the house, beside the settings: the pipeline, the receiver
and the tasks count through the functions below, which never raise (a full
disk must not fail a mail)."""
from __future__ import annotations

import logging
import os
import threading
from pathlib import Path

from pbem.config import settings

log = logging.getLogger("pbem.metrics")

# receipt to processed, seconds: a move mail takes tens of milliseconds; a queue behind a dead worker, minutes
LATENCY_BUCKETS = (0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 300.0, 900.0, 3600.0)


class Metrics:
    """The metrics of one process, writing to one directory."""

    def __init__(self):
        from prometheus_client import Counter, Histogram

        def counter(name, doc, labels=()):
            return Counter(name, doc, labels, registry=None)  # collected from the files, never registered

        self.received = counter("pbem_mails_received", "Mails the SMTP receiver stored (one per recipient)")
        self.processed = counter("pbem_mails_processed", "Mails the pipeline finished, by status (done, ignored)",
                                 ["status"])
        self.failed = counter("pbem_mails_failed", "Mails kept as failed for the admins: 'error' (a system "
                                                   "error), 'gave_up' (the database kept failing)", ["reason"])
        self.retried = counter("pbem_mail_attempts_retried", "Attempts at a mail that failed for a reason that "
                                                             "may pass (tried again later)")
        self.moves = counter("pbem_moves_applied", "Moves applied, by where they came from (mail, bot)", ["source"])
        self.latency = Histogram("pbem_mail_latency_seconds", "From a mail's receipt to the commit of its processing",
                                 buckets=LATENCY_BUCKETS, registry=None)
        self.sent = counter("pbem_outbound_sent", "Mails handed to the relay")
        self.delivery_failures = counter(
            "pbem_outbound_delivery_failures", "Deliveries that failed: 'retry' (tried again after a backoff), "
                                               "'failed' (given up after the last attempt), 'bounced' (the relay refused the "
                                               "recipient for good)", ["outcome"])


_lock = threading.Lock()
_current: tuple[Path, Metrics, type] | None = None


def current() -> Metrics | None:
    """This process's metrics, for the directory of the settings in force
    (None: metrics are off). A change of directory (tests, `pbem up` with
    other settings) closes the files of the old one and starts new ones."""
    global _current
    path = settings().metrics_path
    if path is None:
        return None
    cur = _current
    if cur is not None and cur[0] == path:
        return cur[1]
    with _lock:
        if _current is not None and _current[0] == path:
            return _current[1]
        from prometheus_client import values

        path.mkdir(parents=True, exist_ok=True)
        # prometheus-client reads the directory from the environment when it opens a file (also after a fork)
        os.environ["PROMETHEUS_MULTIPROC_DIR"] = str(path)
        if _current is not None:
            _current[2].close_all_files()
        value_class = values.MultiProcessValue()
        values.ValueClass = value_class  # what each metric (and each labelled child) stores its value in
        _current = (path, Metrics(), value_class)
        return _current[1]


def _count(what: str, amount: float = 1, *labels: str) -> None:
    try:
        m = current()
        if m is None or amount <= 0:
            return
        metric = getattr(m, what)
        (metric.labels(*labels) if labels else metric).inc(amount)
    except Exception as e:  # noqa: BLE001 - counting must never fail the work counted
        log.warning("metrics: could not count %s: %r", what, e)


def mail_received(n: int = 1) -> None:
    _count("received", n)


def mail_processed(status: str, latency_s: float | None, moves: int = 0) -> None:
    _count("processed", 1, status)
    if moves:
        _count("moves", moves, "mail")
    if latency_s is not None:
        try:
            m = current()
            if m is not None:
                m.latency.observe(max(0.0, latency_s))
        except Exception as e:  # noqa: BLE001
            log.warning("metrics: could not observe the latency: %r", e)


def mail_failed(reason: str) -> None:
    _count("failed", 1, reason)


def mail_retried() -> None:
    _count("retried")


def moves_applied(n: int, source: str) -> None:
    _count("moves", n, source)


def outbound_sent(n: int) -> None:
    _count("sent", n)


def outbound_failed(n: int, outcome: str) -> None:
    _count("delivery_failures", n, outcome)


def render(*collectors) -> tuple[bytes, str]:
    """The text a scraper reads: the counts of every process (the files in
    the directory) and ``collectors`` (gauges read at scrape time)."""
    from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, generate_latest
    from prometheus_client.multiprocess import MultiProcessCollector

    registry = CollectorRegistry()
    path = settings().metrics_path
    if path is not None:
        path.mkdir(parents=True, exist_ok=True)
        MultiProcessCollector(registry, path=str(path))
    for c in collectors:
        registry.register(c)
    return generate_latest(registry), CONTENT_TYPE_LATEST


# ---------------------------------------------------------------- a host without the web site

LOOPBACK = ("127.0.0.1", "::1", "::ffff:127.0.0.1")
# a request a reverse proxy forwarded comes from loopback too: it is never taken for a local one
PROXY_HEADERS = ("X-Forwarded-For", "X-Real-IP", "Forwarded")


def may_scrape(remote_addr: str, headers, token: str) -> bool:
    """The rule of every /metrics pbem serves: the token when one is set, else loopback, not proxied."""
    import hmac

    if token:
        return hmac.compare_digest(str(headers.get("Authorization", "")).encode(), f"Bearer {token}".encode())
    return remote_addr in LOOPBACK and not any(h in headers for h in PROXY_HEADERS)


def exporter(host: str, port: int):
    """A small HTTP server whose /metrics adds up the counts of this host's processes (the receiver's,
    the workers'; PBEM_METRICS_DIR), for a host that runs no web site: `pbem metrics-exporter`. The
    gauges of what is (backlog, queue) come from the web's /metrics, once for the whole site."""
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    token = settings().metrics_token

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 - http.server's name
            if self.path.split("?", 1)[0] != "/metrics":
                return self._answer(404, b"only /metrics here\n", "text/plain")
            if not may_scrape(self.client_address[0], self.headers, token):
                return self._answer(403, b"metrics are read from this machine, or with the metrics token\n",
                                    "text/plain")
            body, content_type = render()
            self._answer(200, body, content_type)

        def _answer(self, status: int, body: bytes, content_type: str) -> None:
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Cache-Control", "no-store")
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, fmt, *args) -> None:  # a scrape every 15 s is no news
            log.debug("metrics exporter: " + fmt, *args)

    server_class = ThreadingHTTPServer
    if ":" in host:
        import socket

        server_class = type("Server6", (ThreadingHTTPServer,), {"address_family": socket.AF_INET6})
    return server_class((host, port), Handler)
