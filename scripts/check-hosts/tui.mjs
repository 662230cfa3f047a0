// A host's interactive TUI in a terminal: tmux, on a socket of its own
// (started with the host's environment, so the session's command gets it),
// bounded at every step and always taken down (kill-server) at the end.
import { spawnSync } from 'node:child_process';
import { wayWords } from './common.mjs';

const quote = (s) => `'${String(s).replace(/'/g, `'\\''`)}'`;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Whether tmux is here (check:hosts installs nothing itself: apt-get install tmux). */
export function haveTmux() {
  return spawnSync('tmux', ['-V'], { encoding: 'utf8' }).status === 0;
}

/**
 * `exe args` started the `way` wayWords() says, in a 200x50 tmux pane, with
 * `env` and `cwd`; `until()` polled every 250 ms up to `timeoutMs`; then
 * `exitKeys` sent (one by one, 500 ms apart) and up to 15 s for the host to
 * end. Resolves { done (until() held), ended (the host ended by itself), screen }.
 */
export async function inTmux(exe, args, env, cwd, { way, until, timeoutMs = 90_000, exitKeys = ['C-c', 'C-c'] }) {
  const socket = `mcp-od-check-${process.pid}-${Date.now()}`;
  const tmux = (...a) => spawnSync('tmux', ['-L', socket, '-f', '/dev/null', ...a], { env, cwd, encoding: 'utf8', timeout: 10_000 });
  const words = [...wayWords(way, env), exe, ...args];
  // remain-on-exit keeps the pane to read once the host ended; the shell's exec makes the host the pane's process.
  const started = tmux('new-session', '-d', '-s', 'host', '-x', '200', '-y', '50', '-c', cwd, `exec ${words.map(quote).join(' ')}`);
  if (started.status !== 0) throw new Error(`tmux new-session failed: ${started.stderr}`);
  tmux('set-option', '-t', 'host', 'remain-on-exit', 'on');
  const screen = () => tmux('capture-pane', '-p', '-t', 'host').stdout ?? '';
  const dead = () => tmux('display-message', '-p', '-t', 'host', '#{pane_dead}').stdout?.trim() !== '0';
  try {
    let done = false;
    for (const deadline = Date.now() + timeoutMs; Date.now() < deadline && !dead(); await sleep(250)) {
      if (until(screen())) {
        done = true;
        break;
      }
    }
    const last = screen();
    for (const key of exitKeys) {
      if (dead()) break;
      tmux('send-keys', '-t', 'host', key);
      await sleep(500);
    }
    for (const deadline = Date.now() + 15_000; Date.now() < deadline && !dead(); ) await sleep(250);
    return { done, ended: dead(), screen: last };
  } finally {
    tmux('kill-server');
  }
}
