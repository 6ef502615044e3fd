/**
 * queueEntry.ts: a prompt as one short line for `_zcode/session/queue`, and the sender record it
 * shares with a prompt's echo.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { PROMPT_LINE_MAX, promptLine, promptSender, queueEntry } from '../../../../../bridge/acp/turns/queueEntry.ts';

describe('queue entries', () => {
  test('text blocks join as the client split them; attachments by name; whitespace runs become one space', () => {
    assert.equal(
      promptLine([
        { type: 'text', text: 'Explain ' },
        { type: 'resource_link', name: 'main.ts', uri: 'file:///w/src/main.ts', title: 'The whole main file' },
        { type: 'text', text: ' please,\n\n  briefly' },
      ]),
      'Explain main.ts please, briefly',
    );
    assert.equal(promptLine([{ type: 'resource', resource: { uri: 'file:///w/notes.md', text: 'long notes' } }, { type: 'text', text: 'summarize' }]), 'notes.md summarize');
    assert.equal(promptLine([{ type: 'image', data: 'AAAA', mimeType: 'image/png', uri: 'file:///w/shot.png' }]), 'shot.png');
    assert.equal(promptLine([{ type: 'image', data: 'AAAA', mimeType: 'image/png' }]), 'image');
  });

  test(`a long prompt is cut at ${PROMPT_LINE_MAX} characters, counted as characters, not UTF-16 units`, () => {
    const line = promptLine([{ type: 'text', text: '😀'.repeat(PROMPT_LINE_MAX + 5) }]);
    assert.equal(Array.from(line).length, PROMPT_LINE_MAX);
    assert.ok(line.endsWith('😀…'));
    assert.equal(promptLine([{ type: 'text', text: 'x'.repeat(PROMPT_LINE_MAX) }]), 'x'.repeat(PROMPT_LINE_MAX), 'exactly the limit is not cut');
  });

  test('the sender: what the bridge knows of the client, nulls once it knows nothing; a promptId only when named', () => {
    const sender = promptSender({ id: 7, info: { kind: 'remote', label: 'phone' }, name: 'zed' });
    assert.deepEqual(sender, { clientId: 7, kind: 'remote', label: 'phone', name: 'zed' });
    assert.deepEqual(promptSender(undefined), { clientId: null, kind: null });
    assert.deepEqual(queueEntry([{ type: 'text', text: 'hi' }], sender), { text: 'hi', sentBy: sender });
    assert.deepEqual(queueEntry([{ type: 'text', text: 'hi' }], sender, 'p1'), { text: 'hi', promptId: 'p1', sentBy: sender });
  });
});
