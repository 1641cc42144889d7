/** Wiring only: the logger, the status bar, the server controller, the commands and the change listeners. */
import {
    onDidChangeConfiguration,
    onDidChangePythonEnvironment,
    onDidChangeWorkspaceFolders,
    registerCommand,
    type Disposable,
} from './common/vscodeapi';
import { Logger } from './log/logging';
import { ServerController } from './server';
import { StatusBar, VERIFY_COMMAND } from './status';

export const COMMANDS = {
    verify: VERIFY_COMMAND,
    fingerprint: 'proctor.showFingerprint',
    restart: 'proctor.restartServer',
    showOutput: 'proctor.showOutput',
} as const;

export interface ExtensionContextLike {
    extensionPath: string;
    subscriptions: Disposable[];
}

export async function activate(context: ExtensionContextLike): Promise<ServerController> {
    const logger = new Logger();
    const status = new StatusBar();
    const controller = new ServerController(context.extensionPath, logger, status);
    context.subscriptions.push(
        logger,
        status,
        controller,
        registerCommand(COMMANDS.verify, () => controller.verify()),
        registerCommand(COMMANDS.fingerprint, () => controller.fingerprint()),
        registerCommand(COMMANDS.restart, () => controller.restart('restart requested')),
        registerCommand(COMMANDS.showOutput, () => logger.show()),
        onDidChangeConfiguration((change) => void controller.onSettingsChanged(change)),
        onDidChangeWorkspaceFolders(() => controller.scheduleRestart('the workspace folders changed')),
    );
    const pythonChanges = await onDidChangePythonEnvironment(() =>
        controller.scheduleRestart("the Python extension's interpreter changed"),
    ).catch(() => undefined);
    if (pythonChanges !== undefined) {
        context.subscriptions.push(pythonChanges);
    }
    await controller.restart('activation');
    return controller;
}
