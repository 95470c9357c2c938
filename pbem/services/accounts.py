"""Users and identity: addresses, display names, renaming, a new address."""
from __future__ import annotations

import re
import secrets
from email.utils import parseaddr

from email_validator import EmailNotValidError, validate_email
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, select

from pbem.store import names
from pbem.store.models import User

from . import sessions
from .errors import UserError

NAME_RE = re.compile(r"^[^\x00-\x1f<>@]{1,40}$")
EMAIL_EXAMPLE = "anna@example.org"


def normalise_email(addr: str) -> str:
    return parseaddr(addr or "")[1].strip().lower()


def valid_email(addr: str) -> str:
    """``addr`` as pbem stores it (lower case), or a UserError saying what is wrong with it. The syntax
    is checked by email-validator, without looking the domain up; the ``.test`` names (RFC 2606, the
    test suite's) are allowed."""
    try:
        return validate_email((addr or "").strip(), check_deliverability=False,
                              test_environment=True).normalized.lower()
    except EmailNotValidError as e:
        raise UserError(f"that is not an e-mail address: {e}", example=EMAIL_EXAMPLE, code="bad_email") from None


def find_user(s: Session, email: str) -> User | None:
    email = normalise_email(email)
    if not email:
        return None
    return s.exec(select(User).where(User.email == email)).first()


def clean_name(name: str) -> str:
    """The name as it is stored and shown (store/names.display), or a UserError."""
    name = names.display(name)
    if not NAME_RE.match(name):
        raise UserError(
            "a name is 1 to 40 characters, without '<', '>' or '@'",
            example="REGISTER Anna K.",
            code="bad_name",
        )
    if names.is_reserved(name):
        raise UserError(f"the name {name!r} is what pbem calls bots and empty seats; please choose another",
                        example="REGISTER Anna K.", code="name_reserved")
    return name


def _holder(s: Session, key: str) -> User | None:
    return s.exec(select(User).where(User.name_key == key)).first()


def _free_name(s: Session, name: str) -> str:
    """A name like ``name`` that nobody holds: "Ann 2", "Ann 3", ..."""
    for n in range(2, 1000):
        tail = f" {n}"
        candidate = name[:40 - len(tail)].rstrip() + tail
        if _holder(s, names.key(candidate)) is None and not names.is_reserved(candidate):
            return candidate
    return name[:31] + " " + secrets.token_hex(4)


def _name_taken(s: Session, name: str) -> UserError:
    free = _free_name(s, name)
    return UserError(f"the name {name!r} is taken (names are told apart without case, invisible characters or "
                     f"look-alike letters); {free!r} is free", example=f"REGISTER {free}", code="name_taken")


def _set_name(s: Session, user: User, name: str) -> None:
    """Give ``user`` the name (already cleaned) if its key is free; refuse otherwise."""
    key = names.key(name)
    holder = _holder(s, key)
    if holder is not None and holder.id != user.id:
        if name == user.name and user.confirmed:  # a name shared before names were unique (0010) stays as it was
            return
        raise _name_taken(s, name)
    user.name, user.name_key = name, key
    s.add(user)
    try:
        with s.begin_nested():
            s.flush()
    except IntegrityError:  # another transaction took the name since we looked
        raise _name_taken(s, name) from None


def rename(s: Session, user: User, name: str) -> User:
    _set_name(s, user, clean_name(name))
    return user


def register(s: Session, email: str, name: str, *, confirmed: bool = False) -> tuple[User, bool]:
    """Create the account for ``email``, or rename it. Returns (user, created)."""
    email = valid_email(email)
    name = clean_name(name)
    user = find_user(s, email)
    if user is None:
        key = names.key(name)
        if _holder(s, key) is not None:
            raise _name_taken(s, name)
        user = User(email=email, name=name, name_key=key, confirmed=confirmed)
        try:
            with s.begin_nested():
                s.add(user)
                s.flush()
            return user, True
        except IntegrityError:  # another transaction made this account (a double click), or took the name
            user = find_user(s, email)
            if user is None:
                raise _name_taken(s, name) from None
    _set_name(s, user, name)
    if confirmed:
        user.confirmed = True
    s.add(user)
    s.flush()
    return user, False


def change_email(s: Session, user: User, email: str) -> User:
    """Give ``user`` the address ``email`` (proven by a link mailed to it). Every session of the
    user ends, and every link not yet spent: whoever held them held them for the old address."""
    email = valid_email(email)
    other = find_user(s, email)
    if other is not None and other.id != user.id:
        raise UserError(f"{email} already has an account on pbem, so it cannot become the address of another; "
                        f"nothing was changed (log in with it to use that account)", example="/login",
                        code="address_taken")
    user.email = email
    s.add(user)
    try:
        with s.begin_nested():
            s.flush()
    except IntegrityError:
        raise UserError(f"{email} has just been given to another account; nothing was changed",
                        example="/login", code="address_taken") from None
    sessions.end_all(s, user)
    return user


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
