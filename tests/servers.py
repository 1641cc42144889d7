"""Real `redis-server` and PostgreSQL for the tests, on loopback ports of their own, stopped afterwards.

Debian's packages: `redis-server`, and `postgresql` (binaries in /usr/lib/postgresql/<version>/bin, found there
or on PATH). PostgreSQL refuses to run as root, so as root (CI) `initdb` and `pg_ctl` run as `nobody` in a
temp dir that user owns. Missing programs skip the tests with the reason, and fail them when CI=true.

Use the fixtures from a test module by naming them there: `redis_server, redis_url = servers.redis_server,
servers.redis_url` (a fixture's own fixtures must be named too).
"""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

_STARTUP_S = 30.0


def require(program: str, path: str | None, how: str = "") -> str:
    """The program's path; a skip (a failure in CI) saying how to install it when it is missing."""
    if path:
        return path
    message = f"{program} is not installed ({how or 'Debian: apt-get install ' + program.split('/')[0]})"
    if os.environ.get("CI") == "true":
        pytest.fail(f"{message}: required in CI")
    pytest.skip(message)


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _wait_for_port(port: int, process: subprocess.Popen[bytes], log: Path) -> None:
    deadline = time.monotonic() + _STARTUP_S
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(
                f"server exited {process.returncode}: {log.read_text(errors='replace')[-2000:]}"
            )
        with socket.socket() as sock:
            if sock.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.05)
    raise RuntimeError(f"server did not listen on {port} within {_STARTUP_S:g} s")


@pytest.fixture(scope="session")
def redis_server() -> Iterator[str]:
    """A redis-server on 127.0.0.1, no persistence; yields its base URL (redis://127.0.0.1:PORT)."""
    binary = require("redis-server", shutil.which("redis-server"))
    require("redis (Python)", _module_path("redis"), "pip install 'proctor[redis]'; make install does")
    port = free_port()
    workdir = Path(tempfile.mkdtemp(prefix="proctor-redis-"))
    log = workdir / "redis.log"
    argv = [binary, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"]
    with open(log, "wb") as out:
        process = subprocess.Popen([*argv, "--dir", str(workdir)], stdout=out, stderr=subprocess.STDOUT)
    try:
        _wait_for_port(port, process, log)
        yield f"redis://127.0.0.1:{port}"
    finally:
        process.terminate()
        process.wait(timeout=10)
        shutil.rmtree(workdir, ignore_errors=True)


_redis_db = iter(range(1, 16))


@pytest.fixture
def redis_url(redis_server: str) -> Iterator[str]:
    """A database of the session's redis-server of this test's own, emptied before and after."""
    import redis

    url = f"{redis_server}/{next(_redis_db, 15)}"
    client = redis.Redis.from_url(url)
    client.flushdb()
    try:
        yield url
    finally:
        client.flushdb()
        client.close()


def postgres_bin(name: str) -> str | None:
    """`name` from PATH or the newest /usr/lib/postgresql/<version>/bin."""
    found = shutil.which(name)
    if found:
        return found
    candidates = sorted(
        glob.glob(f"/usr/lib/postgresql/*/bin/{name}"), key=lambda p: int(p.split("/")[4].split(".")[0])
    )
    return candidates[-1] if candidates else None


def _as_postgres_user() -> dict[str, Any]:
    """Popen arguments running a program as `nobody` when we are root (PostgreSQL refuses root)."""
    if os.geteuid() != 0:
        return {}
    user = pwd.getpwnam("nobody")
    return {"user": user.pw_uid, "group": user.pw_gid, "extra_groups": [], "env": _pg_env(user.pw_dir)}


def _pg_env(home: str) -> dict[str, str]:
    return {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": home, "LC_ALL": "C.UTF-8"}


def _run_pg(argv: list[str], log: Path) -> None:
    with open(log, "ab") as out:
        done = subprocess.run(argv, stdout=out, stderr=subprocess.STDOUT, check=False, **_as_postgres_user())
    if done.returncode != 0:
        raise RuntimeError(f"{argv[0]} exited {done.returncode}: {log.read_text(errors='replace')[-2000:]}")


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[str]:
    """A PostgreSQL cluster in a temp dir on 127.0.0.1 (trust auth); yields its server URL without a db."""
    initdb = require("postgresql/initdb", postgres_bin("initdb"))
    pg_ctl = require("postgresql/pg_ctl", postgres_bin("pg_ctl"))
    require("psycopg", _module_path("psycopg"), "pip install 'proctor[postgres]'; make install does")
    root = Path(tempfile.mkdtemp(prefix="proctor-pg-"))
    data, log, port = root / "data", root / "setup.log", free_port()
    if os.geteuid() == 0:
        user = pwd.getpwnam("nobody")
        os.chown(root, user.pw_uid, user.pw_gid)
    _run_pg([initdb, "-D", str(data), "-U", "proctor", "--auth=trust", "-E", "UTF8", "--no-sync"], log)
    options = f"-p {port} -h 127.0.0.1 -k {root} -F -c max_connections=50"
    server_log = root / "postgres.log"  # written by the server's user, not by us
    _run_pg([pg_ctl, "-D", str(data), "-o", options, "-l", str(server_log), "-w", "-t", "60", "start"], log)
    try:
        yield f"postgresql://proctor@127.0.0.1:{port}"
    finally:
        _run_pg([pg_ctl, "-D", str(data), "-m", "immediate", "-w", "stop"], log)
        shutil.rmtree(root, ignore_errors=True)


def _module_path(name: str) -> str | None:
    import importlib.util

    spec = importlib.util.find_spec(name)
    return spec.origin if spec is not None else None


_pg_db = iter(range(1, 1000))


@pytest.fixture
def postgres_url(postgres_server: str) -> Iterator[str]:
    """A fresh database of this test's own on the session's PostgreSQL (dropped after)."""
    import psycopg

    name = f"test_{os.getpid()}_{next(_pg_db)}"
    with psycopg.connect(f"{postgres_server}/postgres", autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name}")
    try:
        yield f"{postgres_server}/{name}"
    finally:
        with psycopg.connect(f"{postgres_server}/postgres", autocommit=True) as conn:
            conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
