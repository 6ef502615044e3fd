// Start-up checks a current zcode CLI makes before it serves anything (docs/zcode-protocol.md "Starting zcode"), plus an
// environment dump for tests. Hooked into zcode-sim.mjs right after the command line is parsed.
//
// - ZCODE_SIM_ENV_DUMP=<file>: the simulator's whole environment is written there as JSON, so tests can
//   check what the bridge passed on (no bridge secret; the provider variables).
// - Run as a desktop-bundled CLI (the script's real path is `…/glm/zcode.cjs`, e.g. through a wrapper
//   file of that name), the simulator needs its provider table like the real 3.12+ CLI: the file named
//   by ZCODE_BUILTIN_PROVIDER_CONFIG_FILE (used as given), else one of the CLI's own two candidates
//   (`<glm>/provider/zcode-builtin.json`, `<glm>/../../../../../config/provider/zcode-builtin.json`).
//   Without one it writes zcode's one-line error (full-width colon, candidates joined by ", ") and exits 1.
import { existsSync, realpathSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';

export function runLaunchChecks(env, argv) {
  if (env.ZCODE_SIM_ENV_DUMP) writeFileSync(env.ZCODE_SIM_ENV_DUMP, JSON.stringify(env, null, 2));
  const script = argv[1] ? safeRealpath(argv[1]) : '';
  if (basename(script).toLowerCase() !== 'zcode.cjs' || basename(dirname(script)).toLowerCase() !== 'glm') return;
  const glm = dirname(script);
  const given = env.ZCODE_BUILTIN_PROVIDER_CONFIG_FILE;
  if (given) {
    if (existsSync(given)) return;
    fatal(`无法读取 CLI ZCode Built-in Provider Config：${given}`);
  }
  const candidates = [join(glm, 'provider', 'zcode-builtin.json'), resolve(glm, '..', '..', '..', '..', '..', 'config', 'provider', 'zcode-builtin.json')];
  if (candidates.some((c) => existsSync(c))) return;
  fatal(`无法定位 CLI ZCode Built-in Provider Config：${candidates.join(', ')}`);
}

function fatal(line) {
  process.stderr.write(`${line}\n`);
  process.exit(1);
}

function safeRealpath(file) {
  try {
    return realpathSync(file);
  } catch {
    return file;
  }
}
