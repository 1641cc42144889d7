/** The status bar item: the short evaluator id and the last verify verdict; a click runs Verify. */
import { createStatusItem, type StatusItem } from './common/vscodeapi';

export const VERIFY_COMMAND = 'proctor.verifyEvaluator';

export interface StatusView {
    server: 'starting' | 'running' | 'failed' | 'stopped';
    /** Why the server is not running, when it failed. */
    problem?: string;
    evaluatorId?: string;
    verdict?: string;
    verifying?: boolean;
}

const VERDICT_ICON: Record<string, string> = { pass: '$(pass)', fail: '$(error)', error: '$(warning)' };

/** Pure: the item's text and tooltip for a view. */
export function statusText(view: StatusView): { text: string; tooltip: string } {
    if (view.server === 'failed' || view.server === 'stopped') {
        return {
            text: '$(warning) Proctor',
            tooltip: `Proctor: the language server is not running${view.problem ? `: ${view.problem}` : ''}`,
        };
    }
    const id = view.evaluatorId ? ` ${view.evaluatorId.slice(0, 8)}` : '';
    if (view.verifying) {
        return { text: `$(sync~spin) Proctor${id} verifying`, tooltip: 'Proctor: verifying the evaluator' };
    }
    if (view.server === 'starting') {
        return { text: `$(sync~spin) Proctor${id}`, tooltip: 'Proctor: starting the language server' };
    }
    const icon = view.verdict ? VERDICT_ICON[view.verdict] : undefined;
    const verdict = view.verdict ? ` ${icon ? `${icon} ` : ''}${view.verdict}` : '';
    const tooltip =
        (view.evaluatorId ? `evaluator_id ${view.evaluatorId}\n` : '') +
        (view.verdict ? `last verify: ${view.verdict}\n` : 'not verified in this session\n') +
        'Click to verify the evaluator';
    return { text: `$(beaker) Proctor${id}${verdict}`, tooltip };
}

export class StatusBar {
    private readonly item: StatusItem;
    private view: StatusView = { server: 'stopped' };

    constructor(item: StatusItem = createStatusItem()) {
        this.item = item;
        this.item.command = VERIFY_COMMAND;
        this.render();
        this.item.show();
    }

    update(change: Partial<StatusView>): void {
        this.view = { ...this.view, ...change };
        this.render();
    }

    get current(): StatusView {
        return this.view;
    }

    private render(): void {
        const { text, tooltip } = statusText(this.view);
        this.item.text = text;
        this.item.tooltip = tooltip;
    }

    dispose(): void {
        this.item.dispose();
    }
}
