/**
 * Sanitised markdown, rendered as blocks (split at blank lines outside code fences): a block that
 * is finished never renders again, so a streaming message costs one small tail render per frame,
 * and the end of a turn costs nothing (no whole-message re-render, no jump). The same splitting is
 * used whether the text is streaming or loaded at once, so a message looks the same after a reload.
 */
import { useRef } from 'preact/hooks';
import { StreamingMarkdown } from '../markdown.ts';

export function Markdown({ text, class: extra }: { text: string; class?: string }) {
  const streamer = useRef<StreamingMarkdown | null>(null);
  streamer.current ??= new StreamingMarkdown();
  const tail = streamer.current.update(text);
  return (
    <div class={`markdown${extra ? ` ${extra}` : ''}`}>
      {streamer.current.blocks.map((html, i) => (
        <div key={i} class="md-block" dangerouslySetInnerHTML={{ __html: html }} />
      ))}
      <div key="tail" class="md-block md-tail" dangerouslySetInnerHTML={{ __html: tail }} />
    </div>
  );
}
