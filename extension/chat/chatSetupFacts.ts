/**
 * What the empty chat says about the install and the workspace, whichever session it shows: zcode
 * not found (what discovery tried, extension/locate.ts), the zcode version that runs, and the first
 * prompts for this workspace (firstPrompts.ts). They outlive session switches: a fresh transcript
 * starts with them (`seed`), and each change is one patch of the session view (or none when
 * nothing changed). Plain data, no vscode.
 */
import type { SessionView } from '../../webview-ui/viewModel.ts';

export class ChatSetupFacts {
  /** zcode cannot be found (what discovery tried); undefined: found or not looked for yet. */
  private notFound: string | undefined;
  private zcodeVersion: string | undefined;
  private firstPrompts: string[] = [];

  /** The not-found state; the patch for the view, undefined when unchanged. */
  setNotFound(message: string | undefined): Partial<SessionView> | undefined {
    if (this.notFound === message) return undefined;
    this.notFound = message;
    // '' clears it: a patch field set to undefined is lost on the way to the webview.
    return { notFound: message ?? '' };
  }

  /** Which zcode runs; the patch for the view, undefined when unchanged. */
  setZcodeVersion(version: string | undefined): Partial<SessionView> | undefined {
    if (this.zcodeVersion === version) return undefined;
    this.zcodeVersion = version;
    return { zcodeVersion: version ?? '' };
  }

  /** The workspace's first prompts; the patch for the view, undefined when unchanged. */
  setFirstPrompts(prompts: readonly string[]): Partial<SessionView> | undefined {
    if (this.firstPrompts.join('\n') === prompts.join('\n')) return undefined;
    this.firstPrompts = [...prompts];
    return { firstPrompts: [...prompts] };
  }

  /** The fields a fresh transcript starts with (only those known). */
  seed(): Partial<SessionView> {
    return {
      ...(this.notFound ? { notFound: this.notFound } : {}),
      ...(this.zcodeVersion ? { zcodeVersion: this.zcodeVersion } : {}),
      ...(this.firstPrompts.length ? { firstPrompts: [...this.firstPrompts] } : {}),
    };
  }
}
