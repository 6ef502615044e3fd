/**
 * Shared helpers of the extension-method / slash-command / background-task integration tests.
 * They drive the bridge through the ACP core's harness (test/integration/acp/harness.ts): the
 * official SDK `client()` app, the bridge in process, the zcode simulator as a real child process,
 * and every message the bridge sends validated against the ACP schema (Traffic).
 */
import type { PromptResponse, SessionNotification } from '@agentclientprotocol/sdk';
import type { AcpHarness, HarnessOptions } from '../acp/harness.ts';
import { withHarness } from '../acp/helpers.ts';
import { PROBE_SESSION_ID } from '../../../bridge/acp/extensions/capabilities.ts';
export { agentText, caughtUp, errorOf, newSession, prompt, sleep } from '../acp/helpers.ts';
export type { AcpHarness } from '../acp/harness.ts';

/** Client capabilities of an editor that renders zcode's own shell output as terminals. */
export const TERMINAL_CAPS = { _meta: { terminal_output: true } };

/** Run `fn` against a fresh in-process bridge + simulator; traffic and simulator must end clean. */
export function withBridge<T>(options: HarnessOptions, fn: (h: AcpHarness) => Promise<T>): Promise<T> {
  return withHarness('inproc', options, fn);
}

/** Call an extension method (`_zcode/session/*`) as a client. */
export function ext<R = Record<string, unknown>>(h: AcpHarness, method: string, params: unknown, signal?: AbortSignal): Promise<R> {
  return h.agent.request<R>(method, params, signal ? { cancellationSignal: signal } : undefined);
}

/**
 * The params of every `method` request the simulator received from the bridge, in order — except the
 * capability probe's (capabilities.ts asks a build without v4 about `session/steer` and
 * `session/rewind` for a session that cannot exist).
 */
export function zcodeCalls(h: AcpHarness, method: string): Array<Record<string, unknown>> {
  return h
    .simRecord()
    .received.filter((m) => m.method === method && 'id' in m)
    .map((m) => m.params as Record<string, unknown>)
    .filter((p) => p?.sessionId !== PROBE_SESSION_ID);
}

/** Methods the simulator received, in order (requests and notifications), leaving out the capability probe's. */
export function zcodeMethods(h: AcpHarness): string[] {
  return h
    .simRecord()
    .received.filter((m) => typeof m.method === 'string' && (m.params as { sessionId?: unknown } | undefined)?.sessionId !== PROBE_SESSION_ID)
    .map((m) => m.method as string);
}

/** The zcode session id behind an ACP session, as the bridge used it in its last `session/send`. */
export function zcodeIdOfLastSend(h: AcpHarness): string {
  const sends = zcodeCalls(h, 'session/send');
  const last = sends[sends.length - 1];
  if (!last || typeof last.sessionId !== 'string') throw new Error('no session/send recorded yet');
  return last.sessionId;
}

/** `_zcode/…` notifications of one method (optionally of one session), in order. */
export function notificationsOf<P = Record<string, unknown>>(h: AcpHarness, method: string, sessionId?: string): P[] {
  return h.notifications
    .filter((n) => n.method === method && (sessionId === undefined || (n.params as { sessionId?: string }).sessionId === sessionId))
    .map((n) => n.params as P);
}

/** Agent text of one session so far. */
export function sessionText(h: AcpHarness, sessionId: string): string {
  return h
    .updatesOf(sessionId)
    .filter((u) => u.sessionUpdate === 'agent_message_chunk')
    .map((u) => (u.sessionUpdate === 'agent_message_chunk' && u.content.type === 'text' ? u.content.text : ''))
    .join('');
}

type Update = SessionNotification['update'];
export type ToolCallUpdate = Extract<Update, { sessionUpdate: 'tool_call_update' }>;
export type ToolCall = Extract<Update, { sessionUpdate: 'tool_call' }>;

export function toolCalls(h: AcpHarness, sessionId: string): ToolCall[] {
  return h.updatesOf(sessionId).filter((u): u is ToolCall => u.sessionUpdate === 'tool_call');
}

export function toolCallUpdates(h: AcpHarness, sessionId: string, toolCallId?: string): ToolCallUpdate[] {
  return h
    .updatesOf(sessionId)
    .filter((u): u is ToolCallUpdate => u.sessionUpdate === 'tool_call_update' && (toolCallId === undefined || u.toolCallId === toolCallId));
}

/** A prompt that is running: resolves with its response, and records when it ended. */
export interface RunningPrompt {
  response: Promise<PromptResponse>;
  done: boolean;
}

export function startPrompt(h: AcpHarness, sessionId: string, text: string): RunningPrompt {
  const running: RunningPrompt = { response: undefined as unknown as Promise<PromptResponse>, done: false };
  running.response = h.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text }] }).finally(() => {
    running.done = true;
  });
  return running;
}

/** `_meta` of an ACP object as a plain record. */
export function metaOf(value: { _meta?: Record<string, unknown> | null } | undefined): Record<string, unknown> {
  return (value?._meta ?? {}) as Record<string, unknown>;
}
