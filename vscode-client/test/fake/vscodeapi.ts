/**
 * The one fake of src/common/vscodeapi.ts: esbuild puts it in place of the real module for the tests.
 * State lives in `fake`; `fake.reset()` between tests.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import type * as real from '../../src/common/vscodeapi';
import type {
    ClientSpec,
    ConfigurationChange,
    Disposable,
    Level,
    OutputLog,
    ServerConnection,
    StatusItem,
} from '../../src/common/vscodeapi';

export class FakeConnection implements ServerConnection {
    started = false;
    stopped = false;
    readonly notifications: { method: string; params: unknown }[] = [];
    readonly commands: { command: string; args: unknown[] }[] = [];
    private exitListener: ((reason: string) => void) | undefined;

    constructor(readonly spec: ClientSpec) {}

    async start(): Promise<void> {
        if (fake.startError !== undefined) {
            throw fake.startError;
        }
        this.started = true;
    }

    async stop(): Promise<void> {
        this.stopped = true;
    }

    async sendNotification(method: string, params: unknown): Promise<void> {
        this.notifications.push({ method, params });
    }

    async executeCommand(command: string, args: unknown[]): Promise<unknown> {
        this.commands.push({ command, args });
        return fake.commandResults[command] ?? null;
    }

    onUnexpectedExit(listener: (reason: string) => void): void {
        this.exitListener = listener;
    }

    /** The server process dies. */
    crash(): void {
        this.exitListener?.('the language server process exited');
    }
}

class FakeLog implements OutputLog {
    shown = 0;
    info(message: string): void {
        fake.log.push(`info ${message}`);
    }
    warn(message: string): void {
        fake.log.push(`warn ${message}`);
    }
    error(message: string): void {
        fake.log.push(`error ${message}`);
    }
    show(): void {
        this.shown += 1;
    }
    dispose(): void {}
}

function freshState() {
    return {
        /** `proctor.<key>` → value, as settings.json would hold it. */
        config: new Map<string, unknown>(),
        /** A real (empty) folder: the server and the probe run in it. */
        folders: [mkdtempSync(path.join(tmpdir(), 'proctor-vscode-ws-'))] as string[],
        messages: [] as { level: Level; message: string; buttons: string[] }[],
        /** What the user clicks on the next messages, in order (undefined: dismissed). */
        answers: [] as (string | undefined)[],
        executed: [] as { command: string; args: unknown[] }[],
        registered: new Map<string, () => unknown>(),
        written: [] as { section: string; key: string; value: unknown }[],
        /** undefined: the Python extension is not installed. */
        pythonExtension: undefined as { active: string | undefined; fails?: boolean } | undefined,
        pythonListeners: [] as (() => void)[],
        configListeners: [] as ((change: ConfigurationChange) => void)[],
        connections: [] as FakeConnection[],
        startError: undefined as Error | undefined,
        commandResults: {} as Record<string, unknown>,
        log: [] as string[],
        logs: [] as FakeLog[],
        statusItems: [] as StatusItem[],
    };
}

export const fake = {
    ...freshState(),
    reset(): void {
        Object.assign(fake, freshState());
    },
    /** Changes settings the way the user would and fires the change event. */
    change(values: Record<string, unknown>): void {
        for (const [key, value] of Object.entries(values)) {
            fake.config.set(key, value);
        }
        const change: ConfigurationChange = {
            affectsConfiguration: (section) => Object.keys(values).some((key) => `proctor.${key}`.startsWith(section)),
        };
        for (const listener of fake.configListeners) {
            listener(change);
        }
    },
};

const disposable = (): Disposable => ({ dispose: () => undefined });

export function getConfiguration(section: string, _scope: string | undefined): (key: string) => unknown {
    return (key) => fake.config.get(key) ?? (section === 'proctor' ? undefined : undefined);
}

export async function updateSetting(section: string, key: string, value: unknown): Promise<void> {
    fake.written.push({ section, key, value });
    fake.change({ [key]: value });
}

export function onDidChangeConfiguration(listener: (change: ConfigurationChange) => void): Disposable {
    fake.configListeners.push(listener);
    return disposable();
}

export function workspaceFolders(): string[] {
    return fake.folders;
}

export function onDidChangeWorkspaceFolders(_listener: () => void): Disposable {
    return disposable();
}

export function registerCommand(command: string, callback: () => unknown): Disposable {
    fake.registered.set(command, callback);
    return disposable();
}

export async function executeCommand(command: string, ...args: unknown[]): Promise<unknown> {
    fake.executed.push({ command, args });
    return undefined;
}

export async function showMessage(level: Level, message: string, ...buttons: string[]): Promise<string | undefined> {
    fake.messages.push({ level, message, buttons });
    return fake.answers.shift();
}

export function createOutputLog(_name: string): OutputLog {
    const log = new FakeLog();
    fake.logs.push(log);
    return log;
}

export function createStatusItem(): StatusItem {
    const item: StatusItem = { text: '', tooltip: undefined, command: undefined, show: () => undefined, dispose: () => undefined };
    fake.statusItems.push(item);
    return item;
}

export function hasPythonExtension(): boolean {
    return fake.pythonExtension !== undefined;
}

export async function activePythonEnvironment(_folder: string | undefined): Promise<string | undefined> {
    if (fake.pythonExtension?.fails) {
        throw new Error('the Python extension failed to activate');
    }
    return fake.pythonExtension?.active;
}

export async function onDidChangePythonEnvironment(listener: () => void): Promise<Disposable | undefined> {
    if (fake.pythonExtension === undefined) {
        return undefined;
    }
    fake.pythonListeners.push(listener);
    return disposable();
}

export function createServerConnection(spec: ClientSpec): ServerConnection {
    const connection = new FakeConnection(spec);
    fake.connections.push(connection);
    return connection;
}

export const DOCUMENT_SELECTOR: typeof real.DOCUMENT_SELECTOR = [];

/** tsc checks that the fake has every function of the real module, with the same signatures. */
const surface: typeof real = {
    getConfiguration,
    updateSetting,
    onDidChangeConfiguration,
    workspaceFolders,
    onDidChangeWorkspaceFolders,
    registerCommand,
    executeCommand,
    showMessage,
    createOutputLog,
    createStatusItem,
    hasPythonExtension,
    activePythonEnvironment,
    onDidChangePythonEnvironment,
    createServerConnection,
    DOCUMENT_SELECTOR,
};
void surface;
