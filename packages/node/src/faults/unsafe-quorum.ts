/**
 * UNSAFE, TEST-ONLY. When this environment variable holds a positive integer q, the replica prepares and
 * commits on q votes instead of 2f+1 (ReplicaConfig.unsafeQuorum), so two validators can decide different
 * values. It exists only so tests can show that the scenario checker catches a broken node; it is an
 * environment variable, not a config key, so no manifest or generated config can turn it on.
 */
export const UNSAFE_QUORUM_ENV = "CHAINSIM_UNSAFE_QUORUM";

/** The unsafe quorum from the environment; null when unset; throws on anything but a positive integer. */
export function unsafeQuorumFromEnv(env: NodeJS.ProcessEnv = process.env): number | null {
  const text = env[UNSAFE_QUORUM_ENV];
  if (text === undefined || text === "") return null;
  if (!/^[1-9]\d*$/.test(text)) throw new Error(`${UNSAFE_QUORUM_ENV}=${text}: should be a positive integer (the votes that make a quorum)`);
  return Number(text);
}
