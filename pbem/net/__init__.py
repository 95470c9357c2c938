"""Outbound HTTP to addresses users give (chat channels, webhooks, anything
later): the one place pbem makes such requests, so that none of them can be
turned at the server's own network.

The rule (rule.py): pbem calls only addresses reachable from the whole
Internet and not its own, each written as an address or a name -- or in the
operator's allow-list (``PBEM_HTTP_ALLOW``: a lab's, the tests'). A name is
resolved once (resolve.py), every address it answers checked, and the
connection made to exactly the address checked (transport.py: the name kept
for Host, TLS and the certificate), with no redirect followed, within a time
and a size. The code that calls a user's address runs inside ``guarded()``
(guard.py): every ``requests`` session made there goes through that
transport, and any other socket is refused (scope.py's fence). The same rule
answers, when an address is set, whether pbem will call it (``refusal``).

Above the bottom row and the languages, below the store: it needs only the
settings and the words of its refusals."""
from .policy import Policy, policy
from .resolve import Refused, addresses
from .resolve import refusal as _refusal
from .rule import why_not
from .scope import Scope, current

__all__ = ["Blocked", "Policy", "Refused", "Scope", "addresses", "current", "guarded", "pin", "policy", "refusal",
           "session", "why_not"]


def refusal(host: str, cfg=None) -> str:
    """Why pbem will not call ``host`` under the current settings (the reason alone), or ""."""
    return _refusal(host, policy(cfg))


def __getattr__(name: str):
    """The guarded block and its transport, imported when first used: they need ``requests`` (and
    urllib3), a fifth of a process's imports, and only the push delivery calls out (the web and
    the mail ask only ``refusal``)."""
    if name in ("guarded", "pin", "session"):
        from . import guard

        return getattr(guard, name)
    if name == "Blocked":
        from .transport import Blocked

        return Blocked
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
