/**
 * Starting, stopping and talking to the language server. One controller owns the server process; a start
 * first checks the interpreter (no launch that is known to fail, no automatic restart after a crash).
 */
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import {
    createServerConnection,
    executeCommand,
    hasPythonExtension,
    showMessage,
    updateSetting,
    workspaceFolders,
    type ConfigurationChange,
    type Disposable,
    type ServerConnection,
} from './common/vscodeapi';
import type { Logger } from './log/logging';
import {
    describeInterpreter,
    diagnose,
    missingBundle,
    probe,
    resolveInterpreter,
    SELECT_INTERPRETER,
    SHOW_OUTPUT,
    USE_BUNDLED,
    type Interpreter,
    type Problem,
} from './python';
import { effectOf, readSettings, SECTION, serverSettings, type ImportStrategy, type ProctorSettings } from './settings';
import type { StatusBar } from './status';

export const SERVER_VERIFY = 'proctor.verify';
export const SERVER_FINGERPRINT = 'proctor.fingerprint';
export const RESTART_SERVER = 'Restart Server';
/** Settings changes within this window (e.g. a settings.json save touching several keys) restart once. */
export const RESTART_DEBOUNCE_MS = 300;

export interface Launch {
    command: string;
    args: string[];
}

export function bundledPaths(extensionDir: string): { libs: string; tool: string } {
    const bundled = path.join(extensionDir, 'bundled');
    return { libs: path.join(bundled, 'libs'), tool: path.join(bundled, 'tool', 'proctor_lsp.py') };
}

/**
 * Pure: the server's command line. Bundled: `-I` (isolated: no user site-packages, no PYTHONPATH, no working
 * directory on sys.path) and a launcher that puts bundled/libs first. Environment: `-P -m lsp_server`, so a
 * `core/` folder in the workspace cannot shadow Proctor's. No `--stdio`: stdio is the server's default.
 */
export function serverLaunch(strategy: ImportStrategy, interpreter: string[], extensionDir: string): Launch {
    const [command, ...prefix] = interpreter.length > 0 ? interpreter : ['python3'];
    if (strategy === 'useBundled') {
        return { command, args: [...prefix, '-I', bundledPaths(extensionDir).tool] };
    }
    return { command, args: [...prefix, '-P', '-m', 'lsp_server'] };
}

export class ServerController implements Disposable {
    private connection: ServerConnection | undefined;
    private queue: Promise<void> = Promise.resolve();
    private offers: Promise<void> = Promise.resolve();
    private timer: ReturnType<typeof setTimeout> | undefined;

    constructor(
        private readonly extensionDir: string,
        private readonly logger: Logger,
        private readonly status: StatusBar,
    ) {}

    get running(): boolean {
        return this.connection !== undefined;
    }

    /** Stops the server (if any) and starts it again with the current settings; calls run one after another. */
    restart(reason: string): Promise<void> {
        this.cancelScheduled();
        this.queue = this.queue.then(() => this.cycle(reason));
        return this.queue;
    }

    scheduleRestart(reason: string): void {
        this.cancelScheduled();
        this.timer = setTimeout(() => {
            this.timer = undefined;
            void this.restart(reason);
        }, RESTART_DEBOUNCE_MS);
    }

    async onSettingsChanged(change: ConfigurationChange): Promise<void> {
        const folder = workspaceFolders()[0];
        const effect = effectOf(change, folder);
        if (effect === 'restart') {
            this.scheduleRestart('a launch setting changed');
        } else if (effect === 'notify' && this.connection !== undefined) {
            const settings = readSettings(folder);
            await this.connection.sendNotification('workspace/didChangeConfiguration', {
                settings: { [SECTION]: serverSettings(settings) },
            });
        }
    }

    /** Resolves when queued starts and the buttons of shown messages have been handled (tests wait on it). */
    async idle(): Promise<void> {
        await this.queue;
        await this.offers;
    }

    async verify(): Promise<void> {
        const connection = await this.runningConnection();
        if (connection === undefined) {
            return;
        }
        this.status.update({ verifying: true });
        try {
            const folder = workspaceFolders()[0];
            const result = (await connection.executeCommand(SERVER_VERIFY, folder ? [folder] : [])) as {
                verdict?: unknown;
            } | null;
            const verdict = typeof result?.verdict === 'string' ? result.verdict : 'error';
            this.logger.info(`verify: ${verdict}`);
            this.status.update({ verdict, verifying: false });
            await this.fingerprint();
        } catch (error) {
            this.logger.error(`verify failed: ${String(error)}`);
            this.status.update({ verdict: 'error' });
        } finally {
            this.status.update({ verifying: false });
        }
    }

    async fingerprint(): Promise<void> {
        const connection = await this.runningConnection();
        if (connection === undefined) {
            return;
        }
        const folder = workspaceFolders()[0];
        try {
            const result = (await connection.executeCommand(SERVER_FINGERPRINT, folder ? [folder] : [])) as {
                evaluator_id?: unknown;
            } | null;
            if (typeof result?.evaluator_id === 'string') {
                this.logger.info(`evaluator_id ${result.evaluator_id}`);
                this.status.update({ evaluatorId: result.evaluator_id });
            }
        } catch (error) {
            this.logger.error(`fingerprint failed: ${String(error)}`);
        }
    }

    async stop(): Promise<void> {
        this.cancelScheduled();
        await this.queue;
        await this.stopConnection();
        this.status.update({ server: 'stopped' });
    }

    dispose(): void {
        void this.stop();
    }

    /** Runs the action behind a message button. */
    async act(choice: string | undefined): Promise<void> {
        switch (choice) {
            case SELECT_INTERPRETER:
                if (hasPythonExtension()) {
                    await executeCommand('python.setInterpreter');
                } else {
                    await executeCommand('workbench.action.openSettings', `${SECTION}.interpreter`);
                }
                break;
            case USE_BUNDLED:
                await updateSetting(SECTION, 'importStrategy', 'useBundled');
                break;
            case SHOW_OUTPUT:
                this.logger.show();
                break;
            case RESTART_SERVER:
                await this.restart('restart requested');
                break;
            default:
                break;
        }
    }

    private cancelScheduled(): void {
        if (this.timer !== undefined) {
            clearTimeout(this.timer);
            this.timer = undefined;
        }
    }

    private async runningConnection(): Promise<ServerConnection | undefined> {
        await this.queue;
        if (this.connection === undefined) {
            const why = this.status.current.problem ?? 'it was stopped';
            this.offer({
                message: `Proctor: the language server is not running (${why}).`,
                buttons: [RESTART_SERVER, SHOW_OUTPUT],
            });
        }
        return this.connection;
    }

    private async cycle(reason: string): Promise<void> {
        await this.stopConnection();
        const folder = workspaceFolders()[0];
        const settings = readSettings(folder);
        this.status.update({ server: 'starting', problem: undefined });
        const interpreter = await resolveInterpreter(settings, folder);
        this.logger.info(`starting the language server (${reason}): ${describeInterpreter(interpreter)}, ${settings.importStrategy}`);
        const problem = await this.check(interpreter, settings.importStrategy, folder);
        if (problem !== undefined) {
            this.fail(problem);
            return;
        }
        await this.launch(interpreter, settings, folder);
    }

    private async check(
        interpreter: Interpreter,
        strategy: ImportStrategy,
        folder: string | undefined,
    ): Promise<Problem | undefined> {
        const { libs } = bundledPaths(this.extensionDir);
        const bundleAvailable = existsSync(path.join(libs, 'lsp_server'));
        if (strategy === 'useBundled' && !bundleAvailable) {
            return missingBundle(libs);
        }
        const result = await probe(interpreter, strategy, libs, folder);
        if (result.executable !== undefined) {
            this.logger.info(`Python ${result.version?.join('.')} at ${result.executable}`);
        }
        return diagnose(interpreter, strategy, result, bundleAvailable);
    }

    private async launch(interpreter: Interpreter, settings: ProctorSettings, folder: string | undefined): Promise<void> {
        const { command, args } = serverLaunch(settings.importStrategy, interpreter.command, this.extensionDir);
        this.logger.info(`launch: ${[command, ...args].join(' ')}`);
        const connection = createServerConnection({
            command,
            args,
            cwd: folder,
            env: undefined,
            initializationOptions: serverSettings(settings),
            log: this.logger.channel,
        });
        connection.onUnexpectedExit((why) => this.onUnexpectedExit(connection, why));
        try {
            await connection.start();
        } catch (error) {
            await connection.stop().catch(() => undefined);
            this.fail({
                message: `Proctor: the language server did not start (${String(error)}). The output has its error.`,
                buttons: [SHOW_OUTPUT, SELECT_INTERPRETER],
            });
            return;
        }
        this.connection = connection;
        this.status.update({ server: 'running' });
    }

    private onUnexpectedExit(connection: ServerConnection, why: string): void {
        if (this.connection !== connection) {
            return;
        }
        this.connection = undefined;
        this.fail({
            message: `Proctor: ${why}; it is not restarted automatically. The output has its last error.`,
            buttons: [RESTART_SERVER, SHOW_OUTPUT],
        });
    }

    private fail(problem: Problem): void {
        this.logger.error(problem.message);
        this.status.update({ server: 'failed', problem: problem.message });
        this.offer(problem);
    }

    /** Shows the message without holding up the queue; the chosen button runs when the user clicks. */
    private offer(problem: Problem): void {
        const shown = showMessage('error', problem.message, ...problem.buttons).then((choice) => this.act(choice));
        this.offers = this.offers.then(() => shown).catch((error: unknown) => {
            this.logger.error(`handling a message button failed: ${String(error)}`);
        });
    }

    private async stopConnection(): Promise<void> {
        const connection = this.connection;
        this.connection = undefined;
        if (connection !== undefined) {
            await connection.stop().catch((error: unknown) => this.logger.warn(`stopping the server: ${String(error)}`));
        }
    }
}
