/**
 * A stand-in for the ZCode desktop app on disk (docs/zcode-protocol.md "Starting zcode"): `<root>/resources/glm/zcode.cjs`
 * is a two-line wrapper that runs the simulator, so the simulator's launch check (launchCheck.mjs)
 * sees a bundled CLI and needs its provider table, exactly like the real 3.12+ CLI.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { SIM_PATH } from './sim.ts';

export interface FakeDesktopApp {
  /** `<resources>/glm/zcode.cjs` */
  cli: string;
  resources: string;
  /** The provider table, when one was laid out. */
  table: string | undefined;
}

/** `table`: where the provider table lives — next to the app (3.14 layout), beside the CLI (older), or nowhere. */
export function fakeDesktopApp(root: string, table: 'config' | 'glm' | 'none', appVersion?: string): FakeDesktopApp {
  const resources = path.join(root, 'resources');
  const glm = path.join(resources, 'glm');
  mkdirSync(glm, { recursive: true });
  const cli = path.join(glm, 'zcode.cjs');
  writeFileSync(cli, `// stand-in for the desktop app's bundled CLI\nimport(require('node:url').pathToFileURL(${JSON.stringify(SIM_PATH)}).href);\n`);
  let tableFile: string | undefined;
  if (table !== 'none') {
    const dir = table === 'config' ? path.join(resources, 'config', 'provider') : path.join(glm, 'provider');
    mkdirSync(dir, { recursive: true });
    tableFile = path.join(dir, 'zcode-builtin.json');
    writeFileSync(tableFile, JSON.stringify({ revision: 1, providers: {} }));
  }
  if (appVersion) writeFileSync(path.join(resources, 'version'), `${appVersion}\n`);
  return { cli, resources, table: tableFile };
}
