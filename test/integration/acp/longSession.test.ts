/**
 * Long sessions, in-process and over stdio: `session/load` of a 2400-message
 * session replays its tail (200 messages by default, `_meta.zcode.replay.limit` overrides it, "all"
 * replays everything), `_zcode/session/loadEarlier` pages back to the start with the cursor, and the
 * replay shows what the user saw (system reminders cut, reminder messages dropped, a compaction
 * summary as one collapsed card). Every message is schema-checked (strict).
 */
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { before, describe, test } from 'node:test';
import type { SessionUpdate } from '@agentclientprotocol/sdk';
import { tempDir } from '../../helpers/sim.ts';
import { buildCli, MODES } from './harness.ts';
import type { AcpHarness } from './harness.ts';
import { errorOf, withHarness } from './helpers.ts';
import { testWorkspace } from '../../helpers/workspace.ts';

const T = { timeout: 90_000 };
const CWD = testWorkspace('acp-long');
const SESSION = 'sess_long0000001';
const TURNS = 1200;

/** A stored simulator session: TURNS question/answer pairs, a reminder and a compaction summary near the end. */
function writeLongSession(stateDir: string): void {
  const messages: Array<{ info: Record<string, unknown>; parts: unknown[] }> = [];
  for (let i = 0; i < TURNS; i++) {
    const text = i === TURNS - 1 ? `question ${i}\n\n<system-reminder>the todo list is empty</system-reminder>` : `question ${i}`;
    messages.push({ info: { id: `u${i}`, role: 'user', createdAt: 1_700_000_000_000 + i }, parts: [{ type: 'text', text }] });
    messages.push({ info: { id: `a${i}`, role: 'assistant', createdAt: 1_700_000_000_000 + i }, parts: [{ type: 'text', text: `answer ${i}` }] });
  }
  const semantics = (kind: string, uiVisibility: string) => ({ origin: 'agent_runtime', kind, uiVisibility, providerVisibility: 'visible', transcriptVisibility: uiVisibility === 'hidden' && kind === 'system_reminder' ? 'hidden' : 'visible' });
  messages.splice(messages.length - 4, 0, { info: { id: 'r1', role: 'user', semantics: semantics('system_reminder', 'hidden') }, parts: [{ type: 'text', text: 'remember the rules' }] });
  messages.splice(messages.length - 2, 0, { info: { id: 'c1', role: 'user', semantics: semantics('compact_summary', 'hidden') }, parts: [{ type: 'text', text: 'Summary of the first 1198 turns' }] });
  mkdirSync(stateDir, { recursive: true });
  const session = { sessionId: SESSION, workspace: { workspacePath: CWD, workspaceKey: CWD }, title: 'A long one', createdAt: 1_700_000_000_000, updatedAt: 1_700_000_100_000, messages, seq: 0 };
  writeFileSync(path.join(stateDir, `${SESSION}.json`), JSON.stringify(session));
}

before(async () => {
  await buildCli();
});

function texts(updates: readonly SessionUpdate[], kind: 'user_message_chunk' | 'agent_message_chunk'): string[] {
  return updates.flatMap((u) => (u.sessionUpdate === kind && u.content.type === 'text' ? [u.content.text] : []));
}

async function load(h: AcpHarness, meta?: Record<string, unknown>) {
  return h.agent.request('session/load', { sessionId: SESSION, cwd: CWD, mcpServers: [], ...(meta ? { _meta: meta } : {}) });
}

for (const mode of MODES) {
  describe(`long sessions (${mode})`, () => {
    test('load replays the tail; loadEarlier pages back to the first message; the replay shows what the user saw', T, async () => {
      const state = tempDir('zcode-long-');
      writeLongSession(state.file('sim'));
      await withHarness(mode, { sim: { stateDir: state.file('sim') } }, async (h) => {
        const loaded = await load(h);
        const replay = (loaded._meta as { zcode: { replay: { total: number; replayed: number; cursor?: string } } }).zcode.replay;
        assert.equal(replay.total, TURNS * 2 + 2);
        assert.equal(replay.replayed, 200);
        assert.ok(replay.cursor);
        const tail = h.updatesOf(SESSION);
        const users = texts(tail, 'user_message_chunk');
        assert.equal(users.at(-1), `question ${TURNS - 1}`, 'the reminder is cut out of the text');
        assert.ok(!users.includes('remember the rules'), 'a reminder message is not replayed');
        const cards = tail.filter((u) => u.sessionUpdate === 'tool_call');
        assert.deepEqual(cards.map((c) => (c.sessionUpdate === 'tool_call' ? [c.title, c.status, c._meta] : [])), [['Conversation compacted', 'completed', { zcode: { notice: { kind: 'compaction' } } }]]);
        assert.equal(users[0].startsWith('question '), true, 'the tail starts at a user message');

        // Page back with the cursor until the start.
        let cursor: string | undefined = replay.cursor;
        let pages = 0;
        let earlier: SessionUpdate[] = [];
        while (cursor) {
          const seen = h.updatesOf(SESSION).length;
          const page = (await h.agent.request('_zcode/session/loadEarlier', { sessionId: SESSION, cursor, limit: 1000 })) as { messages: number; cursor?: string };
          // (The menu sent after the load may land in between: it is not part of the page.)
          const got = h.updatesOf(SESSION).slice(seen).filter((u) => u.sessionUpdate !== 'available_commands_update');
          assert.equal(texts(got, 'user_message_chunk').length + texts(got, 'agent_message_chunk').length, page.messages, 'one chunk per plain message');
          assert.ok(got.every((u) => (u._meta as { zcode?: { earlierPage?: string } } | undefined)?.zcode?.earlierPage === cursor), 'each update names the page it answers');
          earlier = [...got, ...earlier];
          cursor = page.cursor;
          pages++;
        }
        assert.equal(pages, 3, "2202 earlier messages in pages of 1000");
        const all = [...texts(earlier, 'user_message_chunk'), ...users];
        assert.equal(all.length, TURNS);
        assert.deepEqual(all.slice(0, 3), ['question 0', 'question 1', 'question 2']);
        assert.equal(new Set(all).size, TURNS, 'no message twice across pages');

        const badCursor = await errorOf(h.agent.request('_zcode/session/loadEarlier', { sessionId: SESSION, cursor: 'not-a-cursor' }));
        assert.equal(badCursor.code, -32602);
        assert.match(badCursor.message, /cursor is not one this bridge gave out/);
      });
    });

    test('_meta.zcode.replay.limit: a number, "all", and a bad value', T, async () => {
      const state = tempDir('zcode-long-');
      writeLongSession(state.file('sim'));
      await withHarness(mode, { sim: { stateDir: state.file('sim') } }, async (h) => {
        const some = await load(h, { zcode: { replay: { limit: 10 } } });
        assert.equal((some._meta as { zcode: { replay: { replayed: number } } }).zcode.replay.replayed, 10);
        const before = h.updatesOf(SESSION).length;
        const all = await load(h, { zcode: { replay: { limit: 'all' } } });
        const replay = (all._meta as { zcode: { replay: { replayed: number; cursor?: string } } }).zcode.replay;
        assert.equal(replay.replayed, TURNS * 2 + 2);
        assert.equal(replay.cursor, undefined);
        assert.equal(texts(h.updatesOf(SESSION).slice(before), 'user_message_chunk').length, TURNS);
        const bad = await errorOf(load(h, { zcode: { replay: { limit: -1 } } }));
        assert.equal(bad.code, -32602);
        assert.match(bad.message, /_meta\.zcode\.replay\.limit must be a positive integer or "all"/);
      });
    });
  });
}
