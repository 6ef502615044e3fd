/**
 * Composer input → ACP prompt content blocks. Files become `resource_link`s (every agent must
 * accept them), or embedded `resource`s with their text when the agent advertises
 * `promptCapabilities.embeddedContext` and the host could read them (`fileContents`); a selection is embedded as a `resource` when the agent advertises
 * `promptCapabilities.embeddedContext`, otherwise it is linked (with its line range) and quoted
 * as text; images are sent only when the agent advertises `promptCapabilities.image`.
 */
import type { ContentBlock } from '@agentclientprotocol/sdk';
import type { Attachment, AttachmentSummary } from '../../webview-ui/viewModel.ts';

export interface PromptCapabilityFlags {
  image: boolean;
  embeddedContext: boolean;
}

/** `file:///a/b.ts` + lines → `file:///a/b.ts#L3-L7` (the convention editors use for ranges). */
export function rangeUri(uri: string, startLine: number, endLine: number): string {
  return `${uri.replace(/#.*$/, '')}#L${startLine}${endLine !== startLine ? `-L${endLine}` : ''}`;
}

/** Text of a file to embed, keyed by the attachment's uri. */
export type FileContents = ReadonlyMap<string, { text: string; mimeType?: string }>;

/**
 * Reads the file attachments to embed (only when the agent takes embedded context). A file
 * `read` cannot give (too big, binary, gone) is left out: it is sent as a link.
 */
export async function fileContents(
  attachments: readonly Attachment[],
  caps: PromptCapabilityFlags,
  read: ((uri: string) => Promise<{ text: string; mimeType?: string } | undefined>) | undefined,
): Promise<FileContents> {
  const contents = new Map<string, { text: string; mimeType?: string }>();
  if (!caps.embeddedContext || !read) return contents;
  for (const a of attachments) {
    if (a.kind !== 'file' || contents.has(a.uri)) continue;
    const content = await read(a.uri).catch(() => undefined);
    if (content) contents.set(a.uri, content);
  }
  return contents;
}

export function buildPrompt(text: string, attachments: readonly Attachment[], caps: PromptCapabilityFlags, contents: FileContents = new Map()): ContentBlock[] {
  const blocks: ContentBlock[] = [];
  if (text) blocks.push({ type: 'text', text });
  for (const a of attachments) {
    switch (a.kind) {
      case 'file': {
        const content = caps.embeddedContext ? contents.get(a.uri) : undefined;
        if (content) blocks.push({ type: 'resource', resource: { uri: a.uri, text: content.text, ...(content.mimeType ? { mimeType: content.mimeType } : {}) } });
        else blocks.push({ type: 'resource_link', uri: a.uri, name: a.name });
        break;
      }
      case 'selection': {
        const uri = rangeUri(a.uri, a.startLine, a.endLine);
        if (caps.embeddedContext) {
          blocks.push({ type: 'resource', resource: { uri, text: a.text, ...(a.languageId ? { mimeType: `text/x-${a.languageId}` } : {}) } });
        } else {
          blocks.push({ type: 'resource_link', uri, name: a.name });
          blocks.push({ type: 'text', text: `Selected lines ${a.startLine}-${a.endLine} of ${a.name.replace(/:.*$/, '')}:\n\`\`\`${a.languageId ?? ''}\n${a.text}\n\`\`\`` });
        }
        break;
      }
      case 'image':
        if (caps.image) blocks.push({ type: 'image', data: a.data, mimeType: a.mimeType });
        break;
    }
  }
  return blocks;
}

export function summarize(attachments: readonly Attachment[]): AttachmentSummary[] {
  return attachments.map((a) => ({ kind: a.kind, name: a.name }));
}

/** Validates attachments received from the webview (they cross a trust boundary, loosely). */
export function parseAttachments(value: unknown): Attachment[] {
  if (!Array.isArray(value)) return [];
  const out: Attachment[] = [];
  for (const v of value) {
    if (typeof v !== 'object' || v === null) continue;
    const a = v as Record<string, unknown>;
    const id = typeof a.id === 'string' ? a.id : String(out.length);
    const name = typeof a.name === 'string' ? a.name : 'attachment';
    if (a.kind === 'file' && typeof a.uri === 'string') out.push({ kind: 'file', id, name, uri: a.uri });
    else if (a.kind === 'selection' && typeof a.uri === 'string' && typeof a.text === 'string' && typeof a.startLine === 'number' && typeof a.endLine === 'number')
      out.push({ kind: 'selection', id, name, uri: a.uri, text: a.text, startLine: a.startLine, endLine: a.endLine, ...(typeof a.languageId === 'string' ? { languageId: a.languageId } : {}) });
    else if (a.kind === 'image' && typeof a.data === 'string' && typeof a.mimeType === 'string' && a.mimeType.startsWith('image/')) out.push({ kind: 'image', id, name, mimeType: a.mimeType, data: a.data });
  }
  return out;
}
