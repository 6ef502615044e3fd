/**
 * Steer lifecycle and `turn.terminal` (seed builds 0.15.2+): zcode 0.15.2's
 * `turn.steerQueued` / `turn.steerDrained` become `_zcode/session/steerState` notifications, and
 * `turn.terminal`'s figures land in the prompt response's `_meta.zcode.terminal` without ending
 * the turn early or twice.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { PromptResponse } from '@agentclientprotocol/sdk';
import { ext, newSession, notificationsOf, sessionText, startPrompt, withBridge } from './support.ts';
import type { AcpHarness } from './support.ts';
import { testWorkspace } from '../../helpers/workspace.ts';

const CWD = testWorkspace('ext-steer');

interface Terminal {
  status?: string;
  resultType?: string;
  durationMs?: number;
  inputTokens?: number;
  outputTokens?: number;
  totalTokens?: number;
}

function terminalOf(response: PromptResponse): Terminal | undefined {
  return (response._meta as { zcode?: { terminal?: Terminal } } | undefined)?.zcode?.terminal;
}

/** The response plus the session's agent text at the moment it arrived. */
async function promptSeen(h: AcpHarness, sessionId: string, text: string): Promise<{ response: PromptResponse; textAtResponse: string }> {
  const response = await h.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text }] });
  return { response, textAtResponse: sessionText(h, sessionId) };
}

describe('steer lifecycle (zcode 0.15.2)', () => {
  test('turn.steerQueued / turn.steerDrained → _zcode/session/steerState queued then drained', () =>
    withBridge({ sim: { profile: '0.15.2' } }, async (h) => {
      const sessionId = await newSession(h, CWD);
      const running = startPrompt(h, sessionId, '[scenario:steer] refactor');
      await h.waitFor('the steer turn to start', () => sessionText(h, sessionId).includes('Send a steer any time'));
      assert.deepEqual(notificationsOf(h, '_zcode/session/steerState', sessionId), []);
      await ext(h, '_zcode/session/steer', { sessionId, content: 'rename the class too' });
      await h.waitFor('steerState queued', () => notificationsOf(h, '_zcode/session/steerState', sessionId).length >= 1);
      await running.response;
      assert.deepEqual(notificationsOf(h, '_zcode/session/steerState'), [
        { sessionId, state: 'queued' },
        { sessionId, state: 'drained' },
      ]);
      // drained comes before the text that quotes the steer (zcode drains it into the turn first).
      const entries = h.traffic.entries.filter((e) => e.dir === 'out' && 'method' in e.msg);
      const drained = entries.findIndex((e) => 'method' in e.msg && e.msg.method === '_zcode/session/steerState' && (e.msg.params as { state?: string }).state === 'drained');
      const quoted = entries.findIndex((e) => 'method' in e.msg && e.msg.method === 'session/update' && JSON.stringify(e.msg.params).includes('Steer'));
      assert.ok(drained !== -1 && quoted !== -1 && drained < quoted, `drained #${drained} before the quoted steer #${quoted}`);
    }));
});

describe('turn.terminal (zcode 0.15.2)', () => {
  test('the figures arrive in the prompt response _meta.zcode.terminal (usage scenario totals)', () =>
    withBridge({ sim: { profile: '0.15.2' } }, async (h) => {
      const sessionId = await newSession(h, CWD);
      const { response, textAtResponse } = await promptSeen(h, sessionId, '[scenario:usage] figures please');
      assert.equal(response.stopReason, 'end_turn');
      const terminal = terminalOf(response);
      assert.ok(terminal, 'terminal figures present');
      assert.equal(terminal.status, 'success');
      assert.equal(terminal.inputTokens, 12345);
      assert.equal(terminal.outputTokens, 678);
      assert.equal(terminal.totalTokens, 13023);
      assert.equal(typeof terminal.durationMs, 'number');
      // turn.terminal did not end the turn early: everything zcode streamed is in before the response.
      assert.match(textAtResponse, /Here is a short answer so you can check the usage figures\.\n$/);
    }));

  test('no double end: a prompt queued behind is ended by its own turn only, each with its own figures', () =>
    withBridge({ sim: { profile: '0.15.2' } }, async (h) => {
      const sessionId = await newSession(h, CWD);
      const first = promptSeen(h, sessionId, '[scenario:usage] one');
      const second = promptSeen(h, sessionId, '[scenario:steer] two');
      const a = await first;
      assert.equal(terminalOf(a.response)?.totalTokens, 13023);
      // The steer scenario waits for a steer (5 s max): the queued prompt must not have ended with the first turn's terminal.
      await h.waitFor('the second turn to start', () => sessionText(h, sessionId).includes('Send a steer any time'));
      await ext(h, '_zcode/session/steer', { sessionId, content: 'go' });
      const b = await second;
      assert.equal(b.response.stopReason, 'end_turn');
      assert.match(b.textAtResponse, /Done: the cache module is refactored\.\n$/);
      const terminal = terminalOf(b.response);
      assert.ok(terminal && terminal.totalTokens !== 13023, 'the second response carries its own turn.terminal');
      const promptResponses = h.traffic.entries.filter((e) => e.dir === 'out' && 'result' in e.msg && typeof (e.msg.result as { stopReason?: unknown })?.stopReason === 'string');
      assert.equal(promptResponses.length, 2, 'exactly one response per prompt');
    }));
});
