"""Settings of `proctor-app`, read once from the environment (SPEC §10; README "GitHub App").

A missing or invalid setting is one `SettingsError` line naming the variable; `proctor-app` prints it and
exits 2 before anything listens. The private key and the webhook secret are removed from the process
environment once read, so no child process (git, an evaluator) can inherit them.
"""

from __future__ import annotations

import os
from collections.abc import MutableMapping
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

from core import secrets
from core.errors import SettingsError, redact_url

DEFAULT_API = "https://api.github.com"
SECRET_VARIABLES = ("PROCTOR_PRIVATE_KEY", "PROCTOR_WEBHOOK_SECRET", "PROCTOR_DASHBOARD_TOKEN")


@dataclass(frozen=True)
class Settings:
    app_id: int
    private_key: str = field(repr=False)
    webhook_secret: str = field(repr=False)
    github_api: str
    data_dir: Path
    db_url: str
    queue_url: str
    dashboard_token: str = field(default="", repr=False)
    public_url: str = ""

    @property
    def queue_file(self) -> Path:
        return self.data_dir / "queue.sqlite3"

    @property
    def campaign_queue(self) -> str:
        """Where PR campaigns measure: the Redis queue when one is configured (its `proctor worker`s), else
        "" (the App worker's own process pool, as with the default SQLite queue in the data dir)."""
        from core.jobs import is_redis

        return self.queue_url if is_redis(self.queue_url) else ""


def _http_url(variable: str, value: str) -> str:
    parts = urlsplit(value)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise SettingsError(variable, f"expected an http(s) URL, found {redact_url(value)!r}")
    return value.rstrip("/")


def _app_id(env: MutableMapping[str, str]) -> int:
    raw = env.get("PROCTOR_APP_ID", "").strip()
    if not raw:
        raise SettingsError("PROCTOR_APP_ID", "not set (the GitHub App's numeric id, from its settings page)")
    if not raw.isdigit() or int(raw) <= 0:
        raise SettingsError("PROCTOR_APP_ID", f"expected a positive integer, found {raw!r}")
    return int(raw)


def _private_key(env: MutableMapping[str, str]) -> str:
    inline, path = env.get("PROCTOR_PRIVATE_KEY", ""), env.get("PROCTOR_PRIVATE_KEY_PATH", "")
    if inline.strip():
        variable, key = "PROCTOR_PRIVATE_KEY", inline.replace("\\n", "\n")
    elif path.strip():
        variable = "PROCTOR_PRIVATE_KEY_PATH"
        try:
            key = Path(path).read_text("utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise SettingsError(variable, f"cannot read {path!r}: {getattr(exc, 'strerror', exc)}") from None
    else:
        raise SettingsError(
            "PROCTOR_PRIVATE_KEY", "not set (nor PROCTOR_PRIVATE_KEY_PATH): the App's PEM key"
        )
    _check_key(variable, key)
    return key


def _check_key(variable: str, key: str) -> None:
    """The key must sign an app JWT now, not at the first webhook."""
    import jwt

    try:
        jwt.encode({"iss": "check"}, key, algorithm="RS256")
    except (ValueError, TypeError, jwt.PyJWTError) as exc:
        raise SettingsError(
            variable, f"not a usable RSA private key in PEM format ({type(exc).__name__})"
        ) from None


def _data_dir(env: MutableMapping[str, str]) -> Path:
    raw = env.get("PROCTOR_DATA_DIR", "").strip()
    base = Path(env.get("XDG_DATA_HOME", "") or Path.home() / ".local" / "share")
    path = Path(raw).expanduser() if raw else base / "proctor-app"
    try:
        path.mkdir(parents=True, exist_ok=True)
        probe = path / ".write-probe"
        probe.write_bytes(b"")
        probe.unlink()
    except OSError as exc:
        raise SettingsError("PROCTOR_DATA_DIR", f"cannot write to {str(path)!r}: {exc.strerror}") from None
    return path.resolve()


def _db_url(env: MutableMapping[str, str], data_dir: Path) -> str:
    raw = env.get("PROCTOR_DB", "").strip()
    if not raw:
        return f"sqlite:///{data_dir / 'app.sqlite3'}"
    from sqlalchemy.engine import make_url
    from sqlalchemy.exc import ArgumentError

    try:
        url = make_url(raw)
    except ArgumentError:
        raise SettingsError("PROCTOR_DB", f"not a database URL: {redact_url(raw)!r}") from None
    if url.get_backend_name() not in ("sqlite", "postgresql"):
        raise SettingsError(
            "PROCTOR_DB", f"expected sqlite:/// or postgresql:// URL, found {redact_url(raw)!r}"
        )
    return raw


def _queue_url(env: MutableMapping[str, str]) -> str:
    raw = env.get("PROCTOR_QUEUE", "").strip() or "sqlite"
    if raw != "sqlite" and not raw.startswith(("redis://", "rediss://")):
        raise SettingsError(
            "PROCTOR_QUEUE", f"expected sqlite (the default) or a redis:// URL, found {redact_url(raw)!r}"
        )
    if raw.startswith("redis"):
        try:
            import redis  # type: ignore[import-not-found, unused-ignore]  # noqa: F401
        except ImportError:
            raise SettingsError(
                "PROCTOR_QUEUE", "a redis:// queue needs the `redis` extra installed"
            ) from None
    return raw


def load_settings(env: MutableMapping[str, str] | None = None, *, scrub: bool = True) -> Settings:
    """Settings from `env` (default the process environment); secrets are then removed from it."""
    env = os.environ if env is None else env
    secret = env.get("PROCTOR_WEBHOOK_SECRET", "")
    if not secret:
        raise SettingsError(
            "PROCTOR_WEBHOOK_SECRET", "not set (the secret entered in the App's webhook settings)"
        )
    app_id = _app_id(env)
    key = _private_key(env)
    api = _http_url("PROCTOR_GITHUB_API", env.get("PROCTOR_GITHUB_API", "").strip() or DEFAULT_API)
    public = env.get("PROCTOR_PUBLIC_URL", "").strip()
    data_dir = _data_dir(env)
    settings = Settings(
        app_id=app_id,
        private_key=key,
        webhook_secret=secret,
        github_api=api,
        data_dir=data_dir,
        db_url=_db_url(env, data_dir),
        queue_url=_queue_url(env),
        dashboard_token=env.get("PROCTOR_DASHBOARD_TOKEN", ""),
        public_url=_http_url("PROCTOR_PUBLIC_URL", public) if public else "",
    )
    if scrub:
        for name in SECRET_VARIABLES:
            env.pop(name, None)
        if env is os.environ:  # also from the start-up block /proc/<pid>/environ shows (core.secrets)
            secrets.hide(SECRET_VARIABLES)
    return settings
