import { Client, Connection } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import type { Config } from '../config';
import { InputError } from '../errors';

function unreachable(config: Config, cause: unknown): InputError {
  return new InputError(
    `cannot reach Temporal at ${config.temporal.address} (${(cause as Error).message}): ` +
      'start a local dev server with `bash scripts/provision.sh`, or set CHAINSMITH_TEMPORAL_ADDRESS',
    { cause },
  );
}

export async function connectClient(config: Config): Promise<Client> {
  try {
    const connection = await Connection.connect({ address: config.temporal.address, connectTimeout: '5s' });
    return new Client({ connection, namespace: config.temporal.namespace });
  } catch (cause) {
    throw unreachable(config, cause);
  }
}

export async function connectWorker(config: Config): Promise<NativeConnection> {
  try {
    return await NativeConnection.connect({ address: config.temporal.address });
  } catch (cause) {
    throw unreachable(config, cause);
  }
}

export function workflowUrl(config: Config, workflowId: string): string {
  return `${config.temporal.uiUrl}/namespaces/${config.temporal.namespace}/workflows/${encodeURIComponent(workflowId)}`;
}
