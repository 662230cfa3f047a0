// Every version check:hosts pins, in one place: the hosts' packages (their
// linux-x64 executables, or their npm package run by Node) and the other
// packages the checks install beside them. `--newest` replaces each host's
// version by the registry's newest (newestOf()).

/**
 * The hosts: name (what `-- NAME` picks), pkg (the package installed), version,
 * bin (the executable or script in it), node (the Node line it needs, when not
 * this one). The checks of each live in this folder's file named in `family`.
 */
export const HOSTS = [
  { name: 'claude', family: 'claude', pkg: '@anthropic-ai/claude-code-linux-x64', version: '2.1.328', bin: 'claude' },
  { name: 'opencode', family: 'bun-hosts', pkg: 'opencode-linux-x64', version: '1.18.34', bin: 'bin/opencode' },
  { name: 'kilo', family: 'bun-hosts', pkg: '@kilocode/cli-linux-x64', version: '7.7.9', bin: 'bin/kilo' },
  { name: 'cline', family: 'bun-hosts', pkg: '@cline/cli-linux-x64', version: '3.0.65', bin: 'bin/cline' },
  { name: 'qwen', family: 'relaunchers', pkg: '@qwen-code/qwen-code', version: '0.24.4', bin: 'cli-entry.js', node: '24.22.3' },
  { name: 'gemini', family: 'relaunchers', pkg: '@google/gemini-cli', version: '0.61.0', bin: 'bundle/gemini.js', node: '24.22.3' },
  { name: 'agent-sdk', family: 'agent-sdk', pkg: '@anthropic-ai/claude-agent-sdk', version: '0.3.337', bin: 'sdk.mjs', node: '24.22.3' },
  { name: 'copilot', family: 'others', pkg: '@github/copilot', version: '1.0.102', bin: 'npm-loader.js', node: '24.22.3' },
  { name: 'amp', family: 'others', pkg: '@ampcode/cli-linux-x64', version: '0.0.1790142911-g7618fb', bin: 'amp' },
  // Hosts started by what holds no MCP client: an app on the host's own SDK, a launcher (apps.mjs).
  { name: 'opencode-app', family: 'apps', pkg: '@opencode-ai/sdk', version: '1.19.6', bin: 'dist/index.js' },
  { name: 'qwen-app', family: 'apps', pkg: '@qwen-code/sdk', version: '0.1.14', bin: 'dist/index.mjs', node: '24.22.3' },
  { name: 'kilo-launcher', family: 'apps', pkg: '@kilocode/cli', version: '7.7.7', bin: 'bin/kilo' },
];

/**
 * Packages a check needs beside its host, installed at these versions with the hosts: the gateway's SDK,
 * and opencode-ai, whose bin puts `opencode` on PATH for the opencode app (apps.mjs).
 */
export const EXTRA = [
  { pkg: '@modelcontextprotocol/sdk', version: '1.32.2' },
  { pkg: 'opencode-ai', version: '1.18.33' },
];

/** Claude Code's executables for the other platforms: read (compiledKindOf), never run. */
export const FOREIGN = ['darwin-arm64', 'darwin-x64', 'win32-x64'].map((platform) => ({
  pkg: `@anthropic-ai/claude-code-${platform}`,
  version: HOSTS[0].version,
  bin: platform.startsWith('win32') ? 'claude.exe' : 'claude',
}));
