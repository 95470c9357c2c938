"""A guarded block: the requests made to a user's address (one delivery to
a chat channel) and the fence around them.

Inside the block (a context variable: this thread's, or this task's), the
names looked up are remembered (each is resolved once, and every request of
the block goes to the address checked then), the block's time budget runs,
and what the transport refused is kept, in words, for the error shown to the
channel's owner.

The fence is an audit hook (``sys.addaudithook``: Python raises
``socket.connect``, ``socket.sendto`` and ``socket.sendmsg`` before any
socket of the process connects or sends to an address): inside a guarded
block, only the transport's own connections (to a checked address, the
operator's proxy or DNS server) pass; any other -- a library that opens its
own socket, urllib, a second HTTP client -- gets PermissionError. Outside a
block the hook returns at once. (An audit hook cannot be removed: it is
installed once, the first time a block opens.)"""
from __future__ import annotations

import sys
import threading
import time
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Iterator

from pbem.i18n import _

from .policy import Policy
from .rule import IP

_current: ContextVar["Scope | None"] = ContextVar("pbem_net_scope", default=None)
_ours: ContextVar[bool] = ContextVar("pbem_net_ours", default=False)
_WATCHED = frozenset({"socket.connect", "socket.sendto", "socket.sendmsg"})
_installed = False
_install_lock = threading.Lock()


class Scope:
    def __init__(self, policy: Policy) -> None:
        self.policy = policy
        self.deadline = time.monotonic() + policy.budget_s
        self.resolved: dict[str, list[IP]] = {}  # name (lower case) -> the addresses checked
        self.refusals: list[str] = []  # what the transport refused or gave up on, in words

    def remaining(self) -> float:
        return self.deadline - time.monotonic()

    def note(self, text: str) -> str:
        if text not in self.refusals:
            self.refusals.append(text)
        return text


def current() -> Scope | None:
    return _current.get()


@contextmanager
def guarded_block(policy: Policy) -> Iterator[Scope]:
    """Run the block with ``policy``: the fence up (in this context only)."""
    _install_fence()
    scope = Scope(policy)
    token = _current.set(scope)
    try:
        yield scope
    finally:
        _current.reset(token)


@contextmanager
def ours() -> Iterator[None]:
    """The transport's own connections (checked addresses, the proxy, the DNS server): let through."""
    token = _ours.set(True)
    try:
        yield
    finally:
        _ours.reset(token)


def _fence(event: str, args: tuple) -> None:
    if event not in _WATCHED:
        return
    scope = _current.get()
    if scope is None or _ours.get():
        return
    address = args[1] if len(args) > 1 else None
    if event == "socket.sendmsg" and address is None:  # a connected socket: checked when it connected
        return
    shown = address[0] if isinstance(address, tuple) and address else address
    raise PermissionError(scope.note(_("pbem lets nothing but its checked transport connect for a channel "
                                       "(%(address)s)", address=str(shown)[:100])))


def _install_fence() -> None:
    global _installed
    if _installed:
        return
    with _install_lock:
        if not _installed:
            sys.addaudithook(_fence)
            _installed = True
