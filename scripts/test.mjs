// npm test: the Rust tests while the Node and Bun lines install (a download,
// not the CPU the Rust build needs), then the node suites on this Node, then
// on the other lines. Each step is its npm script; the first that fails ends
// the run with its exit code, as `a && b` would.
import { spawn } from 'node:child_process';

// npm sets npm_execpath to its own CLI: run it with this Node, no shell, on every platform.
const NPM = process.env.npm_execpath ? [process.execPath, process.env.npm_execpath] : ['npm'];

function run(script) {
  return new Promise((resolve) => {
    const child = spawn(NPM[0], [...NPM.slice(1), 'run', script], { stdio: 'inherit', shell: NPM.length === 1 && process.platform === 'win32' });
    child.once('error', (error) => {
      console.error(`npm test: ${script} did not start: ${error.message}`);
      resolve(1);
    });
    child.once('close', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });
}

const STEPS = [['test:cargo', 'test:lines'], ['test:node'], ['test:node-lines']];
for (const step of STEPS) {
  const codes = await Promise.all(step.map(run));
  const failed = codes.find((code) => code !== 0);
  if (failed !== undefined) {
    process.exitCode = failed;
    break;
  }
}
