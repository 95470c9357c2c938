"""Errors the services raise. UserError messages go back to the user as they
are; anything else is a system error (logged, mail kept for a re-drive)."""


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
        return self.message + (f"\n  e.g. {self.example}" if self.example else "")


class NotFound(UserError):
    code = "not_found"


class Forbidden(UserError):
    code = "forbidden"


class StaleMoveError(UserError):
    """The mail answers an older board and the position has changed since."""

    code = "stale"


class ConcurrentUpdate(RuntimeError):
    """Another transaction moved the game first; the caller retries."""
