/**
 * Every call into the `vscode` API (and the language client, which needs it) goes through this module, so the
 * unit tests swap in one fake (`test/fake/vscodeapi.ts`) and run under plain `node --test`.
 */
import * as vscode from 'vscode';
import {
    CloseAction,
    ErrorAction,
    LanguageClient,
    RevealOutputChannelOn,
    type LanguageClientOptions,
    type ServerOptions,
} from 'vscode-languageclient/node';

export interface Disposable {
    dispose(): unknown;
}

/** The parts of a settings change the extension looks at. */
export interface ConfigurationChange {
    affectsConfiguration(section: string, scope?: string): boolean;
}

export type Level = 'info' | 'warning' | 'error';

export interface OutputLog extends Disposable {
    info(message: string): void;
    warn(message: string): void;
    error(message: string): void;
    show(): void;
}

export interface StatusItem extends Disposable {
    text: string;
    tooltip: string | undefined;
    command: string | undefined;
    show(): void;
}

/** What the controller needs from a started language client. */
export interface ServerConnection {
    start(): Promise<void>;
    stop(): Promise<void>;
    sendNotification(method: string, params: unknown): Promise<void>;
    executeCommand(command: string, args: unknown[]): Promise<unknown>;
    /** Called once when the server process goes away without being asked to. */
    onUnexpectedExit(listener: (reason: string) => void): void;
}

export interface ClientSpec {
    command: string;
    args: string[];
    cwd: string | undefined;
    env: Record<string, string> | undefined;
    initializationOptions: unknown;
    log: OutputLog;
}

export function getConfiguration(section: string, scope: string | undefined): (key: string) => unknown {
    const config = vscode.workspace.getConfiguration(section, scope ? vscode.Uri.file(scope) : undefined);
    return (key) => config.get<unknown>(key);
}

/** Writes a setting where the user will find it: the workspace when one is open, else the user settings. */
export async function updateSetting(section: string, key: string, value: unknown): Promise<void> {
    const target = vscode.workspace.workspaceFolders?.length
        ? vscode.ConfigurationTarget.Workspace
        : vscode.ConfigurationTarget.Global;
    await vscode.workspace.getConfiguration(section).update(key, value, target);
}

export function onDidChangeConfiguration(listener: (change: ConfigurationChange) => void): Disposable {
    return vscode.workspace.onDidChangeConfiguration((event) =>
        listener({
            affectsConfiguration: (section, scope) =>
                event.affectsConfiguration(section, scope ? vscode.Uri.file(scope) : undefined),
        }),
    );
}

/** File-system paths of the open workspace folders, first one first. */
export function workspaceFolders(): string[] {
    return (vscode.workspace.workspaceFolders ?? [])
        .filter((folder) => folder.uri.scheme === 'file')
        .map((folder) => folder.uri.fsPath);
}

export function onDidChangeWorkspaceFolders(listener: () => void): Disposable {
    return vscode.workspace.onDidChangeWorkspaceFolders(listener);
}

export function registerCommand(command: string, callback: () => unknown): Disposable {
    return vscode.commands.registerCommand(command, callback);
}

export async function executeCommand(command: string, ...args: unknown[]): Promise<unknown> {
    return vscode.commands.executeCommand(command, ...args);
}

/** Shows one message with buttons; resolves to the button clicked, if any. */
export async function showMessage(level: Level, message: string, ...buttons: string[]): Promise<string | undefined> {
    switch (level) {
        case 'error':
            return vscode.window.showErrorMessage(message, ...buttons);
        case 'warning':
            return vscode.window.showWarningMessage(message, ...buttons);
        default:
            return vscode.window.showInformationMessage(message, ...buttons);
    }
}

export function createOutputLog(name: string): OutputLog {
    return vscode.window.createOutputChannel(name, { log: true });
}

export function createStatusItem(): StatusItem {
    const item = vscode.window.createStatusBarItem('proctor.status', vscode.StatusBarAlignment.Left, 50);
    item.name = 'Proctor';
    return {
        get text() {
            return item.text;
        },
        set text(value: string) {
            item.text = value;
        },
        get tooltip() {
            return typeof item.tooltip === 'string' ? item.tooltip : undefined;
        },
        set tooltip(value: string | undefined) {
            item.tooltip = value;
        },
        get command() {
            return typeof item.command === 'string' ? item.command : undefined;
        },
        set command(value: string | undefined) {
            item.command = value;
        },
        show: () => item.show(),
        dispose: () => item.dispose(),
    };
}

/** The Python extension's documented API (`ms-python.python` exports), the parts used here. */
interface PythonEnvironmentsApi {
    getActiveEnvironmentPath(resource?: vscode.Uri): { id: string; path: string };
    resolveEnvironment(env: { id: string; path: string } | string): Promise<
        { executable: { uri?: vscode.Uri } } | undefined
    >;
    onDidChangeActiveEnvironmentPath: vscode.Event<unknown>;
}

const PYTHON_EXTENSION = 'ms-python.python';

async function pythonApi(): Promise<PythonEnvironmentsApi | undefined> {
    const extension = vscode.extensions.getExtension<{ environments?: PythonEnvironmentsApi }>(PYTHON_EXTENSION);
    if (extension === undefined) {
        return undefined;
    }
    const exports = extension.isActive ? extension.exports : await extension.activate();
    return exports?.environments;
}

export function hasPythonExtension(): boolean {
    return vscode.extensions.getExtension(PYTHON_EXTENSION) !== undefined;
}

/** The executable of the Python extension's active environment for `folder`, when that extension is installed. */
export async function activePythonEnvironment(folder: string | undefined): Promise<string | undefined> {
    const api = await pythonApi();
    if (api === undefined) {
        return undefined;
    }
    const active = api.getActiveEnvironmentPath(folder ? vscode.Uri.file(folder) : undefined);
    const resolved = await api.resolveEnvironment(active);
    return resolved?.executable.uri?.fsPath;
}

export async function onDidChangePythonEnvironment(listener: () => void): Promise<Disposable | undefined> {
    const api = await pythonApi();
    return api?.onDidChangeActiveEnvironmentPath(listener);
}

/** The language client for one server process: stdio, no automatic restart (the controller decides). */
export function createServerConnection(spec: ClientSpec): ServerConnection {
    const serverOptions: ServerOptions = {
        command: spec.command,
        args: spec.args,
        options: { cwd: spec.cwd, env: spec.env },
    };
    let exitListener: ((reason: string) => void) | undefined;
    let stopping = false;
    const clientOptions: LanguageClientOptions = {
        documentSelector: DOCUMENT_SELECTOR,
        initializationOptions: spec.initializationOptions,
        outputChannel: spec.log as unknown as vscode.OutputChannel,
        revealOutputChannelOn: RevealOutputChannelOn.Never,
        errorHandler: {
            error: () => ({ action: ErrorAction.Continue }),
            closed: () => {
                if (!stopping) {
                    exitListener?.('the language server process exited');
                }
                return { action: CloseAction.DoNotRestart, handled: true };
            },
        },
    };
    const client = new LanguageClient('proctor', 'Proctor', serverOptions, clientOptions);
    return {
        start: () => client.start(),
        stop: async () => {
            stopping = true;
            if (client.isRunning()) {
                await client.stop(2000);
            }
        },
        sendNotification: (method, params) => client.sendNotification(method, params),
        executeCommand: (command, args) =>
            client.sendRequest('workspace/executeCommand', { command, arguments: args }),
        onUnexpectedExit: (listener) => {
            exitListener = listener;
        },
    };
}

/** Python, Markdown, TOML and JSON files on disk; the server itself decides which of them it lints. */
export const DOCUMENT_SELECTOR = [
    { scheme: 'file', language: 'python' },
    { scheme: 'file', language: 'markdown' },
    { scheme: 'file', language: 'toml' },
    { scheme: 'file', language: 'json' },
    { scheme: 'file', pattern: '**/*.toml' },
];
