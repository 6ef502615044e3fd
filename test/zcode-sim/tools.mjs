// What a simulated tool returns. Read/Grep/Glob look at the real workspace (bounded) so the demo shows
// real files; Edit/Write compute the metadata zcode attaches (structured patch, old/new text) but only touch
// the disk when ZCODE_SIM_APPLY_EDITS=1. Everything else comes from the scenario step.
import { existsSync, readFileSync, readdirSync, statSync, writeFileSync, mkdirSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';

const SKIP_DIRS = new Set(['node_modules', '.git', 'dist', 'out', '.vscode-test', 'coverage', 'dist-vsix']);
const MAX_FILES = 3000;

/** Workspace files (relative paths with '/'), bounded and skipping build/vendor folders. */
export function listFiles(root, under = '') {
  const out = [];
  const walk = (dir, depth) => {
    if (out.length >= MAX_FILES || depth > 8) return;
    let entries;
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries.sort((a, b) => a.name.localeCompare(b.name))) {
      if (e.isDirectory() && !SKIP_DIRS.has(e.name) && !e.name.startsWith('.')) walk(join(dir, e.name), depth + 1);
      else if (e.isFile() && out.length < MAX_FILES) out.push(relative(root, join(dir, e.name)).split(sep).join('/'));
    }
  };
  walk(under ? resolve(root, under) : root, 0);
  return out;
}

/** `**` / `*` / `?` / `{a,b}` glob to a RegExp over '/'-separated paths. */
export function globToRegExp(glob) {
  let re = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i];
    if (c === '*' && glob[i + 1] === '*') {
      re += glob[i + 2] === '/' ? '(?:.*/)?' : '.*';
      i += glob[i + 2] === '/' ? 2 : 1;
    } else if (c === '*') re += '[^/]*';
    else if (c === '?') re += '[^/]';
    else if (c === '{') re += '(?:';
    else if (c === '}') re += ')';
    else if (c === ',') re += '|';
    else re += c.replace(/[.+^$()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${re}$`);
}

const abs = (workspace, p) => (isAbsolute(p) ? p : resolve(workspace, p));

function readText(path) {
  try {
    return statSync(path).size < 2_000_000 ? readFileSync(path, 'utf8') : null;
  } catch {
    return null;
  }
}

/** `cat -n`-style numbering, the way zcode's Read returns file content. */
const numbered = (text, offset = 1) => text.split('\n').map((l, i) => `${String(i + offset).padStart(6)}\t${l}`).join('\n');

/** One hunk covering everything between the common prefix and suffix, with 3 lines of context. */
export function structuredPatch(oldText, newText) {
  // A trailing newline ends the last line; it does not start an empty one.
  const split = (t) => (t === '' ? [] : t.replace(/\n$/, '').split('\n'));
  const a = split(oldText);
  const b = split(newText);
  let pre = 0;
  while (pre < a.length && pre < b.length && a[pre] === b[pre]) pre++;
  let suf = 0;
  while (suf < a.length - pre && suf < b.length - pre && a[a.length - 1 - suf] === b[b.length - 1 - suf]) suf++;
  if (pre === a.length && pre === b.length) return [];
  const ctxStart = Math.max(0, pre - 3);
  const ctxEndA = Math.min(a.length, a.length - suf + 3);
  const lines = [
    ...a.slice(ctxStart, pre).map((l) => ` ${l}`),
    ...a.slice(pre, a.length - suf).map((l) => `-${l}`),
    ...b.slice(pre, b.length - suf).map((l) => `+${l}`),
    ...a.slice(a.length - suf, ctxEndA).map((l) => ` ${l}`),
  ];
  const oldLines = ctxEndA - ctxStart;
  const newLines = oldLines - (a.length - suf - pre) + (b.length - suf - pre);
  return [{ oldStart: oldLines === 0 ? 0 : ctxStart + 1, oldLines, newStart: newLines === 0 ? 0 : ctxStart + 1, newLines, lines }];
}

/**
 * Run a simulated tool. Returns { result } or { error }. `step.result` (already templated) wins when given;
 * a string is shorthand for `{success:true, content}`.
 * @param {{workspace:string, session:any, applyEdits:boolean}} ctx
 */
export function runTool(toolName, input, step, ctx) {
  if (step.error) return { error: step.error };
  const given = step.result === undefined ? undefined : typeof step.result === 'string' ? { success: true, content: step.result } : step.result;
  const exec = EXECUTORS[toolName];
  if (exec) return exec(input, step, ctx, given);
  return { result: given ?? { success: true, content: 'ok' } };
}

const EXECUTORS = {
  Read(input, step, { workspace }, given) {
    if (given) return { result: given };
    const path = abs(workspace, String(input.file_path ?? ''));
    const text = readText(path) ?? step.fallback;
    if (text == null) return { error: `File does not exist: ${path}` };
    const from = Math.max(1, Number(input.offset ?? 1));
    const lines = text.split('\n').slice(from - 1, from - 1 + Number(input.limit ?? 200));
    return { result: { success: true, content: numbered(lines.join('\n'), from), metadata: { filePath: path, numLines: lines.length, totalLines: text.split('\n').length } } };
  },

  Grep(input, step, { workspace }, given) {
    if (given) return { result: given };
    let re;
    try {
      re = new RegExp(String(input.pattern ?? ''), input['-i'] ? 'i' : '');
    } catch {
      return { error: `Invalid regular expression: ${input.pattern}` };
    }
    const filter = input.glob ? globToRegExp(String(input.glob).includes('/') ? input.glob : `**/${input.glob}`) : null;
    const base = input.path ? relative(workspace, abs(workspace, input.path)) : '';
    const hits = [];
    const files = new Set();
    for (const file of listFiles(workspace, base)) {
      if (filter && !filter.test(file)) continue;
      const text = readText(join(workspace, file));
      if (text == null || text.length > 200_000) continue;
      text.split('\n').forEach((line, i) => {
        if (hits.length < 20 && re.test(line)) {
          hits.push(`${file}:${i + 1}:${line.trim().slice(0, 160)}`);
          files.add(file);
        }
      });
      if (hits.length >= 20) break;
    }
    const content = hits.length === 0 ? (step.fallback ?? 'No matches found') : input.output_mode === 'files_with_matches' ? [...files].join('\n') : hits.join('\n');
    return { result: { success: true, content, metadata: { numMatches: hits.length, numFiles: files.size } } };
  },

  Glob(input, step, { workspace }, given) {
    if (given) return { result: given };
    const base = input.path ? relative(workspace, abs(workspace, input.path)) : '';
    const re = globToRegExp(String(input.pattern ?? '**/*'));
    // listFiles paths are workspace-relative; the pattern is relative to `path`.
    const found = listFiles(workspace, base).filter((f) => re.test(base ? f.slice(base.length + 1) : f)).slice(0, 50).map((f) => join(workspace, f));
    const content = found.length ? found.join('\n') : (step.fallback ?? 'No files found');
    return { result: { success: true, content, metadata: { numFiles: found.length, truncated: found.length === 50 } } };
  },

  Edit(input, step, ctx, given) {
    const path = abs(ctx.workspace, String(input.file_path ?? ''));
    const onDisk = readText(path);
    // Prefer the real file when it holds old_string; otherwise the scenario's stand-in original.
    const original = onDisk != null && onDisk.includes(input.old_string) ? onDisk : step.original;
    if (original == null || !original.includes(input.old_string)) return { error: `String to replace not found in file.\nString: ${input.old_string}` };
    const updated = input.replace_all ? original.split(input.old_string).join(input.new_string) : original.replace(input.old_string, () => input.new_string);
    if (ctx.applyEdits) writeFileSync(path, updated);
    const metadata = { filePath: path, oldString: input.old_string, newString: input.new_string, originalFile: original, replaceAll: Boolean(input.replace_all), structuredPatch: structuredPatch(original, updated) };
    return { result: given ? { ...given, metadata } : { success: true, content: `The file ${path} has been updated.`, metadata } };
  },

  Write(input, _step, ctx, given) {
    const path = abs(ctx.workspace, String(input.file_path ?? ''));
    const before = existsSync(path) ? readText(path) : null;
    const content = String(input.content ?? '');
    if (ctx.applyEdits) {
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, content);
    }
    const metadata = { filePath: path, type: before == null ? 'create' : 'update', content, originalFile: before, structuredPatch: structuredPatch(before ?? '', content) };
    const text = before == null ? `File created successfully at: ${path}` : `The file ${path} has been updated.`;
    return { result: given ? { ...given, metadata } : { success: true, content: text, metadata } };
  },

  TodoWrite(input, _step, { session }, given) {
    const oldTodos = session.todos;
    // zcode's session todo item is strict `{content, status, priority}`: snapshots and session/read
    // carry exactly those fields, whatever else the tool input holds.
    session.todos = Array.isArray(input.todos) ? input.todos.map(sessionTodo) : [];
    const content = 'Todos have been modified successfully. Ensure that you continue to use the todo list to track your progress.';
    return { result: given ?? { success: true, content, metadata: { oldTodos, newTodos: session.todos } } };
  },
};

/** One todo as zcode's session state keeps it (packages/shared/src/zcode-protocol/index.ts, session todo item). */
function sessionTodo(todo) {
  const { content, status, priority } = todo ?? {};
  return { content, status, priority };
}
