// The packages the CLI needs that a library user does not: durable-agent's optional peer dependencies
// that the command line loads. Checked before anything else, so a missing one is one line, not a stack trace.

/** Optional peers every CLI command may load (the model SDKs, stores and tracing give their own error when used). */
const CLI_PEERS = ['commander', 'ora', 'hono', '@hono/node-server', '@temporalio/worker', '@temporalio/testing'];

/**
 * The CLI peers `resolve` cannot find.
 * @param {(name: string) => string} resolve
 */
function missingCliPeers(resolve = require.resolve) {
  return CLI_PEERS.filter((name) => {
    try {
      resolve(name);
      return false;
    } catch {
      return true;
    }
  });
}

/**
 * The one line for missing peers, in the form every missing-peer error has.
 * @param {string[]} names
 */
function missingPeersLine(names) {
  const what = names.length === 1 ? 'the package' : 'the packages';
  return `error: the durable-agent CLI needs ${what} ${names.join(', ')}: npm install ${names.join(' ')}`;
}

module.exports = { CLI_PEERS, missingCliPeers, missingPeersLine };
