// The loader-thread side of bench/noop-register-hook.mjs: a load hook that only calls the next one.
export async function load(url, context, nextLoad) {
  return nextLoad(url, context);
}
