import type { DataSource, EntityManager } from 'typeorm';
import type { Config } from '../../config.js';
import { perTickLoader } from '../../platform/per-tick-loader.js';
import { newId } from '../../platform/ids.js';
import { entityColumns } from '../../platform/prepared-query.js';
import { requireOwnedApp } from '../apps/index.js';
import type { Principal } from '../../platform/auth/principal.js';
import { StoredClientSecret } from './client-secret.entity.js';
import type { ClientSecret } from './client-secret.types.js';
import { SecretAuditAction, SecretAuditEntry } from './secret-audit.entity.js';
import { rotationInProgress } from './secrets.errors.js';
import { generateClientSecret, openSecret, sealSecret } from '../../platform/secret-crypto.js';

/** Audit entries shown per app; the query cost estimate counts `clientSecretAudit` by it (graphql-limits LIST_BOUNDS). */
export const AUDIT_TRAIL_LENGTH = 100;

/** When the running overlap ends, or null when none runs at `now` (an overlap ends on its own). */
function overlapEnd(stored: StoredClientSecret, now: Date): Date | null {
  const overlapping = stored.previousCiphertext !== null && stored.previousKeyId !== null && stored.previousValidUntil !== null && stored.previousValidUntil > now;
  return overlapping ? stored.previousValidUntil : null;
}

export class SecretsService {
  constructor(
    private readonly db: DataSource,
    private readonly config: Config,
  ) {}

  private get currentKey() {
    return this.config.encryptionKeys[0];
  }

  /** Creates the app's first secret inside the submission's transaction. */
  async createForApp(manager: EntityManager, appId: string, now: Date): Promise<void> {
    await manager.insert(StoredClientSecret, { appId, createdAt: now, ...sealSecret(generateClientSecret(), appId, this.currentKey) });
  }

  /** The secret in clear, for signing webhooks. Never returned to a client except through reveal/rotate. */
  async signingSecret(appId: string, manager: EntityManager = this.db.manager): Promise<string> {
    const stored = await manager.findOneByOrFail(StoredClientSecret, { appId });
    return openSecret(stored, appId, this.config.encryptionKeys);
  }

  async reveal(principal: Principal, appId: string, ipAddress: string | null): Promise<ClientSecret> {
    return this.db.transaction(async (manager) => {
      await this.assertOwner(manager, principal, appId);
      const stored = await this.lockStored(manager, appId);
      const now = new Date();
      const shown = this.inClear(stored, appId, now);
      const overlapEnded = stored.previousCiphertext !== null && shown.previousValue === null;
      if (stored.keyId !== this.currentKey.id || (shown.previousValue !== null && stored.previousKeyId !== this.currentKey.id) || overlapEnded) {
        // Re-seal under the current key as it is read, so an old key can be retired once all rows have moved;
        // an overlap that has ended drops the replaced secret on the way.
        await manager.update(
          StoredClientSecret,
          { appId },
          { ...sealSecret(shown.value, appId, this.currentKey), ...this.sealPrevious(shown.previousValue, shown.previousValidUntil, appId) },
        );
      }
      await this.audit(manager, principal, appId, SecretAuditAction.REVEAL, ipAddress);
      return shown;
    });
  }

  /**
   * A new secret. With an overlap the replaced one keeps signing until then (both in webhook-signature,
   * the old alone in X-Platform-Signature), so receivers move over without a failed delivery; 0 switches
   * at once. While an overlap runs only 0 is allowed (a leak: every older secret stops at once): another
   * overlap would drop the original secret at once and put a third in X-Platform-Signature, failing
   * every receiver that deployed [new, old] as documented.
   */
  async rotate(principal: Principal, appId: string, overlapHours: number, ipAddress: string | null): Promise<ClientSecret> {
    return this.db.transaction(async (manager) => {
      await this.assertOwner(manager, principal, appId);
      // Locked, so of two rotations at once the second sees the first one's overlap.
      const stored = await this.lockStored(manager, appId);
      const createdAt = new Date();
      const running = overlapEnd(stored, createdAt);
      if (running !== null && overlapHours > 0) throw rotationInProgress(running);
      const replaced = overlapHours > 0 ? openSecret(stored, appId, this.config.encryptionKeys) : null;
      const previousValidUntil = replaced === null ? null : new Date(createdAt.getTime() + overlapHours * 3_600_000);
      const value = generateClientSecret();
      await manager.update(StoredClientSecret, { appId }, { createdAt, ...sealSecret(value, appId, this.currentKey), ...this.sealPrevious(replaced, previousValidUntil, appId) });
      await this.audit(manager, principal, appId, SecretAuditAction.ROTATE, ipAddress);
      return { appId, value, createdAt, previousValue: replaced, previousValidUntil };
    });
  }

  /** Ends an overlap now: only the current secret signs from the next attempt on. Harmless when none runs. */
  async finishRotation(principal: Principal, appId: string, ipAddress: string | null): Promise<ClientSecret> {
    return this.db.transaction(async (manager) => {
      await this.assertOwner(manager, principal, appId);
      const stored = await this.lockStored(manager, appId);
      const value = openSecret(stored, appId, this.config.encryptionKeys);
      if (stored.previousCiphertext !== null) await manager.update(StoredClientSecret, { appId }, this.sealPrevious(null, null, appId));
      // Audited like a reveal: the answer holds the secret in clear.
      await this.audit(manager, principal, appId, SecretAuditAction.FINISH_ROTATION, ipAddress);
      return { appId, value, createdAt: stored.createdAt, previousValue: null, previousValidUntil: null };
    });
  }

  /** The row, locked: a reveal, rotation and finish of one secret are serialised, each seeing the last one's result. */
  private lockStored(manager: EntityManager, appId: string): Promise<StoredClientSecret> {
    return manager.findOneOrFail(StoredClientSecret, { where: { appId }, lock: { mode: 'pessimistic_write' } });
  }

  /** Both secrets in clear; the replaced one only while its overlap runs at `now` (an overlap ends on its own). */
  private inClear(stored: StoredClientSecret, appId: string, now: Date): ClientSecret {
    const value = openSecret(stored, appId, this.config.encryptionKeys);
    if (overlapEnd(stored, now) === null) return { appId, value, createdAt: stored.createdAt, previousValue: null, previousValidUntil: null };
    const previousValue = openSecret({ keyId: stored.previousKeyId!, ciphertext: stored.previousCiphertext! }, appId, this.config.encryptionKeys);
    return { appId, value, createdAt: stored.createdAt, previousValue, previousValidUntil: stored.previousValidUntil };
  }

  private sealPrevious(previous: string | null, validUntil: Date | null, appId: string): Pick<StoredClientSecret, 'previousKeyId' | 'previousCiphertext' | 'previousValidUntil'> {
    if (previous === null) return { previousKeyId: null, previousCiphertext: null, previousValidUntil: null };
    const sealed = sealSecret(previous, appId, this.currentKey);
    return { previousKeyId: sealed.keyId, previousCiphertext: sealed.ciphertext, previousValidUntil: validUntil };
  }

  /** The newest AUDIT_TRAIL_LENGTH entries of an app, newest first; the apps of one list ask together (one query). */
  readonly auditTrail = perTickLoader(
    async (appIds: string[]) => {
      // Per app by its (app_id, at) index, so an app revealed thousands of times costs no more than the rows shown.
      const rows: SecretAuditEntry[] = await this.db.query(
        `SELECT ${entityColumns(this.db, SecretAuditEntry, 's')}
         FROM unnest($1::text[]) AS wanted(app_id)
         CROSS JOIN LATERAL (SELECT * FROM client_secret_audit c WHERE c.app_id = wanted.app_id ORDER BY c.at DESC LIMIT $2) s`,
        [appIds, AUDIT_TRAIL_LENGTH],
      );
      const byApp = new Map<string, SecretAuditEntry[]>();
      for (const row of rows) {
        const entry = Object.assign(new SecretAuditEntry(), row);
        const ofApp = byApp.get(entry.appId);
        if (ofApp) ofApp.push(entry);
        else byApp.set(entry.appId, [entry]);
      }
      return byApp;
    },
    (): SecretAuditEntry[] => [],
  );

  private async assertOwner(manager: EntityManager, principal: Principal, appId: string): Promise<void> {
    // Lock the app row so a reveal and a rotation of the same secret are serialised.
    await requireOwnedApp(manager, principal, appId, { lock: 'pessimistic_read', forbiddenMessage: 'Only the developer who owns this app can see or rotate its client secret' });
  }

  private async audit(manager: EntityManager, principal: Principal, appId: string, action: SecretAuditAction, ipAddress: string | null): Promise<void> {
    await manager.insert(SecretAuditEntry, { id: newId.secretAudit(), appId, actorId: principal.userId, action, ipAddress, at: new Date() });
  }
}
