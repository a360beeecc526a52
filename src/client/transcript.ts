import type { Message } from '../core/messages/messages';
import type { AgentRunResult } from '../core/run/result';
import type { BlobStore } from '../integrations/store/blob-store';
import { TranscriptStore } from '../integrations/store/transcript-store';

/**
 * The complete conversation of a finished run, read from the blob store the workers use (the result
 * itself may carry only the most recent messages). Stored tool outputs are resolved to their full text.
 */
export async function loadTranscript(store: BlobStore, result: Pick<AgentRunResult, 'transcriptHead'>): Promise<Message[]> {
  const transcripts = new TranscriptStore(store);
  return transcripts.resolve(await transcripts.load(result.transcriptHead));
}
