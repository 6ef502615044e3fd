// The relay floor in the real VS Code (relayFloor/, the extension): packaged as a .vsix with vsce's
// API, installed into the bench's code-server next to ZCode (loaded as the development extension),
// opened in an editor tab, and started from the bench, so `vscode.mjs` can measure it with the same
// paint probe and /proc readings as the chat, alternately in the same extension host.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createVSIX } from '@vscode/vsce';
import { runCommand } from '../e2e/ui/harness.mjs';

const FLOOR_DIR = fileURLToPath(new URL('./relayFloor/', import.meta.url));

/** Packages relayFloor/ into a temp .vsix (for openWorkbench's `vsix`); returns its path. */
export async function relayFloorVsix() {
  const packagePath = join(mkdtempSync(join(tmpdir(), 'zcode-bench-floor-')), 'relay-floor.vsix');
  await createVSIX({ cwd: FLOOR_DIR, packagePath, allowMissingRepository: true, skipLicense: true, dependencies: false });
  return packagePath;
}

/** The first frame of `page` whose document has `selector` (a Playwright Frame, to evaluate in). */
export async function frameWith(page, selector, timeout = 20_000) {
  const deadline = Date.now() + timeout;
  for (;;) {
    for (const frame of page.frames()) {
      if (await frame.evaluate((s) => document.querySelector(s) !== null, selector).catch(() => false)) return frame;
    }
    if (Date.now() > deadline) throw new Error(`no frame with ${selector}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** Opens the floor's webview tab and returns its frame. */
export async function openRelayFloor(page) {
  await runCommand(page, 'Relay Floor: Open');
  return frameWith(page, '.floor-transcript');
}

/** Streams 2 × rate deltas through the floor and waits until its webview has shown the last post. */
export async function relayFloorStream(frame, rate, timeout = 60_000) {
  await frame.evaluate((r) => window.floorStart(r), rate);
  await frame.waitForFunction(() => document.querySelector('.floor-state')?.textContent === 'done', undefined, { timeout, polling: 100 });
}
