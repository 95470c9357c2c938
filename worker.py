"""Builds the Celery app: `celery -A worker worker` (or `pbem worker`)."""
from pbem.tasks import app, configure

configure()
__all__ = ["app"]
