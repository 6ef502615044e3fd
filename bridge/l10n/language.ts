/**
 * The language the bridge writes its own words in, and where it comes from. One bridge has one
 * language: the one its creator chose (the VS Code extension passes `vscode.env.language`,
 * `zcode-acp` the process environment), replaced by the language a client names in ACP
 * `initialize` as `_meta.zcode.locale` (docs/acp.md "Initialize"). When several clients name one,
 * the latest `initialize` wins: the bridge has one voice for forms and options it sends to all of them.
 *
 * Texts already sent (a card's title, a form on screen) keep the language they were written in;
 * everything written afterwards follows the new one.
 */
import * as z from 'zod';
import { resolveLocale } from './messages.ts';
import type { BridgeLocale } from './messages.ts';

/** `initialize` `_meta`, as far as the language goes: anything else in it is someone else's. */
const InitializeMeta = z.object({ zcode: z.object({ locale: z.string().trim().min(1).max(64) }).partial() }).partial();

/** The language tag a client's `initialize` `_meta` names (`_meta.zcode.locale`), if any. */
export function initializeLocale(meta: unknown): string | undefined {
  const parsed = InitializeMeta.safeParse(meta);
  return parsed.success ? parsed.data.zcode?.locale : undefined;
}

export class BridgeLanguage {
  private named: BridgeLocale | undefined;

  constructor(private readonly fallback: BridgeLocale = 'en') {}

  /** The language to write in now. */
  get current(): BridgeLocale {
    return this.named ?? this.fallback;
  }

  /** A client named its language (`zh-CN`, `zh_CN.UTF-8`, `en` …; anything unknown is English). */
  clientNamed(tag: string): void {
    this.named = resolveLocale(tag);
  }
}
