"""The evaluator runner: process groups, deadlines, output caps, the scrubbed environment and the sandbox."""

from __future__ import annotations

import json
import os
import py_compile
import shutil
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import pytest

from core.errors import RunnerError
from core.runner import (
    OUTPUT_CAP_BYTES,
    RunResult,
    SandboxChoice,
    choose_sandbox,
    run_evaluator,
    scrubbed_env,
)

PY = "python"
IN_CI = os.environ.get("CI") == "true"


def _script(tmp_path: Path, name: str, body: str) -> str:
    (tmp_path / name).write_text(body, encoding="utf-8")
    return f"{PY} {name}"


def _alive(pid: int) -> bool:
    """A process that exists and is not a zombie (init in a container may never reap it)."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as handle:
            state = handle.read().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return False
    return state not in ("Z", "X")


def _gone_soon(pid: int) -> bool:
    for _ in range(100):
        if not _alive(pid):
            return True
        time.sleep(0.05)
    return False


def test_timeout_kills_the_whole_group_including_a_grandchild_holding_the_pipe(tmp_path: Path) -> None:
    command = _script(
        tmp_path,
        "hang.py",
        "import subprocess, sys, time\n"
        "child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(120)'])\n"
        "open('grandchild.pid', 'w').write(str(child.pid))\n"
        "print('started', flush=True)\n"
        "time.sleep(120)\n",
    )
    result = run_evaluator(command, tmp_path, timeout_s=1.5, sandbox="process")
    assert result.timed_out
    assert result.returncode is None
    assert result.stdout == "started\n"
    assert "timed out" in result.failure_reason()
    assert _gone_soon(int((tmp_path / "grandchild.pid").read_text()))


def test_a_background_grandchild_holding_stdout_does_not_hang_a_finished_run(tmp_path: Path) -> None:
    command = _script(
        tmp_path,
        "daemon.py",
        "import subprocess, sys\n"
        "child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(120)'])\n"
        "open('grandchild.pid', 'w').write(str(child.pid))\n"
        "print('auc: 0.5')\n",
    )
    result = run_evaluator(command, tmp_path, timeout_s=60, sandbox="process")
    assert result.ok and not result.timed_out
    assert result.stdout == "auc: 0.5\n"
    assert _gone_soon(int((tmp_path / "grandchild.pid").read_text()))


def test_output_flood_keeps_the_last_mebibyte_of_each_stream(tmp_path: Path) -> None:
    command = _script(
        tmp_path,
        "flood.py",
        "import sys\n"
        "line = 'x' * 1023 + '\\n'\n"
        "for _ in range(3 * 1024):\n"
        "    sys.stdout.write(line)\n"
        "    sys.stderr.write(line)\n"
        "print('auc: 0.75')\n"
        "print('stderr end', file=sys.stderr)\n",
    )
    result = run_evaluator(command, tmp_path, timeout_s=60, sandbox="process")
    assert result.ok
    assert result.stdout_truncated and result.stderr_truncated
    assert len(result.stdout.encode()) <= OUTPUT_CAP_BYTES
    assert len(result.stderr.encode()) <= OUTPUT_CAP_BYTES
    assert result.stdout.endswith("auc: 0.75\n")
    assert result.stderr.endswith("stderr end\n")


def test_small_output_is_not_marked_truncated(tmp_path: Path) -> None:
    result = run_evaluator(f"{PY} -c \"print('hi')\"", tmp_path, timeout_s=30, sandbox="process")
    assert (result.stdout, result.stdout_truncated, result.stderr_truncated) == ("hi\n", False, False)


def test_environment_is_an_allow_list(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    secrets = {
        "GITHUB_TOKEN": "ghs_fake",
        "OPENAI_API_KEY": "sk-fake",
        "AWS_SECRET_ACCESS_KEY": "fake",
        "PYTHONPATH": str(tmp_path / "evil"),
        "PYTHONSTARTUP": str(tmp_path / "evil.py"),
    }
    for name, value in secrets.items():
        monkeypatch.setenv(name, value)
    command = _script(tmp_path, "env.py", "import json, os\nprint(json.dumps(dict(os.environ)))\n")
    result = run_evaluator(
        command, tmp_path, timeout_s=30, sandbox="process", extra_env={"PROCTOR_FEEDBACK": "f"}
    )
    env = json.loads(result.stdout)
    assert not set(secrets) & set(env)
    assert {k for k in env if k.startswith("PYTHON")} == {
        "PYTHONDONTWRITEBYTECODE",
        "PYTHONPYCACHEPREFIX",
        "PYTHONNOUSERSITE",
        "PYTHONHASHSEED",
    }
    assert env["PYTHONHASHSEED"] == "0" and env["PYTHONDONTWRITEBYTECODE"] == "1"
    assert env["HOME"] != os.path.expanduser("~") and not Path(env["HOME"]).exists()  # per-run, removed after
    assert env["PROCTOR_FEEDBACK"] == "f"
    assert env["PATH"].split(os.pathsep)[0] == str(Path(sys.executable).parent)


def test_scrubbed_env_never_contains_secrets(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GITHUB_TOKEN", "ghs_fake")
    monkeypatch.setenv("LC_ALL", "C.UTF-8")
    env = scrubbed_env({"EXTRA": "1"})
    assert "GITHUB_TOKEN" not in env and env["EXTRA"] == "1" and env["LC_ALL"] == "C.UTF-8"


def test_non_utf8_output_is_decoded_with_replacement(tmp_path: Path) -> None:
    command = _script(
        tmp_path, "bytes.py", "import sys\nsys.stdout.buffer.write(b'ok \\xff\\xfe end\\n')\nsys.exit(3)\n"
    )
    result = run_evaluator(command, tmp_path, timeout_s=30, sandbox="process")
    assert result.stdout == "ok \ufffd\ufffd end\n"
    assert result.returncode == 3
    assert result.failure_reason().startswith("exit 3")


def test_leading_python_is_proctors_interpreter(tmp_path: Path) -> None:
    result = run_evaluator('python3 -c "import sys; print(sys.executable)"', tmp_path, timeout_s=30)
    assert result.argv[0] == sys.executable
    assert result.stdout.strip() == sys.executable


def test_extra_args_are_appended(tmp_path: Path) -> None:
    command = _script(tmp_path, "args.py", "import sys\nprint(sys.argv[1:])\n")
    result = run_evaluator(command, tmp_path, timeout_s=30, sandbox="process", extra_args=["--fast"])
    assert result.stdout == "['--fast']\n"


def test_rlimits_are_applied(tmp_path: Path) -> None:
    command = _script(
        tmp_path,
        "limits.py",
        "import resource\n"
        "print(resource.getrlimit(resource.RLIMIT_CORE)[0], resource.getrlimit(resource.RLIMIT_NOFILE)[0])\n"
        "print(resource.getrlimit(resource.RLIMIT_AS)[0], resource.getrlimit(resource.RLIMIT_CPU)[0])\n",
    )
    result = run_evaluator(command, tmp_path, timeout_s=10, sandbox="process", memory_limit_mb=512)
    core, nofile, address, cpu = (int(v) for v in result.stdout.split())
    assert core == 0 and 0 < nofile <= 4096
    assert address == 512 * 1024 * 1024
    assert 0 < cpu <= 10 * (os.cpu_count() or 1) + 1


def test_memory_limit_stops_a_hog(tmp_path: Path) -> None:
    command = _script(tmp_path, "hog.py", "block = bytearray(1024 * 1024 * 1024)\nprint('allocated')\n")
    result = run_evaluator(command, tmp_path, timeout_s=30, sandbox="process", memory_limit_mb=256)
    assert result.returncode not in (0, None)
    assert "MemoryError" in result.stderr


def test_planted_bytecode_in_the_workspace_is_never_loaded(tmp_path: Path) -> None:
    """IN005's attack: a .pyc matching the source's mtime and size replaces the module at import."""
    module = tmp_path / "metric.py"
    module.write_text('VALUE = "planted"\n', encoding="utf-8")
    stamp = module.stat().st_mtime_ns
    py_compile.compile(
        str(module), cfile=str(tmp_path / "__pycache__" / f"metric.{sys.implementation.cache_tag}.pyc")
    )
    module.write_text('VALUE = "honest!"\n', encoding="utf-8")  # same size
    os.utime(module, ns=(stamp, stamp))
    command = f'{PY} -c "import metric; print(metric.VALUE)"'
    plain = subprocess.run(
        [sys.executable, "-c", "import metric; print(metric.VALUE)"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=True,
        env={"PATH": os.environ["PATH"]},
    )
    assert plain.stdout == "planted\n"  # the attack works without Proctor
    assert run_evaluator(command, tmp_path, timeout_s=30, sandbox="process").stdout == "honest!\n"


def test_cannot_start_is_a_runner_error(tmp_path: Path) -> None:
    with pytest.raises(RunnerError, match="empty"):
        run_evaluator("  ", tmp_path, timeout_s=5)
    with pytest.raises(RunnerError, match="cannot parse"):
        run_evaluator("python 'unbalanced", tmp_path, timeout_s=5)
    with pytest.raises(RunnerError, match="not found"):
        run_evaluator("no-such-program-xyz --flag", tmp_path, timeout_s=5)
    with pytest.raises(RunnerError, match="does not exist"):
        run_evaluator("python -c pass", tmp_path / "missing", timeout_s=5)
    with pytest.raises(RunnerError, match="unknown sandbox level"):
        choose_sandbox("chroot")  # type: ignore[arg-type]


def test_usable_from_a_process_pool(tmp_path: Path) -> None:
    command = _script(tmp_path, "echo.py", "import sys\nprint('auc: ' + sys.argv[1])\n")
    with ProcessPoolExecutor(max_workers=2) as pool:
        futures = [
            pool.submit(run_evaluator, command, tmp_path, timeout_s=30, extra_args=[f"0.{i}"])
            for i in range(4)
        ]
        results: list[RunResult] = [f.result() for f in futures]
    assert [r.stdout for r in results] == [f"auc: 0.{i}\n" for i in range(4)]


def test_choose_sandbox_process_is_always_available() -> None:
    choice = choose_sandbox("process")
    assert (choice.level, choice.mechanism) == ("process", "none")
    auto = choose_sandbox("auto")
    assert auto.level in ("process", "namespace") and auto.reason.startswith("auto:")


# --------------------------------------------------------------------------------------------- network


@pytest.fixture
def loopback_server() -> Iterator[int]:
    """A TCP server on 127.0.0.1 that answers every connection with b'hello'."""
    server = socket.create_server(("127.0.0.1", 0))
    server.settimeout(0.2)
    stop = threading.Event()

    def serve() -> None:
        while not stop.is_set():
            try:
                conn, _addr = server.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            with conn:
                conn.sendall(b"hello")

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    yield server.getsockname()[1]
    stop.set()
    server.close()
    thread.join(timeout=5)


_CONNECT = (
    "import socket, sys\n"
    "try:\n"
    "    with socket.create_connection(('127.0.0.1', int(sys.argv[1])), timeout=5) as s:\n"
    "        print('connected', s.recv(5).decode())\n"
    "except OSError as exc:\n"
    "    print('blocked', type(exc).__name__)\n"
)


def _namespace_or_skip() -> SandboxChoice:
    try:
        return choose_sandbox("namespace")
    except RunnerError as exc:
        if IN_CI:
            pytest.fail(f"CI=true but no network namespace mechanism works: {exc}")
        pytest.skip(f"no network namespace mechanism works here: {exc}")


def test_process_level_can_reach_the_loopback_server(tmp_path: Path, loopback_server: int) -> None:
    command = _script(tmp_path, "connect.py", _CONNECT)
    result = run_evaluator(
        command, tmp_path, timeout_s=30, sandbox="process", extra_args=[str(loopback_server)]
    )
    assert result.stdout == "connected hello\n"  # the control: the server really answers


def test_namespace_level_blocks_tcp_to_loopback(tmp_path: Path, loopback_server: int) -> None:
    choice = _namespace_or_skip()
    command = _script(tmp_path, "connect.py", _CONNECT)
    result = run_evaluator(command, tmp_path, timeout_s=30, sandbox=choice, extra_args=[str(loopback_server)])
    assert result.ok, result.stderr
    assert result.stdout.startswith("blocked"), result.stdout
    assert result.sandbox.level == "namespace"


@pytest.mark.parametrize("mechanism", ["unshare", "bwrap"])
def test_each_installed_namespace_mechanism_blocks_tcp(
    tmp_path: Path, loopback_server: int, mechanism: str
) -> None:
    _namespace_or_skip()
    if shutil.which(mechanism) is None:
        pytest.skip(f"{mechanism} is not installed")
    choice = SandboxChoice("namespace", mechanism, "test")
    command = _script(tmp_path, "connect.py", _CONNECT)
    result = run_evaluator(command, tmp_path, timeout_s=30, sandbox=choice, extra_args=[str(loopback_server)])
    if result.returncode != 0 and mechanism in result.stderr:
        pytest.skip(f"{mechanism} cannot create namespaces here: {result.stderr.strip()}")
    assert result.stdout.startswith("blocked"), (result.stdout, result.stderr)


def test_namespace_run_still_times_out_the_whole_group(tmp_path: Path) -> None:
    choice = _namespace_or_skip()
    command = _script(
        tmp_path,
        "hang.py",
        "import subprocess, sys, time\n"
        "child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(120)'])\n"
        "open('grandchild.pid', 'w').write(str(child.pid))\n"
        "time.sleep(120)\n",
    )
    result = run_evaluator(command, tmp_path, timeout_s=1.5, sandbox=choice)
    assert result.timed_out
    assert _gone_soon(int((tmp_path / "grandchild.pid").read_text()))
