import type { Output, PersistedState } from "@chainsim/consensus";

/**
 * The replica's outputs leave in call order, each after the snapshot that covers it is on disk
 * (docs/consensus.md, "Persistence"). After a failed save nothing leaves until a snapshot is stored again:
 * later outputs that do not ask for a save (a resent VIEW-CHANGE, a forwarded NEW-VIEW) carry what the
 * failed save was to cover, so they first store the replica's current snapshot.
 */
export class PersistThenSend {
  private chain: Promise<void> = Promise.resolve();
  private unsaved = false;

  constructor(
    private readonly parts: {
      save: (snapshot: PersistedState) => Promise<void>;
      /** The replica's snapshot now (taken only after a failed save). */
      snapshot: () => PersistedState;
      send: (to: number | "all", message: Output["send"][number]["message"]) => void;
      log: (line: string) => void;
    },
  ) {}

  /** Sends `messages` once `snapshot` (taken when the output was made, if it asked for one) is stored. */
  carry(snapshot: PersistedState | undefined, messages: Output["send"]): void {
    this.chain = this.chain
      .then(async () => {
        const toSave = snapshot ?? (this.unsaved && messages.length > 0 ? this.parts.snapshot() : undefined);
        if (toSave) {
          this.unsaved = true;
          await this.parts.save(toSave);
          this.unsaved = false;
        }
        for (const { to, message } of messages) this.parts.send(to, message);
      })
      .catch((error) => this.parts.log(`consensus: storing the snapshot failed, messages not sent: ${(error as Error).stack ?? error}`));
  }

  /** Resolves once everything carried so far is sent (or given up). */
  flushed(): Promise<void> {
    return this.chain;
  }
}
