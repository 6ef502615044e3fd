/**
 * Golden transcripts (test/golden/<profile>/<name>.jsonl): the normalized ACP traffic of one simulator
 * scenario, compared on every run so that a behaviour change shows up in review. Both transports
 * must produce the same transcript. `UPDATE_GOLDEN=1` rewrites the files (from the in-process run).
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { before, describe, test } from 'node:test';
import type { AnyMessage, CreateElicitationResponse } from '@agentclientprotocol/sdk';
import { buildCli, MODES } from './harness.ts';
import type { AcpHarness } from './harness.ts';
import { agentText, newSession, prompt, withHarness } from './helpers.ts';
import { CapabilitiesChangedNotification } from '../../../bridge/acp/extensions/contractDescriptors.ts';
import { transcript } from './normalize.ts';

/**
 * Goldens are per simulator profile where the output differs: test/golden/<profile>/. The run's profile is
 * ZCODE_TEST_SIM_PROFILE (default: the simulator's, desktop-3.12); a profile without its own directory
 * shares its era's (seed builds: 0.15.2, current builds: desktop-3.12).
 */
const PROFILE = process.env.ZCODE_TEST_SIM_PROFILE || 'desktop-3.15';
const CURRENT_PROFILES = new Set(['0.16.5', 'desktop-3.12', 'desktop-3.15']);
const GOLDEN_ROOT = fileURLToPath(new URL('../../golden/', import.meta.url));
const GOLDEN_DIR = existsSync(`${GOLDEN_ROOT}${PROFILE}/`) || process.env.UPDATE_GOLDEN === '1'
  ? `${GOLDEN_ROOT}${PROFILE}/`
  : `${GOLDEN_ROOT}${CURRENT_PROFILES.has(PROFILE) ? 'desktop-3.12' : '0.15.2'}/`;
const UPDATE = process.env.UPDATE_GOLDEN === '1';
const T = { timeout: 60_000 };
/** A rich client: forms and terminal output, so every feature shows in the transcripts. */
const CAPS = { elicitation: { form: {} }, _meta: { terminal_output: true } };

interface Case {
  name: string;
  scenario: string;
  form?: CreateElicitationResponse;
  /** For background scenarios: wait until the backend's own follow-up turn has been forwarded. */
  waitFor?: RegExp;
  /**
   * Simulator speed (default 0). Background scenarios run a little slower: at speed 0 the task's
   * first events race the prompt's response, which waits for the session's title (turns.ts).
   */
  speed?: number;
}

const CASES: Case[] = [
  { name: 'text', scenario: 'text' },
  { name: 'tools', scenario: 'tools' },
  { name: 'edit', scenario: 'edit' },
  { name: 'bash', scenario: 'bash' },
  { name: 'permission', scenario: 'permission' },
  { name: 'questions', scenario: 'questions', form: { action: 'accept', content: { q_0: 'TypeScript', q_0_other: '', q_1: ['Unit tests', 'Lint'], q_1_other: '' } } },
  { name: 'plan-approve', scenario: 'plan', form: { action: 'accept', content: { feedback: '' } } },
  { name: 'plan-reject-with-text', scenario: 'plan', form: { action: 'accept', content: { feedback: 'Use argon2 instead of scrypt' } } },
  { name: 'plan-cancel', scenario: 'plan', form: { action: 'cancel' } },
  { name: 'subagent-bg', scenario: 'subagent-bg', waitFor: /The background agent finished/, speed: 0.1 },
  { name: 'bash-bg', scenario: 'bash-bg', waitFor: /The background build finished/, speed: 0.1 },
];

/**
 * The transcripts carry the cwd (and the simulator's token counts depend on its length), so the
 * golden runs use one fixed path instead of a fresh temp dir. It must exist (the bridge refuses a
 * missing cwd); it is left in place because another run may be using it.
 */
const GOLDEN_WORKSPACE = '/tmp/zcode-acp-ws';

before(async () => {
  mkdirSync(GOLDEN_WORKSPACE, { recursive: true });
  await buildCli();
});

async function record(h: AcpHarness, c: Case): Promise<string[]> {
  const start = h.traffic.entries.length;
  const sessionId = await newSession(h, GOLDEN_WORKSPACE);
  // The commands follow session/new's response: let them land before the prompt goes out, so the
  // transcript's order does not depend on timing.
  await h.waitFor('the available commands', () => h.updatesOf(sessionId).some((u) => u.sessionUpdate === 'available_commands_update'));
  if (c.form) h.onForm = async () => c.form!;
  await prompt(h, sessionId, `[scenario:${c.scenario}]`);
  // The session's queue goes idle right after the response is written: wait for it, so the
  // transcript's end does not depend on when the response's promise settled.
  await h.waitFor('the queue to be idle', () =>
    h.notifications.some((n) => n.method === '_zcode/session/queue' && JSON.stringify(n.params) === JSON.stringify({ sessionId, waiting: [] })),
  );
  if (c.waitFor) {
    await h.waitFor('the background turn', () => c.waitFor!.test(agentText(h.updatesOf(sessionId))));
    await h.waitFor('the background task list to settle', () =>
      h.notifications.some((n) => n.method === '_zcode/session/backgroundTasks' && /"status":"(completed|failed)"/.test(JSON.stringify(n.params))),
    );
    // The background turn's last update is its usage, after its text: wait for that event, not a clock.
    await h.waitFor('the background turn\'s end (its usage)', () => {
      const updates = h.updatesOf(sessionId);
      // The text may come in several chunks: the usage must follow the last of them.
      const lastText = updates.findLastIndex((u) => u.sessionUpdate === 'agent_message_chunk');
      return c.waitFor!.test(agentText(updates)) && updates.slice(lastText + 1).some((u) => u.sessionUpdate === 'usage_update');
    });
  }
  // What zcode can do is a fact about its process, announced once it is probed (extensions/v4.test.ts
  // covers it), not part of a session's transcript. A background task's first events and the idle
  // queue that follows the response come from two sources after that response: their order is not
  // behaviour (the queue's order is extensionMethods/sessionQueue.test.ts's), so those cases leave it out.
  const idleQueue = (m: AnyMessage): boolean => 'method' in m && m.method === '_zcode/session/queue' && !('running' in (m.params as object));
  return transcript(h.traffic.entries.slice(start).filter((e) => !('method' in e.msg && e.msg.method === CapabilitiesChangedNotification.method) && !(c.waitFor && idleQueue(e.msg))));
}

for (const mode of MODES) {
  describe(`golden transcripts (${mode})`, () => {
    for (const c of CASES) {
      test(`golden: ${c.name}`, T, async () => {
        await withHarness(mode, { caps: CAPS, sim: { env: { ZCODE_SIM_SEED: '1234' }, ...(c.speed !== undefined ? { speed: c.speed } : {}) } }, async (h) => {
          const lines = await record(h, c);
          const file = `${GOLDEN_DIR}${c.name}.jsonl`;
          if (UPDATE && mode === 'inproc') {
            mkdirSync(GOLDEN_DIR, { recursive: true });
            writeFileSync(file, `${lines.join('\n')}\n`);
            return;
          }
          assert.ok(existsSync(file), `missing golden file ${file} (run with UPDATE_GOLDEN=1)`);
          const expected = readFileSync(file, 'utf8').trimEnd().split('\n');
          assert.deepEqual(lines, expected, `transcript of ${c.name} changed (UPDATE_GOLDEN=1 rewrites it after review)`);
        });
      });
    }
  });
}
