import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import { barePython, CLIENT_DIR, diagnosticsFromServer } from '../protocol/lsp';
import { PYTHON } from '../unit/helpers';

const VSIX = path.join(CLIENT_DIR, 'proctor.vsix');

/** The .vsix is a zip; Python's zipfile reads it on any machine the tests run on. */
function zip(...args: string[]): string {
    const run = spawnSync(PYTHON, ['-c', 'import json, sys, zipfile\nz = zipfile.ZipFile(sys.argv[1])\n' + args[0], VSIX, ...args.slice(1)], {
        encoding: 'utf8',
    });
    assert.equal(run.status, 0, run.stderr);
    return run.stdout;
}

function entries(): string[] {
    assert.ok(existsSync(VSIX), `${VSIX} is missing: run \`make vsix\` in the repository`);
    return JSON.parse(zip('print(json.dumps(z.namelist()))')) as string[];
}

test('the .vsix holds the bundle, manifest, docs, icon and bundled server, and nothing else', () => {
    const names = entries();
    const outside = names.filter((n) => !n.startsWith('extension/bundled/libs/')).sort();
    assert.deepEqual(outside, [
        '[Content_Types].xml',
        'extension.vsixmanifest',
        'extension/bundled/bundle.json',
        'extension/bundled/tool/proctor_lsp.py',
        'extension/changelog.md',
        'extension/dist/extension.js',
        'extension/media/diagnostics.png',
        'extension/media/icon.png',
        'extension/package.json',
        'extension/readme.md',
    ]);
    for (const required of ['lsp_server/__main__.py', 'lsp_server/server.py', 'core/__init__.py', 'pygls/__init__.py', 'pydantic/__init__.py']) {
        assert.ok(names.includes(`extension/bundled/libs/${required}`), `bundled/libs/${required} missing`);
    }
    for (const minor of [11, 12, 13, 14]) {
        const so = `extension/bundled/libs/pydantic_core/_pydantic_core.cpython-3${minor}-x86_64-linux-gnu.so`;
        assert.ok(names.includes(so), `${so} missing`);
    }
    // Inside bundled/libs too: no node_modules, no compiled caches from a local run, no test bundles.
    assert.deepEqual(names.filter((n) => /node_modules\/|__pycache__|\.pyc$|\.test\.js$|\.map$/.test(n)), []);
    assert.equal(names.filter((n) => n.startsWith('extension/bundled/libs/github_app/')).length, 0, 'the GitHub App is not bundled');
});

test('the packaged manifest: entry point, engines, icon, activation, no dependencies to install', () => {
    const manifest = JSON.parse(zip('print(z.read("extension/package.json").decode())')) as Record<string, unknown>;
    const source = JSON.parse(readFileSync(path.join(CLIENT_DIR, 'package.json'), 'utf8')) as Record<string, unknown>;
    assert.equal(manifest.main, './dist/extension.js');
    assert.deepEqual(manifest.engines, { vscode: '^1.82.0', node: '>=20' });
    assert.equal(manifest.icon, 'media/icon.png');
    assert.deepEqual(manifest.activationEvents, source.activationEvents);
    assert.deepEqual(manifest.contributes, source.contributes);
    const bundle = zip('print(z.read("extension/dist/extension.js").decode())');
    assert.match(bundle, /require\("vscode"\)/, 'vscode stays external');
    assert.doesNotMatch(bundle, /require\("vscode-languageclient/, 'the language client is bundled in');
});

test('the packaged bundle loads with `vscode` as its only outside module and exports activate', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'proctor-vsix-bundle-'));
    zip('z.extract("extension/dist/extension.js", sys.argv[2])', dir);
    // Any `vscode` member is a callable no-op: enough to evaluate the module, not to run it (VS Code does that).
    const stub = `
const Module = require('module');
const any = new Proxy(function () {}, { get: (_t, p) => (p === 'then' || typeof p === 'symbol' ? undefined : any), apply: () => any, construct: () => any });
const resolve = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) { return request === 'vscode' ? 'vscode' : resolve.call(this, request, ...rest); };
require.cache.vscode = { id: 'vscode', filename: 'vscode', loaded: true, exports: any };
const extension = require(process.argv[1]);
process.stdout.write(typeof extension.activate);`;
    const run = spawnSync(process.execPath, ['-e', stub, path.join(dir, 'extension', 'dist', 'extension.js')], {
        encoding: 'utf8',
        cwd: dir,
    });
    assert.equal(run.stderr, '');
    assert.equal(run.stdout, 'function');
});

test('unpacked .vsix: a Python with nothing installed runs the bundled server and gets diagnostics', { timeout: 90_000 }, async () => {
    entries();
    const dir = mkdtempSync(path.join(tmpdir(), 'proctor-vsix-'));
    zip('z.extractall(sys.argv[2])', dir);
    await diagnosticsFromServer(barePython(), 'useBundled', path.join(dir, 'extension'));
});
