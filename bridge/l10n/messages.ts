/**
 * What the bridge itself writes for people (form messages, choice labels, permission options,
 * retry notices), in the client's language. The English text is the key and the fallback; a
 * language is a table of its translations. zcode's own texts (the model's questions, its error
 * messages) are never translated here: they stay as zcode sent them.
 *
 * The language comes from the client: the VS Code extension passes its display language
 * (`vscode.env.language`), `zcode-acp` reads `LC_ALL` / `LC_MESSAGES` / `LANG`.
 */

export type BridgeLocale = 'en' | 'zh-cn';

/** A language tag or POSIX locale (`zh-CN`, `zh_CN.UTF-8`, `zh-Hans`, `zh`) as a catalogue language; English otherwise. */
export function resolveLocale(tag: string | undefined): BridgeLocale {
  const t = (tag ?? '').trim().toLowerCase().replace(/_/g, '-').replace(/\..*$/, '');
  if (t === 'zh' || t === 'zh-cn' || t === 'zh-sg' || t.startsWith('zh-hans')) return 'zh-cn';
  return 'en';
}

/** The locale of a process environment (`zcode-acp`): LC_ALL wins, then LC_MESSAGES, then LANG. */
export function environmentLocale(env: Readonly<Record<string, string | undefined>>): BridgeLocale {
  return resolveLocale(env.LC_ALL || env.LC_MESSAGES || env.LANG);
}

const ZH_CN: Readonly<Record<string, string>> = {
  'Please answer {0} question(s).': '请回答 {0} 个问题。',
  'Please answer the question.': '请回答这个问题。',
  'Skip this question': '跳过此问题',
  '↳ or type a custom value (overrides the selection)': '↳ 或输入自定义内容（替代所选项）',
  '↳ or type another value (added to the selection)': '↳ 或输入其他内容（加入所选项）',
  Allow: '允许',
  'Allow once': '允许一次',
  'Always allow': '始终允许',
  'Allow for this project': '在此项目中允许',
  'Allow for this session': '在此会话中允许',
  Deny: '拒绝',
  Reject: '拒绝',
  'Always deny': '始终拒绝',
  'Always reject': '始终拒绝',
  'Ready to code?': '准备好开始编码了吗？',
  'Leave the box empty and submit to approve; type feedback to reject and redirect.': '留空并提交即批准；输入反馈则拒绝并按反馈调整。',
  Feedback: '反馈',
  'Empty = approve the plan. Anything typed = reject and use this text as the redirection.': '留空 = 批准计划；输入内容 = 拒绝，并按这段文字调整方向。',
  "zcode's turn failed ({0}); retrying in {1} s (attempt {2} of {3})…": 'zcode 的回合失败（{0}）；{1} 秒后重试（第 {2} 次，共 {3} 次）…',
  'a transient error': '暂时性错误',
  'rate limit': '请求频率受限',
  network: '网络错误',
  'model request failed': '模型请求失败',
};

const CATALOGUES: Record<Exclude<BridgeLocale, 'en'>, Readonly<Record<string, string>>> = { 'zh-cn': ZH_CN };

/** `message` in `locale` (English when it has no translation), `{0}`, `{1}` … replaced by `args`. */
export function bt(locale: BridgeLocale, message: string, ...args: (string | number)[]): string {
  const text = locale === 'en' ? message : (CATALOGUES[locale][message] ?? message);
  return text.replace(/\{(\d+)\}/g, (whole, i: string) => (Number(i) < args.length ? String(args[Number(i)]) : whole));
}
