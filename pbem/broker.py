"""The embedded broker: kombu's SQLAlchemy transport (a table in SQLite), so
`pbem up` needs nothing but Python. Kombu polls it once a second and hands
every transport option to create_engine, so the only way to poll faster is a
subclass; 50 ms keeps a demo game's mail round trip well under a second."""
from kombu.transport.sqlalchemy import Transport


class EmbeddedTransport(Transport):
    polling_interval = 0.05
