/**
 * A `BridgeContext` for unit tests of the extension operations: a scriptable zcode backend (each
 * method answers from `answers`, records its params), one session handle, and everything the
 * operations send recorded for assertions. The integration tests use the real bridge + simulator;
 * this fake covers what the simulator cannot produce (timeouts, exits, odd result shapes).
 */
import { CommandCatalog } from '../../../../../bridge/acp/extensions/commandCatalog.ts';
import { QuotaService } from '../../../../../bridge/acp/extensions/quota.ts';
import { ZcodeFeatures } from '../../../../../bridge/acp/extensions/capabilities.ts';
import type { SessionUpdate } from '@agentclientprotocol/sdk';
import { RequestError } from '@agentclientprotocol/sdk';
import type { BridgeContext, SessionHandle } from '../../../../../bridge/acp/context.ts';
import type { ClientRegistry } from '../../../../../bridge/acp/transport/clients.ts';
import type { TurnSignal } from '../../../../../bridge/acp/translation.ts';
import { createSessionTranslator } from '../../../../../bridge/translate/sessionTranslator.ts';
import type { SessionTranslatorState } from '../../../../../bridge/translate/sessionTranslator.ts';
import type { Disposable, ExitInfo, ZcodeBackend } from '../../../../../bridge/zcode/backend.ts';
import type { SessionSettings, ZcodeEvent } from '../../../../../bridge/zcode/protocol.ts';
import { testLogger } from '../../../../helpers/sim.ts';
import { BackendErrorCode, ZcodeError } from '../../../../../bridge/zcode/backend.ts';
import { CheckpointsResult } from '../../../../../bridge/zcode/operationShapes.ts';
import type { BridgeLocale } from '../../../../../bridge/l10n/messages.ts';

export const ACP_ID = 'lazy_test';
export const ZCODE_ID = 'sess_zcode';

type Answer = unknown | ((params: Record<string, unknown>) => unknown);

export interface FakeContext {
  ctx: BridgeContext;
  /** Backend method → answer (a value, a function of the params, or a thrown error via `fail`). */
  answers: Map<string, Answer>;
  /** Every backend call: [method name, params]. */
  calls: Array<[string, unknown]>;
  updates: Array<{ sessionId: string; updates: readonly SessionUpdate[] }>;
  notifications: Array<{ method: string; params: unknown }>;
  configPatches: Array<{ sessionId: string; patch: unknown }>;
  translator: SessionTranslatorState;
  handle: { running: boolean; settings: SessionSettings | undefined };
  /** Push a zcode event to the backend's listeners. */
  emitEvent(event: ZcodeEvent): void;
  emitExit(info?: Partial<ExitInfo>): void;
  emitSignal(signal: TurnSignal): void;
}

/** An answer that throws. */
export function fail(error: Error): (params: Record<string, unknown>) => never {
  return () => {
    throw error;
  };
}

export function fakeContext(options: { terminalOutput?: boolean; locale?: BridgeLocale } = {}): FakeContext {
  const answers = new Map<string, Answer>();
  const calls: Array<[string, unknown]> = [];
  const eventListeners = new Set<(event: ZcodeEvent) => void>();
  const exitListeners = new Set<(info: ExitInfo) => void>();
  const signalListeners = new Set<(acpId: string, signal: TurnSignal) => void>();
  const translator = createSessionTranslator({ cwd: '/work/proj', terminalOutput: options.terminalOutput ?? false });
  const handleState = { running: false, settings: undefined as SessionSettings | undefined };

  const listen = <T>(set: Set<T>, listener: T): Disposable => {
    set.add(listener);
    return { dispose: () => void set.delete(listener) };
  };

  const answer = async (method: string, params: unknown): Promise<unknown> => {
    calls.push([method, params]);
    const a = answers.get(method);
    return typeof a === 'function' ? (a as (p: Record<string, unknown>) => unknown)(params as Record<string, unknown>) : a;
  };

  const backend = {
    state: 'ready',
    onEvent: (l: (event: ZcodeEvent) => void) => listen(eventListeners, l),
    onDidExit: (l: (info: ExitInfo) => void) => listen(exitListeners, l),
    fork: (p: unknown) => answer('fork', p),
    rewind: (p: unknown) => answer('rewind', p),
    goal: (p: unknown) => answer('goal', p),
    compact: (p: unknown) => answer('compact', p),
    steer: (p: unknown) => answer('steer', p),
    cancelBackgroundTask: (p: unknown) => answer('cancelBackgroundTask', p),
    // Parsed with zcode's shape, as the real client does: junk is an InvalidResponse ZcodeError.
    checkpoints: async (p: unknown) => {
      const parsed = CheckpointsResult.safeParse(await answer('session/checkpoints', p));
      if (!parsed.success) throw new ZcodeError('zcode answered session/checkpoints with an unexpected result', BackendErrorCode.InvalidResponse, 'session/checkpoints');
      return parsed.data;
    },
    listSkills: (p: unknown) => answer('skills/referenceCatalog', p),
    listPlugins: (p: unknown) => answer('plugins/list', p),
    sessionUsage: (p: unknown) => answer('session/usage', p),
    stop: (p: unknown) => void calls.push(['stop', p]),
  } as unknown as ZcodeBackend;

  const handle: SessionHandle = {
    acpSessionId: ACP_ID,
    zcodeSessionId: ZCODE_ID,
    cwd: '/work/proj',
    translator,
    mcpServers: [],
    get settings() {
      return handleState.settings;
    },
    get running() {
      return handleState.running;
    },
  };

  const fake: FakeContext = {
    answers,
    calls,
    updates: [],
    notifications: [],
    configPatches: [],
    translator,
    handle: handleState,
    emitEvent: (event) => eventListeners.forEach((l) => l(event)),
    emitExit: (info = {}) => exitListeners.forEach((l) => l({ code: 1, signal: null, expected: false, stderrTail: '', ...info })),
    emitSignal: (signal) => signalListeners.forEach((l) => l(ACP_ID, signal)),
    ctx: {
      backend,
      logger: testLogger('ext'),
      clients: {} as ClientRegistry,
      // No zcode commands: the fake backend has no listings, and a home without zcode folders.
      commands: new CommandCatalog(backend, testLogger('commands'), '/nonexistent-home'),
      // A seed-like build (legacy steer, no v4): the v4 operations have their own integration tests.
      features: new ZcodeFeatures(
        {
          onDidChangeState: () => ({ dispose: () => undefined }),
          onDidExit: () => ({ dispose: () => undefined }),
          v4: { probe: async () => ({ present: false, reason: 'methodNotFound', detail: 'fake backend' }) },
          steer: async () => {
            throw new ZcodeError('no such session', -32602, 'session/steer');
          },
        } as unknown as ZcodeBackend,
        () => undefined,
        testLogger('features'),
      ),
      quota: new QuotaService(testLogger('quota'), { config: { file: '/nonexistent-home/.zcode/v2/config.json', readText: () => undefined } }),
      materialize: async (id) => {
        if (id !== ACP_ID) throw RequestError.sessionNotFound(id);
        return handle;
      },
      peek: (id) => (id === ACP_ID ? handle : undefined),
      sendUpdates: (sessionId, updates) => void fake.updates.push({ sessionId, updates }),
      // One session, one alias: what the bridge sends for it (a notification per alias) is one here.
      notifySession: (sessionId, notification, params) => void fake.notifications.push({ method: notification.method, params: { ...params, sessionId } }),
      applyConfig: async (sessionId, patch) => void fake.configPatches.push({ sessionId, patch }),
      onSignal: (l) => listen(signalListeners, l),
      whenIdle: async () => undefined,
      renameLocally: () => undefined,
      locale: options.locale ?? 'en',
    },
  };
  return fake;
}
