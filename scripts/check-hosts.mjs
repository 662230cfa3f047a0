// npm run check:hosts: the fix against the real hosts users run, from the
// npm registry at pinned versions (check-hosts/versions.mjs; hundreds of MB,
// so not part of `npm install` or `npm test`), each driven offline: stand-ins
// for their model APIs on 127.0.0.1 (check-hosts/standins.mjs, and
// test/support/fake-messages-api.mjs for Claude Code's), asking for one stdio
// MCP tool 3 times on a server that writes each call's progress
// notifications in the result's write (check-hosts/counting-server.mjs).
//
// Installed once into .cache/hosts (git-ignored; `npm install --prefix
// .cache/hosts --no-save --ignore-scripts`), nothing fetched after that step.
// Each host runs in a home directory of its own, stock and under
// `mcp-ordered-dispatch run --`, and what it did is read from its own debug
// log, register's report (MCP_ORDERED_DISPATCH_REPORT, one record per
// process and thread that patched an SDK class), the server's own log, and
// in the Bun-compiled hosts a probe preload (check-hosts/probe.mjs) that
// counts the SDK's "unknown token" errors per thread, Workers included
// (these hosts set no onerror). The checks, by family:
//
//   check-hosts/bun-hosts.mjs    Claude Code, opencode, Kilo, cline: register loaded, SDK patched;
//                                opencode's and Kilo's TUI in tmux (the client in a Bun Worker);
//                                `kilo run`'s UNREACHED line beside its report
//   check-hosts/claude.mjs       claude -p: one call (stock, run, setup's function); a server on
//                                every runtime line and a Bash call; other platforms' executables
//   check-hosts/relaunchers.mjs  Qwen Code and Gemini CLI on Node 24, which start themselves again
//   check-hosts/agent-sdk.mjs    an app on the Agent SDK (stock, run, options.env by hand); a
//                                gateway server (Client with onprogress upstream) under run -- claude
//   check-hosts/apps.mjs         hosts started by what holds no MCP client: an app on @opencode-ai/sdk,
//                                an app on @qwen-code/sdk, kilo run through @kilocode/cli's launcher
//   check-hosts/others.mjs       Copilot CLI (its MCP client not this SDK), Amp (doctor, read)
//   check-hosts/doctor.mjs       doctor on each compiled host's executable
//   check-hosts/canary.mjs       --newest: the newest SDK releases and Bun under register
//
//   npm run check:hosts                 install what is missing, check each host
//   npm run check:hosts -- qwen kilo    only the hosts named (versions.mjs lists them)
//   npm run check:hosts -- --newest     the registry's newest releases instead of the pinned ones,
//                                       and the SDK (1.x, 2.x) under register on this Node and on the
//                                       newest Bun (the weekly canary workflow runs it)
//
// It ends with one line per host and check, with its stock and run counts.
// Exit code 0 when every check held; 1 otherwise. Needs tmux for the TUIs.
import { main } from './check-hosts/main.mjs';

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error) => {
    console.error(`check:hosts: ${error.stack ?? error.message}`);
    process.exitCode = 2;
  },
);
