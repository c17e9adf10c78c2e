"""Where an installation keeps its data, on either engine.

One person: the SQLite file (`research_core.db`, `$ARBOR_DB`, default ./data/arbor.db). A team: a
PostgreSQL database named by `ARBOR_DATABASE_URL` (or `--db postgresql://...`). `location` says
which; `engines` opens a SQLAlchemy engine for it; the tables are defined once, next to the code
that uses them, and serve both engines.
"""
