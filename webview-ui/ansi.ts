/**
 * Terminal output → styled segments. SGR colours (16, 256 and 24-bit) and bold/dim/italic/
 * underline are kept; every other escape sequence (cursor moves, OSC titles/links, …) is dropped;
 * a bare carriage return overwrites the line, like a terminal does for progress bars.
 * The 16 base colours map to VS Code's `--vscode-terminal-ansi*` theme variables (CSS classes);
 * 256/RGB colours become CSSOM style values (allowed under the webview's CSP).
 */

export interface AnsiStyle {
  /** 0–15 → theme class; otherwise a CSS colour string. */
  fg?: number | string;
  bg?: number | string;
  bold?: boolean;
  dim?: boolean;
  italic?: boolean;
  underline?: boolean;
  inverse?: boolean;
}

export interface AnsiSegment {
  text: string;
  style: AnsiStyle;
}

// CSI … final byte, OSC … BEL/ST, and lone two-byte escapes.
// eslint-disable-next-line no-control-regex
const ESCAPES = /\x1b\[([0-9;?]*)([@-~])|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]/g;

/** Applies bare `\r` overwrites line by line (keeps `\r\n` as a newline). */
export function applyCarriageReturns(text: string): string {
  if (!text.includes('\r')) return text;
  return text
    .replace(/\r\n/g, '\n')
    .split('\n')
    .map((line) => {
      const at = line.lastIndexOf('\r', line.length - 2);
      return at >= 0 ? line.slice(at + 1).replace(/\r$/, '') : line.replace(/\r$/, '');
    })
    .join('\n');
}

function xterm256(n: number): number | string {
  if (n < 16) return n;
  if (n >= 232) {
    const v = 8 + (n - 232) * 10;
    return `rgb(${v}, ${v}, ${v})`;
  }
  const i = n - 16;
  const level = (c: number): number => (c === 0 ? 0 : 55 + c * 40);
  return `rgb(${level(Math.floor(i / 36))}, ${level(Math.floor(i / 6) % 6)}, ${level(i % 6)})`;
}

function applySgr(style: AnsiStyle, params: string): AnsiStyle {
  const codes = params === '' ? [0] : params.split(';').map((p) => (p === '' ? 0 : Number(p)));
  let s = { ...style };
  for (let i = 0; i < codes.length; i++) {
    const c = codes[i];
    if (c === 0) s = {};
    else if (c === 1) s.bold = true;
    else if (c === 2) s.dim = true;
    else if (c === 3) s.italic = true;
    else if (c === 4) s.underline = true;
    else if (c === 7) s.inverse = true;
    else if (c === 22) s.bold = s.dim = false;
    else if (c === 23) s.italic = false;
    else if (c === 24) s.underline = false;
    else if (c === 27) s.inverse = false;
    else if (c >= 30 && c <= 37) s.fg = c - 30;
    else if (c >= 90 && c <= 97) s.fg = c - 90 + 8;
    else if (c === 39) delete s.fg;
    else if (c >= 40 && c <= 47) s.bg = c - 40;
    else if (c >= 100 && c <= 107) s.bg = c - 100 + 8;
    else if (c === 49) delete s.bg;
    else if (c === 38 || c === 48) {
      const key = c === 38 ? 'fg' : 'bg';
      if (codes[i + 1] === 5 && codes[i + 2] !== undefined) {
        s[key] = xterm256(codes[i + 2]);
        i += 2;
      } else if (codes[i + 1] === 2 && codes[i + 4] !== undefined) {
        s[key] = `rgb(${codes[i + 2]}, ${codes[i + 3]}, ${codes[i + 4]})`;
        i += 4;
      }
    }
  }
  return s;
}

/** Parses terminal output into styled segments (escape sequences removed). */
export function parseAnsi(input: string): AnsiSegment[] {
  const text = applyCarriageReturns(input);
  const segments: AnsiSegment[] = [];
  let style: AnsiStyle = {};
  let last = 0;
  const push = (chunk: string): void => {
    if (!chunk) return;
    const prev = segments[segments.length - 1];
    if (prev && prev.style === style) prev.text += chunk;
    else segments.push({ text: chunk, style });
  };
  ESCAPES.lastIndex = 0;
  for (let m = ESCAPES.exec(text); m; m = ESCAPES.exec(text)) {
    push(text.slice(last, m.index));
    last = m.index + m[0].length;
    if (m[2] === 'm') style = applySgr(style, m[1]);
  }
  push(text.slice(last));
  return segments;
}

/** Output with every escape sequence removed (for copying). */
export function stripAnsi(input: string): string {
  return parseAnsi(input)
    .map((s) => s.text)
    .join('');
}
