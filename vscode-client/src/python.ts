/**
 * Which Python runs the language server, and whether it can: `proctor.interpreter`, else the Python
 * extension's active environment, else `python3`; then one probe process for the version (>= 3.11) and the
 * server's imports. A failure becomes one message that says how to fix it.
 */
import { execFile } from 'node:child_process';
import { activePythonEnvironment } from './common/vscodeapi';
import type { ImportStrategy, ProctorSettings } from './settings';

export const MIN_PYTHON: readonly [number, number] = [3, 11];

export type InterpreterSource = 'setting' | 'pythonExtension' | 'default';

export interface Interpreter {
    /** The executable and its leading arguments. */
    command: string[];
    source: InterpreterSource;
}

export async function resolveInterpreter(settings: ProctorSettings, folder: string | undefined): Promise<Interpreter> {
    if (settings.interpreter.length > 0) {
        return { command: settings.interpreter, source: 'setting' };
    }
    const active = await activePythonEnvironment(folder).catch(() => undefined);
    if (active !== undefined && active.length > 0) {
        return { command: [active], source: 'pythonExtension' };
    }
    return { command: ['python3'], source: 'default' };
}

export function describeInterpreter(interpreter: Interpreter): string {
    const where = {
        setting: 'from the proctor.interpreter setting',
        pythonExtension: "the Python extension's active environment",
        default: 'python3 on PATH',
    }[interpreter.source];
    return `\`${interpreter.command.join(' ')}\` (${where})`;
}

export type Version = readonly [number, number, number];

/** Pure: why `version` cannot run the server, or undefined when it can. */
export function checkVersion(version: Version): string | undefined {
    const [major, minor] = version;
    if (major > MIN_PYTHON[0] || (major === MIN_PYTHON[0] && minor >= MIN_PYTHON[1])) {
        return undefined;
    }
    return `it is Python ${version.join('.')}; the Proctor language server needs Python ${MIN_PYTHON.join('.')} or newer`;
}

export interface ProbeResult {
    /** The interpreter could not be started at all (e.g. ENOENT). */
    spawnError?: string;
    version?: Version;
    executable?: string;
    /** The last line of the import's traceback, when the server's modules did not import. */
    importError?: string;
}

/**
 * Prints the version first (so an old Python still reports it), then imports the server's modules the way the
 * launch will find them: from `libs` first (bundled), or without the working directory on sys.path (`-P`).
 */
export function probeScript(libs: string | undefined): string {
    return [
        'import json, sys',
        `libs = ${JSON.stringify(libs ?? '')}`,
        'if libs: sys.path.insert(0, libs)',
        "elif sys.path and sys.path[0] == '': del sys.path[0]",
        'print(json.dumps({"version": list(sys.version_info[:3]), "executable": sys.executable}), flush=True)',
        `if sys.version_info >= (${MIN_PYTHON.join(', ')}): import lsp_server.server`,
    ].join('\n');
}

export function probeArgs(strategy: ImportStrategy, libs: string): string[] {
    return strategy === 'useBundled' ? ['-I', '-c', probeScript(libs)] : ['-c', probeScript(undefined)];
}

const PROBE_TIMEOUT_MS = 30_000;

/** The probe's first stdout line: `{"version": [3, 12, 1], "executable": "..."}`. */
function versionLine(stdout: string): { version?: Version; executable?: string } {
    let parsed: { version?: unknown; executable?: unknown } | undefined;
    try {
        parsed = JSON.parse(stdout.split('\n')[0] ?? '') as typeof parsed;
    } catch {
        return {};
    }
    const raw = parsed?.version;
    const ok = Array.isArray(raw) && raw.length === 3 && raw.every((part) => typeof part === 'number');
    return {
        version: ok ? ([raw[0], raw[1], raw[2]] as const) : undefined,
        executable: typeof parsed?.executable === 'string' ? parsed.executable : undefined,
    };
}

/** Pure: the probe's output to a result. */
export function parseProbe(error: (Error & { code?: unknown }) | null, stdout: string, stderr: string): ProbeResult {
    const { version, executable } = versionLine(stdout);
    if (version === undefined) {
        const reason = typeof error?.code === 'string' ? error.code : lastLine(stderr) || error?.message || 'no output';
        return { spawnError: reason };
    }
    const result: ProbeResult = { version, executable };
    if (error !== null) {
        result.importError = lastLine(stderr) || error.message;
    }
    return result;
}

function lastLine(text: string): string {
    const lines = text.trim().split('\n');
    return (lines[lines.length - 1] ?? '').trim();
}

export async function probe(
    interpreter: Interpreter,
    strategy: ImportStrategy,
    libs: string,
    cwd: string | undefined,
): Promise<ProbeResult> {
    const [command, ...prefix] = interpreter.command;
    const args = [...prefix, ...probeArgs(strategy, libs)];
    return new Promise((resolve) => {
        execFile(command, args, { cwd, timeout: PROBE_TIMEOUT_MS, windowsHide: true }, (error, stdout, stderr) => {
            resolve(parseProbe(error, String(stdout), String(stderr)));
        });
    });
}

export const SELECT_INTERPRETER = 'Select interpreter';
export const USE_BUNDLED = 'Use bundled server';
export const SHOW_OUTPUT = 'Show output';

export interface Problem {
    message: string;
    buttons: string[];
}

/** Pure: one message with the fix for a failed probe, or undefined when the server can start. */
export function diagnose(
    interpreter: Interpreter,
    strategy: ImportStrategy,
    result: ProbeResult,
    bundleAvailable: boolean,
): Problem | undefined {
    const who = describeInterpreter(interpreter);
    const offerBundled = strategy === 'fromEnvironment' && bundleAvailable ? [USE_BUNDLED] : [];
    if (result.spawnError !== undefined || result.version === undefined) {
        return {
            message:
                `Proctor: cannot run the Python interpreter ${who}: ${result.spawnError ?? 'no version reported'}. ` +
                'Install Python 3.11+ and select it (Python extension), or set proctor.interpreter to its path.',
            buttons: [SELECT_INTERPRETER, SHOW_OUTPUT],
        };
    }
    const tooOld = checkVersion(result.version);
    if (tooOld !== undefined) {
        return {
            message: `Proctor: ${who} cannot run the language server: ${tooOld}. Select a Python 3.11+ interpreter.`,
            buttons: [SELECT_INTERPRETER, SHOW_OUTPUT],
        };
    }
    if (result.importError === undefined) {
        return undefined;
    }
    if (strategy === 'fromEnvironment') {
        return {
            message:
                `Proctor: the language server is not importable with ${who} (${result.importError}). ` +
                'Install it there (`python -m pip install proctor`), select an interpreter that has it, ' +
                'or use the server bundled with this extension (proctor.importStrategy: useBundled).',
            buttons: [...offerBundled, SELECT_INTERPRETER, SHOW_OUTPUT],
        };
    }
    return {
        message:
            `Proctor: the bundled language server does not import with ${who} (${result.importError}). ` +
            'The bundled libraries cover CPython 3.11-3.14 on Linux x86-64; elsewhere install Proctor in your ' +
            'interpreter (`python -m pip install proctor`) and set proctor.importStrategy to fromEnvironment.',
        buttons: [SELECT_INTERPRETER, SHOW_OUTPUT],
    };
}

/** Pure: the message when the bundled libraries are not in this build of the extension. */
export function missingBundle(libs: string): Problem {
    return {
        message:
            `Proctor: this build of the extension has no bundled language server (${libs} is missing). ` +
            'Build it with `make vsix`, or install Proctor in your interpreter and set proctor.importStrategy ' +
            'to fromEnvironment.',
        buttons: [SELECT_INTERPRETER, SHOW_OUTPUT],
    };
}
