import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { errorText, fenced, parseSubagentResult, resultText, suffixPrefixOverlap, tailDelta, unsentRemainder } from '../../../../bridge/translate/content.ts';
import { todosToPlanEntries } from '../../../../bridge/translate/plan.ts';
import { validateAcp } from '../../../helpers/acpSchema.ts';

describe('cumulative tails', () => {
  test('suffixPrefixOverlap', () => {
    assert.equal(suffixPrefixOverlap('hello wor', 'world'), 3);
    assert.equal(suffixPrefixOverlap('abc', 'xyz'), 0);
    assert.equal(suffixPrefixOverlap('aaaa', 'aaab'), 3);
    assert.equal(suffixPrefixOverlap('xabab', 'abab!'), 4);
    assert.equal(suffixPrefixOverlap('ab', 'ab'), 2);
    assert.equal(suffixPrefixOverlap('', 'ab'), 0);
  });

  test('tailDelta: growth, unchanged, sliding window, restart, chance overlaps', () => {
    assert.equal(tailDelta('', 'a\n'), 'a\n');
    assert.equal(tailDelta('a\n', 'a\nb\n'), 'b\n');
    assert.equal(tailDelta('a\nb\n', 'a\nb\n'), '');
    assert.equal(tailDelta('0123456789abcdef', '89abcdefXYZ'), 'XYZ');
    assert.equal(tailDelta('some old output\n', 'new run\n'), 'new run\n');
    // a one-character coincidence is not a window slide: nothing is eaten
    assert.equal(tailDelta('long previous output\n', '\nfresh output that is long'), '\nfresh output that is long');
    // a shrinking window that is a suffix of what was sent adds nothing
    assert.equal(tailDelta('0123456789abcdef', '89abcdef'), '');
  });

  test('unsentRemainder: never re-sends what the user saw', () => {
    assert.equal(unsentRemainder('', 'all of it'), 'all of it');
    assert.equal(unsentRemainder('line 1\nline 2\n', 'line 1\nline 2\nline 3\n'), 'line 3\n');
    assert.equal(unsentRemainder('line 2\n', 'line 1\nline 2\n'), '');
    assert.equal(unsentRemainder('xxxxxxxx-tail-of-window', 'tail-of-window and more'), ' and more');
    assert.equal(unsentRemainder('streamed something', 'unrelated summary'), '');
  });
});

describe('result text', () => {
  test('strings, MCP blocks, objects, errors', () => {
    assert.equal(resultText('plain'), 'plain');
    assert.equal(resultText([{ type: 'text', text: 'a' }, { type: 'text', text: 'b' }]), 'a\nb');
    assert.equal(resultText({ output: 'out' }), 'out');
    assert.equal(resultText({ content: [{ type: 'text', text: 'nested' }] }), 'nested');
    assert.equal(resultText({ a: 1 }), '{\n  "a": 1\n}');
    assert.equal(resultText(undefined), '');
    assert.equal(errorText({ message: 'boom' }), 'boom');
    assert.equal(errorText(new Error('bad')), 'bad');
    assert.equal(errorText('x'), 'x');
  });

  test('fences grow past backtick runs in the text', () => {
    assert.equal(fenced('a'), '```\na\n```');
    assert.equal(fenced('a\n', 'console'), '```console\na\n```');
    assert.equal(fenced('````x````'), '`````\n````x````\n`````');
  });

  test('sub-agent result parsing', () => {
    assert.deepEqual(parseSubagentResult('agentId: agent_1\n<usage>total_tokens: 5\ntool_uses: 0\nduration_ms: 9</usage>'), {
      agentId: 'agent_1',
      tokens: 5,
      toolUses: 0,
      durationMs: 9,
    });
    assert.deepEqual(parseSubagentResult('<usage>{"total_tokens": 12, "tool_uses": 3}</usage>'), { tokens: 12, toolUses: 3 });
    assert.equal(parseSubagentResult('no metadata'), undefined);
  });
});

describe('plan entries', () => {
  test('status and priority mapping, bad items dropped, schema-valid', () => {
    const entries = todosToPlanEntries([
      { content: 'a', status: 'in-progress', priority: 'HIGH' },
      { content: 'b', status: 'done' },
      { text: 'c', status: 'weird' },
      { status: 'pending' },
      'nonsense',
    ]);
    assert.deepEqual(entries, [
      { content: 'a', priority: 'high', status: 'in_progress', _meta: { zcode: { status: 'in-progress' } } },
      { content: 'b', priority: 'medium', status: 'completed', _meta: { zcode: { status: 'done' } } },
      { content: 'c', priority: 'medium', status: 'pending', _meta: { zcode: { status: 'weird' } } },
    ]);
    entries.forEach((e) => validateAcp('PlanEntry', e));
    assert.deepEqual(todosToPlanEntries(undefined), []);
  });
});
