/**
 * Runs the real Python language server the way the extension does (probe, then `serverLaunch`) and talks to it
 * through vscode-languageserver-protocol: the client side of the protocol tests and of the README picture.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import {
    createProtocolConnection,
    StreamMessageReader,
    StreamMessageWriter,
    type Diagnostic,
    type ProtocolConnection,
} from 'vscode-languageserver-protocol/node';
import { diagnose, probe, type Interpreter } from '../../src/python';
import { bundledPaths, serverLaunch } from '../../src/server';
import { DEFAULTS, serverSettings, type ImportStrategy } from '../../src/settings';

/** vscode-client/: the nearest folder up from this bundle (out/...) with the extension's esbuild.mjs. */
function clientDir(start: string): string {
    for (let dir = start; dir !== path.dirname(dir); dir = path.dirname(dir)) {
        if (existsSync(path.join(dir, 'esbuild.mjs')) && existsSync(path.join(dir, 'package.json'))) {
            return dir;
        }
    }
    throw new Error(`no vscode-client folder above ${start}`);
}

export const CLIENT_DIR = clientDir(__dirname);
export const REPO = path.dirname(CLIENT_DIR);
export const VENV_PYTHON = path.join(REPO, '.venv', 'bin', 'python');

/** examples/churn copied to a temp folder (the server may write caches; the repository stays clean). */
export function churnWorkspace(): string {
    const dir = mkdtempSync(path.join(tmpdir(), 'proctor-vscode-churn-'));
    cpSync(path.join(REPO, 'examples', 'churn'), dir, { recursive: true });
    return dir;
}

/**
 * A Python with nothing installed: a fresh `venv --without-pip` of the system Python, so neither Proctor nor
 * pydantic can come from its environment.
 */
export function barePython(): string {
    const dir = mkdtempSync(path.join(tmpdir(), 'proctor-vscode-bare-'));
    const base = process.env.PROCTOR_TEST_PYTHON ?? 'python3';
    const made = spawnSync(base, ['-m', 'venv', '--without-pip', dir], { encoding: 'utf8' });
    if (made.status !== 0) {
        throw new Error(`${base} -m venv --without-pip failed: ${made.stderr}`);
    }
    return path.join(dir, 'bin', 'python');
}

/** Whether `python` (with its own environment) can import `module`. */
export function canImport(python: string, module: string, cwd: string): boolean {
    return spawnSync(python, ['-c', `import ${module}`], { cwd }).status === 0;
}

const DIAGNOSTICS_TIMEOUT_MS = 30_000;

/** How the client gets diagnostics: `pull` is what VS Code (vscode-languageclient 9) does, `push` older clients. */
export type DiagnosticsMode = 'push' | 'pull';

export interface RunningServer {
    connection: ProtocolConnection;
    /** Every publishDiagnostics notification received, empty ones included. */
    pushes: { uri: string; diagnostics: Diagnostic[] }[];
    process: ChildProcess;
    stderr: () => string;
    /** Resolves with the first diagnostics published for `uri` that `accept` (default: non-empty ones). */
    diagnosticsFor(uri: string, accept?: (items: Diagnostic[]) => boolean): Promise<Diagnostic[]>;
    /** What the client answers to workspace/configuration (section `proctor`); change it, then notify. */
    settings: { value: unknown };
    exitCode: Promise<number | null>;
}

export function fileUri(file: string): string {
    return pathToFileURL(file).href;
}

/** Probes the interpreter like the extension (a problem is an error here), then launches and initializes. */
export async function startServer(
    python: string,
    strategy: ImportStrategy,
    extensionDir: string,
    workspace: string,
    mode: DiagnosticsMode = 'push',
    initial: unknown = serverSettings(DEFAULTS),
): Promise<RunningServer> {
    const settings = { value: initial };
    const interpreter: Interpreter = { command: [python], source: 'setting' };
    const bundle = existsSync(path.join(bundledPaths(extensionDir).libs, 'lsp_server'));
    const problem = diagnose(interpreter, strategy, await probe(interpreter, strategy, bundledPaths(extensionDir).libs, workspace), bundle);
    if (problem !== undefined) {
        throw new Error(problem.message);
    }
    const { command, args } = serverLaunch(strategy, interpreter.command, extensionDir);
    const child = spawn(command, args, { cwd: workspace, stdio: 'pipe' });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exitCode = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    const connection = createProtocolConnection(new StreamMessageReader(child.stdout), new StreamMessageWriter(child.stdin));
    const waiters: { uri: string; accept: (items: Diagnostic[]) => boolean; resolve: (items: Diagnostic[]) => void }[] = [];
    const pushes: { uri: string; diagnostics: Diagnostic[] }[] = [];
    connection.onNotification('textDocument/publishDiagnostics', (params: { uri: string; diagnostics: Diagnostic[] }) => {
        pushes.push(params);
        for (const waiter of waiters.splice(0)) {
            if (waiter.uri === params.uri && waiter.accept(params.diagnostics)) {
                waiter.resolve(params.diagnostics);
            } else {
                waiters.push(waiter);
            }
        }
    });
    connection.onRequest('workspace/configuration', () => [settings.value]);
    connection.onRequest('client/registerCapability', () => null);
    connection.onRequest('window/workDoneProgress/create', () => null);
    connection.onRequest('workspace/diagnostic/refresh', () => null);
    connection.onNotification('window/showMessage', () => undefined);
    connection.onNotification('window/logMessage', () => undefined);
    connection.listen();
    await connection.sendRequest('initialize', {
        processId: process.pid,
        rootUri: fileUri(workspace),
        workspaceFolders: [{ uri: fileUri(workspace), name: path.basename(workspace) }],
        initializationOptions: initial,
        capabilities: {
            textDocument: {
                synchronization: { didSave: true },
                publishDiagnostics: { relatedInformation: true, codeDescriptionSupport: true, versionSupport: true },
                ...(mode === 'pull' ? { diagnostic: { dynamicRegistration: false, relatedDocumentSupport: false } } : {}),
            },
            workspace: {
                configuration: true,
                workspaceFolders: true,
                ...(mode === 'pull' ? { diagnostics: { refreshSupport: true } } : {}),
            },
        },
    });
    await connection.sendNotification('initialized', {});
    return {
        connection,
        pushes,
        process: child,
        stderr: () => stderr,
        exitCode,
        settings,
        diagnosticsFor: (uri, accept = (items) => items.length > 0) =>
            new Promise((resolve, reject) => {
                const already = pushes.find((p) => p.uri === uri && accept(p.diagnostics));
                if (already !== undefined) {
                    resolve(already.diagnostics);
                    return;
                }
                const timer = setTimeout(
                    () => reject(new Error(`no diagnostics for ${uri} within ${DIAGNOSTICS_TIMEOUT_MS} ms; stderr: ${stderr}`)),
                    DIAGNOSTICS_TIMEOUT_MS,
                );
                waiters.push({
                    uri,
                    accept,
                    resolve: (items) => {
                        clearTimeout(timer);
                        resolve(items);
                    },
                });
            }),
    };
}

export async function stopServer(server: RunningServer): Promise<number | null> {
    await server.connection.sendRequest('shutdown');
    await server.connection.sendNotification('exit');
    const code = await server.exitCode;
    server.connection.dispose();
    return code;
}

/** The churn evaluator with its seeded RNG made unseeded: Proctor reports EV009 on that line. */
export function unseededEvaluator(text: string): { text: string; line: number } {
    const seeded = 'np.random.default_rng(SEED)';
    const lines = text.split('\n');
    const line = lines.findIndex((l) => l.includes(seeded));
    if (line < 0) {
        throw new Error(`examples/churn/kapso_evaluation/evaluate.py no longer contains ${seeded}`);
    }
    lines[line] = lines[line].replace(seeded, 'np.random.default_rng()');
    return { text: lines.join('\n'), line };
}

/**
 * Open the churn evaluator with an unseeded RNG in the editor; the server must report EV009 for it (pushed, or
 * in answer to textDocument/diagnostic), and answer proctor.fingerprint.
 */
export async function diagnosticsFromServer(
    python: string,
    strategy: ImportStrategy,
    extensionDir: string,
    mode: DiagnosticsMode = 'push',
): Promise<void> {
    const workspace = churnWorkspace();
    const evaluator = path.join(workspace, 'kapso_evaluation', 'evaluate.py');
    const server = await startServer(python, strategy, extensionDir, workspace, mode);
    try {
        const uri = fileUri(evaluator);
        const edited = unseededEvaluator(readFileSync(evaluator, 'utf8'));
        await server.connection.sendNotification('textDocument/didOpen', {
            textDocument: { uri, languageId: 'python', version: 1, text: edited.text },
        });
        const diagnostics: Diagnostic[] =
            mode === 'pull'
                ? ((await server.connection.sendRequest('textDocument/diagnostic', { textDocument: { uri } })) as {
                      items: Diagnostic[];
                  }).items
                : await server.diagnosticsFor(uri);
        const ev009 = diagnostics.find((d) => d.code === 'EV009');
        assert.ok(ev009, `no EV009 in ${JSON.stringify(diagnostics)}; stderr: ${server.stderr()}`);
        assert.equal(ev009.source, 'proctor');
        assert.equal(ev009.range.start.line, edited.line);
        assert.match(ev009.message, /without a seed/);
        assert.match(ev009.codeDescription?.href ?? '', /#ev009$/);
        const fingerprint = (await server.connection.sendRequest('workspace/executeCommand', {
            command: 'proctor.fingerprint',
            arguments: [workspace],
        })) as { evaluator_id?: string; suite?: string };
        assert.match(fingerprint.evaluator_id ?? '', /^[0-9a-f]{16,}$/);
        assert.equal(fingerprint.suite, 'kapso_evaluation');
        assert.equal(await stopServer(server), 0, server.stderr());
        if (mode === 'pull') {
            assert.deepEqual(server.pushes.filter((p) => p.uri === uri), [], 'a pull client gets no pushes too');
        }
    } finally {
        server.process.kill();
    }
}
