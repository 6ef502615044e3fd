/**
 * The bridge's own notices (a retry after a transient failure) stay apart from the model's text
 * (notices.ts), through the official SDK client: a client that declared `session.notices` gets an
 * ACP `notice` update and no text; any other client gets a thought chunk that is its own
 * paragraph, so "Thinking about it." and the retry notice never run together. Both carry
 * `_meta.zcode.notice`. Every message is validated against the ACP schema (harness traffic).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { SessionUpdate } from '@agentclientprotocol/sdk';
import { newSession, prompt, resendAsRetryInPlace, withHarness } from './helpers.ts';

const T = { timeout: 60_000 };

interface NoticeFacts {
  kind?: string;
  attempt?: number;
}

/** `_meta.zcode.notice` of an update (test-side reading of what the bridge sent). */
function noticeOf(update: SessionUpdate): NoticeFacts | undefined {
  return (update._meta as { zcode?: { notice?: NoticeFacts } } | null | undefined)?.zcode?.notice;
}

/** The thought stream as a client that appends chunks shows it. */
function thoughts(updates: readonly SessionUpdate[]): string {
  return updates.map((u) => (u.sessionUpdate === 'agent_thought_chunk' && u.content.type === 'text' ? u.content.text : '')).join('');
}

describe('notices apart from the model text (inproc)', () => {
  test('a retry notice: a `notice` update for a client that declared notices, its own paragraph for one that did not', T, async () => {
    // The retry itself is a stand-in (helpers.ts): the simulator has no in-place retry.
    await withHarness('inproc', { caps: { session: { notices: {} } }, ...resendAsRetryInPlace('[scenario:think-transient]') }, async (h) => {
      const plain = await h.addClient('no-notices', {});
      const sessionId = await newSession(h);
      assert.equal((await prompt(h, sessionId, '[scenario:think-transient]')).stopReason, 'end_turn');
      await plain.waitFor('the answer at the second client', () => plain.updatesOf(sessionId).some((u) => u.sessionUpdate === 'agent_message_chunk'));

      const declared = h.updatesOf(sessionId);
      const notices = declared.filter((u) => u.sessionUpdate === 'notice');
      assert.equal(notices.length, 1, 'one notice for the one retry');
      const notice = notices[0];
      assert.ok(notice.sessionUpdate === 'notice');
      assert.equal(notice.severity, 'warning');
      assert.match(notice.title, /rate limit.*attempt 1 of 2/);
      assert.equal(noticeOf(notice)?.kind, 'retrying');
      assert.equal(noticeOf(notice)?.attempt, 1);
      assert.doesNotMatch(thoughts(declared), /retrying/, 'the notice is not in the thought stream of a client that shows notices');

      const other = plain.updatesOf(sessionId);
      assert.equal(other.filter((u) => u.sessionUpdate === 'notice').length, 0, 'no notice update to a client that did not declare notices');
      const chunks = other.filter((u) => noticeOf(u)?.kind === 'retrying');
      assert.equal(chunks.length, 1);
      assert.equal(chunks[0].sessionUpdate, 'agent_thought_chunk');
      assert.match(thoughts(other), /Thinking about it\.\n\nzcode's turn failed \(rate limit\); retrying in .*\n\n/, 'the notice is a paragraph of its own after the thought');
    });
  });
});
