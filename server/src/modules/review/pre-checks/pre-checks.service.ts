import type { DataSource, EntityManager } from 'typeorm';
import { perTickLoader } from '../../../platform/per-tick-loader.js';
import { logger } from '../../../platform/logger.js';
import { findApp } from '../../apps/index.js';
import type { GuardedHttpClient } from '../../../platform/outbound-http/guarded-http-client.js';
import { framingProblem } from './frame-policy.js';
import { probeImage } from './image-probe.js';
import { AppPreCheck, type PreCheckResult } from './pre-check.entity.js';

export const PRE_CHECKS_DUE_CHANNEL = 'plaza_pre_checks_due';
const PAGE_BYTES = 64 * 1024;
const ICON_BYTES = 256 * 1024;
const RECOMMENDED_ICON_SIZE = 512;
/** A screenshot bigger than this makes the app page slow on a phone; one byte more is read to tell. */
export const SCREENSHOT_MAX_BYTES = 2 * 1024 * 1024;
/** Wider or taller than this, a screenshot is a poster, not a screen. */
export const SCREENSHOT_MAX_SIDE = 4096;

const formatKb = (bytes: number) => `${Math.max(1, Math.round(bytes / 1024))} KB`;

const result = (check: string, outcome: 'PASS' | 'WARN' | 'FAIL', detail: string): PreCheckResult => ({ check, outcome, detail });

/**
 * Review pre-checks, so a reviewer need not try by hand what a machine can: does the App URL answer over HTTPS, may the platform frame it,
 * is the icon an image, and is it 512x512; does each screenshot load as an image within size. Requested in the submission's transaction, run by a job.
 */
export class PreCheckService {
  constructor(
    private readonly db: DataSource,
    private readonly http: GuardedHttpClient,
    private readonly platformOrigin: string,
  ) {}

  /** Called inside the (re)submission's transaction: the request is durable exactly when the submission is. */
  async request(manager: EntityManager, appId: string, revision: number): Promise<void> {
    await manager.query(`INSERT INTO app_pre_checks (app_id, revision, status, results, requested_at) VALUES ($1, $2, 'PENDING', '[]', now()) ON CONFLICT DO NOTHING`, [
      appId,
      revision,
    ]);
    await manager.query('SELECT pg_notify($1, $2)', [PRE_CHECKS_DUE_CHANNEL, '']);
  }

  /** Runs pending checks (claimed with SKIP LOCKED, so several workers share them); returns how many ran. */
  async runDue(limit = 5): Promise<number> {
    const [claimed]: [AppPreCheck[], number] = await this.db.query(
      `UPDATE app_pre_checks SET claim_expires_at = now() + interval '60 seconds'
        WHERE (app_id, revision) IN (
          SELECT app_id, revision FROM app_pre_checks
           WHERE status = 'PENDING' AND (claim_expires_at IS NULL OR claim_expires_at < now())
           ORDER BY requested_at LIMIT $1 FOR UPDATE SKIP LOCKED)
        RETURNING app_id AS "appId", revision`,
      [limit],
    );
    await Promise.all(claimed.map((row) => this.runOne(row.appId, row.revision)));
    return claimed.length;
  }

  private async runOne(appId: string, revision: number): Promise<void> {
    const app = await findApp(this.db.manager, appId);
    if (!app || app.revision !== revision) {
      await this.db.getRepository(AppPreCheck).update({ appId, revision }, { status: 'SUPERSEDED', completedAt: new Date(), claimExpiresAt: null });
      return;
    }
    let results: PreCheckResult[];
    try {
      const [page, icon, screenshots] = await Promise.all([
        this.checkAppUrl(app.appUrl),
        this.checkIcon(app.iconUrl),
        Promise.all((app.screenshotUrls ?? []).map((url, index) => this.checkScreenshot(url, index))),
      ]);
      results = [...page, ...icon, ...screenshots];
    } catch (err) {
      logger.error({ err, appId }, 'pre-checks failed to run');
      results = [result('PRE_CHECKS', 'WARN', 'The automated checks could not run; review by hand')];
    }
    await this.db.getRepository(AppPreCheck).update({ appId, revision }, { status: 'DONE', results, completedAt: new Date(), claimExpiresAt: null });
  }

  private async checkAppUrl(appUrl: string): Promise<PreCheckResult[]> {
    const response = await this.http.get(appUrl, PAGE_BYTES);
    if (response.statusCode === null || response.statusCode >= 400) {
      const why = response.error ?? `HTTP ${response.statusCode}`;
      return [result('APP_URL_HTTPS', 'FAIL', `The App URL does not answer over HTTPS: ${why}`), result('APP_URL_FRAMEABLE', 'WARN', 'Not checked: the page did not load')];
    }
    const answered =
      response.statusCode >= 300
        ? result(
            'APP_URL_HTTPS',
            'WARN',
            `The App URL answers ${response.statusCode}, a redirect to ${String(response.headers.location ?? 'elsewhere')}; the iframe will follow it`,
          )
        : result('APP_URL_HTTPS', 'PASS', `HTTPS ${response.statusCode} in ${response.durationMs} ms`);
    const problem = framingProblem(response.headers, appUrl, this.platformOrigin);
    return [answered, problem ? result('APP_URL_FRAMEABLE', 'FAIL', problem) : result('APP_URL_FRAMEABLE', 'PASS', `${this.platformOrigin} may frame the page`)];
  }

  private async checkIcon(iconUrl: string): Promise<PreCheckResult[]> {
    const response = await this.http.get(iconUrl, ICON_BYTES);
    if (response.statusCode === null || response.statusCode >= 300) {
      return [
        result('ICON_IMAGE', 'FAIL', `The icon could not be loaded: ${response.error ?? `HTTP ${response.statusCode}`}`),
        result('ICON_SIZE', 'WARN', 'Not checked: no icon'),
      ];
    }
    const facts = probeImage(response.body);
    const contentType = String(response.headers['content-type'] ?? 'none');
    if (!facts)
      return [result('ICON_IMAGE', 'FAIL', `The icon is not an image we recognise (content type ${contentType})`), result('ICON_SIZE', 'WARN', 'Not checked: not an image')];
    const image = result('ICON_IMAGE', 'PASS', `${facts.format.toUpperCase()} image (content type ${contentType})`);
    if (facts.width === undefined || facts.height === undefined) return [image, result('ICON_SIZE', 'PASS', `${facts.format.toUpperCase()} scales to any size`)];
    const size = `${facts.width}x${facts.height}`;
    return [
      image,
      facts.width === RECOMMENDED_ICON_SIZE && facts.height === RECOMMENDED_ICON_SIZE
        ? result('ICON_SIZE', 'PASS', size)
        : result('ICON_SIZE', 'WARN', `The icon is ${size}; 512x512 is recommended`),
    ];
  }

  /** One screenshot (numbered from 1 for the reviewer): it loads, it is an image, and it is within size. */
  private async checkScreenshot(url: string, index: number): Promise<PreCheckResult> {
    const which = `Screenshot ${index + 1}`;
    const response = await this.http.get(url, SCREENSHOT_MAX_BYTES + 1);
    if (response.statusCode === null || response.statusCode >= 300) {
      return result('SCREENSHOT_IMAGE', 'FAIL', `${which} could not be loaded: ${response.error ?? `HTTP ${response.statusCode}`}`);
    }
    const contentType = String(response.headers['content-type'] ?? 'none');
    const facts = probeImage(response.body);
    if (!facts) return result('SCREENSHOT_IMAGE', 'FAIL', `${which} is not an image we recognise (content type ${contentType})`);
    const format = facts.format.toUpperCase();
    if (response.body.length > SCREENSHOT_MAX_BYTES) {
      return result('SCREENSHOT_IMAGE', 'FAIL', `${which} is a ${format} image over ${SCREENSHOT_MAX_BYTES / 1024 / 1024} MB; smaller files load faster on phones`);
    }
    const size = facts.width === undefined || facts.height === undefined ? 'scales to any size' : `${facts.width}x${facts.height}`;
    if ((facts.width ?? 0) > SCREENSHOT_MAX_SIDE || (facts.height ?? 0) > SCREENSHOT_MAX_SIDE) {
      return result('SCREENSHOT_IMAGE', 'WARN', `${which} is ${size}; at most ${SCREENSHOT_MAX_SIDE} pixels a side is expected`);
    }
    return result('SCREENSHOT_IMAGE', 'PASS', `${which}: ${format} image, ${size}, ${formatKb(response.body.length)}`);
  }

  /** The checks of an app's latest revision; the apps of one list ask together (one query). */
  readonly latest = perTickLoader(
    async (appIds: string[]) => {
      const rows = await this.db
        .getRepository(AppPreCheck)
        .createQueryBuilder('p')
        .distinctOn(['p.app_id'])
        .where('p.app_id = ANY(:appIds)', { appIds })
        .orderBy('p.app_id')
        .addOrderBy('p.revision', 'DESC')
        .getMany();
      return new Map(rows.map((row) => [row.appId, row]));
    },
    (): AppPreCheck | null => null,
  );

  async pendingCount(): Promise<number> {
    const [{ n }] = await this.db.query(`SELECT count(*)::int AS n FROM app_pre_checks WHERE status = 'PENDING' AND (claim_expires_at IS NULL OR claim_expires_at < now())`);
    return n;
  }
}
