/**
 * The webview end of the contract: posts commands and requests to the host, routes the host's
 * notifications and request completions. Every request has a timeout: nothing waits forever.
 */
import { toIpcMessage, type IpcCommand, type IpcMessage, type IpcNotification, type IpcRequest, type IpcResult } from './contract.ts';

/** What `acquireVsCodeApi()` returns (injected, so tests can pass a fake). */
export interface VsCodeApi {
  postMessage(message: unknown): void;
  getState(): unknown;
  setState(state: unknown): void;
}

/** Something that delivers `message` events (the window; a fake in tests). */
export interface MessageSource {
  addEventListener(type: 'message', listener: (event: { data: unknown }) => void): void;
  removeEventListener(type: 'message', listener: (event: { data: unknown }) => void): void;
}

type Pending = { resolve(value: unknown): void; reject(error: Error): void; timer: ReturnType<typeof setTimeout> };

export class HostChannel {
  private counter = 0;
  private readonly pending = new Map<string, Pending>();
  private readonly listeners = new Set<(msg: IpcMessage) => void>();
  private readonly onMessage = (event: { data: unknown }): void => this.receive(event.data);

  constructor(
    private readonly api: VsCodeApi,
    private readonly source: MessageSource,
    private readonly requestTimeoutMs = 30_000,
  ) {
    source.addEventListener('message', this.onMessage);
  }

  /** Fire-and-forget command. */
  send<P>(command: IpcCommand<P>, params: P): void {
    this.api.postMessage({ id: this.nextId(), method: command.method, params } satisfies IpcMessage<P>);
  }

  /** Request answered by the host; rejects on the host's error, on timeout, and on dispose. */
  request<P, R>(request: IpcRequest<P, R>, params: P, timeoutMs = this.requestTimeoutMs): Promise<R> {
    const id = this.nextId();
    return new Promise<R>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new Error(`${request.method} timed out`));
      }, timeoutMs);
      this.pending.set(id, { resolve: resolve as (value: unknown) => void, reject, timer });
      this.api.postMessage({ id, method: request.method, params } satisfies IpcMessage<P>);
    });
  }

  /** Listens to host notifications; returns the unsubscribe function. */
  onNotification(listener: (msg: IpcMessage) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Typed listener for one notification. */
  on<P>(notification: IpcNotification<P>, listener: (params: P) => void): () => void {
    return this.onNotification((msg) => {
      if (notification.is(msg)) listener(msg.params);
    });
  }

  dispose(): void {
    this.source.removeEventListener('message', this.onMessage);
    for (const [, p] of this.pending) {
      clearTimeout(p.timer);
      p.reject(new Error('disposed'));
    }
    this.pending.clear();
    this.listeners.clear();
  }

  private receive(data: unknown): void {
    const msg = toIpcMessage(data);
    if (!msg) return;
    if (msg.completionId !== undefined) {
      const p = this.pending.get(msg.completionId);
      if (!p) return;
      this.pending.delete(msg.completionId);
      clearTimeout(p.timer);
      const result = msg.params as IpcResult<unknown>;
      if (result && result.ok) p.resolve(result.value);
      else p.reject(new Error(result && !result.ok ? result.error : 'request failed'));
      return;
    }
    for (const listener of [...this.listeners]) listener(msg);
  }

  private nextId(): string {
    this.counter += 1;
    return `w${this.counter}`;
  }
}
