/** Where a long mining step is; `total` is absent while it is not known yet. */
export interface Progress {
  phase: string;
  done: number;
  total?: number;
}

/** Miners report progress through this and never draw anything themselves. */
export type ProgressListener = (progress: Progress) => void;
