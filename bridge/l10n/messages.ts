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
  'The model provider asked for a captcha verification (code 3007), which only the ZCode desktop app can show: this plan needs the ZCode desktop app. Use a GLM Coding Plan API key for editor sessions, or run this turn in the ZCode desktop app.':
    '模型服务商要求验证码验证（代码 3007），只有 ZCode 桌面应用能显示验证码：此套餐需要 ZCode 桌面应用。编辑器会话请使用 GLM Coding Plan API 密钥，或在 ZCode 桌面应用中运行此回合。',
  'The model provider blocked the request because of unusual activity (code 3012). Wait a while, then use the ZCode desktop app or a GLM Coding Plan API key.':
    '模型服务商因异常活动拦截了请求（代码 3012）。请稍候，再使用 ZCode 桌面应用或 GLM Coding Plan API 密钥。',
  'zcode needed sign-in headers for this provider that the editor cannot give. Use a GLM Coding Plan API key (configured in the ZCode desktop app) for editor sessions.':
    'zcode 需要此服务商的登录请求头，而编辑器无法提供。编辑器会话请使用 GLM Coding Plan API 密钥（在 ZCode 桌面应用中配置）。',
  'Your plan has no quota left for this model (insufficient balance or no resource package). Check your plan in the ZCode desktop app or pick another model.':
    '你的套餐对此模型已无额度（余额不足或没有资源包）。请在 ZCode 桌面应用中查看套餐，或选择其他模型。',
  'Authentication with the model provider failed. Sign in again in the ZCode desktop app, or check the API key of the selected provider.':
    '与模型服务商的身份验证失败。请在 ZCode 桌面应用中重新登录，或检查所选服务商的 API 密钥。',
  "The selected model's provider is not configured in zcode. Pick another model, or set the provider up in the ZCode desktop app.":
    '所选模型的服务商未在 zcode 中配置。请选择其他模型，或在 ZCode 桌面应用中设置该服务商。',
  'The model provider is rate-limiting requests. Wait a moment and try again.': '模型服务商正在限制请求频率。请稍候再试。',
  'zcode could not reach the model provider (network error or timeout). Check your connection (and proxy), then try again.':
    'zcode 无法连接模型服务商（网络错误或超时）。请检查网络连接（和代理）后重试。',
  'The model request failed. Try again, or pick another model.': '模型请求失败。请重试，或选择其他模型。',
  'The turn failed (zcode gave no reason).': '回合失败（zcode 未给出原因）。',
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
