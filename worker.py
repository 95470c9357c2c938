"""Builds the Celery app: `celery -A worker worker` (or `pbem worker`)."""
from pbem import i18n
from pbem.tasks import app, configure

i18n.ensure_compiled()
configure()
__all__ = ["app"]
