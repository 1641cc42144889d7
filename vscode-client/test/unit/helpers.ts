/** Temp folders, fake interpreters and a fake extension directory for the unit tests. */
import { chmodSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';

/** The real Python the probe tests run (any 3.11+ without Proctor installed is fine). */
export const PYTHON = process.env.PROCTOR_TEST_PYTHON ?? 'python3';

export function tempDir(prefix: string): string {
    return mkdtempSync(path.join(tmpdir(), `proctor-vscode-${prefix}-`));
}

/** An executable that stands in for an interpreter. */
export function script(dir: string, name: string, body: string): string {
    const file = path.join(dir, name);
    writeFileSync(file, `#!/bin/sh\n${body}\n`);
    chmodSync(file, 0o755);
    return file;
}

/** An interpreter that reports `version` and exits (a Python too old to import the server). */
export function fakeOldPython(dir: string, version: [number, number, number]): string {
    return script(dir, 'python-old', `echo '{"version": [${version.join(', ')}], "executable": "${dir}/python-old"}'`);
}

/** A package tree that imports like the server (`lsp_server.server`) without being it. */
export function stubServerLibs(dir: string): string {
    mkdirSync(path.join(dir, 'lsp_server'), { recursive: true });
    writeFileSync(path.join(dir, 'lsp_server', '__init__.py'), '');
    writeFileSync(path.join(dir, 'lsp_server', 'server.py'), '');
    return dir;
}

/** An extension directory whose bundled/libs holds the stub server. */
export function fakeExtensionDir(): string {
    const dir = tempDir('ext');
    stubServerLibs(path.join(dir, 'bundled', 'libs'));
    return dir;
}

/** An interpreter whose environment has the stub server installed (PYTHONPATH), like `pip install proctor`. */
export function pythonWithStubServer(dir: string): string {
    const libs = stubServerLibs(path.join(dir, 'site'));
    return script(dir, 'python-with-proctor', `PYTHONPATH='${libs}' exec ${PYTHON} "$@"`);
}

/** An interpreter with no site-packages at all: Proctor is surely not importable from it. */
export function pythonWithoutServer(dir: string): string {
    return script(dir, 'python-bare', `exec ${PYTHON} -S "$@"`);
}
