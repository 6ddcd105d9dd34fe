// no-docker: needs no Docker engine, so npm test runs it with DOCKER_HOST pointing nowhere (jest.config.js)
import { agreement } from './agreement';
import type { LabelRow } from './scores';

const row = (
  from: number,
  to: number,
  link: boolean,
  strength: 'strong' | 'weak' | null = link ? 'strong' : null,
): LabelRow => ({ from, to, link, strength });

describe('agreement between two labellers', () => {
  it('counts only pairs both labelled, whichever way round they are written', () => {
    const first = [row(2, 1, true), row(3, 1, false), row(9, 8, true)];
    const second = [row(1, 2, true), row(3, 1, false), row(5, 4, true)];
    expect(agreement(first, second)).toEqual({ pairs: 2, link: 1, kappa: 1, strength: 1, linksConfirmed: 1 });
  });

  it('gives kappa 0 where agreement is what the base rates give by chance', () => {
    // Each reader says "link" half the time, independently: observed 0.5, chance 0.5.
    const first = [row(2, 1, true), row(3, 1, true), row(4, 1, false), row(5, 1, false)];
    const second = [row(2, 1, true), row(3, 1, false), row(4, 1, true), row(5, 1, false)];
    expect(agreement(first, second)).toMatchObject({ pairs: 4, link: 0.5, kappa: 0, linksConfirmed: 0.5 });
  });

  it('tells a lenient second reader from an agreeing one, and compares strengths of shared links', () => {
    const first = [
      row(2, 1, true, 'strong'),
      row(3, 1, true, 'weak'),
      row(4, 1, false),
      row(5, 1, false),
      row(6, 1, false),
    ];
    const second = [
      row(2, 1, true, 'weak'),
      row(3, 1, true, 'weak'),
      row(4, 1, true),
      row(5, 1, true),
      row(6, 1, false),
    ];
    // observed 3/5; chance 0.4*0.8 + 0.6*0.2 = 0.44; kappa (0.6-0.44)/0.56
    expect(agreement(first, second)).toEqual({ pairs: 5, link: 0.6, kappa: 0.286, strength: 0.5, linksConfirmed: 1 });
  });

  it('is empty, not perfect, when no pair is shared', () => {
    expect(agreement([row(2, 1, true)], [row(3, 1, true)]).pairs).toBe(0);
    expect(agreement([row(2, 1, true)], [row(3, 1, true)]).kappa).toBe(0);
  });
});
