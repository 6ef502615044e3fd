/**
 * Composer input → ACP prompt content blocks. Files become `resource_link`s (every agent must
 * accept them); a selection is embedded as a `resource` when the agent advertises
 * `promptCapabilities.embeddedContext`, otherwise it is linked (with its line range) and quoted
 * as text; images are sent only when the agent advertises `promptCapabilities.image`.
 */
import type { ContentBlock } from '@agentclientprotocol/sdk';
import type { Attachment, AttachmentSummary } from '../../webview-ui/contract.ts';

export interface PromptCapabilityFlags {
  image: boolean;
  embeddedContext: boolean;
}

/** `file:///a/b.ts` + lines → `file:///a/b.ts#L3-L7` (the convention editors use for ranges). */
export function rangeUri(uri: string, startLine: number, endLine: number): string {
  return `${uri.replace(/#.*$/, '')}#L${startLine}${endLine !== startLine ? `-L${endLine}` : ''}`;
}

export function buildPrompt(text: string, attachments: readonly Attachment[], caps: PromptCapabilityFlags): ContentBlock[] {
  const blocks: ContentBlock[] = [];
  if (text) blocks.push({ type: 'text', text });
  for (const a of attachments) {
    switch (a.kind) {
      case 'file':
        blocks.push({ type: 'resource_link', uri: a.uri, name: a.name });
        break;
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
