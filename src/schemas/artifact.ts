import { z } from 'zod';

/** A content address in the artifact store: history carries these, never the blobs. */
export const ArtifactRef = z.string().regex(/^sha256:[0-9a-f]{64}$/, 'an artifact reference sha256:<64 hex>');
export type ArtifactRef = z.infer<typeof ArtifactRef>;
