/**
 * The slash menu offers `/steer` only where the running zcode can steer: a build without the v4
 * command surface and without the legacy steer (0.16.5) drops it from the menu once zcode has been
 * probed (in the first menu when the probe came first, else the refresh after a prompt); a v4
 * build (desktop 3.15) keeps it.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { SessionUpdate } from '@agentclientprotocol/sdk';
import type { AcpHarness } from './harness.ts';
import { say, withHarness } from './helpers.ts';
import { testWorkspace } from '../../helpers/workspace.ts';

const T = { timeout: 60_000 };
const CWD = testWorkspace('acp-slash-capabilities');

/** The names of the last menu the session's client got. */
function lastMenu(h: AcpHarness, sessionId: string): string[] {
  const menus = h.updatesOf(sessionId).filter((u): u is Extract<SessionUpdate, { sessionUpdate: 'available_commands_update' }> => u.sessionUpdate === 'available_commands_update');
  return menus.at(-1)?.availableCommands.map((c) => c.name) ?? [];
}

async function menuAfterAPrompt(profile: string): Promise<{ before: string[]; after: string[] }> {
  return withHarness('inproc', { sim: { profile } }, async (h) => {
    const { sessionId } = await h.agent.request('session/new', { cwd: CWD, mcpServers: [] });
    await h.waitFor('the first menu', () => lastMenu(h, sessionId).length > 0);
    const before = lastMenu(h, sessionId);
    await say(h, sessionId, '[scenario:text] hello');
    // The menu is refreshed after every prompt; it is re-sent only when it changed.
    await say(h, sessionId, '[scenario:text] again');
    return { before, after: lastMenu(h, sessionId) };
  });
}

describe('slash menu and what zcode supports', () => {
  test('0.16.5 (no v4, no legacy steer): /steer leaves the menu once zcode was probed', T, async () => {
    const { before, after } = await menuAfterAPrompt('0.16.5');
    // Whether the first menu had it depends on whether zcode was probed before session/new answered.
    assert.ok(before.includes('compact'));
    assert.ok(!after.includes('steer'), after.join(','));
    assert.ok(after.includes('compact') && after.includes('goal'), 'the other commands stay');
  });

  test('desktop 3.15 (v4): /steer stays', T, async () => {
    const { after } = await menuAfterAPrompt('desktop-3.15');
    assert.ok(after.includes('steer'), after.join(','));
  });
});
