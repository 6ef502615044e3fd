#!/usr/bin/env node
// zcode-sim: a scripted stand-in for `zcode app-server --stdio` (see README.md next to this file).
// Entry point: parse flags/env, wire framing → connection → methods, and exit cleanly on stdin end / SIGTERM.
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Connection } from './connection.mjs';
import { LineWriter, Recorder, readLines } from './framing.mjs';
import { DEFAULT_PROFILE, PROFILES, QUIRKS, parseQuirks } from './profiles.mjs';
import { createHandlers, startTurn } from './server.mjs';
import { SessionStore } from './sessions.mjs';
import { Interactions } from './interactions.mjs';
import { HostRequests, storageStartup } from './hostRequests.mjs';
import { Ids, log, makeDelay } from './util.mjs';
import { runLaunchChecks } from './launchCheck.mjs';
import { requestGate } from './v4.mjs';

const USAGE = `usage: zcode-sim.mjs [--profile ${Object.keys(PROFILES).join('|')}] [--quirks a,b,...] app-server --stdio
       zcode-sim.mjs --version
quirks: ${Object.keys(QUIRKS).join(', ')} (prefix no- to turn one off)
env: ZCODE_SIM_PROFILE, ZCODE_SIM_QUIRKS, ZCODE_SIM_SPEED, ZCODE_SIM_RECORD, ZCODE_SIM_STATE_DIR,
     ZCODE_SIM_RESEND_MS, ZCODE_SIM_SEED, ZCODE_SIM_APPLY_EDITS`;

function fail(message) {
  process.stderr.write(`zcode-sim: ${message}\n${USAGE}\n`);
  process.exit(2);
}

/** Flags win over env. Unknown flags, profiles and quirks are errors (a typo must not pass silently). */
function parseArgs(argv, env) {
  const o = { profile: env.ZCODE_SIM_PROFILE || DEFAULT_PROFILE, quirkSpecs: [env.ZCODE_SIM_QUIRKS], positional: [], stdio: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const [flag, inline] = a.startsWith('--') && a.includes('=') ? [a.slice(0, a.indexOf('=')), a.slice(a.indexOf('=') + 1)] : [a, undefined];
    const value = () => inline ?? argv[++i];
    if (flag === '--version' || flag === '-V') o.version = true;
    else if (flag === '--help' || flag === '-h') o.help = true;
    else if (flag === '--stdio') o.stdio = true;
    else if (flag === '--profile') o.profile = value();
    else if (flag === '--quirks') o.quirkSpecs.push(value());
    else if (flag.startsWith('-')) fail(`unknown option ${a}`);
    else o.positional.push(a);
  }
  return o;
}

const args = parseArgs(process.argv.slice(2), process.env);
const profile = PROFILES[args.profile];
if (!profile) fail(`unknown profile ${JSON.stringify(args.profile)}`);
if (args.help) {
  process.stderr.write(`${USAGE}\n`);
  process.exit(0);
}
if (args.version) {
  process.stdout.write(`zcode ${profile.version}\n`);
  process.exit(0);
}
if (args.positional[0] !== 'app-server' || !args.stdio) fail('expected the command `app-server --stdio`');
runLaunchChecks(process.env, process.argv);
const { quirks, unknown } = parseQuirks(args.quirkSpecs);
if (unknown.length) fail(`unknown quirk(s): ${unknown.join(', ')}`);

const speed = process.env.ZCODE_SIM_SPEED === undefined || process.env.ZCODE_SIM_SPEED === '' ? 1 : Number(process.env.ZCODE_SIM_SPEED);
if (!Number.isFinite(speed) || speed < 0) fail(`ZCODE_SIM_SPEED must be a number >= 0 (got ${process.env.ZCODE_SIM_SPEED})`);
const config = {
  speed,
  resendMs: Number(process.env.ZCODE_SIM_RESEND_MS || 1000),
  applyEdits: process.env.ZCODE_SIM_APPLY_EDITS === '1',
  taskDir: join(tmpdir(), 'zcode-sim-tasks'),
};
const ids = new Ids(process.env.ZCODE_SIM_SEED ? Number(process.env.ZCODE_SIM_SEED) : undefined);
const writer = new LineWriter(process.stdout, { quirks, ids });
const recorder = new Recorder(process.env.ZCODE_SIM_RECORD);

/** Everything the handlers, turns and background tasks share. */
const sv = { profile, quirks, config, ids, writer, delay: makeDelay(speed) };
sv.store = new SessionStore({ stateDir: process.env.ZCODE_SIM_STATE_DIR, writer, ids, era: profile.current ? 'current' : 'seed', profile });
sv.startTurn = (session, spec) => startTurn(sv, session, spec);
const handlers = createHandlers(sv);
sv.conn = new Connection({ writer, recorder, quirks, onRequest: handlers.onRequest, onNotification: handlers.onNotification, strictEnvelope: Boolean(profile.current) });
// Builds with v4 put v4 requests in zcode's one-at-a-time line (v4.mjs).
if (profile.v4) sv.conn.gate = requestGate();
sv.interactions = new Interactions({ conn: sv.conn, ids, quirks, resendMs: config.resendMs, current: Boolean(profile.current) });
if (profile.current) sv.hosts = new HostRequests(sv);
// Desktop 3.12.3+: storage start-up notifications before the client has sent anything.
if (profile.storageStartup) storageStartup(sv);

log(`zcode ${profile.version} simulator ready (pid ${process.pid}, speed ${speed}, quirks: ${[...quirks].join(',') || 'none'})`);

let exiting = false;
async function shutdown(reason, code = 0) {
  if (exiting) return;
  exiting = true;
  log(`exiting: ${reason}`);
  for (const session of sv.store.sessions.values()) {
    session.turn?.cancel();
    sv.store.save(session);
  }
  await Promise.race([writer.flush(), new Promise((r) => setTimeout(r, 500))]);
  process.exit(code);
}

readLines(process.stdin, (line) => sv.conn.onLine(line), () => shutdown('stdin ended'));
process.on('SIGTERM', () => shutdown('SIGTERM'));
process.on('SIGINT', () => shutdown('SIGINT'));
process.stdout.on('error', (err) => shutdown(`stdout error: ${err.code ?? err.message}`, err.code === 'EPIPE' ? 0 : 1));
