/**
 * Imported first by `durable-agent/worker`: Temporal's worker (native code) is an optional peer, so a
 * process without it fails here with the one missing-peer error instead of a `require` stack trace.
 */
import { loadPeer, PEERS } from '../integrations/optional-peer';

loadPeer<unknown>(PEERS.worker);
