/**
 * Every ACP message between a test client and the bridge, seen raw (before the client's SDK parses
 * it): each message the bridge SENDS is validated against the official schema
 * (test/helpers/acpSchema.ts) — notifications and requests by method, responses by the method of
 * the request they answer — and kept for golden transcripts. A violation is recorded, and
 * `assertClean()` fails the test.
 */
import type { AnyMessage } from '@agentclientprotocol/sdk';
import { z } from 'zod';
import { AcpSchemaError, validateOutgoing } from '../../helpers/acpSchema.ts';

export interface TrafficEntry {
  /** `out`: bridge → client; `in`: client → bridge. */
  dir: 'in' | 'out';
  msg: AnyMessage;
}

/** A prompt in `_zcode/session/queue`: its line of text, the client's id of it, who sent it. */
const QUEUED_PROMPT = z.strictObject({
  text: z.string(),
  promptId: z.string().min(1).optional(),
  sentBy: z.strictObject({ clientId: z.number().int().nullable(), kind: z.string().nullable(), label: z.string().optional(), name: z.string().optional() }),
});

/** The extension notifications the bridge documents (bridge.ts): their shapes are checked too. */
const EXTENSION_NOTIFICATIONS: Record<string, z.ZodType> = {
  '_zcode/session/backgroundTasks': z.object({
    sessionId: z.string(),
    tasks: z.array(
      z.looseObject({
        id: z.string(),
        kind: z.enum(['agent', 'bash']),
        description: z.string(),
        status: z.enum(['running', 'completed', 'failed', 'cancelled']),
        startedAt: z.string().optional(),
        outputPath: z.string().optional(),
        toolCallId: z.string().optional(),
      }),
    ),
  }),
  '_zcode/session/steerState': z.strictObject({ sessionId: z.string(), state: z.enum(['queued', 'drained', 'deferred', 'removed']), queueItemId: z.string().optional(), text: z.string().optional() }),
  '_zcode/session/historyChanged': z.strictObject({ sessionId: z.string(), reason: z.enum(['rewound', 'retried']) }),
  '_zcode/agent/capabilitiesChanged': z.looseObject({
    probed: z.boolean(),
    v4: z.boolean(),
    steer: z.strictObject({ available: z.boolean(), reason: z.string().optional() }),
    modes: z.array(z.string()),
  }),
  '_zcode/session/checkpointsChanged': z.strictObject({ sessionId: z.string(), checkpointId: z.string().optional() }),
  '_zcode/session/promptStarted': z.strictObject({ sessionId: z.string(), promptId: z.string().min(1) }),
  '_zcode/session/queue': z.strictObject({ sessionId: z.string(), running: QUEUED_PROMPT.optional(), waiting: z.array(QUEUED_PROMPT) }),
};

/** Parse error, invalid request, method not found, invalid params, internal error, auth required, resource not found, cancelled. */
const ACP_ERROR_CODES: ReadonlySet<number> = new Set([-32700, -32600, -32601, -32602, -32603, -32000, -32002, -32800]);

export class Traffic {
  readonly entries: TrafficEntry[] = [];
  readonly violations: string[] = [];
  /** Client → bridge requests by id, to validate the bridge's responses. */
  private readonly clientRequests = new Map<string | number | null, string>();

  /** Feed one message (from the in-process tap or a parsed stdout line). */
  record(dir: 'in' | 'out', msg: AnyMessage): void {
    this.entries.push({ dir, msg: structuredClone(msg) });
    if (dir === 'in') {
      if ('method' in msg && 'id' in msg) this.clientRequests.set(msg.id, msg.method);
      return;
    }
    this.check(msg);
  }

  /** A raw stdout line that is not a JSON-RPC message at all (conformance 11). */
  badLine(line: string, why: string): void {
    this.violations.push(`stdout line is not an ACP message (${why}): ${line.slice(0, 300)}`);
  }

  assertClean(): void {
    if (this.violations.length > 0) throw new Error(`the bridge sent ${this.violations.length} invalid message(s):\n${this.violations.join('\n')}`);
  }

  /** Outgoing messages only. */
  get sent(): AnyMessage[] {
    return this.entries.filter((e) => e.dir === 'out').map((e) => e.msg);
  }

  /** Error responses the bridge sent, with the method they answered. */
  errors(): Array<{ method: string | undefined; code: number; message: string; data?: unknown }> {
    const out = [];
    for (const { dir, msg } of this.entries) {
      if (dir !== 'out' || !('error' in msg) || 'method' in msg) continue;
      out.push({ method: this.clientRequests.get(msg.id), ...msg.error });
    }
    return out;
  }

  /**
   * Error codes mean what ACP says (docs/acp.md "Errors"): only the codes ACP and JSON-RPC define
   * leave the bridge — zcode's own (1308, 500, -32004, -33xxx …) travel under `data.zcode` — and
   * -32000 ("authentication required") comes with the `authMethods` a client's login flow needs.
   */
  private checkCode(code: number, data: unknown, where: () => string): void {
    if (!ACP_ERROR_CODES.has(code)) this.violations.push(`error code ${code} is not an ACP / JSON-RPC code (zcode's codes go under data.zcode): ${where()}`);
    const authMethods = typeof data === 'object' && data !== null ? (data as { authMethods?: unknown }).authMethods : undefined;
    if (code === -32000 && !(Array.isArray(authMethods) && authMethods.length > 0)) this.violations.push(`-32000 (authentication required) without data.authMethods: ${where()}`);
  }

  private check(msg: AnyMessage): void {
    const where = (): string => JSON.stringify(msg).slice(0, 400);
    if ((msg as { jsonrpc?: unknown }).jsonrpc !== '2.0') this.violations.push(`missing "jsonrpc":"2.0": ${where()}`);
    try {
      if ('method' in msg) {
        const part = 'id' in msg ? 'request' : 'notification';
        const shape = EXTENSION_NOTIFICATIONS[msg.method];
        if (shape && part === 'notification') {
          const parsed = shape.safeParse(msg.params);
          if (!parsed.success) this.violations.push(`${msg.method}: ${z.prettifyError(parsed.error)}: ${where()}`);
        } else if (msg.method.startsWith('_') && part === 'notification') {
          this.violations.push(`undocumented extension notification ${msg.method}: ${where()}`);
        } else {
          validateOutgoing(msg.method, msg.params, part);
        }
        return;
      }
      const method = this.clientRequests.get(msg.id);
      if ('error' in msg) {
        const e = msg.error as { code?: unknown; message?: unknown; data?: unknown };
        if (!Number.isInteger(e.code) || typeof e.message !== 'string') this.violations.push(`malformed error response: ${where()}`);
        else this.checkCode(e.code as number, e.data, where);
        return;
      }
      if (method === undefined) {
        this.violations.push(`response to an unknown request id ${JSON.stringify(msg.id)}: ${where()}`);
        return;
      }
      validateOutgoing(method, msg.result, 'response');
    } catch (error) {
      this.violations.push(error instanceof AcpSchemaError ? `${error.message}` : `${String(error)}: ${where()}`);
    }
  }
}
