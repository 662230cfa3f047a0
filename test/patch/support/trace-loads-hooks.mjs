// module.register() hooks (loader thread): report every file: URL the ES
// module loader loads to the main thread, through the port passed as data.
let port;

export function initialize(data) {
  port = data.port;
}

export async function load(url, context, nextLoad) {
  if (url.startsWith('file:')) port.postMessage(url);
  return nextLoad(url, context);
}
