/** Small helpers shared by the ACP integration tests. */
import type { PromptResponse, RequestPermissionResponse, SessionUpdate } from '@agentclientprotocol/sdk';
import { RequestError } from '@agentclientprotocol/sdk';
import { AcpHarness } from './harness.ts';
import type { HarnessOptions, Mode, TestClient } from './harness.ts';
import { testWorkspace } from '../../helpers/workspace.ts';

/** Run `fn` with a started harness; always dispose; the traffic and the simulator must be clean. */
export async function withHarness<T>(mode: Mode, options: HarnessOptions, fn: (h: AcpHarness) => Promise<T>): Promise<T> {
  const h = await AcpHarness.start(mode, options);
  try {
    const result = await fn(h);
    h.assertClean();
    return result;
  } catch (error) {
    if (process.env.ZCODE_TEST_DEBUG) process.stderr.write(`bridge log:\n${h.logger.lines.join('\n')}\n${h.stderr}\n`);
    throw error;
  } finally {
    await h.dispose();
  }
}

/** The workspace (a real temp dir) sessions are opened in unless a test names its own. */
export const WORKSPACE = testWorkspace('acp-ws');

export async function newSession(h: TestClient, cwd = WORKSPACE): Promise<string> {
  const { sessionId } = await h.agent.request('session/new', { cwd, mcpServers: [] });
  return sessionId;
}

export function prompt(h: TestClient, sessionId: string, text: string, signal?: AbortSignal): Promise<PromptResponse> {
  return h.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text }] }, signal ? { cancellationSignal: signal } : undefined);
}

/** The JSON-RPC error of a rejected request (fails when it did not reject with a RequestError). */
export async function errorOf(promise: Promise<unknown>): Promise<RequestError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof RequestError) return error;
    throw new Error(`expected a RequestError, got ${String(error)}`, { cause: error });
  }
  throw new Error('expected the request to fail');
}

/** Text of every agent_message_chunk of a list of updates. */
export function agentText(updates: readonly SessionUpdate[]): string {
  return updates
    .filter((u) => u.sessionUpdate === 'agent_message_chunk')
    .map((u) => (u.sessionUpdate === 'agent_message_chunk' && u.content.type === 'text' ? u.content.text : ''))
    .join('');
}

/** A permission answerer that waits until the dialog is withdrawn, then answers `cancelled`. */
export function neverAnswer(): (params: unknown, signal: AbortSignal) => Promise<RequestPermissionResponse> {
  return (_params, signal) =>
    new Promise((resolve) => {
      const done = (): void => resolve({ outcome: { outcome: 'cancelled' } });
      if (signal.aborted) done();
      else signal.addEventListener('abort', done, { once: true });
    });
}

/**
 * The explicit "the bridge has caught up" signal, instead of a sleep: a request the bridge answers
 * only after a round trip to zcode (`session/list`). zcode reads and answers in order (the
 * simulator records every message as it reads it), the bridge handles zcode's messages in stream
 * order and writes to this client in order; so once this resolves, every message sent before it
 * has reached zcode, and every update caused by what zcode sent before its answer has reached this
 * client. What happened by then is all that happened in response to those messages.
 */
export async function caughtUp(h: TestClient, cwd = '/tmp/zcode-acp-ws'): Promise<void> {
  await h.agent.request('session/list', { cwd });
}

export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/** Send a prompt that must end the turn; the agent text it produced. */
export async function say(h: AcpHarness, sessionId: string, text: string): Promise<string> {
  const before = agentText(h.updatesOf(sessionId)).length;
  const response = await prompt(h, sessionId, text);
  if (response.stopReason !== 'end_turn') throw new Error(`${text}: stopped with ${response.stopReason}`);
  return agentText(h.updatesOf(sessionId)).slice(before);
}

/** What zcode (the simulator) was sent as prompts, in order. */
export function sentPrompts(h: AcpHarness): string[] {
  return h.simRecord().received.filter((m) => m.method === 'session/send').map((m) => (m.params as { content: string }).content);
}

/**
 * The `session/create` requests zcode received for real sessions: the model-list draft
 * (`persistence:"deferred"`, modelDraft.ts) is not one of them.
 */
export function sessionCreates(h: { simRecord(): { received: Record<string, unknown>[] } }): Array<Record<string, unknown> & { params?: unknown }> {
  return h.simRecord().received.filter((m) => m.method === 'session/create' && (m.params as { persistence?: string } | undefined)?.persistence !== 'deferred');
}

/** The model-list drafts zcode received (`session/create {persistence:"deferred"}`). */
export function draftCreates(h: { simRecord(): { received: Record<string, unknown>[] } }): Array<Record<string, unknown> & { params?: unknown }> {
  return h.simRecord().received.filter((m) => m.method === 'session/create' && (m.params as { persistence?: string } | undefined)?.persistence === 'deferred');
}
