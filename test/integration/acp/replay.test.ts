/**
 * Replay: a session with text, reasoning, tool calls and edits is loaded in a
 * fresh bridge, and the replayed updates carry the same kinds, titles and diffs as the live turn.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { before, describe, test } from 'node:test';
import type { SessionUpdate } from '@agentclientprotocol/sdk';
import { buildCli, MODES } from './harness.ts';
import { agentText, newSession, prompt, withHarness, WORKSPACE } from './helpers.ts';

const T = { timeout: 60_000 };

before(async () => {
  await buildCli();
});

interface Card {
  kind?: string;
  title?: string;
  diffs: string[];
}

/**
 * Per tool call: the kind and title it was announced with, and the diffs it shows at the end
 * (ACP content lists replace: live, a card may first show the input's diff and then zcode's
 * structured patch; the replay shows the final one).
 */
function cards(updates: readonly SessionUpdate[]): Map<string, Card> {
  const out = new Map<string, Card>();
  for (const u of updates) {
    if (u.sessionUpdate !== 'tool_call' && u.sessionUpdate !== 'tool_call_update') continue;
    const card = out.get(u.toolCallId) ?? { diffs: [] };
    if (u.sessionUpdate === 'tool_call') {
      card.kind = u.kind;
      card.title = u.title;
    }
    const diffs = (u.content ?? []).filter((c) => c.type === 'diff').map((c) => (c.type === 'diff' ? JSON.stringify({ path: c.path, oldText: c.oldText ?? null, newText: c.newText }) : ''));
    if (diffs.length > 0) card.diffs = diffs;
    out.set(u.toolCallId, card);
  }
  return out;
}

for (const mode of MODES) {
  describe(`replay (${mode})`, () => {
    test('session/load in a fresh bridge replays the same kinds, titles and diffs as the live turns', T, async () => {
      const stateDir = mkdtempSync(path.join(tmpdir(), 'zcode-sim-state-'));
      const storeDir = mkdtempSync(path.join(tmpdir(), 'zcode-acp-store-'));
      try {
        let sessionId = '';
        let live: Map<string, Card> = new Map();
        let liveText = '';
        await withHarness(mode, { sim: { stateDir }, storeDir }, async (h) => {
          sessionId = await newSession(h);
          for (const scenario of ['reasoning', 'tools', 'edit']) assert.equal((await prompt(h, sessionId, `[scenario:${scenario}]`)).stopReason, 'end_turn');
          live = cards(h.updatesOf(sessionId));
          liveText = agentText(h.updatesOf(sessionId));
        });
        await withHarness(mode, { sim: { stateDir }, storeDir }, async (h) => {
          await h.agent.request('session/load', { sessionId, cwd: WORKSPACE, mcpServers: [] });
          const updates = h.updatesOf(sessionId);
          const replayed = cards(updates);
          assert.ok(live.size >= 8, `live turns had ${live.size} tool calls`);
          assert.deepEqual([...replayed.keys()].sort(), [...live.keys()].sort(), 'the same tool calls');
          for (const [id, card] of live) {
            const again = replayed.get(id)!;
            assert.equal(again.kind, card.kind, `kind of ${card.title}`);
            assert.equal(again.title, card.title, `title of ${id}`);
            assert.deepEqual(again.diffs, card.diffs, `diffs of ${card.title}`);
          }
          assert.ok([...live.values()].some((c) => c.diffs.length > 0), 'the edit turn showed diffs');
          assert.ok(updates.some((u) => u.sessionUpdate === 'agent_thought_chunk'), 'reasoning replayed');
          assert.ok(updates.some((u) => u.sessionUpdate === 'user_message_chunk'), 'user messages replayed');
          assert.equal(agentText(updates), liveText, 'the same agent text');
        });
      } finally {
        rmSync(stateDir, { recursive: true, force: true });
        rmSync(storeDir, { recursive: true, force: true });
      }
    });
  });
}
