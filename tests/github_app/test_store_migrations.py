"""The app database's Alembic migrations: a fresh database, twice, and a database made before migrations."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import MetaData, create_engine, text

from github_app.migrations import HEAD, alembic_config, current_revision
from github_app.store import NewJob, Store, engine_url
from github_app.store.models import Base, CheckRunRow
from tests import servers

postgres_server, postgres_url = servers.postgres_server, servers.postgres_url

# What github_app/store.py's `create_all` made before migrations existed (the schema of the first app
# release, as SQLite stored it), with a row in every table and one job still pending.
LEGACY_SCHEMA = """
CREATE TABLE deliveries (id INTEGER NOT NULL, delivery_id VARCHAR(128) NOT NULL, event VARCHAR(128) NOT NULL,
    action VARCHAR(128) NOT NULL, received_at DOUBLE NOT NULL, PRIMARY KEY (id), UNIQUE (delivery_id));
CREATE TABLE jobs (id INTEGER NOT NULL, delivery_id VARCHAR(128) NOT NULL, event VARCHAR(128) NOT NULL,
    action VARCHAR(128) NOT NULL, repo VARCHAR(256) NOT NULL, pr_number INTEGER NOT NULL,
    head_sha VARCHAR(64) NOT NULL, payload TEXT NOT NULL, status VARCHAR(16) NOT NULL, attempts INTEGER NOT NULL,
    owner VARCHAR(256) NOT NULL, error TEXT NOT NULL, updated_at DOUBLE NOT NULL, PRIMARY KEY (id));
CREATE INDEX ix_jobs_status ON jobs (status);
CREATE INDEX ix_jobs_delivery_id ON jobs (delivery_id);
CREATE INDEX ix_jobs_repo ON jobs (repo);
CREATE TABLE check_runs (id INTEGER NOT NULL, work_key VARCHAR(512) NOT NULL, repo VARCHAR(256) NOT NULL,
    pr_number INTEGER NOT NULL, head_sha VARCHAR(64) NOT NULL, base_sha VARCHAR(64) NOT NULL,
    check_run_id INTEGER, status VARCHAR(16) NOT NULL, conclusion VARCHAR(32) NOT NULL, result TEXT NOT NULL,
    PRIMARY KEY (id), UNIQUE (work_key));
CREATE INDEX ix_check_runs_repo ON check_runs (repo);
CREATE TABLE comments (repo VARCHAR(256) NOT NULL, pr_number INTEGER NOT NULL, comment_id INTEGER NOT NULL,
    PRIMARY KEY (repo, pr_number));
CREATE TABLE base_scores (repo VARCHAR(256) NOT NULL, base_sha VARCHAR(64) NOT NULL,
    evaluator_id VARCHAR(64) NOT NULL, record TEXT NOT NULL, PRIMARY KEY (repo, base_sha, evaluator_id));
CREATE TABLE approvals (repo VARCHAR(256) NOT NULL, pr_number INTEGER NOT NULL, head_sha VARCHAR(64) NOT NULL,
    approved_by VARCHAR(256) NOT NULL, PRIMARY KEY (repo, pr_number, head_sha));
CREATE TABLE accepted_suites (repo VARCHAR(256) NOT NULL, pr_number INTEGER NOT NULL,
    evaluator_id VARCHAR(64) NOT NULL, version INTEGER NOT NULL, PRIMARY KEY (repo, pr_number, evaluator_id));
INSERT INTO deliveries VALUES (1, 'd-1', 'pull_request', 'opened', 1.5);
INSERT INTO jobs VALUES (1, 'd-1', 'pull_request', 'opened', 'o/r', 7, 'aaaa', '{"n": 1}', 'pending', 0, '', '',
    1.5);
INSERT INTO check_runs VALUES (1, 'o/r#7@aaaa', 'o/r', 7, 'aaaa', 'bbbb', 99, 'completed', 'success', 'ok');
INSERT INTO comments VALUES ('o/r', 7, 1234);
INSERT INTO base_scores VALUES ('o/r', 'bbbb', 'ev1', '{"score": 0.5}');
INSERT INTO approvals VALUES ('o/r', 7, 'aaaa', 'maintainer');
INSERT INTO accepted_suites VALUES ('o/r', 7, 'ev2', 3);
"""


def _legacy_db(path: Path) -> str:
    with sqlite3.connect(path) as conn:
        conn.executescript(LEGACY_SCHEMA)
    return f"sqlite:///{path}"


def _models() -> MetaData:
    """Every table the app's models declare: Store's and FeedbackStore's (one database, two metadata)."""
    from github_app import feedback_store

    merged = MetaData()
    for metadata in (Base.metadata, feedback_store._Base.metadata):
        for table in metadata.tables.values():
            table.to_metadata(merged)
    return merged


def _schema_differences(url: str) -> list[object]:
    engine = create_engine(engine_url(url))
    with engine.connect() as conn:
        found = compare_metadata(MigrationContext.configure(conn), _models())
    engine.dispose()
    return list(found)


def test_an_app_db_made_before_migrations_upgrades_without_losing_a_row(tmp_path: Path) -> None:
    url = _legacy_db(tmp_path / "app.db")
    store = Store(url)
    with store.engine.connect() as conn:
        assert current_revision(conn) == HEAD
    job = store.claim(1)
    assert job is not None and (job.repo, job.pr_number, job.payload) == ("o/r", 7, {"n": 1})
    run = store.check_run("o/r#7@aaaa")
    assert run is not None and (run.check_run_id, run.conclusion) == (99, "success")
    assert store.comment_id("o/r", 7) == 1234
    assert store.base_score("o/r", "bbbb", "ev1") == {"score": 0.5}
    assert store.approved("o/r", 7, "aaaa")
    assert store.accepted_suites("o/r", 7) == {"ev2": 3}
    assert store.record_delivery("d-1", "pull_request", "opened", b"{}", NewJob()) is None  # still unique
    store.save_campaign("c-1", repo="o/r", pr_number=7, job_id=1, head_sha="aaaa")  # the newer tables exist
    assert store.campaign("c-1") is not None
    assert _schema_differences(url) == []


def test_migrations_run_twice_change_nothing(tmp_path: Path) -> None:
    from alembic import command

    url = f"sqlite:///{tmp_path / 'app.db'}"
    first = Store(url)
    first.record_delivery("d-1", "ping", "", b"{}", NewJob("o/r", 1, "a"))
    with first.engine.begin() as conn:
        conn.execute(text("DELETE FROM alembic_version"))  # as if interrupted before it was stamped
        command.upgrade(alembic_config(conn), "head")
        command.upgrade(alembic_config(conn), "head")
    second = Store(url)
    assert second.job_counts() == {"pending": 1}
    with second.engine.connect() as conn:
        assert conn.execute(text("SELECT count(*) FROM alembic_version")).scalar() == 1
    assert _schema_differences(url) == []


def test_a_db_made_by_a_newer_create_all_without_migrations_is_adopted(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'app.db'}"
    engine = create_engine(url)
    Base.metadata.create_all(engine)
    with engine.begin() as conn:
        conn.execute(
            CheckRunRow.__table__.insert().values(
                work_key="k",
                repo="o/r",
                pr_number=1,
                head_sha="a",
                base_sha="b",
                status="queued",
                conclusion="",
                result=json.dumps({}),
            )
        )
    engine.dispose()
    store = Store(url)
    assert [r.work_key for r in store.recent_check_runs()] == ["k"]


def test_the_migrated_schema_is_the_models_schema_on_postgresql(postgres_url: str) -> None:
    Store(postgres_url)
    Store(postgres_url)  # twice: a no-op
    assert _schema_differences(postgres_url) == []


@pytest.mark.parametrize("url", ["postgresql://u@h/db", "postgres://u@h/db"])
def test_postgresql_urls_mean_psycopg_3(url: str) -> None:
    assert engine_url(url) == "postgresql+psycopg://u@h/db"


def test_head_names_the_newest_revision() -> None:
    """`upgrade` skips Alembic when the database is at HEAD: a new revision must move HEAD too."""
    from alembic.script import ScriptDirectory

    from github_app.migrations import HERE

    assert ScriptDirectory(str(HERE)).get_heads() == [HEAD]


def test_revision_ids_come_from_the_file_number_and_chain_in_order() -> None:
    from alembic.script import ScriptDirectory

    from github_app.migrations import HERE, revision_ids

    assert revision_ids("versions/0001_initial.py") == ("0001", None)
    assert revision_ids("/x/versions/0012_more.py") == ("0012", "0011")
    with pytest.raises(ValueError, match=r"NNNN_what\.py"):
        revision_ids("versions/abc123_autogenerated.py")
    chain = [(s.revision, s.down_revision) for s in ScriptDirectory(str(HERE)).walk_revisions()]
    numbers = sorted(p.name[:4] for p in (HERE / "versions").glob("[0-9][0-9][0-9][0-9]_*.py"))
    assert chain == [revision_ids(f"{n}_x.py") for n in reversed(numbers)]
