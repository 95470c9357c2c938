"""Users and identity."""
from __future__ import annotations

import re
from email.utils import parseaddr

from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, select

from pbem.store.models import User

from .errors import UserError

NAME_RE = re.compile(r"^[^\x00-\x1f<>@]{1,40}$")


def normalise_email(addr: str) -> str:
    return parseaddr(addr or "")[1].strip().lower()


def find_user(s: Session, email: str) -> User | None:
    email = normalise_email(email)
    if not email:
        return None
    return s.exec(select(User).where(User.email == email)).first()


def clean_name(name: str) -> str:
    name = " ".join((name or "").split())
    if not NAME_RE.match(name):
        raise UserError(
            "a name is 1 to 40 characters, without '<', '>' or '@'",
            example="REGISTER Anna K.",
            code="bad_name",
        )
    return name


def register(s: Session, email: str, name: str, *, confirmed: bool = False) -> tuple[User, bool]:
    """Create the account for ``email``, or rename it. Returns (user, created)."""
    email = normalise_email(email)
    if not email or "@" not in email:
        raise UserError("that is not an e-mail address", example="anna@example.org", code="bad_email")
    name = clean_name(name)
    user = find_user(s, email)
    if user is None:
        user = User(email=email, name=name, confirmed=confirmed)
        try:
            with s.begin_nested():
                s.add(user)
                s.flush()
            return user, True
        except IntegrityError:  # another transaction created it since we looked (a double click): take that one
            user = find_user(s, email)
            if user is None:
                raise
    user.name = name
    if confirmed:
        user.confirmed = True
    s.add(user)
    s.flush()
    return user, False


def set_admin(s: Session, email: str, admin: bool = True) -> User:
    """Flag (or unflag) the account of ``email`` as an administrator."""
    user = find_user(s, email)
    if user is None:
        raise UserError(f"no account has the address {normalise_email(email) or email!r}; sign up first",
                        example="pbem admin ann@example.org", code="no_account")
    user.is_admin = admin
    s.add(user)
    s.flush()
    return user
