// bench/startup.mjs's second floor (copied into the floor package of the
// application directory it builds, and `--import`ed from there by bare
// specifier, as register is): a module.registerHooks() load hook that does
// nothing but call the next one. What Node's own hook plumbing costs
// every module a process loads once any load hook is in, before register's
// hook does anything of its own.
import { registerHooks } from 'node:module';

registerHooks({
  load(url, context, nextLoad) {
    return nextLoad(url, context);
  },
});
