// no-docker: needs no Docker engine, so npm test runs it with DOCKER_HOST pointing nowhere (jest.config.js)
import { scoreLinks, type LabelRow } from './scores';

/** Blame pairs drawn with p = 0.5 weigh 2; text pairs weigh 1; predicted-stratum rows never feed recall. */
const labels: LabelRow[] = [
  { from: 2, to: 1, link: true, strength: 'strong', stratum: 'text', p: 1 },
  { from: 3, to: 2, link: true, strength: 'weak', stratum: 'blame', p: 0.5 },
  { from: 4, to: 1, link: false, strength: null, stratum: 'blame', p: 0.5 },
  { from: 5, to: 4, link: true, strength: 'strong', stratum: 'blame', p: 0.5 },
  { from: 6, to: 5, link: true, strength: 'strong', stratum: 'predicted', p: 1 },
];

describe('scoreLinks', () => {
  it('weights drawn rows by 1/p for recall and leaves predicted-stratum rows out of it', () => {
    const { recall } = scoreLinks({
      labels,
      links: [
        [1, 2],
        [5, 6],
      ],
      chains: [],
    });
    // real drawn links: 2-1 (w 1), 3-2 (w 2), 5-4 (w 2); predicted among them: 2-1 only
    expect(recall).toEqual({ value: 0.2, hits: 1, of: 5, unlabelled: 0 });
  });

  it('is exact when every predicted link is labelled, whatever the weights', () => {
    const { precision } = scoreLinks({
      labels,
      links: [
        [1, 4],
        [2, 3],
        [5, 6],
      ],
      chains: [],
    });
    expect(precision).toEqual({ value: 0.667, hits: 2, of: 3, unlabelled: 0 });
  });

  it('estimates from the labelled predicted links and counts the others when some have no label', () => {
    const { precision } = scoreLinks({
      labels,
      links: [
        [1, 4],
        [2, 3],
        [7, 8],
      ],
      chains: [],
    });
    // 1-4 false (w 2), 2-3 real (w 2): 0.5 of the weight; 7-8 unlabelled
    expect(precision).toEqual({ value: 0.5, hits: 2, of: 4, unlabelled: 1 });
  });

  it('holds a chain only when every link is labelled real, and strong only when every one is strong', () => {
    const scores = scoreLinks({
      labels,
      links: [],
      chains: [
        [1, 2, 3],
        [4, 5, 6],
        [1, 4],
        [7, 8],
      ],
    });
    expect(scores.chainPrecision).toEqual({ value: 0.667, hits: 2, of: 3, unlabelled: 1 });
    expect(scores.chainPrecisionStrong).toEqual({ value: 0.333, hits: 1, of: 3, unlabelled: 1 });
  });
});
