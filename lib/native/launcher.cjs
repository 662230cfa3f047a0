'use strict';
// Where the native launcher is (crates/launcher: setup's shell functions
// start a host with it, with no Node start in front): in the platform
// package beside the addon, or a clone's own build, found in the order the
// addon is (lib/native/addon.cjs: in a clone its own build first).

const fs = require('node:fs');
const path = require('node:path');
const platform = require('./platform.cjs');
const { canStart } = require('./can-start.cjs');

/** The native launcher's absolute path for this platform, or undefined when neither place has one. */
function nativeLauncher(abi = platform.platformArchABI()) {
  const root = platform.packageRoot();
  const fromPackage = () => {
    try {
      const spec = `${platform.platformPackageName(abi)}/${platform.launcherFileName(abi)}`;
      return root === undefined ? require.resolve(spec) : require.resolve(spec, { paths: [root] });
    } catch {
      return undefined;
    }
  };
  const local = platform.localLauncherPath(abi);
  const inClone = root !== undefined && fs.existsSync(path.join(root, 'Cargo.toml'));
  const candidates = inClone ? [local, fromPackage()] : [fromPackage(), local];
  return candidates.find((file) => file !== undefined && canStart(file));
}

module.exports = { nativeLauncher };
