import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { barePython, canImport, CLIENT_DIR, diagnosticsFromServer, VENV_PYTHON } from './lsp';

const TIMEOUT = { timeout: 60_000 };
test('from the environment: the repository .venv runs `-P -m lsp_server` and publishes EV009', TIMEOUT, async () => {
    assert.ok(existsSync(VENV_PYTHON), `${VENV_PYTHON} is missing: run \`make install\` in the repository`);
    await diagnosticsFromServer(VENV_PYTHON, 'fromEnvironment', CLIENT_DIR);
});

test('bundled: a Python with nothing installed runs the server from bundled/libs and publishes EV009', TIMEOUT, async () => {
    const libs = path.join(CLIENT_DIR, 'bundled', 'libs');
    assert.ok(existsSync(path.join(libs, 'lsp_server')), `${libs} is missing: run \`make vsix\` in the repository`);
    const python = barePython();
    assert.equal(canImport(python, 'lsp_server', '/'), false, 'the bare interpreter must not have Proctor');
    assert.equal(canImport(python, 'pydantic', '/'), false, 'the bare interpreter must not have pydantic');
    await diagnosticsFromServer(python, 'useBundled', CLIENT_DIR);
});
