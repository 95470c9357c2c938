"""The guarded block as code uses it: ``with guarded() as scope:`` around
anything that calls a user's address.

Inside it every ``requests`` session made -- ``requests.post``,
``requests.request``, a ``requests.Session()``; this is how Apprise's
plugins for the services pbem offers (Discord, Slack, Telegram, Matrix,
ntfy, JSON webhooks) send -- is pinned: its http and https go through the
PinnedAdapter and nothing else (no other scheme, no proxy or .netrc from the
environment, no redirect). requests.Session's constructor is wrapped once,
for the whole process; outside a block it does what it always did. A client
that does not use ``requests`` meets the fence (scope.py) instead."""
from __future__ import annotations

import threading
from contextlib import contextmanager
from typing import Iterator

import requests

from .policy import Policy, policy as current_policy
from .scope import Scope, current, guarded_block
from .transport import PinnedAdapter

_patched = False
_patch_lock = threading.Lock()


def pin(session: requests.Session) -> requests.Session:
    """``session`` made to send through the pinned transport only."""
    session.trust_env = False  # no proxy, CA bundle or .netrc from the environment: the policy's
    session.proxies = {}
    session.max_redirects = 0
    session.adapters.clear()
    adapter = PinnedAdapter()
    session.mount("https://", adapter)
    session.mount("http://", adapter)
    return session


def _patch_requests() -> None:
    global _patched
    if _patched:
        return
    with _patch_lock:
        if _patched:
            return
        original = requests.Session.__init__

        def __init__(self, *args, **kwargs):
            original(self, *args, **kwargs)
            if current() is not None:
                pin(self)

        __init__.__wrapped__ = original  # type: ignore[attr-defined]
        requests.Session.__init__ = __init__  # type: ignore[method-assign]
        _patched = True


@contextmanager
def guarded(policy: Policy | None = None) -> Iterator[Scope]:
    """A block whose requests to users' addresses follow ``policy`` (the settings' when None)."""
    _patch_requests()
    with guarded_block(policy or current_policy()) as scope:
        yield scope


def session() -> requests.Session:
    """A pinned ``requests`` session, for use inside a guarded block."""
    return pin(requests.Session())
