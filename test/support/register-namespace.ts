import { Connection } from '@temporalio/client';
import { msToTs } from '@temporalio/common/lib/time';
import { temporal } from '@temporalio/proto';
import searchAttributes from '../../src/workflows/search-attributes.json';
import { TEST_NAMESPACE } from './namespace';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Registers the namespace with the chain search attributes, idempotently, and waits until it answers. */
export async function ensureNamespace(address: string, namespace = TEST_NAMESPACE): Promise<void> {
  const connection = await Connection.connect({ address });
  try {
    const { workflowService, operatorService } = connection;
    try {
      await workflowService.describeNamespace({ namespace });
    } catch {
      await workflowService
        .registerNamespace({ namespace, workflowExecutionRetentionPeriod: msToTs('1 day') })
        .catch((err: { code?: number }) => {
          // Another jest run registering it at the same time.
          if (err.code !== 6 /* ALREADY_EXISTS */) throw err;
        });
    }
    const want = Object.fromEntries(
      Object.entries(searchAttributes).map(([name, type]) => [
        name,
        temporal.api.enums.v1.IndexedValueType[
          `INDEXED_VALUE_TYPE_${type.toUpperCase()}` as 'INDEXED_VALUE_TYPE_KEYWORD'
        ],
      ]),
    );
    // A new namespace reaches the frontend's cache within seconds: until then calls on it fail.
    for (let i = 0; ; i++) {
      try {
        const have = (await operatorService.listSearchAttributes({ namespace })).customAttributes ?? {};
        const missing = Object.fromEntries(Object.entries(want).filter(([name]) => !(name in have)));
        if (Object.keys(missing).length === 0) {
          await workflowService.listWorkflowExecutions({ namespace, pageSize: 1 });
          return;
        }
        await operatorService.addSearchAttributes({ namespace, searchAttributes: missing });
      } catch (err) {
        if (i >= 120)
          throw new Error(`Temporal namespace ${namespace} is not ready after 60 s: ${(err as Error).message}`);
      }
      await sleep(500);
    }
  } finally {
    await connection.close();
  }
}
