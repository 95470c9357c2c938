"""Delivery of the chat channels' notifications: above the
services (it reads and records through them and the store), below the tasks
(pbem.push runs it). Nothing in services, web or mail imports it: queueing
is the store's (store/pushbox.py)."""
from .deliver import deliver

__all__ = ["deliver"]
