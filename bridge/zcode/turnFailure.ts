/**
 * The `turn.failed` error object of current builds, read at the boundary (docs/zcode-protocol.md "Events"):
 * `{type, message, stack?, code?, detail?, underlyingErrorMessage?, underlyingErrorDetail?,
 * attribution?, retryable?, data?}` (zcode's schemas), where `attribution` is `{source, reason, …}` (live)
 * (its full schema was not read). Older builds send `{code, message, cause?}`. Every field is
 * optional and read leniently: a failure must always reach the user, whatever its shape.
 */
import * as z from 'zod';

const Attribution = z
  .object({ source: z.string().optional(), reason: z.string().optional(), providerId: z.string().optional(), code: z.union([z.string(), z.number()]).optional() })
  .passthrough();

export const TurnFailureDetail = z
  .object({
    type: z.string().optional(),
    message: z.string().optional(),
    code: z.union([z.number(), z.string()]).optional(),
    detail: z.unknown().optional(),
    underlyingErrorMessage: z.string().optional(),
    underlyingErrorDetail: z.unknown().optional(),
    attribution: Attribution.optional(),
    retryable: z.boolean().optional(),
    data: z.unknown().optional(),
    cause: z.unknown().optional(),
  })
  .passthrough();
export type TurnFailureDetail = z.infer<typeof TurnFailureDetail>;

/** The error object of a `turn.failed` payload, or just its message when it has another shape. */
export function readTurnFailure(error: unknown): TurnFailureDetail {
  const parsed = TurnFailureDetail.safeParse(error);
  if (parsed.success) return parsed.data;
  return { message: typeof error === 'string' ? error : undefined };
}
