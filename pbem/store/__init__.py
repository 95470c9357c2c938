"""Storage: SQLModel tables, sessions, migrations."""
