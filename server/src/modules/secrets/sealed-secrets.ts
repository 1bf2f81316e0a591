import type { EntityManager } from 'typeorm';

/**
 * The client secrets a webhook request is signed with, sealed, as the secrets feature stores them: the webhooks
 * feature opens them (its SigningSecrets) for an attempt, whose claim reads them in its own statement with
 * SEALED_SECRETS, and for a forward to `plaza listen`, which asks sealedSecretsOf.
 */

/** A rotation's overlap still runs for the client secret row `alias`, by the database's clock. */
const OVERLAPPING = (alias: string) => `${alias}.previous_valid_until > clock_timestamp()`;

/**
 * The sealed secrets a request is signed with, from client secret row `alias`: the current one, and the replaced
 * one while a rotation's overlap runs (an ended overlap's is not fetched).
 */
export const SEALED_SECRETS = (alias: string) => `${alias}.key_id, ${alias}.ciphertext,
              CASE WHEN ${OVERLAPPING(alias)} THEN ${alias}.previous_key_id END AS previous_key_id,
              CASE WHEN ${OVERLAPPING(alias)} THEN ${alias}.previous_ciphertext END AS previous_ciphertext,
              CASE WHEN ${OVERLAPPING(alias)} THEN ${alias}.previous_valid_until END AS previous_valid_until`;

/** A client secret row as SEALED_SECRETS reads it: the previous one only while a rotation's overlap ran. */
export interface SealedSecrets {
  key_id: string;
  ciphertext: Buffer;
  previous_key_id: string | null;
  previous_ciphertext: Buffer | null;
  /** When the replaced secret stops signing: compared with the request's own time, so an overlap ends on time without a job. */
  previous_valid_until: Date | null;
}

/**
 * The sealed secrets of app `appId`, null when it has none, with the database's time as they were read (db_now): a
 * request signed with them is stamped by that clock, as an attempt is by its claim's, never by the process's own.
 */
export async function sealedSecretsOf(manager: EntityManager, appId: string): Promise<(SealedSecrets & { db_now: Date }) | null> {
  const [row] = (await manager.query(`SELECT ${SEALED_SECRETS('s')}, clock_timestamp() AS db_now FROM client_secrets s WHERE s.app_id = $1`, [appId])) as (SealedSecrets & {
    db_now: Date;
  })[];
  return row ?? null;
}
