// The bounded drain after the command exits: leftovers (a background grandchild) may hold the
// pipes open, so read what arrives for at most `ms`, then give up. Resolves true when every
// pipe closed in time.
export function drainWithin(pipesClosed: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const expired = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  return Promise.race([pipesClosed.then(() => true), expired]).finally(() => clearTimeout(timer));
}
