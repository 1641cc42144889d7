/** The "Proctor" output channel: the extension's own lines and the language server's stderr. */
import { createOutputLog, type OutputLog } from '../common/vscodeapi';

export const OUTPUT_NAME = 'Proctor';

export class Logger {
    readonly channel: OutputLog;

    constructor(channel: OutputLog = createOutputLog(OUTPUT_NAME)) {
        this.channel = channel;
    }

    info(message: string): void {
        this.channel.info(message);
    }

    warn(message: string): void {
        this.channel.warn(message);
    }

    error(message: string): void {
        this.channel.error(message);
    }

    show(): void {
        this.channel.show();
    }

    dispose(): void {
        this.channel.dispose();
    }
}
