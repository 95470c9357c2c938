"""pbem: a play-by-email / play-by-forum moderator."""
__version__ = "0.1.0"
