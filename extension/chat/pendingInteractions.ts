/**
 * The bridge's permission and elicitation requests waiting for the user. Each is settled exactly
 * once: by the webview's answer, or as cancelled when the bridge withdraws it (its signal aborts:
 * another client answered first, or the turn was cancelled) or when the chat is disposed.
 */
import type { CreateElicitationResponse, RequestPermissionResponse } from '@agentclientprotocol/sdk';

type Pending =
  | { kind: 'permission'; resolve(r: RequestPermissionResponse): void; options: ReadonlySet<string> }
  | { kind: 'elicitation'; resolve(r: CreateElicitationResponse): void };

export class PendingInteractions {
  private readonly pending = new Map<string, Pending>();

  has(id: string): boolean {
    return this.pending.has(id);
  }

  /** How many requests wait for the user. */
  get size(): number {
    return this.pending.size;
  }

  /** Waits for the answer to permission card `id`; `onWithdraw` runs if the bridge aborts first. */
  permission(id: string, optionIds: readonly string[], signal: AbortSignal, onWithdraw: () => void): Promise<RequestPermissionResponse> {
    return new Promise((resolve) => {
      this.pending.set(id, { kind: 'permission', resolve, options: new Set(optionIds) });
      signal.addEventListener('abort', () => this.settle(id, onWithdraw), { once: true });
    });
  }

  /** Waits for the answer to form `id`; `onWithdraw` runs if the bridge aborts first. */
  elicitation(id: string, signal: AbortSignal, onWithdraw: () => void): Promise<CreateElicitationResponse> {
    return new Promise((resolve) => {
      this.pending.set(id, { kind: 'elicitation', resolve });
      signal.addEventListener('abort', () => this.settle(id, onWithdraw), { once: true });
    });
  }

  /** Answers a permission with one of its options (undefined = dismissed); false if not applicable. */
  answerPermission(id: string, optionId: string | undefined): boolean {
    const p = this.pending.get(id);
    if (p?.kind !== 'permission' || (optionId !== undefined && !p.options.has(optionId))) return false;
    this.pending.delete(id);
    p.resolve(optionId ? { outcome: { outcome: 'selected', optionId } } : { outcome: { outcome: 'cancelled' } });
    return true;
  }

  /** Answers a form; false if it is not waiting (answered, withdrawn, unknown). */
  answerElicitation(id: string, response: CreateElicitationResponse): boolean {
    const p = this.pending.get(id);
    if (p?.kind !== 'elicitation') return false;
    this.pending.delete(id);
    p.resolve(response);
    return true;
  }

  /** Cancels everything still waiting. */
  dispose(): void {
    for (const id of [...this.pending.keys()]) this.settle(id, () => {});
  }

  private settle(id: string, onWithdraw: () => void): void {
    const p = this.pending.get(id);
    if (!p) return;
    this.pending.delete(id);
    onWithdraw();
    if (p.kind === 'permission') p.resolve({ outcome: { outcome: 'cancelled' } });
    else p.resolve({ action: 'cancel' });
  }
}
