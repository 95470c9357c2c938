"""The Celery app for test workers: the product's app plus the test-only
game (registered here, never in the product)."""
from pbem.engine import register_game
from pbem.tasks import app, configure
from tests.minigame import MINI

register_game(MINI)
configure()
__all__ = ["app"]
