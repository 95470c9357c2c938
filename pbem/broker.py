"""The embedded broker: kombu's SQLAlchemy transport (a table in SQLite), so
`pbem up` needs nothing but Python. Kombu polls it once a second and hands
every transport option to create_engine, so the only way to poll faster is a
subclass; 50 ms keeps a demo game's mail round trip well under a second."""
from kombu.transport.sqlalchemy import Channel, Transport
from sqlalchemy.exc import IntegrityError, OperationalError

# A worker asks its transport for news with a two-second wait and only then looks whether it was told
# to stop; on a broker it polls, that wait is spent sleeping. Shorter waits let a stop (Ctrl-C on
# `pbem up`, a deploy, a test's end) take effect within a fraction of a second, for one cheap
# look at the stop flag per wait.
STOP_NOTICED_WITHIN = 0.25  # seconds


class EmbeddedChannel(Channel):
    def _open(self):
        # The first process to use a new broker file makes its tables, after looking that they are not
        # there; two processes starting together (`pbem up`'s worker, receiver and site) may both look
        # before either makes them, and the second's CREATE fails. The tables are then there, and a
        # second look finds them.
        try:
            return super()._open()
        except OperationalError as e:
            if "already exists" not in str(e):
                raise
            return super()._open()

    def _get_or_create(self, queue):
        # Kombu looks for the queue's row and inserts it when missing, guarded by a lock that only
        # this process sees. The web (or the receiver) publishing its first task while a worker starts
        # both find no row and both insert; the loser's unique-name error used to fail the publish, so
        # the move's task was lost. The row the other process made is the one wanted.
        try:
            return super()._get_or_create(queue)
        except IntegrityError:
            self.session.rollback()
            return self.session.query(self.queue_cls).filter(self.queue_cls.name == queue).one()


class EmbeddedTransport(Transport):
    Channel = EmbeddedChannel
    polling_interval = 0.05

    def drain_events(self, connection, timeout=None):
        if timeout is not None:
            timeout = min(timeout, STOP_NOTICED_WITHIN)
        return super().drain_events(connection, timeout=timeout)
