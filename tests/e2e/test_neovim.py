"""A real editor: headless Neovim starts `python -m lsp_server`, opens an evaluator from a temp copy of the
example workspace and shows Proctor's diagnostics (read back with `vim.diagnostic.get()`).

Needs `nvim` (Debian `neovim`; `.ci/run` installs it). Skipped with the reason when it is missing, except under
CI=true, where a missing editor is a failure.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "churn"

INIT_LUA = r"""
local python, root, out = vim.env.PROCTOR_PYTHON, vim.env.PROCTOR_ROOT, vim.env.PROCTOR_OUT
local function attach(bufnr)
  local config = { name = "proctor", cmd = { python, "-m", "lsp_server" }, root_dir = root }
  if vim.lsp.start then  -- Neovim >= 0.8
    vim.lsp.start(config, { bufnr = bufnr })
  else                   -- Debian 12 ships 0.7
    local id = vim.lsp.start_client(config)
    vim.lsp.buf_attach_client(bufnr, id)
  end
end
vim.api.nvim_create_autocmd("FileType", { pattern = { "python", "markdown" }, callback = function(args)
  attach(args.buf)
end })
vim.api.nvim_create_autocmd("VimEnter", { callback = function()
  local function proctor()
    local found = {}
    for _, d in ipairs(vim.diagnostic.get(0)) do
      if d.source == "proctor" then table.insert(found, d) end
    end
    return found
  end
  local ok = vim.wait(60000, function() return #proctor() > 0 end, 50)
  local items = {}
  for _, d in ipairs(proctor()) do
    local lsp = d.user_data and d.user_data.lsp or {}
    table.insert(items, { code = d.code or lsp.code, source = d.source, lnum = d.lnum, col = d.col,
                          severity = d.severity, message = d.message })
  end
  local file = io.open(out, "w")
  file:write(vim.fn.json_encode({ ok = ok, diagnostics = items }))
  file:close()
  vim.cmd("qa!")
end })
"""


def _nvim() -> str:
    found = shutil.which("nvim")
    if found is None:
        if os.environ.get("CI") == "true":
            pytest.fail("nvim is not installed (CI=true): install Debian's `neovim` (.ci/run does)")
        pytest.skip("nvim is not installed: `apt-get install neovim` to run the real-editor test")
    return found


def _workspace(tmp_path: Path) -> Path:
    target = tmp_path / "churn"
    if EXAMPLE.is_dir():
        shutil.copytree(EXAMPLE, target, ignore=shutil.ignore_patterns("__pycache__", ".proctor"))
    else:
        from tests.lsp_server.conftest import write_workspace

        write_workspace(target)
    (target / ".git").mkdir(exist_ok=True)
    return target


def test_neovim_shows_proctor_diagnostics(tmp_path: Path) -> None:
    nvim = _nvim()
    root = _workspace(tmp_path)
    evaluator = root / "kapso_evaluation" / "evaluate.py"
    # A finding every version of the example has once it reads a URL: EV011 network-access, on the call.
    reads_url = '\nimport urllib.request\nurllib.request.urlopen("https://example.com/labels.csv")\n'
    evaluator.write_text(evaluator.read_text(encoding="utf-8") + reads_url, encoding="utf-8")
    expected_line = len(evaluator.read_text(encoding="utf-8").splitlines()) - 1
    init = tmp_path / "init.lua"
    init.write_text(INIT_LUA, encoding="utf-8")
    out = tmp_path / "diagnostics.json"
    home = tmp_path / "home"
    env = {
        **os.environ,
        "PROCTOR_PYTHON": sys.executable,
        "PROCTOR_ROOT": str(root),
        "PROCTOR_OUT": str(out),
        "HOME": str(home),
        "XDG_CONFIG_HOME": str(home / "config"),
        "XDG_DATA_HOME": str(home / "data"),
        "XDG_STATE_HOME": str(home / "state"),
        "XDG_CACHE_HOME": str(home / "cache"),
    }
    done = subprocess.run(
        [nvim, "--headless", "-i", "NONE", "--noplugin", "-u", str(init), str(evaluator)],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert out.is_file(), f"nvim wrote no result (exit {done.returncode}): {done.stderr[-2000:]}"
    result = json.loads(out.read_text(encoding="utf-8"))
    assert result["ok"] is True, result
    found = {(d["code"], d["lnum"]) for d in result["diagnostics"]}
    assert ("EV011", expected_line) in found, result
    assert all(d["source"] == "proctor" for d in result["diagnostics"])
