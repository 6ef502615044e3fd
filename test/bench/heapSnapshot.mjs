// Heap snapshots of the extension host for `npm run bench -- vscode` with ZCODE_BENCH_HEAP_DIR=<dir>:
// what the heap grew by between two samples, by kind, so that "memory returns" can be
// read: V8's code for functions run the first time (bytecode, feedback vectors, baseline code, inline
// caches, object shapes) is a one-time cost; zod's compiled object parsers (`new Function` sources,
// zod 4's JIT) too; what is left is data some object still holds.
import { readFileSync } from 'node:fs';

/** Bytes by kind of a .heapsnapshot file: { code, zodJit, native, data }. */
export function heapByKind(file) {
  const snapshot = JSON.parse(readFileSync(file, 'utf8'));
  const { node_fields: fields, node_types: [types] } = snapshot.snapshot.meta;
  const [iType, iName, iSize] = ['type', 'name', 'self_size'].map((f) => fields.indexOf(f));
  const kinds = { code: 0, zodJit: 0, native: 0, data: 0 };
  const nodes = snapshot.nodes;
  for (let i = 0; i < nodes.length; i += fields.length) {
    const type = types[nodes[i + iType]];
    const size = nodes[i + iSize];
    if (type === 'code' || type === 'object shape') kinds.code += size;
    else if (type === 'native') kinds.native += size;
    else if (type === 'string' && snapshot.strings[nodes[i + iName]].startsWith('(function anonymous(shape,')) kinds.zodJit += size;
    else kinds.data += size;
  }
  return kinds;
}

/** "code +2.15 MB, zod JIT +0.19 MB, data +0.19 MB" between two snapshots' kinds. */
export function kindGrowth(before, after) {
  const mb = (k) => `${after[k] - before[k] >= 0 ? '+' : ''}${((after[k] - before[k]) / 2 ** 20).toFixed(2)} MB`;
  return `V8 code and shapes ${mb('code')}, zod's compiled parsers ${mb('zodJit')}, data ${mb('data')}`;
}
