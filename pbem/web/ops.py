"""Operations pages (docs/metrics.md): ``/healthz`` (public: only
booleans, counts and ages; 200 when healthy, 503 when not) and ``/metrics``
(Prometheus text; only from loopback, and never through a proxy, unless a
token is set, which every scraper must then send)."""
from __future__ import annotations

from flask import Blueprint, Response, current_app, jsonify, request

from pbem import metrics
from pbem.store import health

bp = Blueprint("ops", __name__)



@bp.get("/healthz")
def healthz():
    h = health.check(current_app.config["PBEM_SETTINGS"])
    resp = jsonify(h.as_json())
    resp.status_code = 200 if h.ok else 503
    resp.headers["Cache-Control"] = "no-store"
    return resp


def may_scrape() -> bool:
    return metrics.may_scrape(request.remote_addr, request.headers, current_app.config["PBEM_SETTINGS"].metrics_token)


@bp.get("/metrics")
def scrape():
    if not may_scrape():
        return Response("metrics are read from this machine, or with the metrics token\n", status=403,
                        mimetype="text/plain")
    body, content_type = metrics.render(StateCollector(current_app.config["PBEM_SETTINGS"]))
    return Response(body, content_type=content_type, headers={"Cache-Control": "no-store"})


class StateCollector:
    """Gauges read at scrape time from the database and the broker (the
    health checks' figures): what is, whichever process made it so."""

    def __init__(self, cfg):
        self.cfg = cfg

    def collect(self):
        from prometheus_client.core import GaugeMetricFamily

        h = health.check(self.cfg)

        def gauge(name, doc, value):
            g = GaugeMetricFamily(name, doc)
            if value is not None:
                g.add_metric([], float(value))
            return g

        yield gauge("pbem_up", "1 when /healthz says healthy", 1 if h.ok else 0)
        checks = GaugeMetricFamily("pbem_check_ok", "Each health check: 1 ok, 0 not", labels=["check"])
        for name in health.CHECKS:
            checks.add_metric([name], 1 if getattr(h, name).ok else 0)
        yield checks
        yield gauge("pbem_outbox_unsent", "Outbox rows not sent yet (queued or being sent)",
                    h.outbox.detail.get("unsent"))
        yield gauge("pbem_outbox_oldest_age_seconds", "Age of the oldest unsent outbox row (0: none)",
                    h.outbox.detail.get("oldest_age_s") or (0 if h.outbox.detail else None))
        yield gauge("pbem_inbound_waiting", "Received mails not processed yet", h.inbound.detail.get("waiting"))
        yield gauge("pbem_inbound_oldest_age_seconds", "Age of the oldest mail not processed yet (0: none)",
                    h.inbound.detail.get("oldest_age_s") or (0 if h.inbound.detail else None))
        yield gauge("pbem_inbound_failed_recent", "Mails received within PBEM_HEALTH_FAILING_WINDOW_S that failed "
                    "in the pipeline", h.pipeline.detail.get("failed"))
        yield gauge("pbem_inbound_finished_recent", "Mails received within PBEM_HEALTH_FAILING_WINDOW_S that the "
                    "pipeline finished (done, ignored or failed)", h.pipeline.detail.get("finished"))
        yield gauge("pbem_beat_age_seconds", "Seconds since the beat's deadline sweep last ran",
                    h.beat.detail.get("age_s"))
        yield gauge("pbem_queue_depth", "Tasks waiting in the Celery queue", h.broker.detail.get("queue_depth"))
        yield gauge("pbem_queue_unacked", "Tasks a worker took and has not finished (Redis)",
                    h.broker.detail.get("unacked"))
