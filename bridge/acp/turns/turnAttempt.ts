/**
 * One attempt of a turn, as zcode calls: `session/send` with the busy and eviction rules, or
 * zcode's in-place retry of a failed turn — each raced against the turn's own end, since zcode's
 * answer only says it admitted the input (turns.ts drives the attempts).
 */
import { bt } from '../../l10n/messages.ts';
import { RequestError } from '@agentclientprotocol/sdk';
import type { ZcodePrompt } from '../../translate/promptContent.ts';
import type { ZcodeBackend } from '../../zcode/backend.ts';
import type { Logger } from '../../logger.ts';
import { isNotActive } from '../requestErrors.ts';
import type { SessionManager } from '../sessions/sessionTable.ts';
import type { SessionRuntime } from '../sessions/sessionRuntime.ts';
import { retryWhileBusy } from './busyRetry.ts';
import { turnFailedError } from './turnState.ts';
import type { Outcome, PromptJob, RunningTurn } from './turnState.ts';
import type { TurnHooks, TurnTuning } from './turnTuning.ts';

/** What an attempt needs of the engine. */
export interface AttemptDeps {
  readonly backend: ZcodeBackend;
  readonly sessions: SessionManager;
  readonly hooks: TurnHooks;
  readonly logger: Logger;
  readonly tuning: TurnTuning;
}

/**
 * `session/send`, or the end of the turn if that comes first: the answer only
 * says zcode admitted the input, and the turn's own events are what end a prompt. A build that
 * answers late, never, or under another id must not hold a finished prompt for the request
 * timeout; the missing answer is logged when it finally fails (or arrives).
 */
export async function sendOrEnd(d: AttemptDeps, runtime: SessionRuntime, prompt: ZcodePrompt, job: PromptJob, turn: RunningTurn): Promise<void> {
  const sent = send(d, runtime, prompt, job, turn);
  const ended = turn.outcome.then((outcome) => outcome.kind);
  const first = await Promise.race([sent.then(() => 'acked' as const), ended]);
  // `turn.sent` was set by the answer itself, at its place in the stream (send below).
  if (first === 'acked') return;
  if (first !== 'completed' && first !== 'failed') return void sent.catch(() => undefined);
  d.logger.warn(`zcode ended the turn of ${runtime.zcodeId} before it answered session/send (the acknowledgement is missing)`);
  sent.then(
    () => d.logger.debug(`session/send of ${runtime.zcodeId} was answered after its turn had ended`),
    (error: unknown) => d.logger.warn(`session/send of ${runtime.zcodeId} was never answered: ${error instanceof Error ? error.message : String(error)}`),
  );
}

/**
 * zcode's in-place retry of the failed turn, or the end of the retried turn if that comes first
 * (as `sendOrEnd`). When zcode cannot retry in place, the failure being retried is the answer.
 */
export async function retryInPlaceOrEnd(d: AttemptDeps, runtime: SessionRuntime, turn: RunningTurn, failure: Extract<Outcome, { kind: 'failed' }>, retries: number): Promise<void> {
  const retryInPlace = d.hooks.retryTurnInPlace;
  const attempt = turn.outcome;
  const onAccepted = (): void => {
    if (turn.outcome === attempt) turn.sent = true;
  };
  const retried = retryInPlace ? retryInPlace({ sessionId: runtime.zcodeId }, { onAccepted }) : Promise.resolve(false);
  const accepted = retried.then(
    (ok) => (ok ? ('accepted' as const) : ('refused' as const)),
    (error: unknown) => {
      d.logger.warn(`zcode could not retry the failed turn of ${runtime.zcodeId} in place: ${error instanceof Error ? error.message : String(error)}`);
      return 'refused' as const;
    },
  );
  const first = await Promise.race([accepted, attempt.then(() => 'ended' as const)]);
  if (first === 'refused') throw turnFailedError(failure, retries);
}

/** `session/send` with the busy (busyRetry.ts) and eviction rules. */
async function send(d: AttemptDeps, runtime: SessionRuntime, prompt: ZcodePrompt, job: PromptJob, turn: RunningTurn): Promise<void> {
  let resumed = false;
  // Marked where zcode's answer stands in the stream: every event after it is this turn's, every
  // event before it an earlier turn's (turnState.ts), whenever this function's continuation runs.
  // A late answer to an earlier attempt (reset() gives each attempt its own outcome) is not this one's.
  const attempt = turn.outcome;
  const onAccepted = (): void => {
    if (turn.outcome === attempt) turn.sent = true;
  };
  const sendOnce = async (): Promise<void> => {
    try {
      await d.backend.send({ sessionId: runtime.zcodeId, content: prompt.content, ...(prompt.attachments.length > 0 ? { attachments: prompt.attachments } : {}) }, { onAccepted });
    } catch (error) {
      if (!isNotActive(error) || resumed) throw error;
      // Evicted after idling: resume (and re-subscribe) once, then retry.
      resumed = true;
      d.sessions.markInactive(runtime);
      await d.sessions.ensureOpen(runtime);
      await sendOnce();
    }
  };
  await retryWhileBusy(sendOnce, {
    policy: { retries: d.tuning.busyRetries, backoffMs: d.tuning.busyBackoffMs, maxBackoffMs: d.tuning.maxBackoffMs },
    wait: async (ms) => {
      if (!job.cancelled) await pause(ms, job);
      if (job.cancelled) throw RequestError.requestCancelled();
    },
    gaveUp: (attempts) => bt(d.sessions.locale, 'zcode is still busy with another prompt on this session (tried {0} times); try again when it has finished', attempts),
  });
}

/** A cancellable delay: a cancel of the job ends it early. */
export function pause(ms: number, job: PromptJob): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    const previous = job.onCancel;
    function done(): void {
      clearTimeout(timer);
      resolve();
    }
    job.onCancel = () => {
      previous?.();
      done();
    };
  });
}
