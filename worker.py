"""`celery -A worker` from a clone's root, as before: the app is pbem.worker's (installed: `celery -A pbem.worker`)."""
from pbem.worker import app

__all__ = ["app"]
