// Bundles the extension (dist/extension.js) or, with --tests, each test file (out/test/**.js) with the fake
// vscode API in place of src/common/vscodeapi.ts, so the tests run under plain `node --test`.
import * as esbuild from 'esbuild';
import { readdirSync, rmSync } from 'node:fs';
import * as path from 'node:path';

const production = process.argv.includes('--production');
const tests = process.argv.includes('--tests');
const picture = process.argv.includes('--picture');
const here = path.dirname(new URL(import.meta.url).pathname);

/** Every `./common/vscodeapi` import resolves to test/fake/vscodeapi.ts. */
const fakeVscodeApi = {
    name: 'fake-vscodeapi',
    setup(build) {
        build.onResolve({ filter: /common\/vscodeapi$/ }, () => ({ path: path.join(here, 'test', 'fake', 'vscodeapi.ts') }));
        build.onResolve({ filter: /^vscode$/ }, () => ({ errors: [{ text: 'tests must not import vscode' }] }));
    },
};

function testEntries(dir) {
    return readdirSync(dir, { recursive: true })
        .filter((name) => name.endsWith('.test.ts'))
        .map((name) => path.join(dir, name));
}

const common = { bundle: true, platform: 'node', target: 'node20', format: 'cjs', logLevel: 'warning' };

if (picture) {
    await esbuild.build({
        ...common,
        entryPoints: [path.join(here, 'scripts', 'picture.ts')],
        outfile: path.join(here, 'out', 'picture.js'),
        plugins: [fakeVscodeApi],
        external: ['vscode-languageserver-protocol'],
    });
} else if (tests) {
    rmSync(path.join(here, 'out'), { recursive: true, force: true });
    await esbuild.build({
        ...common,
        entryPoints: testEntries(path.join(here, 'test')),
        outdir: path.join(here, 'out', 'test'),
        outbase: path.join(here, 'test'),
        sourcemap: 'inline',
        plugins: [fakeVscodeApi],
        external: ['vscode-languageserver-protocol'],
    });
} else {
    if (production) {
        // A local run of the bundled server leaves __pycache__ in bundled/libs; the .vsix must not carry it.
        for (const name of readdirSync(path.join(here, 'bundled'), { recursive: true })) {
            if (path.basename(name) === '__pycache__') {
                rmSync(path.join(here, 'bundled', name), { recursive: true, force: true });
            }
        }
    }
    await esbuild.build({
        ...common,
        entryPoints: [path.join(here, 'src', 'extension.ts')],
        outfile: path.join(here, 'dist', 'extension.js'),
        external: ['vscode'],
        minify: production,
        sourcemap: !production,
    });
}
