"""The evaluator runner: process groups, deadlines, output caps, the scrubbed environment and the sandbox."""

from __future__ import annotations

import hashlib
import json
import os
import py_compile
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
import uuid
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
from core.sandbox import READ_ONLY_REASON, bytecode_mirror, proctor_interpreter
from core.sandbox.probe import _probe_variant

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


@pytest.mark.parametrize("read_only", [True, False], ids=["read-only", "network-only"])
@pytest.mark.parametrize("mechanism", ["unshare", "bwrap"])
def test_each_installed_namespace_mechanism_blocks_tcp(
    tmp_path: Path, loopback_server: int, mechanism: str, read_only: bool
) -> None:
    choice = _mechanism_or_skip(mechanism, read_only)
    command = _script(tmp_path, "connect.py", _CONNECT)
    result = run_evaluator(command, tmp_path, timeout_s=30, sandbox=choice, extra_args=[str(loopback_server)])
    assert result.stdout.startswith("blocked"), (result.stdout, result.stderr)


def _marked(marker: str) -> list[int]:
    """Live processes whose command line contains `marker` (pids in our namespace, whatever the run's is)."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            cmdline = Path(f"/proc/{entry}/cmdline").read_bytes()
        except OSError:
            continue
        if marker.encode() in cmdline and _alive(int(entry)):
            found.append(int(entry))
    return found


def _none_marked_soon(marker: str) -> bool:
    for _ in range(100):
        if not _marked(marker):
            return True
        time.sleep(0.05)
    return False


def _sleeper(marker: str, *, new_session: bool) -> str:
    """Evaluator source starting a 60 s grandchild tagged with `marker` (its pid differs inside a pid ns)."""
    return (
        "import subprocess, sys, time\n"
        f"subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)', {marker!r}],"
        f" start_new_session={new_session})\n"
        "print('started', flush=True)\n"
    )


def test_namespace_run_still_times_out_the_whole_group(tmp_path: Path) -> None:
    choice = _namespace_or_skip()
    marker = f"proctor-test-{uuid.uuid4().hex}"
    command = _script(tmp_path, "hang.py", _sleeper(marker, new_session=False) + "time.sleep(120)\n")
    try:
        result = run_evaluator(command, tmp_path, timeout_s=1.5, sandbox=choice)
        assert result.timed_out and result.stdout == "started\n"
        assert _none_marked_soon(marker)
    finally:
        for pid in _marked(marker):
            os.kill(pid, 9)


def test_namespace_run_leaves_no_daemon_behind_even_one_in_its_own_session(tmp_path: Path) -> None:
    """A setsid() daemon escapes the process-group kill; the pid namespace dies with the evaluator."""
    choice = _read_only_namespace_or_skip()
    marker = f"proctor-test-{uuid.uuid4().hex}"
    command = _script(tmp_path, "daemon.py", _sleeper(marker, new_session=True) + "time.sleep(0.5)\n")
    try:
        result = run_evaluator(command, tmp_path, timeout_s=30, sandbox=choice)
        assert result.ok, result.stderr
        assert result.stdout == "started\n"
        assert _none_marked_soon(marker)
    finally:
        for pid in _marked(marker):
            os.kill(pid, 9)


# --------------------------------------------------------------------------------------------- filesystem


def _read_only_namespace_or_skip() -> SandboxChoice:
    choice = _namespace_or_skip()
    if not choice.read_only_fs:
        if IN_CI:
            pytest.fail(f"CI=true but the namespace sandbox cannot make the filesystem read-only: {choice}")
        pytest.skip(f"the namespace sandbox here only removes the network: {choice.reason}")
    return choice


def _mechanism_or_skip(mechanism: str, read_only: bool) -> SandboxChoice:
    """`mechanism` on its own (not just the one auto picks); skipped where this machine cannot run it."""
    _namespace_or_skip()
    if shutil.which(mechanism) is None:
        pytest.skip(f"{mechanism} is not installed")
    choice = SandboxChoice("namespace", mechanism, "test", read_only_fs=read_only)
    problem = _probe_variant(choice, os.readlink("/proc/self/ns/net"))
    if problem is not None:
        if IN_CI and mechanism == "bwrap":
            pytest.fail(f"CI=true but bwrap cannot build the sandbox: {problem}")
        pytest.skip(f"{mechanism} cannot build this sandbox here: {problem}")
    return choice


@pytest.fixture(params=["chosen", "bwrap", "unshare"])
def read_only_choice(request: pytest.FixtureRequest) -> SandboxChoice:
    """The sandbox `namespace` picks, then each mechanism on its own."""
    if request.param == "chosen":
        return _read_only_namespace_or_skip()
    return _mechanism_or_skip(str(request.param), read_only=True)


@pytest.fixture
def outside_dir(tmp_path: Path) -> Iterator[Path]:
    """A directory outside the run and NOT under /tmp (inside the sandbox /tmp is private anyway)."""
    for parent in (Path("/var/tmp"), Path.home() / ".cache"):
        try:
            path = Path(tempfile.mkdtemp(prefix="proctor-test-outside-", dir=parent))
            break
        except OSError:
            continue
    else:
        path = tmp_path / "outside"
        path.mkdir()
    yield path
    shutil.rmtree(path, ignore_errors=True)


# Each target: "write" appends to (or creates) a file; "open" only opens an existing file for writing, never
# writing, so a broken sandbox cannot damage the real interpreter or repository the test points it at.
_TAMPER = (
    "import errno, json, os, sys\n"
    "results = {}\n"
    "for name, path, how in json.loads(sys.argv[1]):\n"
    "    path = os.path.expandvars(path)\n"
    "    try:\n"
    "        if how == 'write':\n"
    "            with open(path, 'a', encoding='utf-8') as handle:\n"
    "                handle.write('tampered\\n')\n"
    "        else:\n"
    "            os.close(os.open(path, os.O_WRONLY | os.O_APPEND))\n"
    "        results[name] = 'ok'\n"
    "    except OSError as exc:\n"
    "        results[name] = errno.errorcode.get(exc.errno or 0, str(exc))\n"
    "print(json.dumps(results))\n"
)


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _git_init(path: Path) -> Path:
    subprocess.run(
        ["git", "-c", "init.defaultBranch=main", "init", "--quiet", str(path)],
        check=True,
        capture_output=True,
        env={"PATH": os.environ["PATH"], "GIT_CONFIG_NOSYSTEM": "1", "HOME": str(path.parent)},
    )
    return path / ".git" / "config"


def test_namespace_blocks_writes_outside_the_workspace(
    tmp_path: Path, outside_dir: Path, read_only_choice: SandboxChoice
) -> None:
    work = tmp_path / "work"
    work.mkdir()
    victims = {"outside": outside_dir / "victim.txt", "outside-in-tmp": tmp_path / "sibling" / "victim.txt"}
    for victim in victims.values():
        victim.parent.mkdir(exist_ok=True)
        victim.write_text("original\n", encoding="utf-8")
    git_config = _git_init(outside_dir / "repo")
    site_packages = Path(pytest.__file__).resolve().parent.parent  # the interpreter's site-packages
    token = uuid.uuid4().hex
    planted = {
        "site-packages-new": site_packages / f"proctor_sandbox_test_{token}.py",
        "home": Path.home() / f".proctor_sandbox_test_{token}",
        "tmp": Path("/tmp") / f"proctor_sandbox_test_{token}",
    }
    mirror = bytecode_mirror(proctor_interpreter())
    if mirror is not None:
        planted["bytecode-mirror"] = mirror / f"proctor_sandbox_test_{token}.pyc"
    before = {"git-config": _digest(git_config), "site-packages-file": _digest(Path(pytest.__file__))}
    targets = [
        *[(name, str(path), "write") for name, path in victims.items()],
        ("git-config", str(git_config), "write"),
        ("site-packages-file", str(Path(pytest.__file__)), "open"),
        *[(name, str(path), "write") for name, path in planted.items()],
        ("cwd", str(work / "made-inside.txt"), "write"),
        ("tmpdir", "$TMPDIR/made-inside.txt", "write"),
    ]
    command = _script(work, "tamper.py", _TAMPER)
    try:
        result = run_evaluator(
            command, work, timeout_s=30, sandbox=read_only_choice, extra_args=[json.dumps(targets)]
        )
        assert result.ok, result.stderr
        outcome = json.loads(result.stdout)
        blocked = {name for name, status in outcome.items() if status != "ok"}
        assert blocked == set(outcome) - {"cwd", "tmpdir", "tmp"}, outcome
        assert {outcome[name] for name in blocked} <= {"EROFS", "ENOENT", "EACCES"}, outcome
        if Path("/tmp") not in outside_dir.parents:  # a path that exists inside too: refused, not missing
            assert {outcome[name] for name in ("outside", "git-config")} == {"EROFS"}, outcome
        for victim in victims.values():
            assert victim.read_text(encoding="utf-8") == "original\n"
        assert _digest(git_config) == before["git-config"]
        assert _digest(Path(pytest.__file__)) == before["site-packages-file"]
        assert not [path for path in planted.values() if path.exists()]  # /tmp inside was private
        assert (work / "made-inside.txt").read_text(encoding="utf-8") == "tampered\n"
    finally:
        for path in planted.values():
            path.unlink(missing_ok=True)


_REMOUNT = (
    "import ctypes, os, sys\n"
    "libc = ctypes.CDLL(None, use_errno=True)\n"
    "MS_REMOUNT, MS_BIND = 32, 4096\n"
    "for point in ('/', sys.argv[1]):\n"
    "    done = libc.mount(None, point.encode(), None, ctypes.c_ulong(MS_REMOUNT | MS_BIND), None)\n"
    "    print('remounted' if done == 0 else 'refused', point)\n"
    "try:\n"
    "    with open(sys.argv[2], 'a', encoding='utf-8') as handle:\n"
    "        handle.write('tampered\\n')\n"
    "    print('wrote')\n"
    "except OSError as exc:\n"
    "    print('blocked', exc.strerror)\n"
)


def test_namespace_evaluator_cannot_remount_the_filesystem_writable(
    tmp_path: Path, outside_dir: Path, read_only_choice: SandboxChoice
) -> None:
    """The evaluator is root in its user namespace: without dropped capabilities it could undo the mounts."""
    victim = outside_dir / "victim.txt"
    victim.write_text("original\n", encoding="utf-8")
    command = _script(tmp_path, "remount.py", _REMOUNT)
    result = run_evaluator(
        command, tmp_path, timeout_s=30, sandbox=read_only_choice, extra_args=[str(outside_dir), str(victim)]
    )
    assert result.ok, result.stderr
    assert result.stdout.splitlines() == [
        "refused /",
        f"refused {outside_dir}",
        "blocked Read-only file system"
        if Path("/tmp") not in outside_dir.parents
        else "blocked No such file or directory",
    ]
    assert victim.read_text(encoding="utf-8") == "original\n"


def test_interpreter_inside_the_workspace_stays_read_only(read_only_choice: SandboxChoice) -> None:
    """A venv inside the run's cwd (verify in a workspace with .venv/) is not the candidate's to patch."""
    prefix = Path(sys.prefix).resolve()
    workspace = prefix.parent
    if workspace == Path("/"):
        pytest.skip("the interpreter's prefix is directly under /")
    target = Path(pytest.__file__).resolve()
    if prefix not in target.parents:
        pytest.skip("pytest is not installed inside the interpreter's prefix")
    before = _digest(target)
    # Only opens for writing, never writes: the workspace here is a real directory the test does not own.
    command = f'{PY} -c "import os, sys; os.close(os.open(sys.argv[1], os.O_WRONLY | os.O_APPEND))"'
    result = run_evaluator(
        command, workspace, timeout_s=30, sandbox=read_only_choice, extra_args=[str(target)]
    )
    assert not result.ok
    assert "Read-only file system" in result.stderr
    assert _digest(target) == before


def test_describe_says_what_the_namespace_run_got() -> None:
    choice = _read_only_namespace_or_skip()
    assert choice.describe() == f"namespace via {choice.mechanism} ({READ_ONLY_REASON})"
    assert READ_ONLY_REASON == "no network, read-only filesystem outside the workspace"
    auto = choose_sandbox("auto")
    assert auto.describe() == f"namespace via {choice.mechanism} (auto: {READ_ONLY_REASON})"
    network_only = SandboxChoice("namespace", "unshare", "why", read_only_fs=False)
    assert (network_only.level, network_only.mechanism, network_only.reason) == (
        "namespace",
        "unshare",
        "why",
    )


def test_namespace_python_run_still_loads_interpreter_bytecode_and_third_party_modules(
    tmp_path: Path,
) -> None:
    choice = _read_only_namespace_or_skip()
    command = f'{PY} -c "import json, numpy; print(json.dumps(int(numpy.arange(4).sum())))"'
    result = run_evaluator(command, tmp_path, timeout_s=60, sandbox=choice)
    assert (result.ok, result.stdout) == (True, "6\n"), result.stderr
