"""Fill bundled/libs with what the language server imports, for `importStrategy: useBundled`.

Run by `make vsix` with the repository's .venv Python. It installs, with `pip --target`, the server's runtime
distributions at the versions that .venv runs (so the bundle is what the tests ran), copies the `core` and
`lsp_server` packages from the repository, and adds pydantic-core's compiled extension for each other CPython
the server supports. pydantic-core is the only compiled wheel the server imports (numpy, scipy and rapidfuzz
are used by campaigns and the judge, never by the language server), and CPython picks the extension module
whose file name matches its own version, so one folder serves 3.11 to 3.14 on the build platform.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import json
import platform
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent
REPO = HERE.parent
LIBS = HERE / "bundled" / "libs"
PACKAGES = ("core", "lsp_server")
# The language server's runtime closure (pygls 2 and pydantic 2 with their own dependencies).
DISTRIBUTIONS = (
    "pygls",
    "lsprotocol",
    "attrs",
    "cattrs",
    "pydantic",
    "pydantic-core",
    "annotated-types",
    "typing-extensions",
    "typing-inspection",
)
SUPPORTED_PYTHONS = ("3.11", "3.12", "3.13", "3.14")
LINUX_X86_64 = "manylinux_2_17_x86_64"


def pins() -> list[str]:
    return [f"{name}=={importlib.metadata.version(name)}" for name in DISTRIBUTIONS]


def pip(*args: str) -> None:
    subprocess.run([sys.executable, "-m", "pip", "--quiet", *args], check=True)


def install(target: Path, requirements: list[str]) -> None:
    pip("install", "--target", str(target), "--no-deps", "--no-compile", "--only-binary=:all:", *requirements)
    for junk in target.glob("bin"):
        shutil.rmtree(junk)


def copy_packages(target: Path) -> None:
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    for name in PACKAGES:
        shutil.rmtree(target / name, ignore_errors=True)
        shutil.copytree(REPO / name, target / name, ignore=ignore)


def add_pydantic_core_builds(target: Path, pin: str) -> list[str]:
    """The other CPython versions' `_pydantic_core` extension next to the build interpreter's one."""
    if sys.platform != "linux" or platform.machine() != "x86_64":
        print(
            f"bundle_libs: {sys.platform}/{platform.machine()}: only this Python's pydantic-core is bundled"
        )
        return [f"{sys.version_info.major}.{sys.version_info.minor}"]
    own = f"{sys.version_info.major}.{sys.version_info.minor}"  # installed by `install` already
    done = [own]
    with tempfile.TemporaryDirectory(prefix="proctor-wheels-") as scratch:
        for version in (v for v in SUPPORTED_PYTHONS if v != own):
            tag = "cp" + version.replace(".", "")
            pip(
                "download", "--no-deps", "--only-binary=:all:", "--python-version", version,
                "--implementation", "cp", "--abi", tag, "--platform", LINUX_X86_64, "-d", scratch, pin,
            )  # fmt: skip
            wheel = next(Path(scratch).glob(f"pydantic_core-*-{tag}-{tag}-*.whl"))
            with zipfile.ZipFile(wheel) as archive:
                for member in archive.namelist():
                    if member.startswith("pydantic_core/_pydantic_core.") and member.endswith(".so"):
                        (target / member).write_bytes(archive.read(member))
            done.append(version)
    return done


def bundle_info(requirements: list[str], pythons: list[str]) -> dict[str, object]:
    return {
        "distributions": requirements,
        "packages": list(PACKAGES),
        "pydantic_core_for": sorted(pythons),
        "platform": f"{sys.platform}-{platform.machine()}",
    }


def up_to_date(info_file: Path, target: Path, requirements: list[str]) -> bool:
    """The installed distributions are the ones wanted: only `core` and `lsp_server` need copying again."""
    try:
        info = json.loads(info_file.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    wanted = bundle_info(requirements, list(info.get("pydantic_core_for", [])))
    return target.is_dir() and info == wanted


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--target", type=Path, default=LIBS)
    parser.add_argument("--force", action="store_true", help="reinstall the distributions too")
    args = parser.parse_args()
    target: Path = args.target
    info_file = target.parent / "bundle.json"
    requirements = pins()
    if not args.force and up_to_date(info_file, target, requirements):
        copy_packages(target)
        info_file.touch()
        print(f"bundle_libs: {target}: distributions unchanged, core and lsp_server copied again")
        return 0
    shutil.rmtree(target, ignore_errors=True)
    target.mkdir(parents=True)
    install(target, requirements)
    copy_packages(target)
    core_pin = next(r for r in requirements if r.startswith("pydantic-core=="))
    pythons = add_pydantic_core_builds(target, core_pin)
    info_file.write_text(json.dumps(bundle_info(requirements, pythons), indent=2) + "\n", encoding="utf-8")
    print(
        f"bundle_libs: {target} ({', '.join(requirements)}; pydantic-core for CPython {', '.join(pythons)})"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
