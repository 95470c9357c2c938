"""Builds the Celery app: `celery -A pbem.worker worker` (or `pbem worker`)."""
from pbem import i18n
from pbem.config import require_secret_key, settings
from pbem.tasks import app, configure

require_secret_key(settings())  # production: the links and bounce addresses a worker signs need the shared key
i18n.ensure_compiled()
configure()
__all__ = ["app"]
