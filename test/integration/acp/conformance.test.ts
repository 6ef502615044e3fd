/**
 * The 11 ACP conformance cases (initialize, capabilities, unknown methods and sessions, cancel,
 * `$/cancel_request`, a second prompt, load and resume, config options, permissions, schema validity,
 * a clean stdout), each a named test, run twice: in-process
 * (`connectClient`) and over stdio (the bundled `zcode-acp` CLI). The official SDK client talks to
 * the bridge; the zcode simulator runs as a real child process; every message the bridge sends is
 * schema-validated (harness.ts / traffic.ts) and the simulator's violation log must stay empty.
 */
import { currentEra } from '../../helpers/sim.ts';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { before, describe, test } from 'node:test';
import type { AnyMessage, SessionConfigOption } from '@agentclientprotocol/sdk';
import { buildCli, MODES } from './harness.ts';
import type { AcpHarness } from './harness.ts';
import { agentText, caughtUp, errorOf, neverAnswer, newSession, prompt, withHarness, WORKSPACE } from './helpers.ts';

const T = { timeout: 60_000 };

before(async () => {
  await buildCli();
});

/** Index of the response to the request `id` in the bridge's outgoing traffic. */
function responseIndex(sent: AnyMessage[], id: unknown): number {
  return sent.findIndex((m) => !('method' in m) && 'id' in m && m.id === id);
}

/** The ids of the client's requests of one method, in order. */
function requestIds(h: AcpHarness, method: string): unknown[] {
  return h.traffic.entries.filter((e) => e.dir === 'in' && 'method' in e.msg && e.msg.method === method && 'id' in e.msg).map((e) => (e.msg as { id: unknown }).id);
}

for (const mode of MODES) {
  describe(`ACP conformance (${mode})`, () => {
    test('conformance 1: initialize answers protocol version 1 whatever is asked; requests before initialize are refused', T, async () => {
      await withHarness(mode, { initialize: false }, async (h) => {
        const early = await errorOf(h.agent.request('session/new', { cwd: '/tmp', mcpServers: [] }));
        assert.equal(early.code, -32600, 'a request before initialize is refused');
        const answer = await h.agent.request('initialize', { protocolVersion: 0, clientCapabilities: {} });
        assert.equal(answer.protocolVersion, 1);
        assert.equal(answer.agentInfo?.name, 'zcode-acp');
        // The first initialize chose v1 for the connection (a fresh one asking 2 or more gets v2: v2.test.ts).
        const again = await h.agent.request('initialize', { protocolVersion: 7, clientCapabilities: {} });
        assert.equal(again.protocolVersion, 1);
        // After initialize, requests work.
        assert.match(await newSession(h), /^lazy_/);
      });
    });

    test('conformance 2: every advertised capability works; undeclared client capabilities are treated as unsupported', T, async () => {
      await withHarness(mode, { caps: {} }, async (h) => {
        const init = await h.initialize();
        const caps = (init as { agentCapabilities: Record<string, unknown> }).agentCapabilities;
        assert.deepEqual(caps.sessionCapabilities, { list: {}, resume: {}, close: {}, delete: {} });
        assert.deepEqual(caps.auth, { logout: {} });
        assert.equal(caps.loadSession, true);
        assert.deepEqual(caps.promptCapabilities, { image: true, audio: false, embeddedContext: true });
        const authId = (init as { authMethods: Array<{ id: string }> }).authMethods[0].id;
        assert.deepEqual(await h.agent.request('authenticate', { methodId: authId }), {});

        const sessionId = await newSession(h);
        // Images and embedded context.
        const response = await h.agent.request('session/prompt', {
          sessionId,
          prompt: [
            { type: 'text', text: '[scenario:text] look at this' },
            { type: 'image', mimeType: 'image/png', data: 'iVBORw0KGgo=' },
            { type: 'resource', resource: { uri: 'file:///tmp/a.ts', text: 'export const a = 1;\n', mimeType: 'text/x-typescript' } },
            { type: 'resource_link', uri: 'file:///tmp/b.ts', name: 'b.ts' },
          ],
        });
        assert.equal(response.stopReason, 'end_turn');
        const sent = h.simRecord().received.find((m) => m.method === 'session/send') as { params: { content: string; attachments?: unknown[] } };
        assert.equal(sent.params.attachments?.length, 1, 'the image went to zcode as an attachment');
        assert.match(sent.params.content, /export const a = 1;/);
        assert.match(sent.params.content, /\[b\.ts\]\(file:\/\/\/tmp\/b\.ts\)/);

        // list / resume / load / close.
        const { sessions } = await h.agent.request('session/list', { cwd: WORKSPACE });
        assert.ok(sessions.length >= 1);
        await h.agent.request('session/resume', { sessionId, cwd: WORKSPACE });
        await h.agent.request('session/load', { sessionId, cwd: WORKSPACE, mcpServers: [] });
        await h.agent.request('session/close', { sessionId });

        // No elicitation capability declared → questions come as permission dialogs, never forms;
        // no `_meta.terminal_output` → shell output as text content, no terminal meta.
        const s2 = await newSession(h);
        h.onPermission = async (params) => ({ outcome: { outcome: 'selected', optionId: params.options[0].optionId } });
        assert.equal((await prompt(h, s2, '[scenario:questions]')).stopReason, 'end_turn');
        assert.ok(h.dialogs.length >= 2);
        assert.ok(h.dialogs.every((d) => d.method === 'session/request_permission'));
        assert.equal((await prompt(h, s2, '[scenario:bash]')).stopReason, 'end_turn');
        const raw = JSON.stringify(h.updatesOf(s2));
        assert.ok(!raw.includes('terminal_output') && !raw.includes('"terminal"'), 'no terminal content for a client without terminal_output');
      });
    });

    test('conformance 3: unknown request → -32601, unknown notification ignored, bad params → -32602, unknown session → -32002 with the id', T, async () => {
      await withHarness(mode, {}, async (h) => {
        const unknown = await errorOf(h.agent.request('_nobody/knows', {}));
        assert.equal(unknown.code, -32601);
        // The unstable fork is not advertised to a client that did not ask for it: not found.
        const unadvertised = await errorOf(h.agent.request('session/fork' as never, { sessionId: 'x', cwd: '/tmp', mcpServers: [] } as never));
        assert.equal(unadvertised.code, -32601, 'an unadvertised method is not found');
        await h.agent.notify('_nobody/cares', { x: 1 });
        await h.agent.notify('session/cancel', { sessionId: 'no-such-session' });
        const bad = await errorOf(h.agent.request('session/prompt', { sessionId: 42 } as never));
        assert.equal(bad.code, -32602);
        const relative = await errorOf(h.agent.request('session/new', { cwd: 'relative/dir', mcpServers: [] }));
        assert.equal(relative.code, -32602);
        for (const call of [
          () => prompt(h, 'no-such-session', 'hi'),
          () => h.agent.request('session/set_mode', { sessionId: 'no-such-session', modeId: 'plan' }),
          () => h.agent.request('session/set_config_option', { sessionId: 'no-such-session', configId: 'mode', value: 'plan' }),
          () => h.agent.request('session/load', { sessionId: 'sess_doesnotexist', cwd: '/tmp', mcpServers: [] }),
          () => h.agent.request('session/resume', { sessionId: 'sess_doesnotexist', cwd: '/tmp' }),
        ]) {
          const error = await errorOf(call());
          assert.equal(error.code, -32002);
          assert.match(JSON.stringify(error.data), /no-such-session|sess_doesnotexist/);
        }
        // The connection still works after all that.
        assert.equal((await prompt(h, await newSession(h), '[scenario:text]')).stopReason, 'end_turn');
      });
    });

    test('a cwd with NUL or a line break, that does not exist, or that is a regular file, gets -32602 naming it on new/load/resume', T, async () => {
      await withHarness(mode, {}, async (h) => {
        const file = fileURLToPath(import.meta.url);
        const missing = path.join(WORKSPACE, 'no-such-dir');
        const sessionId = await newSession(h);
        for (const cwd of ['/tmp/a\u0000b', '/tmp/line\nbreak', file, missing, path.join(file, 'sub')]) {
          for (const call of [
            () => h.agent.request('session/new', { cwd, mcpServers: [] }),
            () => h.agent.request('session/load', { sessionId, cwd, mcpServers: [] }),
            () => h.agent.request('session/resume', { sessionId, cwd }),
          ]) {
            const error = await errorOf(call());
            assert.equal(error.code, -32602);
            assert.ok(JSON.stringify(error.data).includes(JSON.stringify(cwd).slice(1, -1)), `names ${JSON.stringify(cwd)}`);
            assert.ok(error.message.includes(JSON.stringify(cwd).slice(1, -1)) || error.message.includes(cwd), `the message names ${JSON.stringify(cwd)}: ${error.message}`);
          }
        }
        assert.equal((await prompt(h, sessionId, '[scenario:text]')).stopReason, 'end_turn');
      });
    });

    test('conformance 4: session/cancel mid-turn, before the first update and during a permission; the next prompt gets exactly one stop reason', T, async () => {
      await withHarness(mode, {}, async (h) => {
        const sessionId = await newSession(h);

        // (a) mid-turn: updates are flushed, then `cancelled`, then nothing more.
        const running = prompt(h, sessionId, '[scenario:long]');
        await h.waitFor('the first chunk', () => h.updatesOf(sessionId).some((u) => u.sessionUpdate === 'agent_message_chunk' || u.sessionUpdate === 'agent_thought_chunk'));
        await h.agent.notify('session/cancel', { sessionId });
        assert.equal((await running).stopReason, 'cancelled');
        const countAtResponse = h.updatesOf(sessionId).length;
        await caughtUp(h);
        assert.equal(h.updatesOf(sessionId).length, countAtResponse, 'no update after the cancelled response');
        const cards = h.updatesOf(sessionId).filter((u) => u.sessionUpdate === 'tool_call' || u.sessionUpdate === 'tool_call_update');
        const open = new Map<string, string>();
        for (const u of cards) if ('status' in u && u.status) open.set(u.toolCallId, u.status);
        assert.ok([...open.values()].every((s) => s === 'completed' || s === 'failed'), 'no card is left spinning');

        // (b) cancel before the first update.
        const early = prompt(h, sessionId, '[scenario:long]');
        await h.agent.notify('session/cancel', { sessionId });
        assert.equal((await early).stopReason, 'cancelled');

        // (c) cancel while a permission dialog is open: the dialog is withdrawn, zcode gets a deny.
        h.onPermission = neverAnswer();
        const asking = prompt(h, sessionId, '[scenario:permission]');
        const dialog = await h.dialog(1);
        await h.agent.notify('session/cancel', { sessionId });
        assert.equal((await asking).stopReason, 'cancelled');
        await h.waitFor('the dialog to be withdrawn', () => dialog.signal.aborted);
        // zcode may end the turn on the stop before the decline reaches it: wait for the reply.
        const replies = () => h.simRecord().received.filter((m) => 'result' in m && typeof (m.result as { decision?: unknown })?.decision === 'string');
        await h.waitFor('the decline to reach zcode', () => replies().length > 0);
        assert.deepEqual(replies().at(-1)?.result, { decision: 'deny', reason: 'cancelled by user' });

        // (d) the next prompt works and gets exactly one stop reason.
        h.onPermission = async (params) => ({ outcome: { outcome: 'selected', optionId: params.options[0].optionId } });
        const before = h.updatesOf(sessionId).length;
        const next = await prompt(h, sessionId, '[scenario:text] after the cancels');
        assert.equal(next.stopReason, 'end_turn');
        assert.match(agentText(h.updatesOf(sessionId).slice(before)), /greet/);
        const ids = requestIds(h, 'session/prompt');
        assert.equal(ids.length, 4);
        for (const id of ids) assert.equal(h.traffic.sent.filter((m) => !('method' in m) && 'id' in m && m.id === id).length, 1, 'one response per prompt');
      });
    });

    test('conformance 5: $/cancel_request on a prompt gives a valid response or -32800, never -32603', T, async () => {
      await withHarness(mode, {}, async (h) => {
        const sessionId = await newSession(h);
        const controller = new AbortController();
        const running = prompt(h, sessionId, '[scenario:long]', controller.signal);
        await h.waitFor('the first chunk', () => h.updatesOf(sessionId).length > 1);
        controller.abort();
        try {
          assert.equal((await running).stopReason, 'cancelled');
        } catch (error) {
          assert.equal((error as { code?: number }).code, -32800);
        }
        assert.ok(!h.traffic.errors().some((e) => e.code === -32603), 'no -32603 anywhere');
        const cancelRequests = h.traffic.entries.filter((e) => e.dir === 'in' && 'method' in e.msg && e.msg.method === '$/cancel_request');
        assert.equal(cancelRequests.length, 1);
        assert.equal((await prompt(h, sessionId, '[scenario:text]')).stopReason, 'end_turn');
      });
    });

    test('conformance 6: a second prompt while one runs is queued (FIFO, advertised in initialize _meta)', T, async () => {
      await withHarness(mode, { initialize: false }, async (h) => {
        const init = (await h.initialize()) as { _meta?: { zcode?: { promptQueue?: { policy?: string } } } };
        assert.equal(init._meta?.zcode?.promptQueue?.policy, 'fifo');
        const sessionId = await newSession(h);
        const first = prompt(h, sessionId, '[scenario:long]');
        await h.waitFor('the first turn to start', () => h.updatesOf(sessionId).length > 1);
        const second = prompt(h, sessionId, '[scenario:text] second');
        const [a, b] = await Promise.all([first, second]);
        assert.equal(a.stopReason, 'end_turn');
        assert.equal(b.stopReason, 'end_turn');
        const [id1, id2] = requestIds(h, 'session/prompt');
        const sent = h.traffic.sent;
        const firstResponse = responseIndex(sent, id1);
        const textOf = (list: AnyMessage[]): string =>
          list
            .map((m) => ('method' in m && m.method === 'session/update' ? (m.params as { update: { sessionUpdate: string; content?: { text?: string } } }).update : undefined))
            .filter((u) => u?.sessionUpdate === 'agent_message_chunk')
            .map((u) => u?.content?.text ?? '')
            .join('');
        assert.ok(firstResponse !== -1);
        assert.doesNotMatch(textOf(sent.slice(0, firstResponse)), /greet/, 'nothing of the second turn before the first one ended');
        assert.match(textOf(sent.slice(firstResponse)), /greet/);
        assert.ok(responseIndex(sent, id2) > firstResponse);
        const busy = h.simRecord().received.filter((m) => m.method === 'session/send');
        assert.equal(busy.length, 2, 'zcode never saw an overlapping send');
      });
    });

    test('conformance 7: session/load streams the whole history before responding; session/resume streams none', T, async () => {
      const stateDir = mkdtempSync(path.join(tmpdir(), 'zcode-sim-state-'));
      const storeDir = mkdtempSync(path.join(tmpdir(), 'zcode-acp-store-'));
      try {
        let sessionId = '';
        await withHarness(mode, { sim: { stateDir }, storeDir }, async (h) => {
          sessionId = await newSession(h);
          assert.equal((await prompt(h, sessionId, '[scenario:reasoning]')).stopReason, 'end_turn');
          assert.equal((await prompt(h, sessionId, '[scenario:tools]')).stopReason, 'end_turn');
        });
        await withHarness(mode, { sim: { stateDir }, storeDir }, async (h) => {
          await h.agent.request('session/load', { sessionId, cwd: WORKSPACE, mcpServers: [] });
          const [loadId] = requestIds(h, 'session/load');
          const sent = h.traffic.sent;
          const before = sent.slice(0, responseIndex(sent, loadId)).filter((m) => 'method' in m && m.method === 'session/update');
          const kinds = new Set(before.map((m) => (m as { params: { update: { sessionUpdate: string } } }).params.update.sessionUpdate));
          for (const kind of ['user_message_chunk', 'agent_message_chunk', 'agent_thought_chunk', 'tool_call', 'plan']) assert.ok(kinds.has(kind), `replay has ${kind}`);
          const toolCalls = before.map((m) => (m as { params: { update: Record<string, unknown> } }).params.update).filter((u) => u.sessionUpdate === 'tool_call');
          assert.ok(toolCalls.every((u) => typeof u.kind === 'string' && typeof u.title === 'string' && u.title !== ''));
          assert.ok(toolCalls.some((u) => u.kind === 'read') && toolCalls.some((u) => u.kind === 'search') && toolCalls.some((u) => u.kind === 'fetch'));
        });
        await withHarness(mode, { sim: { stateDir }, storeDir }, async (h) => {
          await h.agent.request('session/resume', { sessionId, cwd: WORKSPACE });
          const [resumeId] = requestIds(h, 'session/resume');
          const sent = h.traffic.sent;
          const before = sent.slice(0, responseIndex(sent, resumeId)).filter((m) => 'method' in m && m.method === 'session/update');
          assert.equal(before.length, 0, 'resume streams no history');
          // …and the resumed session keeps working.
          assert.equal((await prompt(h, sessionId, '[scenario:text]')).stopReason, 'end_turn');
        });
      } finally {
        rmSync(stateDir, { recursive: true, force: true });
        rmSync(storeDir, { recursive: true, force: true });
      }
    });

    test('conformance 8: set_config_option returns the full list; unknown id/value → -32602; backend changes are announced', T, async () => {
      await withHarness(mode, {}, async (h) => {
        const sessionId = await newSession(h);
        const { configOptions } = await h.agent.request('session/set_config_option', { sessionId, configId: 'mode', value: 'plan' });
        assert.deepEqual(configOptions.map((o: SessionConfigOption) => o.id), ['mode', 'model', 'thought_level']);
        assert.equal(configOptions.find((o: SessionConfigOption) => o.id === 'mode')?.currentValue, 'plan');
        const level = await h.agent.request('session/set_config_option', { sessionId, configId: 'thought_level', value: 'max' });
        assert.equal(level.configOptions.find((o: SessionConfigOption) => o.id === 'thought_level')?.currentValue, 'max');
        const model = await h.agent.request('session/set_config_option', { sessionId, configId: 'model', value: 'GLM-4.6' });
        assert.equal(model.configOptions.find((o: SessionConfigOption) => o.id === 'model')?.currentValue, 'GLM-4.6');
        assert.equal((await errorOf(h.agent.request('session/set_config_option', { sessionId, configId: 'colour', value: 'red' }))).code, -32602);
        assert.equal((await errorOf(h.agent.request('session/set_config_option', { sessionId, configId: 'mode', value: 'turbo' }))).code, -32602);
        assert.equal((await errorOf(h.agent.request('session/set_mode', { sessionId, modeId: 'turbo' }))).code, -32602);
        assert.deepEqual(await h.agent.request('session/set_mode', { sessionId, modeId: 'plan' }), {});
        // zcode switches to build itself when the plan is approved: announced to the client.
        h.onForm = async () => ({ action: 'accept', content: { feedback: '' } });
        h.onPermission = async () => ({ outcome: { outcome: 'selected', optionId: 'approve' } });
        const before = h.updatesOf(sessionId).length;
        assert.equal((await prompt(h, sessionId, '[scenario:plan]')).stopReason, 'end_turn');
        const after = h.updatesOf(sessionId).slice(before);
        assert.ok(after.some((u) => u.sessionUpdate === 'current_mode_update' && u.currentModeId === 'build'));
        const announced = after.find((u) => u.sessionUpdate === 'config_option_update');
        assert.ok(announced && announced.sessionUpdate === 'config_option_update');
        assert.equal(announced.configOptions.find((o) => o.id === 'mode')?.currentValue, 'build');
      });
    });

    test('conformance 9: permission options round-trip; a cancelled outcome ends the turn as cancelled', T, async () => {
      await withHarness(mode, {}, async (h) => {
        const sessionId = await newSession(h);
        const chosen: string[] = [];
        // Seed builds: ids allow / allow_always / deny; current builds: allow_once / allow_always / reject_once,
        // each with its own `response`. zcode's options are offered as they are, in its order.
        const expectedIds = currentEra() ? ['allow_once', 'allow_always', 'reject_once'] : ['allow', 'allow_always', 'deny'];
        for (const kind of ['allow_once', 'allow_always', 'reject_once']) {
          h.onPermission = async (params) => {
            assert.deepEqual(
              params.options.map((o) => [o.optionId, o.kind]),
              [
                [expectedIds[0], 'allow_once'],
                [expectedIds[1], 'allow_always'],
                [expectedIds[2], 'reject_once'],
              ],
            );
            assert.equal(params.sessionId, sessionId);
            assert.equal(params.toolCall.kind, 'execute');
            const optionId = params.options.find((o) => o.kind === kind)!.optionId;
            chosen.push(optionId);
            return { outcome: { outcome: 'selected', optionId } };
          };
          assert.equal((await prompt(h, sessionId, '[scenario:permission]')).stopReason, 'end_turn');
        }
        const replies = h.simRecord().received.filter((m) => 'result' in m && typeof (m.result as { decision?: unknown })?.decision === 'string').map((m) => m.result);
        if (currentEra()) {
          // The chosen option's own response goes back unchanged, so "always" keeps its rule and sticks:
          // the third prompt runs the same command without asking again.
          assert.deepEqual(chosen, ['allow_once', 'allow_always']);
          assert.deepEqual(replies, [
            { decision: 'allow' },
            { decision: 'allow', permissionUpdates: [{ type: 'addRules', behavior: 'allow', rules: [{ toolName: 'Bash', ruleContent: 'npm test' }] }] },
          ]);
        } else {
          assert.deepEqual(replies, [{ decision: 'allow' }, { decision: 'allow' }, { decision: 'deny', reason: 'rejected (deny)' }]);
          h.onPermission = async () => ({ outcome: { outcome: 'cancelled' } });
          assert.equal((await prompt(h, sessionId, '[scenario:permission]')).stopReason, 'cancelled');
        }
        assert.equal((await prompt(h, sessionId, '[scenario:text]')).stopReason, 'end_turn');
      });
    });

    test('conformance 9b: a cancelled permission ends the turn as cancelled (a fresh session, nothing allowed yet)', T, async () => {
      await withHarness(mode, {}, async (h) => {
        const sessionId = await newSession(h);
        h.onPermission = async () => ({ outcome: { outcome: 'cancelled' } });
        assert.equal((await prompt(h, sessionId, '[scenario:permission]')).stopReason, 'cancelled');
        const decisions = () => h.simRecord().received.filter((m) => 'result' in m && typeof (m.result as { decision?: unknown })?.decision === 'string').map((m) => m.result);
        // The prompt may answer before the simulator has recorded the reply it got: wait (bounded) for a
        // recorded reply, then check it is the only one and what it says.
        for (let i = 0; i < 100 && decisions().length === 0; i++) await new Promise((r) => setTimeout(r, 20));
        assert.deepEqual(decisions(), [{ decision: 'deny', reason: 'cancelled by user' }]);
      });
    });

    test('conformance 10: every outgoing message validates against the ACP schema', T, async () => {
      await withHarness(mode, { caps: { elicitation: { form: {} }, _meta: { terminal_output: true } } }, async (h) => {
        const sessionId = await newSession(h);
        h.onForm = async (params) =>
          JSON.stringify(params).includes('"feedback"') ? { action: 'accept', content: { feedback: '' } } : { action: 'accept', content: { q_0: 'Go', q_1: ['Lint'] } };
        for (const scenario of ['text', 'reasoning', 'tools', 'edit', 'bash', 'bash-fail', 'todo', 'title', 'usage', 'subagent', 'permission', 'questions', 'plan', 'fail']) {
          await prompt(h, sessionId, `[scenario:${scenario}]`).catch(() => undefined);
        }
        await h.agent.request('session/load', { sessionId, cwd: WORKSPACE, mcpServers: [] });
        await h.agent.request('session/list', {});
        assert.ok(h.traffic.sent.length > 100, `validated ${h.traffic.sent.length} messages`);
        h.traffic.assertClean();
      });
    });

    if (mode === 'stdio') {
      test('conformance 11: in stdio mode stdout carries nothing but ACP messages (logs go to stderr)', T, async () => {
        await withHarness(mode, { sim: { quirks: ['noise'] } }, async (h) => {
          const sessionId = await newSession(h);
          await prompt(h, sessionId, '[scenario:bash]');
          await prompt(h, sessionId, '[scenario:fail]').catch(() => undefined);
          assert.deepEqual(h.traffic.violations, []);
          assert.ok(h.traffic.sent.length > 10);
          assert.match(h.stderr, /\[zcode-acp\] (info|debug)/, 'logs went to stderr');
          assert.match(h.stderr, /zcode-sim/, "zcode's stderr went to our stderr, not stdout");
        });
      });
    }
  });
}

