import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import {
    barePython,
    canImport,
    churnWorkspace,
    CLIENT_DIR,
    diagnosticsFromServer,
    fileUri,
    startServer,
    stopServer,
    unseededEvaluator,
    VENV_PYTHON,
} from './lsp';
import { DEFAULTS, serverSettings } from '../../src/settings';

const TIMEOUT = { timeout: 60_000 };

test('from the environment: the repository .venv runs `-P -m lsp_server`; pull diagnostics (as VS Code) give EV009', TIMEOUT, async () => {
    assert.ok(existsSync(VENV_PYTHON), `${VENV_PYTHON} is missing: run \`make install\` in the repository`);
    await diagnosticsFromServer(VENV_PYTHON, 'fromEnvironment', CLIENT_DIR, 'pull');
});

test('bundled: a Python with nothing installed runs the server from bundled/libs and publishes EV009', TIMEOUT, async () => {
    const libs = path.join(CLIENT_DIR, 'bundled', 'libs');
    assert.ok(existsSync(path.join(libs, 'lsp_server')), `${libs} is missing: run \`make vsix\` in the repository`);
    const python = barePython();
    assert.equal(canImport(python, 'lsp_server', '/'), false, 'the bare interpreter must not have Proctor');
    assert.equal(canImport(python, 'pydantic', '/'), false, 'the bare interpreter must not have pydantic');
    await diagnosticsFromServer(python, 'useBundled', CLIENT_DIR);
});

test('settings: proctor.ignore from initializationOptions hides EV009; a change (didChangeConfiguration) shows it', TIMEOUT, async () => {
    const workspace = churnWorkspace();
    const evaluator = path.join(workspace, 'kapso_evaluation', 'evaluate.py');
    const ignoring = serverSettings({ ...DEFAULTS, ignore: ['EV009'] });
    const server = await startServer(VENV_PYTHON, 'fromEnvironment', CLIENT_DIR, workspace, 'push', ignoring);
    try {
        const uri = fileUri(evaluator);
        const edited = unseededEvaluator(readFileSync(evaluator, 'utf8'));
        const text = edited.text.replace('for name in header if name != LABEL', 'for name in set(header) if name != LABEL');
        await server.connection.sendNotification('textDocument/didOpen', {
            textDocument: { uri, languageId: 'python', version: 1, text },
        });
        const hidden = await server.diagnosticsFor(uri);
        assert.deepEqual(hidden.map((d) => d.code), ['EV013'], 'EV009 is ignored, EV013 is not');
        server.settings.value = serverSettings(DEFAULTS);
        await server.connection.sendNotification('workspace/didChangeConfiguration', { settings: { proctor: server.settings.value } });
        const shown = await server.diagnosticsFor(uri, (items) => items.some((d) => d.code === 'EV009'));
        assert.deepEqual(shown.map((d) => d.code).sort(), ['EV009', 'EV013']);
        assert.equal(await stopServer(server), 0, server.stderr());
    } finally {
        server.process.kill();
    }
});
