"""The Celery app and its configuration, at the bottom of the house: the
tasks (pbem/tasks.py) are registered on it, and the outbox (pbem/store/
outbox.py) hands mail to the send task by name through it, without
importing the layers above it."""
from __future__ import annotations

from celery import Celery
from kombu import Exchange, Queue

from pbem.config import Settings, settings

app = Celery("pbem")
SEND_TASK = "pbem.send_outbound"
BOT_TASK = "pbem.bot_move"
PROCESS_TASK = "pbem.process_inbound"
PUSH_TASK = "pbem.push"  # chat notifications (pbem/push/deliver.py)
SWEEP_EVERY_S = 30.0  # the defaults of settings().sweep_every_s and deadlines_every_s
DEADLINES_EVERY_S = 60.0  # well under settings().sweep_gap_s, which marks an outage
# the beat scheduler: sends the periodic tasks only while it holds the database lease "beat", so
# however many beats run (a second `-B` by mistake, a standby), one sends
BEAT_SCHEDULER = "pbem.tasks:LockedScheduler"
DEFAULT_QUEUE = "pbem"
STAND_IN_TASK = "pbem.stand_in"
REVIEW_TASK = "pbem.review"  # a finished game's post-game reviews (services/coach/review.py)
# which setting names the queue of each task, so each kind of work can have machines of its own;
# "" there = the default queue
QUEUE_OF = {PROCESS_TASK: "mail_queue", SEND_TASK: "delivery_queue", PUSH_TASK: "delivery_queue",
            "pbem.sweep": "sweep_queue", "pbem.deadlines": "sweep_queue",
            "pbem.deadlines_part": "sweep_queue", "pbem.prune": "sweep_queue",
            BOT_TASK: "bot_queue", STAND_IN_TASK: "bot_queue", REVIEW_TASK: "bot_queue"}


def route(name, args, kwargs, options, task=None, **_kw) -> dict | None:
    """Celery's router (task_routes): a task's queue from the settings in
    force when it is sent, so every sender (receiver, worker, beat, web)
    routes alike; an explicit queue (a picture mail's) still wins."""
    queue = getattr(settings(), QUEUE_OF[name], "") if name in QUEUE_OF else ""
    return {"queue": queue} if queue else None


def queue_names(cfg: Settings) -> list[str]:
    """Every queue the settings name, the default one first: what a worker
    started without --queues consumes, so on one machine nothing waits in a
    queue nobody reads."""
    named = [getattr(cfg, field) for field in dict.fromkeys(QUEUE_OF.values())] + [cfg.picture_queue]
    return list(dict.fromkeys([DEFAULT_QUEUE, *filter(None, named)]))


def celery_config(cfg: Settings) -> dict:
    conf = dict(
        broker_url=cfg.broker_url,
        task_acks_late=True,
        task_reject_on_worker_lost=True,
        worker_prefetch_multiplier=1,
        task_ignore_result=True,
        broker_connection_retry_on_startup=True,
        task_default_queue=DEFAULT_QUEUE,
        task_queues=[Queue(q, Exchange(q), routing_key=q) for q in queue_names(cfg)],
        task_routes=(route,),
        timezone="UTC",
        enable_utc=True,
        worker_hijack_root_logger=False,
        # a periodic task expires after its own period: a copy that waited that long in its queue (workers
        # down, busy) is dropped, not run late beside the next one
        beat_schedule={name: {"task": task, "schedule": every, "options": {"expires": every}}
                       for name, task, every in (("sweep", "pbem.sweep", cfg.sweep_every_s),
                                                 ("deadlines", "pbem.deadlines", cfg.deadlines_every_s),
                                                 ("prune", "pbem.prune", cfg.prune_every_s))},
        beat_scheduler=BEAT_SCHEDULER,
    )
    # kombu's SQLAlchemy transport hands its options to create_engine: none for it
    if cfg.is_embedded_broker:
        conf["broker_transport_options"] = {}
        cfg.var_dir.mkdir(parents=True, exist_ok=True)  # the broker's SQLite file lives there
        if cfg.broker_url.startswith("sqla+"):  # same database, faster polling (pbem/broker.py)
            conf["broker_url"] = cfg.broker_url[len("sqla+"):]
            conf["broker_transport"] = "pbem.broker:EmbeddedTransport"
    else:  # a broker of its own, any URL kombu takes (redis, rediss, sentinel, amqp, amqps, pyamqp, ...)
        conf["broker_transport"] = None
        options: dict = {}
        if cfg.broker_url.lower().startswith(("redis://", "rediss://", "sentinel://", "sentinels://")):
            options["visibility_timeout"] = 3600
            if cfg.broker_prefix:
                options["global_keyprefix"] = cfg.broker_prefix
        options.update(cfg.broker_options)  # PBEM_BROKER_TRANSPORT_OPTIONS: Sentinel's master_name, ...
        conf["broker_transport_options"] = options
    return conf


# the settings are read at the app's first use, as Celery's lazy defaults: an on_configure handler that
# updated the configuration re-entered the configuring on Celery 5.5+ (the update reads task_routes)
# and filled a start's log with RecursionError tracebacks
app.add_defaults(lambda: celery_config(settings()))


def configure(cfg: Settings | None = None) -> Celery:
    """(Re)configure the app from ``cfg`` (tests, `pbem up`). Connections made
    for an earlier broker are dropped, as Celery itself does after a fork."""
    app.conf.update(celery_config(cfg or settings()))
    if app._pool is not None:
        app._pool.force_close_all()
    app._after_fork()
    return app


def enqueue_send(outbound_ids: list[int], countdown: float | None = None, queue: str | None = None) -> None:
    """One send task for these outbox rows (by the task's name: the sender
    need not import the tasks), on ``queue`` (None: the delivery queue)."""
    app.send_task(SEND_TASK, args=(list(outbound_ids),), countdown=countdown, **({"queue": queue} if queue else {}))


def enqueue_push(notification_ids: list[int], countdown: float | None = None) -> None:
    """One push task for these notification rows (store/pushbox.py), by the task's name."""
    app.send_task(PUSH_TASK, args=(list(notification_ids),), countdown=countdown)


def enqueue_bot_move(game_id: int) -> None:
    """A bot_move task for this game (by the task's name), on the bots' own
    queue when there is one (settings().bot_queue: :func:`route`)."""
    app.send_task(BOT_TASK, args=(game_id,))


def enqueue_stand_in(game_id: int, seat: int, key: str) -> None:
    """A stand_in task: the bot's move owed to a late or abandoned seat (the
    deadline sweep's), on the bots' own queue."""
    app.send_task(STAND_IN_TASK, args=(game_id, seat, key))


def enqueue_review(game_id: int, countdown: float | None = None) -> None:
    """A review task for this finished game, ``countdown`` seconds from now: the search weighs its
    players' decisions, on the bots' own queue (it searches as they do)."""
    app.send_task(REVIEW_TASK, args=(game_id,), countdown=countdown)


def enqueue_process(inbound_id: int) -> None:
    """A process_inbound task for this stored mail (by the task's name: the
    SMTP receiver runs no game logic and imports no task)."""
    app.send_task(PROCESS_TASK, args=(inbound_id,))
