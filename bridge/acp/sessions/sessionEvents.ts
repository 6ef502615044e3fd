/**
 * The outbound event pipe of the ACP sessions: zcode's events in, ACP updates and translator
 * signals out.
 * - Events are routed by zcode session id to their runtime (the session table's, sessionTable.ts),
 *   de-duplicated by `seq` (a re-subscribe with `afterSeq` may replay), translated
 *   (translation.ts), and broadcast under every alias of the runtime; streaming text is merged
 *   while zcode delivers a burst (updateSink.ts).
 * - Turn signals go to the listeners (`onSignal`: turns.ts, signals.ts, the extension methods).
 * - `holdEvents` keeps a session's later events behind the response of the prompt whose turn ended.
 */
import type { ClientCapabilities, SessionUpdate } from '@agentclientprotocol/sdk';
import type { Disposable, ZcodeBackend } from '../../zcode/backend.ts';
import type { Logger } from '../../logger.ts';
import { Emitter } from '../../zcode/emitter.ts';
import type { ZcodeEvent } from '../../zcode/protocol.ts';
import type { ClientRegistry } from '../transport/clients.ts';
import { supportsTerminalOutput } from '../transport/clients.ts';
import { UpdateSink } from '../turns/updateSink.ts';
import { setTerminalOutput, translate } from '../translation.ts';
import type { TurnSignal } from '../translation.ts';
import type { SessionRuntime } from './sessionRuntime.ts';

export class SessionEvents implements Disposable {
  private readonly signals: Emitter<{ runtime: SessionRuntime; signal: TurnSignal }>;
  /** Every translator signal, with its runtime (turns.ts, extension methods). */
  readonly onSignal;
  private readonly subscriptions: Disposable[];

  constructor(
    backend: ZcodeBackend,
    private readonly clients: ClientRegistry,
    /** The session table's runtimes by zcode id (it owns them; read here). */
    private readonly runtimes: ReadonlyMap<string, SessionRuntime>,
    private readonly logger: Logger,
  ) {
    this.signals = new Emitter('sessions.onSignal', logger);
    this.onSignal = this.signals.event;
    this.subscriptions = [
      backend.onEvent((event) => this.handleEvent(event)),
      // The end of a burst of zcode events: the text merged during it goes out (updateSink.ts).
      backend.onDidDrainEvents(() => this.flush()),
      // Before the turn engine fails the running prompts: their streamed text goes out first.
      backend.onDidExit(() => this.flush()),
      // A client initializing or leaving may change the merged `_meta.terminal_output`.
      clients.onDidChange(() => this.syncTerminalOutput()),
    ];
  }

  /** Gives a new runtime its way out: every update goes to every client under each of its aliases. */
  attachSink(runtime: SessionRuntime): void {
    const aliases = runtime.aliases;
    runtime.sink = new UpdateSink((update) => {
      for (const sessionId of aliases) this.clients.broadcast('session/update', { sessionId, update });
    });
  }

  /**
   * Broadcast updates under every alias of the runtime, at once. Only the updates of zcode's own
   * events are merged (`handleRuntimeEvent`, until the burst ends): nothing else would end the wait.
   */
  emit(runtime: SessionRuntime, updates: readonly SessionUpdate[]): void {
    for (const update of updates) runtime.sink.push(update);
    runtime.sink.flush();
  }

  /**
   * An update whose shape depends on what each client can show (notices.ts), under every alias of
   * the runtime; the text held before it goes out first.
   */
  emitPerClient(runtime: SessionRuntime, updateFor: (capabilities: ClientCapabilities | undefined) => SessionUpdate): void {
    runtime.sink.flush();
    for (const sessionId of runtime.aliases) this.clients.broadcastEach('session/update', (client) => ({ sessionId, update: updateFor(client.capabilities) }));
  }

  /** Send any held text now: before a response, a client request or a notification that must follow it. */
  flush(runtime?: SessionRuntime): void {
    if (runtime) runtime.sink.flush();
    else for (const r of this.runtimes.values()) if (r.sink.holding) r.sink.flush();
  }

  /** Fire a signal as if the translator had produced it (the turn engine's synthetic ones). */
  fireSignal(runtime: SessionRuntime, signal: TurnSignal): void {
    this.signals.fire({ runtime, signal });
  }

  /**
   * Hold the session's next events until `release()` is called: what zcode sends after a turn's
   * end waits until the prompt that turn answered has its response written (turns.ts), so that a
   * client never sees the session's later updates before the response that ended the turn. Events
   * of other sessions flow on, and so do zcode's responses (nothing awaited can deadlock on this).
   * `release` is idempotent; events are then handled in the order they came.
   */
  holdEvents(runtime: SessionRuntime): () => void {
    const queue: ZcodeEvent[] = runtime.heldEvents ?? [];
    runtime.heldEvents = queue;
    return () => {
      if (runtime.heldEvents !== queue) return;
      runtime.heldEvents = undefined;
      for (let i = 0; i < queue.length; i++) {
        // A held event may end a turn and hold again: the rest queue behind it, in order.
        if (runtime.heldEvents) {
          (runtime.heldEvents as ZcodeEvent[]).unshift(...queue.slice(i));
          break;
        }
        this.handleRuntimeEvent(runtime, queue[i]);
      }
      // Released outside a burst of zcode's: nothing else would send the text they held.
      runtime.sink.flush();
    };
  }

  private handleEvent(event: ZcodeEvent): void {
    const runtime = this.runtimes.get(event.sessionId);
    if (!runtime) {
      this.logger.debug(`event ${event.type} for zcode session ${event.sessionId}, which no ACP session has open; skipped`);
      return;
    }
    if (runtime.heldEvents) return void runtime.heldEvents.push(event);
    this.handleRuntimeEvent(runtime, event);
  }

  private handleRuntimeEvent(runtime: SessionRuntime, event: ZcodeEvent): void {
    if (event.seq !== undefined) {
      // A re-subscribe with afterSeq may replay what we already handled.
      if (runtime.lastSeq !== undefined && event.seq <= runtime.lastSeq) return;
      runtime.lastSeq = event.seq;
    }
    let result;
    try {
      result = translate(runtime.translator, event);
    } catch (error) {
      this.logger.error(`translating ${event.type} failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
      return;
    }
    for (const update of result.updates) runtime.sink.push(update);
    if (result.signals.length === 0) return;
    // Signals end turns and trigger notifications: what the event produced goes out first.
    runtime.sink.flush();
    for (const signal of result.signals) this.signals.fire({ runtime, signal });
  }

  /**
   * The merged capability decides how shell output is rendered (terminal vs text). It is read when
   * a translator is created and pushed into every live translator whenever the clients change
   * (`syncTerminalOutput`): new cards follow the audience, open cards keep their form
   * (translation.ts `setTerminalOutput`).
   */
  get terminalOutput(): boolean {
    return supportsTerminalOutput(this.clients.capabilities);
  }

  private syncTerminalOutput(): void {
    const terminalOutput = this.terminalOutput;
    for (const runtime of this.runtimes.values()) {
      if (runtime.translator.terminalOutput !== terminalOutput) setTerminalOutput(runtime.translator, terminalOutput);
    }
  }

  dispose(): void {
    for (const s of this.subscriptions) s.dispose();
    this.signals.dispose();
  }
}
