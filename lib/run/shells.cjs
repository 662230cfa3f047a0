'use strict';
// The shells `setup` writes for (lib/run/setup.cjs): one object each, with
// the startup file that shell reads on its platform, its quoting, the names a
// function may not take there, and one template for a host's function.

const path = require('node:path');
const { spawnSync } = require('node:child_process');

// The template's fields: {host} (a checked command name), {program} and
// {guard} (quoted), {launch} (the quoted launch words), {gone} (the quoted
// line a function says when this package is gone), {rest} (launch without
// its program, for PowerShell's call operator).
const POSIX_FUNCTION = `{host}() {
  if [ -x {program} ] && [ -f {guard} ]; then
    {launch} {host} "$@"
  else
    printf '%s\\n' {gone} >&2
    command {host} "$@"
  fi
}`;

/** What bash and zsh share: single quotes, and one function template. */
const POSIX = { quote: (text) => `'${text.replace(/'/g, `'\\''`)}'`, template: POSIX_FUNCTION };

/** A non-empty variable of `env`, else undefined (an empty one counts as unset, as the shells treat it). */
const setIn = (env, name) => (typeof env[name] === 'string' && env[name] !== '' ? env[name] : undefined);

const bash = {
  name: 'bash',
  /** ~/.bashrc; on macOS, where each terminal starts a login bash, the login file bash reads first (.bash_profile when none is there yet). */
  startupFile({ home, platform, exists }) {
    if (platform !== 'darwin') return path.join(home, '.bashrc');
    const login = ['.bash_profile', '.bash_login', '.profile'].map((name) => path.join(home, name));
    return login.find(exists) ?? login[0];
  },
  ...POSIX,
  reserved: 'if then else elif fi case esac for select while until do done in function time coproc',
  builtins: 'alias bg bind break builtin caller cd command compgen complete compopt continue declare dirs disown echo enable eval exec exit export false fc fg getopts hash help history jobs kill let local logout mapfile popd printf pushd pwd read readarray readonly return set shift shopt source suspend test times trap true type typeset ulimit umask unalias unset wait',
};

const zsh = {
  name: 'zsh',
  /** $ZDOTDIR/.zshrc when ZDOTDIR is set and not empty, else ~/.zshrc. */
  startupFile({ home, env }) {
    return path.join(setIn(env, 'ZDOTDIR') ?? home, '.zshrc');
  },
  ...POSIX,
  reserved: 'case coproc declare do done elif else end esac export fi float for foreach function if integer local nocorrect readonly repeat select then time typeset until while',
  builtins: 'alias autoload bg bindkey break builtin bye cd chdir command compadd comparguments compcall compctl compdescribe compfiles compgroups compquote compset comptags comptry compvalues continue declare dirs disable disown echo echotc echoti emulate enable eval exec exit export false fc fg float functions getln getopts hash history integer jobs kill let limit local log logout noglob popd print printf private pushd pushln pwd r read readonly rehash return sched set setopt shift source suspend test times trap true ttyctl type typeset ulimit umask unalias unfunction unhash unlimit unset unsetopt vared wait whence where which zcompile zformat zle zmodload zparseopts zregexparse zstyle',
};

const fish = {
  name: 'fish',
  /** config.fish under $XDG_CONFIG_HOME (when set and not empty) or ~/.config. */
  startupFile({ home, env }) {
    return path.join(setIn(env, 'XDG_CONFIG_HOME') ?? path.join(home, '.config'), 'fish', 'config.fish');
  },
  quote: (text) => `'${text.replace(/[\\']/g, '\\$&')}'`,
  template: `function {host} --wraps {host}
  if test -x {program}; and test -f {guard}
    {launch} {host} $argv
  else
    echo {gone} >&2
    command {host} $argv
  end
end`,
  reserved: 'and begin case else end for function if in not or switch while',
  builtins: '_ abbr argparse bg bind block break breakpoint builtin cd command commandline complete contains continue count disown echo emit eval exec exit false fg functions history jobs math path printf pwd random read realpath return set set_color source status string test time true type ulimit wait',
};

const PS_QUOTE = (text) => `'${text.replace(/['\u2018\u2019\u201a\u201b]/g, '$&$&')}'`;

const powershell = {
  name: 'powershell',
  /**
   * $PROFILE (CurrentUserCurrentHost) as pwsh says it, when pwsh is on PATH
   * (it follows a Documents folder OneDrive moved), on Windows else as
   * Windows PowerShell says it; else where pwsh puts it:
   * Documents\PowerShell on Windows, $XDG_CONFIG_HOME/powershell or
   * ~/.config/powershell elsewhere.
   */
  startupFile({ home, env, platform, askProfile = profileOfPwsh }) {
    const told = askProfile(env, platform);
    if (told !== undefined) return told;
    const dir = platform === 'win32'
      ? path.win32.join(home, 'Documents', 'PowerShell')
      : path.join(setIn(env, 'XDG_CONFIG_HOME') ?? path.join(home, '.config'), 'powershell');
    return (platform === 'win32' ? path.win32 : path).join(dir, 'Microsoft.PowerShell_profile.ps1');
  },
  quote: PS_QUOTE,
  template: `function {host} {
  if ((Test-Path -LiteralPath {program}) -and (Test-Path -LiteralPath {guard})) { & {program} {rest} '{host}' @args }
  else { [Console]::Error.WriteLine({gone}); & (Get-Command {host} -CommandType Application | Select-Object -First 1) @args }
}`,
  reserved: 'begin break catch class continue data define do dynamicparam else elseif end enum exit filter finally for foreach from function hidden if in inlinescript parallel param process return sequence static switch throw trap try until using var while workflow',
  builtins: 'Test-Path Get-Command Select-Object Write-Host Set-Location Get-ChildItem',
};

/** $PROFILE as pwsh reports it (on Windows, else Windows PowerShell), or undefined when there is none to ask. */
function profileOfPwsh(env, platform) {
  for (const program of platform === 'win32' ? ['pwsh', 'powershell'] : ['pwsh']) {
    const r = spawnSync(program, ['-NoLogo', '-NoProfile', '-NonInteractive', '-Command', '$PROFILE.CurrentUserCurrentHost'], { env, encoding: 'utf8', timeout: 20_000, windowsHide: true });
    const told = r.status === 0 ? r.stdout.trim() : '';
    if (told !== '') return told;
  }
  return undefined;
}

const SHELLS = new Map([bash, zsh, fish, powershell].map((shell) => [shell.name, shell]));

/** The shell object named `name` (bash, zsh, fish, powershell). */
function shellNamed(name) {
  const shell = SHELLS.get(name);
  if (shell === undefined) throw new Error(`setup: --shell must be one of ${[...SHELLS.keys()].join(', ')}, got ${JSON.stringify(name)}`);
  return shell;
}

/** The shell a user runs: PowerShell on Windows, else $SHELL's when it is one of ours, else bash. */
function defaultShell(env, platform) {
  if (platform === 'win32') return 'powershell';
  const name = path.basename(env.SHELL ?? 'bash');
  return SHELLS.has(name) ? name : 'bash';
}

/** A command name every one of these shells can define a function for (and that needs no quoting). */
const COMMAND_NAME = /^[A-Za-z0-9_][A-Za-z0-9_.+-]*$/;

/** Why `host` cannot be a function's name in `shell`, or undefined when it can. */
function badName(shell, host) {
  if (!COMMAND_NAME.test(host)) return 'is not a command name (letters, digits and _ . + -, not first . + or -)';
  const word = shell.name === 'powershell' ? host.toLowerCase() : host;
  const lower = (list) => (shell.name === 'powershell' ? list.toLowerCase() : list).split(' ');
  if (lower(shell.reserved).includes(word)) return `is one of ${shell.name}'s reserved words`;
  if (lower(shell.builtins).includes(word)) return `is one of ${shell.name}'s builtins, which a function would hide`;
  return undefined;
}

/** `host`'s function in `shell`'s language: through `launch` while it and `guard` are there, else the plain host with the `gone` line. */
function hostFunction(shell, host, { launch, guard, gone }) {
  const [program, ...rest] = launch;
  const fields = {
    host,
    program: shell.quote(program),
    guard: shell.quote(guard),
    launch: launch.map(shell.quote).join(' '),
    rest: rest.map(shell.quote).join(' '),
    gone: shell.quote(gone),
  };
  return shell.template.replace(/\{(host|program|guard|launch|rest|gone)\}/g, (_, field) => fields[field]);
}

module.exports = { COMMAND_NAME, shellNamed, defaultShell, badName, hostFunction };
