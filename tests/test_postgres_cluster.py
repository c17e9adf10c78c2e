"""The tests' own PostgreSQL cluster (tests/postgres_cluster.py): reachable, one empty database per test."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.postgres


def test_each_test_database_is_new_and_empty_and_on_loopback(postgres_cluster, postgres_url):
    import psycopg

    assert postgres_url.startswith(f"postgresql://postgres@127.0.0.1:{postgres_cluster.port}/t_")
    with psycopg.connect(postgres_url, autocommit=True) as conn:
        conn.execute("CREATE TABLE mine (x int)")
        tables = conn.execute("SELECT count(*) FROM pg_tables WHERE schemaname = 'public'").fetchone()[0]
    other = postgres_cluster.create_database()
    with psycopg.connect(other, autocommit=True) as conn:
        assert conn.execute("SELECT count(*) FROM pg_tables WHERE schemaname = 'public'").fetchone()[0] == 0
    assert tables == 1 and other != postgres_url
