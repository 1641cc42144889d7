import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { beforeEach, test } from 'node:test';
import { fake } from '../fake/vscodeapi';
import { activate, COMMANDS } from '../../src/extension';
import { DEFAULTS, parseSettings } from '../../src/settings';
import { fakeExtensionDir, pythonWithoutServer, tempDir } from './helpers';

const manifest = JSON.parse(readFileSync(path.resolve(__dirname, '..', '..', '..', 'package.json'), 'utf8')) as {
    activationEvents: string[];
    capabilities: { untrustedWorkspaces: { supported: string; restrictedConfigurations: string[] } };
    contributes: { commands: { command: string; title: string }[]; configuration: { properties: Record<string, { default: unknown }> } };
};

beforeEach(() => fake.reset());

test('package.json: the activation events and the four commands the extension registers', async () => {
    assert.deepEqual(manifest.activationEvents, [
        'workspaceContains:kapso_evaluation',
        'workspaceContains:proctor.toml',
        'workspaceContains:**/*.brief.md',
    ]);
    assert.deepEqual(
        manifest.contributes.commands.map((c) => [c.command, c.title]),
        [
            [COMMANDS.verify, 'Verify Evaluator'],
            [COMMANDS.fingerprint, 'Show Evaluator Fingerprint'],
            [COMMANDS.restart, 'Restart Server'],
            [COMMANDS.showOutput, 'Show Output'],
        ],
    );
});

test('package.json: a restricted workspace cannot choose the program that runs the server', () => {
    assert.equal(manifest.capabilities.untrustedWorkspaces.supported, 'limited');
    assert.deepEqual(manifest.capabilities.untrustedWorkspaces.restrictedConfigurations, [
        'proctor.interpreter',
        'proctor.importStrategy',
    ]);
});

test('package.json: every setting is declared, and its default is the one the extension uses', () => {
    const properties = manifest.contributes.configuration.properties;
    const declared = Object.fromEntries(Object.entries(properties).map(([key, p]) => [key.replace(/^proctor\./, ''), p.default]));
    assert.deepEqual(Object.keys(declared).sort(), ['debounceMs', 'ignore', 'importStrategy', 'interpreter', 'select', 'trace.server']);
    assert.deepEqual(parseSettings((key) => declared[key]), DEFAULTS);
});

test('activate registers the commands and starts the server once', async () => {
    fake.config.set('interpreter', [pythonWithoutServer(tempDir('py'))]);
    const subscriptions: { dispose(): unknown }[] = [];
    const controller = await activate({ extensionPath: fakeExtensionDir(), subscriptions });
    assert.deepEqual([...fake.registered.keys()].sort(), Object.values(COMMANDS).sort());
    assert.equal(fake.connections.length, 1);
    assert.ok(controller.running);
    await fake.registered.get(COMMANDS.restart)?.();
    assert.equal(fake.connections.length, 2);
    assert.ok(fake.connections[0].stopped);
    fake.registered.get(COMMANDS.showOutput)?.();
    assert.equal(fake.logs[0].shown, 1);
    await controller.stop();
    assert.ok(fake.connections[1].stopped);
});

test('the Python extension changing its interpreter restarts the server (debounced)', async () => {
    const python = pythonWithoutServer(tempDir('py'));
    fake.pythonExtension = { active: python };
    const controller = await activate({ extensionPath: fakeExtensionDir(), subscriptions: [] });
    assert.equal(fake.connections[0].spec.command, python);
    fake.pythonListeners.forEach((listener) => listener());
    fake.pythonListeners.forEach((listener) => listener());
    await new Promise((resolve) => setTimeout(resolve, 500));
    await controller.idle();
    assert.equal(fake.connections.length, 2);
    await controller.stop();
});
