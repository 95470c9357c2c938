"""Real local receivers for every kind of chat channel: what
Apprise's plugins send arrives here, over real HTTP, and is kept for the
tests to read.

- ntfy, a JSON webhook and Matrix name the server they call: each gets an
  HTTP server of its own on PUBLIC (127.0.0.2, a loopback address that the
  tests' settings count as the Internet: ``PBEM_HTTP_ALLOW=127.0.0.2/32``,
  tests/push/conftest.py; 127.0.0.1 stays the server's own network, which
  pbem must never call) (Matrix: the client-server API calls Apprise makes,
  login, join the room by its alias, send, log out);
- Discord, Slack and Telegram call their service's fixed https host, whose
  name the tests' DNS (tests/dnsserver.py) resolves to a public address of
  that service (SERVICE_ADDRESSES): a TLS-intercepting proxy on loopback
  accepts ``CONNECT <that address>:443`` -- pbem asks its HTTPS proxy for
  the address it checked, never the name --, answers with a certificate for
  the service's name signed by a throwaway CA, and serves the request
  itself. ``proxy_env()`` is what makes pbem use it, with certificate
  verification on: HTTPS_PROXY and REQUESTS_CA_BUNDLE.

    with Receivers() as r, r.proxied(monkeypatch):   # or the ``receivers`` fixture
        url = r.url("discord")          # an Apprise URL aimed at the local receiver
        ...                             # deliver
        [req] = r.messages("discord")   # the requests that carried a message
        req.path, req.headers, req.json, req.text

``r.answer(kind, 500, 500)``: the next two messages to ``kind`` are
answered with that status (then 2xx again); ``r.answer(kind, (307, url))``:
the next one is redirected to ``url``.

Behind each receiver that names its server, on the same port of
127.0.0.1 -- the server's own network --, listens an inner listener that
records every connection (``r.inner_hits()``; ``r.inner_url(kind)``): the
``receivers`` fixture fails the test if anything reached one. A name that
the tests' DNS rebinds from 127.0.0.2 to 127.0.0.1 keeps its port and
lands there."""
from __future__ import annotations

import datetime as dt
import json
import socket
import ssl
import tempfile
import threading
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Iterator
from urllib.parse import parse_qs, unquote, urlsplit

KINDS = ("discord", "slack", "telegram", "matrix", "ntfy", "json")
HOSTS = {"discord.com": "discord", "hooks.slack.com": "slack", "api.telegram.org": "telegram"}
PUBLIC = "127.0.0.2"  # where the receivers that name their server listen: "the Internet" of the tests
# the services' hosts as the tests' DNS answers them: public addresses of theirs (the proxy never connects)
SERVICE_ADDRESSES = {"discord.com": "162.159.135.232", "hooks.slack.com": "54.192.142.2",
                     "api.telegram.org": "149.154.167.220"}

# the secrets of the test channels' addresses (the secrecy tests look for them where they must not be)
DISCORD_ID, DISCORD_TOKEN = "1234567890123456789", "dWebhookT0ken-SECRET-abcdefGHIJ_0123456789xyz"
SLACK_A, SLACK_B, SLACK_C = "T1JJ3T3L2", "A1BRTD4JD", "SlackSECRETtokenC0123456789"
TELEGRAM_TOKEN, TELEGRAM_CHAT = "123456789:AAHsecretTelegramBotToken0123456789ab", "-1001234567890"
MATRIX_USER, MATRIX_PASSWORD, MATRIX_TOKEN = "pbem", "matrixSECRETpass", "syt_access_SECRET_token"
MATRIX_SERVER = "pbem.test"  # the homeserver's name in user ids and room aliases
SECRETS = (DISCORD_TOKEN, SLACK_C, TELEGRAM_TOKEN.split(":")[1], MATRIX_PASSWORD, MATRIX_TOKEN)


@dataclass
class Request:
    """One request as it arrived."""

    kind: str
    method: str
    host: str  # the Host header (the CONNECT host behind the proxy)
    path: str  # without the query
    query: dict[str, list[str]]
    headers: dict[str, str]  # names in lower case
    body: bytes
    status: int = 0  # what the receiver answered
    tls: bool = False
    tunnel: str = ""  # behind the proxy: the CONNECT target ("address:443")

    @property
    def json(self):
        try:
            return json.loads(self.body.decode("utf-8"))
        except ValueError:
            return None

    @property
    def is_message(self) -> bool:
        """Whether this request carries a notification (not a Matrix login, join or logout)."""
        if self.kind == "matrix":
            return self.method == "PUT" and "/send/m.room.message/" in self.path
        return self.method == "POST"

    @property
    def text(self) -> str:
        """The notification's words as the service would show them (title, then body)."""
        data = self.json or {}
        if self.kind == "ntfy":
            return "\n".join(p for p in (data.get("title"), data.get("message")) if p)
        if self.kind == "json":
            return "\n".join(p for p in (data.get("title"), data.get("message")) if p)
        if self.kind == "discord":
            return data.get("content") or "\n".join(
                "\n".join(p for p in (e.get("title"), e.get("description")) if p) for e in data.get("embeds", []))
        if self.kind == "slack":
            return "\n".join("\n".join(p for p in (a.get("title"), a.get("text")) if p)
                             for a in data.get("attachments", [])) or data.get("text", "")
        if self.kind == "telegram":
            return data.get("text", "")
        if self.kind == "matrix":
            return data.get("body", "")
        return self.body.decode("utf-8", "replace")


@dataclass
class _Kind:
    requests: list[Request] = field(default_factory=list)
    answers: list = field(default_factory=list)  # forced statuses (or (status, Location)) for the next messages


class Receivers:
    """The six receivers and the proxy; a context manager."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._kinds = {k: _Kind() for k in KINDS}
        self._servers: dict[str, ThreadingHTTPServer] = {}
        self._threads: list[threading.Thread] = []
        self._dir = tempfile.TemporaryDirectory(prefix="pbem-receivers-")
        self.ca_pem = Path(self._dir.name) / "ca.pem"
        self._proxy: _Proxy | None = None
        self._inner: list[Inner] = []

    # ------------------------------------------------------------ the API

    def url(self, kind: str, name: str = "pbem") -> str:
        """An Apprise URL for ``kind`` aimed at its local receiver (``name``:
        the topic, hook, room or chat, to make several addresses of one kind)."""
        if kind == "ntfy":
            return f"ntfy://{PUBLIC}:{self.port('ntfy')}/{name}-topic"
        if kind == "json":
            return f"json://{PUBLIC}:{self.port('json')}/{name}-hook"
        if kind == "matrix":
            return f"matrix://{MATRIX_USER}:{MATRIX_PASSWORD}@{PUBLIC}:{self.port('matrix')}/#{name}-room"
        if kind == "discord":
            return f"discord://{DISCORD_ID}/{DISCORD_TOKEN}" + ("" if name == "pbem" else f"?name={name}")
        if kind == "slack":
            return f"slack://{SLACK_A}/{SLACK_B}/{SLACK_C}/#{name}"
        if kind == "telegram":
            chat = TELEGRAM_CHAT if name == "pbem" else str(-1001234567000 - len(name))
            return f"tgram://{TELEGRAM_TOKEN}/{chat}"
        raise KeyError(kind)

    def received(self, kind: str) -> list[Request]:
        """Every request ``kind``'s receiver got, in order."""
        with self._lock:
            return list(self._kinds[kind].requests)

    def messages(self, kind: str, ok: bool = True) -> list[Request]:
        """The requests that carried a notification (``ok``: only those answered with success)."""
        return [r for r in self.received(kind) if r.is_message and (not ok or 200 <= r.status < 300)]

    def answer(self, kind: str, *statuses) -> None:
        """Answer the next messages to ``kind`` with these statuses, one each."""
        with self._lock:
            self._kinds[kind].answers.extend(statuses)

    def clear(self) -> None:
        with self._lock:
            for k in self._kinds.values():
                k.requests.clear()

    def port(self, kind: str) -> int:
        return self._servers[kind].server_address[1]

    def inner_url(self, kind: str, path: str = "/") -> str:
        """The address of the inner listener behind ``kind``'s receiver (127.0.0.1, the same port)."""
        return f"http://127.0.0.1:{self.port(kind)}{path}"

    def inner_hits(self) -> list[tuple[int, bytes]]:
        """(port, first bytes) of every connection that reached an inner listener."""
        return [hit for inner in self._inner for hit in inner.hits()]

    @property
    def proxy_port(self) -> int:
        assert self._proxy is not None
        return self._proxy.port

    def proxy_env(self) -> dict[str, str]:
        """The environment that sends requests' https calls through the proxy, verified against its CA."""
        return {"HTTPS_PROXY": f"http://127.0.0.1:{self.proxy_port}", "REQUESTS_CA_BUNDLE": str(self.ca_pem)}

    @contextmanager
    def proxied(self, monkeypatch) -> Iterator["Receivers"]:
        """proxy_env() set for the block (and no other proxy in the way)."""
        for name in ("https_proxy", "HTTP_PROXY", "http_proxy", "ALL_PROXY", "all_proxy", "NO_PROXY", "no_proxy",
                     "CURL_CA_BUNDLE"):
            monkeypatch.delenv(name, raising=False)
        for name, value in self.proxy_env().items():
            monkeypatch.setenv(name, value)
        yield self

    # ------------------------------------------------------------ running

    def __enter__(self) -> "Receivers":
        from tests import dnsserver

        for host, address in SERVICE_ADDRESSES.items():
            dnsserver.hosts[host] = [address]
        self._ca = _CA(Path(self._dir.name))
        self.ca_pem.write_bytes(self._ca.cert_pem)
        for kind in ("ntfy", "json", "matrix"):
            inner, server = _pair(_Handler)
            self._inner.append(inner)
            server.daemon_threads = True
            server.receivers, server.kind, server.tls = self, kind, False  # type: ignore[attr-defined]
            self._servers[kind] = server
            t = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
            t.start()
            self._threads.append(t)
        self._proxy = _Proxy(self, self._ca)
        self._proxy.start()
        return self

    def __exit__(self, *exc) -> None:
        for server in self._servers.values():
            server.shutdown()
            server.server_close()
        if self._proxy is not None:
            self._proxy.stop()
        for inner in self._inner:
            inner.stop()
        for t in self._threads:
            t.join(5)
        self._dir.cleanup()

    # ------------------------------------------------------------ answering

    def _record(self, req: Request) -> None:
        with self._lock:
            self._kinds[req.kind].requests.append(req)

    def _forced(self, kind: str) -> int | None:
        with self._lock:
            answers = self._kinds[kind].answers
            return answers.pop(0) if answers else None


class _Handler(BaseHTTPRequestHandler):
    """One receiver's answers, as each service answers a webhook (kind from the server)."""

    protocol_version = "HTTP/1.0"

    def log_message(self, *a) -> None:  # quiet
        pass

    def do_GET(self) -> None:
        self._handle()

    def do_POST(self) -> None:
        self._handle()

    def do_PUT(self) -> None:
        self._handle()

    def _handle(self) -> None:
        server = self.server
        receivers: Receivers = server.receivers  # type: ignore[attr-defined]
        kind = server.kind  # type: ignore[attr-defined]
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        parts = urlsplit(self.path)
        req = Request(kind=kind, method=self.command, host=self.headers.get("Host", ""), path=unquote(parts.path),
                      query=parse_qs(parts.query), headers={k.lower(): v for k, v in self.headers.items()},
                      body=body, tls=server.tls, tunnel=getattr(server, "tunnel", ""))  # type: ignore[attr-defined]
        forced = receivers._forced(kind) if req.is_message else None
        location = None
        if isinstance(forced, tuple):
            forced, location = forced
        if forced is not None:
            status, answer = forced, {"error": f"the test receiver answers {forced}", "code": forced}
        else:
            status, answer = getattr(self, f"_answer_{kind}")(req)
        req.status = status
        receivers._record(req)
        data = answer if isinstance(answer, bytes) else json.dumps(answer).encode()
        self.send_response(status)
        if location:
            self.send_header("Location", location)
        if status != 204:
            self.send_header("Content-Type", "text/plain" if isinstance(answer, bytes) else "application/json")
            self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        if status != 204:
            self.wfile.write(data)

    # each kind's success, as its service answers

    def _answer_ntfy(self, req: Request):
        data = req.json or {}
        return 200, {"id": "abc123", "time": 1700000000, "event": "message", "topic": data.get("topic", ""),
                     "message": data.get("message", "")}

    def _answer_json(self, req: Request):
        return 200, {}

    def _answer_discord(self, req: Request):
        return 204, b""

    def _answer_slack(self, req: Request):
        return 200, b"ok"

    def _answer_telegram(self, req: Request):
        data = req.json or {}
        return 200, {"ok": True, "result": {"message_id": 1, "chat": {"id": data.get("chat_id")},
                                            "text": data.get("text", "")}}

    def _answer_matrix(self, req: Request):
        """The client-server API calls Apprise makes (v3): login, join a room by alias, send, log out."""
        base = "/_matrix/client/v3"
        path = req.path
        if not path.startswith(base):
            return 404, {"errcode": "M_UNRECOGNIZED", "error": "Unrecognized request"}
        path = path[len(base):]
        if path == "/login" and req.method == "POST":
            data = req.json or {}
            if (data.get("type") == "m.login.password" and data.get("password") == MATRIX_PASSWORD
                    and (data.get("identifier") or {}).get("user") == MATRIX_USER):
                return 200, {"access_token": MATRIX_TOKEN, "user_id": f"@{MATRIX_USER}:{MATRIX_SERVER}",
                             "device_id": "PBEMDEVICE"}
            return 403, {"errcode": "M_FORBIDDEN", "error": "Invalid username or password"}
        if req.headers.get("authorization") != f"Bearer {MATRIX_TOKEN}":
            return 401, {"errcode": "M_MISSING_TOKEN", "error": "Missing access token"}
        if path.startswith("/join/") and req.method == "POST":
            alias = path[len("/join/"):]
            if not alias.startswith("#") or not alias.endswith(f":{MATRIX_SERVER}"):
                return 404, {"errcode": "M_NOT_FOUND", "error": f"Room alias {alias} not found"}
            return 200, {"room_id": f"!{alias[1:].split(':')[0]}:{MATRIX_SERVER}"}
        if "/send/m.room.message/" in path and req.method == "PUT" and path.startswith("/rooms/!"):
            return 200, {"event_id": f"$event{len(path)}"}
        if path == "/logout" and req.method == "POST":
            return 200, {}
        return 404, {"errcode": "M_UNRECOGNIZED", "error": "Unrecognized request"}


class Inner:
    """A listener on the server's own network (127.0.0.1) that records every
    connection made to it, and the first bytes sent: what pbem must never reach."""

    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock
        self.port = sock.getsockname()[1]
        self._hits: list[tuple[int, bytes]] = []
        self._lock = threading.Lock()
        self._stop = threading.Event()
        sock.listen(16)
        sock.settimeout(0.1)
        self._thread = threading.Thread(target=self._accept, daemon=True)
        self._thread.start()

    @classmethod
    def on(cls, port: int = 0) -> "Inner":
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.bind(("127.0.0.1", port))
        return cls(sock)

    def hits(self) -> list[tuple[int, bytes]]:
        with self._lock:
            return list(self._hits)

    def _accept(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _addr = self.sock.accept()
            except (TimeoutError, socket.timeout):
                continue
            except OSError:
                return
            with conn:
                conn.settimeout(0.5)
                try:
                    first = conn.recv(4096)
                except OSError:
                    first = b""
                with self._lock:
                    self._hits.append((self.port, first))
                try:
                    conn.sendall(b"HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\n{}")
                except OSError:
                    pass

    def stop(self) -> None:
        self._stop.set()
        self.sock.close()
        self._thread.join(5)


def _pair(handler) -> tuple[Inner, ThreadingHTTPServer]:
    """An inner listener on 127.0.0.1:<port> and an HTTP server on PUBLIC:<the same port>."""
    for _attempt in range(50):
        inner_sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        inner_sock.bind(("127.0.0.1", 0))
        port = inner_sock.getsockname()[1]
        try:
            server = ThreadingHTTPServer((PUBLIC, port), handler)
        except OSError:
            inner_sock.close()
            continue
        return Inner(inner_sock), server
    raise RuntimeError("no port free on both 127.0.0.1 and 127.0.0.2")


class _CA:
    """A throwaway certificate authority, and a certificate for each host asked for."""

    def __init__(self, where: Path) -> None:
        from cryptography import x509
        from cryptography.hazmat.primitives import hashes, serialization
        from cryptography.hazmat.primitives.asymmetric import ec
        from cryptography.x509.oid import NameOID

        self._where = where
        self._x509, self._hashes, self._ser, self._ec, self._oid = x509, hashes, serialization, ec, NameOID
        self.key = ec.generate_private_key(ec.SECP256R1())
        name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "pbem test CA")])
        now = dt.datetime.now(dt.timezone.utc)
        self.cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name)
                     .public_key(self.key.public_key()).serial_number(x509.random_serial_number())
                     .not_valid_before(now - dt.timedelta(days=1)).not_valid_after(now + dt.timedelta(days=2))
                     .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
                     .add_extension(x509.KeyUsage(digital_signature=True, key_cert_sign=True, crl_sign=True,
                                                  content_commitment=False, key_encipherment=False,
                                                  data_encipherment=False, key_agreement=False,
                                                  encipher_only=False, decipher_only=False), critical=True)
                     .add_extension(x509.SubjectKeyIdentifier.from_public_key(self.key.public_key()), critical=False)
                     .sign(self.key, hashes.SHA256()))
        self.cert_pem = self.cert.public_bytes(serialization.Encoding.PEM)
        self._contexts: dict[str, ssl.SSLContext] = {}
        self._lock = threading.Lock()

    def context(self, host: str) -> ssl.SSLContext:
        with self._lock:
            if host not in self._contexts:
                self._contexts[host] = self._make(host)
            return self._contexts[host]

    def _make(self, host: str) -> ssl.SSLContext:
        x509, hashes, ser = self._x509, self._hashes, self._ser
        key = self._ec.generate_private_key(self._ec.SECP256R1())
        now = dt.datetime.now(dt.timezone.utc)
        cert = (x509.CertificateBuilder()
                .subject_name(x509.Name([x509.NameAttribute(self._oid.COMMON_NAME, host)]))
                .issuer_name(self.cert.subject).public_key(key.public_key())
                .serial_number(x509.random_serial_number())
                .not_valid_before(now - dt.timedelta(days=1)).not_valid_after(now + dt.timedelta(days=2))
                .add_extension(x509.SubjectAlternativeName([x509.DNSName(host)]), critical=False)
                .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
                .add_extension(x509.KeyUsage(digital_signature=True, key_cert_sign=False, crl_sign=False,
                                             content_commitment=False, key_encipherment=False,
                                             data_encipherment=False, key_agreement=False,
                                             encipher_only=False, decipher_only=False), critical=True)
                .add_extension(x509.ExtendedKeyUsage([x509.oid.ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
                .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), critical=False)
                .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(self.key.public_key()),
                               critical=False)
                .sign(self.key, hashes.SHA256()))
        cert_file, key_file = self._where / f"{host}.pem", self._where / f"{host}.key"
        cert_file.write_bytes(cert.public_bytes(ser.Encoding.PEM))
        key_file.write_bytes(key.private_bytes(ser.Encoding.PEM, ser.PrivateFormat.PKCS8, ser.NoEncryption()))
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(str(cert_file), str(key_file))
        return ctx


class _Proxy:
    """An HTTP proxy that takes CONNECT to the services' addresses only and
    answers them itself, over TLS with the CA's certificate for the service's name."""

    def __init__(self, receivers: Receivers, ca: _CA) -> None:
        self.receivers, self.ca = receivers, ca
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(32)
        self.port = self.sock.getsockname()[1]
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._accept, daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        try:
            self.sock.close()
        finally:
            self._thread.join(5)

    def _accept(self) -> None:
        self.sock.settimeout(0.1)
        while not self._stop.is_set():
            try:
                conn, addr = self.sock.accept()
            except (TimeoutError, socket.timeout):
                continue
            except OSError:
                return
            threading.Thread(target=self._serve, args=(conn, addr), daemon=True).start()

    def _serve(self, conn: socket.socket, addr) -> None:
        conn.settimeout(30)
        try:
            head = b""
            while b"\r\n\r\n" not in head:
                chunk = conn.recv(4096)
                if not chunk:
                    return
                head += chunk
                if len(head) > 65536:
                    return
            line = head.split(b"\r\n", 1)[0].decode("latin-1").split()
            if len(line) < 2 or line[0] != "CONNECT":
                conn.sendall(b"HTTP/1.1 405 Method Not Allowed\r\nContent-Length: 0\r\n\r\n")
                return
            address, _sep, port = line[1].rpartition(":")
            host = next((h for h, a in SERVICE_ADDRESSES.items() if a == address), None)
            if host is None or port != "443":
                conn.sendall(b"HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\n\r\n")
                return
            conn.sendall(b"HTTP/1.1 200 Connection Established\r\n\r\n")
            tls = self.ca.context(host).wrap_socket(conn, server_side=True)
            server = _ProxyTarget(self.receivers, HOSTS[host], tunnel=line[1])
            _Handler(tls, addr, server)
            try:
                tls.unwrap()
            except (OSError, ValueError):
                pass
        except (OSError, ssl.SSLError):
            pass
        finally:
            try:
                conn.close()
            except OSError:
                pass


@dataclass
class _ProxyTarget:
    """What _Handler reads from its "server" behind the proxy."""

    receivers: Receivers
    kind: str
    tls: bool = True
    tunnel: str = ""
