import assert from 'node:assert/strict';
import { beforeEach, test } from 'node:test';
import { fake } from '../fake/vscodeapi';
import {
    checkVersion,
    diagnose,
    missingBundle,
    parseProbe,
    probe,
    resolveInterpreter,
    SELECT_INTERPRETER,
    SHOW_OUTPUT,
    USE_BUNDLED,
    type Interpreter,
} from '../../src/python';
import { DEFAULTS } from '../../src/settings';
import { fakeOldPython, PYTHON, pythonWithoutServer, pythonWithStubServer, stubServerLibs, tempDir } from './helpers';

beforeEach(() => fake.reset());

const withInterpreter = (interpreter: string[]) => ({ ...DEFAULTS, interpreter });

test('resolution: the proctor.interpreter setting wins over the Python extension', async () => {
    fake.pythonExtension = { active: '/envs/project/bin/python' };
    const found = await resolveInterpreter(withInterpreter(['/opt/py311/bin/python', '-X', 'utf8']), '/ws');
    assert.deepEqual(found, { command: ['/opt/py311/bin/python', '-X', 'utf8'], source: 'setting' });
});

test("resolution: no setting, the Python extension's active environment", async () => {
    fake.pythonExtension = { active: '/envs/project/bin/python' };
    assert.deepEqual(await resolveInterpreter(DEFAULTS, '/ws'), {
        command: ['/envs/project/bin/python'],
        source: 'pythonExtension',
    });
});

test('resolution: no setting and no Python extension (or none active, or it fails), python3', async () => {
    const expected = { command: ['python3'], source: 'default' };
    assert.deepEqual(await resolveInterpreter(DEFAULTS, '/ws'), expected);
    fake.pythonExtension = { active: undefined };
    assert.deepEqual(await resolveInterpreter(DEFAULTS, '/ws'), expected);
    fake.pythonExtension = { active: '/x', fails: true };
    assert.deepEqual(await resolveInterpreter(DEFAULTS, '/ws'), expected);
});

test('checkVersion: 3.11 and newer pass, older ones say what is needed', () => {
    assert.equal(checkVersion([3, 11, 0]), undefined);
    assert.equal(checkVersion([3, 13, 1]), undefined);
    assert.equal(checkVersion([4, 0, 0]), undefined);
    assert.equal(
        checkVersion([3, 10, 13]),
        'it is Python 3.10.13; the Proctor language server needs Python 3.11 or newer',
    );
    assert.match(checkVersion([2, 7, 18]) ?? '', /Python 2\.7\.18/);
});

test('parseProbe: no version line is a start failure; a failed import keeps the traceback last line', () => {
    assert.deepEqual(parseProbe(Object.assign(new Error('spawn nope ENOENT'), { code: 'ENOENT' }), '', ''), {
        spawnError: 'ENOENT',
    });
    const failed = parseProbe(
        new Error('Command failed'),
        '{"version": [3, 12, 1], "executable": "/usr/bin/python3.12"}\n',
        "Traceback (most recent call last):\n  ...\nModuleNotFoundError: No module named 'lsp_server'\n",
    );
    assert.deepEqual(failed, {
        version: [3, 12, 1],
        executable: '/usr/bin/python3.12',
        importError: "ModuleNotFoundError: No module named 'lsp_server'",
    });
});

const settingInterpreter = (path: string): Interpreter => ({ command: [path], source: 'setting' });

test('probe (real processes): a missing interpreter, a too-old one, one without the server, one with it', async () => {
    const dir = tempDir('probe');
    const libs = stubServerLibs(`${dir}/libs`);
    const missing = await probe(settingInterpreter(`${dir}/no-such-python`), 'fromEnvironment', libs, dir);
    assert.equal(missing.spawnError, 'ENOENT');

    const old = await probe(settingInterpreter(fakeOldPython(dir, [3, 10, 13])), 'fromEnvironment', libs, dir);
    assert.deepEqual(old.version, [3, 10, 13]);

    const bare = await probe(settingInterpreter(pythonWithoutServer(dir)), 'fromEnvironment', libs, dir);
    assert.ok(bare.version !== undefined && bare.version[1] >= 11, `${PYTHON} must be Python 3.11+`);
    assert.equal(bare.importError, "ModuleNotFoundError: No module named 'lsp_server'");

    const installed = await probe(settingInterpreter(pythonWithStubServer(dir)), 'fromEnvironment', libs, dir);
    assert.equal(installed.importError, undefined);

    const bundled = await probe(settingInterpreter(pythonWithoutServer(dir)), 'useBundled', libs, dir);
    assert.equal(bundled.importError, undefined, 'the bundled probe imports from the libs folder');
});

test('probe: a `core`/`lsp_server` folder in the workspace does not count as an installed server', async () => {
    const dir = tempDir('shadow');
    stubServerLibs(dir); // the workspace itself has lsp_server/ (like a Proctor checkout)
    const result = await probe(settingInterpreter(pythonWithoutServer(dir)), 'fromEnvironment', `${dir}/none`, dir);
    assert.equal(result.importError, "ModuleNotFoundError: No module named 'lsp_server'");
});

const ok = { version: [3, 12, 1] as const, executable: '/usr/bin/python3' };
const python3: Interpreter = { command: ['python3'], source: 'default' };

test('message: the interpreter cannot be started', () => {
    const problem = diagnose(settingInterpreter('/opt/nope/python'), 'useBundled', { spawnError: 'ENOENT' }, true);
    assert.deepEqual(problem, {
        message:
            'Proctor: cannot run the Python interpreter `/opt/nope/python` (from the proctor.interpreter setting): ' +
            'ENOENT. Install Python 3.11+ and select it (Python extension), or set proctor.interpreter to its path.',
        buttons: [SELECT_INTERPRETER, SHOW_OUTPUT],
    });
});

test('message: the interpreter is too old', () => {
    const problem = diagnose(python3, 'fromEnvironment', { version: [3, 10, 13] }, true);
    assert.deepEqual(problem, {
        message:
            'Proctor: `python3` (python3 on PATH) cannot run the language server: it is Python 3.10.13; the Proctor ' +
            'language server needs Python 3.11 or newer. Select a Python 3.11+ interpreter.',
        buttons: [SELECT_INTERPRETER, SHOW_OUTPUT],
    });
});

test('message: fromEnvironment and the server is not installed there offers the bundled server', () => {
    const active: Interpreter = { command: ['/envs/p/bin/python'], source: 'pythonExtension' };
    const problem = diagnose(active, 'fromEnvironment', { ...ok, importError: "ModuleNotFoundError: No module named 'lsp_server'" }, true);
    assert.deepEqual(problem?.buttons, [USE_BUNDLED, SELECT_INTERPRETER, SHOW_OUTPUT]);
    assert.equal(
        problem?.message,
        "Proctor: the language server is not importable with `/envs/p/bin/python` (the Python extension's active " +
            "environment) (ModuleNotFoundError: No module named 'lsp_server'). Install it there " +
            '(`python -m pip install proctor`), select an interpreter that has it, or use the server bundled with ' +
            'this extension (proctor.importStrategy: useBundled).',
    );
    const noBundle = diagnose(active, 'fromEnvironment', { ...ok, importError: 'x' }, false);
    assert.deepEqual(noBundle?.buttons, [SELECT_INTERPRETER, SHOW_OUTPUT]);
});

test('message: the bundled server does not import (another platform) says to install it instead', () => {
    const problem = diagnose(python3, 'useBundled', { ...ok, importError: "ModuleNotFoundError: No module named 'pydantic_core._pydantic_core'" }, true);
    assert.deepEqual(problem?.buttons, [SELECT_INTERPRETER, SHOW_OUTPUT]);
    assert.match(problem?.message ?? '', /^Proctor: the bundled language server does not import with `python3`/);
    assert.match(problem?.message ?? '', /Linux x86-64; elsewhere install Proctor .* fromEnvironment\.$/);
});

test('message: a build without bundled libraries', () => {
    assert.deepEqual(missingBundle('/ext/bundled/libs'), {
        message:
            'Proctor: this build of the extension has no bundled language server (/ext/bundled/libs is missing). ' +
            'Build it with `make vsix`, or install Proctor in your interpreter and set proctor.importStrategy to ' +
            'fromEnvironment.',
        buttons: [SELECT_INTERPRETER, SHOW_OUTPUT],
    });
});

test('no message when the probe found a good interpreter with the server', () => {
    assert.equal(diagnose(python3, 'useBundled', ok, true), undefined);
    assert.equal(diagnose(python3, 'fromEnvironment', ok, true), undefined);
});
