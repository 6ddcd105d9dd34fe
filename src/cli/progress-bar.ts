import { SingleBar } from 'cli-progress';
import type { Progress, ProgressListener } from '../mining/progress';

/**
 * A progress bar on stderr, one per phase. Only on a terminal: in logs and pipes a bar is noise,
 * and the summary at the end says what happened.
 */
export function progressBar(stream: NodeJS.WriteStream = process.stderr): { listener: ProgressListener; stop(): void } {
  if (!stream.isTTY) return { listener: () => undefined, stop: () => undefined };
  let bar: SingleBar | undefined;
  let phase = '';
  const stop = () => {
    bar?.stop();
    bar = undefined;
  };
  const listener = ({ phase: next, done, total }: Progress) => {
    if (next !== phase) {
      stop();
      phase = next;
      // A phase that cannot know its size yet (one long git read) shows its name, not an empty bar.
      const format = total === undefined ? `${next.padEnd(24)} …` : `${next.padEnd(24)} [{bar}] {value}/{total}`;
      bar = new SingleBar({ stream, format, hideCursor: true, clearOnComplete: false });
      bar.start(total ?? 0, done);
    }
    if (total !== undefined) bar?.setTotal(total);
    bar?.update(done);
  };
  return { listener, stop };
}
