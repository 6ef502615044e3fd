/**
 * First-answer-wins client requests (docs/acp.md "Several clients"): `session/request_permission`
 * and `elicitation/create` go to every eligible client; the first real answer wins and the other
 * requests are aborted, which makes the SDK send `$/cancel_request` so their dialogs close.
 *
 * - A client that errors, disconnects or *dismisses* (permission outcome `cancelled`, elicitation
 *   `cancel`) does not win while another client may still answer; when nobody is left the race
 *   ends as dismissed (if anyone dismissed) or failed.
 * - Races are kept per zcode session while open, so a client that completes `session/load` or
 *   `session/resume` later (under any alias) joins them (`join`), after its replay.
 * - Aborting the race's `signal` (turn cancelled) withdraws every request.
 */
import { RequestError } from '@agentclientprotocol/sdk';
import type { Disposable } from '../../zcode/backend.ts';
import type { Logger } from '../../logger.ts';
import type { ClientRegistry, ConnectedClient } from '../transport/clients.ts';

export type RaceResult<R> =
  | { kind: 'answered'; value: R; clientId: number }
  /** Every client that answered dismissed the dialog; `value` is the last dismissal. */
  | { kind: 'dismissed'; value: R }
  /** The race's signal fired (turn cancelled, backend gone) or it timed out. */
  | { kind: 'withdrawn'; reason: 'aborted' | 'timeout' }
  /** Nobody could be asked, or every request failed. */
  | { kind: 'failed'; error: RequestError };

export interface RaceOptions<R> {
  /** The ACP session id the request names (`params.sessionId`). */
  sessionId: string;
  /**
   * What late joiners are matched by: the zcode session (runtime), whichever ACP id (alias) a
   * client loads it under. Default: the session id.
   */
  scope?: object;
  method: string;
  params: unknown;
  signal?: AbortSignal;
  /** Which clients may be asked (e.g. only form-capable ones for `elicitation/create`). */
  eligible?: (client: ConnectedClient) => boolean;
  /** A non-answer (dialog dismissed): does not win unless nobody answers. */
  isDismissal?: (value: R) => boolean;
  timeoutMs?: number;
}

interface OpenRace {
  scope: object | string;
  join(client: ConnectedClient, sessionId: string): void;
  withdraw(): void;
}

export class RequestRaces implements Disposable {
  private readonly open = new Set<OpenRace>();

  /**
   * A client that disconnects needs no bookkeeping here: the SDK rejects its pending request when
   * the connection closes, which counts as that client failing.
   */
  constructor(
    private readonly clients: ClientRegistry,
    private readonly logger: Logger,
  ) {}

  /**
   * Re-send the open requests of a session to a client that just loaded/resumed it as `sessionId`
   * (the request then names that id: the client may know the session under another alias).
   */
  join(client: ConnectedClient, scope: object | string, sessionId: string): void {
    for (const race of [...this.open]) if (race.scope === scope) race.join(client, sessionId);
  }

  /** Number of open races for a scope (diagnostics and tests). */
  openCount(scope?: object | string): number {
    return [...this.open].filter((r) => scope === undefined || r.scope === scope).length;
  }

  run<R>(options: RaceOptions<R>): Promise<RaceResult<R>> {
    const { method, params, signal } = options;
    const eligible = options.eligible ?? (() => true);
    const isDismissal = options.isDismissal ?? (() => false);
    return new Promise<RaceResult<R>>((resolve) => {
      const asked = new Map<number, AbortController>();
      let outstanding = 0;
      let dismissal: { value: R } | undefined;
      let lastError: RequestError | undefined;
      let settled = false;
      let timer: NodeJS.Timeout | undefined;

      const finish = (result: RaceResult<R>): void => {
        if (settled) return;
        settled = true;
        this.open.delete(race);
        if (timer) clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        // Losers (and everyone, when withdrawn): `$/cancel_request`, stop waiting.
        const winner = result.kind === 'answered' ? result.clientId : undefined;
        for (const [id, controller] of asked) if (id !== winner) controller.abort();
        resolve(result);
      };
      const settleIfIdle = (): void => {
        if (settled || outstanding > 0) return;
        if (dismissal) finish({ kind: 'dismissed', value: dismissal.value });
        else finish({ kind: 'failed', error: lastError ?? noClient(method) });
      };
      const ask = (client: ConnectedClient, sessionId = options.sessionId): void => {
        if (settled || asked.has(client.id) || client.capabilities === undefined || !eligible(client)) return;
        const sent = sessionId === options.sessionId ? params : { ...(params as object), sessionId };
        const controller = new AbortController();
        asked.set(client.id, controller);
        outstanding++;
        client.connection.client
          .request<R>(method, sent, { cancellationSignal: controller.signal, stopWaitingOnCancel: true })
          .then(
            (value) => {
              outstanding--;
              if (isDismissal(value)) {
                dismissal = { value };
                settleIfIdle();
              } else {
                finish({ kind: 'answered', value, clientId: client.id });
              }
            },
            (error: unknown) => {
              outstanding--;
              if (!settled) this.logger.debug(`client #${client.id} did not answer ${method}: ${error instanceof Error ? error.message : String(error)}`);
              lastError = error instanceof RequestError ? error : new RequestError(-32603, `client #${client.id} failed to answer ${method}`);
              settleIfIdle();
            },
          );
      };
      const onAbort = (): void => finish({ kind: 'withdrawn', reason: 'aborted' });
      const race: OpenRace = { scope: options.scope ?? options.sessionId, join: ask, withdraw: onAbort };

      if (signal?.aborted) return finish({ kind: 'withdrawn', reason: 'aborted' });
      signal?.addEventListener('abort', onAbort, { once: true });
      if (options.timeoutMs !== undefined) timer = setTimeout(() => finish({ kind: 'withdrawn', reason: 'timeout' }), options.timeoutMs);
      this.open.add(race);
      for (const client of this.clients.ready) ask(client);
      settleIfIdle();
    });
  }

  /** Withdraw every open request (bridge dispose). */
  dispose(): void {
    for (const race of [...this.open]) race.withdraw();
  }
}

function noClient(method: string): RequestError {
  return new RequestError(-32603, `no connected ACP client can answer ${method}`);
}
