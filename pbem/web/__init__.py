"""The web site: create_app() and one blueprint per area."""
from __future__ import annotations

from pathlib import Path

from flask import Flask

from pbem.config import TEMPLATES, Settings, settings


def create_app(cfg: Settings | None = None) -> Flask:
    cfg = cfg or settings()
    app = Flask(__name__, template_folder=str(TEMPLATES), root_path=str(TEMPLATES.parent),
                static_folder=str(Path(__file__).resolve().parent / "static"),
                instance_path=str(cfg.var_dir / "instance"))
    app.config.update(SECRET_KEY=cfg.secret_key, PBEM_SETTINGS=cfg,
                      SESSION_COOKIE_HTTPONLY=True, SESSION_COOKIE_SAMESITE="Lax",
                      SESSION_COOKIE_SECURE=cfg.base_url.startswith("https://"),
                      WTF_CSRF_TIME_LIMIT=None)

    from .outbox import bp as outbox_bp

    app.register_blueprint(outbox_bp)

    from . import site

    site.install(app)

    from .disputes import bp as disputes_bp  # issue 7: admin disputes queue
    from .manage import bp as manage_bp  # issue 7: per-game management

    app.register_blueprint(manage_bp)
    app.register_blueprint(disputes_bp)

    @app.get("/healthz")
    def healthz():
        return {"ok": True}

    return app
