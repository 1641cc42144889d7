import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
    { ignores: ['dist/**', 'out/**', 'node_modules/**', 'bundled/**', '.vscode-test/**'] },
    js.configs.recommended,
    ...tseslint.configs.recommended,
    {
        files: ['**/*.ts'],
        rules: {
            'no-restricted-imports': [
                'error',
                { paths: [{ name: 'vscode', message: 'Call vscode through src/common/vscodeapi.ts.' }] },
            ],
            '@typescript-eslint/naming-convention': [
                'error',
                { selector: 'interface', format: ['PascalCase'], custom: { regex: '^I[A-Z]', match: false } },
            ],
            complexity: ['error', 15],
            '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
        },
    },
    {
        files: ['src/common/vscodeapi.ts'],
        rules: { 'no-restricted-imports': 'off' },
    },
    {
        files: ['**/*.mjs'],
        languageOptions: { globals: { process: 'readonly', console: 'readonly', URL: 'readonly' } },
    },
);
