// The loader-thread side of bench/floor-module-register.mjs: a load hook that only calls the next one.
export async function load(url, context, nextLoad) {
  return nextLoad(url, context);
}
