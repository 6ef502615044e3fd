/**
 * Loose, defensive parsing of values that cross into the host from the webview (typed by the
 * contract, but checked once at the boundary). The bridge's `_zcode/*` notifications are parsed by
 * their descriptors (bridge/acp/extensions/contractDescriptors.ts).
 */
import type { CreateElicitationResponse } from '@agentclientprotocol/sdk';

/** An elicitation answer from the webview: accept (with content values of the allowed types), decline or cancel. */
export function parseElicitationResponse(value: unknown): CreateElicitationResponse | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const r = value as Record<string, unknown>;
  if (r.action === 'decline' || r.action === 'cancel') return { action: r.action };
  if (r.action !== 'accept') return undefined;
  const content: Record<string, string | number | boolean | string[]> = {};
  if (typeof r.content === 'object' && r.content !== null) {
    for (const [k, v] of Object.entries(r.content)) {
      if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') content[k] = v;
      else if (Array.isArray(v) && v.every((x) => typeof x === 'string')) content[k] = v as string[];
    }
  }
  return { action: 'accept', content };
}
