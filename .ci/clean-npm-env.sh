# shellcheck shell=bash
# Sourced by setup-vscode.sh (and its test): defines clean_npm CMD ARGS..., which runs CMD without the npm
# environment this shell may have inherited.
#
# Started from an npm script (npm test, npm run demo), this shell inherits the outer npm's environment:
# npm_config_user_agent names the outer Node (v20), and code-server's postinstall reads the Node version
# from it and refuses to build; npm_config_local_prefix, npm_package_* and friends would steer the inner
# installs too. So the inner npm runs with every npm_* variable removed except what the user configured
# about where and how to download (registry, proxies, certificates, config files, the download cache), and
# without the outer project's node_modules/.bin or npm's node-gyp shim on PATH.
clean_npm() {
  local unset=() name
  for name in $(compgen -e); do
    case "$name" in
      npm_config_registry | npm_config_*:registry | npm_config_*_registry | npm_config_proxy | npm_config_https_proxy | \
        npm_config_http_proxy | npm_config_noproxy | npm_config_no_proxy | npm_config_cafile | npm_config_ca | \
        npm_config_strict_ssl | npm_config_cache | npm_config_userconfig | npm_config_globalconfig | \
        npm_config_fetch_retries | npm_config_fetch_timeout) ;;
      npm_* | NPM_CLI_JS | INIT_CWD) unset+=(-u "$name") ;;
    esac
  done
  local path="" dir
  local IFS=:
  for dir in $PATH; do
    case "$dir" in */node_modules/.bin | */node-gyp-bin) ;; *) path="${path:+$path:}$dir" ;; esac
  done
  unset IFS
  env "${unset[@]}" PATH="$path" "$@"
}
