/**
 * media/diagnostics.png for the README, from real output: starts the language server the way the extension does
 * (the repository .venv, fromEnvironment), opens examples/churn's evaluator with two edits an agent might make,
 * and draws the diagnostics the server published as an editor view and a Problems list (headless Chromium).
 * Run: `npm run picture` (needs `make install` and chromium).
 */
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import type { Diagnostic } from 'vscode-languageserver-protocol/node';
import { churnWorkspace, CLIENT_DIR, fileUri, startServer, stopServer, VENV_PYTHON } from '../test/protocol/lsp';

const EDITS: [string, string][] = [
    ['np.random.default_rng(SEED)', 'np.random.default_rng()'],
    ['for name in header if name != LABEL', 'for name in set(header) if name != LABEL'],
];

function escape(text: string): string {
    return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

function codeLine(number: number, text: string, found: Diagnostic[]): string {
    let html = escape(text);
    const on = found.filter((d) => d.range.start.line === number - 1);
    for (const d of on) {
        const { character: from } = d.range.start;
        const to = d.range.end.line === d.range.start.line ? d.range.end.character : text.length;
        const cls = d.severity === 1 ? 'err' : 'warn';
        html = `${escape(text.slice(0, from))}<span class="${cls}">${escape(text.slice(from, to))}</span>${escape(text.slice(to))}`;
    }
    const hover = on
        .map((d) => `<div class="hover"><b>${escape(String(d.code))}</b> ${escape(d.message)} <i>${escape(d.source ?? '')}</i></div>`)
        .join('');
    return `<div class="line"><span class="no">${number}</span><span class="src">${html || ' '}</span></div>${hover}`;
}

function page(lines: string[], found: Diagnostic[]): string {
    const shown = new Set<number>();
    for (const d of found) {
        for (let n = d.range.start.line - 2; n <= d.range.start.line + 1; n += 1) {
            shown.add(n);
        }
    }
    const rows: string[] = [];
    let last = -2;
    for (const n of [...shown].sort((a, b) => a - b)) {
        if (n !== last + 1) {
            rows.push('<div class="line gap"><span class="no">⋯</span></div>');
        }
        rows.push(codeLine(n + 1, lines[n] ?? '', found));
        last = n;
    }
    const problems = found
        .map((d) => {
            const icon = d.severity === 1 ? '<span class="e">⊗</span>' : '<span class="w">⚠</span>';
            return `<div class="problem">${icon} ${escape(d.message)} <span class="dim">${escape(d.source ?? '')}(${escape(String(d.code))}) [Ln ${d.range.start.line + 1}, Col ${d.range.start.character + 1}]</span></div>`;
        })
        .join('');
    return `<!doctype html><meta charset="utf-8"><style>
body{margin:0;background:#1e1e1e;color:#d4d4d4;font:13px/19px "DejaVu Sans Mono",monospace;width:980px}
.tab{background:#2d2d2d;padding:6px 14px;color:#fff;font-family:"DejaVu Sans",sans-serif}
.code{padding:8px 0}.line{white-space:pre}.no{display:inline-block;width:48px;text-align:right;color:#858585;margin-right:18px}
.gap .no{color:#555}
.err{text-decoration:underline wavy #f14c4c;text-underline-offset:3px}.warn{text-decoration:underline wavy #cca700;text-underline-offset:3px}
.hover{margin:2px 0 6px 66px;padding:4px 8px;background:#252526;border:1px solid #454545;display:inline-block;font-family:"DejaVu Sans",sans-serif;font-size:12px}
.hover i{color:#9d9d9d}
.panel{border-top:1px solid #414141;font-family:"DejaVu Sans",sans-serif;font-size:12px;padding:6px 14px 10px}
.panel h4{margin:2px 0 6px;font-weight:normal;color:#e7e7e7;letter-spacing:.5px}
.problem{padding:2px 0}.e{color:#f14c4c}.w{color:#cca700}.dim{color:#9d9d9d}
.note{color:#7a7a7a;font-size:11px;padding:0 14px 8px;font-family:"DejaVu Sans",sans-serif}
</style><div class="tab">kapso_evaluation/evaluate.py</div><div class="code">${rows.join('')}</div>
<div class="panel"><h4>PROBLEMS</h4>${problems}</div>
<div class="note">Rendered by vscode-client/scripts/picture.ts from the diagnostics Proctor's language server published for this edit of examples/churn.</div>`;
}

async function main(): Promise<void> {
    const workspace = churnWorkspace();
    const evaluator = path.join(workspace, 'kapso_evaluation', 'evaluate.py');
    let text = readFileSync(evaluator, 'utf8');
    for (const [from, to] of EDITS) {
        text = text.replace(from, to);
    }
    const server = await startServer(VENV_PYTHON, 'fromEnvironment', CLIENT_DIR, workspace);
    const uri = fileUri(evaluator);
    await server.connection.sendNotification('textDocument/didOpen', {
        textDocument: { uri, languageId: 'python', version: 1, text },
    });
    const found = await server.diagnosticsFor(uri);
    await stopServer(server);
    console.log(JSON.stringify(found, null, 1));
    const html = path.join(tmpdir(), 'proctor-diagnostics.html');
    writeFileSync(html, page(text.split('\n'), found));
    const out = path.join(CLIENT_DIR, 'media', 'diagnostics.png');
    const shot = spawnSync(
        'chromium',
        ['--headless', '--no-sandbox', '--disable-gpu', '--hide-scrollbars', `--screenshot=${out}`, '--window-size=980,420', fileUri(html)],
        { encoding: 'utf8' },
    );
    if (shot.status !== 0) {
        throw new Error(`chromium failed: ${shot.stderr}`);
    }
    console.log(`wrote ${out}`);
}

void main().then(
    () => process.exit(0),
    (error: unknown) => {
        console.error(error);
        process.exit(1);
    },
);
