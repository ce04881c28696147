// The optional token bucket in front of reconcile starts, as the queue needs it: a synchronous
// "may one start now?", and one wake-up when the next token is due.
import type { SchedulerLike, Subscription } from 'rxjs';
import type { TokenBucket } from '../../core/token-bucket.js';

/**
 * Gates starts on a {@link TokenBucket}. A token reserved while the bucket is empty is held for the
 * wake-up it schedules; one not used by then goes back.
 *
 * @example
 * ```ts
 * const gate = new RateGate(tokenBucket({ qps: 10, burst: 100 }, scheduler), scheduler, pump);
 * while (ready.size > 0 && gate.admit()) start(ready.shift());
 * gate.release();
 * ```
 */
export class RateGate {
  private held = false;
  private wake: Subscription | undefined;
  private readonly bucket: TokenBucket;
  private readonly scheduler: SchedulerLike;
  private readonly onToken: () => void;

  // No parameter properties: the sources stay runnable with Node's type stripping (bench/).
  /**
   * @example `new RateGate(bucket, scheduler, pump)`
   * @param bucket - the token bucket.
   * @param scheduler - runs the wake-up.
   * @param onToken - called when a token the gate waited for is due.
   */
  constructor(bucket: TokenBucket, scheduler: SchedulerLike, onToken: () => void) {
    this.bucket = bucket;
    this.scheduler = scheduler;
    this.onToken = onToken;
  }

  /**
   * Takes a token for one start, or schedules a wake-up for when one is due.
   *
   * @example `if (!gate.admit()) break;`
   * @returns true when the start may happen now.
   */
  admit(): boolean {
    if (this.held) {
      this.held = false;
      return true;
    }
    if (this.wake !== undefined) return false;
    const wait = this.bucket.reserve();
    if (wait === 0) return true;
    this.wake = this.scheduler.schedule(() => {
      this.wake = undefined;
      this.held = true;
      this.onToken();
    }, wait);
    return false;
  }

  /** Gives back a held token nothing used, so an idle queue's bucket refills as if never asked. @example `gate.release()` */
  release(): void {
    if (!this.held) return;
    this.held = false;
    this.bucket.giveBack();
  }

  /** Cancels the wake-up. @example `gate.cancel()` */
  cancel(): void {
    this.wake?.unsubscribe();
    this.wake = undefined;
  }
}
