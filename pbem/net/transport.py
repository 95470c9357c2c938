"""The one way pbem sends HTTP to a user-given address: a ``requests``
transport adapter that pins each connection to the address it checked.

For each request: the host is resolved once (resolve.addresses: every
address must pass the rule), and the socket connects to exactly that address
-- the request keeps the name for its Host header, the TLS server name and
the certificate check, so a name whose DNS answers differently the next time
(rebinding) changes nothing. Through the operator's HTTPS proxy, the tunnel
is asked for the checked address (``CONNECT 203.0.113.7:443``), never the
name. No redirect is followed: a 3xx answer is a refused request. The answer
is read within the request's time (settings().notify_timeout_s for the
whole exchange, whatever the server dribbles: a watchdog closes the socket)
and the block's budget, and up to Policy.max_bytes, uncompressed (pbem asks
for ``identity``; a compressed answer is refused unread)."""
from __future__ import annotations

import ipaddress
import socket
import threading
import time
from urllib.parse import urlsplit

import requests
import urllib3
from requests.adapters import HTTPAdapter
from urllib3.connection import HTTPConnection, HTTPSConnection
from urllib3.exceptions import ConnectTimeoutError, NewConnectionError, ReadTimeoutError
from urllib3.util import Timeout

from pbem.i18n import _, ngettext

from .resolve import Refused, addresses
from .rule import IP
from .scope import Scope, current, ours

REDIRECTS = (301, 302, 303, 307, 308)
CHUNK = 64 * 1024
SCHEMES = ("http", "https")


class Blocked(requests.exceptions.ConnectionError):
    """A request the transport refused or gave up on (``str()`` says why, in the reader's language).
    A ``requests`` ConnectionError: whoever catches those (Apprise's plugins do) sees a failed send."""


class _Pinned:
    """A urllib3 connection whose socket goes to the checked addresses (or
    through the proxy to them), however urllib3 or http.client name the host."""

    def __init__(self, *args, pinned: list[IP], proxy: str, deadline: float, watch: "Watch", **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._pinned, self._proxy, self._deadline, self._watch_state = pinned, proxy, deadline, watch
        self._watchdog: threading.Timer | None = None

    def _new_conn(self) -> socket.socket:
        left = self._deadline - time.monotonic()
        if left <= 0:
            raise ConnectTimeoutError(self, f"no time left to connect to {self.host}")
        timeout = left if self.timeout is None or not isinstance(self.timeout, (int, float)) \
            else min(float(self.timeout), left)
        last: OSError | None = None
        with ours():
            for ip in self._pinned:
                try:
                    if self._proxy:
                        sock = _tunnel(self._proxy, ip, self.port, timeout, self._deadline)
                    else:
                        sock = socket.create_connection((str(ip), self.port), timeout)
                    break
                except socket.timeout as e:
                    raise ConnectTimeoutError(self, f"connecting to {self.host} timed out") from e
                except OSError as e:
                    last = e
            else:
                raise NewConnectionError(self, f"Failed to establish a new connection: {last}")
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self._watch(sock, self._deadline - time.monotonic())
        return sock

    def _watch(self, sock: socket.socket, seconds: float) -> None:
        """Close the socket when the request's time is up, whatever read or write it is in."""
        def expire() -> None:
            self._watch_state.expired = True
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

        self._watchdog = threading.Timer(max(0.0, seconds), expire)
        self._watchdog.daemon = True
        self._watchdog.start()

    def close(self) -> None:
        if self._watchdog is not None:
            self._watchdog.cancel()
        super().close()


class Watch:
    """Whether a request's watchdog closed its socket (then a body cut short is no body)."""

    expired = False


class PinnedHTTPConnection(_Pinned, HTTPConnection):
    pass


class PinnedHTTPSConnection(_Pinned, HTTPSConnection):
    pass


def _tunnel(proxy: str, ip: IP, port: int, timeout: float, deadline: float) -> socket.socket:
    """A socket through the HTTPS proxy to ``ip``:``port`` (CONNECT to the address, not the name)."""
    host, _sep, pport = proxy.rpartition(":")
    sock = socket.create_connection((host.strip("[]"), int(pport)), timeout)
    try:
        target = f"[{ip}]:{port}" if isinstance(ip, ipaddress.IPv6Address) else f"{ip}:{port}"
        sock.sendall(f"CONNECT {target} HTTP/1.1\r\nHost: {target}\r\n\r\n".encode("ascii"))
        head = b""
        while b"\r\n\r\n" not in head:
            sock.settimeout(max(0.01, min(timeout, deadline - time.monotonic())))
            chunk = sock.recv(4096)
            if not chunk or len(head) > 16384:
                raise OSError("the proxy closed the tunnel")
            head += chunk
        status = head.split(b"\r\n", 1)[0].split()
        if len(status) < 2 or status[1] != b"200":
            line = head.split(b"\r\n", 1)[0][:100].decode("latin-1")
            raise OSError(f"the proxy refused the tunnel: {line}")
        sock.settimeout(timeout)
        return sock
    except BaseException:
        sock.close()
        raise


class PinnedAdapter(HTTPAdapter):
    """requests' transport for the guarded block: every request checked and pinned, none redirected."""

    def send(self, request, stream=False, timeout=None, verify=True, cert=None, proxies=None):
        scope = current()
        if scope is None:
            raise Blocked(_("pbem calls a user's address only inside a guarded block"), request=request)
        return _send(self, scope, request, timeout, verify)


def _send(adapter: PinnedAdapter, scope: Scope, request, timeout, verify) -> requests.Response:
    policy = scope.policy
    parts = urlsplit(request.url)
    scheme, host = parts.scheme.lower(), parts.hostname or ""
    if scheme not in SCHEMES:
        raise Blocked(scope.note(_("pbem sends only over http and https, not %(scheme)s", scheme=scheme)),
                      request=request)
    try:
        port = parts.port or (443 if scheme == "https" else 80)
        pinned = addresses(host, policy, scope)
    except Refused as e:
        raise Blocked(scope.note(str(e)), request=request) from None
    except ValueError:
        raise Blocked(scope.note(_("pbem cannot read the address %(host)s", host=host[:100])),
                      request=request) from None
    left = scope.remaining()
    if left <= 0:
        raise Blocked(scope.note(ngettext("the delivery took longer than %(num)d second in all",
                                          "the delivery took longer than %(num)d seconds in all",
                                          int(policy.budget_s))),
                      request=request)
    connect_s, read_s = _timeouts(timeout, policy.timeout_s)
    deadline = time.monotonic() + min(policy.timeout_s, left)
    watch = Watch()
    conn_kw = {"pinned": pinned, "proxy": policy.proxy if scheme == "https" else "", "deadline": deadline,
               "watch": watch}
    if scheme == "https":
        pool = urllib3.HTTPSConnectionPool(
            host, port, maxsize=1, block=False, retries=False,
            cert_reqs="CERT_REQUIRED" if verify is not False else "CERT_NONE",
            ca_certs=policy.ca_file or (verify if isinstance(verify, str) else None) or _default_ca(),
            assert_hostname=None if verify is not False else False, **conn_kw)
        pool.ConnectionCls = PinnedHTTPSConnection
    else:
        pool = urllib3.HTTPConnectionPool(host, port, maxsize=1, block=False, retries=False, **conn_kw)
        pool.ConnectionCls = PinnedHTTPConnection
    headers = dict(request.headers)
    headers["Host"] = parts.netloc.rsplit("@", 1)[-1]
    headers["Accept-Encoding"] = "identity"
    resp = None
    try:
        body = request.body
        resp = pool.urlopen(method=request.method, url=request.path_url, body=body, headers=headers,
                            redirect=False, assert_same_host=False, preload_content=False, decode_content=False,
                            retries=False, timeout=Timeout(connect=connect_s, read=read_s),
                            chunked=body is not None and not isinstance(body, (bytes, str))
                            and "Content-Length" not in request.headers)
        if resp.status in REDIRECTS:
            raise Blocked(scope.note(_("%(host)s answered with a redirect (%(status)d), and pbem follows none",
                                       host=host, status=resp.status)), request=request)
        encoding = (resp.headers.get("Content-Encoding") or "identity").strip().lower()
        if encoding not in ("", "identity"):
            raise Blocked(scope.note(_("%(host)s answered compressed (%(encoding)s), which pbem did not ask for",
                                       host=host, encoding=encoding[:20])), request=request)
        data = bytearray()
        while True:
            chunk = resp.read(CHUNK)
            if not chunk:
                break
            data += chunk
            if len(data) > policy.max_bytes:
                raise Blocked(scope.note(_("%(host)s answered with more than %(kb)d KB, more than a chat service "
                                           "says", host=host, kb=policy.max_bytes // 1024)), request=request)
        if watch.expired:
            raise _too_slow(scope, host, policy.timeout_s, request)
    except Blocked:
        raise
    except (ReadTimeoutError, ConnectTimeoutError, socket.timeout) as e:
        if isinstance(e, ConnectTimeoutError):
            raise requests.exceptions.ConnectTimeout(e, request=request) from None
        raise _too_slow(scope, host, policy.timeout_s, request) from None
    except urllib3.exceptions.SSLError as e:
        raise requests.exceptions.SSLError(e, request=request) from None
    except (urllib3.exceptions.HTTPError, OSError) as e:
        if watch.expired:
            raise _too_slow(scope, host, policy.timeout_s, request) from None
        raise requests.exceptions.ConnectionError(e, request=request) from None
    finally:
        if resp is not None:
            resp.release_conn()
        pool.close()
    response = adapter.build_response(request, resp)
    response._content = bytes(data)
    response._content_consumed = True
    return response


def _too_slow(scope: Scope, host: str, seconds: float, request) -> requests.exceptions.ReadTimeout:
    # a fraction of a second takes the plural in each language, as 2 does ("1.5 seconds", "1,5 секунды")
    n = int(seconds) if float(seconds).is_integer() else 2
    return requests.exceptions.ReadTimeout(scope.note(ngettext("%(host)s did not answer within %(num)s second",
                                                               "%(host)s did not answer within %(num)s seconds", n,
                                                               host=host, num=f"{seconds:g}")), request=request)


def _timeouts(timeout, limit: float) -> tuple[float, float]:
    """(connect, read) seconds: the caller's, never more than the policy's."""
    if isinstance(timeout, tuple):
        connect, read = timeout
    else:
        connect = read = timeout
    return (min(float(connect), limit) if connect else limit), (min(float(read), limit) if read else limit)


def _default_ca() -> str | None:
    try:
        import certifi

        return certifi.where()
    except ImportError:  # the system's store
        return None
