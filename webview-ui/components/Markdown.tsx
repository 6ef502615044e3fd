/**
 * Sanitised markdown. While `live` (the message is still streaming) the text is rendered as stable
 * blocks that never re-render plus one re-rendered tail; once finished it is rendered once, whole
 * (so constructs split while streaming, e.g. loose lists, come out right).
 */
import { useMemo, useRef } from 'preact/hooks';
import { renderMarkdown, StreamingMarkdown } from '../markdown.ts';

export function Markdown({ text, live = false, class: extra }: { text: string; live?: boolean; class?: string }) {
  const cls = `markdown${extra ? ` ${extra}` : ''}`;
  const streamer = useRef<StreamingMarkdown | null>(null);
  const whole = useMemo(() => (live ? '' : renderMarkdown(text)), [live, text]);
  if (!live) {
    streamer.current = null;
    return <div class={cls} dangerouslySetInnerHTML={{ __html: whole }} />;
  }
  streamer.current ??= new StreamingMarkdown();
  const tail = streamer.current.update(text);
  return (
    <div class={cls}>
      {streamer.current.blocks.map((html, i) => (
        <div key={i} class="md-block" dangerouslySetInnerHTML={{ __html: html }} />
      ))}
      <div key="tail" class="md-block md-tail" dangerouslySetInnerHTML={{ __html: tail }} />
    </div>
  );
}
