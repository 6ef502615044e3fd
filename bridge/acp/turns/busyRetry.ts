/**
 * The one busy-retry rule of the bridge: zcode refuses work on a session that is busy (a turn or a
 * compaction runs: 1308 / -32010 "already running", requestErrors.ts `isBusy`); the bridge retries with a
 * doubling backoff a bounded number of times, then gives up with a clear error that keeps zcode's
 * code. Used by `session/prompt` (turns.ts) and by the `_zcode/*` rewind / compact (sessionOperations.ts).
 */
import { RequestError } from '@agentclientprotocol/sdk';
import { isBusy, toRequestError } from '../requestErrors.ts';

export interface BusyRetryPolicy {
  /** Busy answers retried before giving up. */
  retries: number;
  /** First backoff, doubled per attempt up to `maxBackoffMs`. */
  backoffMs: number;
  maxBackoffMs: number;
}

export interface BusyRetryOptions {
  policy: BusyRetryPolicy;
  /** Waits the backoff; rejects to stop retrying (e.g. the request was cancelled). */
  wait(ms: number): Promise<void>;
  /** The message once `attempts` calls were all refused as busy. */
  gaveUp(attempts: number): string;
}

/** `call`, retried while zcode answers busy; any other failure is rethrown as it is. */
export async function retryWhileBusy<T>(call: () => Promise<T>, { policy, wait, gaveUp }: BusyRetryOptions): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await call();
    } catch (error) {
      if (!isBusy(error)) throw error;
      if (attempt >= policy.retries) {
        const base = toRequestError(error);
        throw new RequestError(base.code, gaveUp(attempt + 1), base.data);
      }
      await wait(backoff(policy.backoffMs, attempt, policy.maxBackoffMs));
    }
  }
}

/** `base` doubled per attempt, at most `max`. */
export function backoff(base: number, attempt: number, max: number): number {
  return Math.min(max, base * 2 ** attempt);
}
