/**
 * The environment for an npm command a test starts from inside `npm test`: the outer npm exports its
 * whole configuration as npm_* variables (its prefix, the project's package.json, its user agent),
 * which would steer the inner npm at this repository. Only what says where and how to download stays.
 */
const KEEP = /^npm_config_(registry|.*:registry|.*_registry|proxy|https_proxy|http_proxy|noproxy|no_proxy|cafile|ca|strict_ssl|cache|userconfig|globalconfig|fetch_retries|fetch_timeout)$/i;

export function withoutNpmEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(env)) {
    if ((/^npm_/i.test(name) && !KEEP.test(name)) || name === 'NPM_CLI_JS' || name === 'INIT_CWD' || name === 'NODE_PATH') continue;
    out[name] = value;
  }
  // nor the project's node_modules/.bin that npm put first on PATH
  out.PATH = (env.PATH ?? '').split(':').filter((dir) => !dir.endsWith('/node_modules/.bin') && !dir.endsWith('/node-gyp-bin')).join(':');
  return out;
}
