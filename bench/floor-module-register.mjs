// bench/startup.mjs's hook floor on Node lines without module.registerHooks()
// (20.19-22.14), where register's ES module hook goes in through
// module.register(): a module.register() load hook that does nothing but
// call the next one, on its loader thread. What Node's own round trip to
// that thread costs every module a process loads, before register's hook
// does anything of its own.
import { register } from 'node:module';

register(new URL('./floor-module-register-thread.mjs', import.meta.url));
