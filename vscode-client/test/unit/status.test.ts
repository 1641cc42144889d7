import assert from 'node:assert/strict';
import { test } from 'node:test';
import { statusText } from '../../src/status';

test('status: the short evaluator id and the last verdict, with an icon per verdict', () => {
    const id = 'dbb0e8f1cdc49c4e77d442fd5c9def4d';
    assert.equal(statusText({ server: 'running', evaluatorId: id, verdict: 'pass' }).text, '$(beaker) Proctor dbb0e8f1 $(pass) pass');
    assert.equal(statusText({ server: 'running', evaluatorId: id, verdict: 'fail' }).text, '$(beaker) Proctor dbb0e8f1 $(error) fail');
    assert.equal(statusText({ server: 'running', verdict: 'weird' }).text, '$(beaker) Proctor weird');
    assert.equal(statusText({ server: 'running' }).text, '$(beaker) Proctor');
    assert.match(statusText({ server: 'running' }).tooltip, /not verified in this session\nClick to verify/);
});

test('status: verifying, starting, and a server that is not running (with the reason in the tooltip)', () => {
    assert.equal(statusText({ server: 'running', evaluatorId: 'abcdef0123', verifying: true }).text, '$(sync~spin) Proctor abcdef01 verifying');
    assert.equal(statusText({ server: 'starting' }).text, '$(sync~spin) Proctor');
    const failed = statusText({ server: 'failed', problem: 'Proctor: cannot run the Python interpreter `x`' });
    assert.equal(failed.text, '$(warning) Proctor');
    assert.equal(failed.tooltip, 'Proctor: the language server is not running: Proctor: cannot run the Python interpreter `x`');
});
