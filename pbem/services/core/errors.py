"""Errors the services raise. UserError messages go back to the user as they
are; anything else is a system error (logged, mail kept for a re-drive).
A message is written (``pbem.i18n._``) where it is raised, in the language
of the person it answers (the mail's sender, the page's viewer)."""
from pbem.i18n import _


class UserError(ValueError):
    """Something the user can fix: the message says what and shows an example."""

    code = "user_error"

    def __init__(self, message: str, *, example: str | None = None, code: str | None = None):
        super().__init__(message)
        self.message = message
        self.example = example
        if code:
            self.code = code

    def describe(self) -> str:
        if not self.example:
            return self.message
        # "e.g." in the reader's language, one word; the example itself is notation or a command, never translated
        eg = _("e.g.")
        return f"{self.message}\n  {eg} {self.example}"


class NotFound(UserError):
    code = "not_found"


class Forbidden(UserError):
    code = "forbidden"


class StaleMoveError(UserError):
    """The mail answers an older board and the position has changed since."""

    code = "stale"


class ConcurrentUpdate(RuntimeError):
    """Another transaction moved the game first; the caller retries."""
