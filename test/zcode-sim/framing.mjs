// Line framing: ndjson in, ndjson out, plus the record file.
// Input tolerates partial lines across reads, CRLF, empty lines and huge lines.
// Output honours stdout backpressure and implements the `split-lines` and `noise` quirks.
import { appendFileSync } from 'node:fs';
import { StringDecoder } from 'node:string_decoder';

/** Split a byte stream into lines; `onLine(text)` gets each line without its `\n` / `\r\n`. */
export function readLines(stream, onLine, onEnd) {
  const decoder = new StringDecoder('utf8');
  let buffer = '';
  let scanFrom = 0; // do not rescan a long partial line for '\n' on every chunk
  stream.on('data', (chunk) => {
    buffer += decoder.write(chunk);
    let nl;
    while ((nl = buffer.indexOf('\n', scanFrom)) !== -1) {
      let line = buffer.slice(0, nl);
      buffer = buffer.slice(nl + 1);
      scanFrom = 0;
      if (line.endsWith('\r')) line = line.slice(0, -1); // CRLF tolerated
      if (line.trim() !== '') onLine(line);
    }
    scanFrom = buffer.length;
  });
  stream.on('end', () => {
    const rest = (buffer + decoder.end()).replace(/\r$/, '');
    if (rest.trim() !== '') onLine(rest);
    onEnd();
  });
}

const NOISE = [
  'Debugger attached.',
  '\u001b[2K[########------------] 40% indexing workspace',
  '(node:4242) ExperimentalWarning: The Fetch API is an experimental feature.',
  'Waiting for the debugger to disconnect...',
];

/**
 * Writes protocol lines to stdout. Ordering is preserved in every mode: `split-lines` writes go through
 * one promise chain. `ready()` resolves when it is reasonable to write more (stdout drained).
 */
export class LineWriter {
  constructor(stream, { quirks, ids }) {
    this.stream = stream;
    this.split = quirks.has('split-lines');
    this.noise = quirks.has('noise');
    this.ids = ids;
    this.chain = Promise.resolve();
    this.count = 0;
    if (this.noise) this.raw(`${NOISE[0]}\n`);
  }

  /** Write one message object as a line. */
  send(message) {
    this.line(JSON.stringify(message));
  }

  /** Write one already serialised JSON line (without newline). */
  line(text) {
    this.count++;
    // quirk `noise`: now and then a line that is not JSON at all.
    if (this.noise && this.count % 17 === 0) this.raw(`${NOISE[(this.count / 17) % NOISE.length | 0]}\n`);
    this.raw(`${text}\n`);
  }

  /** Write many serialised lines in one go (the `deltas:N` fast path). */
  lines(texts) {
    if (this.split || this.noise) return texts.forEach((t) => this.line(t));
    this.count += texts.length;
    this.raw(`${texts.join('\n')}\n`);
  }

  raw(text) {
    if (!this.split) {
      this.stream.write(text);
      return;
    }
    // quirk `split-lines`: the line leaves in 2–5 pieces with 1–4 ms between them.
    this.chain = this.chain.then(async () => {
      const pieces = this.ids.int(2, 5);
      const size = Math.max(1, Math.ceil(text.length / pieces));
      for (let i = 0; i < text.length; i += size) {
        this.stream.write(text.slice(i, i + size));
        await new Promise((r) => setTimeout(r, this.ids.int(1, 4)));
      }
    });
  }

  /** Resolves once queued output is handed to the OS and stdout is not asking us to wait. */
  async ready() {
    await this.chain;
    if (this.stream.writableNeedDrain) await new Promise((r) => this.stream.once('drain', r));
  }

  /** Resolves when everything written so far has been flushed (used before exiting). */
  async flush() {
    await this.chain;
    await new Promise((r) => this.stream.write('', () => r()));
  }
}

/**
 * The record file (ZCODE_SIM_RECORD): one JSON object per line,
 * `{"t":<epoch ms>,"msg":<message exactly as received>}` or `{"t":..,"violation":"<text>","msg":<message or raw line>}`.
 */
export class Recorder {
  constructor(file) {
    this.file = file;
  }
  received(msg) {
    this.append({ t: Date.now(), msg });
  }
  violation(text, msg) {
    this.append(msg === undefined ? { t: Date.now(), violation: text } : { t: Date.now(), violation: text, msg });
  }
  append(entry) {
    if (!this.file) return;
    try {
      appendFileSync(this.file, `${JSON.stringify(entry)}\n`);
    } catch (err) {
      process.stderr.write(`[zcode-sim] cannot write record file ${this.file}: ${err.message}\n`);
    }
  }
}
