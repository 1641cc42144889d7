import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { beforeEach, test } from 'node:test';
import { fake } from '../fake/vscodeapi';
import { Logger } from '../../src/log/logging';
import { SELECT_INTERPRETER, SHOW_OUTPUT, USE_BUNDLED } from '../../src/python';
import { RESTART_DEBOUNCE_MS, RESTART_SERVER, ServerController, serverLaunch } from '../../src/server';
import { StatusBar } from '../../src/status';
import { fakeExtensionDir, fakeOldPython, pythonWithoutServer, pythonWithStubServer, tempDir } from './helpers';

beforeEach(() => fake.reset());

test('launch, bundled: the interpreter in isolated mode runs the bundled launcher; no --stdio', () => {
    const launch = serverLaunch('useBundled', ['/usr/bin/python3'], '/ext');
    assert.deepEqual(launch, { command: '/usr/bin/python3', args: ['-I', path.join('/ext', 'bundled', 'tool', 'proctor_lsp.py')] });
});

test('launch, environment: `-P -m lsp_server`, after the interpreter setting’s own leading arguments', () => {
    assert.deepEqual(serverLaunch('fromEnvironment', ['py', '-3.12'], '/ext'), {
        command: 'py',
        args: ['-3.12', '-P', '-m', 'lsp_server'],
    });
    assert.deepEqual(serverLaunch('fromEnvironment', [], '/ext'), { command: 'python3', args: ['-P', '-m', 'lsp_server'] });
});

test('the launcher the bundled launch names is in the repository', () => {
    const here = path.resolve(__dirname, '..', '..', '..');
    assert.ok(existsSync(path.join(here, 'bundled', 'tool', 'proctor_lsp.py')));
});

function controllerFor(extensionDir: string): { controller: ServerController; status: StatusBar } {
    const status = new StatusBar();
    return { controller: new ServerController(extensionDir, new Logger(), status), status };
}

test('settings → launch (bundled, the default): the probe passes, the client gets command, cwd and settings', async () => {
    const ext = fakeExtensionDir();
    const python = pythonWithoutServer(tempDir('py'));
    fake.config.set('interpreter', [python]);
    fake.config.set('select', ['EV']);
    const { controller, status } = controllerFor(ext);
    await controller.restart('test');
    assert.deepEqual(fake.messages, []);
    assert.equal(fake.connections.length, 1);
    const { spec, started } = fake.connections[0];
    assert.ok(started);
    assert.equal(spec.command, python);
    assert.deepEqual(spec.args, ['-I', path.join(ext, 'bundled', 'tool', 'proctor_lsp.py')]);
    assert.equal(spec.cwd, fake.folders[0]);
    assert.deepEqual(spec.initializationOptions, { debounceMs: 50, select: ['EV'], ignore: [] });
    assert.equal(status.current.server, 'running');
});

test('settings → launch (fromEnvironment): the interpreter that has the server runs `-P -m lsp_server`', async () => {
    const python = pythonWithStubServer(tempDir('py'));
    fake.config.set('importStrategy', 'fromEnvironment');
    fake.pythonExtension = { active: python };
    const { controller } = controllerFor(fakeExtensionDir());
    await controller.restart('test');
    assert.deepEqual(fake.messages, []);
    assert.equal(fake.connections[0].spec.command, python);
    assert.deepEqual(fake.connections[0].spec.args, ['-P', '-m', 'lsp_server']);
});

test('fromEnvironment without the server: one message, no launch; "Use bundled server" switches and restarts', async () => {
    const python = pythonWithoutServer(tempDir('py'));
    fake.config.set('importStrategy', 'fromEnvironment');
    fake.config.set('interpreter', python);
    fake.answers.push(USE_BUNDLED);
    const { controller, status } = controllerFor(fakeExtensionDir());
    await controller.restart('test');
    await controller.idle();
    assert.equal(fake.messages.length, 1);
    assert.equal(fake.messages[0].level, 'error');
    assert.deepEqual(fake.messages[0].buttons, [USE_BUNDLED, SELECT_INTERPRETER, SHOW_OUTPUT]);
    assert.equal(fake.connections.length, 0, 'a launch known to fail is not tried');
    assert.equal(status.current.server, 'failed');
    assert.deepEqual(fake.written, [{ section: 'proctor', key: 'importStrategy', value: 'useBundled' }]);
    // the settings change of the click is what restarts the server (the listener from extension.ts):
    assert.equal(controller.running, false);
});

test('too old: "Select interpreter" opens the Python extension’s picker, or the setting without it', async () => {
    const old = fakeOldPython(tempDir('py'), [3, 10, 13]);
    fake.config.set('interpreter', [old]);
    fake.answers.push(SELECT_INTERPRETER, SELECT_INTERPRETER);
    const { controller } = controllerFor(fakeExtensionDir());
    await controller.restart('test');
    await controller.idle();
    assert.match(fake.messages[0].message, /it is Python 3\.10\.13; the Proctor language server needs Python 3\.11/);
    assert.deepEqual(fake.executed, [{ command: 'workbench.action.openSettings', args: ['proctor.interpreter'] }]);
    fake.pythonExtension = { active: undefined };
    await controller.restart('again');
    await controller.idle();
    assert.deepEqual(fake.executed[1], { command: 'python.setInterpreter', args: [] });
});

test('a build without bundled libraries says so and starts nothing', async () => {
    const { controller } = controllerFor(tempDir('empty-ext'));
    await controller.restart('test');
    assert.equal(fake.connections.length, 0);
    assert.match(fake.messages[0].message, /has no bundled language server .*bundled[/\\]libs is missing/);
});

test('a crash is reported once and not restarted (no loop); "Restart Server" starts it again', async () => {
    const python = pythonWithoutServer(tempDir('py'));
    fake.config.set('interpreter', [python]);
    const { controller, status } = controllerFor(fakeExtensionDir());
    await controller.restart('test');
    fake.answers.push(undefined);
    fake.connections[0].crash();
    await controller.idle();
    await new Promise((resolve) => setTimeout(resolve, RESTART_DEBOUNCE_MS + 100));
    assert.equal(fake.connections.length, 1, 'no automatic restart');
    assert.equal(status.current.server, 'failed');
    assert.deepEqual(fake.messages.map((m) => m.buttons), [[RESTART_SERVER, SHOW_OUTPUT]]);
    assert.match(fake.messages[0].message, /it is not restarted automatically/);
    await controller.act(RESTART_SERVER);
    assert.equal(fake.connections.length, 2);
    assert.equal(status.current.server, 'running');
});

test('launch settings changes are debounced into one restart; live settings only notify the server', async () => {
    const python = pythonWithoutServer(tempDir('py'));
    fake.config.set('interpreter', [python]);
    const { controller } = controllerFor(fakeExtensionDir());
    fake.configListeners.push((change) => void controller.onSettingsChanged(change));
    await controller.restart('test');
    fake.change({ select: ['EV0'], ignore: ['EV013'] });
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(fake.connections[0].notifications, [
        {
            method: 'workspace/didChangeConfiguration',
            params: { settings: { proctor: { debounceMs: 50, select: ['EV0'], ignore: ['EV013'] } } },
        },
    ]);
    fake.change({ interpreter: [python, '-X', 'utf8'] });
    fake.change({ importStrategy: 'useBundled' });
    await new Promise((resolve) => setTimeout(resolve, RESTART_DEBOUNCE_MS + 100));
    await controller.idle();
    assert.equal(fake.connections.length, 2, 'two changes, one restart');
    assert.ok(fake.connections[0].stopped);
    assert.deepEqual(fake.connections[1].spec.args.slice(0, 3), ['-X', 'utf8', '-I']);
});

test('Verify runs proctor.verify then proctor.fingerprint; the status bar shows the short id and the verdict', async () => {
    fake.config.set('interpreter', [pythonWithoutServer(tempDir('py'))]);
    fake.commandResults['proctor.verify'] = { schema: 1, verdict: 'pass', clauses: [] };
    fake.commandResults['proctor.fingerprint'] = { evaluator_id: '3f2a9c41d07be5aa', suite: 'kapso_evaluation' };
    const { controller } = controllerFor(fakeExtensionDir());
    await controller.restart('test');
    await controller.verify();
    const commands = fake.connections[0].commands;
    assert.deepEqual(commands, [
        { command: 'proctor.verify', args: [fake.folders[0]] },
        { command: 'proctor.fingerprint', args: [fake.folders[0]] },
    ]);
    const item = fake.statusItems[0];
    assert.equal(item.text, '$(beaker) Proctor 3f2a9c41 $(pass) pass');
    assert.equal(item.command, 'proctor.verifyEvaluator');
    assert.match(item.tooltip ?? '', /evaluator_id 3f2a9c41d07be5aa\nlast verify: pass/);
});

test('Verify while the server is down says why and offers a restart', async () => {
    fake.config.set('interpreter', ['/no/such/python']);
    const { controller } = controllerFor(fakeExtensionDir());
    await controller.restart('test');
    await controller.verify();
    await controller.idle();
    assert.equal(fake.messages.length, 2);
    assert.match(fake.messages[1].message, /^Proctor: the language server is not running \(Proctor: cannot run the Python interpreter/);
    assert.deepEqual(fake.messages[1].buttons, [RESTART_SERVER, SHOW_OUTPUT]);
    assert.equal(fake.statusItems[0].text, '$(warning) Proctor');
});
