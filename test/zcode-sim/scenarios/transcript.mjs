// `transcript:N`: one turn that leaves N transcript items (default 1000), alternating a short agent message
// and a Read tool card, with no delays at speed 0 (the memory bench's long session).
export function steps({ arg }) {
  const n = arg === undefined ? 1000 : Number(arg);
  if (!Number.isInteger(n) || n <= 0) return [{ text: `transcript:N needs a positive integer, got ${JSON.stringify(arg)}.\n` }];
  const out = [];
  for (let i = 1; i <= n; i++) {
    if (i % 2 === 1) out.push({ text: `Message ${i}: the module **${i}** keeps its cache in \`memory\` and checks the index first.\n` });
    else out.push({ tool: 'Read', input: { file_path: `{{workspace}}/src/transcript${i}.ts` }, fallback: `export const item${i} = ${i};\n` });
  }
  return out;
}
