/**
 * A minimal `.gitignore` matcher for the `@` file picker (pure, no vscode). VS Code's
 * `workspace.findFiles` honours `files.exclude` but not `.gitignore` (that needs the proposed
 * `findFiles2`), so the picker filters its file list with the workspace folder's root
 * `.gitignore` through this.
 *
 * Supported: blank lines and `#` comments, `!` negation (last match wins), a trailing `/`
 * (directories only: everything under them), a leading or inner `/` (anchored at the folder
 * root), `*`, `?`, `**` and `[...]` classes, `\` escapes. Not supported: nested `.gitignore`
 * files, `.git/info/exclude` and the global excludes file.
 */

interface Rule {
  negate: boolean;
  /** Matches a path relative to the folder root (no leading slash). */
  regex: RegExp;
}

/** `*` → one segment's characters, `**` → any depth, `?` → one character. */
function globToRegex(glob: string): string {
  let out = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i];
    if (c === '\\' && i + 1 < glob.length) {
      out += escape(glob[++i]);
    } else if (c === '*') {
      if (glob[i + 1] === '*') {
        i++;
        // `**/` matches zero or more directories; a trailing `**` matches everything below.
        if (glob[i + 1] === '/') {
          i++;
          out += '(?:.*/)?';
        } else {
          out += '.*';
        }
      } else {
        out += '[^/]*';
      }
    } else if (c === '?') {
      out += '[^/]';
    } else if (c === '[') {
      const end = glob.indexOf(']', i + 1);
      if (end < 0) out += '\\[';
      else {
        const body = glob.slice(i + 1, end).replace(/^!/, '^').replace(/\\/g, '\\\\');
        out += `[${body}]`;
        i = end;
      }
    } else {
      out += escape(c);
    }
  }
  return out;
}

const escape = (c: string): string => c.replace(/[.+^${}()|[\]\\/]/g, '\\$&');

function parseRule(line: string): Rule | undefined {
  let pattern = line.replace(/(?<!\\)\s+$/, '');
  if (pattern === '' || pattern.startsWith('#')) return undefined;
  const negate = pattern.startsWith('!');
  if (negate) pattern = pattern.slice(1);
  if (pattern.startsWith('\\#') || pattern.startsWith('\\!')) pattern = pattern.slice(1);
  const directoryOnly = pattern.endsWith('/');
  if (directoryOnly) pattern = pattern.replace(/\/+$/, '');
  if (pattern === '') return undefined;
  // A slash at the start or in the middle anchors the pattern at the root; else it matches at any depth.
  const anchored = pattern.includes('/');
  pattern = pattern.replace(/^\//, '');
  const body = globToRegex(pattern);
  const prefix = anchored ? '^' : '^(?:.*/)?';
  // A match names a file, or a directory: then everything below it is ignored too. A
  // directory-only pattern must be followed by a `/` (it names a directory, not a file).
  const suffix = directoryOnly ? '/.*$' : '(?:/.*)?$';
  return { negate, regex: new RegExp(prefix + body + suffix) };
}

/** Compiles `.gitignore` text into a predicate over folder-relative paths (`src/a.ts`). */
export function gitignoreMatcher(text: string): (relativePath: string) => boolean {
  const rules = text.split(/\r?\n/).map(parseRule).filter((r): r is Rule => r !== undefined);
  if (rules.length === 0) return () => false;
  return (relativePath) => {
    const path = relativePath.replace(/^\/+/, '');
    let ignored = false;
    for (const rule of rules) if (rule.negate === ignored && rule.regex.test(path)) ignored = !rule.negate;
    return ignored;
  };
}
