/**
 * The first hour of the chat's host side: the `/` menu reaches a chat that switches to its session
 * late, a failed send gives the text back, and a retried turn shows its answer once with the retry
 * as a status line. (That a form never moves the user's side bar is the e2e firstHour suite's: the
 * chat has no way to reveal itself any more.)
 */
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import type { SessionConfigOption, SessionInfo, SessionNotification } from '@agentclientprotocol/sdk';
import {
  DidChangeSnapshotNotification,
  DidPatchNotification,
  DidRestoreDraftNotification,
  PrepareSessionCommand,
  ReadyCommand,
  SendPromptCommand,
  type IpcCommand,
  type IpcMessage,
} from '../../../../webview-ui/contract.ts';
import type { ChatSnapshot } from '../../../../webview-ui/viewModel.ts';
import { applyTranscriptOps, itemList, type ChatPatch } from '../../../../webview-ui/transcriptOps.ts';
import { ChatController, type ChatEnvironment, type ChatSessions } from '../../../../extension/chat/chatController.ts';
import { Emitter } from '../../../helpers/emitter.ts';
import { FakeHost } from './fakeHost.ts';

/**
 * Sessions like ClientSessions: `newSession` gets the id from the bridge, and the bridge's menu
 * for it arrives before the session becomes active (the workspace-state write in between).
 */
class FakeSessions implements ChatSessions {
  activeSessionId: string | undefined;
  private readonly active = new Emitter<string | undefined>();
  onDidChangeActiveSession = this.active.event;
  onDidChangeConfigOptions = new Emitter<{ sessionId: string; configOptions: readonly SessionConfigOption[] }>().event;
  onWillLoadSession = new Emitter<string>().event;
  constructor(private readonly host: FakeHost) {}
  configOptions(): undefined {
    return undefined;
  }
  title(): undefined {
    return undefined;
  }
  async newSession(): Promise<string> {
    const id = 's1';
    this.host.update(id, { sessionUpdate: 'available_commands_update', availableCommands: [{ name: 'compact', description: 'Compact the conversation' }] });
    this.activeSessionId = id;
    this.active.fire(id);
    return id;
  }
  async loadSession(): Promise<void> {}
  async listSessions(): Promise<SessionInfo[]> {
    return [];
  }
  async setConfigOption(): Promise<readonly SessionConfigOption[]> {
    return [];
  }
  async fork(): Promise<string> {
    return this.newSession();
  }
  async restore(): Promise<string | undefined> {
    return undefined;
  }
}

function setup() {
  const host = new FakeHost();
  const sessions = new FakeSessions(host);
  const env: ChatEnvironment = {
    openDiff: async () => {},
    openLocation: async () => {},
    copy: async () => {},
    attachContext: async () => [],
    log: () => {},
    errorMessage: (e) => (e instanceof Error ? e.message : String(e)),
  };
  const controller = new ChatController(host, sessions, env);
  const posted: IpcMessage[] = [];
  controller.attach((m) => posted.push(m));
  const view = { list: itemList(), session: undefined as ChatSnapshot['session'] | undefined, others: [] as IpcMessage[] };
  const sync = () => {
    controller.flush();
    for (const m of posted.splice(0)) {
      if (DidChangeSnapshotNotification.is(m)) {
        const s = m.params as ChatSnapshot;
        Object.assign(view, { list: itemList(s.items.slice()), session: s.session });
      } else if (DidPatchNotification.is(m)) {
        const p = m.params as ChatPatch;
        applyTranscriptOps(view.list, p.ops);
        view.session = { ...view.session!, ...p.session };
      } else view.others.push(m);
    }
  };
  let n = 0;
  const send = <P>(cmd: IpcCommand<P>, params: P) => controller.receive({ id: `w${++n}`, method: cmd.method, params });
  send(ReadyCommand, { reason: 'start' });
  return { host, controller, view, sync, send };
}

const tick = () => new Promise((r) => setImmediate(r));

describe('chat: the first hour', () => {
  test('the / menu the bridge sends right after session/new reaches the chat that switches to the session afterwards', async () => {
    const t = setup();
    t.send(PrepareSessionCommand, {});
    await tick();
    t.sync();
    assert.equal(t.view.session?.sessionId, 's1');
    assert.deepEqual(t.view.session?.commands.map((c) => c.name), ['compact']);
    t.controller.dispose();
  });

  test('a send that fails puts the text and attachments back into the composer', async () => {
    const t = setup();
    const attachments = [{ kind: 'file' as const, id: 'f', name: 'a.ts', uri: 'file:///w/a.ts' }];
    t.send(SendPromptCommand, { text: 'Explain a.ts', attachments });
    await tick();
    t.host.prompts[0].reject(new Error('rate limited'));
    await tick();
    t.sync();
    const restored = t.view.others.find((m) => DidRestoreDraftNotification.is(m));
    assert.deepEqual(restored?.params, { text: 'Explain a.ts', attachments });
    t.controller.dispose();
  });

  test('a retried turn shows the answer once; the retry is one status line of the turn', async () => {
    const t = setup();
    t.send(SendPromptCommand, { text: 'go', attachments: [] });
    await tick();
    const retry = (attempt: number): SessionNotification['update'] => ({
      sessionUpdate: 'agent_thought_chunk',
      content: { type: 'text', text: `retrying (attempt ${attempt} of 2)` },
      _meta: { zcode: { notice: { kind: 'retrying', text: `zcode's turn failed (rate limit); retrying (attempt ${attempt} of 2)…` } } },
    });
    t.host.update('s1', { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'Working on it' } });
    t.host.update('s1', retry(1));
    t.host.update('s1', { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'Working on it' } });
    t.host.update('s1', retry(2));
    t.host.update('s1', { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'Working on it, done.' } });
    t.host.prompts[0].resolve({ stopReason: 'end_turn' });
    await tick();
    t.sync();
    assert.deepEqual(
      t.view.list.items.map((i) => [i.type, 'text' in i ? i.text : 'title' in i ? i.title : '']),
      [
        ['user', 'go'],
        ['notice', "zcode's turn failed (rate limit); retrying (attempt 2 of 2)…"],
        ['agent', 'Working on it, done.'],
      ],
    );
    t.controller.dispose();
  });
});

describe('chat: the action of a failed turn', async () => {
  const { failureAction } = await import('../../../../extension/chat/failureAction.ts');
  const { RequestError } = await import('@agentclientprotocol/sdk');
  test('a captcha or a plan the editor cannot use: the desktop app; a rejected key: the key; retryable: Retry; the rest: the logs', () => {
    const failed = (zcode: Record<string, unknown>) => new RequestError(-32603, 'failed', { zcode });
    assert.equal(failureAction(failed({ cause: 'captcha', retryable: false })), 'openDesktop');
    assert.equal(failureAction(failed({ cause: 'auth_failed', retryable: false })), 'checkApiKey');
    assert.equal(failureAction(failed({ cause: 'rate_limit', retryable: true, retries: 2 })), 'retry');
    assert.equal(failureAction(failed({ cause: 'unknown', retryable: false })), 'showLogs');
    assert.equal(failureAction(new Error('socket closed')), 'retry', 'no verdict from zcode: a retry may help');
  });
});

describe('chat: turn notices', async () => {
  const { turnNoticeOf } = await import('../../../../extension/chat/turnNotices.ts');
  test('the bridge\'s notice as a thought chunk of its own paragraph, as an ACP notice, and the older status mark', () => {
    const meta = { zcode: { status: 'retrying', notice: { kind: 'retrying', severity: 'warning', attempt: 1, of: 2, delayMs: 500 } } };
    assert.deepEqual(turnNoticeOf({ sessionUpdate: 'agent_thought_chunk', content: { type: 'text', text: '\n\nretrying in 0.5 s\n\n' }, _meta: meta }), { kind: 'retrying', text: 'retrying in 0.5 s' });
    assert.deepEqual(turnNoticeOf({ sessionUpdate: 'notice', severity: 'warning', title: 'retrying in 0.5 s', _meta: meta }), { kind: 'retrying', text: 'retrying in 0.5 s' });
    assert.deepEqual(
      turnNoticeOf({ sessionUpdate: 'agent_thought_chunk', content: { type: 'text', text: 'Waiting for zcode…' }, _meta: { zcode: { status: 'waitingForCancelledTurn', notice: { kind: 'waitingForCancelledTurn' } } } }),
      { kind: 'other', text: 'Waiting for zcode…' },
    );
    assert.deepEqual(turnNoticeOf({ sessionUpdate: 'agent_thought_chunk', content: { type: 'text', text: 'retrying…\n' }, _meta: { zcode: { status: 'retrying' } } }), { kind: 'retrying', text: 'retrying…' });
    assert.equal(turnNoticeOf({ sessionUpdate: 'agent_thought_chunk', content: { type: 'text', text: 'I think' } }), undefined, 'the model\'s own thought is not a notice');
  });
});

describe('chat: a shell permission', async () => {
  const { permissionItem } = await import('../../../../extension/chat/interactionView.ts');
  test('zcode\'s Bash input becomes a command line and its description; another tool keeps its input', () => {
    const item = permissionItem('p1', { sessionId: 's1', toolCall: { toolCallId: 't1', title: 'Run `npm test`', kind: 'execute', rawInput: { command: 'npm test', description: 'Run the test suite' } }, options: [] }, undefined);
    assert.deepEqual(item.command, { line: 'npm test', description: 'Run the test suite' });
    const other = permissionItem('p2', { sessionId: 's1', toolCall: { toolCallId: 't2', title: 'Fetch', kind: 'fetch', rawInput: { url: 'https://example.com' } }, options: [] }, undefined);
    assert.equal(other.command, undefined);
    assert.match(other.input ?? '', /example\.com/);
  });
});

describe('chat: one card for a question', async () => {
  const T = await import('../../../../extension/chat/transcript.ts');
  const I = await import('../../../../extension/chat/transcriptInteractions.ts');
  test('the questions form replaces the tool\'s card, and the tool\'s later updates do not bring it back', () => {
    const state = T.createTranscript({ sessionId: 's1' });
    T.applySessionUpdate(state, { sessionUpdate: 'tool_call', toolCallId: 'ask1', title: '2 questions', kind: 'other', status: 'pending' });
    assert.equal(state.list.items.filter((i) => i.type === 'tool').length, 1);
    I.addElicitation(state, {
      mode: 'form',
      sessionId: 's1',
      message: 'Please answer 2 question(s).',
      requestedSchema: { type: 'object', properties: {} },
      toolCallId: 'ask1',
      _meta: { zcode: { formKind: 'questions' } },
    });
    T.applySessionUpdate(state, { sessionUpdate: 'tool_call_update', toolCallId: 'ask1', status: 'completed' });
    assert.deepEqual(state.list.items.map((i) => i.type), ['elicitation']);
    T.applySessionUpdate(state, { sessionUpdate: 'tool_call', toolCallId: 'read1', title: 'Read a.ts', kind: 'read', status: 'completed' });
    assert.deepEqual(state.list.items.map((i) => i.type), ['elicitation', 'tool'], 'other tools still show');
  });
});
