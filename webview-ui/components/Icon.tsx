/** A codicon (font icon from @vscode/codicons); decorative unless given a label. */
export function Icon({ name, spin, label, class: extra }: { name: string; spin?: boolean; label?: string; class?: string }) {
  const cls = `codicon codicon-${name}${spin ? ' codicon-modifier-spin' : ''}${extra ? ` ${extra}` : ''}`;
  return label ? <span class={cls} role="img" aria-label={label} title={label} /> : <span class={cls} aria-hidden="true" />;
}
