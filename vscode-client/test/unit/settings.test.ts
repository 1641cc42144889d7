import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DEFAULTS, effectOf, parseSettings, serverSettings } from '../../src/settings';

const from = (values: Record<string, unknown>) => parseSettings((key) => values[key]);
const changeOf = (...keys: string[]) => ({ affectsConfiguration: (section: string) => keys.includes(section) });

test('no settings: the defaults (bundled server, 50 ms debounce, every rule)', () => {
    assert.deepEqual(from({}), DEFAULTS);
    assert.equal(DEFAULTS.importStrategy, 'useBundled');
});

test('settings are read with their types; a string interpreter is one path', () => {
    const settings = from({
        interpreter: ' /opt/py/bin/python ',
        importStrategy: 'fromEnvironment',
        debounceMs: 200,
        select: ['EV', ' BR001 '],
        ignore: 'EV013',
        'trace.server': 'verbose',
    });
    assert.deepEqual(settings, {
        interpreter: ['/opt/py/bin/python'],
        importStrategy: 'fromEnvironment',
        debounceMs: 200,
        select: ['EV', 'BR001'],
        ignore: ['EV013'],
        trace: 'verbose',
    });
});

test('a bad value falls back to its default and leaves the others alone', () => {
    const settings = from({ importStrategy: 'bundled', debounceMs: -5, select: [1, 2], interpreter: ['py', '-3.12'] });
    assert.equal(settings.importStrategy, 'useBundled');
    assert.equal(settings.debounceMs, 50);
    assert.deepEqual(settings.select, []);
    assert.deepEqual(settings.interpreter, ['py', '-3.12']);
});

test('the server gets exactly the keys lsp_server/settings.py reads', () => {
    const settings = from({ debounceMs: 10, select: ['EV'], ignore: ['EV013'], interpreter: ['x'] });
    assert.deepEqual(serverSettings(settings), { debounceMs: 10, select: ['EV'], ignore: ['EV013'] });
});

test('interpreter and importStrategy restart the server; debounceMs, select, ignore only notify it', () => {
    assert.equal(effectOf(changeOf('proctor.interpreter'), undefined), 'restart');
    assert.equal(effectOf(changeOf('proctor.importStrategy'), undefined), 'restart');
    assert.equal(effectOf(changeOf('proctor.select'), undefined), 'notify');
    assert.equal(effectOf(changeOf('proctor.ignore'), undefined), 'notify');
    assert.equal(effectOf(changeOf('proctor.debounceMs'), undefined), 'notify');
    assert.equal(effectOf(changeOf('proctor.trace.server'), undefined), 'none');
    assert.equal(effectOf(changeOf('editor.fontSize'), undefined), 'none');
});
